"""Ollama's rules: what `POST /api/chat` refuses, which is very little (see `check_request`).

The checks and their texts are those of Ollama's Go server, word for word
(github.com/ollama/ollama: `server/routes.go`, `api/types.go`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..ollama import API_NAME
from ..problem import Problem

__all__ = ["check_request"]


def check_request(body: Mapping[str, Any]) -> list[Problem]:
    """What Ollama would reject in this request, which is very little.

    Ollama checks the model name and a few option values. It does not check that every
    tool call has a result, that results follow their calls, or that content is not
    empty: it renders the messages into the model's chat template as they are. A wrong
    shape does not fail; it silently confuses the model, and the only symptom is a worse
    answer. (Errors it can only know online, a model that is not pulled or that cannot
    use tools or think, come back from the server as 404 and 400.)

    >>> check_request({"model": "", "messages": []})[0].text
    'model is required'
    >>> check_request({"model": "qwen3:4b", "messages": [{"role": "tool", "content": ""}]})
    []
    """
    problems: list[Problem] = []
    if not body.get("model"):
        problems.append(Problem(API_NAME, "model", "model is required"))  # server/routes.go ChatHandler
    think = body.get("think")
    if think is not None and not isinstance(think, bool | str):
        problems.append(Problem(API_NAME, "think", "think must be a boolean or string"))  # api/types.go
    top_logprobs = body.get("top_logprobs")
    if isinstance(top_logprobs, int) and not 0 <= top_logprobs <= 20:
        problems.append(Problem(API_NAME, "top_logprobs", "top_logprobs must be between 0 and 20"))
    return problems
