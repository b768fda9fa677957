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

WRONG: dict[str, dict[str, str]] = {
    "start_here": {
        "warm_up": '"42"',
    },
    "one_tool_call": {
        "my_result": 'ToolResult(request.id.upper(), get_weather(**request.args))',
        "predict_call_2": "2",
        "predict_tool_runs": "1",  # the model's words taken for a tool call
        "q1": "3",
        "q2": "two_cities.transcript[1].tool_calls[0].id",
        "q3": "4",
        "exercise_1": "[ToolResult(c.id, get_weather(**c.args)) "
                      "for c in two_cities.transcript[1].tool_calls]",
        "exercise_2": '"17 * 23 - 100 = 291."',  # the sentence, not the run
    },
    "on_the_wire": {
        "my_chat_body": '{"model": "gpt-6-luna", "messages": []}',
        "predict_accepted": '{"anthropic", "responses", "chat", "ollama"}',
        "q1": "1",
        "q2": "100",
        "q3": '"yes"',
        "predict_user_words": "1",  # only the question, forgetting where results travel
        "exercise_1": "invented",  # mistake 3, already on the page
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
}
