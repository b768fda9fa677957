"""Lesson 29's pieces: `tools.invoices` (an outbox two processes share, the staged crash and the
failing model) and `Pending.decide(execute=...)`, where a ledger of the learner's own plugs in."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolcall_lab import Message, ProviderError, ScriptedProvider, ToolCall, Transcript, run_agent
from toolcall_lab.approval import ask_later
from toolcall_lab.ledger import REPEAT, Ledger
from toolcall_lab.pending import Pending
from toolcall_lab.selfcheck import WrongAnswer, strict
from toolcall_lab.tool import execute, tool_map
from toolcall_lab.tools import invoices
from toolcall_lab.tools.invoices import (
    OUTBOX_VARIABLE,
    ProcessDied,
    api_down,
    clear_outbox,
    crash_after_sending,
    invoice_clerk,
    outbox,
    send_invoice,
)

ASK = "Please invoice Acme Ltd 360 EUR for the audit."
CALL = ToolCall("toolu_01", "send_invoice", {"customer": "Acme Ltd", "amount": 360})


@pytest.fixture(autouse=True)
def _shared_outbox(tmp_path, monkeypatch):
    monkeypatch.setenv(OUTBOX_VARIABLE, str(tmp_path / "outbox.jsonl"))
    yield
    clear_outbox()


def saved(tmp_path):
    run = run_agent(ScriptedProvider(invoice_clerk), ASK, tools=[send_invoice],
                    approve=ask_later(tool_map([send_invoice])))
    return run.pending.save(tmp_path / "pending.json")


@pytest.mark.slow
def test_the_outbox_is_one_file_another_process_appends_to(tmp_path):
    send_invoice(customer="Acme Ltd", amount=360)
    code = ("from toolcall_lab.tools.invoices import send_invoice, outbox\n"
            "print(send_invoice(customer='Beta', amount=5), len(outbox()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.split() == "Invoice 2 sent to Beta for 5 EUR. 2".split()
    assert [i["customer"] for i in outbox()] == ["Acme Ltd", "Beta"]
    clear_outbox()
    assert outbox() == []


def test_without_a_file_the_outbox_lives_in_this_process(monkeypatch):
    monkeypatch.delenv(OUTBOX_VARIABLE)
    assert send_invoice(customer="Acme Ltd", amount=360) == "Invoice 1 sent to Acme Ltd for 360 EUR."
    assert len(outbox()) == 1
    clear_outbox()
    assert outbox() == []


def test_the_clerk_asks_once_then_answers_each_outcome_in_its_own_words():
    asked = invoice_clerk(Transcript(None, [Message.user(ASK)]), ())
    assert asked == [ToolCall("", "send_invoice", {"customer": "Acme Ltd", "amount": 360})]
    ledger = Ledger()
    with crash_after_sending():
        ledger.execute(CALL, tool_map([send_invoice]))
    unknown = ledger.execute(CALL, tool_map([send_invoice]))
    assert unknown.content.startswith(invoices.MAY_HAVE_RUN) and unknown.content.startswith(REPEAT)
    after = Transcript(None, [Message.user(ASK), Message.assistant(CALL), Message.results([unknown])])
    said = invoice_clerk(after, ())
    assert said.startswith("I cannot tell whether the invoice went out")
    assert invoice_clerk(Transcript(None, [Message.user("Hello")]), ()) == "Which customer, and how much?"


def test_a_staged_crash_sends_and_returns_nothing_and_execute_does_not_catch_it(capsys):
    with pytest.raises(ProcessDied):
        invoices._DYING.append(True)
        try:
            execute(CALL, tool_map([send_invoice]))
        finally:
            invoices._DYING.clear()
    assert len(outbox()) == 1
    with crash_after_sending():
        send_invoice(customer="Acme Ltd", amount=360)
    assert "just after invoice 2 went out" in capsys.readouterr().out
    assert send_invoice(customer="Acme Ltd", amount=360).startswith("Invoice 3 sent")  # the block is over


def test_api_down_fails_the_model_call_as_a_500():
    with pytest.raises(ProviderError, match="500") as raised:
        run_agent(ScriptedProvider(api_down), "Hi.")
    assert raised.value.retryable and raised.value.status == 500


def test_decide_runs_each_call_through_the_execute_it_is_given(tmp_path):
    path = saved(tmp_path)
    done: dict = {}

    def once(call, tools):
        if call.id not in done:
            done[call.id] = execute(call, tools)
        return done[call.id]

    for _ in range(2):  # a failed resume and its retry: only `done` is kept between them
        Pending.load(path).decide({"toolu_01": True}, tools=[send_invoice], execute=once)
    assert len(outbox()) == 1 and list(done) == ["toolu_01"]
    for _ in range(2):  # without it, the default (tool.execute) sends again
        Pending.load(path).decide({"toolu_01": True}, tools=[send_invoice])
    assert len(outbox()) == 3


def test_the_lessons_resume_through_the_kits_ledger_sends_once(tmp_path):
    path, ledger_path = saved(tmp_path), tmp_path / "ledger.json"
    with crash_after_sending():
        Pending.load(path).decide({"toolu_01": True}, tools=[send_invoice],
                                  execute=Ledger(path=ledger_path).execute)
    started = {"toolu_01": {"name": "send_invoice", "result": None}}
    assert json.loads(ledger_path.read_text())["calls"] == started
    transcript = Pending.load(path).decide({"toolu_01": True}, tools=[send_invoice],
                                           execute=Ledger.load(ledger_path).execute)
    run = run_agent(ScriptedProvider(invoice_clerk), None, tools=[send_invoice], transcript=transcript)
    assert len(outbox()) == 1 and run.answer.startswith("I cannot tell")


def test_lesson_29s_shortcuts_are_refused_with_write_it_yourself():
    from checkrows.a_run_that_outlives_its_process import ASKED, kits_own_record, through_the_kits_ledger
    from toolcall_lab.checks import a_run_that_outlives_its_process as key

    with strict(), pytest.raises(WrongAnswer, match="write it yourself"):
        key.my_approval(kits_own_record(), ASKED)
    with strict(), pytest.raises(WrongAnswer, match="write it yourself"):
        key.your_run_once(through_the_kits_ledger)
