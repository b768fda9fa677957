"""Token usage of a model call, in one convention for every provider.

The convention (providers disagree, so adapters convert into this):

- `input_tokens` is *every* input token the call processed, cached or not.
  `cache_read_tokens` and `cache_write_tokens` are parts of it, so the tokens billed at
  the full input price are `input_tokens - cache_read_tokens - cache_write_tokens`.
  (OpenAI already counts this way. Anthropic reports cache reads and writes *beside*
  its `input_tokens`, so its adapter adds them together.)
- `cache_write_1h_tokens` is the part of `cache_write_tokens` written for an hour
  (Anthropic's `ttl: "1h"`, `cache_creation.ephemeral_1h_input_tokens`), priced at the
  1-hour write price; the rest of the writes are 5-minute ones (OpenAI's: 30-minute).
- `output_tokens` is every generated token; `reasoning_tokens` is the part of it spent
  on reasoning (both OpenAI and Anthropic count reasoning inside output).
- `web_search_requests` counts the searches the provider ran for this call (a server
  tool, billed per search on top of the tokens; Anthropic reports it in
  `usage.server_tool_use`, the Responses API as one `web_search_call` item per search).
- `estimated` is True when the numbers were worked out by the kit (the scripted
  provider's four-characters-per-token rule) rather than reported by a provider.

Usage values add up with `+` (and `sum(usages)`, through `Summable`), so a loop's total is one line.
Left out: audio and image tokens, and OpenAI's 12-hour writes (priced as its 30-minute ones).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._summable import Summable
from .errors import UsageError

__all__ = ["Usage"]


@dataclass(frozen=True, repr=False)
class Usage(Summable):
    """Tokens one call (or, added up, several calls) cost.

    >>> Usage(input_tokens=120, output_tokens=20) + Usage(input_tokens=160, output_tokens=15)
    Usage(input_tokens=280, output_tokens=35)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    web_search_requests: int = 0
    estimated: bool = False
    cache_write_1h_tokens: int = 0

    def __post_init__(self) -> None:
        for name in _COUNTS:
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise UsageError(f"Usage.{name} must be a whole number >= 0, got {value!r}")
        if self.cache_read_tokens + self.cache_write_tokens > self.input_tokens:
            raise UsageError(
                "cache_read_tokens + cache_write_tokens are parts of input_tokens and cannot "
                f"exceed it ({self.cache_read_tokens} + {self.cache_write_tokens} > "
                f"{self.input_tokens}); for Anthropic, add its cache counts to input_tokens."
            )
        if self.cache_write_1h_tokens > self.cache_write_tokens:
            raise UsageError(
                f"cache_write_1h_tokens ({self.cache_write_1h_tokens}) are part of cache_write_tokens "
                f"({self.cache_write_tokens}) and cannot exceed it."
            )
        if self.reasoning_tokens > self.output_tokens:
            raise UsageError(
                f"reasoning_tokens ({self.reasoning_tokens}) are part of output_tokens "
                f"({self.output_tokens}) and cannot exceed it."
            )

    @property
    def uncached_input_tokens(self) -> int:
        """Input tokens billed at the full input price."""
        return self.input_tokens - self.cache_read_tokens - self.cache_write_tokens

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            web_search_requests=self.web_search_requests + other.web_search_requests,
            estimated=self.estimated or other.estimated,
            cache_write_1h_tokens=self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )

    def __repr__(self) -> str:
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if getattr(self, f.name) != f.default or f.name in ("input_tokens", "output_tokens")
        ]
        return f"Usage({', '.join(shown)})"


#: The fields that count something (all but `estimated`), named once: `fields()` builds its
#: tuple anew on every call, and a Usage is made for every reply and every sum.
_COUNTS = tuple(f.name for f in fields(Usage) if f.name != "estimated")
