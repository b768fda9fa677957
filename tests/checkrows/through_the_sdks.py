"""Lesson 4's wrong answers: a helper's count that forgets where Anthropic carries results, usage
read in the wrong convention, and an overloaded server's error kept in the wrong shape."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab import ApiDouble, Message, ScriptedProvider, Transcript, get_provider, run_agent
from toolcall_lab.checks import through_the_sdks as key
from toolcall_lab.errors import OverloadedError, RateLimitError
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import encode_request

PARIS = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
#: Section 7's Anthropic body: the first three messages of the Paris run on Anthropic's wire.
ANTHROPIC_BODY = encode_request(Transcript(messages=PARIS.transcript.messages[:3]), [get_weather],
                                api="anthropic", model="claude-haiku-5-5")


def overload_error():
    """What the worked answer of Exercise 1 keeps: the error and the transcript it left empty."""
    with ApiDouble() as double:
        double.fail_next("overloaded")
        mine = Transcript()
        try:
            run_agent(get_provider("anthropic", base_url=double.base_url("anthropic"), max_retries=0),
                      PARIS_QUESTION, transcript=mine)
        except OverloadedError as error:
            return error, mine
    raise AssertionError("the double did not fail")


ROWS = [
    Row("4 predict_user_words", key.predict_user_words, (ANTHROPIC_BODY,), lambda: 2,
        (lambda: 1,  # only the question: the tool result's user message forgotten
         lambda: "2", lambda: 3, lambda: 2.5)),
    Row("4 q1", key.q1, (), lambda: 1000,
        (lambda: 5000,  # OpenAI's number, as if Anthropic counted the same way
         lambda: "1000", lambda: 9000, lambda: 4000, lambda: 1000.5)),
    Row("4 exercise_1", key.exercise_1, (), overload_error,
        (lambda: ("OverloadedError", 0),  # the class's name, not the error
         lambda: (RateLimitError("busy"), Transcript()),  # another failure
         lambda: (overload_error()[0], Transcript(messages=[Message.user("Hi")])),  # a changed transcript
         lambda: (overload_error()[0], []),  # the right emptiness, not a Transcript
         lambda: [*overload_error()])),  # the pair as a list
]
