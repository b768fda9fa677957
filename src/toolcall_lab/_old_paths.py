"""Old import paths that keep working after issue 20 grouped the package into folders.

The lessons, the README and earlier notebooks import `toolcall_lab.report`,
`toolcall_lab.cost`, `toolcall_lab.widgets`, `toolcall_lab.budget`, ... Those modules now
live in the folder of their layer (`views/`, `teacher/`; and `double/server.py` is
`double/api_double.py`), and each old path answers with the module itself, not a copy:

    >>> import toolcall_lab.report, toolcall_lab.views.report
    >>> toolcall_lab.report is toolcall_lab.views.report
    True

`MOVED` is the one table of old paths (a test pins each). They are answered by an import
finder rather than by a stub file at each old path: a file left at the old path would stop
git from seeing the move as a rename, so an edit someone makes to the old file in a branch
would no longer follow the code to its new home when the branches merge. New code imports
the new path (`tests/test_layers.py` refuses an old one inside the package). A type
checker cannot see a finder, so the old paths lessons import keep a stub for it
(`report.pyi`, ...: one star import of the new module, never run).

Left out: `python -m` on an old path (nothing ran one; `python -m toolcall_lab` is the CLI).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Loader as _Loader
else:
    # subtle: the import system asks only for the methods; importlib.abc (and the
    # importlib.resources it loads) would add about 30 ms to `import toolcall_lab`
    _Loader = object

__all__ = ["MOVED", "install", "new_path"]

#: old module (below `toolcall_lab.`) -> where it lives now; a package's submodules follow it
MOVED: dict[str, str] = {
    **{name: f"views.{name}" for name in
       ("_figure", "cost", "display", "palette", "plots", "report", "widgets")},
    **{name: f"teacher.{name}" for name in
       ("budget", "classroom", "cli", "figures", "handouts", "lesson_usage", "solutions")},
    "double.server": "double.api_double",  # "server" now means an API's server half only
}


def new_path(fullname: str) -> str | None:
    """Where the module once imported as `fullname` lives now, or None if it never moved.

    >>> new_path("toolcall_lab.widgets._common")
    'toolcall_lab.views.widgets._common'
    >>> new_path("toolcall_lab.loop") is None
    True
    """
    head, _, rest = fullname.partition(".")
    if head != "toolcall_lab" or not rest:
        return None
    for old, new in MOVED.items():
        if rest == old or rest.startswith(old + "."):
            return f"toolcall_lab.{new}{rest[len(old):]}"
    return None


class _Alias(_Loader):
    """Answers an old path with the module at its new one (the same object)."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}  # old path -> the real spec

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        new = new_path(fullname)
        if new is None:
            return None
        module = importlib.import_module(new)
        self._specs[fullname] = module.__spec__
        return importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return sys.modules[str(new_path(spec.name))]

    def exec_module(self, module: ModuleType) -> None:
        # subtle: the module has run already, under its new name; the import system has just written
        # the alias's spec on it, so it gets its own back (its name, file and path were kept).
        module.__spec__ = self._specs.pop(module.__spec__.name if module.__spec__ else "", module.__spec__)


_FINDER = _Alias()


def install() -> None:
    """Put the finder first on `sys.meta_path` (once), before the file system is searched."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
