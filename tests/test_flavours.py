"""Server flavours of the API double: each local server's documented quirks, through its real client.

Every quirk in `wire.flavours.FLAVOURS` is shown here by a request sent with the
`openai` SDK (the /v1 servers) or the `ollama` client (Ollama's own API) to
`ApiDouble(flavour=...)`; the presets of `LOCAL_SERVERS` send what their flavour reads;
`wire.check(..., server=...)` warns about what a server ignores; and the default double
(no flavour) answers as it always has.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from toolcall_lab import Message, Transcript, get_provider, run_agent, wire
from toolcall_lab.errors import UsageError
from toolcall_lab.providers.openai_chat import LOCAL_SERVERS
from toolcall_lab.tools import get_weather
from toolcall_lab.wire.flavoured import ignored
from toolcall_lab.wire.flavours import FLAVOURS, Flavour, Streaming, flavour_of

openai = pytest.importorskip("openai")

CHAT_FLAVOURS = [name for name, flavour in FLAVOURS.items() if flavour.api == "chat"]
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Local time in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
PARIS = [{"role": "user", "content": "What's the weather in Paris?"}]
TWO_CITIES = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
CHAT = [{"role": "user", "content": "Tell me about the sea."}]  # the weather model asks back: 10 tokens


def named(tool: str) -> dict[str, object]:
    return {"type": "function", "function": {"name": tool}}


@pytest.fixture
def client_for(make_double):
    """`client_for("vllm")`: an `openai.OpenAI` client on a double of that flavour, and the double."""
    def make(flavour: str, policy=None):
        double = make_double(policy, flavour=flavour)
        return openai.OpenAI(base_url=double.base_url("chat"), api_key="local", max_retries=0), double
    return make


def ask(client, flavour: str, **request):
    """One chat request with the flavour's model; the reply, or the `APIStatusError` it raised."""
    request.setdefault("model", FLAVOURS[flavour].model)
    try:
        return client.chat.completions.create(**request)
    except openai.APIStatusError as exc:
        return exc


def names_called(reply) -> list[str]:
    return [call.function.name for call in reply.choices[0].message.tool_calls or []]


# -- the data ----------------------------------------------------------------------------------------
def test_every_quirk_has_a_public_source():
    """Every field of a record is a fact with its page, but its name and labels; `refuses` and
    `named_finish` have one where they are set (their default is "nothing of the kind")."""
    always = {field.name for field in dataclasses.fields(Flavour)} - {
        "name", "title", "api", "label", "notes", "sources", "stream", "refuses", "named_finish"}
    always |= {f"stream.{field.name}" for field in dataclasses.fields(Streaming)}
    for flavour in FLAVOURS.values():
        optional = {name for name in ("refuses", "named_finish") if flavour.fact(name)}
        assert set(flavour.sources) == always | optional, flavour.name
        assert all(source.startswith("https://") and "shared/" not in source
                   for source in flavour.sources.values()), flavour.name


def test_one_table_of_local_servers_and_the_rest_read_from_it():
    """Issue 20: the presets, the registry's local names and the Ollama provider's URL and start
    commands are the records of `FLAVOURS`, not four tables held together by this test."""
    from toolcall_lab.providers.ollama import OllamaProvider
    from toolcall_lab.providers.registry import PROVIDERS

    assert all(LOCAL_SERVERS[name] is FLAVOURS[name] for name in LOCAL_SERVERS)
    assert {name for name, spec in PROVIDERS.items() if spec.local_url} == set(FLAVOURS)
    for name, flavour in FLAVOURS.items():
        assert (PROVIDERS[name].label, PROVIDERS[name].local_url) == (flavour.label, flavour.base_url)
        assert PROVIDERS[name].api == flavour.api
    assert OllamaProvider.default_base_url == FLAVOURS["ollama"].base_url
    assert OllamaProvider(model="m").start_hint.startswith("start Ollama with `ollama serve` (and fetch the "
                                                           "model once with `ollama pull m`)")


def test_each_chat_flavour_is_a_preset_of_the_client():
    assert set(CHAT_FLAVOURS) == set(LOCAL_SERVERS)
    assert FLAVOURS["ollama"].api == "ollama"
    with pytest.raises(UsageError, match="no server flavour called 'vlm'"):
        flavour_of("vlm")



def test_a_sixth_server_is_one_record(make_double):
    """Issue 30: the play reads the record, never a server's name, so a server the kit has never
    heard of (its own name, error shape, ids, refusals, finish reason and default model) is
    played right by the double with no code change."""
    from toolcall_lab.wire.flavours import ErrorShape, Ids, Refused

    sixth = Flavour(
        "sixth", "A sixth server", "chat", label="Sixth (local)", base_url="http://localhost:9999/v1",
        start=("sixth serve {model}",), model="sixth-model-1", max_tokens_field="max_tokens",
        limit_fields=("max_tokens",), tool_choice=("auto", "none", "required"), named_choice="honoured",
        parallel=None, parallel_honoured=True,
        ids=Ids("letters", 12, prefix="tool-", alphabet="0123456789abcdef"),
        arguments="string", error_shape=ErrorShape(("type", "message", "code"), {404: "model_missing"},
                                                   "bad_request", code="status"),
        unknown_model=Refused("unknown model", "no model {model} here (try {default})", status=404),
        refuses=(Refused("stream_options without stream", "stream_options needs stream"),),
        named_finish="stop")
    double = make_double(flavour=sixth)
    client = openai.OpenAI(base_url=double.base_url("chat"), api_key="local", max_retries=0)
    assert [model.id for model in client.models.list()] == ["sixth-model-1"]

    missing = ask(client, "vllm", model="gpt-x", messages=PARIS)
    assert (missing.status_code, missing.body) == (404, {  # the openai SDK's body is what is under "error"
        "type": "model_missing", "message": "no model gpt-x here (try sixth-model-1)", "code": 404})
    refused = ask(client, "vllm", model="sixth-model-1", messages=PARIS,
                  stream_options={"include_usage": True})
    assert (refused.status_code, refused.body) == (400, {
        "type": "bad_request", "message": "stream_options needs stream", "code": 400})

    held = ask(client, "vllm", model="sixth-model-1", messages=PARIS, tools=[WEATHER],
               tool_choice=named("get_weather"))
    assert held.choices[0].finish_reason == "stop"
    assert [re.fullmatch(r"tool-[0-9a-f]{12}", call.id) is not None
            for call in held.choices[0].message.tool_calls] == [True]


# -- the client's presets send what their server reads ------------------------------------------------
@pytest.mark.parametrize("preset", sorted(LOCAL_SERVERS))
def test_each_preset_sends_the_limit_its_flavour_reads(preset, make_double):
    flavour = FLAVOURS[preset]
    double = make_double(flavour=preset)
    provider = get_provider(preset, base_url=double.base_url("chat"), max_tokens=5)
    transcript = Transcript(messages=[Message.user("Tell me about the sea.")])
    turn = provider.complete(transcript, tools=[get_weather])
    body = double.requests[-1].body
    assert flavour.reads_limit(LOCAL_SERVERS[preset].max_tokens_field)
    assert ignored(flavour, body) == []                  # nothing the preset sends is dropped
    assert turn.stop_reason.value == "max_tokens"        # the limit it sent was read
    assert turn.usage.output_tokens == 5


def test_the_ollama_provider_sends_the_limit_native_ollama_reads(make_double):
    pytest.importorskip("ollama")
    double = make_double(flavour="ollama")
    provider = get_provider("ollama", base_url=double.base_url("ollama"), max_tokens=5)
    turn = provider.complete(Transcript(messages=[Message.user("Tell me about the sea.")]))
    assert double.requests[-1].body["options"] == {"num_predict": 5}
    assert turn.stop_reason.value == "max_tokens"


@pytest.mark.parametrize("preset", sorted(LOCAL_SERVERS))
def test_a_weather_run_completes_through_each_preset(preset, make_double):
    double = make_double(flavour=preset)
    provider = get_provider(preset, base_url=double.base_url("chat"))
    run = run_agent(provider, "What's the weather in Paris and Tokyo?", tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris. It's 22°C and cloudy in Tokyo."
    # llama.cpp makes one call per reply unless asked: the preset asks, so one reply has both
    assert len(run.transcript.messages[1].tool_calls) == 2


# -- which output-limit field each server reads ------------------------------------------------------
@pytest.mark.parametrize(("flavour", "field", "finish"), [
    ("ollama-openai", "max_tokens", "length"), ("ollama-openai", "max_completion_tokens", "stop"),
    ("vllm", "max_tokens", "length"), ("vllm", "max_completion_tokens", "length"),
    ("llamacpp", "max_tokens", "length"), ("llamacpp", "max_completion_tokens", "length"),
    ("lmstudio", "max_tokens", "length"), ("lmstudio", "max_completion_tokens", "stop"),
])
def test_which_max_tokens_field_is_honoured(client_for, flavour, field, finish):
    client, _ = client_for(flavour)
    reply = ask(client, flavour, messages=CHAT, **{field: 3})
    assert reply.choices[0].finish_reason == finish
    if finish == "length":  # cut at the limit: 3 tokens, 12 characters
        assert reply.choices[0].message.content == "Which city w"
        assert reply.usage.completion_tokens == 3
    else:
        assert reply.choices[0].message.content == "Which city would you like the weather for?"


def test_native_ollama_reads_num_predict_through_the_ollama_client(make_double):
    ollama = pytest.importorskip("ollama")
    double = make_double(flavour="ollama")
    client = ollama.Client(host=double.url)
    reply = client.chat(model="qwen3:4b", messages=CHAT, options={"num_predict": 3}, stream=False)
    assert (reply.done_reason, reply.message.content, reply.eval_count) == ("length", "Which city w", 3)


# -- tool_choice -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("flavour", "called"), [
    ("ollama-openai", ["get_weather"]), ("vllm", []), ("llamacpp", []), ("lmstudio", [])])
def test_tool_choice_none(client_for, flavour, called):
    client, _ = client_for(flavour)
    reply = ask(client, flavour, messages=PARIS, tools=[WEATHER], tool_choice="none")
    assert names_called(reply) == called  # Ollama /v1 drops tool_choice: the model calls anyway


@pytest.mark.parametrize(("flavour", "held"), [
    ("ollama-openai", None), ("vllm", "required"), ("llamacpp", "required"), ("lmstudio", "required")])
def test_tool_choice_required_is_what_the_model_is_held_to(client_for, flavour, held):
    client, double = client_for(flavour)
    ask(client, flavour, messages=PARIS, tools=[WEATHER], tool_choice="required")
    assert double.held_to[0] == held


def test_required_does_not_force_a_call_on_ollama_openai(client_for):
    client, _ = client_for("ollama-openai")
    reply = ask(client, "ollama-openai", messages=CHAT, tools=[WEATHER], tool_choice="required")
    assert names_called(reply) == []  # ollama/ollama#8421: "required" does not force a call
    assert reply.choices[0].message.content == "Which city would you like the weather for?"


def _time_too(transcript, tools):
    """The weather model, which calls get_time when that is all it may call."""
    from toolcall_lab.examples import weather_policy
    from toolcall_lab.providers.scripted import call

    return call("get_time", city="Paris") if [t.name for t in tools] == ["get_time"] else \
        weather_policy(transcript, tools)


@pytest.mark.parametrize(("flavour", "called", "finish"), [
    ("ollama-openai", ["get_weather"], "tool_calls"),   # ignored
    ("vllm", ["get_time"], "stop"),                     # honoured, and ends with "stop" (vllm#25054)
    ("llamacpp", ["get_weather"], "tool_calls"),        # falls back to auto (llama.cpp#26535)
])
def test_a_named_tool_choice(client_for, flavour, called, finish):
    client, _ = client_for(flavour, _time_too)
    reply = ask(client, flavour, messages=PARIS, tools=[WEATHER, TIME], tool_choice=named("get_time"))
    assert names_called(reply) == called
    assert reply.choices[0].finish_reason == finish


def test_lmstudio_refuses_a_named_tool_choice_with_a_bare_string(client_for):
    client, _ = client_for("lmstudio", _time_too)
    error = ask(client, "lmstudio", messages=PARIS, tools=[WEATHER, TIME], tool_choice=named("get_time"))
    assert error.status_code == 400
    assert error.response.json() == {"error": "Invalid tool_choice type: 'object'. Supported string values: "
                                              "none, auto, required"}


def test_llamacpp_refuses_a_tool_choice_it_does_not_know(client_for):
    client, _ = client_for("llamacpp")
    error = ask(client, "llamacpp", messages=PARIS, tools=[WEATHER], tool_choice="sometimes")
    assert error.status_code == 400
    assert error.response.json() == {"error": {"code": 400, "message": "Invalid tool_choice: sometimes",
                                               "type": "invalid_request_error"}}


# -- parallel calls ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("flavour", "unsent", "false"), [
    ("ollama-openai", 2, 2),   # not a field: the model decides
    ("vllm", 2, 1),            # on unless false
    ("llamacpp", 1, 1),        # off unless true
    ("lmstudio", 2, 1),
])
def test_parallel_tool_calls(client_for, flavour, unsent, false):
    client, _ = client_for(flavour)
    assert len(names_called(ask(client, flavour, messages=TWO_CITIES, tools=[WEATHER]))) == unsent
    reply = ask(client, flavour, messages=TWO_CITIES, tools=[WEATHER], parallel_tool_calls=False)
    assert len(names_called(reply)) == false


def test_llamacpp_makes_parallel_calls_when_asked(client_for):
    client, _ = client_for("llamacpp")
    reply = ask(client, "llamacpp", messages=TWO_CITIES, tools=[WEATHER], parallel_tool_calls=True)
    assert names_called(reply) == ["get_weather", "get_weather"]


# -- ids and arguments -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("flavour", "pattern"), [
    ("ollama-openai", r"call_[a-z0-9]{8}"), ("vllm", r"chatcmpl-tool-[0-9a-f]{32}"),
    ("llamacpp", r"[A-Za-z0-9]{32}"), ("lmstudio", r"[1-9][0-9]{8}")])
def test_tool_call_ids_and_string_arguments(client_for, flavour, pattern):
    client, _ = client_for(flavour)
    first = ask(client, flavour, messages=TWO_CITIES, tools=[WEATHER], parallel_tool_calls=True)
    calls = first.choices[0].message.tool_calls
    assert all(re.fullmatch(pattern, call.id) for call in calls)
    assert len({call.id for call in calls}) == len(calls)
    assert isinstance(calls[0].function.arguments, str)
    assert json.loads(calls[0].function.arguments) == {"city": "Paris"}
    # the same double on a new run spells the same ids: nothing random reaches a notebook
    again, _ = client_for(flavour)
    second = ask(again, flavour, messages=TWO_CITIES, tools=[WEATHER], parallel_tool_calls=True)
    assert [c.id for c in second.choices[0].message.tool_calls] == [c.id for c in calls]


def test_native_ollama_sends_object_arguments_and_an_id_its_client_drops(make_double):
    ollama = pytest.importorskip("ollama")
    double = make_double(flavour="ollama")
    client = ollama.Client(host=double.url)
    reply = client.chat(model="qwen3:4b", messages=PARIS, tools=[WEATHER], stream=False)
    call = reply.message.tool_calls[0]
    assert call.function.arguments == {"city": "Paris"}        # an object, not a JSON string
    assert not hasattr(call, "id")                             # the client's ToolCall has no id field
    status, raw, _ = double.handle("POST", "/api/chat", json.dumps(
        {"model": "qwen3:4b", "stream": False, "messages": PARIS, "tools": [WEATHER]}).encode())
    assert status == 200
    assert re.fullmatch(r"call_[a-z0-9]{8}", json.loads(raw)["message"]["tool_calls"][0]["id"])


# -- unknown models and error shapes ---------------------------------------------------------------------
@pytest.mark.parametrize(("flavour", "status", "body"), [
    ("ollama-openai", 404, {"error": {"message": "model 'nope' not found", "type": "not_found_error",
                                      "param": None, "code": None}}),
    ("vllm", 404, {"error": {"message": "The model `nope` does not exist.", "type": "NotFoundError",
                             "param": None, "code": 404}}),
    ("lmstudio", 400, {"error": {"message": 'Invalid model identifier "nope". Please specify a valid '
                                            "downloaded model (e.g., qwen2.5-7b-instruct).",
                                 "type": "invalid_request_error", "param": "model",
                                 "code": "model_not_found"}}),
])
def test_an_unknown_model(client_for, flavour, status, body):
    client, _ = client_for(flavour)
    error = ask(client, flavour, model="nope", messages=CHAT)
    assert isinstance(error, openai.APIStatusError)
    assert (error.status_code, error.response.json()) == (status, body)


def test_llamacpp_ignores_the_model_name(client_for):
    client, _ = client_for("llamacpp")
    reply = ask(client, "llamacpp", model="gpt-3.5-turbo", messages=CHAT)
    assert reply.choices[0].message.content == "Which city would you like the weather for?"


def test_native_ollama_unknown_model_through_the_ollama_client(make_double):
    ollama = pytest.importorskip("ollama")
    double = make_double(flavour="ollama")
    with pytest.raises(ollama.ResponseError) as caught:
        ollama.Client(host=double.url).chat(model="nope", messages=CHAT, stream=False)
    assert (caught.value.status_code, caught.value.error) == (404, "model 'nope' not found")


@pytest.mark.parametrize(("flavour", "error"), [
    ("ollama-openai", {"message": "Invalid type for 'messages': expected an array of objects, but got "
                                  "an integer instead.",
                       "type": "invalid_request_error", "param": None, "code": None}),
    ("vllm", {"message": "Invalid type for 'messages': expected an array of objects, but got an integer "
                         "instead.",
              "type": "BadRequestError", "param": "messages", "code": 400}),
    ("llamacpp", {"code": 400, "message": "Invalid type for 'messages': expected an array of objects, "
                                          "but got an integer instead.", "type": "invalid_request_error"}),
])
def test_a_bad_request_in_each_servers_error_shape(client_for, flavour, error):
    import httpx

    client, _ = client_for(flavour)
    with pytest.raises(openai.BadRequestError) as caught:
        client.post("/chat/completions", body={"model": FLAVOURS[flavour].model, "messages": 5},
                    cast_to=httpx.Response)
    assert caught.value.response.json() == {"error": error}


def test_ollama_openai_refuses_arguments_that_are_not_json(client_for):
    client, _ = client_for("ollama-openai")
    history = [*PARIS, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"}]
    error = ask(client, "ollama-openai", messages=history, tools=[WEATHER])
    assert error.status_code == 400
    assert error.response.json()["error"]["message"] == "invalid tool call arguments"


def test_vllm_refuses_stream_options_without_stream(client_for):
    client, _ = client_for("vllm")
    error = ask(client, "vllm", messages=CHAT, stream_options={"include_usage": True})
    assert error.status_code == 400
    assert error.response.json()["error"]["message"] == ("Stream options can only be defined when "
                                                         "`stream=True`.")


def test_the_model_list_names_the_servers_model(client_for):
    for flavour in CHAT_FLAVOURS:
        client, _ = client_for(flavour)
        assert [model.id for model in client.models.list()] == [FLAVOURS[flavour].model]


# -- the checker's per-server rules -------------------------------------------------------------------
def test_check_warns_what_a_server_silently_ignores():
    transcript = Transcript(messages=[Message.user("What's the weather in Paris?")])
    found = wire.check(transcript, api="chat", server="ollama-openai", tools=[get_weather],
                       max_tokens_field="max_completion_tokens", tool_choice="required",
                       parallel_tool_calls=False)
    assert [(p.severity, p.path) for p in found] == [
        ("warning", "max_completion_tokens"), ("warning", "tool_choice"), ("warning", "parallel_tool_calls")]
    assert found[0].text == ("Ollama /v1 ignores `max_completion_tokens` (it reads only `max_tokens`): the "
                             "output is not limited")
    assert "severity='warning'" in repr(found[0])
    named_on_llamacpp = wire.check(transcript, api="chat", server="llamacpp", tools=[get_weather],
                                   tool_choice="get_weather")
    assert [p.text for p in named_on_llamacpp] == [
        "llama.cpp llama-server ignores tool_choice 'get_weather': the model is held to auto"]


def test_check_per_server_errors_and_clean_requests():
    transcript = Transcript(messages=[Message.user("What's the weather in Paris?")])
    refused = wire.check(transcript, api="chat", server="lmstudio", tools=[get_weather],
                         tool_choice="get_weather")
    # the codec's default field is OpenAI's max_completion_tokens, which LM Studio does not document
    assert [(p.severity, p.path) for p in refused] == [("error", "tool_choice"),
                                                       ("warning", "max_completion_tokens")]
    assert wire.check(transcript, api="chat", server="vllm", tools=[get_weather], tool_choice="get_weather",
                      max_tokens_field="max_completion_tokens") == []
    # no server: the hosted API's rules, as before
    assert wire.check(transcript, api="chat", max_tokens_field="max_completion_tokens") == []
    with pytest.raises(UsageError, match="pass api='ollama'"):
        wire.check(transcript, api="chat", server="ollama")


# -- no flavour: the double as it was ---------------------------------------------------------------------
def test_without_a_flavour_nothing_changes(make_double):
    double = make_double()
    client = openai.OpenAI(base_url=double.base_url("chat"), api_key="local", max_retries=0)
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=CHAT, max_completion_tokens=3)
    assert reply.choices[0].finish_reason == "stop"  # the default double reads no limit
    calls = client.chat.completions.create(model="gpt-4o-mini", messages=TWO_CITIES, tools=[WEATHER],
                                           tool_choice="none").choices[0].message
    assert calls.tool_calls is None
    assert repr(double).endswith("requests=2)")


# -- the lesson's tables ---------------------------------------------------------------------------------
#: What `flavour_table()` prints (also what lesson 17 shows): pinned, since it must not change by itself.
FLAVOUR_TABLE = Path(__file__).parent / "fixtures" / "flavour_table.txt"


def test_flavour_table_runs_every_probe_on_every_flavour():
    pytest.importorskip("ollama")
    from toolcall_lab.double import flavour_table

    assert flavour_table() + "\n" == FLAVOUR_TABLE.read_text(encoding="utf-8")


def test_flavour_table_of_one_request():
    pytest.importorskip("ollama")
    from toolcall_lab.double import flavour_table

    table = flavour_table({"messages": TWO_CITIES, "tools": [WEATHER], "tool_choice": "none"},
                          flavours=["ollama", "ollama-openai", "vllm"])
    assert table.splitlines() == [
        "flavour        status  finish      calls                     first id       arguments  error",
        "-" * 112,
        "ollama         n/a" + " " * 69 + "a field /api/chat has not",
        "ollama-openai  200     tool_calls  get_weather, get_weather  call_36g49wat  str        -",
        "vllm           200     stop        -                         -              -          -"]


def test_serve_says_which_server_it_plays(monkeypatch):
    import io

    from toolcall_lab.double import api_double as server

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt  # Ctrl-C, as soon as the banner is out

    monkeypatch.setattr(server.time, "sleep", interrupted)
    out = io.StringIO()
    server.serve(port=0, out=out, flavour="vllm")
    assert "  /v1/chat/completions answers like vLLM, which has one model: Qwen/Qwen3-0.6B" in out.getvalue()
    assert out.getvalue().endswith("stopped.\n")


def test_quirk_table_cites_every_source():
    from toolcall_lab.double import quirk_table

    text = quirk_table()
    for flavour in FLAVOURS.values():
        assert f"{flavour.name} ({flavour.title}, {flavour.api} API)" in text
        assert all(source in text for source in flavour.sources.values())
