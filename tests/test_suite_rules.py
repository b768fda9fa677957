"""The suite's own rules about time, kept by tests: one Hypothesis profile (a tenth of the
examples under `python3 dev.py test --quick`, every number through `examples(N)`), and `slow` on
every test that starts a process (what `--quick` skips), and what lives all session frozen out
of the cycle collector's way.

The profile and the guard live in tests/conftest.py; the guard is shown at work on a small
suite of its own, run as a separate pytest in a temporary folder.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import pytest

import conftest

TESTS = Path(__file__).parent
#: The one setting a test may give Hypothesis itself: how many examples it runs.
OWN_SETTINGS = {"max_examples"}


@cache
def calls_in(path: Path) -> tuple[ast.Call, ...]:
    """Every call in a test file, parsed once for the tests below; none in a file whose text
    names no Hypothesis setting (most files: parsing them all took a second)."""
    text = path.read_text(encoding="utf-8")
    if not any(word in text for word in ("settings", "max_examples", "_profile")):
        return ()
    return tuple(node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call))


def hypothesis_settings_calls(path: Path) -> list[tuple[int, set[str]]]:
    """(line, keyword names) of each `settings(...)` call in the file, e.g. [(154, {"max_examples"})]."""
    calls = []
    for node in calls_in(path):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name == "settings":
            calls.append((node.lineno, {keyword.arg or "**" for keyword in node.keywords}
                          | ({"(positional)"} if node.args else set())))
        elif name in ("register_profile", "load_profile") and path.name != "conftest.py":
            calls.append((node.lineno, {name}))
    return calls


def test_every_hypothesis_test_uses_the_one_profile():
    # a test's own deadline or health-check list would replace the profile's, not add to it:
    # a "too slow" health check once failed under load that way
    found = {f"{path.name}:{line}": sorted(names - OWN_SETTINGS)
             for path in sorted(TESTS.glob("*.py")) if path.name != "conftest.py"
             for line, names in hypothesis_settings_calls(path) if names - OWN_SETTINGS}
    assert found == {}, ("give Hypothesis only max_examples in a test; the rest is the profile in "
                         f"tests/conftest.py: {found}")


def test_every_number_of_examples_goes_through_examples_so_quick_can_scale_it():
    # `@settings(max_examples=N)` overrides the profile's number: a bare N would run in full
    # under `dev.py test --quick` too
    bare = []
    this = Path(__file__).name  # its own settings(max_examples=3) below tests the profile
    for path in sorted(TESTS.glob("*.py")):
        for node in calls_in(path):
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg == "max_examples" and path.name not in ("conftest.py", this) and not (
                        isinstance(value, ast.Call) and getattr(value.func, "id", "") == "examples"):
                    bare.append(f"{path.name}:{node.lineno}")
    assert bare == [], f"write max_examples=examples(N) (tests/conftest.py): {bare}"


def test_quick_runs_a_tenth_of_the_examples_at_least_ten_and_the_full_run_all(monkeypatch):
    from hypothesis import settings

    monkeypatch.setattr(conftest, "QUICK_SEARCH", False)
    assert [conftest.examples(n) for n in (800, 300, 60, 5)] == [800, 300, 60, 5]
    monkeypatch.setattr(conftest, "QUICK_SEARCH", True)
    assert [conftest.examples(n) for n in (800, 300, 60, 5)] == [80, 30, 10, 10]
    full, quick = settings.get_profile("toolcall-lab"), settings.get_profile("toolcall-lab-quick")
    assert full.max_examples == 100 and quick.max_examples == 10  # a test that sets no number
    assert quick.deadline is None and quick.suppress_health_check == full.suppress_health_check


def test_the_profile_has_no_deadline_and_no_too_slow_check():
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
    assert settings(max_examples=3).deadline is None  # a test's own settings inherit it


def test_what_lives_past_collection_is_frozen_and_tests_collect_at_the_usual_thresholds():
    import gc
    import weakref

    # pytest, Hypothesis, the test modules and what they import (over a million objects in a
    # quick run; some 50,000 when this file runs alone): never walked by a full collection
    assert gc.get_freeze_count() > 10_000
    assert gc.isenabled() and gc.get_threshold() == conftest.NORMAL_GC_THRESHOLD  # not collection's
    assert conftest._frozen_for == [Path(__file__)]  # frozen again as this file started

    class Node:
        pass

    node = Node()
    node.itself = node  # a cycle of this test's own: the collector still frees it
    gone = weakref.ref(node)
    del node
    gc.collect()
    assert gone() is None


def test_the_guard_writes_down_every_process_a_test_starts():
    conftest._started.clear()
    subprocess.run(["git", "--version"], capture_output=True, check=False)  # git is quick
    assert conftest._started == ["git --version"]
    conftest._started.clear()


@pytest.mark.parametrize(("command", "name"), [
    ("/usr/bin/git -C /tmp status", "git"), (f"{sys.executable} -m mypy", Path(sys.executable).name),
    ("", "")])
def test_command_name_is_the_program(command, name):
    assert conftest.command_name(command) == name


# A small suite under the repository's conftest: what --quick deselects, the order tests run
# in, and an unmarked test that starts a process.
SMALL_SUITE = '''
import subprocess, sys
import pytest

def test_starts_python_unmarked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

@pytest.mark.slow
def test_starts_python_marked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

def test_starts_only_git():
    subprocess.run(["git", "--version"], capture_output=True, check=True)

@pytest.mark.slow
def test_nbval_ran_the_lesson_before_this():
    from pathlib import Path
    from conftest import NBVAL
    assert NBVAL.verdict(Path("lesson.ipynb").resolve()) == []
'''


@pytest.fixture
def small_suite(tmp_path):
    for name in ("conftest.py", "background.py"):
        shutil.copy(TESTS / name, tmp_path / name)
    (tmp_path / "test_small.py").write_text(SMALL_SUITE)
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["2\n"]}],
            "source": "print(1 + 1)"}
    (tmp_path / "lesson.ipynb").write_text(json.dumps({
        "cells": [cell], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                     "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}))
    # not the repository's settings: only its two markers
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: starts a process\n"
                                         "    background(job): waits for a background job\n")
    return tmp_path


def run_small(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--nbval", "--nbval-current-env", *args], cwd=folder, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_an_unmarked_test_that_starts_a_process_fails_and_says_to_mark_it(small_suite):
    done = run_small(small_suite, "-q", "test_small.py", "lesson.ipynb")
    assert "5 passed, 1 error in" in done.stdout, done.stdout + done.stderr  # the cell and four tests
    assert "ERROR test_small.py::test_starts_python_unmarked" in done.stdout
    assert "this test started" in done.stdout and "mark it @pytest.mark.slow" in done.stdout


@pytest.mark.slow
def test_quick_deselects_the_notebooks_and_every_run_puts_quick_tests_first(small_suite):
    quick = run_small(small_suite, "--collect-only", "-q", "-m", "not slow", "test_small.py", "lesson.ipynb")
    assert [line for line in quick.stdout.splitlines() if "::" in line] == [
        "test_small.py::test_starts_python_unmarked", "test_small.py::test_starts_only_git"], quick.stdout
    everything = run_small(small_suite, "--collect-only", "-q", "lesson.ipynb", "test_small.py")
    assert [line for line in everything.stdout.splitlines() if "::" in line] == [
        "test_small.py::test_starts_python_unmarked", "test_small.py::test_starts_only_git",
        "lesson.ipynb::Cell 0", "test_small.py::test_starts_python_marked",
        "test_small.py::test_nbval_ran_the_lesson_before_this"], everything.stdout


def report(nodeid: str, when: str = "call", *, failed: bool = False, skipped: bool = False,
           text: str = "") -> SimpleNamespace:
    return SimpleNamespace(nodeid=nodeid, when=when, failed=failed, skipped=skipped, longreprtext=text)


@pytest.mark.slow
def test_a_background_step_over_its_time_gets_sigterm_first_so_it_can_stop_what_it_started(tmp_path):
    # tests/browser/check_lesson.py runs JupyterLab in a session of its own: a SIGKILL of the
    # script's group would leave it, its kernels and Chromium running
    from background import Job, Step

    script = ("import signal, sys, time\n"
              "signal.signal(signal.SIGTERM, lambda *_: (print('stopped what it started'), sys.exit(143)))\n"
              "print('started', flush=True)\ntime.sleep(120)\n")
    job = Job("sigterm", lambda job: job.run(Step("sleeper", (sys.executable, "-c", script), cwd=tmp_path,
                                                  timeout=3)))
    done = job.value()
    assert done.stdout.split() == ["started", "stopped", "what", "it", "started"]
    assert done.returncode == 143 and "step sleeper took over 3 s" in done.stderr


def test_nbval_gives_a_verdict_only_on_a_lesson_it_ran_whole(tmp_path):
    lesson = tmp_path / "03_x.ipynb"
    lesson.write_text(json.dumps({"cells": [{"cell_type": "code"}, {"cell_type": "markdown"},
                                            {"cell_type": "code"}]}))
    record = conftest.NbvalRecord()
    assert record.verdict(lesson) is None  # not selected at all
    record.selected["03_x.ipynb"] = 2
    record.pytest_runtest_logreport(report("notebooks/03_x.ipynb::Cell 0"))
    assert record.verdict(lesson) is None  # one of its two code cells ran
    record.pytest_runtest_logreport(report("notebooks/03_x.ipynb::Cell 1", failed=True,
                                           text="\nNotebook cell execution failed\nmore"))
    record.pytest_runtest_logreport(report("tests/test_x.py::test_y", failed=True))  # not a lesson
    assert record.verdict(lesson) == ["Cell 1 (call): Notebook cell execution failed"]
    record.selected["03_x.ipynb"] = 1  # `-k "Cell 0"`: nbval did not run the whole lesson
    assert record.verdict(lesson) is None


def test_a_cell_nbval_skipped_did_not_run(tmp_path):
    lesson = tmp_path / "l.ipynb"
    lesson.write_text(json.dumps({"cells": [{"cell_type": "code"}]}))
    record = conftest.NbvalRecord()
    record.selected["l.ipynb"] = 1
    record.pytest_runtest_logreport(report("notebooks/l.ipynb::Cell 0", skipped=True))
    assert record.verdict(lesson) is None
