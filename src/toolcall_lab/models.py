"""Model ids, default models and prices: one dated table, easy to update.

Every number here has a date and a source, because prices change and model ids retire.
To update the kit, edit `PRICES` (and `DEFAULT_MODELS` when a default retires), change
`PRICES_CHECKED`, and run the tests: nothing else in the kit spells a model id or a price.

Prices are US dollars per million tokens (MTok), standard tier:

    dollars = tokens / 1e6 * price_per_mtok

Cache prices follow each provider's rules (see `Price`): Anthropic bills a 5-minute
cache write at 1.25x input, a 1-hour write at 2x, and a read at 0.1x (0.05x on some new
models); OpenAI bills cached input at its own rate, and from the GPT-5.6 family a cache
write at 1.25x input (no write fee before).

Left out: batch, fast mode, regional processing and long-context tiers (Haiku 5.5 above
100,000 prompt tokens, OpenAI above 272K). Local servers cost nothing per token.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

__all__ = ["DEFAULT_MODELS", "PRICES", "PRICES_CHECKED", "TEACHING_MODEL", "TOOL_PROMPT_TOKENS", "Price",
           "default_model", "price_of", "tool_prompt_tokens"]

#: The day the table below was last checked against its sources.
PRICES_CHECKED = date(2026, 11, 30)

_SOURCE_NOTES = "shared/wire/pricing.md (gathered 2026-11-30), where every row carries its evidence"


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens for one model.

    `cache_write` is the 5-minute (Anthropic) or 30-minute (OpenAI) write price, `None`
    where writing to the cache costs nothing extra; `cache_write_1h` is Anthropic's
    1-hour write. `source` says where the numbers come from, `label` how directly:
    "official" (a stored official page), "quoted" (the official wording quoted by a third
    party) or "third-party".
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


# fmt: off
PRICES: dict[str, Price] = {p.model: p for p in (
    # Anthropic: platform.claude.com pricing and model overview pages.
    Price("claude-haiku-5-5", "anthropic", 0.10, 0.50, 0.01, 0.125, 0.20, "2026-10-07",
          "platform.claude.com/docs/en/models/haiku-5-5/overview (prompts up to 100,000 tokens)"),
    Price("claude-sonnet-5-5", "anthropic", 2.00, 10.00, 0.10, 2.50, 4.00, "2026-09-28",
          "platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview; cache read $0.10 "
          "from 2026-10-07 (quoted)", "quoted"),
    Price("claude-opus-5-5", "anthropic", 4.00, 20.00, 0.20, 5.00, 8.00, "2026-09-22",
          "platform.claude.com/docs/zh-CN/models/opus-5-5/overview"),
    Price("claude-opus-5", "anthropic", 5.00, 25.00, 0.50, 6.25, 10.00, "2026-07-24",
          "platform.claude.com/docs/en/models/opus-5/overview"),
    Price("claude-haiku-4-5", "anthropic", 1.00, 5.00, 0.10, 1.25, 2.00, "2025-10-01",
          "platform.claude.com/docs/en/about-claude/pricing"),
    # OpenAI: developers.openai.com model pages.
    Price("gpt-6-luna", "openai", 0.10, 0.50, 0.01, 0.125, None, "2026-09-22",
          "developers.openai.com/ja-JP/api/docs/models/gpt-6-luna"),
    Price("gpt-6.2-sol", "openai", 2.00, 10.00, 0.10, 2.50, None, "2026-11-17",
          "developers.openai.com/api/docs/models/gpt-6.2-sol"),
    Price("gpt-5.4-mini", "openai", 0.75, 4.50, 0.075, None, None, "2026-03-17",
          "third-party price lists (APIYI, adk-model)", "third-party"),
    Price("gpt-4o", "openai", 2.50, 10.00, 1.25, None, None, "2024-08-06",
          "openai.com/index/api-prompt-caching"),
)}
# fmt: on

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


#: Input tokens Anthropic adds (and bills) as a hidden system prompt whenever a request
#: offers tools, with `tool_choice` auto or none. Source: the pricing page's tool-use
#: table, quoted by third parties (shared/wire/pricing.md §1.7, gathered 2026-11-30).
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


#: The model the lessons price loops on: a frontier model, so that the dollars are big
#: enough to read (the defaults above are the cheapest, for learners' own runs).
TEACHING_MODEL = "claude-opus-5"


def default_model(provider: str) -> str:
    """The model id `provider` uses unless told otherwise.

    >>> default_model("anthropic")
    'claude-haiku-5-5'
    """
    try:
        return DEFAULT_MODELS[provider]
    except KeyError:
        known = ", ".join(sorted(DEFAULT_MODELS))
        raise ValueError(f"no default model for provider {provider!r}; known: {known}.") from None


def price_of(model: str) -> Price | None:
    """The price row for `model`, matching a dated snapshot id to its family.

    >>> price_of("claude-haiku-4-5-20251001").input
    1.0
    >>> price_of("llama3.2") is None   # local models: no per-token price
    True
    """
    key = _table_key(PRICES, model)
    return PRICES[key] if key else None


def _table_key(table: Mapping[str, object], model: str) -> str | None:
    """The row of `table` for `model`: its own, or its family's for a dated snapshot id."""
    if model in table:
        return model
    # subtle: APIs answer with dated snapshot ids ("gpt-4o-2024-08-06"); match the family.
    family = [m for m in table if model.startswith(m + "-")]
    return max(family, key=len) if family else None
