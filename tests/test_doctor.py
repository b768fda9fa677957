"""`python -m toolcall_lab doctor` (issue 28 §4): installed packages against the versions the lessons
were checked with (src/toolcall_lab/data/locked.json), and the one command that aligns them."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from toolcall_lab.teacher import doctor
from toolcall_lab.teacher.cli import main
from toolcall_lab.teacher.hosted import HOSTED
from toolcall_lab.teacher.locked import Pin, applies, locked_pins

ROOT = Path(__file__).resolve().parents[1]
LOCKED = {pin.name: pin.version for pin in locked_pins() if applies(pin)}


def on_lock(name: str) -> str | None:
    """An environment at exactly the locked versions (whatever this one holds: under
    `dev.py drift` it is at other versions on purpose)."""
    return LOCKED.get(name)


def off_lock(name: str) -> str | None:
    """The locked environment, but with anthropic one release behind and mcp not installed."""
    changed = {"anthropic": "2.16.0", "mcp": None}
    return changed[name] if name in changed else on_lock(name)


@pytest.fixture
def in_the_clone(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)


def test_this_environment_has_the_locked_versions(in_the_clone, capsys):
    # in `python3 dev.py test` the environment is the lock's; dev.py drift deselects this test
    # (LOCK_HOLDERS), where it fails by design
    assert main(["doctor"]) == 0
    assert capsys.readouterr().out == (f"All {len(LOCKED)} packages the lessons were checked with are "
                                       "installed at their locked versions.\n")


def test_one_package_behind_and_one_missing_are_listed_with_the_clones_command(in_the_clone, monkeypatch,
                                                                                capsys):
    monkeypatch.setattr(doctor, "installed_version", off_lock)
    assert main(["doctor"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"2 of the {len(LOCKED)} packages the lessons were checked with differ here:",
        f"  anthropic  2.16.0 installed, {LOCKED['anthropic']} locked",
        f"  mcp        not installed, {LOCKED['mcp']} locked",
        "To install the locked versions:",
        "  python -m pip install -r requirements/lab.txt",
    ]


def test_outside_a_clone_the_command_installs_exactly_the_packages_that_differ(in_the_clone, monkeypatch):
    found = doctor.checkup(installed=off_lock, clone=None)
    assert found.command == f'python -m pip install "anthropic=={LOCKED["anthropic"]}" "mcp=={LOCKED["mcp"]}"'


def test_a_python_without_pip_is_told_how_to_get_one(in_the_clone, monkeypatch):
    real = doctor.importlib.util.find_spec
    monkeypatch.setattr(doctor.importlib.util, "find_spec",
                        lambda name: None if name == "pip" else real(name))
    assert doctor.checkup(installed=off_lock).report().endswith(
        "(This Python has no pip yet: `python -m ensurepip` gives it one.)")


def test_the_clones_file_is_named_from_wherever_the_doctor_runs(monkeypatch, tmp_path):
    assert doctor.requirements_file(ROOT) == "requirements/lab.txt"
    assert doctor.requirements_file(tmp_path) == str(ROOT / "requirements" / "lab.txt")


def test_a_pin_for_another_platform_is_not_required_here():
    darwin_only = Pin("appnope", "1.0.0", "sys_platform == 'darwin'")
    found = doctor.checkup(pins=[darwin_only, Pin("anyio", "4.16.0")], installed={"anyio": "4.16.0"}.get,
                           clone=None, hosted=False)
    assert (found.ok, found.checked) == (True, 1)
    assert applies(darwin_only, environment={"sys_platform": "darwin"}) is True
    # the lock holds two numpy rows, for Pythons before and from 3.12: exactly one is this one's
    assert sum(bool(applies(pin)) for pin in locked_pins() if pin.name == "numpy") == 1


def test_without_packaging_a_row_with_a_marker_is_counted_as_not_judged(monkeypatch):
    monkeypatch.setitem(sys.modules, "packaging.markers", None)  # `import` now raises ImportError
    found = doctor.checkup(pins=[Pin("appnope", "1.0.0", "sys_platform == 'darwin'"), Pin("anyio", "4.16.0")],
                           installed={"anyio": "4.16.0"}.get, clone=None, hosted=False)
    assert (found.ok, found.checked, found.unjudged) == (True, 1, 1)
    assert found.report().endswith("(Not judged, for want of `packaging` to read their markers: 1 of the "
                                   "lock's rows for some platforms only.)")


def test_on_colab_only_the_packages_the_first_cell_installs_are_checked(monkeypatch):
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    found = doctor.checkup(installed={}.get)
    assert {d.name for d in found.drifts} == {name for name in LOCKED if name in HOSTED}
    assert "ipykernel" not in found.command and "-r" not in found.command


def test_the_start_page_line_says_match_or_points_at_the_doctor(in_the_clone, monkeypatch, capsys):
    monkeypatch.setattr(doctor, "installed_version", on_lock)
    doctor.check_environment()
    assert capsys.readouterr().out == (f"This environment has the versions the lessons were checked with "
                                       f"({len(LOCKED)} packages).\n")
    monkeypatch.setattr(doctor, "installed_version", off_lock)
    doctor.check_environment()
    line = capsys.readouterr().out
    assert line.startswith(f"2 of the {len(LOCKED)} packages") and "`python -m toolcall_lab doctor`" in line
    assert line.count("\n") == 1


def test_the_start_page_line_never_stops_the_page(monkeypatch, capsys):
    def broken():
        raise OSError("locked.json is gone")

    monkeypatch.setattr(doctor, "locked_pins", broken)
    doctor.check_environment()
    assert capsys.readouterr().out.startswith("Could not compare this environment")


def test_the_doctor_is_a_command_of_the_cli(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "doctor" in capsys.readouterr().out
