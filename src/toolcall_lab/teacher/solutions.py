"""A lesson with its worked answers filled in: the teacher's solved copy.

Each lesson's answer key (`toolcall_lab.checks.<topic>`, the notebook's name without its
number) holds `SOLUTIONS`, a worked answer per question as source text. Two kinds of cell
take one:

- a *learner's cell* holds a line `name = ...`, which becomes `name = <worked answer>`
  (or, for an answer that needs statements, those statements, which end by setting `name`);
- a `your-code` cell holds a *template*, one class or function whose bodies are only a
  docstring and `...`; the worked definition takes its place.

The tests run every lesson with exactly this substitution (tests/lessons.py), so the solved
copy a teacher generates is the code the checks are proven to accept: the two cannot drift.

    python -m toolcall_lab solutions [OUT] [--lessons notebooks] [--no-execute]

writes one solved notebook per lesson into OUT (default `solutions/`), each opening with a
note that it is the teacher's copy, and by default runs it (nbclient, a fresh kernel per
lesson) so that every check cell shows its ": correct." line.

Left out: the lessons themselves are not part of the installed package, so `--lessons`
names the folder that holds them (a clone of the kit has them in `notebooks/`).
"""

from __future__ import annotations

import ast
import copy
import importlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from .._files import save_atomically
from ..errors import UsageError

__all__ = ["YOUR_CODE", "answer_key", "definition", "fill_definition", "kernel_config", "solve_cell",
           "solve_notebook", "solved_code", "write_solutions"]

YOUR_CODE = "your-code"  # the tag of a cell whose answer is a definition, not one line
CELL_TIMEOUT = 120  # seconds per cell when a solved copy is executed, as `dev.py notebooks` uses

_NOTE = """**Teacher's copy: every exercise solved.** Generated from the worked answers in
`toolcall_lab.checks.{topic}` (`SOLUTIONS`), the same answers the kit's tests run through this
lesson, so it matches what the checks accept. Learners work in `notebooks/{name}`; this copy is
not for them.
"""


def answer_key(notebook: Path | str) -> ModuleType | None:
    """The lesson's key module, named for the notebook without its number, or None if it has none.

    answer_key("notebooks/01_one_tool_call.ipynb") -> toolcall_lab.checks.one_tool_call
    """
    stem = Path(notebook).stem
    topic = stem.split("_", 1)[1] if "_" in stem else stem
    if not topic.isidentifier():
        return None  # a learner's backup such as `01_one_tool_call-mine.ipynb`
    try:
        return importlib.import_module(f"toolcall_lab.checks.{topic}")
    except ModuleNotFoundError:
        return None


def definition(source: str) -> ast.ClassDef | ast.FunctionDef:
    """The one class or function a `your-code` cell defines (beside imports and comments)."""
    found = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef | ast.FunctionDef)]
    if len(found) != 1:
        raise UsageError(f"a {YOUR_CODE} cell defines one class or function; this one defines "
                         f"{len(found)}. Keep one definition per {YOUR_CODE} cell.")
    return found[0]


def fill_definition(source: str, solution: str) -> str:
    """`source` with its one definition (decorators included) replaced by `solution`.

    fill_definition("import x\\n\\ndef f():\\n    ...", "def f():\\n    return 1")
    -> "import x\\n\\ndef f():\\n    return 1"
    """
    node = definition(source)
    lines = source.splitlines()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    end = node.end_lineno if node.end_lineno is not None else len(lines)
    return "\n".join([*lines[:first], solution.rstrip("\n"), *lines[end:]])


def _filled_line(name: str, solution: str) -> str:
    """What takes the place of `name = ...`: one assignment, or the statements of a longer answer."""
    try:
        ast.parse(solution, mode="eval")
    except SyntaxError:
        return solution.rstrip("\n")  # statements that end by setting `name` themselves
    return f"{name} = {solution}"


def solve_cell(source: str, tags: list[str], answers: Mapping[str, str]) -> str:
    """A code cell's source with every question it asks answered from `answers`.

    solve_cell("q1 = ...\\nchecks.q1(q1)", [], {"q1": "2"}) -> "q1 = 2\\nchecks.q1(q1)"
    """
    if YOUR_CODE in tags:
        name = definition(source).name
        if name in answers:
            source = fill_definition(source, answers[name])
    for name, solution in answers.items():
        source = _fill_blank(source, name, _filled_line(name, solution))
    return source


def _fill_blank(source: str, name: str, filled: str) -> str:
    """`source` with its line `name = ...` replaced by `filled`."""
    # subtle: a function as the replacement, so backslashes in an answer stay as typed
    return re.sub(rf"^{re.escape(name)} = \.\.\.$", lambda _: filled, source, flags=re.M)


def _source(cell: Mapping[str, Any]) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def solved_code(notebook: Path, answers: Mapping[str, str]) -> list[str]:
    """The source of each code cell of the lesson at `notebook`, in order, with `answers` filled in."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return [solve_cell(_source(c), c.get("metadata", {}).get("tags", []), answers)
            for c in nb["cells"] if c["cell_type"] == "code"]


def solve_notebook(notebook: Path, answers: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The lesson at `notebook` as a solved copy: answers filled in, outputs cleared, a note on top.

    `answers` defaults to the key's `SOLUTIONS`; the tests pass wrong ones, to see that a lesson
    with every answer wrong still runs to its end.
    """
    key = answer_key(notebook)
    if key is None:
        raise UsageError(f"{notebook.name} has no answer key in toolcall_lab.checks; "
                         "only a lesson's own notebook can be solved.")
    if answers is None:
        answers = key.SOLUTIONS
    nb: dict[str, Any] = json.loads(notebook.read_text(encoding="utf-8"))
    solved = copy.deepcopy(nb)
    for cell in solved["cells"]:
        if cell["cell_type"] != "code":
            continue
        cell["source"] = solve_cell(_source(cell), cell.get("metadata", {}).get("tags", []), answers)
        cell["outputs"], cell["execution_count"] = [], None
    solved.get("metadata", {}).pop("widgets", None)  # the learner's copy's widget state, stale here
    note = _NOTE.format(topic=key.__name__.rsplit(".", 1)[1], name=notebook.name)
    solved["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": note})
    return solved


def kernel_config() -> Any:
    """The traitlets Config every kernel the kit starts runs with (a solved copy, a lesson's
    measurement, the benchmarks): over IPC, files only this user can open, where the system has
    it. Over TCP each kernel warns of "eavesdropping" on stderr, once per lesson (`dev.py lab`
    and `dev.py notebooks` do the same). Windows has no IPC transport and keeps TCP.
    """
    import os
    import uuid

    from jupyter_core.paths import jupyter_runtime_dir
    from traitlets.config import Config

    config = Config()
    if os.name == "posix":
        # subtle: an absolute connection file, so the sockets named after it are absolute too
        # (a bare name would be looked for in the kernel's own working folder)
        runtime = Path(jupyter_runtime_dir())
        runtime.mkdir(parents=True, exist_ok=True)
        config.KernelManager.transport = "ipc"
        config.KernelManager.connection_file = str(runtime / f"kernel-{uuid.uuid4()}.json")
    return config


def _execute(nb: dict[str, Any], cwd: Path, timeout: int,
             env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Run every cell of `nb` in a fresh kernel started in `cwd` (nbclient, imported only here),
    with `env` for the kernel's environment (None: this process's)."""
    import nbclient
    import nbformat

    node = nbformat.from_dict(nb)  # type: ignore[no-untyped-call]  # nbformat leaves it unannotated
    client = nbclient.NotebookClient(node, config=kernel_config(), timeout=timeout, kernel_name="python3",
                                     record_timing=False, resources={"metadata": {"path": str(cwd)}})
    client.execute(**({} if env is None else {"env": dict(env)}))
    return dict(node)


def write_solutions(lessons: Path | str, out: Path | str, *, execute: bool = True,
                    timeout: int = CELL_TIMEOUT) -> list[Path]:
    """Write a solved copy of every lesson in `lessons` that has a key into `out`; return the paths.

    With `execute`, each copy is run top to bottom first, so its check cells show their verdicts.
    """
    lessons, out = Path(lessons), Path(out)
    found = sorted(p for p in lessons.glob("*.ipynb") if answer_key(p) is not None)
    if not found:
        raise UsageError(f"no lessons with answer keys in {lessons}/; pass the folder that holds "
                         "the lessons, e.g. --lessons notebooks from a clone of the kit.")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in found:
        solved = solve_notebook(path)
        if execute:
            solved = _execute(solved, lessons.resolve(), timeout)
        target = out / path.name
        text = json.dumps(solved, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        save_atomically(target, text.encode("utf-8"), what="solved lesson", error=UsageError)
        written.append(target)
    return written
