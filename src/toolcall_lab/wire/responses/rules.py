"""The OpenAI Responses API's rules: what `POST /v1/responses` refuses, in its own words.

`check_request` lists what OpenAI would refuse, each with the `param` and `code` the API
reports. The rules are the API reference's
(https://platform.openai.com/docs/api-reference/responses/create) and, for reasoning
items, OpenAI's cookbook (github.com/openai/openai-cookbook,
examples/responses_api/reasoning_items.ipynb); the texts are OpenAI's, word for word, as
recorded in issue reports, each with its source beside it where one is on record.

Conversations continued with `previous_response_id` (or a `conversation`) are not
checked for pairing: their earlier items live on OpenAI's servers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...models import rules_of
from .._openai.rules import invalid_effort, parameters_problems, strict_schema_problems, unsupported_reasoning
from ..problem import Problem
from ..signing import seal_is_ours, unseal_reasoning
from ._blocks import API_NAME

__all__ = ["check_request"]

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")


def check_request(body: Mapping[str, Any]) -> list[Problem]:
    """What the Responses API would reject in `body`, in its own words (empty: looks valid).

    In the API's order: first the request's shape (`max_output_tokens` of at least 16,
    `call_id`s of 1 to 64 characters, `reasoning.effort` one of the spec's values, tool
    names matching `^[a-zA-Z0-9_-]+$`, strict tools with closed schemas), then what this
    model takes (`reasoning.effort` only on a model that reasons, per
    `models.rules_of`), then the conversation: every function_call has a
    function_call_output after it and every output a call before it (not when
    `previous_response_id` or `conversation` holds the earlier items); a reasoning item
    is followed by what it reasoned about, and a call replayed with its `fc_` id comes
    with its reasoning item; with `store: false` a reasoning item carries its
    `encrypted_content`; content sealed by the API double still verifies.

    >>> body = {"model": "m", "input": [
    ...     {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}]}
    >>> [(p.path, p.param, p.text) for p in check_request(body)]
    [('input.0', 'input', 'No tool output found for function call call_1.')]
    """
    items = body.get("input")
    items = items if isinstance(items, list) else []  # a plain string is one user message
    reasoning = body.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, Mapping) else None
    problems = _limit_problems(body.get("max_output_tokens")) + _call_id_problems(items)
    problems += invalid_effort(API_NAME, effort, "reasoning.effort")
    problems += _tool_problems(body.get("tools") or [])
    problems += _format_problems(body.get("text"))
    if effort is not None:
        problems += unsupported_reasoning(API_NAME, str(body.get("model", "")), "reasoning.effort")
    stateful = bool(body.get("previous_response_id") or body.get("conversation"))
    store = body.get("store", True)  # subtle: the API's default is store: true
    reasons = rules_of(str(body.get("model", ""))).reasons is not False
    return problems + _conversation_problems(items, stateful=stateful, store=store, reasons=reasons)


def _format_problems(text: object) -> list[Problem]:
    """Structured output's strict rules for `text.format`: objects closed, properties required.

    Only under `strict: true` (the OpenAPI document's `TextResponseFormatJsonSchema.strict`
    defaults to false). The words are Chat's for `response_format` (`wire.chat.rules`); that
    Responses says them the same way is inferred (OpenAI's guide gives both APIs one set of
    rules), and the param, "text.format.schema", is inferred from the field's place.

    >>> [p.param for p in _format_problems({"format": {"type": "json_schema", "name": "f",
    ...                                     "schema": {"type": "object"}, "strict": True}})]
    ['text.format.schema']
    """
    spec = text.get("format") if isinstance(text, Mapping) else None
    if not isinstance(spec, Mapping) or spec.get("type") != "json_schema" or spec.get("strict") is not True:
        return []
    return strict_schema_problems(API_NAME, spec.get("name"), spec.get("schema"), path="text.format.schema",
                                  param="text.format.schema", subject="response_format", code=None)


def _conversation_problems(items: Sequence[Any], *, stateful: bool, store: object,
                           reasons: bool) -> list[Problem]:
    """Calls and outputs paired, reasoning items followed and not orphaned: in one pass each.

    subtle: linear in the items, however many calls one turn holds (issue 19: looking
    ahead for each call's output, and back for each call's reasoning, took 17x as long
    per call at 3,000 parallel calls as at 750; benchmarks/wire_check_scale.py).
    """
    last_output: dict[Any, int] = {}  # call_id -> the index of its last function_call_output
    following: list[Any] = [None] * len(items)  # the first item after each that is not reasoning
    after = None
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        following[index] = after
        if not _is_kind(item, "reasoning"):
            after = item
        if _is_kind(item, "function_call_output") and _hashable(item.get("call_id")):
            last_output.setdefault(item.get("call_id"), index)
    problems: list[Problem] = []
    called: set[Any] = set()
    before = None  # the last item before this one that is not the model's output
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            before = item
            continue  # not an item at all: the API's schema check says so, not this one
        kind = item.get("type", "message")
        call_id = item.get("call_id") if _hashable(item.get("call_id")) else repr(item.get("call_id"))
        if kind == "function_call" and not stateful:
            if last_output.get(call_id, -1) < index:
                problems.append(_problem(index, f"No tool output found for function call {call_id}."))
            called.add(call_id)
        elif kind == "function_call_output" and not stateful and call_id not in called:
            problems.append(_problem(
                index, f"No tool call found for function call output with call_id {call_id}."))
        elif kind == "reasoning":
            problems.extend(_reasoning_problems(item, index, following[index], store=store))
        if kind == "function_call" and reasons and not stateful:
            problems.extend(_orphaned_call(item, index, before))
        if not _is_model_output(item):
            before = item
    return problems


def _is_kind(item: object, kind: str) -> bool:
    return isinstance(item, Mapping) and item.get("type", "message") == kind


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _limit_problems(limit: object) -> list[Problem]:
    """The spec's `minimum: 16` for `max_output_tokens`.

    The text is the API's as reported in vectorize-io/hindsight#58 (param
    "max_output_tokens", code "integer_below_min_value") and QuantumNous/new-api#2438.
    """
    if not isinstance(limit, int) or isinstance(limit, bool) or limit >= 16:
        return []
    return [Problem(API_NAME, "max_output_tokens", "Invalid 'max_output_tokens': integer below minimum "
                    f"value. Expected a value >= 16, but got {limit} instead.",
                    param="max_output_tokens", code="integer_below_min_value")]


def _call_id_problems(items: Sequence[object]) -> list[Problem]:
    """`call_id` is 1 to 64 characters (the spec's minLength/maxLength).

    Ids minted by another provider can be longer, so a conversation moved here fails.
    The too-long text is recorded (AnswerDotAI/fastllm#45, orchidfiles/ungate#26: code
    "string_above_max_length", param "input[N].call_id"); the too-short one is
    paraphrased in the same pattern, with the code that pattern implies.
    """
    problems = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or item.get("type") not in ("function_call", "function_call_output"):
            continue
        call_id, param = item.get("call_id"), f"input[{index}].call_id"
        if not isinstance(call_id, str):
            continue
        if len(call_id) > 64:
            text = (f"Invalid '{param}': string too long. Expected a string with maximum length 64, "
                    f"but got a string with length {len(call_id)} instead.")
            code = "string_above_max_length"
        elif not call_id:
            text = (f"Invalid '{param}': string too short. Expected a string with minimum length 1, "
                    "but got an empty string instead.")
            code = "string_below_min_length"
        else:
            continue
        problems.append(Problem(API_NAME, f"input.{index}.call_id", text, param=param, code=code))
    return problems


def _orphaned_call(item: Mapping[str, Any], index: int, before: object) -> list[Problem]:
    """A call replayed with its `fc_` item id needs the reasoning item it came with.

    The id ties the call to the response that made it, and so to that response's
    reasoning; without the id (what `encode_request` sends) `call_id` alone pairs it.
    The API's text ends with the reasoning item's id (": 'rs_...'."), which only
    OpenAI's store knows; here it stops before it (paraphrased).
    Only the items of the same turn count: `before` is the last item ahead of the call
    that is not the model's output (a reasoning item, or the user message or
    function_call_output the turn answers).
    """
    item_id = item.get("id")
    if not (isinstance(item_id, str) and item_id.startswith("fc_")) or _is_kind(before, "reasoning"):
        return []
    return [_problem(index, f"Item '{item_id}' of type 'function_call' was provided without its "
                            "required 'reasoning' item.")]


def _reasoning_problems(item: Mapping[str, Any], index: int, after: object, *,
                        store: object) -> list[Problem]:
    """A reasoning item: followed by what it reasoned about (`after`), kept, and unaltered."""
    item_id = item.get("id")
    problems = []
    # subtle: the item a reasoning item must be followed by is the model's output it led
    # to (a call or an assistant message); further reasoning items in between are skipped.
    if after is None or not _is_model_output(after):
        problems.append(_problem(
            index, f"Item '{item_id}' of type 'reasoning' was provided without its required "
                   "following item."))
    content = item.get("encrypted_content")
    if store is False and not content:
        # Reported with status 404 (vercel/ai#7543, can1357/oh-my-pi#41): the item is looked
        # up by id on OpenAI's side, where store: false kept nothing.
        problems.append(_problem(
            index, f"Item with id '{item_id}' not found. Items are not persisted when `store` is "
                   "set to false. Try again with `store` set to true, or remove this item from "
                   "your input."))
    if seal_is_ours(content) and unseal_reasoning(content) is None:
        problems.append(Problem(API_NAME, f"input.{index}.encrypted_content",
                                f"The encrypted content {content} could not be verified.",
                                param=None, code="invalid_encrypted_content"))
    return problems


def _is_model_output(item: object) -> bool:
    if not isinstance(item, Mapping):
        return False
    kind = str(item.get("type", "message"))
    return kind == "function_call" or kind.endswith("_call") or (
        kind == "message" and item.get("role") == "assistant")


def _tool_problems(tools: Sequence[Mapping[str, Any]]) -> list[Problem]:
    # No Responses-specific text is recorded for a bad name; this is the Chat Completions
    # message (`wire.chat.rules`, from an issue report) with the param path Responses uses, `tools[0].name`.
    problems = []
    for index, spec in enumerate(tools):
        if not isinstance(spec, Mapping) or spec.get("type", "function") != "function":
            continue
        name = spec.get("name")
        if not (isinstance(name, str) and _TOOL_NAME.fullmatch(name)):
            param = f"tools[{index}].name"
            problems.append(Problem(
                API_NAME, f"tools.{index}.name",
                f"Invalid '{param}': string does not match pattern. Expected a string that "
                f"matches the pattern '{_TOOL_NAME.pattern}'.", param=param, code="invalid_value"))
        problems += parameters_problems(API_NAME, name, spec.get("parameters"),
                                        path=f"tools.{index}.parameters", param=f"tools[{index}].parameters")
        # subtle: only an explicit strict: true is refused. A tool that leaves `strict` out
        # is reported back as strict: true, yet OpenAI's own spec example (an open schema,
        # no `strict`) is accepted, so the API must close or relax such a schema itself.
        if spec.get("strict") is True:
            problems += strict_schema_problems(API_NAME, name, spec.get("parameters"),
                                               path=f"tools.{index}.parameters",
                                               param=f"tools[{index}].parameters")
    return problems


def _problem(index: int, text: str) -> Problem:
    """A rule broken by input item `index`: OpenAI reports these with param "input"."""
    return Problem(API_NAME, f"input.{index}", text, param="input", code=None)
