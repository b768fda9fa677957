"""A request body's shape, written down: the vocabulary of every API's `SHAPE`, and one failure.

Each API's server half carries `SHAPE` (`wire/<api>/shape.py`): the request body the way
the API's own schema describes it, for the fields the double reads (its codec's
`decode_request`, the rules, the prompt cache, the flavours) and the ones the kit sends:
their types, which are required, and the enums the API documents. The double checks a
body against it before anything reads the body (`double/shape.py`, with `jsonschema`),
and the API's server half turns the first `Failure` into the API's 400, in its words
(`shape_problem`).

The builders (`obj`, `array`, `null`, `enum`, `either`, `tagged`) write JSON Schema, with
keywords beyond it, all read by `double/shape.py` and the APIs' `shape_problem`:

- `x-tagged`: a union told apart by one key (pydantic's discriminated unions, OpenAPI's
  `discriminator`): `{"key": "type", "branches": {tag: schema}, "others": [...]}`.
  `default` is the tag when the key is absent; `others` are tags the API has that the
  double does not check further (`True`: any string).
- `x-go`: the Go type Ollama reports ("[]api.Message"; scalars default to Go's own names).
- `x-error`: the words for this node when they are not the dialect's usual ones (Ollama's
  option errors, the double's own refusal of a role), `x-status` the status when not 400;
  `x-missing` the words when the key is absent (Chat's recorded "you must provide a model
  parameter").
- `x-hosted`: values only the hosted API checks; a local server's flavour of the same API
  checks them its own way, or not at all (`wire.flavours`).

Left out, on purpose: value ranges and the rules between fields (`wire.<api>.rules`
checks those, in the API's words), and every field the double neither reads nor the kit
sends (a real API checks those too; here they pass). Unknown keys pass too, although
Anthropic refuses them ("Extra inputs are not permitted") and OpenAI too ("Unknown
parameter: ...").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["BOOLEAN", "INTEGER", "NUMBER", "OBJECT", "STRING", "Failure", "Path", "Schema", "array", "either",
           "enum", "kit_path", "null", "obj", "tagged", "types_of"]

Schema = dict[str, Any]
Path = Sequence[str | int]

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}
BOOLEAN: Schema = {"type": "boolean"}
OBJECT: Schema = {"type": "object"}


def obj(properties: Schema, *, required: tuple[str, ...] = (), **more: Any) -> Schema:
    """An object with these properties; `required` is checked before the properties' types."""
    return {"type": "object", "required": list(required), "properties": properties, **more}


def array(items: Schema | None = None, **more: Any) -> Schema:
    return {"type": "array", **({"items": items} if items is not None else {}), **more}


def null(schema: Schema) -> Schema:
    """`schema`, or null (OpenAPI's `nullable`, Python's `Optional`)."""
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    out = {**schema, "type": [*kinds, "null"]}
    if "enum" in schema:
        out["enum"] = [*schema["enum"], None]
    return out


def enum(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


def either(*kinds: str, **more: Any) -> Schema:
    """A value of one of several JSON types, e.g. a string or an array of blocks."""
    return {"type": list(kinds), **more}


def tagged(branches: dict[str, Schema], *, key: str = "type", default: str | None = None,
           others: list[str] | bool = False, null: str | None = None) -> Schema:
    """An object whose `key` says which of `branches` it is (see the module docstring);
    `null` is the tag a null key stands for, where the API has one (Responses' item_reference)."""
    accepted = True if others is True else list(others or [])
    spec: Schema = {"key": key, "branches": branches, "others": accepted}
    if default is not None:
        spec["default"] = default
    if null is not None:
        spec["null"] = null
    return {"type": "object", "x-tagged": spec}


# -- one way a body breaks its shape ------------------------------------------------------------
@dataclass(frozen=True)
class Failure:
    """One way a body breaks its shape, read off a jsonschema error.

    `kind` is "type", "required", "enum", "tag" (a tagged union's key absent, or naming no
    branch) or another JSON Schema keyword; `path` leads to the value (for "required" and
    "tag", to the object that lacks the key or carries the tag); `key` is the key missing or
    carrying the tag; `tags` are the (depth in `path`, tag) of the tagged unions on the way.
    """

    kind: str
    path: tuple[str | int, ...]
    value: Any
    node: dict[str, Any]
    key: str | None = None
    tags: tuple[tuple[int, str], ...] = ()
    message: str = ""

    @classmethod
    def of(cls, error: Any) -> Failure:
        path, node, key = tuple(error.absolute_path), error.schema, None
        if error.validator == "required":
            key = next(k for k in error.validator_value if k not in error.instance)
            node = node.get("properties", {}).get(key, {})  # the missing key's own node
        elif error.validator == "x-tagged":
            key = error.validator_value["key"]
        kind = "tag" if error.validator == "x-tagged" else str(error.validator)
        return cls(kind, path, error.instance, node, key, _tags(error.schema_path), error.message)

    @property
    def status(self) -> int:
        return int(self.node.get("x-status", 400))

    @property
    def allowed(self) -> list[Any]:
        """The values an enum (or a tagged union's key) takes."""
        if self.kind == "tag":
            spec = self.node["x-tagged"]
            return [*spec["branches"], *(spec["others"] if isinstance(spec["others"], list) else [])]
        return [v for v in self.node.get("enum", []) if v is not None]


def _tags(schema_path: Sequence[Any]) -> tuple[tuple[int, str], ...]:
    """Where the tagged unions on an error's way sit: (depth in the instance path, tag).

    e.g. properties, messages, items, properties, content, items, x-tagged, tool_use, ...
    -> ((4, "tool_use"),): the block at messages.N.content.M is a tool_use.
    """
    tags, depth, tokens, at = [], 0, list(schema_path), 0
    while at < len(tokens):
        token = tokens[at]
        if token in ("properties", "x-tagged"):  # each followed by a name: a property's, a tag
            if token == "x-tagged" and at + 1 < len(tokens):
                tags.append((depth, str(tokens[at + 1])))
            depth += token == "properties"
            at += 2
            continue
        depth += token in ("items", "additionalProperties")
        at += 1
    return tuple(tags)


# -- what the words are made of ------------------------------------------------------------------
def kit_path(path: Path) -> str:
    """A JSON path the kit's way, e.g. ["messages", 0, "content"] -> "messages.0.content"."""
    return ".".join(map(str, path))


def types_of(node: Schema) -> list[str]:
    """The JSON types a node takes, null left out: {"type": ["string", "null"]} -> ["string"]."""
    kinds = node.get("type", [])
    return [k for k in (kinds if isinstance(kinds, list) else [kinds]) if k != "null"]
