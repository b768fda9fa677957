"""Compaction: replace the old turns of a conversation with one summary nobody said.

A long tool loop re-sends its whole history on every call, so sooner or later it keeps
the start (the task), replaces the middle with a short summary and goes on from the
recent turns. `compact` does that to a `Transcript` and returns a new one:

    kept head  ->  one user message marked `synthetic` (your code wrote it)  ->  kept tail

Two cuts, both moved so that no tool call is ever separated from its result (every API
refuses a result whose call is gone, and a call left without its result):

- the head ends before a message that is not a tool result (it moves *later*, taking
  the results of its last calls with it);
- the tail starts at a user turn that is not a tool result: a question or an
  instruction (it moves *earlier*, keeping more, until it finds one).

When the two cuts meet, nothing is left to replace and the transcript comes back as a
copy, unchanged. The summary is a string, or a function of the replaced messages that
writes one (`outline` is a plain, deterministic one: every call and what it returned).

What it does to the bill is `views.cost.cache_effect`: a cache is a prefix match, so the
call after a compaction reads only the kept head from the cache and writes everything
after it again, and each later call reads a shorter history. The bill is the views'
business, so compaction imports none of it (it sits above them, `docs/architecture.md`).

Left out: asking a model to write the summary (pass any function, a provider call
included), compacting tool results in place (shortening them without a summary) and
deciding *when* to compact (a token budget is the usual trigger).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ._text import shorten
from .errors import UsageError, UsageTypeError
from .messages import Message
from .transcript import Transcript

__all__ = ["Summariser", "compact", "outline"]

#: A function that writes the summary of the messages a compaction replaces.
Summariser = Callable[[Sequence[Message]], str]

OUTLINE_RESULT = 80  # characters of each tool result `outline` keeps


def _is_question(message: Message) -> bool:
    """A user turn a tail may start at: it says something and answers no call."""
    return message.role == "user" and not message.tool_results


def _head_end(messages: Sequence[Message], keep_first: int) -> int:
    """The index the kept head ends at, moved later past any results its calls are waiting for."""
    end = min(keep_first, len(messages))
    # subtle: a head that ends on a call must keep the call's results, which come next.
    while 0 < end < len(messages) and messages[end].tool_results:
        end += 1
    return end


def _tail_start(messages: Sequence[Message], keep_last: int, head_end: int,
                within_a_run: bool = False) -> int:
    """The index the kept tail starts at, moved earlier to a user turn that answers no call
    (`within_a_run`: to any message but a results message, whose calls would be gone)."""
    start = max(len(messages) - keep_last, head_end)
    while start > head_end and start < len(messages) and (
            bool(messages[start].tool_results) if within_a_run else not _is_question(messages[start])):
        start -= 1
    return start


def outline(messages: Sequence[Message]) -> str:
    """A summary of `messages` in plain lines: what was asked, every call and what it returned.

    Deterministic and short, so a lesson's output stays the same from run to run; a
    model writes better summaries, and `compact` takes any function that does.

    >>> from toolcall_lab import ToolCall, ToolResult
    >>> print(outline([Message.user("Weather in Paris?"),
    ...                Message.assistant(ToolCall("toolu_01", "get_weather", {"city": "Paris"})),
    ...                Message.results([ToolResult("toolu_01", "18°C, sunny")]),
    ...                Message.assistant("Paris: 18°C and sunny.")]))
    Summary of 4 earlier messages:
    - asked: Weather in Paris?
    - get_weather({"city": "Paris"}) -> 18°C, sunny
    - answered: Paris: 18°C and sunny.
    """
    import json

    results = {r.call_id: r for m in messages for r in m.tool_results}
    lines = [f"Summary of {len(messages)} earlier messages:"]
    for message in messages:
        if message.role == "user" and message.text:
            lines.append(f"- asked: {shorten(message.text, OUTLINE_RESULT)}")
        for call in message.tool_calls:
            args = json.dumps(dict(call.args), ensure_ascii=False)
            result = results.get(call.id)
            said = "(no result)" if result is None else shorten(result.content, OUTLINE_RESULT)
            error = "error: " if result is not None and result.is_error else ""
            lines.append(f"- {call.name}({args}) -> {error}{said}")
        if message.role == "assistant" and message.text:
            lines.append(f"- answered: {shorten(message.text, OUTLINE_RESULT)}")
    return "\n".join(lines)


def compact(transcript: Transcript, *, keep_first: int = 1, keep_last: int = 4,
            summary: str | Summariser = outline, within_a_run: bool = False) -> Transcript:
    """A new transcript: the first `keep_first` messages, one synthetic summary, the last `keep_last`.

    The cuts move so that every tool call stays with its result (see the module
    docstring); `transcript` itself is not changed, and the kept messages are the same
    objects. `summary` is the summary's text, or a function given the replaced messages
    (`outline` by default).

    `within_a_run=True` lets the tail start at a reply too: between user turns the tail
    starts at a question, but inside one long loop the only question is the task itself,
    so nothing would be replaced (`context_budget.Budget` compacts so before each call). The
    tail then starts anywhere but at a results message, moving earlier until it does.

    Worked example: ten messages, [0] the question, [1]-[4] two calls with their results,
    [5] an answer, [6] a new question, [7]-[9] a call, its result and the answer. With
    keep_first=1 and keep_last=3 the tail would start at [7], a call, so it moves back to
    [6], the question; [1]-[5] become one summary: 1 + 1 + 4 = 6 messages.

    >>> from toolcall_lab import ToolCall, ToolResult
    >>> def exchange(n, city):
    ...     call = ToolCall(f"toolu_{n}", "get_weather", {"city": city})
    ...     return [Message.assistant(call), Message.results([ToolResult(call.id, "18°C")])]
    >>> t = Transcript("Be brief.", [Message.user("Paris and Rome?"), *exchange(1, "Paris"),
    ...     *exchange(2, "Rome"), Message.assistant("Both 18°C."), Message.user("And Oslo?"),
    ...     *exchange(3, "Oslo"), Message.assistant("Oslo 18°C too.")])
    >>> short = compact(t, keep_first=1, keep_last=3)
    >>> len(t), len(short), [m.synthetic for m in short]
    (10, 6, [False, True, False, False, False, False])
    >>> short[2].text
    'And Oslo?'

    Within a run: the task, then three exchanges (a call, its result); with keep_last=2 the
    tail is the last exchange, and the middle two become one summary: 1 + 1 + 2 messages.

    >>> t = Transcript(None, [Message.user("Read it all.")])
    >>> for n in (1, 2, 3):
    ...     _ = t.append(Message.assistant(ToolCall(f"toolu_{n}", "read_chunk", {"n": n})))
    ...     _ = t.append(Message.results([ToolResult(f"toolu_{n}", "...")]))
    >>> [m.role + ("*" if m.synthetic else "") for m in compact(t, keep_last=2, within_a_run=True)]
    ['user', 'user*', 'assistant', 'user']
    >>> len(compact(t, keep_last=2)) == len(t)  # between user turns: no question to start the tail at
    True
    """
    if not isinstance(transcript, Transcript):
        raise UsageTypeError(f"compact takes a Transcript, not {type(transcript).__name__}.")
    for name, value in (("keep_first", keep_first), ("keep_last", keep_last)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UsageError(f"{name} must be a whole number >= 0, got {value!r}.")
    messages = transcript.messages
    head = _head_end(messages, keep_first)
    tail = _tail_start(messages, keep_last, head, within_a_run)
    replaced = messages[head:tail]
    if not replaced:
        return transcript.copy()  # the cuts met: nothing to replace
    text = summary if isinstance(summary, str) else summary(tuple(replaced))
    if not isinstance(text, str) or not text:
        raise UsageError(f"the summary must be a non-empty string, got {text!r}; a summariser "
                         "returns the text that replaces the old turns.")
    note = Message.user(text, synthetic=True)
    return Transcript(transcript.system, [*messages[:head], note, *messages[tail:]])
