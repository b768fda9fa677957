"""Local servers stream as their servers do, checked by the openai SDK's own stream helper.

Each Chat flavour of the double (`ApiDouble(flavour=...)`) plays its server's `Streaming`
record (`wire.flavours.restream`): Ollama /v1 sends each call whole in one chunk, vLLM
opens a call with its name alone and puts the finish reason on the last delta, llama.cpp
opens with `content: null`, LM Studio streams OpenAI's way (its bytes are not on record).
The openai SDK's `chat.completions.stream(...).get_final_completion()` must rebuild from
each the completion the same server answers unstreamed, but for the one difference the
server's own stream makes. Then the quirks of older builds, staged as data, show which
ones the SDK's accumulator survives and which break it. Ollama's native stream (whole
calls, NDJSON) is checked through the `ollama` client in `test_double_stream.py`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from toolcall_lab import call
from toolcall_lab.double import ApiDouble
from toolcall_lab.wire.flavours import FLAVOURS, Flavour

openai = pytest.importorskip("openai")

CHAT_FLAVOURS = [name for name, flavour in FLAVOURS.items() if flavour.api == "chat"]
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
QUESTION = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
SCRIPTS: dict[str, list[Any]] = {
    "text": ["It's 18°C and sunny in Paris, and Tōkyō is \"mild\"."],
    "tool": [call("get_weather", city="Paris")],
    "parallel": [["Checking both.", call("get_weather", city="Paris"), call("get_weather", city="Tōkyō")]],
}


def ask(flavour: Flavour, script: list[Any], streamed: bool, **options: Any) -> Any:
    """The completion a fresh double of `flavour` playing `script` answers, streamed through the
    SDK's helper or not."""
    request = dict(model=flavour.model, messages=QUESTION, tools=[WEATHER], parallel_tool_calls=True,
                   **options)
    with ApiDouble(list(script), flavour=flavour) as double:
        client = openai.OpenAI(base_url=double.base_url("chat"), api_key="local", max_retries=0)
        if not streamed:
            return client.chat.completions.create(**request)
        with client.chat.completions.stream(**request, stream_options={"include_usage": True}) as stream:
            return stream.get_final_completion()


def rebuilt(final: Any) -> dict[str, Any]:
    """The helper's completion without what only the helper adds (`parsed`, `parsed_arguments`,
    each call's stream `index`), and without `annotations` (`unstreamed`)."""
    dumped = final.model_dump()
    message = dumped["choices"][0]["message"]
    message.pop("parsed", None)
    message.pop("annotations", None)
    for made in message["tool_calls"] or []:
        made["function"].pop("parsed_arguments", None)
        made.pop("index", None)
    return dumped


def unstreamed(plain: Any) -> dict[str, Any]:
    """The unstreamed completion without `annotations` ([] there; no stream sends them)."""
    dumped = plain.model_dump()
    dumped["choices"][0]["message"].pop("annotations", None)
    return dumped


def chunks(flavour: Flavour, script: list[Any]) -> list[dict[str, Any]]:
    """The chunks the double streams for `script` as `flavour`, read off the wire."""
    with ApiDouble(list(script), flavour=flavour) as double:
        body = {"model": flavour.model, "messages": QUESTION, "tools": [WEATHER], "stream": True,
                "parallel_tool_calls": True}
        status, played, _ = double.handle("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status == 200
    lines = bytes(played).decode().split("\n\n")
    return [json.loads(line.removeprefix("data: ")) for line in lines if line and line != "data: [DONE]"]


def calls_in(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    return [made for choice in chunk["choices"] for made in choice["delta"].get("tool_calls") or []]


# -- today's servers: the helper rebuilds what the server answers unstreamed ------------------------
@pytest.mark.parametrize("case", SCRIPTS)
@pytest.mark.parametrize("name", CHAT_FLAVOURS)
def test_the_openai_stream_helper_rebuilds_each_servers_unstreamed_completion(name, case):
    flavour = FLAVOURS[name]
    plain = unstreamed(ask(flavour, SCRIPTS[case], streamed=False))
    final = ask(flavour, SCRIPTS[case], streamed=True)
    if name == "vllm" and plain["choices"][0]["message"]["content"] is None:
        # vLLM's first chunk is `content: ""` whatever follows (serving.py), so a reply that is only
        # calls comes back with '' where the unstreamed one has null: the server's, not the SDK's
        plain["choices"][0]["message"]["content"] = ""
    assert rebuilt(final) == plain
    assert final.usage is not None and final.usage.model_dump() == plain["usage"]


def test_ollama_v1_sends_each_call_whole_in_one_chunk_with_the_role_on_the_first():
    played = chunks(FLAVOURS["ollama-openai"], SCRIPTS["parallel"])
    with_calls = [chunk for chunk in played if calls_in(chunk)]
    assert [[made["index"] for made in calls_in(chunk)] for chunk in with_calls] == [[0], [1]]
    assert [json.loads(calls_in(chunk)[0]["function"]["arguments"]) for chunk in with_calls] == [
        {"city": "Paris"}, {"city": "Tōkyō"}]
    roles = [choice["delta"].get("role") for chunk in played for choice in chunk["choices"]]
    assert roles[0] == "assistant" and set(roles[1:]) == {None}
    assert played[0]["choices"][0]["delta"]["content"] == "Chec"  # no empty opening chunk


def test_vllm_opens_a_call_with_its_name_alone_and_finishes_on_the_last_delta():
    played = chunks(FLAVOURS["vllm"], SCRIPTS["tool"])
    assert played[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    opening = calls_in(played[1])[0]
    assert opening["function"] == {"name": "get_weather"} and opening["id"].startswith("chatcmpl-tool-")
    later = [made for chunk in played[2:] for made in calls_in(chunk)]
    assert later and all(set(made) == {"index", "function"} for made in later)
    last = [chunk for chunk in played if chunk["choices"]][-1]
    assert last["choices"][0]["finish_reason"] == "tool_calls" and calls_in(last)  # no empty chunk


def test_llamacpp_opens_with_null_content_and_sends_arguments_on_every_call_delta():
    played = chunks(FLAVOURS["llamacpp"], SCRIPTS["tool"])
    assert played[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}
    made = [each for chunk in played for each in calls_in(chunk)]
    assert made[0]["function"] == {"name": "get_weather", "arguments": ""}
    assert all("arguments" in each["function"] and "index" in each for each in made)
    assert [chunk["choices"][0]["delta"] for chunk in played if chunk["choices"]][-1] == {}


# -- older builds, staged as data: which quirks the SDK's accumulator survives ---------------------
def staged(name: str, **quirks: Any) -> Flavour:
    flavour = FLAVOURS[name]
    return replace(flavour, stream=replace(flavour.stream, **quirks))


def test_a_call_with_no_index_breaks_the_helper_as_ollama_before_0_4_7_did():
    """ollama/ollama#7881: "OpenAI-compatible API tool calls have no index ... breaks compatibility
    with the `client.beta.chat.completions.stream` helper"."""
    with pytest.raises((RuntimeError, TypeError)):
        ask(staged("ollama-openai", index="omitted"), SCRIPTS["tool"], streamed=True)


def test_ollama_v1_can_play_index_0_on_every_call_and_the_kits_decoder_still_finds_both_calls():
    """ollama/ollama#15457: via /v1/chat/completions "all tool call chunks have `index: 0` instead
    of incrementing indices (0, 1, 2...)" on some versions; the kit tells calls apart by their id."""
    from toolcall_lab import wire
    from toolcall_lab.wire.flavours import OLLAMA_OPENAI_INDEX_0

    played = chunks(OLLAMA_OPENAI_INDEX_0, SCRIPTS["parallel"])
    with_calls = [chunk for chunk in played if calls_in(chunk)]
    assert [[made["index"] for made in calls_in(chunk)] for chunk in with_calls] == [[0], [0]]
    assert len({calls_in(chunk)[0]["id"] for chunk in with_calls}) == 2
    turn = list(wire.decode_stream(played, api="chat"))[-1].turn
    assert [made.args for made in turn.tool_calls] == [{"city": "Paris"}, {"city": "Tōkyō"}]
    assert OLLAMA_OPENAI_INDEX_0.name == "ollama-openai" and "ollama#15457" in " ".join(
        FLAVOURS["ollama-openai"].notes)


def test_a_name_resent_on_every_delta_is_doubled_by_the_helper_as_llamacpp_before_13800():
    """ggml-org/llama.cpp#13774: the full name in every delta; the SDK joins strings."""
    final = ask(staged("llamacpp", resent=("name",)), SCRIPTS["tool"], streamed=True)
    name = final.choices[0].message.tool_calls[0].function.name
    assert name != "get_weather" and name == "get_weather" * (len(name) // len("get_weather"))


def test_an_id_resent_on_every_delta_is_joined_by_the_helper():
    """The same for ids (LiteLLM's repeated ids: openai/openai-agents-python PR #990)."""
    final = ask(staged("lmstudio", resent=("id",)), SCRIPTS["tool"], streamed=True)
    plain = ask(FLAVOURS["lmstudio"], SCRIPTS["tool"], streamed=False)
    made, sent = final.choices[0].message.tool_calls[0].id, plain.choices[0].message.tool_calls[0].id
    assert made != sent and made.startswith(sent + sent)


@pytest.mark.parametrize("quirks", [
    {"calls": "whole call in one chunk"}, {"finish": "with the last delta"}, {"empty_arguments": False},
    {"opening": "with the first piece"}, {"opening": {"role": "assistant", "content": None}},
    {"resent": ("type",)}], ids=str)
def test_the_helper_survives_these_quirks_on_any_server(quirks):
    flavour = staged("lmstudio", **quirks)
    plain = unstreamed(ask(FLAVOURS["lmstudio"], SCRIPTS["parallel"], streamed=False))
    assert rebuilt(ask(flavour, SCRIPTS["parallel"], streamed=True)) == plain


@pytest.mark.parametrize("name", CHAT_FLAVOURS)
def test_an_error_mid_stream_is_the_servers_error_body_and_the_helper_raises_it(name, make_double):
    double = make_double([call("get_weather", city="Paris")] * 2, flavour=name)
    double.fail_next("stream_error", after=2)
    client = openai.OpenAI(base_url=double.base_url("chat"), api_key="local", max_retries=0)
    with pytest.raises(openai.APIError, match="an error was encountered while running the model"):
        with client.chat.completions.stream(model=FLAVOURS[name].model, messages=QUESTION,
                                            tools=[WEATHER]) as stream:
            stream.get_final_completion()
    body = {"model": FLAVOURS[name].model, "messages": QUESTION, "stream": True}
    double.fail_next("stream_error", after=1)
    _, played, _ = double.handle("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert bytes(played).endswith(b"data: [DONE]\n\n") == (name == "vllm")


def test_ollamas_own_api_streams_unasked_each_call_whole_with_its_id_which_the_client_drops():
    ollama = pytest.importorskip("ollama")
    flavour = FLAVOURS["ollama"]
    request = dict(model=flavour.model, messages=QUESTION, tools=[WEATHER])
    with ApiDouble(list(SCRIPTS["parallel"]) * 3, flavour="ollama") as double:
        plain = ollama.Client(host=double.url).chat(**request, stream=False)
        parts = list(ollama.Client(host=double.url).chat(**request, stream=True))
        # no "stream" in the body: Ollama streams unless told not to
        _, played, _ = double.handle("POST", "/api/chat", json.dumps(request).encode())
    lines = [line for line in played.events if line["message"].get("tool_calls")]
    assert [len(line["message"]["tool_calls"]) for line in lines] == [1, 1]  # each call whole, alone
    sent = [made for line in lines for made in line["message"]["tool_calls"]]
    assert [made["function"]["arguments"] for made in sent] == [{"city": "Paris"}, {"city": "Tōkyō"}]
    assert all(made["id"].startswith("call_") for made in sent)  # the server mints ids (routes.go)
    joined = [made for part in parts for made in part.message.tool_calls or []]
    assert joined == list(plain.message.tool_calls)  # the client keeps name and arguments, drops the id
    assert "".join(part.message.content or "" for part in parts) == plain.message.content
