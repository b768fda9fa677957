"""The double checks the shape of every field it reads, and refuses a wrong one as the API does.

Issue 19, items 3 and 4: a misshapen body used to crash the double into a 500 (which the
SDKs retry twice, and the learner reads "try again later"), and a wrongly typed field the
kit itself sends used to be answered 200. Now both get the API's 400, in its error shape,
naming the JSON path (`toolcall_lab.double.shape`, against each API's `wire.<api>.shape.SHAPE`).

Also here: the shapes hold to the APIs' own definitions (OpenAI's OpenAPI excerpt, the
Anthropic SDK's request types), so the double is never harsher than the API; and a
bounded property test that sends mutated bodies of every API to the double over HTTP.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SECRET, examples, post_to
from schemas import anthropic_request_errors, fixture, openapi_errors
from toolcall_lab import Message, ToolCall, ToolResult, Transcript, call
from toolcall_lab.double import shape
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import API_SPECS, ENDPOINTS, codec, encode_request

SHAPES = {name: spec.server.SHAPE for name, spec in API_SPECS.items()}

ANTHROPIC = {"model": "claude-haiku-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
RESPONSES = {"model": "gpt-4o-mini", "input": "Hi"}
CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}
OLLAMA = {"model": "qwen3:4b", "stream": False, "messages": [{"role": "user", "content": "Hi"}]}
BASE = {"anthropic": ANTHROPIC, "responses": RESPONSES, "chat": CHAT, "ollama": OLLAMA}
CALLED = [{"role": "user", "content": "Hi"}, {"role": "assistant", "tool_calls": 5}]


def message_of(api: str, answer: dict[str, object]) -> str:
    error = answer["error"]
    return error if isinstance(error, str) else error["message"]  # type: ignore[index,return-value]


def keys(value: object) -> object:
    """The keys of a JSON body, nested, without the values."""
    return {key: keys(item) for key, item in value.items()} if isinstance(value, dict) else None


# -- item 3: what crashed the double into a 500 --------------------------------------------------
MISSHAPEN = [
    ("anthropic", {"tools": 5}, "tools: Input should be a valid list"),
    ("anthropic", {"system": 5}, "system: Input should be a valid list"),
    ("anthropic", {"thinking": 5}, "thinking: Input should be a valid dictionary"),
    ("anthropic", {"tools": [{"name": "f", "input_schema": {"type": "string"}}]},
     "tools.0.custom.input_schema.type: Input should be 'object'"),
    ("anthropic", {"messages": [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f",
                                                              "input": "{}"}]}]},
     "messages.0.content.0.tool_use.input: Input should be a valid dictionary"),  # the recorded text
    ("responses", {"reasoning": 5},
     "Invalid type for 'reasoning': expected an object, but got an integer instead."),
    ("responses", {"tools": [{"type": {}, "name": "f"}]},
     "Invalid type for 'tools[0].type': expected one of 'function', 'file_search', "),
    ("chat", {"messages": CALLED},
     "Invalid type for 'messages[1].tool_calls': expected an array of objects, but got an integer instead."),
    ("ollama", {"messages": CALLED},
     "json: cannot unmarshal number into Go struct field ChatRequest.messages.tool_calls of type "
     "[]api.ToolCall"),
    ("ollama", {"messages": [{}]}, "messages[0].role is missing, which Ollama reads as an empty value"),
]


@pytest.mark.parametrize(("api", "change", "text"), MISSHAPEN)
def test_a_misshapen_field_gets_the_apis_400_naming_its_path(api, change, text, double):
    status, headers, raw = post_to(double.port, api, {**BASE[api], **change})
    answer = json.loads(raw)
    assert status == 400, answer
    assert keys(answer) == keys(codec(api).error_body("any", status=400))
    assert message_of(api, answer).startswith(text)
    assert headers["x-should-retry"] == "false"


def test_a_misshapen_body_through_the_sdk_is_sent_once(double):
    import anthropic

    client = anthropic.Anthropic(base_url=double.url, api_key=SECRET, max_retries=2)
    with pytest.raises(anthropic.BadRequestError, match="tools: Input should be a valid list"):
        client.messages.create(**ANTHROPIC, extra_body={"tools": 5})
    assert [r.status for r in double.requests] == [400], "refused once, not a 500 retried twice"


# -- item 4: what the double answered 200 ------------------------------------------------------------
DECIMAL = "Invalid type for 'temperature': expected a decimal, but got a string instead."  # recorded
CHOICE = ("Invalid type for 'tool_choice': expected one of one of 'none', 'auto', or 'required' or object, "
          "but got an integer instead.")  # recorded
WRONGLY_TYPED = [
    ("anthropic", {"tool_choice": 5}, "tool_choice: Input should be a valid dictionary"),
    ("responses", {"tool_choice": 5}, CHOICE),
    ("chat", {"tool_choice": 5}, CHOICE),
    ("anthropic", {"temperature": "hot"}, "temperature: Input should be a valid number"),
    ("responses", {"temperature": "hot"}, DECIMAL),
    ("chat", {"temperature": "hot"}, DECIMAL),
    ("anthropic", {"stop_sequences": 5}, "stop_sequences: Input should be a valid list"),
    ("anthropic", {"messages": []}, "messages: at least one message is required"),  # recorded
    ("responses", {"max_output_tokens": "x"},
     "Invalid type for 'max_output_tokens': expected an integer, but got a string instead."),
    ("chat", {"max_tokens": "x"},
     "Invalid type for 'max_tokens': expected an integer, but got a string instead."),
    ("chat", {"tools": [{"type": "function", "function": {"name": "f", "parameters": []}}]},
     "Invalid type for 'tools[0].function.parameters': expected an object, but got an array instead."),
    ("ollama", {"options": 5},
     "json: cannot unmarshal number into Go struct field ChatRequest.options of type "
     "map[string]interface {}"),
    ("ollama", {"think": "x"},
     'invalid think value: "x" (must be "high", "medium", "low", "max", true, or false)'),
]


@pytest.mark.parametrize(("api", "change", "text"), WRONGLY_TYPED)
def test_a_wrongly_typed_field_the_kit_sends_is_refused(api, change, text, double):
    status, _, raw = post_to(double.port, api, {**BASE[api], **change})
    assert (status, message_of(api, json.loads(raw))) == (400, text)


@pytest.mark.parametrize(("api", "change", "param", "code"), [
    ("chat", {"tool_choice": "sometimes"}, "tool_choice", "invalid_value"),
    ("chat", {"messages": [{"role": "robot", "content": "Hi"}]}, "messages[0].role", "invalid_value"),
    ("responses", {"input": [{"type": "message", "content": "Hi"}]}, "input[0].role",
     "missing_required_parameter"),
    ("responses", {"input": [{"type": "telepathy"}]}, "input[0].type", "invalid_value"),
])
def test_openai_names_the_param_and_the_code(api, change, param, code, double):
    status, _, raw = post_to(double.port, api, {**BASE[api], **change})
    error = json.loads(raw)["error"]
    assert (status, error["param"], error["code"]) == (400, param, code)
    assert error["type"] == "invalid_request_error"


def test_chat_without_a_model_gets_openais_recorded_words():
    problem = shape.first_problem("chat", {"messages": CHAT["messages"]})
    assert (problem.text, problem.param) == ("you must provide a model parameter", None)


def test_an_ollama_option_of_the_wrong_type_is_ollamas_500_and_not_retried(double):
    # Ollama reads options when it schedules the model and answers a bad one with a 500
    # (server/routes.go, handleScheduleError); a retry cannot fix it, so the double says so.
    status, headers, raw = post_to(double.port, "ollama", {**OLLAMA, "options": {"num_predict": "x"}})
    assert (status, json.loads(raw)) == (500, {"error": 'option "num_predict" must be of type integer'})
    assert headers["x-should-retry"] == "false"


def test_a_request_the_kit_cannot_hold_gets_the_doubles_own_400(double):
    # well shaped for the API (file_search is one of its tools), but the kit has nothing to hold it
    body = {**RESPONSES, "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]}
    status, headers, raw = post_to(double.port, "responses", body)
    assert status == 400 and headers["x-should-retry"] == "false"
    assert json.loads(raw)["error"]["message"].startswith("The API double cannot play this request: tool 0 "
                                                          "has type 'file_search'")


# -- issue 29 §5.6: the switches of streaming and structured output ------------------------------------
#: Each API's switches: (path, the JSON types it takes, the strings it takes), and what its
#: 400 names of the path. A value of another type gets the API's 400 (Ollama: its runner's 500).
SWITCHES = {
    "anthropic": [(("stream",), (bool,), None), (("output_config", "format"), (dict, type(None)), None)],
    "responses": [(("stream",), (bool, type(None)), None), (("stream_options",), (dict, type(None)), None),
                  (("stream_options", "include_obfuscation"), (bool,), None), (("text",), (dict,), None),
                  (("text", "format"), (dict,), None)],
    "chat": [(("stream",), (bool, type(None)), None), (("stream_options",), (dict, type(None)), None),
             (("stream_options", "include_usage"), (bool,), None), (("response_format",), (dict,), None)],
    "ollama": [(("stream",), (bool, type(None)), None), (("format",), (dict, type(None)), ("", "json"))],
}
JSON_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=6) | st.sampled_from(["yes", "true", "json", ""]))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=2)
                           | st.dictionaries(st.text(max_size=3), inner, max_size=2), max_leaves=3)


def named(api: str, path: tuple[str, ...], answer: dict) -> bool:
    """Whether `answer`, the API's error, names the switch at `path` the API's way."""
    said = message_of(api, answer)
    match api:
        case "anthropic":
            return said.startswith(".".join(path) + ":")
        case "responses" | "chat":
            return answer["error"]["param"] == ".".join(path) and said.startswith("Invalid type for '")
        case _:
            return ("ChatRequest." + ".".join(path) in said) if path == ("stream",) else said.startswith(
                "invalid format: ")


def wrongly_switched(api, data):
    """(path, body): `api`'s base body with the switch at `path` set to a value of a type it does
    not take."""
    path, takes, strings = data.draw(st.sampled_from(SWITCHES[api]))
    value = data.draw(JSON_VALUES.filter(lambda v: type(v) not in takes and not (
        strings is not None and isinstance(v, str) and v in strings)))
    body = copy.deepcopy(BASE[api])
    node = body
    for step in path[:-1]:
        node = node.setdefault(step, {})
    node[path[-1]] = value
    return path, body


@pytest.mark.parametrize("api", list(SWITCHES))
@settings(max_examples=examples(80))
@given(data=st.data())
def test_a_wrongly_typed_switch_gets_the_apis_refusal_in_its_words_never_a_200(api, data):
    from toolcall_lab.double import ApiDouble

    path, body = wrongly_switched(api, data)
    status, raw, headers = ApiDouble().handle("POST", API_SPECS[api].endpoint, json.dumps(body).encode())
    answer = json.loads(bytes(raw))
    assert status == (500 if (api, path) == ("ollama", ("format",)) else 400), answer
    assert keys(answer) == keys(codec(api).error_body("any", status=status)) and named(api, path, answer)
    assert headers["x-should-retry"] == "false"


@pytest.mark.parametrize(("api", "change", "text"), [
    ("chat", {"response_format": {"type": "json"}},
     "Invalid value: 'json'. Supported values are: 'text', 'json_schema', and 'json_object'."),
    ("chat", {"response_format": {"type": "json_schema"}},
     "Missing required parameter: 'response_format.json_schema'."),
    ("responses", {"text": {"format": {"type": "json_schema", "schema": {}}}},
     "Missing required parameter: 'text.format.name'."),
    ("anthropic", {"output_config": {"format": {"type": "json"}}},
     "output_config.format: Input tag 'json' found using 'type' does not match any of the expected tags: "
     "'json_schema'"),
    ("ollama", {"format": "yaml"},
     'invalid format: "\\"yaml\\""; expected "json" or a valid JSON Schema object'),
])
def test_a_switch_with_a_value_its_api_does_not_know_is_refused_in_its_words(api, change, text):
    problem = shape.first_problem(api, {**BASE[api], **change})
    assert problem is not None and problem.text == text


# -- the shapes hold to the APIs' own definitions ------------------------------------------------------
def test_the_shapes_are_json_schema():
    import jsonschema

    for schema in SHAPES.values():
        jsonschema.Draft202012Validator.check_schema(schema)


def spec_tags(root: str, key: str = "type") -> set[str]:
    """The values of `key` that tell the members of the OpenAPI union `root` apart."""
    schemas = fixture("openai_openapi_excerpt.json")["components"]["schemas"]

    def values(node: dict) -> set[str]:
        if "$ref" in node:
            return values(schemas[node["$ref"].split("/")[-1]])
        if "oneOf" in node or "anyOf" in node:
            return {v for member in node.get("oneOf", node.get("anyOf")) for v in values(member)}
        found = node.get("properties", {}).get(key, {})
        found = next((a for a in found.get("anyOf", [found]) if "enum" in a), found)
        return set(found.get("enum", []))

    return values({"$ref": root})


def shape_tags(node: dict) -> set[str]:
    spec = node["x-tagged"]
    return set(spec["branches"]) | set(spec["others"] if isinstance(spec["others"], list) else [])


def test_openais_unions_have_the_specs_members():
    responses, chat = SHAPES["responses"]["properties"], SHAPES["chat"]["properties"]
    assert shape_tags(responses["tools"]["items"]) == spec_tags("Tool")
    assert shape_tags(responses["input"]["items"]) == spec_tags("InputItem")
    assert shape_tags(chat["messages"]["items"]) == spec_tags("ChatCompletionRequestMessage", "role")
    user = chat["messages"]["items"]["x-tagged"]["branches"]["user"]["properties"]["content"]["items"]
    assert shape_tags(user) == spec_tags("ChatCompletionRequestUserMessageContentPart")
    assert shape_tags(chat["tools"]["items"]) == {"function", "custom"}


def sdk_tags(union: object) -> set[str]:
    """The `type` literals of the TypedDicts in an Anthropic SDK union."""
    found = set()
    for member in typing.get_args(union):
        member = typing.get_args(member)[0] if typing.get_origin(member) is not None and not hasattr(
            member, "__annotations__") else member
        hints = typing.get_type_hints(member)
        found |= set(typing.get_args(typing.get_args(hints["type"])[0]) or typing.get_args(hints["type"]))
    return found


def test_anthropics_unions_have_the_sdks_members():
    from anthropic.types import tool_choice_param, tool_result_block_param
    from anthropic.types.content_block_param import ContentBlockParam
    from anthropic.types.thinking_config_param import ThinkingConfigParam

    properties = SHAPES["anthropic"]["properties"]
    block = properties["messages"]["items"]["properties"]["content"]["items"]
    assert shape_tags(block) == sdk_tags(ContentBlockParam)
    result = block["x-tagged"]["branches"]["tool_result"]["properties"]["content"]["items"]
    assert shape_tags(result) == sdk_tags(tool_result_block_param.Content)
    assert shape_tags(properties["tool_choice"]) == sdk_tags(tool_choice_param.ToolChoiceParam)
    assert shape_tags(properties["thinking"]) == sdk_tags(ThinkingConfigParam)


# -- never harsher than the API's own schema: mutated bodies -----------------------------------------
def rich_body(api: str) -> dict:
    """A body the kit sends: a question, a call, its result, a follow-up, with options."""
    paris = ToolCall("toolu_01", "get_weather", {"city": "Paris"})
    transcript = Transcript(system="Be brief.", messages=[
        Message.user("Weather in Paris?"), Message.assistant("Checking.", paris),
        Message.results([ToolResult("toolu_01", "18°C")]), Message.user("And London?")])
    options = {"anthropic": {"model": "claude-haiku-4-5", "thinking": 2048, "max_tokens": 4096,
                             "stop_sequences": ["END"], "tool_choice": "auto", "temperature": 1.0},
               "responses": {"model": "gpt-4o-mini", "temperature": 0.5, "tool_choice": "auto",
                             "parallel_tool_calls": False, "store": True},
               "chat": {"model": "gpt-4o-mini", "temperature": 0.5, "tool_choice": "get_weather", "seed": 3},
               "ollama": {"model": "qwen3:4b", "temperature": 0.5, "seed": 3, "think": True}}[api]
    return encode_request(transcript, [get_weather], api=api, **options)


RECORDED = {"responses": "openai_responses_function_call_request.spec_example.json",
            "chat": "openai_chat_tool_calls_request.spec_example.json",
            "ollama": "ollama_chat_tool_result_history_request.docs.json"}
#: Keys the double reads, and some it does not, to add where a mutation lands
KEYS = ["tools", "system", "thinking", "reasoning", "tool_choice", "temperature", "stop_sequences",
        "max_output_tokens", "max_tokens", "max_completion_tokens", "options", "think", "instructions",
        "store", "previous_response_id", "parallel_tool_calls", "output_config", "cache_control",
        "prompt_cache_key", "prompt_cache_retention", "prompt_cache_options", "reasoning_effort",
        "top_p", "top_k", "seed", "input", "messages", "content", "role", "type", "text", "name",
        "tool_calls", "function", "arguments", "call_id", "id", "input_schema", "parameters", "metadata"]
WORDS = ["user", "assistant", "system", "tool", "developer", "text", "tool_use", "tool_result",
         "function", "function_call", "function_call_output", "message", "reasoning", "auto", "none",
         "required", "any", "enabled", "adaptive", "object", "string", "get_weather", "high", "5m"]
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5000) | st.floats(-2, 2, allow_nan=False)
    | st.sampled_from(WORDS) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=2),
    max_leaves=4)


def paths(value: object, at: tuple = ()) -> list[tuple]:
    found = [at]
    if isinstance(value, dict):
        found += [p for key, item in value.items() for p in paths(item, (*at, key))]
    elif isinstance(value, list):
        found += [p for index, item in enumerate(value) for p in paths(item, (*at, index))]
    return found


@st.composite
def mutated(draw: st.DrawFn, api: str) -> dict:
    """A body of `api` with one to three changes: a value replaced, a key dropped or added."""
    seeds = [rich_body(api)] + ([fixture(RECORDED[api])] if api in RECORDED else [])
    body = copy.deepcopy(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.sampled_from(paths(body)))
        node = body
        for step in at[:-1]:
            node = node[step]
        target = node[at[-1]] if at else body
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if action == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(KEYS))] = draw(VALUES)
        elif action == "drop" and at and isinstance(node, dict):
            del node[at[-1]]
        elif at:
            node[at[-1]] = draw(VALUES)
    return body


#: What the Anthropic SDK's types leave to the API: sampling (gone from the 2.15 types, still
#: in the API reference), an input schema's type, which the API requires (recorded), and
#: a block's cache_control.
SDK_SILENT = ("temperature", "top_p", "top_k", "input_schema",
              "cache_control")  # the SDK's block union also holds response blocks, which drop it


def at(body: object, path: str) -> object:
    for step in path.split(".") if path else []:
        body = body[int(step)] if isinstance(body, list) else body[step]  # type: ignore[index]
    return body


def sdk_silent(body: dict, problem: object) -> bool:
    """Whether the SDK's types cannot say what the double says (the API can)."""
    if any(key in problem.path.split(".") for key in SDK_SILENT) or problem.text.startswith("messages: at"):
        return True
    # subtle: the SDK types its lists as Iterable[...], which a JSON object (its keys) satisfies
    return problem.text.endswith("Input should be a valid list") and isinstance(at(body, problem.path), dict)


@pytest.mark.parametrize("api", ["responses", "chat", "anthropic"])
@settings(max_examples=examples(60))
@given(data=st.data())
def test_the_shape_refuses_only_what_the_apis_own_schema_refuses(api, data):
    body = data.draw(mutated(api))
    problem = shape.first_problem(api, body)
    if problem is None:
        return
    if api == "anthropic":
        if sdk_silent(body, problem):
            return
        errors = [e for e in anthropic_request_errors(body) if not e.endswith("(dropped by the SDK type)")]
    else:
        if problem.text in ("Missing required parameter: 'model'.", "you must provide a model parameter"):
            return  # the spec leaves the model out of `required`; the live API does not
        root = "CreateResponse" if api == "responses" else "CreateChatCompletionRequest"
        errors = openapi_errors(body, root)
    assert errors, f"the double refused what the API's schema takes: {problem.text}"


# -- the property: every API, mutated bodies, over HTTP -------------------------------------------------
def obliging(transcript: object, tools: list) -> object:
    """A script that meets any tool_choice: it calls the first tool it may call, else answers.

    (The lessons' weather model answers a question without a city in words, which a forced
    tool_choice does not allow: the double's 500 then names the ScriptError, as it should,
    and that is the script's failure, not the body's.)
    """
    return call(tools[0].name) if tools else "Done."


@pytest.fixture(scope="module")
def serving():
    from toolcall_lab.double import ApiDouble

    for api in ENDPOINTS:  # subtle: the first check imports jsonschema, seconds on a busy machine
        shape.first_problem(api, {})
    with ApiDouble(obliging, keep=10) as double:
        yield double


@pytest.mark.parametrize("api", list(ENDPOINTS))
@settings(max_examples=examples(75))
@given(data=st.data())
def test_a_mutated_body_gets_a_200_or_the_apis_400_never_a_500(api, data, serving):
    body = data.draw(mutated(api))
    status, headers, raw = post_to(serving.port, api, body)  # a dropped connection raises here
    if status == 200 and headers["content-type"] != "application/json":  # it streamed (Ollama, unasked)
        assert body.get("stream", api == "ollama") and raw
    answer = json.loads(raw) if headers["content-type"] == "application/json" else None
    if status == 200:  # and never kinder than the kit's own checker (`wire.check`)
        assert shape.first_problem(api, body) is None and not codec(api).check_request(body)
        return
    # Ollama's own 500, for an option of the wrong type (see test_an_ollama_option_of_the_wrong_type...)
    ollamas_500 = api == "ollama" and status == 500 and answer["error"].startswith('option "')
    # OpenAI looks a replayed reasoning item up by id: with store false it has none, a 404 (recorded)
    openais_404 = (api == "responses" and status == 404
                   and answer["error"]["message"].startswith("Item with id"))
    assert status == 400 or ollamas_500 or openais_404, answer
    assert keys(answer) == keys(codec(api).error_body("any", status=status))
    assert headers["x-should-retry"] == "false"


@pytest.mark.slow
def test_the_doubles_first_shape_check_builds_no_format_grammar():
    # jsonschema's format checkers import rfc3987_syntax, whose lark grammars cost seconds of
    # CPU; the double checks no "format", so its first request must not load them (issue 20).
    # A body sure to fit needs no jsonschema at all (`shape.fits`, issue 30); one that is not
    # (a wrongly typed field) is read by jsonschema, still without the grammars.
    fits = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]})
    unsure = json.dumps({"model": "gpt-4o-mini", "messages": "Hi"})
    for body, status, loaded in ((fits, 200, "False"), (unsure, 400, "True")):
        code = (f"import sys\nfrom toolcall_lab.double import ApiDouble\nbody = {body.encode()!r}\n"
                f"assert ApiDouble().handle('POST', '/v1/chat/completions', body)[0] == {status}\n"
                "print('jsonschema' in sys.modules, 'rfc3987_syntax' in sys.modules, 'lark' in sys.modules)\n"
                "import rfc3987_syntax  # still importable by anyone who wants it\n")
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        assert out.stdout.split() == [loaded, "False", "False"], body


@pytest.mark.slow
def test_a_second_thread_waits_for_jsonschema_to_finish_importing():
    # The double's first request and a tool's first argument check may import jsonschema from
    # two threads at once: the second must get the whole module, never a half-imported one.
    code = """\
import sys, threading, time
from importlib.abc import MetaPathFinder

class Slow(MetaPathFinder):  # holds the first import inside jsonschema's own imports
    def find_spec(self, name, path, target=None):
        if name == "referencing":
            started.set()
            time.sleep(0.5)

started = threading.Event()
sys.meta_path.insert(0, Slow())
from toolcall_lab._jsonschema import import_jsonschema
first = threading.Thread(target=import_jsonschema)
first.start()
started.wait()
print(hasattr(import_jsonschema(), "Draft202012Validator"))
first.join()
"""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.split() == ["True"]
