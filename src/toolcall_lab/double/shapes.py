"""The shape of every field the double reads, per API: one JSON Schema each, with its source.

`SHAPES[api]` describes the request body of `api` the way the API's own schema does, for
the fields the double reads (its codec's `decode_request`, the rules, the prompt cache,
the flavours) and the ones the kit sends: their types, which are required, and the enums
the API documents. `double/shape.py` checks a body against it before anything reads the
body, and turns the first failure into the API's 400, in the API's words.

Where each type comes from:

- Anthropic: the SDK's request types (anthropic 2.15, `anthropic/types/`:
  `message_create_params.py`, `message_param.py`, the `*_block_param.py`, `tool_param.py`,
  `tool_choice_*_param.py`, `thinking_config_*_param.py`, `cache_control_ephemeral_param.py`,
  `output_config_param.py`); `temperature`, `top_p` and `top_k`, which SDK 2.15 no longer
  lists, from the API reference (numbers, `top_k` an integer).
- OpenAI Responses and Chat Completions: OpenAI's OpenAPI document (openai/openai-openapi
  @f85dbe22; `CreateResponse`, `CreateChatCompletionRequest` and what they reference, kept
  in tests/fixtures/openai_openapi_excerpt.json, where a test holds these shapes to it).
- Ollama: its Go types (ollama/ollama@fb307609, `api/types.go`: `ChatRequest`, `Message`,
  `ToolCall`, `Tool`, `Options`), which Go's encoding/json enforces while it reads a body.

Three keywords beyond JSON Schema, all read by `shape.py`:

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

from typing import Any

__all__ = ["SHAPES"]

Schema = dict[str, Any]

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


# -- Anthropic Messages -------------------------------------------------------------------------
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

ANTHROPIC: Schema = obj({
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
    "output_config": obj({"effort": null(enum("low", "medium", "high", "xhigh", "max"))}),
    "stop_sequences": array(STRING),
    "temperature": NUMBER, "top_p": NUMBER, "top_k": INTEGER,
    "cache_control": _CACHE_CONTROL,
}, required=("model", "max_tokens", "messages"))


# -- OpenAI Responses ---------------------------------------------------------------------------
_EFFORT = null(STRING)  # the values are a rule (`wire._shared.invalid_effort`), in OpenAI's words
_PART_TEXT = obj({"text": STRING}, required=("text",))
_INPUT_PARTS = tagged({"input_text": _PART_TEXT, "output_text": _PART_TEXT,
                       "refusal": obj({"refusal": STRING}, required=("refusal",))},
                      others=["input_image", "input_file"])
_OUTPUT_PARTS = tagged({"input_text": _PART_TEXT}, others=["input_image", "input_file"])
#: Item's tags in the spec; the double plays the four it reads and web_search_call
_OTHER_ITEMS = ["file_search_call", "computer_call", "computer_call_output", "tool_search_call",
                "tool_search_output", "additional_tools", "compaction", "image_generation_call",
                "code_interpreter_call", "local_shell_call", "local_shell_call_output", "shell_call",
                "shell_call_output", "apply_patch_call", "apply_patch_call_output", "mcp_list_tools",
                "mcp_approval_request", "mcp_approval_response", "mcp_call", "custom_tool_call_output",
                "custom_tool_call", "item_reference", "program", "program_output", "compaction_trigger"]
_RESPONSES_ITEM = tagged({
    "message": obj({"role": enum("user", "assistant", "system", "developer"),
                    "content": either("string", "array", items=_INPUT_PARTS)}, required=("role", "content")),
    "function_call": obj({"call_id": STRING, "name": STRING, "arguments": STRING, "id": STRING},
                         required=("call_id", "name", "arguments")),
    "function_call_output": obj({"call_id": null(STRING),
                                 "output": either("string", "array", items=_OUTPUT_PARTS)},
                                required=("output",)),  # call_id too is optional in the spec
    "reasoning": obj({"id": STRING, "summary": array(obj({"text": STRING}, required=("text",))),
                      "encrypted_content": null(STRING)}, required=("id", "summary")),
    "web_search_call": obj({"id": STRING}, required=("id",)),
}, default="message", others=_OTHER_ITEMS, null="item_reference")  # ItemReferenceParam: type nullable
#: Tool's tags in the spec (ToolsArray); the double reads function tools and skips web search
_OTHER_TOOLS = ["file_search", "computer", "computer_use_preview", "web_search", "web_search_2025_08_26",
                "mcp", "code_interpreter", "programmatic_tool_calling", "image_generation", "local_shell",
                "shell", "custom", "namespace", "tool_search", "web_search_preview",
                "web_search_preview_2025_03_11", "apply_patch"]
_FUNCTION = {"name": STRING, "description": null(STRING), "parameters": null(OBJECT), "strict": null(BOOLEAN)}


def choice(branches: dict[str, Schema], others: list[str] | bool) -> Schema:
    """OpenAI's `tool_choice`: one of its three modes, or an object told apart by `type`."""
    return {"type": ["string", "object"], "if": {"type": "string"},
            "then": {**enum("none", "auto", "required"), "x-hosted": True},
            "x-tagged": {"key": "type", "branches": branches, "others": others}}


RESPONSES: Schema = obj({
    "model": STRING,
    "input": either("string", "array", items=_RESPONSES_ITEM),
    "instructions": null(STRING),
    "tools": array(tagged({"function": obj(_FUNCTION, required=("name",))}, others=_OTHER_TOOLS)),
    "tool_choice": choice({"function": obj({"name": STRING}, required=("name",))}, True),
    "parallel_tool_calls": null(BOOLEAN),
    "reasoning": null(obj({"effort": _EFFORT, "summary": null(enum("auto", "concise", "detailed"))})),
    "store": null(BOOLEAN),
    "previous_response_id": null(STRING),
    "max_output_tokens": null(INTEGER),
    "temperature": null(NUMBER),
    "prompt_cache_key": null(STRING),
    "prompt_cache_retention": {**null(enum("in_memory", "24h")), "x-hosted": True},
    "prompt_cache_options": obj({"ttl": STRING}),
}, required=("model",))  # the spec requires neither; the API answers "Missing required parameter: 'model'."


# -- OpenAI Chat Completions --------------------------------------------------------------------
def _chat_content(parts: Schema) -> Schema:
    return either("string", "array", items=parts)


_TEXT_PARTS = tagged({"text": _PART_TEXT})
_CHAT_CALL = tagged({"function": obj({"id": STRING, "function": obj({"name": STRING, "arguments": STRING},
                                                                      required=("name", "arguments"))},
                                     required=("id", "function"))}, others=["custom"])
_CHAT_MESSAGE = tagged({
    "system": obj({"content": _chat_content(_TEXT_PARTS)}, required=("content",)),
    "developer": obj({"content": _chat_content(_TEXT_PARTS)}, required=("content",)),
    "user": obj({"content": _chat_content(tagged({"text": _PART_TEXT},
                                                 others=["image_url", "input_audio", "file"]))},
                required=("content",)),
    # content may be left out or null beside tool_calls; an empty tool_calls is a rule
    "assistant": obj({"content": null(_chat_content(tagged({"text": _PART_TEXT, "refusal": obj(
        {"refusal": STRING}, required=("refusal",))}))), "tool_calls": array(_CHAT_CALL)}),
    # a missing tool_call_id is a rule, in OpenAI's recorded words (`wire.chat.rules`)
    "tool": obj({"tool_call_id": STRING, "content": _chat_content(_TEXT_PARTS)}, required=("content",)),
    "function": obj({"name": STRING}, required=("name",)),
}, key="role")
_NAMED = obj({"function": obj({"name": STRING}, required=("name",))}, required=("function",))

CHAT: Schema = obj({
    "model": {**STRING, "x-missing": "you must provide a model parameter"},  # recorded, param null
    "messages": array(_CHAT_MESSAGE),  # an empty list is a rule, in OpenAI's recorded words
    "tools": array(tagged({"function": obj({"function": obj(_FUNCTION, required=("name",))},
                                           required=("function",))}, others=["custom"])),
    "tool_choice": choice({"function": _NAMED}, ["allowed_tools", "custom"]),
    "parallel_tool_calls": BOOLEAN,
    "reasoning_effort": _EFFORT,
    "max_tokens": null(INTEGER), "max_completion_tokens": null(INTEGER),
    "temperature": null(NUMBER), "seed": null(INTEGER),
    "stream_options": null(OBJECT),
    "prompt_cache_key": null(STRING),
    "prompt_cache_retention": {**null(enum("in_memory", "24h")), "x-hosted": True},
}, required=("model", "messages"))


# -- Ollama /api/chat ---------------------------------------------------------------------------
def go(schema: Schema, go_type: str) -> Schema:
    return {**schema, "x-go": go_type}


def go_null(schema: Schema, go_type: str) -> Schema:
    """A Go field null may be sent to (Go leaves the zero value), and the double reads it so."""
    return go(null(schema), go_type)


def _option(go_type: str) -> Schema:
    # api/types.go, Options.FromMap: read when the model is scheduled, and a failure there is
    # answered 500 (server/routes.go, handleScheduleError's default case); numbers of either
    # kind are taken for int and float32 options (JSON numbers arrive as float64).
    return {"type": ["number", "null"], "x-status": 500,
            "x-error": f'option "{{key}}" must be of type {go_type}'}


_ROLE = {"type": "string", "pattern": "(?i)^(system|user|assistant|tool)$", "x-error": (
    # The double's own refusal: Ollama lower-cases any role and hands it to the model's chat
    # template, which may skip it; the double has no template, and plays these four only.
    "{path} is {value}: Ollama passes any role to the model's chat template, but the API double "
    "plays system, user, assistant and tool only; send one of those.")}
_OLLAMA_CALL = go(obj({"id": STRING, "function": go(obj({
    "index": INTEGER, "name": STRING,
    "arguments": go_null(OBJECT, "api.ToolCallFunctionArguments")}, required=("name",)),
    "api.ToolCallFunction")}, required=("function",)), "api.ToolCall")

OLLAMA: Schema = obj({
    "model": STRING,
    "messages": go_null(array(go(obj({
        "role": _ROLE,
        "content": go_null(STRING, "string"),
        "thinking": go_null(STRING, "string"),
        "tool_calls": go_null(array(_OLLAMA_CALL), "[]api.ToolCall"),
        "tool_name": go_null(STRING, "string"), "tool_call_id": go_null(STRING, "string"),
    }, required=("role",)), "api.Message")), "[]api.Message"),
    "tools": go_null(array(go(obj({"type": go_null(STRING, "string"), "function": go(obj({
        "name": STRING, "description": go_null(STRING, "string"),
        "parameters": go_null(OBJECT, "api.ToolFunctionParameters")}, required=("name",)),
        "api.ToolFunction")}, required=("function",)), "api.Tool")), "api.Tools"),
    "stream": go_null(BOOLEAN, "bool"),
    "top_logprobs": go_null(INTEGER, "int"),
    "logprobs": go_null(BOOLEAN, "bool"),
    # last: Ollama reads the options only once the whole body is decoded
    "options": go_null({"type": "object", "properties": {
        "num_predict": _option("integer"), "seed": _option("integer"),
        "temperature": _option("float32"), "top_p": _option("float32"), "top_k": _option("integer")}},
        "map[string]interface {}"),
})  # `think` is a type of Ollama's own (ThinkValue), checked with its words by `wire.ollama.rules`

#: api -> the JSON Schema of the request fields the double reads
SHAPES: dict[str, Schema] = {"anthropic": ANTHROPIC, "responses": RESPONSES, "chat": CHAT, "ollama": OLLAMA}
