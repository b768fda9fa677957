"""Lesson 17's wrong answers: the spectrum's predictions and questions (what a server reads,
ignores or refuses), the result's role in the rendered prompt, and request options a server drops."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab.checks import local_models as key

ROWS = [
    Row("17 predict_result_role", key.predict_result_role, (), lambda: "user",
        (lambda: "tool", lambda: "system", lambda: "the user", lambda: "assistant", lambda: 1)),
    Row("17 predict_limit", key.predict_limit, (), lambda: "ignored",
        (lambda: "cut", lambda: "refused", lambda: "ignored it", lambda: "stop", lambda: True)),
    Row("17 q1", key.q1, (), lambda: {"vllm", "llamacpp", "lmstudio"},
        (lambda: {"vllm", "llamacpp"},  # the max_completion_tokens row, not the max_tokens one
         lambda: {"vllm", "llamacpp", "lmstudio", "ollama-openai"}, lambda: "vllm, llamacpp, lmstudio",
         lambda: {"vllm", "llama.cpp", "lmstudio"}, lambda: {"vllm", "llamacpp", "lmstudio", "ollama"})),
    Row("17 q2", key.q2, (), lambda: 3, (lambda: 2, lambda: "3", lambda: 1, lambda: 4, lambda: True)),
    Row("17 exercise_1", key.exercise_1, (), lambda: {"max_tokens": 50},
        (lambda: {"max_completion_tokens": 50}, lambda: {},
         lambda: {"max_tokens": 50, "tool_choice": "required"},
         lambda: {"max_tokens": 50, "parallel_tool_calls": False}, lambda: "max_tokens=50",
         lambda: {"max_tokens": "50"}, lambda: {"max_tokens": 0})),
]
