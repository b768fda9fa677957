"""A cap on tool results: a result over N tokens is cut to its head and tail, and says so.

A tool result goes into the history whole and is sent again on every later call. One big
file, grep or HTML page can fill the context window in a single step, and then every retry
fails the same way (coder/coder#26637, as issue 31 reports it; and "a single uncapped result
(a runaway MCP tool, a big fetch on a small-window model) ... died",
https://github.com/justrach/codegraff/pull/196).
`cap_result(result, max_tokens)` keeps a result under `max_tokens` tokens:

    kept head  ->  one note saying what was cut and how to ask for it  ->  kept tail

The note tells the model three things: that the result was cut, how many tokens were
dropped (of how many), and how to see the part it did not get (call the tool again for a
narrower piece). A model that is not told reads a cut result as the whole one.

Tokens are the kit's own estimate (`tokens.estimate_tokens`, about four characters per
token), the same numbers the scripted provider and the double bill, so a cap of 1,000
tokens keeps about 4,000 characters. `run_agent(..., max_result_tokens=N)` caps every result
before it enters the transcript.

Left out: summarising a result with a model instead of cutting it, keeping the full text
somewhere the model can page through (a tool with an offset argument does that), and
counting with a real tokenizer.
"""

from __future__ import annotations

from dataclasses import replace

from .blocks import ToolResult
from .errors import UsageError
from .tokens import CHARS_PER_TOKEN, estimate_tokens

__all__ = ["CUT", "cap_result", "cut_note"]

#: How the note in a cut result starts, so a reader (and a check) can find it.
CUT = "[toolcall-lab cut this result:"

#: The share of the kept tokens that goes to the tail; the head, where most results say most, gets the rest.
TAIL_SHARE = 0.25


def cut_note(dropped: int, total: int, max_tokens: int) -> str:
    """The note that replaces the middle of a cut result (the model reads it).

    >>> import textwrap
    >>> print(textwrap.fill(cut_note(9000, 10000, 1000), 90))
    [toolcall-lab cut this result: 9000 of its 10000 tokens were dropped from the middle, to
    keep it under 1000 tokens. What you see is its start and its end. To see the rest, call
    the tool again asking for a smaller part (a narrower query, a range of lines, a page).]
    """
    return (f"{CUT} {dropped} of its {total} tokens were dropped from the middle, to keep it under "
            f"{max_tokens} tokens. What you see is its start and its end. To see the rest, call the tool "
            "again asking for a smaller part (a narrower query, a range of lines, a page).]")


def cap_result(result: ToolResult, max_tokens: int) -> ToolResult:
    """`result` as it is when it fits in `max_tokens` tokens; else its head and tail around a note.

    The cut result fits: head + note + tail is at most `max_tokens` estimated tokens, the
    note included (a cap too small to hold the note keeps only the note). Its call id and
    `is_error` are kept.

    Worked example: 40,000 characters are 10,000 tokens; a cap of 1,000 keeps 1,000 minus
    the note's 67 tokens (265 characters and two newlines), 933: a quarter, 233 tokens, of
    tail (932 characters) and 700 of head (2,800 characters); 9,067 tokens are dropped.

    >>> big = ToolResult("toolu_01", "x" * 40_000)
    >>> cut = cap_result(big, 1000)
    >>> estimate_tokens(cut.content) <= 1000, cut.content.startswith("x" * 2800 + "\\n" + CUT)
    (True, True)
    >>> "9067 of its 10000 tokens" in cut.content
    True
    >>> cap_result(ToolResult("toolu_02", "18°C, sunny"), 1000).content
    '18°C, sunny'
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise UsageError(f"max_tokens must be a whole number of tokens >= 1, got {max_tokens!r}.")
    text = result.content
    total = estimate_tokens(text)
    if total <= max_tokens:
        return result
    # subtle: the note's own digits count, so size it with the numbers it will hold
    note = cut_note(total, total, max_tokens)
    room = max_tokens - estimate_tokens("\n" + note + "\n")
    if room <= 0:
        return replace(result, content=cut_note(total, total, max_tokens))
    tail = int(room * TAIL_SHARE)
    head = room - tail
    # characters = tokens * CHARS_PER_TOKEN: whole tokens each side, so the sum stays under the cap
    head_text = text[:head * CHARS_PER_TOKEN]
    tail_text = text[len(text) - tail * CHARS_PER_TOKEN:] if tail else ""
    dropped = total - estimate_tokens(head_text) - estimate_tokens(tail_text)
    cut = f"{head_text}\n{cut_note(dropped, total, max_tokens)}\n{tail_text}"
    return replace(result, content=cut)
