"""Structured output: one schema spelled four ways, each API's strict rules, the double's reply.

The encoded Responses and Chat bodies are held to OpenAI's OpenAPI document and the
Anthropic body to its SDK's request type (tests/schemas.py); every real SDK gets back, from
the API double, JSON matching the schema, a refusal or a cut reply as its API writes them.
"""

from __future__ import annotations

import json

import pytest

from schemas import anthropic_request_errors, openapi_errors
from toolcall_lab import ApiDouble, Message, Transcript, Usage, get_provider, wire
from toolcall_lab.double.play import held_to_format
from toolcall_lab.errors import UsageError, UsageTypeError
from toolcall_lab.output_format import OutputFormat, problems, read_reply, sample
from toolcall_lab.providers.scripted import stage
from toolcall_lab.turn import Turn

CLOSED = {"type": "object", "properties": {"city": {"type": "string"}, "temp_c": {"type": "integer"}},
          "required": ["city", "temp_c"], "additionalProperties": False}
OPTIONAL = {**CLOSED, "required": ["city"]}          # closed, one property optional
OPEN = {k: v for k, v in CLOSED.items() if k != "additionalProperties"}
NESTED_OPEN = {**CLOSED, "properties": {**CLOSED["properties"], "wind": {"type": "object"}},
               "required": ["city", "temp_c", "wind"]}
ASK = Transcript(messages=[Message.user("Paris is 18°C today.")])
MODELS = {"anthropic": "claude-opus-5", "responses": "gpt-6-luna", "chat": "gpt-4o", "ollama": "qwen3:4b"}
PROVIDERS = {"anthropic": "anthropic", "responses": "openai", "chat": "openai-chat", "ollama": "ollama"}


def body(api, schema=CLOSED, *, strict=True):
    return wire.encode_request(ASK, api=api, model=MODELS[api],
                               output_format=OutputFormat("weather", schema, strict=strict))


def test_each_api_spells_the_one_schema_its_own_way():
    assert body("anthropic")["output_config"] == {"format": {"type": "json_schema", "schema": CLOSED}}
    assert body("responses")["text"] == {"format": {"type": "json_schema", "name": "weather",
                                                    "schema": CLOSED, "strict": True}}
    assert body("chat")["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "weather", "schema": CLOSED, "strict": True}}
    assert body("ollama")["format"] == CLOSED


def test_the_encoded_bodies_are_accepted_by_the_official_schemas():
    assert openapi_errors(body("responses"), "CreateResponse") == []
    assert openapi_errors(body("chat"), "CreateChatCompletionRequest") == []
    assert anthropic_request_errors(body("anthropic")) == []


def test_effort_and_format_share_anthropics_output_config():
    sent = wire.encode_request(ASK, api="anthropic", model="claude-opus-5", effort="low",
                               output_format=OutputFormat("weather", CLOSED))
    assert sent["output_config"] == {"effort": "low", "format": {"type": "json_schema", "schema": CLOSED}}
    assert anthropic_request_errors(sent) == []


@pytest.mark.parametrize(("schema", "refused_by"), [
    (CLOSED, set()),
    (OPTIONAL, {"responses", "chat"}),                  # OpenAI strict: every property required
    (OPEN, {"anthropic", "responses", "chat"}),         # every object closed, on both vendors
    (NESTED_OPEN, {"anthropic", "responses", "chat"}),  # ... the nested ones too
])
def test_which_api_refuses_which_schema(schema, refused_by):
    refused = {api for api in wire.APIS if wire.check_request(body(api, schema), api=api)}
    assert refused == refused_by


def test_the_refusals_in_the_apis_words():
    [chat] = wire.check_request(body("chat", OPTIONAL), api="chat")
    assert chat.text == ("Invalid schema for response_format 'weather': In context=(), 'required' is "
                         "required to be supplied and to be an array including every key in properties. "
                         "Missing 'temp_c'.")
    assert chat.param == "response_format"
    [nested] = wire.check_request(body("responses", NESTED_OPEN), api="responses")
    assert "In context=('properties', 'wind'), 'additionalProperties'" in nested.text
    [claude] = wire.check_request(body("anthropic", OPEN), api="anthropic")
    assert claude.text == ("output_config.format.schema: For 'object' type, 'additionalProperties' "
                           "must be explicitly set to false")


def _with(prop, **constraint):
    """CLOSED with `constraint` added to its property `prop`."""
    changed = {**CLOSED["properties"][prop], **constraint}
    return {**CLOSED, "properties": {**CLOSED["properties"], prop: changed}}


@pytest.mark.parametrize(("kind", "key", "value"), [
    ("integer", "minimum", -90), ("integer", "maximum", 60), ("integer", "exclusiveMinimum", -91),
    ("integer", "exclusiveMaximum", 61), ("integer", "multipleOf", 1), ("string", "minLength", 1),
    ("string", "maxLength", 40), ("array", "minItems", 2), ("array", "maxItems", 3),
    ("array", "uniqueItems", True)])
def test_anthropic_refuses_numeric_string_and_array_bounds_in_its_words(kind, key, value):
    # Anthropic's structured outputs page, JSON Schema limitations; the words: agentjido/req_llm#302
    schema = {"type": "object", "additionalProperties": False, "required": ["x"],
              "properties": {"x": {"type": kind, key: value,
                                   **({"items": {"type": "string"}} if kind == "array" else {})}}}
    [claude] = wire.check_request(body("anthropic", schema), api="anthropic")
    said = f"output_config.format.schema: For '{kind}' type, property '{key}' is not supported"
    assert claude.text == said
    for api in ("chat", "responses", "ollama"):
        assert wire.check_request(body(api, schema), api=api) == []


def test_anthropic_takes_min_items_of_0_or_1_and_the_double_refuses_a_bound_with_a_400():
    for count in (0, 1):
        schema = {"type": "object", "additionalProperties": False, "required": ["x"], "properties": {
            "x": {"type": "array", "items": {"type": "string"}, "minItems": count}}}
        assert wire.check_request(body("anthropic", schema), api="anthropic") == []
    import anthropic

    bounded = _with("temp_c", minimum=-90)
    with ApiDouble(['{"city": "Paris", "temp_c": 18}']) as double:
        client = anthropic.Anthropic(api_key="sk-double", max_retries=0,
                                     base_url=double.base_url("anthropic"))
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.messages.create(**body("anthropic", bounded))
    assert caught.value.status_code == 400
    assert "For 'integer' type, property 'minimum' is not supported" in str(caught.value)


def test_without_strict_openai_takes_any_schema():
    for api in ("responses", "chat"):
        assert wire.check_request(body(api, OPEN, strict=False), api=api) == []


def test_each_server_half_reads_back_what_its_client_half_wrote():
    for api, spec in wire.API_SPECS.items():
        read = spec.server.decode_output_format(body(api))
        assert read is not None and read.schema == CLOSED, api
        assert spec.server.decode_output_format({"model": "m"}) is None


def test_sample_matches_its_schema_and_is_the_same_every_time():
    schema = {"type": "object", "additionalProperties": False, "required": ["a", "b", "c", "d", "e"],
              "properties": {"a": {"enum": ["x", "y"]}, "b": {"type": "integer", "minimum": 3},
                             "c": {"type": ["string", "null"], "minLength": 2},
                             "d": {"type": "array", "items": {"type": "boolean"}, "minItems": 2},
                             "e": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}
    assert sample(schema) == {"a": "x", "b": 3, "c": "xx", "d": [False, False], "e": 0}
    assert problems(sample(schema), schema) == []


def test_read_reply_names_a_cut_reply_before_trying_to_parse_it():
    limit_fell_after_a_brace = Turn(Message.assistant('{"city": "Paris"}'), "max_tokens", Usage(5, 4), "m")
    assert read_reply(limit_fell_after_a_brace, CLOSED).kind == "cut"
    refusal = Turn(Message.assistant("I can't help with that."), "refusal", Usage(5, 4), "m")
    assert read_reply(refusal, CLOSED).kind == "refused"
    wrong = Turn(Message.assistant('{"city": "Paris", "temp_c": "18"}'), "end_turn", Usage(5, 4), "m")
    reading = read_reply(wrong, CLOSED)
    assert (reading.kind, reading.problems) == ("invalid", ('temp_c must be an integer, got "18"',))


@pytest.mark.parametrize("spelled", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_read_reply_refuses_a_number_json_has_no_spelling_for(spelled):
    schema = {"type": "object", "properties": {"temp_c": {"type": "number"}}}
    turn = Turn(Message.assistant(f'{{"temp_c": {spelled}}}'), "end_turn", Usage(5, 4), "m")
    reading = read_reply(turn, schema)
    assert (reading.kind, reading.value) == ("not_json", None)
    [said] = reading.problems
    assert spelled.lstrip("-") in said and said.count(". ") == 0 and said.endswith("be null.")
    assert str(reading).startswith("text that is not JSON (it holds")
    held = held_to_format(turn, OutputFormat("weather", schema))  # the double lets no NaN out either
    assert json.loads(held.text) == {"temp_c": 0}


def test_the_double_holds_a_finished_text_reply_to_the_schema():
    fmt = OutputFormat("weather", CLOSED)
    fits = Turn(Message.assistant('{"city": "Paris", "temp_c": 18}'), "end_turn", Usage(5, 9), "m")
    assert held_to_format(fits, fmt) is fits
    prose = Turn(Message.assistant("It is 18°C in Paris."), "end_turn", Usage(5, 9), "m")
    assert json.loads(held_to_format(prose, fmt).text) == {"city": "", "temp_c": 0}
    cut = Turn(Message.assistant('{"city": "Pa'), "max_tokens", Usage(5, 4), "m")
    assert held_to_format(cut, fmt) is cut


def test_a_bad_name_or_schema_is_one_sentence():
    with pytest.raises(UsageError, match="try 'my_format'"):
        OutputFormat("my format", CLOSED)
    with pytest.raises(UsageTypeError, match="a JSON Schema"):
        OutputFormat("weather", "city and temperature")  # type: ignore[arg-type]
    with pytest.raises(UsageTypeError, match="OutputFormat"):
        get_provider("openai", api_key="k", output_format=CLOSED)


def _scripted(transcript, tools):
    question = transcript.last_user_text()
    if "rob" in question:
        return stage("I can't help with that.", stop_reason="refusal")
    if "long" in question:
        return stage('{"city": "Pa', stop_reason="max_tokens")
    return '{"city": "Paris", "temp_c": 18}'


@pytest.mark.parametrize("api", list(MODELS))
def test_through_each_real_sdk_the_double_answers_in_the_schema(api):
    pytest.importorskip({"anthropic": "anthropic", "ollama": "ollama"}.get(api, "openai"))
    with ApiDouble(_scripted) as double:
        agent = get_provider(PROVIDERS[api], base_url=double.base_url(api), model=MODELS[api],
                             output_format=OutputFormat("weather", CLOSED))
        kinds = [read_reply(agent.complete(Transcript(messages=[Message.user(q)])), CLOSED).kind
                 for q in ("Paris is 18°C.", "a long one", "rob a bank")]
        reading = read_reply(agent.complete(ASK), CLOSED)
    # Ollama has no word for a refusal: it comes back as text, which is not JSON
    assert kinds == ["object", "cut", "not_json" if api == "ollama" else "refused"]
    assert reading.value == {"city": "Paris", "temp_c": 18}


@pytest.mark.parametrize("api", list(MODELS))
def test_a_script_that_answers_in_prose_still_gets_json_matching_the_schema(api):
    pytest.importorskip({"anthropic": "anthropic", "ollama": "ollama"}.get(api, "openai"))
    with ApiDouble(["It is 18°C in Paris."]) as double:
        agent = get_provider(PROVIDERS[api], base_url=double.base_url(api), model=MODELS[api],
                             output_format=OutputFormat("weather", CLOSED))
        turn = agent.complete(ASK)
    assert read_reply(turn, CLOSED).value == {"city": "", "temp_c": 0}


def _nested_schema():
    """Pydantic's schema of nested models: each in `$defs`, used by `$ref`, one of them recursive."""
    from pydantic import BaseModel, ConfigDict

    class Wind(BaseModel):
        model_config = ConfigDict(extra="forbid")
        kmh: int
        direction: str

    class Place(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: str
        within: Place | None  # recursive: the way back is null

    class Weather(BaseModel):
        model_config = ConfigDict(extra="forbid")
        city: Place
        wind: Wind
        gusts: list[Wind]
        yesterday: Wind | None

    schema = Weather.model_json_schema()
    assert "$defs" in schema and schema["properties"]["wind"] == {"$ref": "#/$defs/Wind"}
    return schema


def test_the_sample_of_a_schema_with_refs_follows_them_and_stops_where_it_goes_round():
    schema = _nested_schema()
    assert sample(schema) == {"city": {"name": "", "within": None}, "wind": {"kmh": 0, "direction": ""},
                              "gusts": [], "yesterday": {"kmh": 0, "direction": ""}}
    assert problems(sample(schema), schema) == []
    endless = {"$defs": {"Loop": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Loop"}},
                                  "required": ["next"]}}, "$ref": "#/$defs/Loop"}
    with pytest.raises(UsageError, match="no finite value: '#/\\$defs/Loop' requires itself"):
        sample(endless)


@pytest.mark.parametrize("api", list(MODELS))
def test_the_double_answers_a_schema_with_refs_with_an_object_valid_against_it(api):
    pytest.importorskip({"anthropic": "anthropic", "ollama": "ollama"}.get(api, "openai"))
    schema = _nested_schema()
    with ApiDouble(["It is 18°C in Paris."]) as double:
        agent = get_provider(PROVIDERS[api], base_url=double.base_url(api), model=MODELS[api],
                             output_format=OutputFormat("weather", schema))
        reading = read_reply(agent.complete(ASK), schema)
    assert reading.kind == "object", str(reading)
    assert reading.value["wind"] == {"kmh": 0, "direction": ""}


def test_the_provider_refuses_before_sending_what_its_api_would_refuse():
    from toolcall_lab.errors import InvalidRequestError

    with ApiDouble(["{}"]) as double:
        agent = get_provider("openai-chat", base_url=double.base_url("chat"), model="gpt-4o",
                             output_format=OutputFormat("weather", OPTIONAL))
        with pytest.raises(InvalidRequestError, match="Missing 'temp_c'"):
            agent.complete(ASK)


def test_a_recorded_structured_refusal_is_read_as_one_though_its_finish_reason_says_stop():
    from schemas import fixture

    body = fixture("openai_chat_structured_refusal_response.dotnet_recorded.json")
    assert body["choices"][0]["finish_reason"] == "stop" and body["choices"][0]["message"]["content"] is None
    assert openapi_errors(body, "CreateChatCompletionResponse") == []
    turn = wire.decode_response(body, api="chat")
    reading = read_reply(turn, CLOSED)
    assert reading.kind == "refused"
    assert reading.text == "I'm very sorry, but I can't assist with that request."
    # and the double writes a refusal the same way
    served = wire.API_SPECS["chat"].server.encode_response(turn, response_id="chatcmpl-1")
    assert served["choices"][0]["message"]["content"] is None
    assert served["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize("api", list(MODELS))
def test_a_streamed_structured_reply_is_held_to_the_schema_too(api):
    from toolcall_lab import run_agent

    pytest.importorskip({"anthropic": "anthropic", "ollama": "ollama"}.get(api, "openai"))
    with ApiDouble(["It is 18°C in Paris."]) as double:
        agent = get_provider(PROVIDERS[api], base_url=double.base_url(api), model=MODELS[api],
                             output_format=OutputFormat("weather", CLOSED))
        run = run_agent(agent, "Paris?", stream=True)
    assert read_reply(run.steps[-1].turn, CLOSED).value == {"city": "", "temp_c": 0}
