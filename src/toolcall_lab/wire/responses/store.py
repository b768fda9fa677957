"""What the Responses API keeps between requests: the responses it stored, for `previous_response_id`.

A Responses request may send only what is new and name the response it continues
(`previous_response_id`); the API then reads the stored conversation first. The API
double plays that: every reply to a request with `store: true` (the API's default) is
kept (`keep`: the whole input it answered, its output appended), the last `keep` of them
(the double's bound, in the mapping it hands the server half), and a later request reads
as the stored items followed by its own (`with_history`). A request naming a response the
double does not hold gets the live API's 400 (`unknown_previous`).

    >>> stored = {}
    >>> keep(stored, "resp_1", {"input": "Hi"}, {"output": [{"type": "message", "role": "assistant",
    ...                                                       "content": "Hello!"}]})
    >>> [item["role"] for item in with_history({"previous_response_id": "resp_1", "input": "Bye"},
    ...                                          stored)["input"]]
    ['user', 'assistant', 'user']

Left out: `conversation` objects, `GET /v1/responses/{id}`, and `instructions` carried
over from the earlier response (only the new request's count, as the API says).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from ..problem import Problem
from ._blocks import API_NAME

__all__ = ["keep", "unknown_previous", "with_history"]


def unknown_previous(body: Mapping[str, Any], stored: Mapping[str, Any]) -> tuple[int, Problem] | None:
    """(status, problem) when `previous_response_id` names nothing kept; None otherwise."""
    previous = body.get("previous_response_id")
    if previous is None or previous in stored:
        return None
    # The live API's words (a 400; seen in maximhq/bifrost#2441, bigduu/Bamboo-agent#513).
    return 400, Problem(API_NAME, "previous_response_id",
                        f"Previous response with id '{previous}' not found.",
                        param="previous_response_id", code="previous_response_not_found")


def with_history(body: Mapping[str, Any], stored: Mapping[str, Any]) -> Mapping[str, Any]:
    """`body` with the stored conversation of `previous_response_id` put before its input."""
    previous = body.get("previous_response_id")
    if previous is None:
        return body
    # subtle: `instructions` are not carried over from the earlier response; only the body's count.
    return {**body, "input": [*stored[previous], *_items(body)]}


def keep(stored: MutableMapping[str, Any], response_id: str, read: Mapping[str, Any],
         reply: Mapping[str, Any]) -> None:
    """Keep what `reply` answered (`read`: the whole input, history included) with its output."""
    stored[response_id] = [*_items(read), *reply["output"]]


def _items(body: Mapping[str, Any]) -> list[Any]:
    """A body's input as items: a plain string is one user message."""
    items = body.get("input") or []
    return [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else list(items)
