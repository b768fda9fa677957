"""Answer keys of lesson 4, "Through the SDKs" (its first half, lesson 3, is `on_the_wire`).

The lesson sends lesson 3's conversation through the official SDKs to the API double, so its
answers are read from what the page's own cells hold: the Anthropic request body a helper
misreads, and the error and transcript a learner's own overloaded double leaves. Q1 asks for
Anthropic's spelling of one call's usage, which the key computes from the kit's `Usage`
rather than holding a number of its own.

    >>> q1(1000)
    Q1: correct.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import OverloadedError
from ..selfcheck import check, number
from ..transcript import Transcript
from ..usage import Usage

__all__ = ["SOLUTIONS", "exercise_1", "predict_user_words", "q1"]


def predict_user_words(answer: Any, body: Mapping[str, Any]) -> None:
    """How many entries a helper that keeps every `user` message's content finds in `body`
    (Anthropic's request body of lesson 3's section 2): one per user message, tool results
    included."""
    users = [m for m in body.get("messages", []) if isinstance(m, Mapping) and m.get("role") == "user"]
    check("Prediction", answer, number(len(users)),
          hint="count the messages of Anthropic's body whose role is user, and look at what each "
               "one carries (lesson 3, section 2)",
          why="Anthropic carries tool results in user messages, so a helper that reads roles "
              "takes your code's result for the user's words.")


def q1(answer: Any) -> None:
    """OpenAI says input 5,000 of which 4,000 cached: what does Anthropic's `input_tokens` say?"""
    usage = Usage(input_tokens=5000, output_tokens=10, cache_read_tokens=4000)
    expected = usage.uncached_input_tokens  # what the Anthropic codec writes as input_tokens
    check("Q1", answer, number(expected),
          hint="Anthropic reports cache reads beside input_tokens, OpenAI inside it (section 2)")


def _wrong_overload(answer: Any) -> str | None:
    if not (isinstance(answer, tuple) and len(answer) == 2):
        return "expected a pair: (the error you caught, your transcript)"
    error, transcript = answer
    if not isinstance(error, BaseException):
        return f"the first item should be the exception object you caught, got {type(error).__name__}"
    if not isinstance(error, OverloadedError):
        return f"a {type(error).__name__} is not what an overloaded server causes"
    if not isinstance(transcript, Transcript):
        return f"the second item should be your Transcript, got {type(transcript).__name__}"
    if len(transcript):
        return f"your transcript holds {len(transcript)} messages after a call that failed"
    return None


def exercise_1(answer: Any) -> None:
    """(the error an overloaded API double raised, the transcript passed to run_agent)."""
    check("Exercise 1", answer, _wrong_overload,
          hint="section 5 meets a rate limit the same way: look at what it passes to run_agent "
               "and what its except keeps")


SOLUTIONS: dict[str, str] = {
    "predict_user_words": "2",
    "q1": "1000",
    # statements, not one expression: they end by setting exercise_1 (toolcall_lab.teacher.solutions)
    "exercise_1": (
        "mine = Transcript()\n"
        "with ApiDouble() as double:\n"
        "    double.fail_next(\"overloaded\")\n"
        "    overloaded = get_provider(\"anthropic\", base_url=double.base_url(\"anthropic\"), "
        "max_retries=0)\n"
        "    try:\n"
        "        run_agent(overloaded, PARIS_QUESTION, transcript=mine)\n"
        "    except ProviderError as error:\n"
        "        exercise_1 = (error, mine)\n"),
}
