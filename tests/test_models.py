"""The dated model table: every price and rule row sourced, dated and labelled; lookups by family."""

from __future__ import annotations

import re

import pytest

from conftest import parsed
from toolcall_lab.models import (
    DEFAULT_MODELS,
    EFFORTS,
    PRICES,
    RULES,
    TEACHING_MODEL,
    Price,
    Rules,
    default_model,
    price_of,
    rules_of,
)

LABELS = {"official", "quoted", "third-party"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
HOSTED = ("anthropic", "openai", "openai-chat")


def test_every_priced_model_and_every_hosted_default_has_a_rules_row():
    assert set(PRICES) <= set(RULES)
    for provider in HOSTED:
        assert default_model(provider) in RULES, f"{provider}'s default model has no rules row"
    anthropic = {"claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5", "claude-opus-5",
                 "claude-haiku-4-5"}
    assert anthropic <= {m for m, r in RULES.items() if r.provider == "anthropic"}


@pytest.mark.parametrize("model", sorted(RULES))
def test_every_rules_row_is_sourced_dated_and_labelled(model):
    rules = RULES[model]
    assert rules.model == model and rules.known
    assert rules.source and DATE.match(rules.checked) and rules.label in LABELS
    if rules.provider == "anthropic":
        assert rules.thinking and rules.min_cache_tokens and rules.reasons is None
        assert rules.efforts is not None and set(rules.efforts) <= set(EFFORTS)
    else:
        assert rules.reasons is not None and rules.thinking is None


@pytest.mark.parametrize("model", sorted(PRICES))
def test_every_price_row_shows_source_date_label_and_the_1_hour_write(model):
    price = PRICES[model]
    assert price.source and DATE.match(price.checked) and price.label in LABELS
    if price.provider == "anthropic":  # Anthropic's 1-hour write is 2x input, on every tier
        for tier in (price, price.long_context):
            if tier is not None:
                assert tier.cache_write_1h == pytest.approx(2 * tier.input)
    else:
        assert price.cache_write_1h is None  # OpenAI sells 30-minute and 12-hour writes, no 1-hour one


def test_haiku_5_5_rules_match_its_whats_new_page():
    haiku = rules_of("claude-haiku-5-5")
    assert "enabled" not in haiku.thinking and "adaptive" in haiku.thinking
    assert haiku.sampling == "default" and haiku.prefill is False and haiku.min_cache_tokens == 512
    old = rules_of("claude-haiku-4-5-20251001")  # a dated snapshot id is its family
    assert old.thinking == frozenset({"enabled", "disabled"}) and old.prefill and old.min_cache_tokens == 4096


def test_openai_reasoning_models():
    assert rules_of("gpt-6-luna").reasons and rules_of("gpt-6.2-sol").reasons
    assert rules_of("gpt-4o-2024-08-06").reasons is False


def test_an_unknown_model_gets_rules_that_refuse_nothing():
    rules = rules_of("qwen3:4b")
    assert rules == Rules("qwen3:4b", "") and not rules.known
    assert rules.thinking is None and rules.efforts is None and rules.reasons is None
    assert rules.sampling == "any" and rules.prefill
    assert all(default_model(p) not in RULES for p in DEFAULT_MODELS if p not in (*HOSTED, "scripted"))


def test_price_tiers_pick_the_row_for_the_prompt_length():
    haiku = price_of("claude-haiku-5-5")
    assert haiku.for_prompt(100_000) is haiku
    assert haiku.for_prompt(100_001) is haiku.long_context
    flat = Price("flat", "anthropic", 1.0, 5.0, 0.1)
    assert flat.for_prompt(10**9) is flat


def test_the_teaching_model_is_priced_and_described_truthfully():
    import toolcall_lab.models as models

    assert price_of(TEACHING_MODEL) is not None and TEACHING_MODEL in RULES
    assert "legacy since Opus 5.5" in PRICES[TEACHING_MODEL].source
    source = open(models.__file__, encoding="utf-8").read()
    assert "a frontier model" not in source


def test_unknown_names_are_usage_errors():
    from toolcall_lab.errors import ToolcallLabError, UsageError
    from toolcall_lab.models import require_price

    assert require_price("claude-haiku-4-5-20251001") is price_of("claude-haiku-4-5")
    for attempt in (lambda: require_price("llama3.2"), lambda: default_model("nonesuch")):
        with pytest.raises(UsageError) as info:
            attempt()
        assert isinstance(info.value, ToolcallLabError) and isinstance(info.value, ValueError)


def test_every_source_the_table_cites_is_public_or_in_the_repository():
    """The notes the table was built from are not in the repository: rows cite the official
    page, the third party, or docs/sources.md, which keeps the dated evidence."""
    from pathlib import Path

    from toolcall_lab import models

    root = Path(models.__file__).parents[2]
    text = Path(models.__file__).read_text(encoding="utf-8")
    cited = set(re.findall(r"docs/[\w./-]+\.md", text))
    assert cited == {"docs/sources.md"} and all((root / path).is_file() for path in cited)
    assert not hasattr(models, "_SOURCE_NOTES")
    assert "shared/" not in text
    assert [m for m, r in RULES.items() if "pricing.md" in r.source + r.notes] == []


def test_a_sibling_model_never_borrows_another_models_price_or_rules():
    from toolcall_lab.models import price_of, rules_of, tool_prompt_tokens

    assert price_of("gpt-4o-mini") is None          # not gpt-4o's $2.50 (the shipped tapes use it)
    assert price_of("gpt-4o-2024-08-06") is price_of("gpt-4o")
    assert price_of("claude-opus-5-5") is not price_of("claude-opus-5")
    assert price_of("claude-opus-5-9") is None       # an unknown sibling is unknown, not Opus 5
    assert tool_prompt_tokens("claude-haiku-5-5-20261007") == tool_prompt_tokens("claude-haiku-5-5")
    assert rules_of("claude-opus-5-20260724") == rules_of("claude-opus-5")


@pytest.mark.parametrize("model", sorted(RULES))
def test_openai_breakpoints_and_write_fees_came_together_with_gpt_5_6(model):
    """OpenAI's guide: writes cost 1.25x and explicit breakpoints exist from the GPT-5.6 family on."""
    rules, price = RULES[model], PRICES.get(model)
    assert rules.cache_breakpoints is not None, f"{model}: say whether it takes cache breakpoints"
    if rules.provider == "anthropic":
        assert rules.cache_breakpoints  # cache_control on any model with a cache minimum
    elif price is not None:
        assert rules.cache_breakpoints == (price.cache_write is not None)
        if price.cache_write is not None:
            assert price.cache_write == pytest.approx(1.25 * price.input)
        assert rules.cache_breakpoints == (rules.cache_increment == 1)  # exact boundaries since 5.6


def test_preserved_thinking_and_earlier_thinking_as_input_are_rows_of_the_table():
    # Anthropic's preserved-thinking page: on these models a thinking block is bound to its prefix,
    # and "usable blocks stay in context and are billed as input"; the prefix-checks page lists them.
    family = {"claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"}
    assert {m for m, r in RULES.items() if r.thinking_bound} == family
    for model in family:
        assert RULES[model].keeps_thinking is True and "preserved-thinking" in RULES[model].source
    assert rules_of("claude-haiku-4-5").keeps_thinking is False  # the API strips it
    assert "context-windows" in rules_of("claude-haiku-4-5").source
    assert rules_of("claude-opus-5").keeps_thinking is None  # no stored page says
    assert not rules_of("qwen3:4b").thinking_bound and rules_of("qwen3:4b").keeps_thinking is None


# -- issue 20: a model id outside this table names one of its rows -----------------------------------
_MODEL_ID = re.compile(r"(claude-|gpt-|o\d-|qwen|Qwen/|ggml-org/|llama\d)[\w.:/-]*")


def _ids_spelled_in_code() -> list[tuple[str, int, str]]:
    """Every string constant of src/ outside models.py that is a whole model id (docstrings left
    out: their examples may name a model the table does not know, to show what happens)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "src" / "toolcall_lab"
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name in ("models.py", "template.py"):  # template.py names chat templates, not models
            continue
        tree = parsed(path)
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and _MODEL_ID.fullmatch(node.value)):
                found.append((str(path.relative_to(root)), node.lineno, node.value))
    return found


def test_every_model_id_the_code_spells_is_a_row_of_the_table():
    """The answer keys ask about named models ("a 3,000-token prompt on Claude Haiku 4.5"), so they
    spell ids; each must be a row here (or a dated snapshot of one), so retiring a model fails
    here, naming every place that still asks about it."""
    from toolcall_lab.models import RATE_LIMITS, TOOL_PROMPT_TOKENS, same_model

    known = {*PRICES, *RULES, *DEFAULT_MODELS.values(), *TOOL_PROMPT_TOKENS, *RATE_LIMITS}
    found = _ids_spelled_in_code()
    assert any("checks" in path for path, _, _ in found)  # the answer keys are read
    assert [(path, line, model) for path, line, model in found
            if not any(same_model(model, row) for row in known)] == []
