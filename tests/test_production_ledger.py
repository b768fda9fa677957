"""At-most-once calls (`ledger.py`): a call id runs once, a repeat is answered from the ledger."""

from __future__ import annotations

import threading

import pytest

from toolcall_lab import ScriptedProvider, ToolCall, TranscriptFormatError, UsageTypeError, run_agent, tool
from toolcall_lab.ledger import REPEAT, Entry, Ledger
from toolcall_lab.tool import tool_map

SENT: list[str] = []
RELEASE = threading.Event()


@tool
def send_email(to: str) -> str:
    """Send the report by e-mail."""
    SENT.append(to)
    return f"sent to {to}"


@tool(timeout=0.2)
def place_order(item: str) -> str:
    """Place an order; the shop answers slowly (it lands, then the answer is late)."""
    SENT.append(item)
    RELEASE.wait(5)
    return f"ordered {item}"


@pytest.fixture(autouse=True)
def _fresh():
    SENT.clear()
    RELEASE.clear()
    yield
    RELEASE.set()  # subtle: let a timed-out worker thread end with the test


def test_a_call_id_runs_once_and_a_repeat_gets_the_first_result_again():
    ledger, tools = Ledger(), tool_map([send_email])
    mail = ToolCall("toolu_01", "send_email", {"to": "ops@example.com"})
    first = ledger.execute(mail, tools)
    again = ledger.execute(mail, tools)
    assert SENT == ["ops@example.com"]
    assert first.content == "sent to ops@example.com" and not first.is_error
    assert again.call_id == "toolu_01" and again.content.startswith(REPEAT)
    assert again.content.endswith("Its result then: sent to ops@example.com")
    # a new request of the model is a new id: it runs
    ledger.execute(ToolCall("toolu_02", "send_email", {"to": "ops@example.com"}), tools)
    assert SENT == ["ops@example.com", "ops@example.com"] and len(ledger) == 2


def test_a_call_retried_after_its_timeout_does_not_run_twice():
    ledger, tools = Ledger(), tool_map([place_order])
    order = ToolCall("toolu_01", "place_order", {"item": "printer"})
    timed_out = ledger.execute(order, tools)
    assert timed_out.is_error and "time limit" in timed_out.content
    assert SENT == ["printer"]                 # the first attempt landed
    retried = ledger.execute(order, tools)     # what a client retrying after a timeout does
    assert SENT == ["printer"], "the order was placed twice"
    assert retried.is_error and retried.content.startswith(REPEAT) and "time limit" in retried.content


def test_a_call_that_never_finished_is_not_run_again_after_a_restart(tmp_path):
    path = tmp_path / "ledger.json"

    @tool
    def wire_money(amount: int) -> str:
        """Send money."""
        SENT.append(str(amount))
        raise SystemExit("the process died mid-call")

    pay = ToolCall("toolu_01", "wire_money", {"amount": 100})
    with pytest.raises(SystemExit):
        Ledger(path=path).execute(pay, tool_map([wire_money]))
    restarted = Ledger.load(path)              # a new process reads what the old one wrote
    assert restarted.entries == {"toolu_01": Entry("wire_money", None)}
    answer = restarted.execute(pay, tool_map([wire_money]))
    assert SENT == ["100"]
    assert answer.is_error and "may already have had its effect" in answer.content


def test_the_loop_answers_a_repeated_call_id_from_the_ledger():
    mail = ToolCall("toolu_07", "send_email", {"to": "ops@example.com"})
    ledger = Ledger()
    run_agent(ScriptedProvider([mail, "Sent."]), "Mail the report.", tools=[send_email], ledger=ledger)
    # the same conversation started again from its last reply: the call comes round again
    run = run_agent(ScriptedProvider([mail, "Sent."]), "Mail the report.", tools=[send_email], ledger=ledger)
    assert SENT == ["ops@example.com"]
    assert run.transcript[2].tool_results[0].content.startswith(REPEAT)
    with pytest.raises(UsageTypeError, match="ledger must be a Ledger"):
        run_agent(ScriptedProvider(["hi"]), "hi", ledger={})


def test_a_ledger_round_trips_through_json_and_a_broken_file_names_the_path(tmp_path):
    ledger, tools = Ledger(), tool_map([send_email])
    ledger.execute(ToolCall("toolu_01", "send_email", {"to": "a@example.com"}), tools)
    ledger.entries["toolu_02"] = Entry("send_email", None)
    loaded = Ledger.load(ledger.save(tmp_path / "l.json"))
    assert loaded.entries == ledger.entries and loaded.path == tmp_path / "l.json"
    assert repr(loaded) == "Ledger(2 calls, 1 never finished)"
    data = ledger.to_dict()
    data["calls"]["toolu_01"]["result"]["is_error"] = "no"
    with pytest.raises(TranscriptFormatError, match=r"calls.toolu_01.result.is_error must be true or false"):
        Ledger.from_dict(data)
