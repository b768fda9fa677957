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
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"
BLANK = re.compile(r"^(\w+) = \.\.\.$", re.M)
YOUR_CODE = "your-code"  # the tag of a cell whose answer is a definition (see the module docstring)


def cells(notebook: Path, kind: str = "code") -> list[str]:
    return [source for source, _ in tagged_cells(notebook, kind)]


def tagged_cells(notebook: Path, kind: str = "code") -> list[tuple[str, list[str]]]:
    """(source, tags) of each cell of `kind`, in order."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return [("".join(c["source"]), c.get("metadata", {}).get("tags", []))
            for c in nb["cells"] if c["cell_type"] == kind]


def code_cells(notebook: Path) -> list[str]:
    return cells(notebook, "code")


def answer_key(notebook: Path) -> ModuleType | None:
    """The lesson's module in `toolcall_lab.checks` (named for the notebook without its number)."""
    topic = notebook.stem.split("_", 1)[1]
    try:
        return importlib.import_module(f"toolcall_lab.checks.{topic}")
    except ModuleNotFoundError:
        return None


def definition(source: str) -> ast.ClassDef | ast.FunctionDef:
    """The one class or function a `your-code` cell defines (beside imports and comments)."""
    found = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef | ast.FunctionDef)]
    if len(found) != 1:
        raise ValueError(f"a {YOUR_CODE} cell defines one class or function, this one {len(found)}")
    return found[0]


def your_code(notebook: Path) -> list[tuple[str, str]]:
    """(the name it defines, its source) of each `your-code` cell, in order."""
    return [(definition(source).name, source) for source, tags in tagged_cells(notebook)
            if YOUR_CODE in tags]


def fill_definition(source: str, solution: str) -> str:
    """`source` with its one definition (decorators included) replaced by `solution`."""
    node = definition(source)
    lines = source.splitlines()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    return "\n".join([*lines[:first], solution.rstrip("\n"), *lines[node.end_lineno:]])


def run_lesson(notebook: Path, answers: dict[str, str], namespace: dict[str, Any] | None = None) -> None:
    namespace = dict(namespace or {})
    for source, tags in tagged_cells(notebook):
        if YOUR_CODE in tags and definition(source).name in answers:
            source = fill_definition(source, answers[definition(source).name])
        for name, value in answers.items():
            filled = f"{name} = {value}"
            source = re.sub(rf"^{name} = \.\.\.$", lambda _, line=filled: line, source, flags=re.M)
        exec(compile(source, str(notebook), "exec"), namespace)  # our own notebook, not model text


def blank_questions(notebook: Path) -> list[str]:
    """The names that start as `name = ...` in the committed notebook, in order."""
    return BLANK.findall("\n".join(code_cells(notebook)))


def learner_cells(notebook: Path) -> list[str]:
    return [source for source in code_cells(notebook) if BLANK.search(source)]
