"""Lesson 9's wrong answers: providers that each break one promise, and the shortcuts (the
Parts API adapter's are lesson 10's, in an_adapter_of_your_own.py).

The right answers are the key's worked classes defined the way a learner's cell defines them
(the `your-code` cell of the lesson with the worked definition filled in, run outside the
kit), since a class that is or builds on one of the kit's own is refused with "write it
yourself". Each broken variant builds on that learner-made class and breaks one thing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

from checkrows import Row
from lessons import NOTEBOOKS, written
from toolcall_lab import Message, ScriptedProvider, StopReason, Turn, Usage
from toolcall_lab.checks import _worked_providers as worked
from toolcall_lab.checks import your_own_provider as key
from toolcall_lab.examples import weather_policy
from toolcall_lab.providers.openai_chat import OpenAIChatProvider
from toolcall_lab.wire import chat

LESSON = NOTEBOOKS / "09_your_own_provider.ipynb"
SETUP = ("from toolcall_lab import Message, Provider, ScriptedProvider, StopReason\n"
         "from toolcall_lab import Turn, Usage, get_provider, provider_from_env, run_agent\n")

ECHO, TRACED = written(LESSON, "EchoProvider", SETUP), written(LESSON, "Traced", SETUP)


# -- EchoProviders that each break one promise ------------------------------------------------------
def _echo_turn(provider, text, **usage):
    counted = {"input_tokens": 50, "output_tokens": 5, "estimated": True} | usage
    return Turn(Message.assistant(text), StopReason.END_TURN, Usage(**counted), provider.model)


class EchoesTheFirstQuestion(ECHO):
    def complete(self, transcript, *, tools=()):
        first = next(m.text for m in transcript if m.role == "user")
        turn = super().complete(transcript, tools=tools)
        return replace(turn, message=Message.assistant(first))


class AppendsItsReply(ECHO):
    def complete(self, transcript, *, tools=()):
        turn = super().complete(transcript, tools=tools)
        transcript.append(turn.message)
        return turn


class ClaimsItsUsageWasMeasured(ECHO):
    def complete(self, transcript, *, tools=()):
        turn = super().complete(transcript, tools=tools)
        return replace(turn, usage=replace(turn.usage, estimated=False))


class ReturnsText(ECHO):
    def complete(self, transcript, *, tools=()):
        return transcript.last_user_text()


class UsageOfOne(ECHO):
    """A constant Usage(1, 1): above zero, and no estimate of anything."""

    def complete(self, transcript, *, tools=()):
        return _echo_turn(self, transcript.last_user_text(), input_tokens=1, output_tokens=1)


class CountsOnlyTheQuestion(ECHO):
    """Estimates input from the newest words alone, not from all the call sends."""

    def complete(self, transcript, *, tools=()):
        words = transcript.last_user_text()
        turn = super().complete(transcript, tools=tools)
        return replace(turn, usage=replace(turn.usage, input_tokens=max(1, len(words) // 4)))


class LeavesOutTheTools(ECHO):
    """Estimates what was sent without the tools, which travel with every call."""

    def complete(self, transcript, *, tools=()):
        return super().complete(transcript, tools=())


class ScriptedEcho(ScriptedProvider):
    """The shortcut: the kit's scripted provider already echoes."""

    name, model = "echo", "echo-1"

    def __init__(self):
        super().__init__()


# -- Traced wrappers that each break one promise -------------------------------------------------
class Silent(TRACED):
    def complete(self, transcript, *, tools=()):
        return self.inner.complete(transcript, tools=tools)


class CopiesTheTurn(TRACED):
    def complete(self, transcript, *, tools=()):
        return replace(super().complete(transcript, tools=tools), model=self.model)


def _printing(line):
    """A Traced whose line is `line.format(self=..., n=call number, u=usage)`."""

    class Printing(TRACED):
        def complete(self, transcript, *, tools=()):
            turn = self.inner.complete(transcript, tools=tools)
            self.calls += 1
            print(line.format(self=self, n=self.calls, u=turn.usage))
            return turn

    return Printing


OnlyCounts = _printing("{self.name}/{self.model} call {n}")
SwapsInAndOut = _printing("{self.name}/{self.model} call {n}: {u.output_tokens} in, {u.input_tokens} out")
NoProvider = _printing("call {n}: {u.input_tokens} in, {u.output_tokens} out")
HardCodesTheName = _printing("scripted/{self.model} call {n}: {u.input_tokens} in, {u.output_tokens} out")


class TwoLinesEach(TRACED):
    def complete(self, transcript, *, tools=()):
        print("calling...")
        return super().complete(transcript, tools=tools)


class NamedTraced(TRACED):
    def __init__(self, inner):
        super().__init__(inner)
        self.name = "traced"


def forgetful():
    """Lesson 9's ForgetfulChat: every call's arguments re-sent as an object."""
    def encode(transcript, tools=(), **options):
        body = chat.encode_request(transcript, tools, **options)
        for message in body["messages"]:
            for tool_call in message.get("tool_calls", []):
                tool_call["function"]["arguments"] = json.loads(tool_call["function"]["arguments"])
        return body

    return type("ForgetfulChat", (OpenAIChatProvider,), {"codec": SimpleNamespace(
        encode_request=encode, check_request=chat.check_request, decode_response=chat.decode_response)})


REFUSED_ON_CALL_2 = SimpleNamespace(requests=[SimpleNamespace(status=200), SimpleNamespace(status=400)])

ROWS = [
    Row("9 echo_provider", key.echo_provider, (), lambda: ECHO,
        (lambda: ECHO(), lambda: "EchoProvider", lambda: EchoesTheFirstQuestion,
         lambda: AppendsItsReply, lambda: ClaimsItsUsageWasMeasured, lambda: ReturnsText,
         lambda: UsageOfOne, lambda: CountsOnlyTheQuestion, lambda: LeavesOutTheTools,
         lambda: ScriptedEcho, lambda: worked.EchoProvider)),
    Row("9 predict_refused_call", key.predict_refused_call, (REFUSED_ON_CALL_2,), lambda: 2,
        (lambda: 1, lambda: "2", lambda: 0, lambda: "call 2")),
    Row("9 q1", key.q1, (forgetful(),), lambda: 0,
        (lambda: 1, lambda: 2, lambda: "0", lambda: None)),
    Row("9 exercise_1", key.exercise_1, (), lambda: TRACED,
        (lambda: TRACED(ScriptedProvider(weather_policy)), lambda: "Traced", lambda: Silent,
         lambda: CopiesTheTurn, lambda: OnlyCounts, lambda: TwoLinesEach, lambda: NamedTraced,
         lambda: SwapsInAndOut, lambda: NoProvider, lambda: HardCodesTheName,
         lambda: worked.Traced)),
]
