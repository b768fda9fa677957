"""The permission gate: a refused call never runs, and the model is told it was refused, and why."""

from __future__ import annotations

import pytest

from toolcall_lab import ScriptedProvider, Tool, ToolCall, call, run_agent, tool
from toolcall_lab.approval import REFUSED, refusal
from toolcall_lab.errors import UsageTypeError
from toolcall_lab.events import ToolExecuted, ToolRefused
from toolcall_lab.tools import get_weather

RAN: list[str] = []


@tool(needs_approval=True)
def shred(path: str) -> str:
    """Shred a document (a demo: it only writes down that it was asked)."""
    RAN.append(path)
    return f"shredded {path}"


@tool
def count(words: str) -> int:
    """Count words."""
    RAN.append(words)
    return len(words.split())


@pytest.fixture(autouse=True)
def clean():
    RAN.clear()


def shred_then_answer():
    return ScriptedProvider([call("shred", path="minutes.txt"), "I tried."])


@pytest.mark.parametrize(("approve", "reason"), [
    (lambda c: False, "not approved"),
    (lambda c: "shredding needs a manager", "shredding needs a manager"),
    (lambda c: None, "the approve function returned None, and only True lets a call run"),
    (lambda c: 1, "the approve function returned 1, and only True lets a call run"),
    (lambda c: {}["boom"], "the approval check failed: KeyError: 'boom'"),
    (lambda c: "  ", "not approved"),
])
def test_anything_but_true_refuses_and_the_model_reads_why(approve, reason):
    run = run_agent(shred_then_answer(), "Shred the minutes.", tools=[shred], approve=approve)
    result = run.transcript[2].tool_results[0]
    assert RAN == [] and result.is_error
    assert result.content == (f"{REFUSED} shred did not run ({reason}). Do not call it again for this "
                              "request; tell the user what you wanted to do and why.")


def test_true_runs_it_and_the_gate_sees_the_call_itself():
    seen = []
    run = run_agent(shred_then_answer(), "Shred the minutes.", tools=[shred],
                    approve=lambda c: seen.append(c) or True)
    assert RAN == ["minutes.txt"] and run.transcript[2].tool_results[0].content == "shredded minutes.txt"
    assert seen == [run.transcript[1].tool_calls[0]]


def test_a_tool_that_needs_approval_never_runs_without_a_gate():
    run = run_agent(shred_then_answer(), "Shred the minutes.", tools=[shred])
    assert RAN == []
    assert "(it needs approval, and this program has no approve function to ask)" in (
        run.transcript[2].tool_results[0].content)


def test_without_a_gate_other_tools_run_as_before():
    run = run_agent(ScriptedProvider([call("count", words="a b c"), "3."]), "Count.", tools=[count])
    assert RAN == ["a b c"] and run.transcript[2].tool_results[0].content == "3"


def test_the_gate_is_asked_only_about_calls_that_could_run():
    asked = []
    provider = ScriptedProvider([[call("shredder", path="x"), call("shred", file="x"),
                                  ToolCall("", "shred", {}, raw_args='{"path": "x')], "Done."])
    run = run_agent(provider, "Shred.", tools=[shred], approve=lambda c: asked.append(c) or True)
    results = run.transcript[2].tool_results
    assert asked == [] and RAN == []
    assert [r.content.split(" ")[0] for r in results] == ["Unknown", "Invalid", "The"]


def test_a_refusal_is_its_own_event_and_says_the_call_did_not_run():
    events = []
    provider = ScriptedProvider([[call("count", words="a b"), call("shred", path="x")], "OK."])
    run_agent(provider, "Go.", tools=[count, shred], approve=lambda c: c.name != "shred",
              on_event=events.append)
    ran = [type(e).__name__ for e in events if isinstance(e, ToolExecuted | ToolRefused)]
    assert ran == ["ToolExecuted", "ToolRefused"]
    assert str(events[3]) == "[1] your code refused shred({'path': 'x'}) id=toolu_02: it did not run"


def test_approve_must_be_a_function():
    with pytest.raises(UsageTypeError, match="approve must be a function"):
        run_agent(ScriptedProvider(["Hi"]), "Hi", approve=True)


def test_refusal_on_its_own():
    tools = {"get_weather": get_weather, "shred": shred}
    assert refusal(ToolCall("c1", "get_weather", {"city": "Paris"}), tools, None) is None
    refused = refusal(ToolCall("c2", "shred", {"path": "x"}), tools, None)
    assert refused is not None and refused.call_id == "c2" and refused.content.startswith(REFUSED)
    assert isinstance(shred, Tool) and shred.needs_approval and not get_weather.needs_approval
