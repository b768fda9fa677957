"""Run a lesson's code cells in-process with the learner's answers filled in.

A lesson's code cells are plain Python, so a test can run them top to bottom, replacing
each `name = ...` line with an answer, and see whether the checks accept it.
(nbval separately compares the committed outputs cell by cell.)

A *learner's cell* is a code cell with a line `name = ...`: the rule the lessons keep
(and tests/test_lessons.py enforces) is that such a cell holds only that line, comments,
imports and calls to the lesson's `checks` module, so it can never show its own answer.

Some answers are a class or a function (a provider of your own, say), which one
`name = ...` line cannot hold. Such a cell is tagged `your-code`: it holds imports,
comments and one definition, a *template* whose function bodies are only a docstring
and `...`. Its check, in a later cell, judges the definition by what it does. The key's
`SOLUTIONS[name]` is the source of a worked definition, and `run_lesson` puts it in the
template's place.

The filling-in is `toolcall_lab.teacher.solutions`, the code that writes a teacher's solved copy
(`python -m toolcall_lab solutions`), so what the tests prove is what the teacher gets.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolcall_lab.teacher.solutions import YOUR_CODE, answer_key, definition, fill_definition, solved_code

__all__ = ["BLANK", "NOTEBOOKS", "YOUR_CODE", "answer_key", "blank_questions", "cells", "code_cells",
           "definition", "learner_cells", "run_lesson", "tagged_cells", "written", "your_code"]

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"
BLANK = re.compile(r"^(\w+) = \.\.\.$", re.M)


def cells(notebook: Path, kind: str = "code") -> list[str]:
    return [source for source, _ in tagged_cells(notebook, kind)]


def tagged_cells(notebook: Path, kind: str = "code") -> list[tuple[str, list[str]]]:
    """(source, tags) of each cell of `kind`, in order."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return [("".join(c["source"]), c.get("metadata", {}).get("tags", []))
            for c in nb["cells"] if c["cell_type"] == kind]


def code_cells(notebook: Path) -> list[str]:
    return cells(notebook, "code")


def your_code(notebook: Path) -> list[tuple[str, str]]:
    """(the name it defines, its source) of each `your-code` cell, in order."""
    return [(definition(source).name, source) for source, tags in tagged_cells(notebook)
            if YOUR_CODE in tags]


def written(notebook: Path, name: str, setup: str) -> Any:
    """The worked `name` of `notebook`'s key, defined as its `your-code` cell defines it: the
    cell's template with the worked definition filled in, run after `setup` (the imports the
    lesson's cells have made) in a namespace of its own, outside the kit."""
    key = answer_key(notebook)
    assert key is not None, f"{notebook.name} has no answer key"
    namespace: dict[str, Any] = {"__name__": "learners_notebook"}
    source = fill_definition(dict(your_code(notebook))[name], key.SOLUTIONS[name])
    exec(setup + source, namespace)  # our own lesson's code, never a learner's
    return namespace[name]


def run_lesson(notebook: Path, answers: dict[str, str], namespace: dict[str, Any] | None = None) -> None:
    """Run the lesson's code cells in one namespace with `answers` filled in: the very code a
    teacher's solved copy holds (`toolcall_lab.teacher.solutions.solved_code`)."""
    namespace = dict(namespace or {})
    for source in solved_code(notebook, answers):
        exec(compile(source, str(notebook), "exec"), namespace)  # our own notebook, not model text


def blank_questions(notebook: Path) -> list[str]:
    """The names that start as `name = ...` in the committed notebook, in order."""
    return BLANK.findall("\n".join(code_cells(notebook)))


def learner_cells(notebook: Path) -> list[str]:
    return [source for source in code_cells(notebook) if BLANK.search(source)]
