"""A plausible wrong answer for every question of every lesson, as source text.

`tests/test_run_all_wrong.py` puts these in place of the `...` (the way a teacher's solved
copy takes `SOLUTIONS`) and runs each lesson top to bottom in a real kernel: a lesson whose
every answer is wrong must still run every cell, and each check must show its "✗" line.
Each answer is a mistake a learner really makes (an id copied with another case, the
count that forgets a message, a definition that skips a step), not a random value; the
wrong-answer table (tests/test_checks.py, tests/checkrows/) holds the rest.

Keyed by the lesson's topic (its key module in `toolcall_lab.checks`), so renumbering a
lesson changes nothing here.
"""

from __future__ import annotations

from toolcall_lab.checks import transcript_as_data as _transcript
from toolcall_lab.checks import your_own_provider as _own

_WORKED = _own.SOLUTIONS


def _broken(name: str, right: str, wrong: str) -> str:
    """The worked `name` with one mistake a learner makes: `right` written as `wrong`."""
    assert right in _WORKED[name], (name, right)
    return _WORKED[name].replace(right, wrong)


WRONG: dict[str, dict[str, str]] = {
    "start_here": {
        "warm_up": '"42"',
    },
    "one_tool_call": {
        "my_result": 'ToolResult(request.id.upper(), get_weather(**request.args))',
        "predict_call_2": "2",
        "q1": "3",
        "q2": "two_cities.transcript[1].tool_calls[0].id",
        "q3": "4",
        "exercise_1": "[ToolResult(c.id, get_weather(**c.args)) "
                      "for c in two_cities.transcript[1].tool_calls]",
        "exercise_2": '"17 * 23 - 100 = 291."',
    },
    "on_the_wire": {
        "my_chat_body": '{"model": "gpt-6-luna", "messages": []}',
        "predict_accepted": '{"anthropic", "responses", "chat", "ollama"}',
        "q1": "1",
        "q2": "100",
        "q3": '"yes"',
        "exercise_1": "Transcript(messages=[question])",
        "exercise_2": '"overloaded"',
    },
    "the_bill": {
        "my_total": "12 * 3000",
        "predict_first_call": '"cheaper"',
        "q1": "0",
        "q2": '"lower"',
        "q3": '"yes"',
        "exercise_1": "20 * 2000",
        "exercise_2": "1",
    },
    "transcript_as_data": {
        # a match that guesses for a kind it was never told about, instead of failing loudly
        "made_by": _transcript.SOLUTIONS["made_by"].replace("assert_never(block)", 'return "either"'),
        "predict_biggest": '"text"',
        "q1": "True",
        "q2": "(40, 50)",
        "q3": '"tool_call"',
        # the trap of section 3: replace() on the message keeps the original's id
        "exercise_1": ("Transcript(transcript.system, [transcript[0], transcript[1], "
                       "replace(transcript[2], blocks=tuple(replace(r, content='[redacted]') "
                       "for r in transcript[2].tool_results)), *transcript.messages[3:]])"),
        # the two temperatures swapped between the cities
        "exercise_2": ("Transcript(long_talk.system, [Message.user('Earlier: Paris was 22°C and "
                       "cloudy, Tokyo 18°C and sunny.', synthetic=True), *long_talk.messages[-4:]])"),
    },
    "your_own_provider": {
        # a constant usage: above zero, and an estimate of nothing
        "EchoProvider": _broken("EchoProvider", "usage = Usage(input_tokens=sent, output_tokens="
                                "estimate_tokens(words),", "usage = Usage(input_tokens=1, output_tokens=1,"),
        # the model's turns called "assistant", as the other APIs call them
        "MyPartsProvider": _broken("MyPartsProvider", 'role = "model" if', 'role = "assistant" if'),
        "predict_refused_call": "1",
        "q1": "2",
        # input printed as "out" and output as "in"
        "Traced": _broken("Traced", "{used.input_tokens} in, {used.output_tokens} out",
                          "{used.output_tokens} in, {used.input_tokens} out"),
    },
}
