"""Lesson 8's wrong answers: values, and transcripts built from another one in the ways learners get wrong."""

from __future__ import annotations

from dataclasses import replace

from checkrows import Row
from toolcall_lab import Message, ScriptedProvider, Transcript, run_agent
from toolcall_lab.checks import frozen_history as key
from toolcall_lab.examples import PARIS_QUESTION, SYSTEM_PROMPT, weather_policy
from toolcall_lab.tools import get_weather

TRANSCRIPT = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather],
                       system=SYSTEM_PROMPT).transcript


def long_talk():
    talk = Transcript(SYSTEM_PROMPT)
    provider = ScriptedProvider(weather_policy)
    for question in [PARIS_QUESTION, "And in Tokyo?", "And in Cairo?"]:
        run_agent(provider, question, tools=[get_weather], transcript=talk)
    return talk


LONG_TALK = long_talk()
SUMMARY = "Earlier: Paris was 18°C and sunny, Tokyo 22°C and cloudy."


def redacted(transcript=TRANSCRIPT, *, call_id=None, content="[redacted]", is_error=False, keep_id=False):
    results = [replace(r, call_id=call_id or r.call_id, content=content, is_error=is_error)
               for r in transcript[2].tool_results]
    # subtle: replace() on the message keeps its id, the trap of section 1
    message = replace(transcript[2], blocks=tuple(results)) if keep_id else Message.results(results)
    return Transcript(transcript.system, [transcript[0], transcript[1], message, *transcript.messages[3:]])


def summarised(text=SUMMARY, *, synthetic=True, kept=4, same_objects=True):
    tail = LONG_TALK.messages[-kept:]
    if not same_objects:
        tail = [Message.from_dict(m.to_dict()) for m in tail]
    return Transcript(LONG_TALK.system, [Message.user(text, synthetic=synthetic), *tail])


ROWS = [
    Row("8 q1", key.q1, (), lambda: False, (lambda: True, lambda: "False", lambda: 0, lambda: None)),
    Row("8 q2", key.q2, (), lambda: (3040, 50),
        (lambda: [3040, 50], lambda: (40, 50), lambda: (3040, 200), lambda: "(3040, 50)", lambda: 3090)),
    Row("8 exercise_1", key.exercise_1, (TRANSCRIPT,), redacted,
        (lambda: TRANSCRIPT, lambda: "[redacted]", lambda: redacted(content="[REDACTED]"),
         lambda: redacted(call_id=TRANSCRIPT[1].tool_calls[0].id.upper()),
         lambda: redacted(is_error=True), lambda: list(redacted().messages),
         lambda: redacted(keep_id=True))),
    Row("8 exercise_2", key.exercise_2, (LONG_TALK,), summarised,
        (lambda: SUMMARY, lambda: summarised(synthetic=False),
         lambda: summarised("Paris and Tokyo were nice."),
         lambda: summarised("Earlier: Paris was sunny, Tokyo 22°C and cloudy."),
         lambda: summarised(kept=5), lambda: summarised(same_objects=False), lambda: LONG_TALK,
         lambda: summarised("Earlier: Paris was 22°C and sunny, Tokyo 18°C and cloudy."),
         lambda: summarised("It was 22°C in Paris and 18°C in Tokyo."))),
]
