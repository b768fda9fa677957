"""Cancelling a run: answer every open tool call, so the next request is valid again.

A run stopped between a tool call and its result (the user pressed Stop, a deadline
passed, the process was killed and its transcript loaded again) leaves the last reply's
calls with no answer, and three of the four APIs refuse the next request until each one has
one (lesson 22, section 4, shows it through each vendor's SDK):

- Anthropic: "`tool_use` ids were found without `tool_result` blocks immediately after"
  (the API's words, as `wire/anthropic/rules.py` quotes them, from anthropics/claude-code#5989;
  Claude Code's users met it after pressing Escape during a call,
  https://github.com/anthropics/claude-code/issues/1956);
- OpenAI Chat Completions: "An assistant message with 'tool_calls' must be followed by tool
  messages responding to each 'tool_call_id'" (https://github.com/QwenLM/qwen-code/issues/606
  shows it; `wire/chat/rules.py`);
- OpenAI Responses: "No tool output found for function call call_1." (`wire/responses/rules.py`);
- Ollama checks nothing: it answers, and the model reads a conversation with a hole in it.

`cancel_open_calls(transcript)` writes one error result per open call, saying it was
cancelled and did not run, in call order and in the one user message the APIs expect
(after the results already given, when some were), and returns them. The model then
reads why nothing happened and can tell the user. `open_calls` says which calls are open.

    >>> from toolcall_lab import Message, ToolCall, Transcript
    >>> t = Transcript(None, [Message.user("Weather in Paris and Rome?"), Message.assistant(
    ...     ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
    ...     ToolCall("toolu_02", "get_weather", {"city": "Rome"}))])
    >>> [c.id for c in open_calls(t)]
    ['toolu_01', 'toolu_02']
    >>> cancel_open_calls(t)[0]
    ToolResult('toolu_01', 'Cancelled: get_weather did not run (the run was cancelled).…', is_error=True)
    >>> open_calls(t), [m.role for m in t]
    ([], ['user', 'assistant', 'user'])

Left out: stopping a tool that is already running (`tool.py`'s timeout abandons one), and
undoing what a call did before the cancel (the ledger, `ledger.py`, says what ran).
"""

from __future__ import annotations

from collections.abc import Callable

from .blocks import ToolCall, ToolResult
from .messages import Message
from .transcript import Transcript

__all__ = ["CANCELLED", "answer_open_calls", "cancel_open_calls", "open_calls"]

#: How every cancellation's text starts, so a reader (and a check) can tell it from a failure.
CANCELLED = "Cancelled:"


def _last_calls(transcript: Transcript) -> tuple[int, tuple[ToolCall, ...]]:
    """The index of the newest assistant message and its calls ((-1, ()) when there is none)."""
    for index in range(len(transcript.messages) - 1, -1, -1):
        if transcript.messages[index].role == "assistant":
            return index, transcript.messages[index].tool_calls
    return -1, ()


def open_calls(transcript: Transcript) -> list[ToolCall]:
    """The calls of the newest assistant message that no later message answers, in call order."""
    index, calls = _last_calls(transcript)
    answered = {r.call_id for m in transcript.messages[index + 1:] for r in m.tool_results}
    return [c for c in calls if c.id not in answered]


def cancel_open_calls(transcript: Transcript, reason: str = "the run was cancelled") -> list[ToolResult]:
    """Answer every open call of `transcript` with a "cancelled" error result, in place; return them.

    The results join the results message right after the reply when there is one (a
    reply's results travel in one user message), or come as a new message.
    """
    return answer_open_calls(transcript, lambda c: f"{CANCELLED} {c.name} did not run ({reason}). Tell "
                                               "the user it was not done; call it again only if they ask.")


def answer_open_calls(transcript: Transcript, says: Callable[[ToolCall], str]) -> list[ToolResult]:
    """Answer every open call with an error result whose text is `says(call)`, in place; return them.

    The one mechanism behind a cancel and behind `run_agent`'s interrupted runs (`loop.py`),
    each with its own words.
    """
    left = open_calls(transcript)
    if not left:
        return []
    cancelled = [ToolResult(c.id, says(c), is_error=True) for c in left]
    index, _ = _last_calls(transcript)
    after = index + 1
    messages = transcript.messages
    if after < len(messages) and messages[after].tool_results and not messages[after].text:
        # subtle: Message is frozen; the answers given so far and the new ones make one new message
        messages[after] = Message.results([*messages[after].tool_results, *cancelled])
    else:
        messages.insert(after, Message.results(cancelled))
    return cancelled
