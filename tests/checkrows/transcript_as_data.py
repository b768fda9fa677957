"""Lesson 4's wrong answers: values, and classes that break the contract one way each."""

from __future__ import annotations

import atexit
import json
from dataclasses import replace
from types import SimpleNamespace

from checkrows import Row
from toolcall_lab import Message, ScriptedProvider, StopReason, Transcript, Turn, Usage, call, run_agent
from toolcall_lab.checks import transcript_as_data as key
from toolcall_lab.checks.transcript_as_data import EchoProvider, PartsProvider, Traced
from toolcall_lab.examples import PARIS_QUESTION, SYSTEM_PROMPT, weather_policy
from toolcall_lab.parts_api import PartsServer
from toolcall_lab.tokens import estimate_tokens
from toolcall_lab.tools import get_weather, search_kb

ANTHROPIC_MESSAGES = [
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18°C, sunny"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "It's 18°C and sunny in Paris."}]},
]

TRANSCRIPT = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather],
                       system=SYSTEM_PROMPT).transcript


def researcher():
    topics = ["days off", "remote work days", "password help desk", "laptop repair price",
              "travel receipts days", "meals on business trips"]
    provider = ScriptedProvider([*(call("search_kb", query=t, limit=3) for t in topics), "Six points."])
    run_agent(provider, "What should a new starter know from the handbook?", tools=[search_kb])
    return provider


def long_talk():
    talk = Transcript(SYSTEM_PROMPT)
    provider = ScriptedProvider(weather_policy)
    for question in [PARIS_QUESTION, "And in Tokyo?", "And in Cairo?"]:
        run_agent(provider, question, tools=[get_weather], transcript=talk)
    return talk


LONG_TALK = long_talk()
SUMMARY = "Earlier: Paris was 18°C and sunny, Tokyo 22°C and cloudy."
REFUSED_ON_CALL_2 = SimpleNamespace(requests=[SimpleNamespace(status=200), SimpleNamespace(status=400)])


def redacted(transcript=TRANSCRIPT, *, call_id=None, content="[redacted]", is_error=False):
    results = [replace(r, call_id=call_id or r.call_id, content=content, is_error=is_error)
               for r in transcript[2].tool_results]
    return Transcript(transcript.system, [transcript[0], transcript[1], Message.results(results),
                                          *transcript.messages[3:]])


def summarised(text=SUMMARY, *, synthetic=True, kept=4, same_objects=True):
    tail = LONG_TALK.messages[-kept:]
    if not same_objects:
        tail = [Message.from_dict(m.to_dict()) for m in tail]
    return Transcript(LONG_TALK.system, [Message.user(text, synthetic=synthetic), *tail])


# -- EchoProviders that each break one promise ------------------------------------------------------
def _echo_turn(provider, text, transcript, tools, **usage):
    counted = {"input_tokens": 50, "output_tokens": max(1, estimate_tokens(text)), "estimated": True} | usage
    return Turn(Message.assistant(text), StopReason.END_TURN, Usage(**counted), provider.model)


class EchoesTheFirstQuestion(EchoProvider):
    def complete(self, transcript, *, tools=()):
        first = next(m.text for m in transcript if m.role == "user")
        return _echo_turn(self, first, transcript, tools)


class AppendsItsReply(EchoProvider):
    def complete(self, transcript, *, tools=()):
        turn = super().complete(transcript, tools=tools)
        transcript.append(turn.message)
        return turn


class ClaimsItsUsageWasMeasured(EchoProvider):
    def complete(self, transcript, *, tools=()):
        return _echo_turn(self, transcript.last_user_text(), transcript, tools, estimated=False)


class ReturnsText(EchoProvider):
    def complete(self, transcript, *, tools=()):
        return transcript.last_user_text()


# -- Traced wrappers that each break one promise -------------------------------------------------
class Silent(Traced):
    def complete(self, transcript, *, tools=()):
        return self.inner.complete(transcript, tools=tools)


class CopiesTheTurn(Traced):
    def complete(self, transcript, *, tools=()):
        return replace(super().complete(transcript, tools=tools), model=self.model)


class OnlyCounts(Traced):
    def complete(self, transcript, *, tools=()):
        turn = self.inner.complete(transcript, tools=tools)
        self.calls += 1
        print(f"call {self.calls}")
        return turn


class TwoLinesEach(Traced):
    def complete(self, transcript, *, tools=()):
        print("calling...")
        return super().complete(transcript, tools=tools)


class NamedTraced(Traced):
    def __init__(self, inner):
        super().__init__(inner)
        self.name = "traced"


ROWS = [
    Row("4 predict_last_question", key.predict_last_question, (ANTHROPIC_MESSAGES,), lambda: "result",
        (lambda: "question", lambda: "the result", lambda: "error", lambda: 2)),
    Row("4 predict_biggest", key.predict_biggest, (researcher(),), lambda: "tool_result",
        (lambda: "text", lambda: "tool_results", lambda: "a tool_result", lambda: 1528, lambda: "tool_call")),
    Row("4 echo_provider", key.echo_provider, (), lambda: EchoProvider,
        (lambda: EchoProvider(), lambda: "EchoProvider", lambda: EchoesTheFirstQuestion,
         lambda: AppendsItsReply, lambda: ClaimsItsUsageWasMeasured, lambda: ReturnsText)),
    Row("4 predict_refused_call", key.predict_refused_call, (REFUSED_ON_CALL_2,), lambda: 2,
        (lambda: 1, lambda: "2", lambda: 0, lambda: "call 2")),
    Row("4 q1", key.q1, (), lambda: False, (lambda: True, lambda: "False", lambda: 0, lambda: None)),
    Row("4 q2", key.q2, (), lambda: (3040, 50),
        (lambda: [3040, 50], lambda: (40, 50), lambda: (3040, 200), lambda: "(3040, 50)", lambda: 3090)),
    Row("4 q3", key.q3, (), lambda: "tool_result",
        (lambda: "tool_call", lambda: "a tool_result", lambda: "reasoning", lambda: ["tool_result"])),
    Row("4 exercise_1", key.exercise_1, (TRANSCRIPT,), redacted,
        (lambda: TRANSCRIPT, lambda: "[redacted]", lambda: redacted(content="[REDACTED]"),
         lambda: redacted(call_id=TRANSCRIPT[1].tool_calls[0].id.upper()),
         lambda: redacted(is_error=True), lambda: list(redacted().messages))),
    Row("4 exercise_2", key.exercise_2, (LONG_TALK,), summarised,
        (lambda: SUMMARY, lambda: summarised(synthetic=False),
         lambda: summarised("Paris and Tokyo were nice."),
         lambda: summarised("Earlier: Paris was sunny, Tokyo 22°C and cloudy."),
         lambda: summarised(kept=5), lambda: summarised(same_objects=False), lambda: LONG_TALK)),
    Row("4 exercise_3", key.exercise_3, (), lambda: Traced,
        (lambda: Traced(ScriptedProvider(weather_policy)), lambda: "Traced", lambda: Silent,
         lambda: CopiesTheTurn, lambda: OnlyCounts, lambda: TwoLinesEach, lambda: NamedTraced)),
]


# -- Parts API adapters that each break one clause ---------------------------------------------
PARTS_SERVER = PartsServer().start()  # the weather model; stopped when the tests end
atexit.register(PARTS_SERVER.stop)


def _each_part(request, kind):
    """Every `kind` part (functionCall, functionResponse) of a Parts API request, to change it."""
    return [part[kind] for content in request["contents"] for part in content["parts"] if kind in part]


class CallsEndTheTurn(PartsProvider):
    """Trusts finishReason: STOP for a reply of calls too, so it reads them as an answer."""

    def complete(self, transcript, *, tools=()):
        turn = super().complete(transcript, tools=tools)
        return replace(turn, stop_reason=StopReason.END_TURN)


class ArgumentsAsText(PartsProvider):
    """Sends the call's arguments as a string of JSON, as Chat wants them."""

    def _post(self, request):
        for call_part in _each_part(request, "functionCall"):
            call_part["args"] = json.dumps(call_part["args"])
        return super()._post(request)


class LosesTheErrorFlag(PartsProvider):
    """Sends a failed tool's text as its output."""

    def _post(self, request):
        for response in _each_part(request, "functionResponse"):
            response["response"] = {"output": next(iter(response["response"].values()))}
        return super()._post(request)


class AssistantRole(PartsProvider):
    """Calls the model's turns "assistant", as two other APIs do."""

    def _post(self, request):
        for content in request["contents"]:
            content["role"] = "user" if content["role"] == "user" else "assistant"
        return super()._post(request)


class AppendsTheReply(PartsProvider):
    """Appends its reply to the caller's transcript, which is the loop's job."""

    def complete(self, transcript, *, tools=()):
        turn = super().complete(transcript, tools=tools)
        transcript.append(turn.message)
        return turn


ROWS.append(
    Row("4 parts_provider", key.parts_provider, (PARTS_SERVER,), lambda: PartsProvider,
        (lambda: PartsProvider(PARTS_SERVER.url), lambda: "MyPartsProvider", lambda: CallsEndTheTurn,
         lambda: ArgumentsAsText, lambda: LosesTheErrorFlag, lambda: AssistantRole,
         lambda: AppendsTheReply)))
