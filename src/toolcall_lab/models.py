"""Model ids, default models, prices and per-model request rules: one dated table, easy to update.

Every number and rule here has a date and a source, because prices change, model ids
retire and each model release changes what a request may carry. A row names the official
page it was read from; where the only evidence is a quotation of that page or a third
party, docs/sources.md keeps it, dated, and the row cites that. To update the kit, edit
`PRICES` and `RULES` (and `DEFAULT_MODELS` when a default retires), change
`PRICES_CHECKED`, and run the tests: nothing else in the kit spells a price or a
per-model rule. A model id is spelled elsewhere only to name one row, the way a lesson's
question names the model it asks about ("a 3,000-token prompt on Claude Haiku 4.5", in
the answer keys), and every id the code spells is a row here or a dated snapshot of one
(`tests/test_models.py`), so a retired model is found everywhere it is still asked about.

Prices are US dollars per million tokens (MTok), standard tier:

    dollars = tokens / 1e6 * price_per_mtok

Cache prices follow each provider's rules (see `Price`): Anthropic bills a 5-minute
cache write at 1.25x input, a 1-hour write at 2x, and a read at 0.1x (0.05x on some new
models); OpenAI bills cached input at its own rate, and from the GPT-5.6 family a cache
write at 1.25x input (no write fee before).

One long-context tier is in the table: Claude Haiku 5.5 bills a request whose prompt
(input + cache reads + cache writes) is over 100,000 tokens at its higher rates, for every
token of that request, output included (`Price.for_prompt`).

`RULES` says, per model, which request shapes the API refuses with a 400 (thinking
modes, sampling parameters, assistant prefill, forced tool use, reasoning effort, thinking
sent back after an edit of what came before it) and whether earlier turns' thinking is
billed again as input; the codecs' `check_request` and the API double enforce them
through `rules_of`.

`CONTEXT_WINDOWS` holds how many tokens a request and its reply may hold together, per
model, for the models a lesson runs against a window (`context_budget.Budget` takes it).

`RATE_LIMITS` holds the per-minute limits of the lowest paid tier where a published number
could be read (`python -m toolcall_lab budget` compares a class's burst with them); a
model without a row has no limit the kit will guess.

Left out: batch, fast mode, regional processing, OpenAI's long-context rates (above 272K
input tokens) and the rules of models not in the table (`rules_of` is permissive for
them). Local servers cost nothing per token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Literal

from .errors import UsageError

__all__ = ["CONTEXT_WINDOWS", "DEFAULT_MODELS", "EFFORTS", "PRICES", "PRICES_CHECKED", "RATE_LIMITS", "RULES",
           "SERVER_TOOL_FEES", "TEACHING_MODEL", "TOOL_PROMPT_TOKENS", "ContextWindow", "Price", "RateLimit",
           "Rules", "ServerToolFee", "context_window_of", "default_model", "price_of", "rate_limit_of",
           "require_price", "rules_of", "same_model", "server_tool_fee", "tool_prompt_tokens"]

#: The day the table below was last checked against its sources.
PRICES_CHECKED = date(2026, 11, 30)


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens for one model.

    `cache_write` is the 5-minute (Anthropic) or 30-minute (OpenAI) write price, `None`
    where writing to the cache costs nothing extra; `cache_write_1h` is Anthropic's
    1-hour write. `source` says where the numbers come from, `label` how directly:
    "official" (a stored official page), "quoted" (the official wording quoted by a third
    party) or "third-party"; `checked` is the day the row was last read against it.

    A model with a long-context tier carries it as `long_context`, a `Price` with the
    higher rates that applies to a whole request once its prompt is over
    `long_context_above` tokens (see `for_prompt`).
    """

    model: str
    provider: str
    input: float
    output: float
    cache_read: float
    cache_write: float | None = None
    cache_write_1h: float | None = None
    released: str = ""
    source: str = ""
    label: str = "official"
    checked: str = PRICES_CHECKED.isoformat()  # the day the whole table was checked
    long_context_above: int | None = None
    long_context: Price | None = None

    def for_prompt(self, prompt_tokens: int) -> Price:
        """The rates a request with `prompt_tokens` of prompt pays (input + cache reads + writes).

        Worked example, Claude Haiku 5.5 (to 100,000 tokens: $0.10 input, $0.50 output;
        above: $0.50 and $2.50): a request of 150,000 input tokens and 1,000 output
        tokens is over the threshold, so *every* token pays the high rates:

            150,000 * 0.50 + 1,000 * 2.50 = 75,000 + 2,500 = 77,500 dollars per million
            tokens -> $0.0775 (the low rates would say $0.0155)

        >>> haiku = PRICES["claude-haiku-5-5"]
        >>> haiku.for_prompt(100_000).input, haiku.for_prompt(150_000).input
        (0.1, 0.5)
        """
        above = self.long_context_above
        if self.long_context is not None and above is not None and prompt_tokens > above:
            return self.long_context
        return self


# fmt: off
PRICES: dict[str, Price] = {p.model: p for p in (
    # Anthropic: platform.claude.com pricing and model overview pages; the cache-read rates
    # that only quotations give are in docs/sources.md §1, with their dates.
    Price("claude-haiku-5-5", "anthropic", 0.10, 0.50, 0.01, 0.125, 0.20, "2026-10-07",
          "platform.claude.com/docs/en/models/haiku-5-5/overview (input, output, both writes, the "
          "100,000-token tier; read 2026-11-30); cache read quoted 2026-10-08",
          long_context_above=100_000,
          long_context=Price("claude-haiku-5-5", "anthropic", 0.50, 2.50, 0.05, 0.625, 1.00,
                             "2026-10-07", "same page: 'for prompts over 100,000 tokens'")),
    Price("claude-sonnet-5-5", "anthropic", 2.00, 10.00, 0.10, 2.50, 4.00, "2026-09-28",
          "platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview; cache read $0.10 "
          "from 2026-10-07 (quoted)", "quoted"),
    Price("claude-opus-5-5", "anthropic", 4.00, 20.00, 0.20, 5.00, 8.00, "2026-09-22",
          "platform.claude.com/docs/zh-CN/models/opus-5-5/overview"),
    Price("claude-opus-5", "anthropic", 5.00, 25.00, 0.50, 6.25, 10.00, "2026-07-24",
          "platform.claude.com/docs/en/models/opus-5/overview (legacy since Opus 5.5)"),
    Price("claude-haiku-4-5", "anthropic", 1.00, 5.00, 0.10, 1.25, 2.00, "2025-10-01",
          "platform.claude.com/docs/en/about-claude/pricing"),
    # OpenAI: developers.openai.com model pages. OpenAI's writes last 30 minutes (12 hours
    # on request); there is no 1-hour write, so cache_write_1h stays None.
    Price("gpt-6-luna", "openai", 0.10, 0.50, 0.01, 0.125, None, "2026-09-22",
          "developers.openai.com/ja-JP/api/docs/models/gpt-6-luna (read 2026-11-30)"),
    Price("gpt-6.2-sol", "openai", 2.00, 10.00, 0.10, 2.50, None, "2026-11-17",
          "developers.openai.com/api/docs/models/gpt-6.2-sol"),
    Price("gpt-5.4-mini", "openai", 0.75, 4.50, 0.075, None, None, "2026-03-17",
          "third-party price lists (APIYI, adk-model)", "third-party"),
    Price("gpt-4o", "openai", 2.50, 10.00, 1.25, None, None, "2024-08-06",
          "openai.com/index/api-prompt-caching"),
)}
# fmt: on

@dataclass(frozen=True)
class ServerToolFee:
    """What one use of a provider's own tool costs, on top of tokens; one row of `SERVER_TOOL_FEES`.

    `per_1000` is dollars per 1,000 uses (searches), so one use costs `per_1000 / 1000`.
    The results the tool returns are billed as tokens too, at the model's rates (they are
    in the usage's input tokens already). `source`, `label` and `checked` as for `Price`.
    """

    provider: str
    tool: str
    per_1000: float
    source: str = ""
    label: str = "official"
    checked: str = PRICES_CHECKED.isoformat()

    @property
    def per_use(self) -> float:
        """Dollars one use costs ($10 per 1,000 -> $0.01)."""
        return self.per_1000 / 1000


#: Per-use fees of the provider-side tools the kit decodes, by (provider, tool). The
#: evidence for each row, with its date, is in docs/sources.md §7.
SERVER_TOOL_FEES: dict[tuple[str, str], ServerToolFee] = {(f.provider, f.tool): f for f in (
    ServerToolFee("anthropic", "web_search", 10.00,
                  "platform.claude.com/docs/en/about-claude/pricing ('Web search: $10 per 1,000 "
                  "searches plus the tokens of the results'), quoted by third parties", "quoted"),
    ServerToolFee("openai", "web_search", 10.00,
                  "developers.openai.com/api/docs/pricing ('Web search (all models): $10 / 1k calls "
                  "+ search content tokens billed at model rates'), quoted in community.openai.com/t/1363698",
                  "quoted"),
)}


def server_tool_fee(provider: str, tool: str = "web_search") -> ServerToolFee | None:
    """The per-use fee of `provider`'s own `tool`, or None where the table has none.

    >>> server_tool_fee("anthropic").per_use, server_tool_fee("ollama")
    (0.01, None)
    """
    return SERVER_TOOL_FEES.get((provider, tool))


#: The model each provider uses when you name none. Local defaults are the small
#: tool-capable models their docs use; pull or download them first.
DEFAULT_MODELS: dict[str, str] = {
    "scripted": "scripted-1",
    "anthropic": "claude-haiku-5-5",
    "openai": "gpt-6-luna",          # OpenAI Responses
    "openai-chat": "gpt-6-luna",     # OpenAI Chat Completions
    "ollama": "qwen3:4b",            # docs/capabilities: `ollama pull qwen3:4b`
    "ollama-openai": "qwen3:4b",
    "vllm": "Qwen/Qwen3-0.6B",       # vLLM docs' tool-calling example
    "llamacpp": "ggml-org/Qwen3-1.7B-GGUF:Q4_K_M",
    "lmstudio": "qwen2.5-7b-instruct",
}


@dataclass(frozen=True)
class RateLimit:
    """How much one model's API accepts per minute at its lowest paid tier; one row of `RATE_LIMITS`.

    `rpm` is requests per minute. Anthropic limits input and output tokens separately
    (`input_tpm`, `output_tpm`: ITPM and OTPM, cache reads not counted on current models);
    OpenAI limits their sum (`tpm`). A limit the source does not give is None. `tier` names
    the tier as the provider does; `source`, `checked` and `label` as for `Price`, and
    `notes` says how old the evidence is.
    """

    model: str
    provider: str
    tier: str
    rpm: int
    input_tpm: int | None = None
    output_tpm: int | None = None
    tpm: int | None = None
    source: str = ""
    checked: str = PRICES_CHECKED.isoformat()
    label: str = "official"
    notes: str = ""


# Anthropic's rate-limit page (platform.claude.com/docs/en/api/rate-limits) has per-model
# tables for the Start, Build and Scale tiers, but no stored copy showed the rows of the
# models above: no Claude row is given rather than one guessed (docs/sources.md §6).
RATE_LIMITS: dict[str, RateLimit] = {r.model: r for r in (
    RateLimit("gpt-4o", "openai", "Tier 1", rpm=500, tpm=30_000, label="quoted",
              source="OpenAI's usage-tier table (platform.openai.com/docs/guides/rate-limits), "
                     "quoted in community.openai.com/t/1028595",
              notes="the quotation dates from 2024; the current model page was not stored "
                    "(docs/sources.md §6)"),
)}


def rate_limit_of(model: str) -> RateLimit | None:
    """The lowest paid tier's limits for `model`, or None where the table has none.

    Only the model itself or a dated snapshot of it matches: a sibling has limits of its own.

    >>> rate_limit_of("gpt-4o-2024-08-06").rpm, rate_limit_of("claude-haiku-5-5") is None
    (500, True)
    >>> rate_limit_of("gpt-4o-mini") is None   # not gpt-4o's
    True
    """
    return next((row for name, row in RATE_LIMITS.items() if same_model(name, model)), None)


@dataclass(frozen=True)
class ContextWindow:
    """How many tokens one request to a model may hold, its reply included; one row of `CONTEXT_WINDOWS`.

    `tokens` is the context window: the whole prompt (system, tools, messages) and the reply
    share it ("all the text a language model can reference when generating a response,
    including the response itself", platform.claude.com/docs/en/build-with-claude/context-windows,
    read in its stored translations); `max_output` is the most one reply may hold. `source`,
    `checked` and `label` as for `Price`.
    """

    model: str
    provider: str
    tokens: int
    max_output: int
    source: str = ""
    checked: str = PRICES_CHECKED.isoformat()
    label: str = "official"


#: The context window of each model a lesson runs against a window (lesson 20 §3); a model
#: without a row has no window the kit will guess (pass the window to `context_budget.Budget`).
CONTEXT_WINDOWS: dict[str, ContextWindow] = {w.model: w for w in (
    ContextWindow("claude-opus-5", "anthropic", 1_000_000, 128_000, checked="2026-12-07",
                  source="platform.claude.com/docs/en/models/opus-5/overview ('Context window: 1M tokens "
                         "· Max output: 128K tokens')"),
    ContextWindow("claude-haiku-4-5", "anthropic", 200_000, 64_000, checked="2026-12-07",
                  source="platform.claude.com/docs/en/models/opus-5/overview, its comparison table "
                         "('Claude Haiku 4.5 | 200K | 64K'); a 200K model's 400 says 'prompt is too long: "
                         "208310 tokens > 200000 maximum' (anthropics/claude-code#12186)"),
)}


def context_window_of(model: str) -> ContextWindow | None:
    """The context window row for `model` (a dated snapshot takes its model's), or None.

    >>> context_window_of("claude-haiku-4-5-20251001").tokens, context_window_of("llama3.2")
    (200000, None)
    """
    key = _table_key(CONTEXT_WINDOWS, model)
    return CONTEXT_WINDOWS[key] if key else None


#: Input tokens Anthropic adds (and bills) as a hidden system prompt whenever a request
#: offers tools, with `tool_choice` auto or none. Source: the tool-use table of
#: platform.claude.com/docs/en/about-claude/pricing, as quoted by third parties
#: (docs/sources.md §3 has each row's evidence and date).
#: OpenAI and Ollama publish no such figure, so none is assumed for them.
TOOL_PROMPT_TOKENS: dict[str, int] = {
    "claude-haiku-5-5": 286,
    "claude-sonnet-5-5": 286,
    "claude-opus-5-5": 286,
    "claude-opus-5": 286,
    "claude-haiku-4-5": 496,
}


def tool_prompt_tokens(model: str) -> int:
    """Hidden input tokens a request with tools costs on `model` (0 where none is published).

    >>> tool_prompt_tokens("claude-haiku-5-5"), tool_prompt_tokens("gpt-6-luna")
    (286, 0)
    """
    key = _table_key(TOOL_PROMPT_TOKENS, model)
    return TOOL_PROMPT_TOKENS[key] if key else 0


#: The model the lessons price loops on: Claude Opus 5, a *legacy* model since Opus 5.5
#: (2026-09-22), kept because its round prices ($5 input, $25 output, reads at 0.1x,
#: writes at 1.25x) make the lessons' arithmetic easy to follow by hand and its dollars
#: big enough to read; lesson 5's committed numbers are priced on it. It is not the
#: newest or the largest model (the defaults above are the cheapest, for learners' runs).
TEACHING_MODEL = "claude-opus-5"


# -- what each model accepts -------------------------------------------------------------------
#: Anthropic's `output_config.effort` values (anthropic 2.14 `OutputConfigParam`).
EFFORTS = ("low", "medium", "high", "xhigh", "max")

Sampling = Literal["any", "one", "default"]


@dataclass(frozen=True)
class Rules:
    """What one model's API accepts in a request, where models differ; one row of `RULES`.

    Anthropic fields (None where a rule is not known, which lets everything through):

    - `thinking`: the `thinking.type` values accepted ("adaptive", "enabled" with a
      `budget_tokens`, "disabled", "between_tools"); `no_disable_at`: efforts at which
      "disabled" is refused all the same; `efforts`: `output_config.effort` values accepted;
    - `sampling`: "any" (temperature, top_p, top_k as you like), "one" (temperature or
      top_p, not both) or "default" (none of them away from its default);
    - `prefill`: whether a conversation may end in an assistant turn;
    - `forced_tools`: when `tool_choice` "any"/"tool" is accepted: "without_thinking"
      (only with thinking off) or "never";
    - `min_cache_tokens`: the shortest prompt a cache breakpoint caches (shorter: silently
      not cached, no error);
    - `thinking_bound`: *preserved thinking*: each thinking block is bound to its prefix
      (`system`, `tools` and everything before it), so an edit before a returned block
      makes that block and every later one invalid: a 400, or the blocks dropped when the
      request sets `thinking.block_binding.prefix_mismatch_behavior` to "drop_block";
    - `keeps_thinking`: whether earlier turns' thinking sent back stays in the model's
      context and is billed as input (True), or the API strips it and counts none of it
      (False); None where no source says.

    Both: `cache_breakpoints` says whether a request may mark where its cached prefix ends
    (Anthropic's `cache_control` on a block; OpenAI's `prompt_cache_breakpoint` on a content
    block, from the GPT-5.6 family on; before it OpenAI only caches automatically).

    OpenAI: `reasons` says whether the model is a reasoning model, which is what accepts
    `reasoning.effort` (Responses) or `reasoning_effort` (Chat); `chat_tools_effort`, where
    set, is the only `reasoning_effort` with which Chat Completions accepts function tools;
    `cache_increment` is the step its automatic cache reports `cached_tokens` in (128 before
    the GPT-5.6 family: 1,024, 1,152, ...; 1 from GPT-5.6 on, which reports the exact
    boundary).

    >>> rules_of("gpt-6-luna").cache_breakpoints, rules_of("gpt-4o").cache_breakpoints
    (True, False)

    Every row names its `source`, the day it was `checked` and its evidence `label`
    ("official", "quoted" or "third-party"); `notes` says where sources disagree.
    """

    model: str
    provider: str
    thinking: frozenset[str] | None = None
    no_disable_at: tuple[str, ...] = ()
    efforts: tuple[str, ...] | None = None
    sampling: Sampling = "any"
    prefill: bool = True
    forced_tools: Literal["without_thinking", "never"] = "without_thinking"
    min_cache_tokens: int | None = None
    thinking_bound: bool = False
    keeps_thinking: bool | None = None
    reasons: bool | None = None
    chat_tools_effort: str | None = None
    cache_increment: int = 1
    cache_breakpoints: bool | None = None
    source: str = ""
    checked: str = PRICES_CHECKED.isoformat()  # the day the whole table was checked
    label: str = "official"
    notes: str = ""

    @property
    def known(self) -> bool:
        """Whether this row comes from the table (False: a model the kit knows nothing about)."""
        return bool(self.source)


_NEWER = frozenset({"adaptive", "disabled"})
_THINKING_PAGE = "platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting"
_CACHE_PAGE = "platform.claude.com/docs/en/build-with-claude/prompt-caching, as quoted (docs/sources.md §2)"
#: Preserved thinking (read 2026-12-01): "On models with preserved thinking, usable blocks stay in
#: context and are billed as input"; a changed prefix makes "that block and every later thinking block"
#: invalid, "and the API rejects the request with a 400 error or drops the invalid blocks, whichever you
#: choose". The models are the prefix-checks page's list (its 5.5 rows are the table's); the choice is
#: `thinking.block_binding.prefix_mismatch_behavior`, "error" (default) or "drop_block" (anthropic 2.15
#: BetaThinkingBlockBindingParam). subtle: the prefix-checks page also says failing the check "might or
#: might not result in a 400 error, depending on the model" (and on accounts created before 2026-08-31 the
#: check runs only when the request sets the field); the kit follows the SDK's default, a 400.
_PRESERVED = ("platform.claude.com/docs/en/build-with-claude/preserved-thinking and its prefix-checks "
              "page (read 2026-12-01)")
#: Earlier models: "previous thinking blocks are automatically stripped from the context window
#: calculation by the Anthropic API and are not part of the conversation history that the model 'sees'
#: for subsequent turns" (the context-windows page, in the stored translations of its earlier version at
#: docs.anthropic.com/{de,es,ko,pt}/docs/build-with-claude/context-windows; no current page names each model).
_STRIPPED = "docs.anthropic.com/en/docs/build-with-claude/context-windows (earlier version, as stored)"
#: OpenAI's automatic caching before GPT-5.6: "starting at 1024 tokens and increasing in 128-token
#: increments" (openai.com/index/api-prompt-caching); GPT-5.6 and later report the exact boundary
#: (developers.openai.com/api/docs/guides/prompt-caching, as quoted).
_OPENAI_STEP = 128
#: OpenAI's guide on writes and breakpoints, in its words: "Cache writes have no additional fee on
#: models before the GPT-5.6 family. For GPT-5.6 models and later model families, cache writes
#: cost 1.25× the uncached input token rate. [...] You can also use explicit cache breakpoints to
#: control exactly which prompt prefixes OpenAI caches." (read 2026-12-01)
_OPENAI_CACHE = "developers.openai.com/api/docs/guides/prompt-caching"

# fmt: off
RULES: dict[str, Rules] = {r.model: r for r in (
    Rules("claude-haiku-5-5", "anthropic", _NEWER, ("xhigh", "max"), EFFORTS, "default", False,
          "without_thinking", 512, cache_breakpoints=True, thinking_bound=True, keeps_thinking=True,
          source="platform.claude.com/docs/en/models/haiku-5-5/whats-new-haiku-5-5 (breaking: manual "
                 f"extended thinking, non-default sampling, prefill; read 2026-11-30); {_THINKING_PAGE}; "
                 f"{_CACHE_PAGE}; {_PRESERVED}",
          notes="'disabled' only at effort high or lower: third-party (APIYI thinking guide "
                "2026-11-09, OpenCode Go v1.12.1); forced tool_choice accepted (quoted, "
                "docs/sources.md §3)."),
    Rules("claude-sonnet-5-5", "anthropic", frozenset({"adaptive", "between_tools"}), (), EFFORTS,
          "default", False, "never", 512, cache_breakpoints=True, thinking_bound=True, keeps_thinking=True,
          source="platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5 and model "
                 f"overview (forced tool use refused); {_THINKING_PAGE}; {_CACHE_PAGE}; {_PRESERVED}",
          notes="'disabled' refused, 'between_tools' is its lowest setting: live error quoted on "
                "dev.to (2026-10-06) and OpenRouter's Claude 5.5 page; the 5.5 migration guides "
                "agree (docs/sources.md §4)."),
    Rules("claude-opus-5-5", "anthropic", frozenset({"adaptive"}), (), EFFORTS, "default", False,
          "never", 512, cache_breakpoints=True, thinking_bound=True, keeps_thinking=True,
          source=f"platform.claude.com/docs/en/models/opus-5-5 overview (forced tool use refused); "
                 f"{_THINKING_PAGE}; {_CACHE_PAGE}; {_PRESERVED}",
          notes="thinking always on: 'disabled' and 'enabled' refused (live errors quoted on dev.to, "
                "2026-10-06)."),
    Rules("claude-opus-5", "anthropic", _NEWER, ("xhigh", "max"), EFFORTS, "default", False,
          "without_thinking", 512, cache_breakpoints=True,
          source="platform.claude.com/docs/en/build-with-claude/thinking (Opus 5: 'disabled' only at "
                 f"effort high or below; quoted in checkmarble/llmberjack#14); {_THINKING_PAGE} (4.7 and "
                 f"later refuse 'enabled'); {_CACHE_PAGE}", label="quoted",
          notes="prefill refused 'already the case on Opus 5' per OpenRouter's Claude 5.5 page "
                "(third-party); the evidence gathered 2026-11-30 lists it for every 4.6+ model "
                "(docs/sources.md §4). Not a preserved-thinking model; whether it keeps earlier "
                "turns' thinking in context no stored page says (keeps_thinking None)."),
    Rules("claude-haiku-4-5", "anthropic", frozenset({"enabled", "disabled"}), (), (), "one", True,
          "without_thinking", 4096, cache_breakpoints=True, keeps_thinking=False,
          source=f"{_THINKING_PAGE} (extended thinking the only mode on Haiku 4.5); "
                 "platform.claude.com/docs/en/models/haiku-4-5/migration-guide (temperature OR top_p, "
                 f"not both); {_CACHE_PAGE}; {_STRIPPED}",
          notes="no effort parameter (apidog Haiku 4.5 vs 5.5 table, third-party); earlier thinking "
                "stripped: the context-windows page says it of extended thinking in general, before "
                "preserved thinking, and names no model."),
    # OpenAI: a reasoning model takes reasoning.effort; others answer 400 "Unsupported parameter".
    Rules("gpt-6-luna", "openai", min_cache_tokens=1024, reasons=True, chat_tools_effort="none",
          cache_breakpoints=True,
          source="developers.openai.com/ja-JP/api/docs/models/gpt-6-luna (reasoning.effort none..max, "
                 "default medium; on Chat Completions function calling only with reasoning effort "
                 f"'none'; read 2026-11-30); {_OPENAI_CACHE} (breakpoints: a later family than GPT-5.6)",
          notes="OpenAIChatProvider sends reasoning_effort 'none' with tools on this model."),
    Rules("gpt-6.2-sol", "openai", min_cache_tokens=1024, reasons=True, cache_breakpoints=True,
          source="developers.openai.com/api/docs/models/gpt-6.2-sol (docs/sources.md §5); "
                 f"{_OPENAI_CACHE} (breakpoints: a later family than GPT-5.6)"),
    Rules("gpt-5.4-mini", "openai", min_cache_tokens=1024, cache_increment=_OPENAI_STEP,
          reasons=True, cache_breakpoints=False, label="third-party",
          source="GPT-5 family reasoning models (third-party price lists: APIYI, adk-model; "
                 f"docs/sources.md §5); {_OPENAI_CACHE} (no breakpoints before GPT-5.6)"),
    Rules("gpt-4o", "openai", min_cache_tokens=1024, cache_increment=_OPENAI_STEP,
          reasons=False, cache_breakpoints=False, label="quoted",
          source="not a reasoning model: 400 \"Unsupported parameter: 'reasoning.effort' is not "
                 "supported with this model.\" (RageAgainstThePixel/OpenAI-DotNet#500, "
                 f"BoundaryML/baml#2708); {_OPENAI_CACHE} (no breakpoints before GPT-5.6)"),
    Rules("gpt-4o-mini", "openai", min_cache_tokens=1024, cache_increment=_OPENAI_STEP,
          reasons=False, cache_breakpoints=False, label="quoted",
          source="not a reasoning model (the GPT-4o family): a live gpt-4o-mini Responses reply carries "
                 "no reasoning item and 0 reasoning tokens (issue 9, 2026-11-30); effort refused like "
                 "gpt-4o's (BoundaryML/baml#2708)"),
)}
# fmt: on


def rules_of(model: str) -> Rules:
    """The request rules for `model`, matching a dated snapshot id to its family.

    A model not in `RULES` (a local model, a newer id) gets a row that refuses nothing:
    the kit does not guess, and the real server has the last word.

    >>> rules_of("claude-haiku-5-5").thinking == frozenset({"adaptive", "disabled"})
    True
    >>> rules_of("claude-haiku-4-5-20251001").prefill, rules_of("llama3.2").known
    (True, False)
    """
    key = _table_key(RULES, model)
    return RULES[key] if key else Rules(model, "")


def default_model(provider: str) -> str:
    """The model id `provider` uses unless told otherwise.

    >>> default_model("anthropic")
    'claude-haiku-5-5'
    """
    try:
        return DEFAULT_MODELS[provider]
    except KeyError:
        known = ", ".join(sorted(DEFAULT_MODELS))
        raise UsageError(f"no default model for provider {provider!r}; known: {known}.") from None


def price_of(model: str) -> Price | None:
    """The price row for `model`, matching a dated snapshot id to its family.

    >>> price_of("claude-haiku-4-5-20251001").input
    1.0
    >>> price_of("llama3.2") is None   # local models: no per-token price
    True
    """
    key = _table_key(PRICES, model)
    return PRICES[key] if key else None


def require_price(model: str) -> Price:
    """`price_of(model)`, or a `UsageError` that says why there is none and lists the table.

    >>> require_price("claude-haiku-4-5-20251001").model   # a dated snapshot: its family's row
    'claude-haiku-4-5'
    >>> require_price("llama3.2")
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: no price for model 'llama3.2'. Local models cost nothing ...
    """
    price = price_of(model)
    if price is None:
        known = ", ".join(PRICES)
        raise UsageError(
            f"no price for model {model!r}. Local models cost nothing per token and the scripted "
            f"provider is free, so there is nothing to price; pass a model from the table "
            f"(models.PRICES, checked {PRICES_CHECKED}): {known}.")
    return price


#: A dated snapshot's suffix: Anthropic's "-20251001", OpenAI's "-2024-08-06".
_SNAPSHOT = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


def same_model(a: str, b: str) -> bool:
    """Whether two model ids name one model: equal, or one is a dated snapshot of the other.

    APIs answer with the snapshot an alias points to, so a reply from "claude-haiku-4-5"
    says "claude-haiku-4-5-20251001"; two different snapshots are two models.

    >>> same_model("claude-haiku-4-5", "claude-haiku-4-5-20251001")
    True
    >>> same_model("claude-opus-5", "claude-haiku-5-5"), same_model("gpt-4o-2024-05-13", "gpt-4o-2024-08-06")
    (False, False)
    """
    if a == b:
        return True
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer.startswith(shorter) and _SNAPSHOT.fullmatch(longer[len(shorter):]) is not None


def _table_key(table: Mapping[str, object], model: str) -> str | None:
    """The row of `table` for `model`: its own, or, for a dated snapshot id, the model's.

    subtle: APIs answer with dated snapshot ids ("gpt-4o-2024-08-06"), which take their
    model's row; a sibling that merely starts the same ("gpt-4o-mini", "claude-opus-5-5"
    against "claude-opus-5") has prices and rules of its own, so it never borrows a row.

    >>> _table_key({"gpt-4o": 1}, "gpt-4o-2024-08-06"), _table_key({"gpt-4o": 1}, "gpt-4o-mini")
    ('gpt-4o', None)
    """
    if model in table:
        return model
    return next((m for m in table if same_model(m, model)), None)
