"""The double plays streams, checked by clients nobody here wrote.

Every API's official SDK accumulator (anthropic's `messages.stream(...).get_final_message()`,
openai's `responses.stream` and `chat.completions.stream` helpers, the `ollama` client with
`stream=True`) must rebuild, from the double's stream, exactly the message the same
double answers unstreamed: with text, a tool call, parallel calls, and thinking or
reasoning. Each pair of calls goes to two fresh doubles playing the same script, so ids
and usage agree. The kit's own stream decoders are not used here.

And the double's streams have the shapes of the recorded ones (`tests/fixtures/`, sources
in `SOURCES.md`): the same event types, in orders the recordings show, with the same
fields where they appear, except the few the double's unstreamed bodies leave out too,
each named below with why. So the double is never kinder or stranger than the API.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_lab import ReasoningBlock, call
from toolcall_lab.double import ApiDouble
from toolcall_lab.models import default_model
from toolcall_lab.tools import get_weather

FIXTURES = Path(__file__).parent / "fixtures"
QUESTION = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
SPEC = get_weather.spec()
SCRIPTS: dict[str, list[Any]] = {
    "text": ["It's 18°C and sunny in Paris — a lovely day 🌞, and Tōkyō is \"mild\"."],
    "tool": [call("get_weather", city="Paris")],
    "parallel": [["Checking both cities.", call("get_weather", city="Paris"),
                  call("get_weather", city="Tōkyō")]],
}
#: The script a reasoning reply plays: the double adds its own reasoning first where the API
#: reasons; Chat Completions never does, so there the script carries it (`reasoning_content`).
REASONING = [["Both, then.", call("get_weather", city="Paris"), call("get_weather", city="Tokyo")]]


def pair(script: list[Any], ask: Any) -> tuple[Any, Any]:
    """(what `ask(double, stream=False)` returns, what `ask(double, stream=True)` returns), each
    from a fresh double playing `script`."""
    answers = []
    for streamed in (False, True):
        with ApiDouble(list(script)) as double:
            answers.append(ask(double, streamed))
    return answers[0], answers[1]


def without(value: Any, *names: str) -> Any:
    """`value` (a model_dump) with the keys `names` taken out at every depth."""
    if isinstance(value, dict):
        return {key: without(item, *names) for key, item in value.items() if key not in names}
    if isinstance(value, list):
        return [without(item, *names) for item in value]
    return value


# -- the SDKs' accumulators rebuild the unstreamed message ---------------------------------------
@pytest.mark.parametrize("case", [*SCRIPTS, "thinking"])
def test_anthropics_accumulator_rebuilds_the_unstreamed_message_exactly(case):
    anthropic = pytest.importorskip("anthropic")
    tools = [{"name": SPEC["name"], "description": SPEC["description"], "input_schema": SPEC["input_schema"]}]
    options = {"thinking": {"type": "enabled", "budget_tokens": 2048}} if case == "thinking" else {}
    request = dict(model="claude-sonnet-4-5", max_tokens=4096, messages=QUESTION, tools=tools, **options)

    def ask(double: ApiDouble, streamed: bool) -> Any:
        client = anthropic.Anthropic(base_url=double.base_url("anthropic"), api_key="-", max_retries=0)
        if not streamed:
            return client.messages.create(**request)
        with client.messages.stream(**request) as stream:
            return stream.get_final_message()

    plain, rebuilt = pair(REASONING if case == "thinking" else SCRIPTS[case], ask)
    assert rebuilt.model_dump() == plain.model_dump()
    if case == "thinking":
        assert [block.type for block in rebuilt.content] == ["thinking", "text", "tool_use", "tool_use"]
        assert rebuilt.content[0].signature == plain.content[0].signature != ""


@pytest.mark.parametrize("case", [*SCRIPTS, "reasoning"])
def test_openais_responses_helper_returns_the_unstreamed_response_and_its_deltas_build_it(case):
    openai = pytest.importorskip("openai")
    tools = [{"type": "function", "name": SPEC["name"], "description": SPEC["description"],
              "parameters": SPEC["input_schema"]}]
    # gpt-4o-mini does not reason; the default OpenAI model reasons at its default effort
    model = default_model("openai") if case == "reasoning" else "gpt-4o-mini"
    request = dict(model=model, input=QUESTION, tools=tools)

    def ask(double: ApiDouble, streamed: bool) -> Any:
        client = openai.OpenAI(base_url=double.base_url("responses"), api_key="-", max_retries=0)
        if not streamed:
            return client.responses.create(**request)
        with client.responses.stream(**request) as stream:
            return list(stream), stream.get_final_response()

    plain, (events, final) = pair(REASONING if case == "reasoning" else SCRIPTS[case], ask)
    # the helper's Parsed* types add `parsed` and `parsed_arguments` (None here): not the wire's
    assert without(final.model_dump(), "parsed", "parsed_arguments") == plain.model_dump()
    built: dict[tuple[Any, ...], str] = {}  # what the deltas build, item by item (the helper's snapshots)
    for event in events:
        if event.type == "response.output_text.delta":
            built[event.output_index, event.content_index] = event.snapshot
        elif event.type == "response.function_call_arguments.delta":
            built[event.output_index,] = event.snapshot
        elif event.type == "response.reasoning_summary_text.delta":
            where = (event.output_index, "summary", event.summary_index)
            built[where] = built.get(where, "") + event.delta
    expected: dict[tuple[Any, ...], str] = {}
    for index, item in enumerate(plain.output):
        if item.type == "message":
            expected.update({(index, number): part.text for number, part in enumerate(item.content)})
        elif item.type == "function_call":
            expected[index,] = item.arguments
        elif item.type == "reasoning":
            expected.update({(index, "summary", number): part.text
                             for number, part in enumerate(item.summary)})
    assert built == expected
    if case == "reasoning":
        assert [item.type for item in final.output] == ["reasoning", "message", *["function_call"] * 2]


@pytest.mark.parametrize("case", [*SCRIPTS, "reasoning"])
def test_openais_chat_helper_rebuilds_the_unstreamed_completion(case):
    openai = pytest.importorskip("openai")
    tools = [{"type": "function", "function": {"name": SPEC["name"], "description": SPEC["description"],
                                               "parameters": SPEC["input_schema"]}}]
    request = dict(model="gpt-4o-mini", messages=QUESTION, tools=tools)
    thought = ReasoningBlock("Paris first, then Tokyo.")
    script = [[thought, *REASONING[0]]] if case == "reasoning" else SCRIPTS[case]

    def ask(double: ApiDouble, streamed: bool) -> Any:
        client = openai.OpenAI(base_url=double.base_url("chat"), api_key="-", max_retries=0)
        if not streamed:
            return client.chat.completions.create(**request)
        with client.chat.completions.stream(**request, stream_options={"include_usage": True}) as stream:
            return stream.get_final_completion()

    plain, final = pair(script, ask)
    # Left out on both sides: the helper's own `parsed`, `parsed_arguments` and the calls' `index`
    # (the stream's, kept by the helper), and `annotations`, which the unstreamed message carries
    # ([]) and the API's stream never sends (every recorded stream).
    rebuilt = without(final.model_dump(), "parsed", "parsed_arguments", "annotations")
    for made in rebuilt["choices"][0]["message"]["tool_calls"] or []:
        del made["index"]
    assert rebuilt == without(plain.model_dump(), "annotations")
    assert final.usage is not None and final.usage == plain.usage
    if case == "reasoning":
        assert final.choices[0].message.model_dump()["reasoning_content"] == "Paris first, then Tokyo."


@pytest.mark.parametrize("case", [*SCRIPTS, "thinking"])
def test_the_ollama_clients_stream_joins_back_to_the_unstreamed_reply(case):
    ollama = pytest.importorskip("ollama")
    tools = [{"type": "function", "function": {"name": SPEC["name"], "description": SPEC["description"],
                                               "parameters": SPEC["input_schema"]}}]
    request = dict(model="qwen3:4b", messages=QUESTION, tools=tools, think=case == "thinking")

    def ask(double: ApiDouble, streamed: bool) -> Any:
        answer = ollama.Client(host=double.url).chat(**request, stream=streamed)
        return list(answer) if streamed else answer

    plain, parts = pair(REASONING if case == "thinking" else SCRIPTS[case], ask)
    # the client has no accumulator: join as Ollama's tool-calling docs show
    # ("gather every chunk of thinking, content, and tool_calls")
    last = parts[-1].model_dump()
    joined = {**last["message"], "content": "".join(part.message.content or "" for part in parts),
              "thinking": "".join(part.message.thinking or "" for part in parts) or None,
              "tool_calls": [made.model_dump() for part in parts
                             for made in part.message.tool_calls or []] or None}
    assert {**last, "message": joined} == plain.model_dump()
    assert [part.done for part in parts] == [False] * (len(parts) - 1) + [True]


# -- the double's streams have the recorded shapes -------------------------------------------------
def recorded(name: str) -> list[dict[str, Any]]:
    """The events of a recorded stream: each SSE event's data JSON, or each NDJSON line."""
    text = (FIXTURES / name).read_text()
    if name.endswith(".ndjson"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    events = []
    for block in text.split("\n\n"):
        data = [line[5:].strip() for line in block.splitlines() if line.startswith("data:")]
        if data and data[0] != "[DONE]":
            events.append(json.loads("\n".join(data)))
    return events


def played(api: str, script: list[Any], ask: dict[str, Any]) -> tuple[list[dict[str, Any]], bytes]:
    """(the raw events, the bytes) the double streams for `ask`, decoded from its own bytes."""
    from toolcall_lab.wire import ENDPOINTS

    with ApiDouble(list(script)) as double:
        status, body, _ = double.handle("POST", ENDPOINTS[api], json.dumps({**ask, "stream": True}).encode())
    assert status == 200
    return list(body.events), bytes(body)


def chat_kind(chunk: dict[str, Any]) -> str:
    """What a Chat chunk carries, as one word (Chat chunks have no type of their own)."""
    if not chunk["choices"]:
        return "usage"
    choice = chunk["choices"][0]
    delta = choice["delta"]
    if choice["finish_reason"]:
        return "finish"
    if "role" in delta:
        return "opening"
    if "tool_calls" in delta:
        return "call opens" if "id" in delta["tool_calls"][0] else "call arguments"
    return "text"


def ollama_kind(line: dict[str, Any]) -> str:
    return "done" if line["done"] else "tool_calls" if line["message"].get("tool_calls") else "text"


def kinds(api: str, events: list[dict[str, Any]]) -> list[str]:
    if api == "chat":
        return [chat_kind(event) for event in events]
    if api == "ollama":
        return [ollama_kind(event) for event in events]
    return [event["type"] + (f".{event['item']['type']}" if "item" in event else "") for event in events]


def steps(kinds: list[str]) -> set[tuple[str, str]]:
    """Each change from one kind of event to the next (a run of deltas is one step: the docs'
    examples elide most of theirs)."""
    runs = [kind for at, kind in enumerate(kinds) if at == 0 or kinds[at - 1] != kind]
    return set(zip(runs, runs[1:], strict=False))


def paths(value: Any, at: str = "") -> set[str]:
    """Every key path in a JSON value (`delta.partial_json`, `choices[].delta.content`)."""
    if isinstance(value, dict):
        return {f"{at}{key}" for key in value} | {p for key, item in value.items()
                                                   for p in paths(item, f"{at}{key}.")}
    if isinstance(value, list):
        return {p for item in value for p in paths(item, f"{at[:-1]}[].")}
    return set()


def fields(api: str, events: list[dict[str, Any]], skip: tuple[str, ...]) -> dict[str, set[str]]:
    """kind of event -> the key paths its events carry, leaving out the subtrees `skip`."""
    found: dict[str, set[str]] = {}
    for kind, event in zip(kinds(api, events), events, strict=True):
        found.setdefault(kind, set()).update(p for p in paths(event) if not p.startswith(skip))
    return found


# Each case: the recorded stream, the double's request and script, the subtrees compared with the
# double's own unstreamed body instead (the response object a lifecycle event carries is that body,
# whose fields the non-streaming tests hold to the API's), and the fields each side may lack or add:
# what the double's unstreamed bodies leave out (or add) too, or what no client reads.
CHAT_TOOLS = [{"type": "function", "function": {"name": SPEC["name"], "parameters": SPEC["input_schema"]}}]
RESPONSES_TOOLS = [{"type": "function", "name": SPEC["name"], "parameters": SPEC["input_schema"]}]
ANTHROPIC_TOOLS = [{"name": SPEC["name"], "input_schema": SPEC["input_schema"]}]
ANTHROPIC_LEFT_OUT = {
    # the 2026 usage fields the double's bodies do not write (no cache writes, no tiers, no regions)
    "message.usage.cache_creation", "message.usage.cache_creation.ephemeral_5m_input_tokens",
    "message.usage.cache_creation.ephemeral_1h_input_tokens", "message.usage.service_tier",
    "message.usage.inference_geo",
    "content_block.caller", "content_block.caller.type"}  # a direct call's caller: the bodies omit it
OPENAI_RANDOM = {"obfuscation"}  # random characters on each chunk or delta: no client reads them
SHAPES = [
    ("anthropic", "anthropic_messages_text_stream.sdk_recorded.sse", SCRIPTS["text"],
     {"model": "claude-haiku-4-5", "max_tokens": 256, "messages": QUESTION}, ("message.",),
     ANTHROPIC_LEFT_OUT, set()),
    ("anthropic", "anthropic_messages_tool_use_stream.sdk_recorded.sse", SCRIPTS["tool"],
     {"model": "claude-haiku-4-5", "max_tokens": 256, "messages": QUESTION, "tools": ANTHROPIC_TOOLS},
     ("message.",), ANTHROPIC_LEFT_OUT, set()),
    ("responses", "openai_responses_text_stream.dotnet_recorded.sse", SCRIPTS["text"],
     {"model": "gpt-4o-mini", "input": QUESTION}, ("response.",), OPENAI_RANDOM, set()),
    ("responses", "openai_responses_function_call_stream.dotnet_recorded.sse", SCRIPTS["tool"],
     {"model": "gpt-4o-mini", "input": QUESTION, "tools": RESPONSES_TOOLS}, ("response.",), OPENAI_RANDOM,
     set()),
    # the double seals every reasoning item it writes (its unstreamed body carries the same)
    ("responses", "openai_responses_reasoning_summary_stream.dotnet_recorded.sse", ["Here is a plan."],
     {"model": default_model("openai"), "input": QUESTION}, ("response.",), OPENAI_RANDOM,
     {"item.encrypted_content"}),
    # A 2024 recording: `system_fingerprint` (deprecated, and the bodies carry none), and a usage
    # chunk (the request it answered is not kept: it must have asked for one). Its sibling with one
    # call (openai_chat_tool_call_stream) opens the call in the first chunk, beside the role; this
    # one opens each call in a chunk of its own, as the double does. Asked for usage, the double
    # puts `usage: null` on every other chunk, as the spec says and the 2026 recording below shows,
    # and its usage has the `prompt_tokens_details` the 2026 one has.
    ("chat", "openai_chat_parallel_tool_calls_stream.openai_python_recorded.sse", [
        [call("get_weather", city="Paris"), call("get_weather", city="Tokyo")]],
     {"model": "gpt-4o-mini", "messages": QUESTION, "tools": CHAT_TOOLS,
      "stream_options": {"include_usage": True}}, (), {"system_fingerprint"},
     {"usage", "usage.prompt_tokens_details", "usage.prompt_tokens_details.cached_tokens"}),
    ("chat", "openai_chat_text_include_usage_stream.dotnet_recorded.sse", SCRIPTS["text"],
     {"model": "gpt-4o-mini", "messages": QUESTION, "stream_options": {"include_usage": True}}, (),
     {"system_fingerprint", "service_tier", *OPENAI_RANDOM,
      # the usage details of fields the double's bodies do not count (audio, predictions)
      "usage.prompt_tokens_details.audio_tokens", "usage.completion_tokens_details.audio_tokens",
      "usage.completion_tokens_details.accepted_prediction_tokens",
      "usage.completion_tokens_details.rejected_prediction_tokens"}, set()),
    # the 2023 docs example: `images: null` on each message, which current servers omit when empty,
    # and no `done_reason` at the end, which they send (the 2025 example below has it)
    ("ollama", "ollama_chat_text_stream.docs.ndjson", SCRIPTS["text"],
     {"model": "qwen3:4b", "messages": QUESTION}, (), {"message.images"}, {"done_reason"}),
    ("ollama", "ollama_chat_tool_calls_stream.docs.ndjson", SCRIPTS["tool"],
     {"model": "qwen3:4b", "messages": QUESTION, "tools": CHAT_TOOLS}, (), set(), set()),
]


@pytest.mark.parametrize(("api", "fixture", "script", "ask", "skip", "left_out", "added"), SHAPES,
                         ids=[case[1].split(".")[0] for case in SHAPES])
def test_the_doubles_stream_has_the_recorded_streams_shape(api, fixture, script, ask, skip, left_out, added):
    theirs, (ours, _) = recorded(fixture), played(api, script, ask)
    # the same kinds of event, starting and ending alike, each step one the recording takes too
    assert set(kinds(api, ours)) == set(kinds(api, theirs))
    assert kinds(api, ours)[0] == kinds(api, theirs)[0] and kinds(api, ours)[-1] == kinds(api, theirs)[-1]
    assert steps(kinds(api, ours)) <= steps(kinds(api, theirs))
    # the same fields, event by event
    for kind, recorded_fields in fields(api, theirs, skip).items():
        our_fields = fields(api, ours, skip)[kind]
        assert recorded_fields - our_fields <= left_out, (kind, recorded_fields - our_fields)
        assert our_fields - recorded_fields <= added, (kind, our_fields - recorded_fields)


@pytest.mark.parametrize(("api", "ask", "subtree"), [
    ("anthropic", {"model": "claude-haiku-4-5", "max_tokens": 256, "messages": QUESTION}, "message"),
    ("responses", {"model": "gpt-4o-mini", "input": QUESTION}, "response")])
def test_a_lifecycle_event_carries_the_unstreamed_body_with_its_fields(api, ask, subtree):
    from toolcall_lab.wire import ENDPOINTS

    with ApiDouble(SCRIPTS["text"]) as double:
        plain = json.loads(double.handle("POST", ENDPOINTS[api], json.dumps(ask).encode())[1])
    ours, _ = played(api, SCRIPTS["text"], ask)
    assert ours[0][subtree].keys() == plain.keys()
    if api == "responses":  # and the terminal event is the body itself
        assert ours[-1]["response"] == plain
