"""What the client halves of both OpenAI APIs write alike: arguments as JSON text, the cache fields.

- Both OpenAI APIs want a call's arguments as a JSON *string*: compact, as OpenAI's models
  write it, or the model's own malformed text, verbatim (`arguments_json`; the server
  halves write their replies' calls with it too).
- Both cache a prompt by themselves; a request only says how: `prompt_cache_key` and
  `prompt_cache_retention` (`prompt_cache_fields`, which the providers also call to refuse
  a bad value when they are made).
"""

from __future__ import annotations

from typing import Any

from ..._json import compact
from ...blocks import ToolCall
from ...errors import UsageError

__all__ = ["CACHE_RETENTIONS", "arguments_json", "prompt_cache_fields"]


def arguments_json(call: ToolCall) -> str:
    """The arguments as OpenAI's APIs want them: a JSON string, or the model's own bad text.

    >>> arguments_json(ToolCall("call_1", "get_weather", {"city": "Paris"}))
    '{"city":"Paris"}'
    """
    if call.raw_args is not None:
        return call.raw_args
    return compact(dict(call.args))


#: OpenAI's `prompt_cache_retention` values (openai 3.57 `ResponseCreateParams`, which marks the
#: field deprecated in favour of `prompt_cache_options.ttl`; both APIs still take it).
CACHE_RETENTIONS = ("in_memory", "24h")


def prompt_cache_fields(prompt_cache_key: str | None, prompt_cache_retention: str | None) -> dict[str, Any]:
    """The OpenAI request fields for prompt caching, which is automatic: only what was asked.

    `prompt_cache_key` groups requests that share a prefix, so they land on the same cache;
    `prompt_cache_retention` is how long the cache may keep them ("in_memory" or "24h").

    >>> prompt_cache_fields("weather-lesson", None), prompt_cache_fields(None, None)
    ({'prompt_cache_key': 'weather-lesson'}, {})
    """
    fields: dict[str, Any] = {}
    if prompt_cache_key is not None:
        fields["prompt_cache_key"] = prompt_cache_key
    if prompt_cache_retention is not None:
        if prompt_cache_retention not in CACHE_RETENTIONS:
            raise UsageError("prompt_cache_retention must be 'in_memory' or '24h', "
                             f"got {prompt_cache_retention!r}.")
        fields["prompt_cache_retention"] = prompt_cache_retention
    return fields
