"""OpenAI Chat Completions' request body, as OpenAI's OpenAPI document types it.

`SHAPE` is the JSON Schema of the fields the API double reads and the kit sends; the
double checks a body against it before anything reads it, and says the first failure in
OpenAI's words (`wire._openai.shape`: the dialect, the parts both OpenAI shapes share, where
their types come from and what they leave out):

    >>> from toolcall_lab.double.shape import first_problem
    >>> first_problem("chat", {"model": "m", "messages": 5}).text
    "Invalid type for 'messages': expected an array of objects, but got an integer instead."

A Chat request without a model gets OpenAI's recorded "you must provide a model
parameter" (`x-missing`).

Its types are `CreateChatCompletionRequest`'s and what that references.
"""

from __future__ import annotations

from .._openai.shape import CACHE_RETENTION, EFFORT, FUNCTION, JSON_SCHEMA, PART_TEXT, choice
from .._schema import BOOLEAN, INTEGER, NUMBER, OBJECT, STRING, Schema, array, either, null, obj, tagged

__all__ = ["SHAPE"]

def _chat_content(parts: Schema) -> Schema:
    return either("string", "array", items=parts)


_TEXT_PARTS = tagged({"text": PART_TEXT})
_CHAT_CALL = tagged({"function": obj({"id": STRING, "function": obj({"name": STRING, "arguments": STRING},
                                                                      required=("name", "arguments"))},
                                     required=("id", "function"))}, others=["custom"])
_CHAT_MESSAGE = tagged({
    "system": obj({"content": _chat_content(_TEXT_PARTS)}, required=("content",)),
    "developer": obj({"content": _chat_content(_TEXT_PARTS)}, required=("content",)),
    "user": obj({"content": _chat_content(tagged({"text": PART_TEXT},
                                                 others=["image_url", "input_audio", "file"]))},
                required=("content",)),
    # content may be left out or null beside tool_calls; an empty tool_calls is a rule
    "assistant": obj({"content": null(_chat_content(tagged({"text": PART_TEXT, "refusal": obj(
        {"refusal": STRING}, required=("refusal",))}))), "tool_calls": array(_CHAT_CALL)}),
    # a missing tool_call_id is a rule, in OpenAI's recorded words (`wire.chat.rules`)
    "tool": obj({"tool_call_id": STRING, "content": _chat_content(_TEXT_PARTS)}, required=("content",)),
    "function": obj({"name": STRING}, required=("name",)),
}, key="role")
_NAMED = obj({"function": obj({"name": STRING}, required=("name",))}, required=("function",))

#: The request body, as OpenAI's OpenAPI document describes it (see the module docstring)
SHAPE: Schema = obj({
    "model": {**STRING, "x-missing": "you must provide a model parameter"},  # recorded, param null
    "messages": array(_CHAT_MESSAGE),  # an empty list is a rule, in OpenAI's recorded words
    "tools": array(tagged({"function": obj({"function": obj(FUNCTION, required=("name",))},
                                           required=("function",))}, others=["custom"])),
    "tool_choice": choice({"function": _NAMED}, ["allowed_tools", "custom"]),
    "parallel_tool_calls": BOOLEAN,
    "reasoning_effort": EFFORT,
    "max_tokens": null(INTEGER), "max_completion_tokens": null(INTEGER),
    "temperature": null(NUMBER), "seed": null(INTEGER),
    "stream": null(BOOLEAN),
    "stream_options": null(obj({"include_usage": BOOLEAN, "include_obfuscation": BOOLEAN})),
    # the three in the spec's order, which OpenAI lists them in
    "response_format": tagged({"text": OBJECT, "json_schema": obj(
        {"json_schema": obj(JSON_SCHEMA, required=("name",))}, required=("json_schema",)),
        "json_object": OBJECT}),
    "prompt_cache_key": null(STRING),
    "prompt_cache_retention": CACHE_RETENTION,
}, required=("model", "messages"))

