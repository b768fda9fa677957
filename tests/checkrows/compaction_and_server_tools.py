"""Lesson 20's wrong answers: a compaction's payback, a search's bill, and cuts that each go wrong.

The two questions were lesson 19's Q2 and Q3 until the split (issue 29 §4); the prediction and
the exercise are new with lesson 20.
"""

from __future__ import annotations

from functools import cache

from checkrows import Row
from toolcall_lab import ApiDouble, call, get_provider, run_agent, tool
from toolcall_lab.checks import compaction_and_server_tools as key
from toolcall_lab.checks.compaction_and_server_tools import tail_start
from toolcall_lab.compaction import compact
from toolcall_lab.examples import weather_policy
from toolcall_lab.tools import get_weather

POLICY = ("You are a weather assistant for a travel agency. " * 30).strip()


def four_cities():
    """Section 1's conversation: four questions, each a call, its result and an answer (16 messages)."""
    talk = None
    for city in ("Paris", "London", "Tokyo", "Cairo"):
        talk = run_agent(get_provider("scripted", script=weather_policy), f"What's the weather in {city}?",
                         tools=[get_weather], system=POLICY, transcript=talk).transcript
    return talk


TALK = four_cities()
WITH_SEARCH, WITHOUT = 89, 32  # section 2's input tokens, with the search and without


# -- cuts, wrong one way each --------------------------------------------------------------------
def stops_at_a_call(messages, keep_last):
    """Moves back only past tool results, so a tail may start at the model's call."""
    start = max(len(messages) - keep_last, 1)
    while 1 < start < len(messages) and messages[start].tool_results:
        start -= 1
    return start


def no_floor(messages, keep_last):
    """Never stops at 1: with a long keep_last the kept start is cut too."""
    start = len(messages) - keep_last
    while 0 < start < len(messages) and (messages[start].role != "user" or messages[start].tool_results):
        start -= 1
    return start


def moves_later(messages, keep_last):
    """Moves forward to the next question, keeping fewer than asked."""
    start = max(len(messages) - keep_last, 1)
    while start < len(messages) and (messages[start].role != "user" or messages[start].tool_results):
        start += 1
    return start


def forgets_the_end(messages, keep_last):
    """Reads messages[len(messages)] when nothing is to be kept."""
    start = max(len(messages) - keep_last, 1)
    while start > 1 and (messages[start].role != "user" or messages[start].tool_results):
        start -= 1
    return start


def any_user_turn(messages, keep_last):
    """Takes a tool result for a question: both come from the user's side."""
    start = max(len(messages) - keep_last, 1)
    while 1 < start < len(messages) and messages[start].role != "user":
        start -= 1
    return start


def counted_from_one(messages, keep_last):
    return tail_start(messages, keep_last) + 1


def wraps_compact(messages, keep_last):
    short = compact(TALK, keep_first=1, keep_last=keep_last)
    return len(messages) - (len(short) - 2) if len(short) < len(messages) else 1


# -- section 3: one loop past the window ---------------------------------------------------------
SMALL, MAX_TOKENS = "claude-haiku-4-5", 8_000
HEADROOM = 200_000 - MAX_TOKENS                # the model table's window, less the reply's room


@tool
def read_page(n: int) -> str:
    """Read page n of the annual report."""
    return f"Page {n}. " + "Revenue grew in every region. " * 2_600


@cache
def unchecked():
    """Section 3's loop with no budget: twelve pages of about 19,550 tokens each, then the answer."""
    pages = [call("read_page", n=n) for n in range(1, 13)]
    with ApiDouble([*pages, "Revenue grew in every region."]) as report:
        reader = get_provider("anthropic", model=SMALL, max_tokens=MAX_TOKENS,
                              base_url=report.base_url("anthropic"))
        return run_agent(reader, "Read the whole report, then sum it up.", tools=[read_page], max_steps=20)


ROWS = [
    Row("20 headroom", key.headroom, (SMALL, MAX_TOKENS), lambda: HEADROOM,
        (lambda: 200_000,                     # the window, as if the reply took none of it
         lambda: 200_000 - 2 * MAX_TOKENS,    # the reply's room taken twice
         lambda: 200_000 / MAX_TOKENS,        # a ratio, not tokens
         lambda: 200_000 + MAX_TOKENS,        # the reply added on top
         lambda: str(HEADROOM))),
    Row("20 predict_first_over", lambda answer: key.predict_first_over(answer, unchecked()), (), lambda: 11,
        (lambda: 10,                          # counted from 0, or the last call that fits
         lambda: 12,                          # the first over the window itself, the reply's room forgotten
         lambda: unchecked().steps[10].usage.input_tokens,  # its tokens, not its number
         lambda: 13,                          # every call the loop made
         lambda: "11")),
    Row("20 predict_search_billed", key.predict_search_billed, (WITH_SEARCH, WITHOUT), lambda: "yes",
        (lambda: "no", lambda: "yes, in the next call", lambda: True, lambda: 57)),
    Row("20 q1", key.q1, (), lambda: 4, (lambda: 1, lambda: 0, lambda: "4", lambda: 30)),
    Row("20 q2", key.q2, (), lambda: 0.07,
        (lambda: 0.06,  # the results on the later calls only, as if the searching call read none
                        # (issue 29: the old key's undercount; also the total without the fee)
         lambda: 0.01,  # the fee alone
         lambda: 0.02,  # the results paid once, as if never re-sent
         lambda: 0.05,  # the later calls' results without the fee
         lambda: 0.01 + 12_000 * 25 / 1e6,  # at the output price
         lambda: "0.07")),
    Row("20 exercise_1", key.exercise_1, (TALK,), lambda: tail_start,
        (lambda: "tail_start", lambda: stops_at_a_call, lambda: no_floor, lambda: moves_later,
         lambda: forgets_the_end, lambda: any_user_turn, lambda: counted_from_one, lambda: wraps_compact,
         lambda: (lambda messages, keep_last: str(tail_start(messages, keep_last))))),
]
