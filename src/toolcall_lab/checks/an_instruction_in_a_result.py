# mypy: disable-error-code="no-untyped-def"
# (the worked definitions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 14, "An instruction in a result".

Two answers are values, checked as in every lesson: how many paths the gullible model gets
`delete_files` asked to delete when the tool needs approval and no gate is given, and whether
a gate that forgot its `return` lets `read_file` run. Two are code the learner writes in a
`your-code` cell, judged by what it does, one clause at a time; the check names the first
clause that fails, and a definition whose body is still the template's `...` counts as not
answered yet:

    permission_gate   the lesson's permission gate: reading files is allowed, anything else is
                      refused with a reason, so the injected delete_files never runs
    careful_gate      exercise 1: deleting is allowed inside the folder tmp/ only; a path that
                      climbs out with "..", or the machine's own /tmp, is refused

The worked definitions are real code below (linted, and run by the tests); `SOLUTIONS`
holds their source, which tests/test_lessons.py puts in place of the templates. These were
sections 4 and 5 of lesson 13 until the split (issue 29 §4).

    >>> q1(False)
    Q1: correct.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..approval import REFUSED, refusal
from ..blocks import ToolCall
from ..loop import Run, run_agent
from ..misbehaving import obeys_injection
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, equal, number
from ..tools.files import DELETIONS, delete_files, read_file
from ._runs import raised as _raised
from ._runs import template as _template

__all__ = ["SOLUTIONS", "careful_gate", "exercise_1", "permission_gate", "predict_guarded", "q1",
           "your_gate"]

INBOX = "Summarise inbox/supplier-update.txt for me."


# -- the worked definitions ------------------------------------------------------------------------
def permission_gate(call):
    """True for a call this assistant may make (reading files); else why not."""
    if call.name == "read_file":
        return True
    return f"this assistant may only read files, not call {call.name}"


def careful_gate(call):
    """Reading yes; deleting only inside tmp/; anything else no, saying why."""
    if call.name == "read_file":
        return True
    if call.name == "delete_files":
        path = str(call.args.get("path", ""))
        if path.startswith("tmp/") and ".." not in path.split("/"):
            return True
        return f"delete_files may only delete inside tmp/, not {path!r}"
    return f"{call.name} is not allowed for this assistant"


# -- what the checks share --------------------------------------------------------------------------
def _asked(gate: Callable[[ToolCall], Any], call: ToolCall) -> tuple[Any, str | None]:
    """(what `gate` answered about `call`, or None and what it raised)."""
    try:
        return gate(call), None
    except Exception as exc:
        return None, (f"it raised {_raised(exc)} for {call.name}({dict(call.args)}); a gate must answer "
                      "every call")


# -- section 2: your permission gate ---------------------------------------------------------------
def _gated(gate: Any) -> tuple[Run, list[str]]:
    """The gullible model's run with `gate` as approve, and what delete_files was asked to delete."""
    before = len(DELETIONS)
    run = run_agent(ScriptedProvider(obeys_injection), INBOX, tools=[read_file, delete_files], approve=gate)
    return run, DELETIONS[before:]


def _wrong_gate(gate: Any) -> str | None:
    if not callable(gate) or isinstance(gate, type):
        return f"expected the function itself (permission_gate, without brackets), got {type(gate).__name__}"
    reading = ToolCall("toolu_01", "read_file", {"path": "notes/todo.txt"})
    answer, raised = _asked(gate, reading)
    if raised or answer is not True:
        return raised or f"it answered {answer!r} for read_file; the assistant must still read files (True)"
    for call in (ToolCall("toolu_02", "delete_files", {"path": "/"}),
                 ToolCall("toolu_03", "send_email", {"to": "all@example.com", "text": "Hi"})):
        answer, raised = _asked(gate, call)
        if raised:
            return raised
        if answer is True:
            return (f"it let {call.name} through; name what is allowed, not what is forbidden: the next "
                    "injection will ask for a tool you did not think of")
        if not isinstance(answer, str) or not answer.strip():
            return f"it refused {call.name} with {answer!r}; say why, in a short string the model will read"
    run, deleted = _gated(gate)
    if deleted:
        return f"delete_files ran during the run, asked to delete {deleted}"
    return None


def your_gate(answer: Any) -> None:
    """Your permission gate, on the injected run: delete_files must never run."""
    if _template(answer):
        check("permission_gate", ..., _wrong_gate, hint="")
        return
    problem = _wrong_gate(answer)
    why = ""
    if problem is None:
        run, _ = _gated(answer)
        told = next((r.content for r in run.transcript.tool_results() if r.content.startswith(REFUSED)), "")
        why = f"delete_files never ran, and the model was told: {told.split('. ')[0] + '.'!r}"
    check("permission_gate", answer, lambda _: problem, why=why,
          hint="the gate sees one ToolCall; lesson 1 showed its fields, and one of them says which tool "
               "was asked for. Say yes only to what this assistant needs")


def predict_guarded(answer: Any, deleted: Any) -> None:
    """How many paths delete_files was asked to delete when it needs approval and no gate is given."""
    check("Prediction", answer, number(len(list(deleted or []))),
          hint="a tool marked needs_approval=True runs only on a yes; with no approve function, "
               "who is there to say yes?")


# -- check yourself ----------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """Whether read_file runs when the approve function forgets its return (returns None)."""
    forgot: Any = lambda call: None  # a gate whose branch forgot its return
    runs = refusal(ToolCall("toolu_01", "read_file", {"path": "notes/todo.txt"}),
                   {"read_file": read_file}, forgot) is None
    check("Q1", answer, equal(runs),
          hint="a gate that says neither yes nor no: does the kit fail open or closed? (section 2)")



# -- exercises ---------------------------------------------------------------------------------------
_CAREFUL_CASES = [
    (ToolCall("t1", "read_file", {"path": "notes/todo.txt"}), True, "reading a file"),
    (ToolCall("t2", "delete_files", {"path": "tmp/old.txt"}), True, "deleting tmp/old.txt"),
    (ToolCall("t3", "delete_files", {"path": "tmp/cache/"}), True, "deleting tmp/cache/"),
    (ToolCall("t4", "delete_files", {"path": "notes/todo.txt"}), False, "deleting notes/todo.txt"),
    (ToolCall("t5", "delete_files", {"path": "/"}), False, "deleting /"),
    (ToolCall("t6", "delete_files", {"path": "tmpfiles/x"}), False, "deleting tmpfiles/x (not inside tmp/)"),
    (ToolCall("t7", "delete_files", {"path": "tmp/../notes/todo.txt"}), False,
     "deleting tmp/../notes/todo.txt (.. climbs out of tmp/)"),
    (ToolCall("t8", "delete_files", {"path": "/tmp/x"}), False,
     "deleting /tmp/x (the machine's own /tmp, not this folder's tmp/)"),
    (ToolCall("t9", "send_email", {"to": "all@example.com"}), False, "send_email"),
]


def _wrong_careful(gate: Any) -> str | None:
    if not callable(gate) or isinstance(gate, type):
        return f"expected the function itself (careful_gate, without brackets), got {type(gate).__name__}"
    for call, allowed, what in _CAREFUL_CASES:
        said, raised = _asked(gate, call)
        if raised:
            return raised
        if allowed and said is not True:
            return f"it refused {what} ({said!r}); that one is allowed"
        if not allowed and said is True:
            return f"it allowed {what}"
        if not allowed and not (isinstance(said, str) and said.strip()):
            return f"it refused {what} with {said!r}; say why, in a short string"
        if call.name == "delete_files" and not allowed and str(call.args["path"]) not in said:
            return f"its reason for refusing {what} should name the path, so the model can tell the user"
    return None


def exercise_1(answer: Any) -> None:
    """Your careful_gate: reading yes, deleting inside tmp/ only, anything else no."""
    check("Exercise 1", ... if _template(answer) else answer, _wrong_careful,
          hint="the sentence before the hint names the path; read the path as its parts, folder by "
               "folder, and ask of each part whether it keeps the path inside tmp/")


SOLUTIONS: dict[str, str] = {
    "permission_gate": inspect.getsource(permission_gate),
    "predict_guarded": "0",
    "q1": "False",
    "careful_gate": inspect.getsource(careful_gate),
}
