"""What the Responses API keeps between requests: the responses it stored, for `previous_response_id`.

A Responses request may send only what is new and name the response it continues
(`previous_response_id`); the API then reads the stored conversation first. The API
double plays that: every reply to a request with `store: true` (the API's default) is
kept (`keep`: the whole input it answered, its output appended), the last `keep` of them
(the double's bound, in the mapping it hands the server half), and a later request reads
as the stored items followed by its own (`with_history`). A request naming a response the
double does not hold gets the live API's 400 (`unknown_previous`). The reply's usage counts
the whole conversation read, stored items included, as OpenAI bills it: "Even when using
`previous_response_id`, all previous input tokens for responses in the chain are billed as
input tokens in the API." (Conversation state guide,
https://developers.openai.com/api/docs/guides/conversation-state; tests/test_threads.py.)

An input item may also name one stored item by its id instead of sending it again:
`{"type": "item_reference", "id": "rs_..."}` (the API's `ItemReferenceParam`, "An internal
identifier for an item to reference", openai/openai-openapi; the Vercel AI SDK sends its
reasoning items back this way when `store` is on). The double reads it as the item it
kept under that id (`with_history`), and one it does not hold gets the live API's 404
(`unknown_reference`).

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

__all__ = ["keep", "unknown_previous", "unknown_reference", "with_history"]


def unknown_previous(body: Mapping[str, Any], stored: Mapping[str, Any]) -> tuple[int, Problem] | None:
    """(status, problem) when `previous_response_id` names nothing kept; None otherwise."""
    previous = body.get("previous_response_id")
    if previous is None or previous in stored:
        return None
    # The live API's words (a 400; seen in maximhq/bifrost#2441, bigduu/Bamboo-agent#513).
    return 400, Problem(API_NAME, "previous_response_id",
                        f"Previous response with id '{previous}' not found.",
                        param="previous_response_id", code="previous_response_not_found")


def unknown_reference(body: Mapping[str, Any], stored: Mapping[str, Any]) -> tuple[int, Problem] | None:
    """(status, problem) when an `item_reference` names an item no kept response holds; None otherwise.

    >>> unknown_reference({"input": [{"type": "item_reference", "id": "rs_9"}]}, {})[1].text
    "Item with id 'rs_9' not found."
    """
    for index, item in enumerate(_items(body)):
        if _is_reference(item) and _kept_item(item.get("id"), stored) is None:
            # subtle: a 404, as for a replayed item OpenAI does not hold (home-assistant/core#150251:
            # "Item with id 'rs_...' not found. ..."; the rest of that message is about store: false)
            return 404, Problem(API_NAME, f"input.{index}", f"Item with id '{item.get('id')}' not found.",
                                param="input", code=None)
    return None


def with_history(body: Mapping[str, Any], stored: Mapping[str, Any]) -> Mapping[str, Any]:
    """`body` with the stored conversation of `previous_response_id` put before its input, and
    each `item_reference` in it read as the kept item it names.

    >>> stored = {"resp_1": [{"type": "reasoning", "id": "rs_1", "summary": []}]}
    >>> with_history({"input": [{"type": "item_reference", "id": "rs_1"}]}, stored)["input"]
    [{'type': 'reasoning', 'id': 'rs_1', 'summary': []}]
    """
    previous = body.get("previous_response_id")
    items = _items(body)
    if previous is None and not any(_is_reference(item) for item in items):
        return body
    items = [_kept_item(item.get("id"), stored) or item if _is_reference(item) else item for item in items]
    # subtle: `instructions` are not carried over from the earlier response; only the body's count.
    return {**body, "input": [*(stored[previous] if previous is not None else ()), *items]}


def keep(stored: MutableMapping[str, Any], response_id: str, read: Mapping[str, Any],
         reply: Mapping[str, Any]) -> None:
    """Keep what `reply` answered (`read`: the whole input, history included) with its output."""
    stored[response_id] = [*_items(read), *reply["output"]]


def _is_reference(item: object) -> bool:
    """Whether an input item is an `item_reference`: the spec's ItemReferenceParam has `type`
    nullable and `id` required, so a null `type` beside an `id` is one too."""
    if not isinstance(item, Mapping):
        return False
    kind = item.get("type", "message")
    return kind == "item_reference" or (kind is None and "id" in item)


def _kept_item(item_id: object, stored: Mapping[str, Any]) -> Any:
    """The item kept under `item_id` in any stored response, the newest first; None if none."""
    # subtle: a copy of the values, as another request may keep a response meanwhile
    for conversation in reversed(list(stored.values())):
        for item in conversation:
            if isinstance(item, Mapping) and item.get("id") == item_id:
                return item
    return None


def _items(body: Mapping[str, Any]) -> list[Any]:
    """A body's input as items: a plain string is one user message."""
    items = body.get("input") or []
    return [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else list(items)
