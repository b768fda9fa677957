"""`Problem`: one rule of an API that a request breaks, in the API's own words.

Every codec's `check_request` answers with a list of them (empty when the request looks
valid), and the API double turns the first one into the error body the real API sends.
A problem is an error (the server answers 400) unless its `severity` is "warning": a
field a server reads past without a word (`wire.check(..., server=...)`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Problem"]


@dataclass(frozen=True, repr=False)
class Problem:
    """One rule of an API that a request breaks.

    `path` points into the request body the kit's way, dots and indexes
    (`messages.3.content.0`); `text` is the error the API itself returns, word for word
    where it is known (typos included); `param` is what OpenAI reports as the error's
    `param`, and `code` its `code`; `severity` is "error" (refused) or "warning" (accepted,
    but part of it silently ignored). `str(problem)` is the API's text.

    >>> Problem("anthropic", "messages.0", "messages.0: all messages must have non-empty content "
    ...         "except for the optional final assistant message").path
    'messages.0'
    """

    api: str
    path: str
    text: str
    param: str | None = None
    code: str | None = None
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        # subtle: the dataclass repr, with `severity` shown only when it is not the default
        shown = (f"api={self.api!r}, path={self.path!r}, text={self.text!r}, param={self.param!r}, "
                 f"code={self.code!r}")
        return f"Problem({shown}" + (f", severity={self.severity!r})" if self.severity != "error" else ")")
