"""Issue 30 retired the module paths from before issue 20 grouped the package.

Everything the kit ships imports a module from its home (`toolcall_lab.views.widgets`, not
`toolcall_lab.widgets`); only a learner's saved copy of an older lesson still imports an old
path, and for one release it gets the very module, with a DeprecationWarning that names where
the module lives now (`toolcall_lab._MOVED`, answered by `toolcall_lab._OldPaths`).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import toolcall_lab
from conftest import parsed

ROOT = Path(__file__).resolve().parents[1]

#: every old path the lessons and the README imported, and its home
OLD = {f"toolcall_lab.{old}": f"toolcall_lab.{new}" for old, new in [
    ("widgets", "views.widgets"), ("report", "views.report"), ("cost", "views.cost"),
    ("plots", "views.plots"), ("display", "views.display"), ("budget", "teacher.budget"),
    ("lesson_usage", "teacher.lesson_usage"), ("wire.server.flavours", "wire.flavours")]}

#: an old path written anywhere: `toolcall_lab.widgets`, `toolcall_lab/widgets`, `wire/server/`
WRITTEN = re.compile(r"toolcall_lab[./](?:widgets|report|cost|plots|display|budget|lesson_usage)\b"
                     r"|wire[./]server\b|\b_old_paths|fix_imports")


def old_modules() -> list[str]:
    return [f"{toolcall_lab.__name__}.{old}" for old in toolcall_lab._MOVED]


def forget(name: str) -> None:
    """Drop an old path from `sys.modules`, so that the next import of it is answered anew."""
    sys.modules.pop(name, None)


@pytest.mark.parametrize("old", sorted(OLD))
def test_an_old_path_is_the_module_at_its_new_one_with_a_warning_naming_it(old):
    forget(old)
    forget("toolcall_lab.wire.server")  # the flavours' old package warns too (that it is the wire)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = __import__(old, fromlist=["_"])
    assert f"{old} is now {OLD[old]}: import it from there (the old path goes after this release)" in [
        str(warning.message) for warning in caught]
    assert {warning.category for warning in caught} == {DeprecationWarning}
    assert module is sys.modules[OLD[old]]
    assert module.__name__ == module.__spec__.name == OLD[old]  # its own spec back, not the alias's


def test_a_saved_lesson_cell_still_runs():
    forget("toolcall_lab.widgets")
    namespace: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match="toolcall_lab.widgets is now toolcall_lab.views.widgets"):
        exec("from toolcall_lab.widgets import step_through", namespace)
    from toolcall_lab.views.widgets import step_through

    assert namespace["step_through"] is step_through


def test_the_table_holds_exactly_the_old_paths_the_lessons_used():
    # the flavours' old module is answered below its old package, `wire.server`, the wire itself
    assert sorted(old_modules()) == sorted({*OLD} - {"toolcall_lab.wire.server.flavours"}
                                           | {"toolcall_lab.wire.server"})


def test_a_module_that_never_moved_is_not_answered():
    with pytest.raises(ModuleNotFoundError):
        __import__("toolcall_lab.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        __import__("widgets")  # a top-level name that merely matches an old one


def test_nothing_is_left_at_an_old_path():
    package = ROOT / "src" / "toolcall_lab"
    left = [str(path.relative_to(ROOT)) for old in toolcall_lab._MOVED
            for path in (package.joinpath(*old.split(".")).with_suffix(s) for s in (".py", ".pyi", ""))
            if path.exists()]
    assert left == [] and not (ROOT / "tests" / "fix_imports.py").exists()


def imports_of_old_paths(code: str | ast.Module) -> list[str]:
    """The old paths `code` imports: a cell's source (its % and ! lines left out), or a parsed module."""
    if isinstance(code, str):
        code = ast.parse("\n".join(line for line in code.splitlines()
                                    if not line.lstrip().startswith(("%", "!"))))
    found = []
    for node in ast.walk(code):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
        found += [name for name in names if any(name == o or name.startswith(o + ".") for o in old_modules())]
    return found


def test_no_lesson_imports_an_old_path():
    found = []
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for index, cell in enumerate(json.loads(notebook.read_text(encoding="utf-8"))["cells"]):
            source = "".join(cell["source"])
            if cell["cell_type"] == "code":
                found += [f"{notebook.name} cell {index}: {name}" for name in imports_of_old_paths(source)]
            found += [f"{notebook.name} cell {index}: {m}" for m in WRITTEN.findall(source)]
    assert found == []


def test_no_module_of_the_package_imports_an_old_path():
    """Inside functions and under `if TYPE_CHECKING:` too: an old path warns, and it goes."""
    found = [f"{path.relative_to(ROOT)}: {name}" for path in sorted((ROOT / "src").rglob("*.py"))
             for name in imports_of_old_paths(parsed(path))]
    assert found == []


def test_no_page_names_an_old_path():
    """The README, the docs, the classroom notes, the tests and the package's docstrings: each module
    by its home (a line that says it is about an old path may name one)."""
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "classroom").rglob("*.md")), *sorted((ROOT / "tests").rglob("*.py")),
             *sorted((ROOT / "src").rglob("*.py")), ROOT / "dev.py", ROOT / "pyproject.toml"]
    mine = {Path(__file__), ROOT / "src" / "toolcall_lab" / "__init__.py"}  # the table of old paths
    pages = [page for page in pages if page not in mine and "node_modules" not in page.parts]
    found = [f"{page.relative_to(ROOT)}:{number}: {line.strip()}" for page in pages
             for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if WRITTEN.search(line) and "old path" not in line]
    assert found == []


@pytest.mark.slow
def test_import_toolcall_lab_loads_no_view_and_warns_nothing():
    code = ("import sys, warnings; warnings.simplefilter('error'); import toolcall_lab; "
            "print(sorted(m for m in sys.modules if m.startswith(('toolcall_lab.views', "
            "'toolcall_lab.teacher'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
