# mypy: disable-error-code="no-untyped-def"
# (the worked definition of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 29, "A run that outlives its process".

Values, checked as in every lesson: what a saved approval must carry (`my_approval`, a dict
the check writes as JSON, reads back as another process would, and runs), how many model
calls the approving process makes, how many invoices a failed resume and its retry send
with no ledger, what the model is told on a repeat of a finished call (`q1`), what a ledger
keyed by arguments lets through (`q2`), and the `calls` record of a ledger file
(`ledger_calls`, exercise 1). One is code the learner writes in a `your-code` cell, judged
by what it does, one clause at a time:

    run_once   the result of a call, run only if its id is not in `done` yet; the results
               are kept in `done` by call id (a repeat, another call with the same
               arguments, ids that differ only in case, a result another process recorded)

The worked definition is real code below (linted, and run by the tests); `SOLUTIONS` holds
its source, which tests/test_lessons.py puts in place of the template.

    >>> q1(False)
    Q1: correct.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import replace
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..errors import TranscriptFormatError
from ..ledger import LEDGER_FORMAT, Entry, Ledger
from ..messages import Message
from ..pending import PENDING_FORMAT, Pending
from ..selfcheck import _show, check, equal, number
from ..tool import Tool, execute
from ..tools.invoices import send_invoice
from ..transcript import Transcript
from ._runs import raised as _raised
from ._runs import run_watching
from ._runs import template as _template

__all__ = ["SOLUTIONS", "exercise_1", "my_approval", "predict_calls", "predict_sent", "q1", "q2",
           "run_once", "your_run_once"]

ACME = {"customer": "Acme Ltd", "amount": 360}
#: Exercise 1's finished call: what it returned.
EXERCISE_RESULT = "Invoice 3 sent."


# -- the worked definition -------------------------------------------------------------------------
def run_once(call, tools, done):
    """The result of `call`, run only if no call with its id ran before."""
    if call.id not in done:
        done[call.id] = execute(call, tools)
    return done[call.id]


# -- what the checks share --------------------------------------------------------------------------
def _counting() -> tuple[dict[str, Tool], list[dict[str, Any]]]:
    """send_invoice's name and schema with a function that only counts: the checks send nothing."""
    sent: list[dict[str, Any]] = []

    def send(customer: str, amount: int) -> str:
        sent.append({"customer": customer, "amount": amount})
        return f"Invoice {len(sent)} sent to {customer} for {amount} EUR."

    return {"send_invoice": replace(send_invoice, function=send)}, sent


def _invoice(call_id: str) -> ToolCall:
    return ToolCall(call_id, "send_invoice", dict(ACME))


# -- section 1: what a saved approval carries -------------------------------------------------------
def _wrong_approval(answer: Any, asked: ToolCall) -> str | None:
    if isinstance(answer, ToolCall):
        return "that is the ToolCall object itself, and a file holds JSON: give a dict of plain values"
    if isinstance(answer, str):
        if answer == asked.id:
            return ("the id alone: the person deciding cannot see what is asked, and the other process "
                    "cannot run the call without the tool's name and its arguments")
        return "that is text; give the dict itself (the check writes it as JSON)"
    if not isinstance(answer, dict):
        return f"expected a dict, got {type(answer).__name__}"
    if answer.get("format") == PENDING_FORMAT:
        return "write it yourself: that is the kit's own record of the whole run, made by one call of its own"
    try:
        loaded = json.loads(json.dumps(answer))
    except (TypeError, ValueError) as exc:
        return f"it does not go into JSON ({_raised(exc)}); use plain values: text, numbers, dicts"
    missing = [key for key in ("id", "name", "args") if key not in loaded]
    if missing:
        return (f"it has no {', '.join(repr(k) for k in missing)}: the person must see what they approve, "
                "and the process that resumes must be able to run it")
    if loaded["id"] != asked.id:
        return ("ids are compared exactly, and the case differs" if str(loaded["id"]).casefold()
                == asked.id.casefold() else "its id is not the waiting call's id")
    if loaded["name"] != asked.name or loaded["args"] != dict(asked.args):
        return ("its name or arguments differ from the call's: the person approves exactly what the "
                "model asked")
    tools, sent = _counting()
    result = execute(ToolCall(loaded["id"], loaded["name"], loaded["args"]), tools)
    if result.is_error or len(sent) != 1:
        return f"read back from JSON, the call does not run: {result.content.split('. ')[0]}"
    return None


def my_approval(answer: Any, asked: Any) -> None:
    """What a saved approval must carry: written as JSON, read back, run by another process."""
    check("my_approval", answer, lambda a: _wrong_approval(a, asked),
          why="written as JSON and read back, it shows the person what is asked, and it runs.",
          hint="the person sees the request, and another process runs it: lesson 1 showed what a "
               "ToolCall holds")


def predict_calls(answer: Any, printed: Any) -> None:
    """How many model calls the approving process made (read from what it printed)."""
    found = re.search(r"model calls: (\d+)", str(printed or ""))
    check("Prediction", answer, number(int(found[1]) if found else 1),
          hint="the person decided, so the call runs at once; what does the model still need to "
               "see, and in how many requests?")


def predict_sent(answer: Any, sent: Any) -> None:
    """How many invoices went out over the failed resume and its retry, with no ledger."""
    check("Prediction", answer, number(sent if isinstance(sent, int) else 2),
          hint="each attempt starts from the saved file; does anything in it say toolu_01 already ran?")


# -- section 2: your run_once -----------------------------------------------------------------------
def _called(function: Any, call: ToolCall, tools: dict[str, Tool],
            done: dict[str, Any]) -> tuple[Any, str | None]:
    """(what function(call, tools, done) returned, or None and what went wrong)."""
    try:
        got, kit = run_watching((Ledger.execute, Pending.decide), function, call, tools, done)
    except Exception as exc:
        return None, f"it raised {_raised(exc)} for {call.id}"
    if kit:
        return None, "write it yourself: it calls the kit's Ledger; keep your own record in done"
    return got, None


def _wrong_run_once(function: Any) -> str | None:
    if not callable(function) or isinstance(function, type):
        return f"expected the function itself (run_once, without brackets), got {type(function).__name__}"
    tools, sent = _counting()
    done: dict[str, Any] = {}
    first, problem = _called(function, _invoice("toolu_01"), tools, done)
    if problem:
        return problem
    if not isinstance(first, ToolResult):
        return (f"for a new call it returned {_show(first)}; return the call's result, the ToolResult "
                "execute gives")
    if len(sent) != 1:
        return f"a new call ran the tool {len(sent)} times; run it once"
    again, problem = _called(function, _invoice("toolu_01"), tools, done)
    if problem or len(sent) != 1:
        return problem or "the same call id ran a second time; look in done before running"
    if again != first:
        return (f"for an id already in done it returned {_show(again)}; return the result stored "
                "there, so the model still gets its answer")
    _, problem = _called(function, _invoice("toolu_02"), tools, done)
    if problem or len(sent) != 2:
        return problem or ("toolu_02, a new call with the same arguments, did not run: two invoices of "
                           "360 EUR for two jobs are two calls; key by the call's id")
    for call_id in ("toolu_0A", "toolu_0a"):
        _, problem = _called(function, _invoice(call_id), tools, done)
        if problem:
            return problem
    if len(sent) != 4:
        return "toolu_0A and toolu_0a are two calls: ids are compared exactly, case included"
    recorded = ToolResult("toolu_09", "Invoice 7 sent to Acme Ltd for 360 EUR.")
    earlier, problem = _called(function, _invoice("toolu_09"), tools, {"toolu_09": recorded})
    if problem or len(sent) != 4 or earlier != recorded:
        return problem or ("a call another process had recorded in done ran again, or its result "
                           "was not returned; done is where a resumed run learns what already ran")
    return None


def _failed_resume_and_retry(function: Any) -> int:
    """Invoices sent when the lesson's resume fails after the call and is tried again, through `function`."""
    tools, sent = _counting()
    saved = Pending(Transcript(None, [Message.user("Please invoice Acme Ltd 360 EUR."),
                                      Message.assistant(_invoice("toolu_01"))]), ("toolu_01",)).to_json()
    done: dict[str, Any] = {}
    for _ in range(2):  # the model call after it fails each time, so nothing but `done` is kept
        Pending.from_json(saved).decide({"toolu_01": True}, tools=list(tools.values()),
                                        execute=lambda call, by_name: function(call, by_name, done))
    return len(sent)


def your_run_once(answer: Any) -> None:
    """Your run_once, on hidden calls and on the lesson's failed resume and its retry."""
    if _template(answer):
        check("run_once", ..., _wrong_run_once, hint="")
        return
    problem = _wrong_run_once(answer)
    why = "" if problem else (f"through the failed resume and its retry, {_failed_resume_and_retry(answer)} "
                              "invoice went out, not 2.")
    check("run_once", answer, lambda _: problem, why=why,
          hint="before running, ask done whether this call's id is there; after running, keep the "
               "result there under that id")


# -- check yourself ----------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """is_error of what the model reads when a call that ran and succeeded is asked for again."""
    first = ToolResult("toolu_01", "Invoice 1 sent to Acme Ltd for 360 EUR.")
    told = Ledger.repeat(_invoice("toolu_01"), Entry("send_invoice", first))
    check("Q1", answer, equal(told.is_error),
          hint="the first run succeeded, and the ledger answers a repeat with that result (section 2)")


def q2(answer: Any) -> None:
    """Invoices a ledger keyed by (name, arguments) lets out for two replies asking the same."""
    keys = {(c.name, json.dumps(dict(c.args), sort_keys=True)) for c in (_invoice("toolu_01"),
                                                                         _invoice("toolu_03"))}
    check("Q2", answer, number(len(keys)),
          hint="two calls with two ids and the same arguments: what does the teammate's key see?")


# -- exercise -----------------------------------------------------------------------------------------
def _wrong_calls(answer: Any) -> str | None:
    if isinstance(answer, str):
        return "that is text; give the dict itself (what json.loads of the file's calls would give)"
    if not isinstance(answer, dict):
        return f"expected a dict of call ids, got {type(answer).__name__}"
    if "calls" in answer or "format" in answer:
        return "give only what goes under \"calls\": call ids, each with its record"
    try:
        ledger = Ledger.from_dict({"format": LEDGER_FORMAT, "version": 1, "calls": answer})
    except TranscriptFormatError as exc:
        return f"the ledger cannot read it: {str(exc).split(';')[0].rstrip('.')}"
    wanted = {"toolu_04", "toolu_05"}
    if set(answer) != wanted:
        folded = {str(k).casefold() for k in answer}
        return ("ids are compared exactly, and the case differs" if folded == wanted
                else f"it should hold the two calls, toolu_04 and toolu_05, not {sorted(map(str, answer))}")
    if any(entry.name != "send_invoice" for entry in ledger.entries.values()):
        return "each record names the tool that was run (send_invoice)"
    done, started = ledger.entries["toolu_04"], ledger.entries["toolu_05"]
    if done.result is None:
        return "toolu_04 reads as started and never finished, but it ran and returned: save its result"
    if done.result.content != EXERCISE_RESULT or done.result.is_error:
        return "toolu_04's saved result is not the text it returned, as a result that is not an error"
    if started.result is not None:
        return ("toolu_05 reads as finished, so a resume would tell the model it ran once; nobody knows "
                "whether it did: a started call has no result yet (null in the file, None here)")
    tools, sent = _counting()
    told = [ledger.execute(_invoice(i), tools) for i in ("toolu_04", "toolu_05")]
    if sent or not told[1].is_error:
        return "a resume with this ledger runs a call again"
    return None


def exercise_1(answer: Any) -> None:
    """The `calls` record of a ledger file: toolu_04 finished, toolu_05 started and never finished."""
    check("Exercise 1", answer, _wrong_calls,
          hint="section 2 printed a ledger file's calls after the crash; a finished call's result "
               "is saved as {\"content\": text, \"is_error\": true or false}")


SOLUTIONS: dict[str, str] = {
    "my_approval": '{"id": asked.id, "name": asked.name, "args": asked.args}',
    "predict_calls": "1",
    "predict_sent": "2",
    "run_once": inspect.getsource(run_once),
    "q1": "False",
    "q2": "1",
    "ledger_calls": repr({"toolu_04": {"name": "send_invoice",
                                       "result": {"content": EXERCISE_RESULT, "is_error": False}},
                          "toolu_05": {"name": "send_invoice", "result": None}}),
}
