"""The loopback API double: the real SDK clients, end to end, against a server on 127.0.0.1.

Nothing here leaves the machine: every request goes to an `ApiDouble` on the loopback
interface. The providers are the real ones (official SDK, codec, error mapping).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from conftest import REAL_PROVIDERS, SECRET, real_provider
from toolcall_lab import Message, ReasoningBlock, ScriptExhaustedError, Transcript, call, run_agent
from toolcall_lab.double import FAULTS, ApiDouble
from toolcall_lab.errors import (
    AuthenticationError,
    InvalidRequestError,
    MalformedResponseError,
    ModelNotFoundError,
    OverloadedError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RateLimitError,
    ServerError,
    UsageError,
    UsageTypeError,
)
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import ENDPOINTS, codec, encode_request

NAMES = list(REAL_PROVIDERS)
PARIS_ANSWER = "It's 18°C and sunny in Paris."
TOOL = {"name": "get_weather", "description": "Weather", "parameters": {"type": "object"}}


def post(url: str, body: object, **headers: str) -> tuple[int, object, dict[str, str]]:
    """POST `body` as JSON (or raw bytes) with urllib; (status, parsed body, headers)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json",
                                                              **headers})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), dict(error.headers)


def get(url: str, **headers: str) -> object:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as response:
        return json.loads(response.read())


def sdk_type(api: str):
    """The official SDK's own type for a response body of `api`."""
    if api == "anthropic":
        from anthropic.types import Message
        return Message
    if api == "responses":
        from openai.types.responses import Response
        return Response
    if api == "chat":
        from openai.types.chat import ChatCompletion
        return ChatCompletion
    return pytest.importorskip("ollama").ChatResponse


# -- the Paris run through every real SDK ---------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_paris_run_through_the_real_sdk(name, double):
    run = run_agent(real_provider(name, double), PARIS_QUESTION, tools=[get_weather])
    assert run.answer == PARIS_ANSWER
    api = REAL_PROVIDERS[name]
    assert [(r.api, r.path, r.status) for r in double.requests] == [(api, ENDPOINTS[api], 200)] * 2
    for step, seen in zip(run.steps, double.requests, strict=True):
        assert step.turn.request is not None and step.turn.response is not None
        assert seen.body == step.turn.request, "double.requests holds exactly what arrived"
        sdk_type(api).model_validate(step.turn.response)  # the SDK's own type parses the reply


@pytest.mark.parametrize(("name", "first", "second"), [
    ("anthropic", "toolu_01", "toolu_02"), ("openai", "call_01", "call_02"),
    ("openai-chat", "call_01", "call_02")])
def test_call_ids_are_spelled_the_apis_way_and_count_up_across_requests(name, first, second, double):
    provider = real_provider(name, double)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    run = run_agent(provider, "And in London?", tools=[get_weather], transcript=run.transcript)
    assert [c.id for c in run.transcript.tool_calls()] == [first, second]


def test_ollama_replies_carry_no_call_ids(double):
    status, body, _ = post(double.url + "/api/chat", {
        "model": "qwen3:4b", "stream": False, "tools": [{"type": "function", "function": TOOL}],
        "messages": [{"role": "user", "content": PARIS_QUESTION}]})
    assert status == 200
    assert body["message"]["tool_calls"] == [{"function": {"name": "get_weather",
                                                           "arguments": {"city": "Paris"}}}]


# -- reasoning -------------------------------------------------------------------------------------
def test_anthropic_thinking_is_signed_and_not_repeated_after_tool_results(double):
    provider = real_provider("anthropic", double, thinking="adaptive", effort="low", max_tokens=4096)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == PARIS_ANSWER
    first, second = (step.turn for step in run.steps)
    thought = first.message.blocks[0]
    assert isinstance(thought, ReasoningBlock) and thought.text == f"Thinking about: {PARIS_QUESTION}"
    assert codec("anthropic").verify_thinking(thought.text, thought.opaque["signature"])
    assert first.usage.reasoning_tokens > 0
    assert not second.message.reasoning, "no new thinking right after a tool_result"
    assert double.requests[1].body["messages"][1]["content"][0]["type"] == "thinking"  # replayed


def test_anthropic_thinking_through_a_two_step_tool_loop(make_double):
    # The second call comes right after a tool_result, so it carries no thinking of its own;
    # the request after it is still valid (the thinking sits in the turn's first message).
    script = [call("get_weather", city="Paris"), call("get_weather", city="London"), "Both mild."]
    double = make_double(script)
    provider = real_provider("anthropic", double, thinking="adaptive", max_tokens=4096)
    run = run_agent(provider, "Paris, then London?", tools=[get_weather])
    assert run.answer == "Both mild."
    assert [r.status for r in double.requests] == [200, 200, 200]


@pytest.mark.parametrize(("name", "options"), [
    ("anthropic", {"thinking": "adaptive", "effort": "low", "max_tokens": 4096}),
    ("anthropic", {"model": "claude-haiku-4-5", "thinking": 2048, "max_tokens": 4096}),
    ("openai", {"reasoning_effort": "low"}),
    ("ollama", {"think": True})])
def test_reasoning_goes_out_and_comes_back_through_the_real_sdk(name, options, double):
    run = run_agent(real_provider(name, double, **options), PARIS_QUESTION, tools=[get_weather])
    assert run.answer == PARIS_ANSWER
    first = run.steps[0].turn.message.blocks[0]
    assert isinstance(first, ReasoningBlock) and first.provider == name
    assert first.text == f"Thinking about: {PARIS_QUESTION}"
    assert [r.status for r in double.requests] == [200, 200], "replayed reasoning passed the check"


def test_a_thinking_budget_to_haiku_5_5_gets_the_apis_400_through_the_real_sdk(double):
    import anthropic

    client = anthropic.Anthropic(base_url=double.url, api_key=SECRET, max_retries=0)
    ask = {"max_tokens": 4096, "messages": [{"role": "user", "content": PARIS_QUESTION}]}
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model="claude-haiku-5-5", thinking={"type": "enabled", "budget_tokens": 2048},
                               **ask)
    assert caught.value.status_code == 400
    assert caught.value.body["error"] == {
        "type": "invalid_request_error",
        "message": '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" '
                   'and "output_config.effort" to control thinking behavior.'}
    # the same request in the spelling Haiku 5.5 takes, and the budget on a model that takes it
    adaptive = client.messages.create(model="claude-haiku-5-5", thinking={"type": "adaptive"},
                                      output_config={"effort": "medium"}, **ask)  # low skips it: no tools
    assert adaptive.content[0].type == "thinking"
    budget = client.messages.create(model="claude-haiku-4-5",
                                    thinking={"type": "enabled", "budget_tokens": 2048}, **ask)
    assert budget.content[0].type == "thinking"
    assert [r.status for r in double.requests] == [400, 200, 200]


def test_the_kit_provider_sends_it_with_check_off_and_gets_the_same_words(double):
    from toolcall_lab.errors import InvalidRequestError

    provider = real_provider("anthropic", double, thinking=2048, max_tokens=4096, check=False)
    with pytest.raises(InvalidRequestError, match='"thinking.type.enabled" is not supported for this model'):
        run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert [r.status for r in double.requests] == [400]


def test_sampling_and_prefill_rules_answer_400_from_the_double(double):
    url = double.url + "/v1/messages"
    ask = {"model": "claude-haiku-5-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
    status, body, _ = post(url, {**ask, "temperature": 0.2})
    assert (status, body["error"]["message"]) == (400, "`temperature` is deprecated for this model.")
    prefill = [*ask["messages"], {"role": "assistant", "content": "{"}]
    status, body, _ = post(url, {**ask, "messages": prefill})
    assert status == 400 and "does not support assistant message prefill" in body["error"]["message"]
    assert post(url, {**ask, "model": "claude-haiku-4-5", "temperature": 0.2})[0] == 200


def test_reasoning_effort_on_gpt_4o_answers_400(double):
    status, body, _ = post(double.url + "/v1/responses", {
        "model": "gpt-4o", "input": PARIS_QUESTION, "reasoning": {"effort": "low"}})
    assert status == 400
    assert body["error"] == {"message": "Unsupported parameter: 'reasoning.effort' is not supported with "
                             "this model.", "type": "invalid_request_error", "param": "reasoning.effort",
                             "code": "unsupported_parameter"}
    status, body, _ = post(double.url + "/v1/responses", {"model": "gpt-4o", "input": PARIS_QUESTION})
    assert status == 200 and [i["type"] for i in body["output"]] == ["message"]  # no reasoning item


def test_responses_reasoning_is_a_sealed_item(double):
    status, body, _ = post(double.url + "/v1/responses", {
        "model": "gpt-6-luna", "input": PARIS_QUESTION, "reasoning": {"effort": "low"},
        "tools": [{"type": "function", "strict": False, **TOOL}]})
    assert status == 200
    item = body["output"][0]
    assert item["type"] == "reasoning" and item["id"].startswith("rs_")
    assert codec("responses").unseal_reasoning(item["encrypted_content"]) == item["summary"][0]["text"]
    assert [i["type"] for i in body["output"]] == ["reasoning", "function_call"]


def test_ollama_thinking_and_no_reasoning_unless_asked(double):
    ask = {"model": "qwen3:4b", "stream": False, "messages": [{"role": "user", "content": "Hi"}]}
    assert "thinking" not in post(double.url + "/api/chat", ask)[1]["message"]
    thought = post(double.url + "/api/chat", {**ask, "think": True})[1]["message"]["thinking"]
    assert thought == "Thinking about: Hi"


# -- what the API would refuse ---------------------------------------------------------------------
BAD_REQUESTS = {
    "anthropic": {"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}]}]},
    "responses": {"model": "m", "input": [
        {"type": "function_call_output", "call_id": "call_9", "output": "18°C"}]},
    "chat": {"model": "m", "messages": [{"role": "tool", "tool_call_id": "call_9", "content": "18°C"}]},
    "ollama": {"model": "", "stream": False, "messages": []},
}


@pytest.mark.parametrize("api", list(BAD_REQUESTS))
def test_a_request_the_checker_rejects_gets_the_apis_400(api, double):
    wire = codec(api)
    (first, *_) = wire.check_request(BAD_REQUESTS[api])
    status, body, headers = post(double.url + ENDPOINTS[api], BAD_REQUESTS[api])
    assert status == 400
    expected = wire.error_body(first.text, status=400, param=first.param, code=first.code)
    if "request_id" in expected:  # Anthropic's: this request's own, the one its header names
        assert body.pop("request_id") == headers["request-id"] != expected.pop("request_id")
    assert body == expected


def test_the_chat_orphan_tool_message_in_openais_words(double):
    status, body, _ = post(double.url + ENDPOINTS["chat"], BAD_REQUESTS["chat"])
    assert (status, body["error"]["param"]) == (400, "messages.[0].role")
    assert "must be a response to a preceeding message with 'tool_calls'" in body["error"]["message"]


def shape(value: object) -> object:
    """The keys of a JSON body, nested, without the values."""
    return {key: shape(item) for key, item in value.items()} if isinstance(value, dict) else None


@pytest.mark.parametrize("api", list(ENDPOINTS))
def test_bad_json_is_refused_in_the_apis_shape_even_when_it_asks_to_stream(api, double):
    url = double.url + ENDPOINTS[api]
    expected = shape(codec(api).error_body("any", status=400))
    for body in (b"{not json", b"[1, 2]", {"model": 5, "stream": True, "messages": 5, "input": 5}):
        status, answer, headers = post(url, body)  # a refused stream is refused in JSON, as the APIs do
        assert status == 400 and shape(answer) == expected and headers["content-type"] == "application/json"


def test_ollama_without_stream_false_streams_as_ollama_does(double):
    ask = {"model": "qwen3:4b", "messages": [{"role": "user", "content": "Hi"}]}
    request = urllib.request.Request(double.url + "/api/chat", data=json.dumps(ask).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        lines = [json.loads(line) for line in response.read().splitlines()]
        assert response.headers["content-type"] == "application/x-ndjson"
    assert lines[-1]["done"] is True and not any(line["done"] for line in lines[:-1])


def test_unknown_paths_get_a_404_in_the_asking_apis_shape(double):
    assert post(double.url + "/v1/embeddings", {})[:2] == (404, codec("chat").error_body(
        "Invalid URL (POST /v1/embeddings)", param=None, status=404))
    status, body, _ = post(double.url + "/v1/messages/batches", {}, **{"anthropic-version": "2023-06-01"})
    assert status == 404 and body["error"]["type"] == "not_found_error"
    assert post(double.url + "/api/generate", {})[:2] == (404, {"error": "404 page not found"})


def test_model_lists_for_a_test_connection_button(double):
    from anthropic.types import ModelInfo
    from openai.types import Model

    openai_list = get(double.url + "/v1/models")
    anthropic_list = get(double.url + "/v1/models", **{"anthropic-version": "2023-06-01"})
    assert Model.model_validate(openai_list["data"][0]).id == "gpt-6-luna"
    assert ModelInfo.model_validate(anthropic_list["data"][0]).id == "claude-haiku-5-5"
    assert [m["name"] for m in get(double.url + "/api/tags")["models"]] == ["qwen3:4b"]


# -- faults: every way a call fails, through every real provider ----------------------------------
FAULT_ERRORS = {"overloaded": OverloadedError, "server_error": ServerError,
                "unauthorized": AuthenticationError, "not_found": ModelNotFoundError,
                "malformed": MalformedResponseError}


def fails_cleanly(provider, error_type):
    """Run the Paris question into a failure; the caller's transcript must be untouched."""
    transcript = Transcript(system="Be brief.")
    before = transcript.to_dict()
    with pytest.raises(error_type) as info:
        run_agent(provider, PARIS_QUESTION, tools=[get_weather], transcript=transcript)
    assert transcript.to_dict() == before
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    assert "\n" not in str(info.value)
    return info.value


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", list(FAULT_ERRORS))
def test_each_fault_becomes_the_kits_error(name, kind, double):
    double.fail_next(kind)
    error = fails_cleanly(real_provider(name, double, max_retries=0), FAULT_ERRORS[kind])
    assert error.provider == name
    assert len(double.requests) == 1


@pytest.mark.parametrize("name", NAMES)
def test_a_slow_server_times_out(name, double):
    double.fail_next("slow", delay=1.0)
    # subtle: over the socket, where the client gives up at its timeout; in-process it would
    # wait the whole delay first (double/transport.py, "Left out")
    fails_cleanly(real_provider(name, double, socket=True, timeout=0.3, max_retries=0), ProviderTimeoutError)


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat"])
def test_the_sdk_retries_a_rate_limit_and_succeeds(name, double):
    double.fail_next("rate_limit", retry_after=0.01)
    run = run_agent(real_provider(name, double), PARIS_QUESTION, tools=[get_weather])
    assert run.answer == PARIS_ANSWER
    assert [r.status for r in double.requests] == [429, 200, 200]


def test_ollama_has_no_retries_so_one_rate_limit_fails_the_call(double):
    double.fail_next("rate_limit", retry_after=0.01)
    fails_cleanly(real_provider("ollama", double), RateLimitError)
    assert [r.status for r in double.requests] == [429]


@pytest.mark.parametrize("name", NAMES)
def test_a_lasting_rate_limit_says_when_to_retry(name, double):
    double.fail_next("rate_limit", times=3, retry_after=0.5)
    error = fails_cleanly(real_provider(name, double, max_retries=0), RateLimitError)
    # subtle: the ollama client's ResponseError keeps no headers, so retry-after is lost there
    expected = None if name == "ollama" else 0.5
    assert (error.retry_after, error.status) == (expected, 429)
    wait = "a little" if expected is None else "0.5 s"
    # one sentence of the kit's, with the API's own words quoted in the parentheses
    assert re.fullmatch(rf"{re.escape(name)} \(a server on this machine\) is rate limiting you \(429: .*\); "
                        rf"retries are off \(max_retries=0\), so wait {wait} and call again\.", str(error))


@pytest.mark.parametrize(("given", "error"), [
    ({"retry_after": math.nan}, UsageError), ({"retry_after": -1}, UsageError),
    ({"retry_after": "2"}, UsageTypeError), ({"delay": math.inf}, UsageError), ({"delay": -0.5}, UsageError),
    ({"delay": "slow"}, UsageTypeError), ({"times": 0}, UsageError), ({"times": 1.5}, UsageTypeError),
    ({"times": "3"}, UsageTypeError), ({"after": -1}, UsageError), ({"after": math.nan}, UsageTypeError),
    ({"after": True}, UsageTypeError),
])
def test_fail_next_refuses_a_value_it_cannot_use_at_the_call_and_the_double_keeps_answering(given, error,
                                                                                            double):
    with pytest.raises(error) as refused:
        double.fail_next("rate_limit", **given)
    assert isinstance(refused.value, ValueError) and str(refused.value).startswith("fail_next's ")
    assert "\n" not in str(refused.value) and "for example" in str(refused.value)
    status, _, _ = post(double.url + "/v1/chat/completions", {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "What's the weather in Paris?"}]})
    assert status == 200  # nothing was queued, and the double still answers


# -- ids unique per request, as the APIs' are ---------------------------------------------------------
ASKED = {"anthropic": {"model": "claude-haiku-4-5", "max_tokens": 64, "messages": [
             {"role": "user", "content": PARIS_QUESTION}]},
         "responses": {"model": "gpt-4o-mini", "input": PARIS_QUESTION},
         "chat": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": PARIS_QUESTION}]},
         "ollama": {"model": "qwen3:4b", "stream": False,
                    "messages": [{"role": "user", "content": PARIS_QUESTION}]}}
REQUEST_ID = {"anthropic": "request-id", "responses": "x-request-id", "chat": "x-request-id"}


def _answers(double: ApiDouble, api: str, body: dict) -> tuple[int, dict, dict[str, str]]:
    status, raw, headers = double.handle("POST", ENDPOINTS[api], json.dumps(body).encode())
    return status, json.loads(bytes(raw)), headers


@pytest.mark.parametrize("api", list(ASKED))
def test_every_answer_has_a_request_id_of_its_own_and_each_response_its_own_id(api):
    doubles = (ApiDouble(), ApiDouble())
    answers = [_answers(double, api, ASKED[api]) for double in doubles for _ in range(2)]
    assert all(status == 200 for status, _, _ in answers)
    if api not in REQUEST_ID:  # Ollama sends no id at all
        assert not any("request-id" in name for _, _, headers in answers for name in headers)
        return
    ids = [headers[REQUEST_ID[api]] for _, _, headers in answers]
    assert len(set(ids)) == 4 and all(re.fullmatch(r"req_[0-9a-f]{24,32}", i) for i in ids)
    first, second, again, twice = (body["id"] for _, body, _ in answers)
    # each response of a double its own id; two doubles of one process play the same bytes
    assert first != second and (again, twice) == (first, second)


@pytest.mark.slow
def test_a_response_id_is_not_the_same_in_another_process():
    code = ("import json; from toolcall_lab.double import ApiDouble; "
            "from toolcall_lab.wire import ENDPOINTS; body = {'model': 'gpt-4o-mini', 'input': 'Hi'}; "
            "print(json.loads(bytes(ApiDouble().handle('POST', ENDPOINTS['responses'], "
            "json.dumps(body).encode())[1]))['id'])")
    ids = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
           for _ in range(2)}
    assert len(ids) == 2 and all(re.fullmatch(r"resp_[0-9a-z]{6}_0001\n", i) for i in ids)


def test_anthropics_error_body_carries_the_request_id_its_header_does():
    first, second = (_answers(ApiDouble(), "anthropic", {"model": "claude-haiku-4-5", "messages": []})
                     for _ in range(2))
    for status, body, headers in (first, second):
        assert status == 400 and body["request_id"] == headers["request-id"]
    assert first[1]["request_id"] != second[1]["request_id"]


def test_the_sdks_read_the_request_id_the_double_sends(double):
    import anthropic
    import openai

    sent = anthropic.Anthropic(api_key=SECRET, base_url=double.base_url("anthropic")).messages.create(
        **ASKED["anthropic"])
    chat = openai.OpenAI(api_key=SECRET, base_url=double.base_url("chat")).chat.completions.create(
        **ASKED["chat"])
    assert sent._request_id.startswith("req_") and chat._request_id.startswith("req_")
    assert sent._request_id != chat._request_id


def test_a_responses_reply_is_stamped_in_unix_seconds_by_the_doubles_clock():
    import time

    from toolcall_lab.double.cache import EPOCH

    double = ApiDouble()
    _, first, _ = _answers(double, "responses", ASKED["responses"])
    double.clock.advance(minutes=6)
    _, later, _ = _answers(double, "responses", ASKED["responses"])
    assert (first["created_at"], first["completed_at"]) == (EPOCH, EPOCH)  # 2026-01-01T00:00:00Z
    assert (later["created_at"], later["completed_at"]) == (EPOCH + 360, EPOCH + 360)
    assert _answers(ApiDouble(), "responses", ASKED["responses"])[1]["created_at"] == EPOCH  # every run
    assert _answers(ApiDouble(), "chat", ASKED["chat"])[1]["created"] == EPOCH
    real = _answers(ApiDouble(clock="real"), "responses", ASKED["responses"])[1]["created_at"]
    assert abs(real - time.time()) < 60


def test_retry_after_headers_whole_and_fractional(double):
    double.fail_next("rate_limit", retry_after=2)
    double.fail_next("rate_limit", retry_after=0.25)
    whole, fractional = (post(double.url + "/v1/chat/completions", {})[2] for _ in range(2))
    assert (whole["retry-after"], "retry-after-ms" in whole) == ("2", False)
    assert (fractional["retry-after"], fractional["retry-after-ms"]) == ("1", "250")


def test_a_fault_by_header_for_serve(double):
    status, body, headers = post(double.url + "/v1/messages", {}, **{"X-Double-Fault": "overloaded"})
    assert status == 529 and body["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    status, body, headers = post(double.url + "/v1/chat/completions", {"model": "gpt-x"},
                                 **{"X-Double-Fault": "not_found"})
    assert (status, body["error"]["message"]) == (
        404, "The model `gpt-x` does not exist or you do not have access to it.")
    assert post(double.url + "/api/chat", {"model": "qwen9"}, **{"X-Double-Fault": "not_found"})[:2] == (
        404, {"error": "model 'qwen9' not found"})


def test_the_anthropic_rate_limit_is_the_recorded_one(double):
    from schemas import fixture

    double.fail_next("rate_limit")
    status, body, headers = post(double.url + "/v1/messages", {"model": "m"})
    recorded = fixture("anthropic_error_rate_limit_429.body.json")
    assert (status, headers["retry-after"]) == (429, "1")
    assert body["error"] == recorded["error"]


def test_unknown_fault_kinds_are_refused():
    with pytest.raises(ValueError, match="rate_limit"):
        ApiDouble().fail_next("flaky")
    assert len(FAULTS) == 11  # the last four bend a stream once it has begun


# -- policies, lifecycle, import weight, CLI -------------------------------------------------------
def test_a_list_of_replies_is_played_in_order_then_the_server_fails(make_double):
    double = make_double([call("get_weather", city="Paris"), "Done."])
    provider = real_provider("openai-chat", double, max_retries=0)
    assert run_agent(provider, PARIS_QUESTION, tools=[get_weather]).answer == "Done."
    with pytest.raises(ServerError, match=f"{ScriptExhaustedError.__name__}: the double's script has 2 "
                                          "replies and call 3 asked for another"):
        run_agent(provider, "Again?")


def stop_the_script(how: str) -> object:
    def policy(transcript: object, tools: object) -> object:
        if how == "exit":
            sys.exit(3)
        raise KeyboardInterrupt
    return policy


@pytest.mark.parametrize(("how", "raised"), [("exit", "SystemExit(3)"), ("interrupt", "KeyboardInterrupt()")])
def test_a_script_that_stops_gets_a_500_saying_so_and_is_not_retried(how, raised, make_double):
    import openai

    double = make_double(stop_the_script(how))
    client = openai.OpenAI(base_url=double.base_url("chat"), api_key=SECRET, max_retries=2)
    ask = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": PARIS_QUESTION}]}
    with pytest.raises(openai.InternalServerError) as caught:
        client.chat.completions.create(**ask)
    assert caught.value.status_code == 500 and caught.value.response.headers["x-should-retry"] == "false"
    said = caught.value.body["message"]
    assert said.startswith(f"the API double's script stopped: the policy raised {raised}")
    assert [r.status for r in double.requests] == [500], "sent once: a retry cannot fix a script"
    double.policy = ["Back again."]  # the double itself is still serving
    assert client.chat.completions.create(**ask).choices[0].message.content == "Back again."


def test_the_kit_says_a_500_that_was_not_retried_was_not_retried(make_double):
    # the double's x-should-retry: false means the SDK sent it once; "after 2 retries, try again
    # later" would be untrue, and would send the learner to wait for nothing
    from toolcall_lab.errors import ServerError

    double = make_double(stop_the_script("exit"))
    provider = real_provider("openai-chat", double, max_retries=2)
    with pytest.raises(ServerError) as caught:
        run_agent(provider, PARIS_QUESTION)
    said = str(caught.value)
    assert "the SDK did not retry" in said and "after 2 retries" not in said and "try again later" not in said
    assert "the API double's script stopped" in said


def test_a_script_with_no_replies_left_is_not_retried_by_the_sdk(make_double):
    import anthropic

    double = make_double(["Only one reply."])
    client = anthropic.Anthropic(base_url=double.url, api_key=SECRET, max_retries=2)
    ask = {"model": "claude-haiku-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
    client.messages.create(**ask)
    with pytest.raises(anthropic.InternalServerError, match=ScriptExhaustedError.__name__):
        client.messages.create(**ask)
    assert [r.status for r in double.requests] == [200, 500]


def test_errors_a_retry_cannot_fix_say_so_and_transient_faults_do_not(double):
    url = double.url + "/v1/chat/completions"
    refused = post(url, {"model": "m", "messages": 5})
    double.fail_next("unauthorized")
    unauthorized = post(url, {"model": "m", "messages": [{"role": "user", "content": "Hi"}]})
    assert refused[2]["x-should-retry"] == unauthorized[2]["x-should-retry"] == "false"
    for kind in ("rate_limit", "overloaded", "server_error"):  # the SDKs retry these, as they would the API's
        double.fail_next(kind)
        status, _, headers = post(url, {"model": "m", "messages": [{"role": "user", "content": "Hi"}]})
        assert status >= 429 and "x-should-retry" not in headers


def test_the_policy_can_be_swapped_while_serving(double):
    double.policy = ["Hello from a new policy."]
    assert run_agent(real_provider("anthropic", double), "Hi").answer == "Hello from a new policy."


def test_base_urls_and_a_stopped_double():
    with ApiDouble() as double:
        url = double.url
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url) and not url.endswith(":0")
        assert [double.base_url(api) for api in ENDPOINTS] == [url, url + "/v1", url + "/v1", url]
    with pytest.raises(urllib.error.URLError):
        get(url + "/api/tags")


def test_a_stopped_double_hangs_up_kept_alive_connections():
    # The SDKs keep connections open between calls; a stopped double must not go on
    # answering on them (nor leave their sockets and threads behind).
    double = ApiDouble(["one", "two"]).start()
    provider = real_provider("anthropic", double, socket=True, max_retries=0, timeout=5)
    assert run_agent(provider, "Hi").answer == "one"
    double.stop()
    with pytest.raises(ProviderUnreachableError):
        run_agent(provider, "Hi")
    assert [r.status for r in double.requests] == [200]


def test_a_double_waits_for_connections_without_polling(monkeypatch):
    # issue 20: serve_forever woke 20 times a second to look for stop(), so each stop waited
    # for the next look; the accepting thread now sleeps until a connection or stop() wakes it
    import selectors

    from toolcall_lab.double import background

    waits = []

    class Recording(selectors.DefaultSelector):
        def select(self, timeout=None):
            waits.append(timeout)
            return super().select(timeout)

    monkeypatch.setattr(background.selectors, "DefaultSelector", Recording)
    with ApiDouble() as double:
        assert get(double.url + "/v1/models")["data"]
        thread = double._thread
    assert not thread.is_alive()
    assert waits and set(waits) == {None}


@pytest.mark.slow
def test_importing_the_double_starts_nothing_heavy():
    code = "import sys, toolcall_lab.double; print('http.server' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


@pytest.mark.slow
def test_serve_from_the_command_line():
    process = subprocess.Popen([sys.executable, "-m", "toolcall_lab", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = [process.stdout.readline() for _ in range(5)]
        url = re.search(r"http://127\.0\.0\.1:\d+", banner[0]).group(0)
        assert f'get_provider("anthropic", base_url="{url}")' in banner[1]
        assert f'get_provider("openai-chat", base_url="{url}/v1")' in banner[3]
        assert get(url + "/v1/models")["data"][0]["object"] == "model"
    finally:
        process.terminate()
        process.wait(timeout=5)


# -- issue 9: the double never answers 200 where the real API answers 400 ----------------------
def test_a_slow_reply_under_the_clients_timeout_succeeds_and_one_over_it_times_out(double):
    import anthropic

    client = anthropic.Anthropic(base_url=double.url, api_key=SECRET, max_retries=0, timeout=2.0)
    ask = {"model": "claude-haiku-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}
    double.fail_next("slow", delay=0.2)
    assert client.messages.create(**ask).content[0].type == "text"  # late, but whole
    double.fail_next("slow", delay=1.0)
    with pytest.raises(anthropic.APITimeoutError):
        client.with_options(timeout=0.3).messages.create(**ask)


#: Bodies whose *structure* is wrong, per API: each must get a 400 in the API's shape, never a 500.
MISSHAPEN = {
    "anthropic": [{"model": "m", "max_tokens": 10, "messages": 5},
                  {"model": "m", "max_tokens": 10, "messages": [None]},
                  {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [{}]}]},
                  {"model": {"x": 1}, "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]},
                  {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}],
                   "tools": [5]},
                  {"model": "m", "messages": [{"role": "user", "content": "Hi"}]},
                  {"model": "m", "max_tokens": "ten", "messages": [{"role": "user", "content": "Hi"}]},
                  {"model": "m", "max_tokens": 10, "messages": [{"role": "robot", "content": "Hi"}]}],
    "responses": [{"model": "m", "input": 5}, {"model": "m", "input": [None]},
                  {"model": {"x": 1}, "input": "Hi"}, {"model": "m", "input": "Hi", "tools": [5]},
                  {"model": "m", "input": [{"type": "message", "role": "user", "content": [{}]}]},
                  {"model": "m", "input": [{"type": "function_call", "call_id": "c"}]},
                  {"model": "m", "input": [{"type": "telepathy"}]}, {"input": "Hi"}],
    "chat": [{"model": "m", "messages": 5}, {"model": "m", "messages": [None]},
             {"model": "m", "messages": [{"role": "user", "content": [{}]}]},
             {"model": {"x": 1}, "messages": [{"role": "user", "content": "Hi"}]},
             {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "tools": [5]},
             {"model": "m", "messages": [{"role": "user"}]},
             {"messages": [{"role": "user", "content": "Hi"}]},
             {"model": "m", "messages": [  # arguments as an object: Chat wants a JSON string
                 {"role": "user", "content": "Hi"},
                 {"role": "assistant", "content": None, "tool_calls": [{
                     "id": "call_1", "type": "function",
                     "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
                 {"role": "tool", "tool_call_id": "call_1", "content": "18°C"}]}],
    "ollama": [{"model": "m", "stream": False, "messages": 5},
               {"model": "m", "stream": False, "messages": [None]},
               {"model": {"x": 1}, "stream": False, "messages": [{"role": "user", "content": "Hi"}]},
               {"model": "m", "stream": False, "messages": [{"role": "user", "content": "Hi"}], "tools": [5]},
               {"model": "m", "stream": False, "messages": [{"role": "user", "content": 5}]}],
}


@pytest.mark.parametrize(("api", "index"), [(api, i) for api, bodies in MISSHAPEN.items()
                                            for i in range(len(bodies))])
def test_a_misshapen_body_gets_the_apis_400_not_a_500(api, index, double):
    status, body, _ = post(double.url + ENDPOINTS[api], MISSHAPEN[api][index])
    assert status == 400, body
    assert shape(body) == shape(codec(api).error_body("any", status=400))
    if api in ("responses", "chat"):
        # OpenAI names the parameter, except Chat's recorded "you must provide a model parameter"
        recorded_without_param = body["error"]["message"] == "you must provide a model parameter"
        assert body["error"]["type"] == "invalid_request_error"
        assert body["error"]["param"] or recorded_without_param
    if api == "anthropic":
        assert body["error"]["type"] == "invalid_request_error"
    assert [r.status for r in double.requests] == [400]


def test_chat_arguments_sent_as_an_object_are_refused_in_openais_words(double):
    status, body, _ = post(double.url + ENDPOINTS["chat"], MISSHAPEN["chat"][-1])
    assert status == 400
    assert body["error"]["message"] == ("Invalid type for 'messages[1].tool_calls[0].function.arguments': "
                                        "expected a string, but got an object instead.")
    assert body["error"]["code"] == "invalid_type"


def test_a_misshapen_body_through_the_real_sdk_is_not_retried(double):
    import openai

    client = openai.OpenAI(base_url=double.base_url("chat"), api_key=SECRET, max_retries=2)
    with pytest.raises(openai.BadRequestError, match="Invalid type for 'messages'"):
        client.chat.completions.create(model="m", messages=5)
    assert [r.status for r in double.requests] == [400], "a 400 is final: the SDK does not retry it"


def raw_request(double, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `data` as-is on a fresh socket; (status, headers, body) of the answer."""
    import http.client
    import socket

    with socket.create_connection(("127.0.0.1", double.port), timeout=5) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock, method=data.split(b" ")[0].decode())
        response.begin()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


@pytest.mark.parametrize(("api", "method"), [("chat", "PUT"), ("anthropic", "DELETE"),
                                             ("responses", "OPTIONS"), ("ollama", "PATCH"),
                                             ("chat", "GET"), ("chat", "BREW")])
def test_every_method_gets_a_json_answer(api, method, double):
    status, headers, body = raw_request(
        double, f"{method} {ENDPOINTS[api]} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                f"Connection: close\r\n\r\n".encode())
    assert (status, headers["content-type"]) == (405, "application/json")
    assert shape(json.loads(body)) == shape(codec(api).error_body("any", status=405))
    assert "POST" in headers["allow"]


def test_head_gets_headers_and_no_body(double):
    status, headers, body = raw_request(
        double, b"HEAD /v1/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (status, headers["content-type"], body) == (405, "application/json", b"")


@pytest.mark.parametrize(("length", "status"), [("abc", 400), ("-5", 400), ("99999999999999", 413)])
def test_a_bad_or_huge_content_length_gets_a_json_error_at_once(length, status, double):
    got, headers, body = raw_request(
        double, f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n"
                f"\r\n".encode())
    assert (got, headers["content-type"]) == (status, "application/json")
    assert json.loads(body)["error"]["type"] == "invalid_request_error"


def test_a_body_over_the_cap_gets_413_in_the_apis_shape(make_double):
    double = make_double(max_body=1000)
    status, body, _ = post(double.url + "/v1/messages", {"model": "m", "pad": "x" * 2000})
    assert status == 413 and body["error"]["type"] == "request_too_large"
    status, body, _ = post(double.url + "/api/chat", {"model": "m", "pad": "x" * 2000})
    assert status == 413 and set(body) == {"error"}


def test_a_deeply_nested_body_gets_a_400_not_silence(double):
    status, body, _ = post(double.url + "/v1/responses", b"[" * 100_000 + b"]" * 100_000)
    assert status == 400 and body["error"]["type"] == "invalid_request_error"
    status, body, _ = post(double.url + "/v1/messages", {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": "Hi"}], "metadata": json.loads("[" * 500 + "]" * 500)})
    assert status in (200, 400)  # deep but parseable: an answer either way


def test_a_malformed_request_line_gets_json_not_html(double):
    status, headers, body = raw_request(double, b"GARBAGE\r\n\r\n")
    assert status == 400 and headers["content-type"] == "application/json"
    assert "error" in json.loads(body)


def test_a_request_line_over_64_kib_gets_a_414_in_json(double):
    status, headers, body = raw_request(double, b"POST /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n")
    assert (status, headers["content-type"]) == (414, "application/json")
    assert "414 Request-URI Too Long" in json.dumps(json.loads(body))


@pytest.mark.parametrize("lengths", [["+45"], ["1_0"], ["45", "46"], ["45, 46"], [" 4 5"]])
def test_a_content_length_http_does_not_allow_gets_a_400(lengths, double):
    headers = "".join(f"Content-Length: {length}\r\n" for length in lengths)
    got, answer_headers, body = raw_request(
        double, f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode() + b"{}" * 30)
    assert (got, answer_headers["content-type"]) == (400, "application/json")
    assert "Content-Length must be one whole number of bytes" in json.loads(body)["error"]["message"]


@pytest.mark.parametrize("lengths", [["45"], ["45", "45"], ["45, 45"]])
def test_the_same_content_length_given_twice_is_one_length(lengths, double):
    body = json.dumps({"model": "m", "messages": 5}).encode().ljust(45)
    headers = "".join(f"Content-Length: {length}\r\n" for length in lengths)
    status, _, answer = raw_request(double, f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n{headers}"
                                    "Connection: close\r\n\r\n".encode() + body)
    assert status == 400 and "Invalid type for 'messages'" in json.loads(answer)["error"]["message"]


def test_a_body_with_nan_is_not_json(double):
    raw = (b'{"model": "m", "max_tokens": 5, "temperature": NaN, '
           b'"messages": [{"role": "user", "content": "Hi"}]}')
    status, body, _ = post(double.url + "/v1/messages", raw)
    assert status == 400 and body["error"]["message"] == ("The request body is not valid JSON: NaN is not a "
                                                          "JSON value")


def test_requests_are_kept_in_a_bounded_ring(make_double):
    double = make_double(keep=3)
    for n in range(5):
        post(double.url + "/v1/chat/completions", {"model": f"m{n}", "messages": []})
    assert len(double.requests) == 3
    assert [r.body["model"] for r in double.requests] == ["m2", "m3", "m4"]
    assert double.requests[-1].body["model"] == "m4" and double.requests[0].body["model"] == "m2"
    assert [r.body["model"] for r in double.requests[-2:]] == ["m3", "m4"]


def test_a_large_body_is_recorded_as_a_note_not_kept(make_double):
    double = make_double(max_recorded=100)
    post(double.url + "/v1/chat/completions", {"model": "m", "messages": [], "pad": "x" * 500})
    (seen,) = double.requests
    assert isinstance(seen.body, str) and "not kept" in seen.body and seen.status == 400


def test_the_double_refuses_a_non_loopback_address_unless_allowed():
    from toolcall_lab.double import bind_warning

    for host in ("0.0.0.0", "::", "192.0.2.7"):
        with pytest.raises(ValueError, match="allow_remote=True"):
            ApiDouble(host=host)
        assert "no authentication" in bind_warning(host)
    assert bind_warning("127.0.0.1") is None and bind_warning("::1") is None
    assert bind_warning("localhost") is None


def test_ipv6_loopback_serves_cleanly():
    import socket

    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        double = ApiDouble(host="::1").start()
    except OSError as error:
        pytest.skip(f"IPv6 loopback unavailable: {error}")
    try:
        assert re.fullmatch(r"http://\[::1\]:\d+", double.url)
        assert get(double.url + "/api/tags")["models"]
    finally:
        double.stop()


def test_an_address_in_use_is_one_clear_sentence(double):
    with pytest.raises(OSError, match=rf"cannot listen on 127\.0\.0\.1:{double.port}") as caught:
        ApiDouble(port=double.port).start()
    assert "\n" not in str(caught.value)


def test_accepted_connections_disable_nagle(double):
    import http.client
    import socket

    client = http.client.HTTPConnection("127.0.0.1", double.port, timeout=5)
    client.request("GET", "/api/tags")
    assert client.getresponse().read()
    (accepted,) = double._connections  # still open: the client keeps it alive
    assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    client.close()


# -- the Responses side reasons only where the model does, and remembers with store: true -------
def test_a_model_that_does_not_reason_gets_no_reasoning_and_effort_null(double):
    status, body, _ = post(double.url + "/v1/responses", {"model": "gpt-4o-mini", "input": "Hi"})
    assert status == 200 and [i["type"] for i in body["output"]] == ["message"]
    assert body["usage"]["output_tokens_details"]["reasoning_tokens"] == 0
    assert body["reasoning"] == {"effort": None, "summary": None}


def test_a_reasoning_model_echoes_its_default_effort(double):
    # as recorded: gpt-5-mini with no effort sent echoes {"effort": "medium", "summary": null}
    status, body, _ = post(double.url + "/v1/responses", {"model": "gpt-6-luna", "input": "Hi"})
    assert status == 200 and body["reasoning"] == {"effort": "medium", "summary": None}
    assert body["output"][0]["type"] == "reasoning"
    sent = post(double.url + "/v1/responses", {"model": "gpt-6-luna", "input": "Hi",
                                               "reasoning": {"effort": "low"}})[1]
    assert sent["reasoning"]["effort"] == "low"


def test_a_missing_stored_item_is_a_404(double):
    status, body, _ = post(double.url + "/v1/responses", {"model": "gpt-6-luna", "store": False, "input": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "18°C"}]})
    assert status == 404 and body["error"]["message"].startswith("Item with id 'rs_1' not found.")


def test_previous_response_id_continues_a_stored_response_through_the_sdk(double):
    import openai

    client = openai.OpenAI(base_url=double.base_url("responses"), api_key=SECRET, max_retries=0)
    tools = [{"type": "function", "strict": False, **TOOL}]
    first = client.responses.create(model="gpt-4o-mini", input=PARIS_QUESTION, tools=tools, store=True)
    (called,) = [item for item in first.output if item.type == "function_call"]
    second = client.responses.create(model="gpt-4o-mini", previous_response_id=first.id, tools=tools,
                                     input=[{"type": "function_call_output", "call_id": called.call_id,
                                             "output": "18°C, sunny"}])
    assert second.output_text == PARIS_ANSWER and second.previous_response_id == first.id
    assert [r.status for r in double.requests] == [200, 200]


def test_an_unknown_or_unstored_previous_response_is_refused_in_openais_words(double):
    status, body, _ = post(double.url + "/v1/responses", {"model": "gpt-4o-mini", "input": "Hi",
                                                          "previous_response_id": "resp_nope"})
    assert status == 400 and body["error"] == {
        "message": "Previous response with id 'resp_nope' not found.", "type": "invalid_request_error",
        "param": "previous_response_id", "code": "previous_response_not_found"}
    unstored = post(double.url + "/v1/responses", {"model": "gpt-4o-mini", "input": "Hi", "store": False})[1]
    status, body, _ = post(double.url + "/v1/responses", {"model": "gpt-4o-mini", "input": "Again",
                                                          "previous_response_id": unstored["id"]})
    assert status == 400 and body["error"]["code"] == "previous_response_not_found"


# -- thinking may be skipped; thinking bound to its prefix; earlier thinking billed as input ---------
def _kinds(turn):
    return [block.kind for block in turn.message.blocks]


def test_adaptive_thinking_at_low_effort_skips_thinking_when_no_tool_is_needed(double):
    # The double's documented rule (double/play.py): adaptive, effort "low", a reply without a
    # tool call -> no thinking block. Anthropic's pages: the model decides whether to think.
    hello = Transcript(messages=[Message.user("Hello!")])
    low = real_provider("anthropic", double, thinking="adaptive", effort="low")
    assert _kinds(low.complete(hello)) == ["text"]
    assert low.complete(hello).usage.reasoning_tokens == 0
    for options in ({"thinking": "adaptive", "effort": "high"}, {"thinking": "adaptive"},
                    {"model": "claude-haiku-4-5", "thinking": 2048, "max_tokens": 4096}):
        assert _kinds(real_provider("anthropic", double, **options).complete(hello))[0] == "reasoning"
    paris = Transcript(messages=[Message.user(PARIS_QUESTION)])  # a question that needs the tool
    assert _kinds(low.complete(paris, tools=[get_weather])) == ["reasoning", "tool_call"]


def _two_questions(provider):
    talk = run_agent(provider, PARIS_QUESTION, tools=[get_weather]).transcript
    run_agent(provider, "And in Tokyo?", tools=[get_weather], transcript=talk)
    return talk


def _redacted(talk, then="And in Cairo?"):
    from dataclasses import replace

    messages = list(talk.messages)
    result = messages[2].tool_results[0]
    messages[2] = Message.results([replace(result, content="[redacted]")])
    return Transcript(messages=[*messages, Message.user(then)])


def test_an_edit_before_bound_thinking_gets_the_apis_400_from_the_double(double):
    import anthropic

    claude = real_provider("anthropic", double, thinking="adaptive", effort="low", check=False,
                           max_retries=0)
    edited = _redacted(_two_questions(claude))
    with pytest.raises(InvalidRequestError) as caught:
        claude.complete(edited, tools=[get_weather])
    assert caught.value.status == 400
    assert "messages.5.content.0: Invalid `signature` in `thinking` block. The block is bound to a " \
           "different conversation." in str(caught.value)
    # the same body with "drop_block": the API drops the invalid blocks and says which, in the reply
    body = encode_request(edited, [get_weather], api="anthropic", model=claude.model,
                          thinking="adaptive", effort="low")
    body["thinking"]["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
    client = anthropic.Anthropic(base_url=double.url, api_key=SECRET, max_retries=0)
    reply = client.messages.create(**body)
    assert reply.model_extra["input_transformations"] == [
        {"type": "thinking_dropped", "path": "messages.5.content.0", "reason": "prefix_binding_mismatch"}]
    # the safe way: the thinking after the edit left out, by hand
    safe = Transcript(messages=[m if i <= 2 else Message(m.role, tuple(b for b in m.blocks
                                                                        if b.kind != "reasoning"))
                                for i, m in enumerate(edited)])
    assert claude.complete(safe, tools=[get_weather]).tool_calls


def test_earlier_thinking_is_billed_as_input_where_the_model_keeps_it(double):
    # Haiku 5.5 keeps earlier turns' thinking in context, billed as input; Haiku 4.5's API strips it.
    from toolcall_lab.models import rules_of

    for model, thinking, keeps in (("claude-haiku-5-5", "adaptive", True), ("claude-haiku-4-5", 2048, False)):
        provider = real_provider("anthropic", double, model=model, thinking=thinking, max_tokens=4096)
        talk = _two_questions(provider)
        assert rules_of(model).keeps_thinking is keeps
        ask = Transcript(messages=[*talk.messages, Message.user("And in Cairo?")])
        without = Transcript(messages=[Message(m.role, tuple(b for b in m.blocks if b.kind != "reasoning"))
                                       for m in ask])
        # (the same tools each time: they are part of every thinking block's prefix)
        billed = (provider.complete(ask, tools=[get_weather]).usage.input_tokens
                  - provider.complete(without, tools=[get_weather]).usage.input_tokens)
        assert (billed > 0) is keeps, (model, billed)
