"""The wrong-answer table's rows, one module per lesson but 1, 3 and 5 (those are in tests/test_checks.py).

Each module here (named for its lesson's topic, like its key in `toolcall_lab.checks`) has
`ROWS`, a list of `Row`; tests/test_checks.py runs every row through the same tests: the
right answer passes, at least three wrong answers are each refused in one line with a hint.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Row:
    """One check: its key, the data the lesson passes it, one right answer, the wrong ones."""

    name: str
    key: Callable[..., Any]
    args: tuple[Any, ...]
    right: Callable[[], Any]
    wrong: tuple[Callable[[], Any], ...]


def more_rows() -> list[Row]:
    """Every `ROWS` of the modules in this package, in the modules' name order."""
    rows: list[Row] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        rows += importlib.import_module(f"{__name__}.{info.name}").ROWS
    return rows
