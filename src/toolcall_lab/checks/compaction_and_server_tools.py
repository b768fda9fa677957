# mypy: disable-error-code="no-untyped-def"
# (the worked definition of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 20, "Compaction, and tools you don't run".

Every key computes its answer from what the lesson's cell passes in (a compaction, the
model table, the token counts of runs through the API double), so no answer is written
here. Exercise 1 is code, judged by what it does: `tail_start` must cut where `compact` does
on the lesson's sixteen messages, for every `keep_last`, without calling the kit's own. These
were sections 7 and 8 of lesson 19 until the split (issue 29 §4).

    >>> q2(0.07)
    Q2: correct.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..compaction import _tail_start, compact
from ..loop import Run
from ..models import SERVER_TOOL_FEES, context_window_of, require_price
from ..selfcheck import check, word
from ..selfcheck import number as a_number
from ..views.cost import compaction_in_loop
from ._runs import raised, run_watching
from ._runs import template as _template

__all__ = ["Q2_SEARCH", "SOLUTIONS", "exercise_1", "headroom", "predict_first_over", "predict_search_billed",
           "q1", "q2", "tail_start"]


# -- the worked definition --------------------------------------------------------------------------
def tail_start(messages, keep_last):
    """Where the kept tail starts: keep_last back, moved to a question."""
    start = max(len(messages) - keep_last, 1)
    while 1 < start < len(messages) and (messages[start].role != "user" or messages[start].tool_results):
        start -= 1
    return start


# -- section 2: tools you don't run ---------------------------------------------------------------
def predict_search_billed(answer: Any, with_search: int, without: int) -> None:
    """Whether the searching call already billed the search's results as input: yes when it billed
    more input tokens than the same call without the search."""
    check("Prediction", answer, word("yes" if with_search > without else "no", choices=("yes", "no")),
          hint="the model reads the pages before it writes its answer; in which call does it read them?")


# -- check yourself ----------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """After how many calls compacting at call 30 pays back, with caching, on Claude Opus 5."""
    effect = compaction_in_loop(30, 2_000, 500, kept_prefix=2_000, compacted=6_000, model="claude-opus-5")
    # subtle: None would mean "never"; with these numbers it pays back, which the lesson needs
    check("Q1", answer, a_number(effect.pays_back_after if effect.pays_back_after is not None else -1),
          hint="section 1's last cell works out when a compaction in a growing loop pays back; "
               "ask the same of the question's loop")


#: Q2's search: (tokens of results, calls after it in the same conversation, model), on Anthropic.
Q2_SEARCH = (2_000, 5, "claude-opus-5")


def q2(answer: Any) -> None:
    """Dollars one web search costs in all: its fee, its results read in the searching call itself,
    and the same results re-sent on every later call.

    "Web search results retrieved throughout a conversation are counted as input tokens, in search
    iterations executed during a single turn and in subsequent conversation turns"
    (platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool, Pricing): the call that
    searched pays for them once, as the model reads them before answering, then each later call.
    """
    tokens, later_calls, model = Q2_SEARCH
    fee = SERVER_TOOL_FEES[("anthropic", "web_search")].per_use
    calls_reading = 1 + later_calls  # the searching call, then every call after it
    read = tokens * calls_reading / 1e6 * require_price(model).input  # dollars = tokens / 1e6 * price
    check("Q2", answer, a_number(fee + read, tolerance=1e-6),
          hint="three parts: section 2 printed the fee's row (per 1,000 searches); the searching call "
               "itself reads the results as input before it answers (section 2's usage); and every "
               "later call pays for them again")


# -- exercises ---------------------------------------------------------------------------------------
def _what(message: Any) -> str:
    """How a verdict names a message: a tool result, the model's message, a question."""
    if message.tool_results:
        return "a tool result, whose call the tail would leave behind"
    if message.role != "user":
        return "the model's message; a tail starts at a user turn that answers no call"
    return "a question"


def _wrong_tail(function: Any, transcript: Any) -> str | None:
    if not callable(function) or isinstance(function, type):
        return f"expected the function itself (tail_start, without brackets), got {type(function).__name__}"
    messages = list(transcript.messages)
    for keep_last in range(len(messages) + 1):
        expected = _tail_start(messages, keep_last, 1)
        try:
            got, used_kit = run_watching((compact, _tail_start), function, list(messages), keep_last)
        except Exception as exc:
            return f"it raised {raised(exc)} for keep_last={keep_last}"
        if used_kit:
            return "it calls the kit's compact; write it yourself, from the messages' roles and results"
        if isinstance(got, bool) or not isinstance(got, int):
            return f"for keep_last={keep_last} it returned a {type(got).__name__}; return an index (an int)"
        if got == expected:
            continue
        if not 1 <= got <= len(messages):
            return (f"for keep_last={keep_last} it returned {got}; the tail starts after message 0 "
                    f"and at most at {len(messages)} (nothing kept)")
        if got > len(messages) - keep_last:
            return (f"for keep_last={keep_last} it keeps fewer messages than keep_last asks for (its tail "
                    f"starts at index {got})")
        if got > expected:
            return f"for keep_last={keep_last} its tail starts at index {got}: {_what(messages[got])}"
        return (f"for keep_last={keep_last} it starts at index {got}, earlier than it needs to: the "
                "first question it met going back was already a place to stop")
    return None


def exercise_1(answer: Any, transcript: Any) -> None:
    """Your tail_start, on the lesson's sixteen messages, for every keep_last."""
    check("Exercise 1", ... if _template(answer) else answer, lambda f: _wrong_tail(f, transcript),
          hint="which messages may a tail begin at, and why not the others? print(trace_table(talk)) "
               "shows each message's role and block; work keep_last=2 and keep_last=16 out by hand")


# -- section 3: compaction inside one loop ---------------------------------------------------------
def _room(model: str, max_tokens: int) -> int:
    """The most input tokens one request to `model` may hold and still leave `max_tokens` for its reply."""
    window = context_window_of(model)
    assert window is not None, f"{model} has no context window in the model table"
    return window.tokens - max_tokens


def headroom(answer: Any, model: str, max_tokens: int) -> None:
    """The most input tokens one request may send: the model's window less the reply's max_tokens."""
    check("Your turn", answer, a_number(_room(model, max_tokens)),
          hint="the window holds the request and its reply together: what is left of it for the request "
               "when the reply keeps the room it asks for?")


def predict_first_over(answer: Any, run: Run) -> None:
    """The first call (counted from 1) of the unchecked loop whose request is over the headroom."""
    first = run.steps[0].turn
    room = _room(first.model or "", int((first.request or {}).get("max_tokens", 0)))
    over = next(n for n, step in enumerate(run.steps, start=1) if step.usage.input_tokens > room)
    check("Prediction", answer, a_number(over),
          hint="call n sends h0 + t*(n-1) tokens (lesson 5): the smallest whole n for which that is more "
               "than the headroom, counting calls from 1")


SOLUTIONS: dict[str, str] = {
    "predict_search_billed": '"yes"',
    "headroom": "WINDOW - MAX_TOKENS",
    "predict_first_over": "11",
    "q1": "4",
    "q2": "10 / 1000 + 2_000 * (1 + 5) / 1e6 * 5",
    "tail_start": inspect.getsource(tail_start),
}
