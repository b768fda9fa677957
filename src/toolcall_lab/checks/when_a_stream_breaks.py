"""Answer keys and worked solutions of lesson 22, "When a stream breaks".

The lesson streams from the API double through the real `anthropic` SDK: a whole reply, the
same reply cut after the call's block, a thinking block's signature, and the kit's loop on a
cut. Each check reads what the page's own cells produced (the transcript, the events), so the
key holds no answer of its own; Exercise 1's check replays the page's `take_turn` and `finish`
on a transcript of its own, its output kept off the page.

    >>> q1("no")
    Q1: correct.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..selfcheck import check, equal, number, word

__all__ = ["SOLUTIONS", "exercise_1", "predict_cut", "predict_signatures", "q1"]


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
}
