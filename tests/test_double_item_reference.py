"""A Responses input item may name a stored item by its id (`item_reference`); the double reads it.

The Vercel AI SDK (`@ai-sdk/openai`, Responses, `store` on by default) sends a reasoning item the
API gave it back as `{"type": "item_reference", "id": "rs_..."}`, and the double answered that with
a 400 ("input item 1 has type 'item_reference', which the kit does not model"), so `generateText`
and `streamText` with a tool never finished against it (tests/test_js_clients.py). The spec's
`ItemReferenceParam`: "An internal identifier for an item to reference." (openai/openai-openapi,
/work/shared/wire/openai_openapi_excerpt.json).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from toolcall_lab.wire.responses import store

QUESTION = {"role": "user", "content": [{"type": "input_text", "text": "What's the weather in Paris?"}]}
TOOLS = [{"type": "function", "name": "get_weather", "description": "Weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"], "additionalProperties": False}}]


def post(url: str, body: object) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_reference_reads_as_the_stored_item_it_names():
    kept = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "x"}
    stored = {"resp_1": [{"type": "message", "role": "user", "content": "Hi"}, kept]}
    body = {"input": [{"type": "message", "role": "user", "content": "Hi"},
                      {"type": "item_reference", "id": "rs_1"}, {"id": "rs_1", "type": None}]}
    assert store.with_history(body, stored)["input"][1:] == [kept, kept]
    assert store.unknown_reference(body, stored) is None
    plain = {"input": "Hi"}
    assert store.with_history(plain, stored) is plain  # nothing to read: the body as it came


def test_a_reference_to_nothing_kept_is_the_apis_404_naming_the_item():
    status, problem = store.unknown_reference({"input": [{"type": "item_reference", "id": "rs_9"}]}, {})
    assert (status, problem.path, problem.text) == (404, "input.0", "Item with id 'rs_9' not found.")


def test_the_ai_sdks_second_request_is_answered_from_the_stored_reasoning(double):
    """The AI SDK's own second request (recorded from @ai-sdk/openai 3.0.141 against the double)."""
    url = double.url + "/v1/responses"
    status, first = post(url, {"model": "gpt-6-luna", "input": [QUESTION], "tools": TOOLS,
                               "tool_choice": "auto"})
    assert status == 200
    reasoning, call = first["output"]
    assert (reasoning["type"], call["type"]) == ("reasoning", "function_call")
    status, second = post(url, {"model": "gpt-6-luna", "tools": TOOLS, "tool_choice": "auto", "input": [
        QUESTION, {"type": "item_reference", "id": reasoning["id"]},
        {"type": "function_call", "call_id": call["call_id"], "name": "get_weather",
         "arguments": call["arguments"]},
        {"type": "function_call_output", "call_id": call["call_id"], "output": "18°C, sunny"}]})
    assert status == 200, second
    assert second["output"][-1]["content"][0]["text"] == "It's 18°C and sunny in Paris."


def test_the_double_refuses_a_reference_to_an_item_it_never_sent(double):
    status, body = post(double.url + "/v1/responses", {"model": "gpt-6-luna", "input": [
        QUESTION, {"type": "item_reference", "id": "rs_nope"}]})
    assert status == 404
    assert body["error"]["message"] == "Item with id 'rs_nope' not found."
    assert body["error"]["param"] == "input"
