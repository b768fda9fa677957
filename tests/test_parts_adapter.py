"""The worked solution of lesson 10: a Parts API adapter, written as a learner writes it, that keeps
the provider contract; `parts_api.post`, which sends its bodies; and broken Parts adapters the
contract names."""

from __future__ import annotations

import contextlib

import pytest

from toolcall_lab import Message, ReasoningBlock, TextBlock, ToolResult, Transcript, run_agent
from toolcall_lab.checks._worked_providers import MyPartsProvider
from toolcall_lab.contract import CLAUSES, check_provider
from toolcall_lab.errors import InvalidRequestError, ProviderError, ProviderUnreachableError
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.parts_api import PartsServer, first_problem, post
from toolcall_lab.tools import get_weather


@pytest.fixture
def server():
    with PartsServer() as running:
        yield running


def test_what_it_encodes_keeps_the_apis_rules():
    transcript = Transcript("Be brief.", [Message.user(PARIS_QUESTION)])
    assert first_problem(MyPartsProvider("").encode(transcript, [get_weather])) is None


def test_another_providers_thinking_is_not_sent():
    """The docstring's promise: a reasoning block has no part, so it is left out, and a message
    of thinking alone is left out whole (it was sent as a null part before)."""
    thinking = ReasoningBlock("Paris, then.", provider="anthropic", opaque={"signature": "sig"})
    transcript = Transcript("", [Message.user(PARIS_QUESTION),
                                 Message("assistant", (thinking,)),
                                 Message("assistant", (thinking, TextBlock("Sunny."))),
                                 Message.user("Thanks.")])
    body = MyPartsProvider("").encode(transcript, [get_weather])
    assert [content["parts"] for content in body["contents"]] == [
        [{"text": PARIS_QUESTION}], [{"text": "Sunny."}], [{"text": "Thanks."}]]
    assert first_problem(body) is None


def test_the_worked_adapter_keeps_the_contract(server):
    assert check_provider(MyPartsProvider(server.url)) == []


def test_the_worked_adapter_keeps_the_contract_as_a_factory():
    with contextlib.ExitStack() as servers:
        def factory(policy):
            return MyPartsProvider(servers.enter_context(PartsServer(policy)).url)
        assert check_provider(factory) == []


def test_the_worked_adapter_runs_the_loop_over_the_wire(server):
    run = run_agent(MyPartsProvider(server.url), PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [seen.status for seen in server.requests] == [200, 200]
    assert server.requests[1].body["contents"][2]["parts"][0]["functionResponse"]["name"] == "get_weather"


def test_post_reports_the_apis_400_in_its_words_and_a_server_that_is_gone(server):
    orphan = Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!"),
                                  Message.results([ToolResult("fc_9", "18°C")])])
    with pytest.raises(InvalidRequestError, match=r'\(400: contents\[2\]\.parts\[0\]\.functionResponse\.id '
                                                  r'"fc_9" matches no functionCall before it'):
        MyPartsProvider(server.url).complete(orphan)
    with pytest.raises(ProviderError, match=r"\(404: "):
        post(server.url + "/v1/nowhere", {"contents": []})
    with PartsServer() as gone:
        url = gone.url
    with pytest.raises(ProviderUnreachableError, match="start a PartsServer"):
        MyPartsProvider(url).complete(Transcript(messages=[Message.user("Hi")]))


def test_decode_reads_max_tokens_and_safety():
    def reply(reason, parts):
        return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": reason}],
                "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2}, "modelVersion": "m"}
    decode = MyPartsProvider("").decode
    assert decode(reply("MAX_TOKENS", [{"text": "It's"}])).stop_reason == "max_tokens"
    assert decode(reply("SAFETY", [{"text": "No."}])).stop_reason == "refusal"
    assert decode(reply("OTHER", [{"text": "Hm."}])).stop_reason == "end_turn"


# -- broken Parts adapters are named by the contract --------------------------------------------

class SendsErrorsAsOutput(MyPartsProvider):
    """Forgets the "error" key: a failed tool reads as a result."""

    def encode(self, transcript, tools):
        body = super().encode(transcript, tools)
        for content in body["contents"]:
            for part in content["parts"]:
                response = part.get("functionResponse", {}).get("response", {})
                if "error" in response:
                    response["output"] = response.pop("error")
        return body


class ForgetsTheId(MyPartsProvider):
    """Reads the call's name and arguments but not its id."""

    def decode(self, body):
        for part in body["candidates"][0]["content"]["parts"]:
            if "functionCall" in part:
                part["functionCall"]["id"] = ""
        return super().decode(body)


def test_a_parts_adapter_that_loses_the_error_flag_fails_error_result(server):
    failures = check_provider(SendsErrorsAsOutput(server.url))
    assert [f.clause for f in failures] == ["error_result"]
    assert "got the text \"It's service unavailable and try again later in Paris.\"" in failures[0].message


def test_a_parts_adapter_that_forgets_the_id_is_named(server):
    failures = check_provider(ForgetsTheId(server.url))
    assert [f.clause for f in failures] == list(CLAUSES)  # every clause that sends the call back fails
    assert failures[0].message == ("expected the call get_weather{city: 'Paris'} to carry an id to answer it "
                                   "with, got an empty id")
    # the server refuses a response with an empty id, and says where
    assert failures[2].message.startswith(
        "expected a reply to your error result, but complete() raised InvalidRequestError: the Parts API "
        "refused the request (400: contents[1].parts[0].functionCall.id is empty")
