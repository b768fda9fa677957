"""The provider contract kit: the kit's providers keep it, and broken adapters are named.

Each broken adapter below has one bug a learner's first adapter really has; the test pins
which clauses catch it and that the sentence says what went wrong.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from types import SimpleNamespace

import pytest

from conftest import REAL_PROVIDERS, real_provider
from toolcall_lab import Message, ScriptedProvider, Transcript, Usage
from toolcall_lab.contract import CLAUSES, Failure, check_provider, report, through_double
from toolcall_lab.double import ApiDouble
from toolcall_lab.errors import ProviderError, UsageError
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.providers.openai_chat import OpenAIChatProvider
from toolcall_lab.wire import chat


@pytest.fixture
def make_double(make_in_process_double):
    """This file's doubles never serve: the SDKs reach them in-process (`real_provider`, `double=`)."""
    return make_in_process_double


NAMES = ["scripted", *REAL_PROVIDERS]


def test_the_clauses_are_the_six_promises_in_order():
    assert list(CLAUSES) == ["paris_run", "parallel_calls", "error_result", "leaves_transcript",
                             "unique_ids", "usage"]
    for check in CLAUSES.values():
        summary, _, proof = check.__doc__.partition("\n\n")
        assert len(summary) <= 90 and "\n" not in summary and proof.strip().startswith("Proves")


# -- the kit's own providers keep the contract --------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_kit_provider_keeps_the_contract_as_a_factory(name):
    if name == "ollama":
        pytest.importorskip("ollama")
    target = ScriptedProvider if name == "scripted" else through_double(name)
    assert check_provider(target) == []


@pytest.mark.parametrize("name", NAMES)
def test_every_kit_provider_keeps_the_contract_as_a_ready_provider(name, double):
    provider = ScriptedProvider(weather_policy) if name == "scripted" else real_provider(name, double)
    assert check_provider(provider) == []
    if name != "scripted":
        provider._client.close()  # the SDK's pooled connection, before the double stops


# -- broken adapters: each one bug, each named by the right clause -----------------------------

class Adapter:
    """A provider around `ScriptedProvider(policy)`; subclasses add one bug each."""

    name, model = "broken", "broken-1"

    def __init__(self, policy=weather_policy):
        self.inner = ScriptedProvider(policy)

    def complete(self, transcript, *, tools=()):
        return self.fix(self.inner.complete(self.send(transcript), tools=tools), transcript)

    def send(self, transcript):
        return transcript

    def fix(self, turn, transcript):
        return turn


def with_blocks(turn, blocks):
    return replace(turn, message=replace(turn.message, blocks=tuple(blocks)))


def without_ids(turn):
    return with_blocks(turn, [replace(b, id="") if b.kind == "tool_call" else b for b in turn.message.blocks])


class DropsCallId(Adapter):
    def fix(self, turn, transcript):
        return without_ids(turn)


class AppendsTheReply(Adapter):
    def fix(self, turn, transcript):
        transcript.append(turn.message)  # the bug: the caller appends, not the provider
        return turn


class ReversesCalls(Adapter):
    def fix(self, turn, transcript):
        return with_blocks(turn, reversed(turn.message.blocks))


class ReusesIds(Adapter):
    def fix(self, turn, transcript):
        return with_blocks(turn, [replace(b, id="call_1") if b.kind == "tool_call" else b
                                  for b in turn.message.blocks])


class NumbersCallsPerReply(Adapter):
    """Numbers the calls of each reply from 1, as a first draft that counts per reply does."""

    def fix(self, turn, transcript):
        calls = iter(range(1, 10))
        return with_blocks(turn, [replace(b, id=f"call_{next(calls)}") if b.kind == "tool_call" else b
                                  for b in turn.message.blocks])


class LosesErrorFlag(Adapter):
    def send(self, transcript):
        def plain(message):
            blocks = [replace(b, is_error=False) if b.kind == "tool_result" else b for b in message.blocks]
            return replace(message, blocks=tuple(blocks))
        return Transcript(transcript.system, [plain(m) for m in transcript])


class NoUsage(Adapter):
    def fix(self, turn, transcript):
        return replace(turn, usage=Usage())


class Raises(Adapter):
    def complete(self, transcript, *, tools=()):
        raise RuntimeError("the adapter fell over\nTraceback (most recent call last): ...")


class KeepsOneMessage(Adapter):
    """Hands back the same reply message object twice: its id is not new."""

    def fix(self, turn, transcript):
        if not hasattr(self, "first"):
            self.first = turn.message
        return replace(turn, message=replace(turn.message, id=self.first.id))


BROKEN = {
    # adapter: {clause it breaks: words its sentence must hold}
    DropsCallId: {"paris_run": "to carry an id to answer it with, got an empty id",
                  "parallel_calls": "to carry an id", "unique_ids": "expected every call to carry an id"},
    AppendsTheReply: {"leaves_transcript": "it has 2 (the caller appends the reply, not the provider)"},
    ReversesCalls: {"parallel_calls": "in the order the model made them (Tokyo, Paris), got Paris, Tokyo"},
    NumbersCallsPerReply: {"unique_ids": "but 'call_1' names both get_weather{'city': 'Paris'} and "
                                         "get_weather{'city': 'Tokyo'}"},
    ReusesIds: {"parallel_calls": "expected each call its own id, got 'call_1' for 2 calls",
                "unique_ids": "'call_1' names both get_weather{'city': 'Paris'} and get_weather"},
    LosesErrorFlag: {"error_result": "expected the answer \"I couldn't get the weather for Paris.\" after "
                                     "your error result, got the text \"It's service unavailable and try "
                                     "again later in Paris.\""},
    NoUsage: {"usage": "got Usage(input_tokens=0, output_tokens=0) on reply 1"},
    KeepsOneMessage: {"unique_ids": "expected reply 2 to be a new message with an id of its own"},
    Raises: dict.fromkeys(CLAUSES, "but complete() raised RuntimeError: the adapter fell over"),
}


@pytest.mark.parametrize("adapter", BROKEN, ids=lambda cls: cls.__name__)
def test_a_broken_adapter_fails_the_clauses_that_catch_its_bug(adapter):
    failures = check_provider(adapter)
    assert [f.clause for f in failures] == [name for name in CLAUSES if name in BROKEN[adapter]]
    for failure in failures:
        assert BROKEN[adapter][failure.clause] in failure.message
        assert "\n" not in failure.message and "Traceback" not in failure.message


def test_a_broken_wire_adapter_through_the_double_is_named(make_double):
    # a Chat Completions adapter whose decoder forgets the call's id, as a first draft does
    class ForgetfulChat(OpenAIChatProvider):
        codec = SimpleNamespace(encode_request=chat.encode_request, check_request=chat.check_request,
                                decode_response=lambda body: without_ids(chat.decode_response(body)))

    failures = check_provider(lambda policy: ForgetfulChat(double=make_double(policy), api_key="unused",
                                                           max_retries=0))
    assert [f.clause for f in failures] == ["paris_run", "parallel_calls", "unique_ids"]
    assert failures[0] == Failure("paris_run", "expected the call get_weather{city: 'Paris'} to carry an "
                                               "id to answer it with, got an empty id")


def test_a_factory_that_raises_or_builds_no_provider_is_a_failure_per_clause():
    def broken_factory(policy):
        raise ValueError("no such model\nmore detail")

    assert check_provider(broken_factory, only=["usage"]) == [
        Failure("usage", "expected the factory to build a provider, but it raised ValueError: no such model")]
    assert check_provider(lambda policy: 42, only=["usage"]) == [
        Failure("usage", "expected a provider with a complete() method, got int")]


def test_a_reply_that_is_not_a_turn_is_named():
    class ReturnsAMessage(Adapter):
        def fix(self, turn, transcript):
            return turn.message

    (failure,) = check_provider(ReturnsAMessage, only=["paris_run"])
    assert failure.message == "expected complete() to return a Turn for the Paris question, got Message"


def test_a_transcript_changed_in_place_is_named():
    class RewritesHistory(Adapter):
        def send(self, transcript):
            transcript.messages[0] = Message.user(PARIS_QUESTION)  # same words, a new object
            transcript.system = None
            return transcript

    (failure,) = check_provider(RewritesHistory, only=["leaves_transcript"])
    assert failure.message == ("expected the system prompt to stay 'Be brief.', but complete() changed it "
                               "to None")


# -- the report: one line per clause -----------------------------------------------------------

def test_the_report_shows_one_line_per_clause():
    shown = repr(report(LosesErrorFlag))
    title, *lines = shown.splitlines()
    assert title == "Provider contract for LosesErrorFlag: 5 of 6 clauses hold"
    assert [line.split()[:2] for line in lines] == [
        ["pass", name] if name != "error_result" else ["FAIL", name] for name in CLAUSES]
    assert "reaches the model as an error" not in shown and "service unavailable" in shown


def test_the_report_names_its_subject_and_shows_as_html():
    assert report(ScriptedProvider(weather_policy), only=["usage"]).ok
    result = report(Raises(), only=["paris_run", "usage"])
    assert repr(result).splitlines()[0] == "Provider contract for Raises: 0 of 2 clauses hold"
    assert [f.clause for f in result.failures] == ["paris_run", "usage"]
    html = result._repr_html_()
    assert html.count("<tr>") == 2 and html.count("FAIL") == 2
    assert "RuntimeError: the adapter fell over" in html and "Traceback" not in html
    assert repr(report(lambda p: ScriptedProvider(p), only=[])).startswith(
        "Provider contract for a factory function: 0 of 0")


def test_a_model_text_is_escaped_in_the_html():
    result = report(ScriptedProvider(["<b>hi</b>"]), only=["paris_run"])
    assert "&lt;b&gt;hi&lt;/b&gt;" in result._repr_html_() and "<b>hi" not in result._repr_html_()


def test_unknown_clauses_and_non_providers_are_refused_in_one_sentence():
    with pytest.raises(UsageError, match="no clause called 'paris'; the clauses are paris_run, "):
        check_provider(ScriptedProvider, only=["paris"])
    with pytest.raises(TypeError, match="takes a provider .* got 42"):
        check_provider(42)


# -- through_double: every double it starts is stopped -----------------------------------------

def test_check_provider_stops_the_doubles_it_started():
    before = set(threading.enumerate())
    factory = through_double("openai-chat")
    assert check_provider(factory, only=["paris_run", "usage"]) == []
    assert factory._doubles == []
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=2)  # a thread that was serving a closed connection ends in a moment
    assert [t.name for t in set(threading.enumerate()) - before] == []


def test_leaving_the_with_block_stops_every_double():
    transcript = Transcript(messages=[Message.user("Hi")])
    with through_double("openai-chat") as factory:
        provider = factory(["Hello!"])
        assert provider.complete(transcript).text == "Hello!"
        assert check_provider(factory, only=["usage"]) == []
        assert len(factory._doubles) == 1, "the check stops only the doubles it started"
    assert factory._doubles == []
    assert provider._client.is_closed() and not ApiDouble.serving_at(provider.base_url)
    # subtle: which of the two the error names is the SDK's choice: openai before 3.14.1 wraps
    # the closed client's RuntimeError in APIConnectionError, which the kit says as "nothing answers"
    with pytest.raises(ProviderError, match="has been closed|nothing answers"):
        provider.complete(transcript)


def test_through_double_wants_a_provider_that_speaks_an_api():
    with pytest.raises(UsageError, match="not 'scripted'; check ScriptedProvider itself"):
        through_double("scripted")
    assert repr(through_double("anthropic")) == "through_double('anthropic')"


def test_a_real_key_is_never_sent_to_the_double(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key-123")
    with through_double("anthropic") as factory:
        assert factory()._client.api_key == "no-key-needed"

