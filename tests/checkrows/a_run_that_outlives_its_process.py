"""Lesson 29's wrong answers: a saved approval, two predictions, a run_once, two values and a ledger record,
each wrong one way (and a one-call shortcut through the kit's own piece where there is one)."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab.blocks import ToolCall
from toolcall_lab.checks import a_run_that_outlives_its_process as key
from toolcall_lab.checks.a_run_that_outlives_its_process import run_once
from toolcall_lab.ledger import Ledger
from toolcall_lab.messages import Message
from toolcall_lab.pending import Pending
from toolcall_lab.tool import execute
from toolcall_lab.transcript import Transcript

ASKED = ToolCall("toolu_01", "send_invoice", {"customer": "Acme Ltd", "amount": 360})
RIGHT = {"id": "toolu_01", "name": "send_invoice", "args": {"customer": "Acme Ltd", "amount": 360}}
PRINTED = "Done: Invoice 1 sent to Acme Ltd for 360 EUR.\nmodel calls: 1 | invoices sent: 1\n"


def kits_own_record():
    """The kit's saved pending run, whole: one call of its own piece."""
    return Pending(Transcript(None, [Message.user("Invoice Acme."), Message.assistant(ASKED)]),
                   ("toolu_01",)).to_dict()


# -- run_once, wrong one way each -------------------------------------------------------------------
def keyed_by_args(call, tools, done):
    key_ = (call.name, str(sorted(call.args.items())))
    if key_ not in done:
        done[key_] = execute(call, tools)
    return done[key_]


def keyed_by_lower_id(call, tools, done):
    if call.id.lower() not in done:
        done[call.id.lower()] = execute(call, tools)
    return done[call.id.lower()]


def none_for_a_known_id(call, tools, done):
    if call.id in done:
        return None
    done[call.id] = execute(call, tools)
    return done[call.id]


def runs_before_it_looks(call, tools, done):
    result = execute(call, tools)
    return done.setdefault(call.id, result)


def never_keeps_anything(call, tools, done):
    return execute(call, tools)


def returns_the_text(call, tools, done):
    if call.id not in done:
        done[call.id] = execute(call, tools)
    return done[call.id].content


_LEDGER = Ledger()


def through_the_kits_ledger(call, tools, done):
    return _LEDGER.execute(call, tools)


# -- the exercise's calls record ----------------------------------------------------------------------
FINISHED = {"name": "send_invoice", "result": {"content": "Invoice 3 sent.", "is_error": False}}
STARTED = {"name": "send_invoice", "result": None}
CALLS = {"toolu_04": FINISHED, "toolu_05": STARTED}

ROWS = [
    Row("29 my_approval", key.my_approval, (ASKED,), lambda: dict(RIGHT),
        (lambda: "toolu_01",  # the id alone
         lambda: {"id": "toolu_01"},
         lambda: {"id": "toolu_01", "name": "send_invoice"},  # no arguments
         lambda: {**RIGHT, "id": "TOOLU_01"},
         lambda: {**RIGHT, "args": {"customer": "Acme Ltd"}},
         lambda: ASKED,  # the ToolCall object, not JSON
         lambda: str(RIGHT),
         kits_own_record)),
    Row("29 predict_calls", key.predict_calls, (PRINTED,), lambda: 1,
        (lambda: 2,  # as if the model were asked again before the call ran
         lambda: 0, lambda: "1")),
    Row("29 predict_sent", key.predict_sent, (2,), lambda: 2,
        (lambda: 1,  # as if the retry knew
         lambda: 0, lambda: "2")),
    Row("29 run_once", key.your_run_once, (), lambda: run_once,
        (lambda: "run_once", lambda: keyed_by_args, lambda: keyed_by_lower_id, lambda: none_for_a_known_id,
         lambda: runs_before_it_looks, lambda: never_keeps_anything, lambda: returns_the_text,
         lambda: through_the_kits_ledger)),
    Row("29 q1", key.q1, (), lambda: False, (lambda: True, lambda: "False", lambda: None, lambda: 0)),
    Row("29 q2", key.q2, (), lambda: 1, (lambda: 2, lambda: "1", lambda: 0)),
    Row("29 exercise_1", key.exercise_1, (), lambda: {k: dict(v) for k, v in CALLS.items()},
        (lambda: {"toolu_04": STARTED, "toolu_05": STARTED},  # both as started
         lambda: {"toolu_04": FINISHED,  # toolu_05 as finished, with an empty error: "it ran once"
                  "toolu_05": {"name": "send_invoice", "result": {"content": "", "is_error": True}}},
         lambda: {"toolu_04": FINISHED, "TOOLU_05": STARTED},
         lambda: {"toolu_05": STARTED},
         lambda: {"toolu_04": {"name": "send_invoice", "result": "Invoice 3 sent."}, "toolu_05": STARTED},
         lambda: {"toolu_04": {"result": FINISHED["result"]}, "toolu_05": STARTED},  # no tool name
         lambda: {"calls": CALLS},
         lambda: '{"toolu_04": {}, "toolu_05": {}}')),
]
