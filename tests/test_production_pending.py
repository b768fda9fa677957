"""Durable pending approvals (`pending.py`, `approval.DEFER`): stop, save, decide later elsewhere."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolcall_lab import ScriptedProvider, StopReason, ToolCall, UsageError, run_agent, tool
from toolcall_lab.approval import DEFER, REFUSED, ask_later
from toolcall_lab.ledger import Ledger
from toolcall_lab.pending import Pending
from toolcall_lab.tool import tool_map

RAN: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Current weather for one city."""
    RAN.append(f"weather {city}")
    return "18°C, sunny"


@tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file for good."""
    RAN.append(f"delete {path}")
    return f"deleted {path}"


TOOLS = [get_weather, delete_file]
ASKS = [ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
        ToolCall("toolu_02", "delete_file", {"path": "minutes.txt"})]


@pytest.fixture(autouse=True)
def _fresh():
    RAN.clear()


def stopped(**options):
    provider = ScriptedProvider([[*ASKS], "Done."])
    run = run_agent(provider, "Weather, then delete the minutes.", tools=TOOLS,
                    approve=ask_later(tool_map(TOOLS)), **options)
    return provider, run


def test_a_deferred_call_stops_the_run_before_any_call_of_its_reply_runs():
    provider, run = stopped()
    assert RAN == []                                        # not even the weather ran
    assert run.pending is not None and run.pending.waiting == ("toolu_02",)
    assert run.pending.answers == {"toolu_01": True}
    assert run.stop_reason is StopReason.TOOL_USE and "run.pending.save(path)" in run.note
    assert [m.role for m in run.transcript] == ["user", "assistant"] and len(provider.requests) == 1
    assert repr(run.pending) == "Pending(waiting for 1 decision: delete_file (toolu_02))"


@pytest.mark.parametrize(("decision", "deleted"), [(True, True), (False, False), ("not today", False)])
def test_deciding_runs_the_reply_and_the_run_goes_on(decision, deleted):
    _, run = stopped()
    transcript = run.pending.decide({"toolu_02": decision}, tools=TOOLS)
    results = transcript[-1].tool_results
    assert [r.call_id for r in results] == ["toolu_01", "toolu_02"]           # one message, call order
    assert RAN == ["weather Paris", *(["delete minutes.txt"] if deleted else [])]
    if not deleted:
        reason = "not approved" if decision is False else decision
        assert results[1].is_error
        assert results[1].content.startswith(f"{REFUSED} delete_file did not run ({reason})")
    after = run_agent(ScriptedProvider(["Done."]), None, tools=TOOLS, transcript=transcript)
    assert after.answer == "Done." and after.pending is None
    with pytest.raises(UsageError, match="already decided"):
        run.pending.decide({"toolu_02": True}, tools=TOOLS)


def test_a_decision_for_each_waiting_call_and_no_other():
    _, run = stopped()
    with pytest.raises(UsageError, match=r"missing \['toolu_02'\], not waiting \[\]"):
        run.pending.decide({}, tools=TOOLS)
    with pytest.raises(UsageError, match=r"not waiting \['toolu_01'\]"):
        run.pending.decide({"toolu_02": True, "toolu_01": True}, tools=TOOLS)
    assert RAN == []


def test_the_gate_is_asked_about_every_call_of_a_reply_before_any_runs():
    asked = []

    def gate(call):
        asked.append((call.id, list(RAN)))
        return True

    run_agent(ScriptedProvider([[*ASKS], "Done."]), "Go.", tools=TOOLS, approve=gate)
    assert asked == [("toolu_01", []), ("toolu_02", [])] and len(RAN) == 2


def test_a_saved_pending_run_round_trips_with_its_ledger(tmp_path):
    _, run = stopped(ledger=Ledger())
    loaded = Pending.load(run.pending.save(tmp_path / "pending.json"))
    assert loaded.to_dict() == run.pending.to_dict() and loaded.ledger is not None
    assert loaded.transcript.to_dict() == run.transcript.to_dict()
    loaded.decide({"toolu_02": True}, tools=TOOLS)
    assert set(loaded.ledger.entries) == {"toolu_01", "toolu_02"}
    assert json.loads((tmp_path / "pending.json").read_text())["waiting"] == ["toolu_02"]


def test_defer_outside_a_loop_refuses_and_says_why():
    from toolcall_lab.approval import refusal

    said = refusal(ASKS[1], tool_map(TOOLS), lambda call: DEFER)
    assert said is not None and "(it waits for a person's decision)" in said.content


LATER = textwrap.dedent('''
    import json, pathlib, sys
    from toolcall_lab import ScriptedProvider, run_agent, tool
    from toolcall_lab.pending import Pending

    folder = pathlib.Path(sys.argv[1])

    @tool
    def get_weather(city: str) -> str:
        """Current weather for one city."""
        return "18°C, sunny"

    @tool(needs_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file for good."""
        (folder / path).unlink()
        return f"deleted {path}"

    decision = json.loads(sys.argv[2])
    pending = Pending.load(folder / "pending.json")
    transcript = pending.decide({"toolu_02": decision}, tools=[get_weather, delete_file])
    run = run_agent(ScriptedProvider(["Done."]), None, tools=[get_weather, delete_file],
                    transcript=transcript)
    print(json.dumps({"answer": run.answer, "results": [r.content for r in transcript[2].tool_results]}))
''')


@pytest.mark.slow
@pytest.mark.parametrize("decision", [True, "the owner said no"])
def test_a_pending_run_is_decided_later_in_another_process(tmp_path, decision):
    (tmp_path / "minutes.txt").write_text("secret minutes")
    _, run = stopped()
    run.pending.save(tmp_path / "pending.json")
    done = subprocess.run([sys.executable, "-c", LATER, str(tmp_path), json.dumps(decision)],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["answer"] == "Done." and said["results"][0] == "18°C, sunny"
    if decision is True:
        assert said["results"][1] == "deleted minutes.txt" and not (tmp_path / "minutes.txt").exists()
    else:
        assert said["results"][1].startswith(f"{REFUSED} delete_file did not run (the owner said no)")
        assert (tmp_path / "minutes.txt").read_text() == "secret minutes"
