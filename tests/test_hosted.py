"""A lesson opened on its own (issue 28 §1, Colab): its first cell installs the kit where it is missing,
and does nothing anywhere else.

No network here: pip is a stand-in that records what it was asked, and so is `google.colab`. The
real thing, a lesson run top to bottom in a bare kernel with only a hosted notebook's usual
packages, is tests/hosted/run_lesson.py (by hand: it needs PyPI).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest

from toolcall_lab.errors import ToolcallLabError
from toolcall_lab.teacher import hosted
from toolcall_lab.teacher.hosted import HOSTED, KIT_VARIABLE, first_cell, hosted_pins
from toolcall_lab.teacher.locked import locked_pins

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CELL = first_cell(version=PYPROJECT["version"], repository=PYPROJECT["urls"]["Source"])
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PIP = [sys.executable, "-m", "pip", "install", "-q"]


def first_code_cell(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "".join(next(c for c in cells if c["cell_type"] == "code")["source"])


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_lessons_first_code_cell_is_the_install_cell(path):
    assert first_code_cell(path) == CELL, (
        f"{path.name}: its first code cell is not hosted.first_cell(...) for this version; "
        "run `python tests/hosted/first_cell.py` to write it into every lesson")


def test_the_cell_installs_the_tag_of_this_version_and_fits_a_projector():
    assert f'"git+{PYPROJECT["urls"]["Source"]}@v{PYPROJECT["version"]}"' in CELL
    assert max(map(len, CELL.splitlines())) <= 80 and len(CELL.splitlines()) <= 13


@pytest.fixture
def pip(monkeypatch):
    """subprocess.run, recording each command and answering as a pip that succeeded."""
    calls: list[list[str]] = []

    def run(command, *args, **kwargs):
        calls.append(list(command))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", run)
    return calls


@pytest.fixture
def colab(monkeypatch):
    """A stand-in `google.colab` (Colab's kernel imports it as it starts); its calls are recorded."""
    calls: list[str] = []
    output = types.ModuleType("google.colab.output")
    output.enable_custom_widget_manager = lambda: calls.append("enable_custom_widget_manager")
    package = types.ModuleType("google.colab")
    package.output = output
    for name, module in (("google", types.ModuleType("google")), ("google.colab", package),
                         ("google.colab.output", output)):
        monkeypatch.setitem(sys.modules, name, module)
    return calls


@pytest.fixture
def no_kit(monkeypatch):
    """A kernel where `import toolcall_lab` would fail, as far as the cell can tell."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "toolcall_lab" else real(name, *args))


def run_cell() -> dict:
    namespace: dict = {}
    exec(compile(CELL, "first cell", "exec"), namespace)  # our own cell's text
    return namespace


def test_where_the_kit_is_importable_the_cell_does_nothing(pip, colab, capsys):
    namespace = run_cell()
    assert pip == [] and colab == [] and capsys.readouterr() == ("", "")
    assert "kit" not in namespace


def test_where_the_kit_is_missing_it_installs_the_kit_then_the_locked_packages(pip, colab, no_kit,
                                                                                monkeypatch, capsys):
    monkeypatch.setenv(KIT_VARIABLE, "/tmp/kitwheel/toolcall_lab-0.1.0-py3-none-any.whl")
    run_cell()
    kit, packages = pip
    assert kit == [*PIP, "--no-deps", "/tmp/kitwheel/toolcall_lab-0.1.0-py3-none-any.whl"]
    assert packages == [*PIP, *(pin.requirement for pin in hosted_pins())]
    locked = {pin.name: pin.version for pin in locked_pins()}
    assert {f"anthropic=={locked['anthropic']}", f"ipywidgets=={locked['ipywidgets']}"} <= set(packages)
    named = {requirement.split("==")[0] for requirement in packages[len(PIP):]}
    # the host's kernel, its notebook server and its compiled base stay as they are
    assert not named & {"ipykernel", "ipython", "traitlets", "tornado", "pyzmq", "jupyterlab", "notebook",
                        "numpy", "pillow", "cryptography", "requests"}
    assert colab == ["enable_custom_widget_manager"]
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("No toolcall-lab in this kernel") and out[-1].startswith("Installed: the kit")


def test_without_the_variable_the_kit_comes_from_the_repositorys_tag(pip, no_kit, monkeypatch):
    monkeypatch.delenv(KIT_VARIABLE, raising=False)
    run_cell()
    assert pip[0][-1] == f"git+{PYPROJECT['urls']['Source']}@v{PYPROJECT['version']}"


def test_a_package_the_kernel_had_imported_asks_for_a_restart(pip, monkeypatch, capsys):
    versions = iter(["3.1.5", "3.1.6"])  # jinja2 before and after the install
    monkeypatch.setattr(hosted, "installed_version",
                        lambda name: next(versions) if name == "jinja2" else "1.0")
    monkeypatch.setitem(sys.modules, "jinja2", sys.modules.get("jinja2") or types.ModuleType("jinja2"))
    hosted.install_lessons_packages()
    assert capsys.readouterr().out == (
        "Installed. This kernel had already imported jinja2: restart it (on Colab: Runtime > Restart "
        "session), then run the lesson again from the top.\n")


def failing_pip(monkeypatch, words: str) -> None:
    monkeypatch.setattr(subprocess, "run", lambda command, *a, **k: subprocess.CompletedProcess(
        command, 1, stdout="", stderr=f"ERROR: {words}\n"))


def test_a_kit_that_cannot_be_installed_stops_the_cell_with_pips_words(no_kit, monkeypatch):
    failing_pip(monkeypatch, "did not match any file(s) known to git")
    with pytest.raises(SystemExit, match="pip could not install git\\+.*\nERROR: did not match any file"):
        run_cell()


def test_lessons_packages_that_cannot_be_installed_are_pips_words_and_one_sentence(monkeypatch, capsys):
    failing_pip(monkeypatch, "No matching distribution found for anthropic==2.17.0")
    with pytest.raises(ToolcallLabError, match=r"^pip could not install the lessons' packages"):
        hosted.install_lessons_packages()
    assert capsys.readouterr().out == "ERROR: No matching distribution found for anthropic==2.17.0\n"


def test_on_colab_each_widget_switches_the_manager_on_and_shows_as_display_data(colab, monkeypatch):
    import IPython.display

    from toolcall_lab.views.widgets import cost_explorer, pick_provider

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda data, raw=False: shown.append((data, raw)))
    explorer, picker = cost_explorer(), pick_provider(environ={})
    assert colab == ["enable_custom_widget_manager"] * 2
    for widget in (explorer, picker):
        widget._ipython_display_()  # what IPython calls instead of making it the cell's value
    assert [data["application/vnd.jupyter.widget-view+json"]["model_id"] for data, _ in shown] == [
        explorer.model_id, picker.model_id]
    assert all(raw for _, raw in shown)
    picker.close()


def test_elsewhere_a_widget_is_the_cells_value_as_before():
    from toolcall_lab.views.widgets import cost_explorer

    assert "_ipython_display_" not in vars(cost_explorer())


def _lock_closure(lock: dict, roots: set[str]) -> set[str]:
    """Every package `roots` need in uv.lock, extras of a dependency included."""
    packages: dict[str, list[dict]] = {}
    for package in lock["package"]:
        packages.setdefault(package["name"], []).append(package)
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for package in packages.get(name, []):
            todo += [dep["name"] for dep in package.get("dependencies", [])]
            for dep in package.get("dependencies", []):
                for extra in dep.get("extra", []):
                    for found in packages.get(dep["name"], []):
                        todo += [d["name"] for d in found.get("optional-dependencies", {}).get(extra, [])]
    return seen


def test_hosted_is_what_the_lessons_code_runs_on_by_uv_lock():
    lock = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
    [kit] = [p for p in lock["package"] if p["name"] == "toolcall-lab"]
    lab = {d["name"] for d in kit["dependencies"] + kit["optional-dependencies"]["lab"]}
    runtime = _lock_closure(lock, lab - {"jupyterlab", "ipykernel"})
    kernel = _lock_closure(lock, {"ipykernel"})
    expected = runtime - kernel - {"numpy", "pillow", "cryptography"}
    assert HOSTED == expected, (f"add {sorted(expected - HOSTED)}, drop {sorted(HOSTED - expected)} "
                                "in teacher/hosted.py's HOSTED")
    assert HOSTED <= {pin.name for pin in locked_pins()}
