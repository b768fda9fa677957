"""Reasoning on the Responses server side: when the model reasons, at what effort, and its item.

The API double reasons where the real model does (`reasons`): only for a model that
reasons (`models.rules_of(model).reasons`), unless `reasoning.effort` is "none"; a model
the table does not know reasons only when the request sets an effort. The reply echoes the
effort as the live API does (`effort`): the one sent, else the model's default ("medium")
for a reasoning model, else null. The reasoning it invents goes out as an item whose
`encrypted_content` is sealed (`reasoning_item`, `wire.signing.seal_reasoning`), so the
rules can tell when it comes back altered.

Left out: reasoning summaries worth reading (the double's trace is "Thinking about: <the
question>"), and `reasoning.summary` settings beyond their echo.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from ...blocks import ReasoningBlock
from ...models import rules_of
from ...transcript import Transcript
from ...turn import Turn
from .._shared import plain_json
from ..signing import seal_reasoning
from ._blocks import PROVIDER_NAME

__all__ = ["DEFAULT_EFFORT", "effort", "reasoning_item", "reasons"]

#: OpenAI's reasoning models think at medium effort when the request names none: the live
#: API echoes {"effort": "medium"} (tests/fixtures/openai_responses_reasoning_encrypted_response
#: .dotnet_recorded.json, gpt-5-mini) and gpt-6-luna's model page gives medium as its default.
DEFAULT_EFFORT = "medium"


def effort(body: Mapping[str, Any]) -> str | None:
    """The reasoning effort a Responses request runs at, as the live API echoes it.

    >>> effort({"model": "gpt-6-luna"}), effort({"model": "gpt-4o-mini"})
    ('medium', None)
    >>> effort({"model": "gpt-6-luna", "reasoning": {"effort": "low"}})
    'low'
    """
    sent: str | None = (body.get("reasoning") or {}).get("effort")
    if sent is not None:
        return sent
    return DEFAULT_EFFORT if rules_of(str(body.get("model", ""))).reasons else None


def reasons(body: Mapping[str, Any], transcript: Transcript, turn: Turn) -> bool:
    """Whether the model reasons before `turn`: at any effort but "none" (see the module docstring)."""
    return effort(body) not in ("none", None)


def reasoning_item(block: ReasoningBlock, item_id: str) -> dict[str, Any]:
    """The reasoning item a reply carries for `block`: OpenAI's own item as it came, else a new
    one whose `encrypted_content` the double seals (`seal_reasoning`), with `item_id`."""
    if block.replayable_to(PROVIDER_NAME) and block.opaque.get("type") == "reasoning":
        return cast(dict[str, Any], plain_json(block.opaque))
    summary = [{"type": "summary_text", "text": block.text}] if block.text else []
    return {"type": "reasoning", "id": item_id, "summary": summary,
            "encrypted_content": seal_reasoning(block.text)}
