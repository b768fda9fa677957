"""Run a lesson's code cells in-process with the self-check answers filled in.

A lesson's code cells are plain Python, so a test can run them top to bottom, replacing
each `name = ...` line with an answer, and see whether the checks accept it.
(nbval separately compares the committed outputs cell by cell.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"


def code_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def run_lesson(notebook: Path, answers: dict[str, str], namespace: dict[str, Any] | None = None) -> None:
    namespace = dict(namespace or {})
    for source in code_cells(notebook):
        for name, value in answers.items():
            source = re.sub(rf"^{name} = \.\.\.$", f"{name} = {value}", source, flags=re.M)
        exec(compile(source, str(notebook), "exec"), namespace)  # our own notebook, not model text


def blank_questions(notebook: Path, names: list[str]) -> list[str]:
    """The names among `names` that start as `name = ...` in the committed notebook."""
    sources = "\n".join(code_cells(notebook))
    return [name for name in names if re.search(rf"^{name} = \.\.\.$", sources, flags=re.M)]
