"""The class budget: its numbers come from the price table and the measured lessons, by hand.

`python -m toolcall_lab budget` multiplies the requests each lesson was *measured* to send
(src/toolcall_lab/data/lesson_usage.json, kept current by tests/test_swap.py) by the
prices of `models.PRICES`. The first two tests redo that arithmetic on paper, so a change
to either side that the code did not follow fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcall_lab.errors import UsageError
from toolcall_lab.models import PRICES_CHECKED
from toolcall_lab.teacher.budget import class_budget, parse_lessons, request_usages
from toolcall_lab.teacher.cli import main
from toolcall_lab.teacher.lesson_usage import LESSON_USAGE, PROVIDERS, load_usage, usage_text

NOTEBOOKS = sorted(p.stem for p in (Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))
REFRESH = "lesson_usage.json changed: re-read its numbers into this hand-worked case"


def tokens(provider: str, stem: str) -> list[tuple[int, int]]:
    return [(r["input"], r["output"]) for r in load_usage()["providers"][provider]["lessons"][stem]]


def test_one_case_by_hand_lesson_1_on_claude_opus_5():
    """30 learners run lesson 1 once on Claude Opus 5 ($5 input, $25 output per million).

    Lesson 1 sends six requests to Anthropic (each with the 286-token hidden tool prompt,
    which Opus 5 bills too), all under Opus 5's 512-token minimum cacheable prompt:

        input  397 + 454 + 397 + 454 + 393 + 493 = 2,588 tokens
        output  21 +  14 +  21 +  14 +  42 +  23 =   135 tokens
        one learner: 2,588 * 5 + 135 * 25 = 12,940 + 3,375 = 16,315 dollars per million
                     -> $0.016315
        the class:   30 * $0.016315 = $0.48945, with or without caching
    """
    assert tokens("anthropic", "01_one_tool_call") == [
        (397, 21), (454, 14), (397, 21), (454, 14), (393, 42), (493, 23)], REFRESH
    budget = class_budget(students=30, lessons="1", provider="anthropic", model="claude-opus-5")
    assert budget.lessons[0].input_tokens == 2_588 and budget.lessons[0].output_tokens == 135
    assert budget.per_learner(caching=False) == pytest.approx(0.016315)
    assert budget.per_class(caching=False) == pytest.approx(0.48945)
    assert budget.per_class(caching=True) == pytest.approx(0.48945)


def test_caching_by_hand_lesson_8_on_claude_opus_5():
    """Lesson 8's last three requests are long enough to cache on Opus 5 (512 tokens or more).

    Request 8 (550 tokens) starts with request 7 (493, too short to have been cached), so it
    writes all 550; request 9 (589) starts with request 8 and reads its 550, writing 39;
    request 10 (646) reads 589 and writes 57. At $5 input, $0.50 read, $6.25 write:

        without caching: (550 + 589 + 646) * 5          = 8,925 dollars per million
        with caching:    550 * 6.25                      = 3,437.5
                       + 550 * 0.50 + 39 * 6.25          =   275 + 243.75
                       + 589 * 0.50 + 57 * 6.25          = 294.5 + 356.25   -> 4,607
        saving per learner: 8,925 - 4,607 = 4,318 -> $0.004318
    """
    assert [i for i, _ in tokens("anthropic", "08_frozen_history")][6:] == [493, 550, 589, 646], REFRESH
    lesson = class_budget(students=1, lessons="8", provider="anthropic", model="claude-opus-5").lessons[0]
    cached = lesson.cached_usages
    assert [(u.cache_read_tokens, u.cache_write_tokens) for u in cached[6:]] == [
        (0, 0), (0, 550), (550, 39), (589, 57)]
    assert lesson.cost.total - lesson.cached_cost.total == pytest.approx(0.004318)


def test_by_default_the_budget_counts_every_lesson():
    # issue 18 §5: it counted lessons 1-6 only, whatever the course had become
    measured = load_usage()["providers"]["anthropic"]["lessons"]
    every = sorted(stem for stem in measured if not stem.startswith("00"))
    assert [bill.lesson for bill in class_budget(students=1).lessons] == every
    assert len(every) == len(NOTEBOOKS) - 1


def test_reruns_and_students_multiply():
    once = class_budget(students=1, lessons="1-6")
    assert class_budget(students=30, lessons="1-6", reruns=2).per_class(caching=False) == pytest.approx(
        90 * once.per_learner(caching=False))


def test_another_claude_model_gets_its_own_hidden_tool_prompt():
    (first, *_) = load_usage()["providers"]["anthropic"]["lessons"]["01_one_tool_call"]
    usage = request_usages([first], model="claude-haiku-4-5", caching=False)[0]
    assert usage.input_tokens == first["input"] - 286 + 496


def test_the_measurement_covers_every_lesson_under_every_provider():
    data = load_usage()
    assert set(data["providers"]) == set(PROVIDERS)
    for provider, entry in data["providers"].items():
        assert entry["api"] == PROVIDERS[provider]
        assert sorted(entry["lessons"]) == NOTEBOOKS, (
            f"re-run `python -m toolcall_lab budget --measure` ({provider})")
    assert data["providers"]["anthropic"]["lessons"]["00_start_here"] == []  # no model call: 0 requests
    assert data["measured"] and data["kit"] and data["tokens"].startswith("as the API double counts them")


def test_the_file_is_written_as_usage_text_writes_it():
    """One request a line: a re-measurement's diff shows which requests changed."""
    text = LESSON_USAGE.read_text(encoding="utf-8")
    assert usage_text(json.loads(text)) == text


def test_the_printed_budget_fits_80_columns_and_cites_its_sources(capsys):
    assert main(["budget", "--students", "30"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    lines = out.splitlines()
    assert lines[0] == f"Class budget: 30 learners x 1 run of lessons 1-{int(NOTEBOOKS[-1][:2])}"
    assert "no caching  with caching" in lines[3]
    assert any(line.startswith("class of 30") for line in lines)
    flat = " ".join(out.split())
    assert f"checked {PRICES_CHECKED}" in flat and "platform.claude.com/docs/en/models/haiku-5-5" in flat
    assert f"measured {load_usage()['measured']}" in flat and "a real tokenizer counts differently" in flat
    assert "No published limit in the table for claude-haiku-5-5" in flat


def test_a_model_with_a_published_limit_is_compared_with_it(capsys):
    assert main(["budget", "--students", "30", "--provider", "openai", "--model", "gpt-4o"]) == 0
    flat = " ".join(capsys.readouterr().out.split())
    assert "Tier 1 limits per minute for gpt-4o (quoted;" in flat
    assert "requests 420 of 500 (84%)" in flat  # 30 learners x lesson 27's 14 requests
    assert "over the limit on tokens" in flat
    assert "Measured on gpt-6-luna and priced on gpt-4o" in flat


def test_ollama_costs_nothing_and_says_so(capsys):
    assert main(["budget", "--students", "12", "--provider", "ollama"]) == 0
    out = capsys.readouterr().out
    assert "bills nothing per token: $0" in " ".join(out.split())
    assert class_budget(students=12, provider="ollama").per_class(caching=False) == 0


@pytest.mark.parametrize(("argv", "names"), [
    (["--students", "30", "--model", "gpt-9"], "--model"),
    (["--students", "30", "--model", "gpt-4o"], "--provider"),  # an OpenAI model on Anthropic
    (["--students", "30", "--lessons", "99"], "no lesson 99"),
    (["--students", "30", "--lessons", "six"], "--lessons"),
    (["--students", "0"], "--students"),
    ([], "--students"),
    (["--students", "3", "--reruns", "-1"], "--reruns"),
    (["--students", "3", "--provider", "scripted"], "--provider"),
])
def test_bad_input_is_one_line_that_names_what_to_fix(capsys, argv, names):
    assert main(["budget", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("budget: ") and names in captured.err


def test_lesson_ranges():
    assert parse_lessons("0-2,5") == [0, 1, 2, 5]
    with pytest.raises(UsageError, match="backwards"):
        parse_lessons("6-1")


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-chat"])
def test_the_meter_asks_each_apis_server_half_for_the_hidden_prompt_it_bills(provider):
    """Issue 20: `hidden` is what the API's server half bills beyond the request (Anthropic's tool
    prompt), not a branch on the API's name; a request without tools carries none."""
    pytest.importorskip("anthropic")
    pytest.importorskip("openai")
    from toolcall_lab import Message, Transcript, get_provider
    from toolcall_lab.models import tool_prompt_tokens
    from toolcall_lab.teacher.lesson_usage import MeterDouble
    from toolcall_lab.tools import get_weather

    question = Transcript(messages=[Message.user("What's the weather in Paris?")])
    with MeterDouble() as double:
        sender = get_provider(provider, api_key="any", base_url=double.base_url(PROVIDERS[provider]))
        sender.complete(question, tools=[get_weather])
        sender.complete(question)
    with_tools, without = double.metered
    assert with_tools.hidden == (tool_prompt_tokens(sender.model) if provider == "anthropic" else 0)
    assert without.hidden == 0
    assert with_tools.hidden < with_tools.input


@pytest.mark.parametrize(("provider", "title"), [
    ("anthropic", "Anthropic Messages"), ("openai", "OpenAI Responses"), ("openai-chat", "OpenAI Chat"),
    ("ollama", "Ollama")])
def test_the_report_names_the_api_by_its_api_spec_title(capsys, provider, title):
    # issue 30: budget retyped the titles, and called Chat "Chat Completions" where every widget
    # says ApiSpec's "OpenAI Chat"; the one record's wording wins
    assert main(["budget", "--students", "2", "--provider", provider]) == 0
    assert f"on {provider} ({title} API), model " in capsys.readouterr().out
