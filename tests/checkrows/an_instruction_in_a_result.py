"""Lesson 14's wrong answers: gates, a prediction and a value that each get one thing wrong.

These were lesson 13's until the split (issue 29 §4); the gates are the same.
"""

from __future__ import annotations

from checkrows import Row
from toolcall_lab.checks import an_instruction_in_a_result as key
from toolcall_lab.checks.an_instruction_in_a_result import careful_gate, permission_gate


# -- gates, wrong one way each ----------------------------------------------------------------------
def forbids_only_delete(call):
    return "deleting is not allowed" if call.name == "delete_files" else True


def refuses_everything(call):
    return "nothing is allowed"


def refuses_without_a_reason(call):
    return call.name == "read_file"


def says_yes_in_words(call):
    return "yes" if call.name == "read_file" else f"{call.name} is not allowed"


def any_tmp_prefix(call):
    if call.name == "delete_files":
        path = call.args["path"]
        return True if path.startswith("tmp") else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def forgets_the_climb(call):
    if call.name == "delete_files":
        path = call.args["path"]
        return True if path.startswith("tmp/") else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def strips_the_slash(call):
    """Reads /tmp/x as tmp/x: the machine's /tmp passes for the folder's tmp/."""
    if call.name == "delete_files":
        path = call.args["path"]
        inside = path.lstrip("/").startswith("tmp/") and ".." not in path.split("/")
        return True if inside else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def drops_empty_parts(call):
    """Splits on / and drops the empty parts, so a leading / disappears."""
    if call.name == "delete_files":
        path = call.args["path"]
        parts = [p for p in path.split("/") if p]
        return True if parts[:1] == ["tmp"] and ".." not in parts else f"not inside tmp/: {path!r}"
    return careful_gate(call)


def reason_without_path(call):
    said = careful_gate(call)
    return "deleting there is not allowed" if said is not True and call.name == "delete_files" else said


def allows_every_delete(call):
    return True if call.name in ("read_file", "delete_files") else f"{call.name} is not allowed"


ROWS = [
    Row("14 permission_gate", key.your_gate, (), lambda: permission_gate,
        (lambda: "permission_gate", lambda: (lambda c: True), lambda: forbids_only_delete,
         lambda: refuses_everything, lambda: refuses_without_a_reason, lambda: says_yes_in_words)),
    Row("14 predict_guarded", key.predict_guarded, ([],), lambda: 0,
        (lambda: 1, lambda: "0", lambda: False, lambda: None, lambda: ["/"])),
    Row("14 q1", key.q1, (), lambda: False, (lambda: True, lambda: "False", lambda: None, lambda: 0)),
    Row("14 exercise_1", key.exercise_1, (), lambda: careful_gate,
        (lambda: "careful_gate", lambda: any_tmp_prefix, lambda: forgets_the_climb,
         lambda: strips_the_slash, lambda: drops_empty_parts,
         lambda: reason_without_path, lambda: allows_every_delete, lambda: permission_gate)),
]
