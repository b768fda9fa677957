"""Cancel (`cancel.py`): every open call answered, so the next request is valid on all four wires.

Through the real SDKs against the API double (in-process, `real_provider`): the transcript a
cancelled run leaves is refused by every API that checks, and accepted once cancelled.
"""

from __future__ import annotations

import pytest

from conftest import REAL_PROVIDERS, real_provider
from toolcall_lab import InvalidRequestError, Message, ToolCall, ToolResult, Transcript
from toolcall_lab.cancel import CANCELLED, cancel_open_calls, open_calls
from toolcall_lab.tools import get_weather


@pytest.fixture
def make_double(make_in_process_double):
    return make_in_process_double


def stopped(*, answered: int = 0) -> Transcript:
    """A run cancelled after the model asked for two calls, `answered` of them answered."""
    calls = [ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
             ToolCall("toolu_02", "get_weather", {"city": "Rome"})]
    t = Transcript("Be brief.", [Message.user("Weather in Paris and Rome?"), Message.assistant(*calls)])
    if answered:
        t.append(Message.results([ToolResult(c.id, "18°C, sunny") for c in calls[:answered]]))
    return t


#: Ollama's API checks no pairing of calls and results: it answers either way.
CHECKS_PAIRING = {"anthropic", "openai", "openai-chat"}


@pytest.mark.parametrize("name", sorted(REAL_PROVIDERS))
@pytest.mark.parametrize("answered", [0, 1])
def test_a_cancelled_run_is_refused_until_its_open_calls_are_answered_then_accepted(make_double, name,
                                                                                      answered):
    provider = real_provider(name, make_double())
    t = stopped(answered=answered)
    if name in CHECKS_PAIRING:
        with pytest.raises(InvalidRequestError):
            provider.complete(t, tools=[get_weather])
    else:
        provider.complete(t, tools=[get_weather])  # answered, though its model read a hole
    results = cancel_open_calls(t, reason="the user pressed Stop")
    assert [r.call_id for r in results] == ["toolu_01", "toolu_02"][answered:]
    assert all(r.is_error and r.content.startswith(CANCELLED) and "the user pressed Stop" in r.content
               for r in results)
    assert open_calls(t) == [] and [m.role for m in t] == ["user", "assistant", "user"]
    assert [r.call_id for r in t[2].tool_results] == ["toolu_01", "toolu_02"]   # one message, call order
    turn = provider.complete(t, tools=[get_weather])
    assert turn.message.role == "assistant"


def test_nothing_open_means_nothing_written():
    t = stopped(answered=2)
    before = list(t.messages)
    assert cancel_open_calls(t) == [] and t.messages == before
    assert cancel_open_calls(Transcript()) == []


def test_a_message_typed_after_the_cancel_stays_after_the_answers():
    t = stopped()
    t.append(Message.user("Never mind, just Paris."))
    cancel_open_calls(t)
    assert [bool(m.tool_results) for m in t] == [False, False, True, False]
    assert t[-1].text == "Never mind, just Paris."
