"""Run a lesson's code cells in-process with the learner's answers filled in.

A lesson's code cells are plain Python, so a test can run them top to bottom, replacing
each `name = ...` line with an answer, and see whether the checks accept it.
(nbval separately compares the committed outputs cell by cell.)

A *learner's cell* is a code cell with a line `name = ...`: the rule the lessons keep
(and tests/test_lessons.py enforces) is that such a cell holds only that line, comments,
imports and calls to the lesson's `checks` module, so it can never show its own answer.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"
BLANK = re.compile(r"^(\w+) = \.\.\.$", re.M)


def cells(notebook: Path, kind: str = "code") -> list[str]:
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind]


def code_cells(notebook: Path) -> list[str]:
    return cells(notebook, "code")


def answer_key(notebook: Path) -> ModuleType | None:
    """The lesson's module in `toolcall_lab.checks` (named for the notebook without its number)."""
    topic = notebook.stem.split("_", 1)[1]
    try:
        return importlib.import_module(f"toolcall_lab.checks.{topic}")
    except ModuleNotFoundError:
        return None


def run_lesson(notebook: Path, answers: dict[str, str], namespace: dict[str, Any] | None = None) -> None:
    namespace = dict(namespace or {})
    for source in code_cells(notebook):
        for name, value in answers.items():
            filled = f"{name} = {value}"
            source = re.sub(rf"^{name} = \.\.\.$", lambda _, line=filled: line, source, flags=re.M)
        exec(compile(source, str(notebook), "exec"), namespace)  # our own notebook, not model text


def blank_questions(notebook: Path) -> list[str]:
    """The names that start as `name = ...` in the committed notebook, in order."""
    return BLANK.findall("\n".join(code_cells(notebook)))


def learner_cells(notebook: Path) -> list[str]:
    return [source for source in code_cells(notebook) if BLANK.search(source)]
