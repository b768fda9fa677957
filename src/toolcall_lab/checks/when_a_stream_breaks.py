"""Answer keys and worked solutions of lesson 22, "When a stream breaks".

The lesson streams from the API double through the real `anthropic` SDK: a whole reply, the
same reply cut after the call's block, a thinking block's signature, and the kit's loop on a
cut; then a run stopped between a call and its result, sent through the four real SDKs. Each
check reads what the page's own cells produced (the transcript, the events, the APIs that
refused), so the key holds no answer of its own; Exercise 1's check replays the page's
`take_turn` and `finish` on a transcript of its own, its output kept off the page.

    >>> q1("no")
    Q1: correct.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..blocks import ToolResult
from ..cancel import CANCELLED
from ..selfcheck import check, equal, number, word
from .on_the_wire import _wrong_api_set

__all__ = ["SOLUTIONS", "cancelled_result", "exercise_1", "predict_cut", "predict_refusing",
           "predict_signatures", "q1"]


def predict_cut(answer: Any, transcript: Any) -> None:
    """How many messages the transcript holds after a stream cut after the call's block."""
    check("Prediction", answer, number(len(transcript)),
          hint="the loop above appends the reply only at StreamFinished; did it come?")


def predict_signatures(answer: Any, events: Sequence[Mapping[str, Any]]) -> None:
    """How many signature_delta events the thinking block got."""
    count = sum(1 for e in events if e.get("type") == "content_block_delta"
                and (e.get("delta") or {}).get("type") == "signature_delta")
    check("Prediction", answer, number(count),
          hint="the signature is not text the model writes token by token")


def predict_refusing(answer: Any, refused: Any) -> None:
    """Which APIs refuse a transcript with a call left open by a cancel (the page's `refusing`)."""
    check("Prediction", answer, lambda a: _wrong_api_set(a, set(refused)),
          hint="lesson 11, section 2: which API checks nothing of how calls and results pair up?")


#: The kit's own cancel text ends so (`cancel.cancel_open_calls`): a copy of it is no answer.
_KITS_CANCEL = "call it again only if they ask"


def _open_call_ids(transcript: Any) -> tuple[list[str], list[str]]:
    """(open, answered): the newest reply's call ids without and with a result of their own
    (a kit-written cancellation does not count, so the check still works after that cell ran)."""
    replies = [m for m in transcript.messages if m.role == "assistant"]
    calls = [c.id for c in replies[-1].tool_calls] if replies else []
    answered = {r.call_id for m in transcript.messages for r in m.tool_results
                if not r.content.startswith(CANCELLED)}
    return [c for c in calls if c not in answered], [c for c in calls if c in answered]


def _wrong_cancel(answer: Any, transcript: Any) -> str | None:
    left, answered = _open_call_ids(transcript)
    if isinstance(answer, str):
        return "expected a ToolResult (id, text, is_error), not text that mentions the call"
    if not isinstance(answer, ToolResult):
        return f"expected a ToolResult, got {type(answer).__name__}"
    if answer.call_id in answered:
        return ("that call has its result already; a second result for one call is refused too: "
                "answer the call that never ran")
    if answer.call_id not in left:
        if any(answer.call_id.casefold() == c.casefold() for c in left):
            return "ids are compared exactly, and the case differs"
        return "that id is not the open call's"
    if answer.is_error is not True:
        return "the call did not run, so its result is an error: is_error=True"
    text = answer.content if isinstance(answer.content, str) else ""
    if not text.strip():
        return "the model reads this text and tells the user: say what happened"
    if _KITS_CANCEL in text:
        return "write it yourself: that is the text of the kit's cancel_open_calls, shown next"
    if "reject" in text.casefold() or "denied" in text.casefold():
        return ("'rejected' says the user said no, and the model will tell them so; they only "
                "stopped the run")
    if "cancel" not in text.casefold():
        return "say that the call was cancelled (and did not run)"
    return None


def cancelled_result(answer: Any, transcript: Any) -> None:
    """The learner's result for the call a cancel left open: its exact id, is_error, "cancelled"."""
    check("cancelled", answer, lambda a: _wrong_cancel(a, transcript),
          hint="which call of the reply has no result in `stopped`? ToolResult(its id, a text "
               "saying it was cancelled and did not run, is_error=...)")


def q1(answer: Any) -> None:
    """Whether a call whose arguments parse, in a stream that then breaks off, runs: no."""
    check("Q1", answer, word("no", ("yes", "no")),
          hint="section 1: what did the transcript hold after the cut?")


def _after_a_retry(take_turn: Callable[..., Any], finish: Callable[..., Any], double: Any) -> tuple[int, int]:
    """(messages, tool runs) once a turn cut where section 1 cut it is followed by a whole one, on
    the same transcript."""
    from ..errors import IncompleteStreamError
    from ..examples import PARIS_QUESTION
    from ..messages import Message
    from ..transcript import Transcript

    with contextlib.redirect_stdout(io.StringIO()):  # the page's functions narrate; not here
        whole = take_turn(Transcript(messages=[Message.user(PARIS_QUESTION)]))
        stop = next(n for n, e in enumerate(whole) if e["type"] == "content_block_stop")
        talk = Transcript(messages=[Message.user(PARIS_QUESTION)])
        double.fail_next("cut", after=stop + 2)
        with contextlib.suppress(IncompleteStreamError):
            finish(talk, take_turn(talk))
        finish(talk, take_turn(talk))
    return len(talk), len(talk.tool_results())


def exercise_1(answer: Any, take_turn: Callable[..., Any], finish: Callable[..., Any], double: Any) -> None:
    """(messages, runs) after a cut turn and a whole one on the same transcript: the cut left
    nothing, so the second turn is the first that counts. Replayed here with the page's own
    `take_turn`, `finish` and double, on a transcript of the check's own."""
    check("Exercise 1", answer, equal(_after_a_retry(take_turn, finish, double)),
          hint="what did the cut turn add to the transcript, and which turn's calls ran?")


SOLUTIONS: dict[str, str] = {
    "predict_cut": "1",
    "predict_signatures": "1",
    "q1": '"no"',
    "exercise_1": "(3, 1)",
    "predict_refusing": '{"anthropic", "responses", "chat"}',
    "cancelled": 'ToolResult(reply.tool_calls[1].id, "Cancelled, not run.", is_error=True)',
}
