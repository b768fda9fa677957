"""A budget check before every model call: compact the history, or stop, before a request overflows.

A loop re-sends its whole history on every call, and one long run (many tool calls, big
results) grows past the model's context window *inside* one `run_agent`, where a check
between user turns never looks ("Auto-compaction is only evaluated at turn boundaries, so a
long tool loop reaches the context limit unchecked", https://github.com/aaif-goose/goose/issues/11072).
The request then fails, and so does every retry of it, since nothing in it changed.

`run_agent(..., budget=Budget(window=...))` measures each request before it is sent (the
kit's estimate, `tokens.request_tokens`: system prompt, every message, every tool) against
`window - reserve` (`reserve`: the room the reply needs, its max_tokens). Over it:

- `compact=True` (the default): the old turns are replaced by one summary, in place
  (`compaction.compact(..., within_a_run=True)`: the first `keep_first` messages, one
  synthetic summary, the last `keep_last`; every call kept with its result) and the request is measured again;
- still over, or `compact=False`: the run stops before sending, and says why in `run.note`
  (with `stop_reason` context_window_exceeded, as when the API cuts a reply off there).

    >>> from toolcall_lab import Message, Transcript
    >>> budget, long = Budget(window=1000, reserve=200), Transcript(None, [Message.user("x" * 4000)])
    >>> budget.limit, budget.measure(long)  # 4,000 characters and the JSON around them: 4,091 / 4, rounded up
    (800, 1023)
    >>> print(budget.over(long).replace(" (", "\\n("))
    the next request would be about 1023 tokens, over this budget of 800
    (a window of 1000, less 200 kept for the reply)

Left out: a provider's own token count (`count_tokens` endpoints; the estimate is about 4
characters per token, and an API's hidden tool prompt is not in it: keep `reserve` generous).
The window is the one of the model you call: `models.context_window_of(model).tokens` for
the models in the dated table (lesson 20 §3 runs Claude Haiku 4.5's 200,000 with a reserve of
its replies' max_tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .compaction import Summariser, compact, outline
from .errors import UsageError
from .tokens import request_tokens
from .tool import Tool
from .transcript import Transcript

__all__ = ["Budget"]


@dataclass(frozen=True)
class Budget:
    """How many tokens a request may hold, and what to do when the next one would hold more."""

    window: int
    reserve: int = 4096
    compact: bool = True
    keep_first: int = 1
    keep_last: int = 4
    summary: str | Summariser = outline

    def __post_init__(self) -> None:
        for name in ("window", "reserve", "keep_first", "keep_last"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UsageError(f"Budget's {name} must be a whole number of tokens >= 0, got {value!r}.")
        if self.reserve >= self.window:
            raise UsageError(f"Budget(window={self.window}, reserve={self.reserve}) leaves no room for a "
                             "request: the reserve (the reply's room) must be smaller than the window.")

    @property
    def limit(self) -> int:
        """The most tokens a request may hold: the window less the room kept for the reply."""
        return self.window - self.reserve

    def measure(self, transcript: Transcript, tools: Sequence[Tool] = ()) -> int:
        """The next request's tokens, by the kit's estimate (`tokens.request_tokens`)."""
        return request_tokens(transcript, tools)

    def over(self, transcript: Transcript, tools: Sequence[Tool] = ()) -> str | None:
        """None when the next request fits; else one sentence saying by how much it does not."""
        tokens = self.measure(transcript, tools)
        if tokens <= self.limit:
            return None
        return (f"the next request would be about {tokens} tokens, over this budget of {self.limit} "
                f"(a window of {self.window}, less {self.reserve} kept for the reply)")

    def enforce(self, transcript: Transcript, tools: Sequence[Tool] = ()) -> str | None:
        """Make the next request fit, compacting `transcript` in place if allowed; None when it fits.

        Else the sentence to stop with. The kept messages are the same objects, so whatever
        the caller knows of them (their place aside) still holds.
        """
        problem = self.over(transcript, tools)
        if problem is None or not self.compact:
            return None if problem is None else f"{problem}; nothing was sent (Budget(compact=False))."
        shorter = compact(transcript, keep_first=self.keep_first, keep_last=self.keep_last,
                          summary=self.summary, within_a_run=True)
        if len(shorter) < len(transcript):
            transcript.messages[:] = shorter.messages
            problem = self.over(transcript, tools)
            if problem is None:
                return None
            return (f"{problem} even after compacting the history; nothing was sent. Keep less "
                    "(a smaller keep_last), cap tool results (max_result_tokens=), or use a model "
                    "with a larger window.")
        return (f"{problem}, and there is nothing left to compact (the kept head and tail are all of "
                "it); nothing was sent. Cap tool results (max_result_tokens=) or keep less.")
