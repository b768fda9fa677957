"""Ollama's rules: what `POST /api/chat` refuses, which is very little (see `check_request`).

The checks and their texts are those of Ollama's Go server, word for word
(github.com/ollama/ollama@fb307609: `server/routes.go`, `api/types.go`). The types of
the other fields are Go's to check as it reads the body (`shape.py`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..problem import Problem
from ._blocks import API_NAME

__all__ = ["THINK_LEVELS", "check_request"]

#: The strings `think` takes besides true and false (api/types.go at ollama/ollama@fb307609)
THINK_LEVELS = ("high", "medium", "low", "max")


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
    # In ChatHandler's order: the body is read (`think` is a type of Ollama's own), then
    # top_logprobs, then the model (server/routes.go).
    think = body.get("think")
    if think is not None and not isinstance(think, bool) and think not in THINK_LEVELS:
        # api/types.go, ThinkValue.UnmarshalJSON, word for word
        levels = ", ".join(f'"{level}"' for level in THINK_LEVELS)
        said = json.dumps(think, ensure_ascii=False)  # Go's %q, for the strings a learner types
        text = (f"invalid think value: {said} (must be {levels}, true, or false)" if isinstance(think, str)
                else f"think must be a boolean or string ({levels}, true, or false)")
        problems.append(Problem(API_NAME, "think", text))
    top_logprobs = body.get("top_logprobs")
    if isinstance(top_logprobs, int) and not 0 <= top_logprobs <= 20:
        problems.append(Problem(API_NAME, "top_logprobs", "top_logprobs must be between 0 and 20"))
    if not body.get("model"):
        problems.append(Problem(API_NAME, "model", "model is required"))  # server/routes.go ChatHandler
    return problems
