"""The OpenAI Responses API's request body, as OpenAI's OpenAPI document types it.

`SHAPE` is the JSON Schema of the fields the API double reads and the kit sends; the
double checks a body against it before anything reads it, and says the first failure in
OpenAI's words (`wire._openai.shape`: the dialect, the parts both OpenAI shapes share, where
their types come from and what they leave out):

    >>> from toolcall_lab.double.shape import first_problem
    >>> first_problem("responses", {"model": "m", "input": [{"type": "telepathy"}]}).param
    'input[0].type'

Its types are `CreateResponse`'s and what that references.
"""

from __future__ import annotations

from .._openai.shape import CACHE_RETENTION, EFFORT, FUNCTION, JSON_SCHEMA, PART_TEXT, choice
from .._schema import BOOLEAN, INTEGER, NUMBER, OBJECT, STRING, Schema, array, either, enum, null, obj, tagged

__all__ = ["SHAPE"]

_INPUT_PARTS = tagged({"input_text": PART_TEXT, "output_text": PART_TEXT,
                       "refusal": obj({"refusal": STRING}, required=("refusal",))},
                      others=["input_image", "input_file"])
_OUTPUT_PARTS = tagged({"input_text": PART_TEXT}, others=["input_image", "input_file"])
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


#: The request body, as OpenAI's OpenAPI document describes it (see the module docstring)
SHAPE: Schema = obj({
    "model": STRING,
    "input": either("string", "array", items=_RESPONSES_ITEM),
    "instructions": null(STRING),
    "tools": array(tagged({"function": obj(FUNCTION, required=("name",))}, others=_OTHER_TOOLS)),
    "tool_choice": choice({"function": obj({"name": STRING}, required=("name",))}, True),
    "parallel_tool_calls": null(BOOLEAN),
    "reasoning": null(obj({"effort": EFFORT, "summary": null(enum("auto", "concise", "detailed"))})),
    "store": null(BOOLEAN),
    "previous_response_id": null(STRING),
    "max_output_tokens": null(INTEGER),
    "temperature": null(NUMBER),
    "prompt_cache_key": null(STRING),
    "prompt_cache_retention": CACHE_RETENTION,
    "prompt_cache_options": obj({"ttl": STRING}),
    "stream": null(BOOLEAN),
    "stream_options": null(obj({"include_obfuscation": BOOLEAN})),
    "text": obj({"format": tagged({"text": OBJECT,  # the three in the spec's order, which OpenAI lists
                                   "json_schema": obj(JSON_SCHEMA, required=("schema", "name")),
                                   "json_object": OBJECT})}),
}, required=("model",))  # the spec requires neither; the API answers "Missing required parameter: 'model'."

