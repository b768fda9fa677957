"""Validate wire bodies against the APIs' own definitions, offline.

- OpenAI: the verbatim excerpt of OpenAI's OpenAPI document (tests/fixtures/
  openai_openapi_excerpt.json), with jsonschema (Draft 2020-12) and `referencing`. Three
  adjustments make valid payloads pass, as the wire notes explain: `oneOf` is read as
  `anyOf` (OpenAPI discriminator semantics), `nullable: true` admits null, and
  `$recursiveRef` becomes `$ref`.
- Anthropic: the SDK's request TypedDict, `MessageCreateParamsNonStreaming`, through
  pydantic in strict mode, with every iterable materialised first (pydantic checks
  `Iterable[...]` fields lazily) and unknown keys reported by diffing input and output
  (pydantic drops them silently).
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
OPENAPI_URI = "urn:openai:openapi"


def fixture(name: str) -> Any:
    """A recorded body from tests/fixtures (see SOURCES.md there)."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _adjust(node: Any) -> Any:
    if isinstance(node, dict):
        node = {k: _adjust(v) for k, v in node.items()}
        if "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
        if "$recursiveRef" in node:
            node["$ref"] = node.pop("$recursiveRef")
        if node.pop("nullable", False):
            node = {"anyOf": [node, {"type": "null"}]}
        return node
    if isinstance(node, list):
        return [_adjust(v) for v in node]
    return node


@functools.cache
def _registry() -> Any:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    document = _adjust(json.loads((FIXTURES / "openai_openapi_excerpt.json").read_text()))
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    return Registry().with_resource(OPENAPI_URI, resource)


@functools.cache
def _validator(root: str) -> Any:
    import jsonschema

    schema = {"$ref": f"{OPENAPI_URI}#/components/schemas/{root}"}
    return jsonschema.Draft202012Validator(schema, registry=_registry())


def openapi_errors(body: Any, root: str) -> list[str]:
    """Messages of every way `body` breaks OpenAI's schema `root` (empty when valid).

    Roots: CreateResponse, Response, CreateChatCompletionRequest,
    CreateChatCompletionResponse, ErrorResponse.
    """
    errors = _validator(root).iter_errors(copy.deepcopy(body))
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"[:300] for e in errors]


def _materialise(value: Any) -> Any:
    # subtle: pydantic returns Iterable[...] fields as lazy iterators that validate as
    # they are consumed; consuming them here is what makes a bad block fail.
    if isinstance(value, dict):
        return {k: _materialise(v) for k, v in value.items()}
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        return value
    return [_materialise(v) for v in value]


def _unknown_keys(sent: Any, kept: Any, path: str = "") -> list[str]:
    if isinstance(sent, dict) and isinstance(kept, dict):
        missing = [f"{path}.{k}".lstrip(".") for k in sent if k not in kept]
        return missing + [m for k in sent if k in kept
                          for m in _unknown_keys(sent[k], kept[k], f"{path}.{k}")]
    if isinstance(sent, list) and isinstance(kept, list):
        return [m for i, (a, b) in enumerate(zip(sent, kept, strict=False))
                for m in _unknown_keys(a, b, f"{path}.{i}")]
    return []


@functools.cache
def _adapter(kind: Any) -> Any:
    """One pydantic TypeAdapter per type: building one takes ~0.1 s, validating ~10 µs."""
    import pydantic

    return pydantic.TypeAdapter(kind)


def anthropic_request_errors(body: dict[str, Any]) -> list[str]:
    """Ways `body` breaks the Anthropic SDK's request type, strictly (empty when valid)."""
    import pydantic
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    adapter = _adapter(MessageCreateParamsNonStreaming)
    data = _materialise(body)
    try:
        kept = _materialise(adapter.validate_python(data, strict=True))
    except pydantic.ValidationError as exc:
        return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
    return [f"{key}: unknown key (dropped by the SDK type)" for key in _unknown_keys(data, kept)]
