"""The Anthropic Messages API's request body, as its SDK types it, and its validator's words.

`SHAPE` is the JSON Schema of the fields the API double reads and the kit sends (the
vocabulary: `wire._schema`); the double checks a body against it before anything reads
it, and `shape_problem` says the first failure the way Anthropic's validator does, which
speaks pydantic: "tools.0.custom.name: Field required", the tag of a discriminated union
in the path ("messages.1.content.0.tool_use.input: Input should be a valid dictionary" is
recorded, anthropics/anthropic-sdk-typescript#648).

    >>> from toolcall_lab.double.shape import first_problem
    >>> first_problem("anthropic", {"model": "m", "max_tokens": 8, "messages": [], "tools": 5}).text
    'tools: Input should be a valid list'

The types come from the SDK's request types (anthropic 2.15, `anthropic/types/`:
`message_create_params.py`, `message_param.py`, the `*_block_param.py`, `tool_param.py`,
`tool_choice_*_param.py`, `thinking_config_*_param.py`, `cache_control_ephemeral_param.py`,
`output_config_param.py`); `temperature`, `top_p` and `top_k`, which SDK 2.15 no longer
lists, from the API reference (numbers, `top_k` an integer).

Left out: value ranges and the rules between fields (`rules.py`), and "Extra inputs are
not permitted" (unknown keys pass).
"""

from __future__ import annotations

from .._schema import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    OBJECT,
    STRING,
    Failure,
    Schema,
    array,
    either,
    enum,
    kit_path,
    null,
    obj,
    tagged,
    types_of,
)
from ..problem import Problem
from ._blocks import API_NAME

__all__ = ["SHAPE", "shape_problem"]

_CACHE_CONTROL = null(obj({"type": enum("ephemeral"), "ttl": enum("5m", "1h")}, required=("type",)))
_TEXT = obj({"text": STRING, "cache_control": _CACHE_CONTROL}, required=("text",))
_CALL = obj({"id": STRING, "name": STRING, "input": OBJECT, "cache_control": _CACHE_CONTROL},
            required=("id", "name", "input"))
_SERVER_RESULT = obj({"tool_use_id": STRING}, required=("tool_use_id",))
#: tool_result_block_param.py `Content`: what a tool_result's content list may hold
_RESULT_PARTS = tagged({"text": _TEXT},
                       others=["image", "search_result", "document", "tool_reference", "browser_state"])
_ANTHROPIC_BLOCK = tagged({
    "text": _TEXT,
    "thinking": obj({"thinking": STRING, "signature": STRING}, required=("thinking", "signature")),
    "redacted_thinking": obj({"data": STRING}, required=("data",)),
    "tool_use": _CALL,
    "tool_result": obj({"tool_use_id": STRING, "content": either("string", "array", items=_RESULT_PARTS),
                        "is_error": BOOLEAN, "cache_control": _CACHE_CONTROL}, required=("tool_use_id",)),
    "server_tool_use": _CALL,
    # the results of Anthropic's own tools, replayed as they came (message_content_param.py)
    "web_search_tool_result": _SERVER_RESULT, "web_fetch_tool_result": _SERVER_RESULT,
    "code_execution_tool_result": _SERVER_RESULT, "bash_code_execution_tool_result": _SERVER_RESULT,
    "text_editor_code_execution_tool_result": _SERVER_RESULT, "tool_search_tool_result": _SERVER_RESULT,
}, others=["image", "document", "search_result", "container_upload"])
_ANTHROPIC_TOOL = tagged({
    # tool_param.py: `type` is Optional[Literal["custom"]]; the input schema's type is required and
    # "object" (the SDK's type would take any dict, the API does not: "tools.26.custom.input_schema.type:
    # Field required" is recorded in lidge-jun/opencodex#75)
    "custom": obj({"name": STRING, "description": STRING,
                   "input_schema": obj({"type": enum("object")}, required=("type",)),
                   "strict": BOOLEAN, "cache_control": _CACHE_CONTROL}, required=("name", "input_schema")),
}, default="custom", others=True)  # Anthropic's own tools (web_search_20250305, ...) by their name only
_DISABLE = {"disable_parallel_tool_use": BOOLEAN}
_DISPLAY = {"display": null(enum("summarized", "omitted"))}
#: json_output_format_param.py: structured output's one format, its schema required
_FORMAT = null(tagged({"json_schema": obj({"schema": OBJECT}, required=("schema",))}))

#: The request body, as the SDK's types describe it (see the module docstring)
SHAPE: Schema = obj({
    "model": STRING,
    "max_tokens": INTEGER,
    "messages": array(obj({
        "role": enum("user", "assistant", "system"),  # message_param.py: SystemMessageParam since 2.14
        "content": either("string", "array", items=_ANTHROPIC_BLOCK),
    }, required=("role", "content"))),
    "system": either("string", "array", items=obj(
        {"type": enum("text"), "text": STRING, "cache_control": _CACHE_CONTROL}, required=("type", "text"))),
    "tools": array(_ANTHROPIC_TOOL),
    "tool_choice": tagged({"auto": obj(_DISABLE), "any": obj(_DISABLE), "none": OBJECT,
                           "tool": obj({"name": STRING, **_DISABLE}, required=("name",))}),
    "thinking": tagged({"enabled": obj({"budget_tokens": INTEGER, **_DISPLAY}, required=("budget_tokens",)),
                        "adaptive": obj(_DISPLAY), "disabled": OBJECT, "between_tools": OBJECT}),
    "output_config": obj({"effort": null(enum("low", "medium", "high", "xhigh", "max")), "format": _FORMAT}),
    "stream": BOOLEAN,
    "stop_sequences": array(STRING),
    "temperature": NUMBER, "top_p": NUMBER, "top_k": INTEGER,
    "cache_control": _CACHE_CONTROL,
    # beta_message_thread_param.py: a thread's create, or its continue from a reply's id
    "thread": null(tagged({"create": OBJECT, "continue": obj({"previous_message_id": STRING},
                                                             required=("previous_message_id",))})),
}, required=("model", "max_tokens", "messages"))


# -- the words: pydantic's ------------------------------------------------------------------------
_PYDANTIC = {"object": "a valid dictionary", "array": "a valid list", "string": "a valid string",
             "integer": "a valid integer", "number": "a valid number", "boolean": "a valid boolean"}


def shape_problem(failure: Failure) -> Problem:
    """The first way a body breaks its shape, in pydantic's words, as the API says it."""
    parts: list[str | int] = list(failure.path)
    for depth, tag in sorted(failure.tags, reverse=True):
        parts.insert(depth, tag)  # pydantic names the branch of a tagged union in the path
    where = kit_path(parts)
    match failure.kind:
        case "required":
            where, text = f"{where}.{failure.key}".lstrip("."), "Field required"
        case "tag" if failure.key not in failure.value:
            text = f"Unable to extract tag using discriminator '{failure.key}'"
        case "tag":
            tags = ", ".join(f"'{tag}'" for tag in failure.allowed)
            tag = failure.value[failure.key]
            text = (f"Input tag '{tag}' found using '{failure.key}' does not match any of the expected "
                    f"tags: {tags}")
        case "type" if isinstance(failure.value, float) and "integer" in types_of(failure.node):
            text = "Input should be a valid integer, got a number with a fractional part"
        case "type":
            # subtle: for a union (a string or a list of blocks) pydantic reports each member; the
            # API's one message is taken to be the last member's (inferred, not recorded)
            text = f"Input should be {_PYDANTIC[types_of(failure.node)[-1]]}"
        case "enum":
            values = [f"'{v}'" for v in failure.allowed]
            listed = values[0] if len(values) == 1 else ", ".join(values[:-1]) + f" or {values[-1]}"
            text = f"Input should be {listed}"
        case _:
            text = failure.message
    return Problem(API_NAME, kit_path(failure.path), f"{where}: {text}" if where else text)
