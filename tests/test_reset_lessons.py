"""`python3 dev.py reset-lessons` puts the committed lessons back and loses nothing of the learner's.

Run for real, in a throwaway git clone with a copy of dev.py: the command needs git, not
the .venv/ (it must work on a learner's machine where the install is what broke).
"""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
_spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

LESSON_1, LESSON_3 = '{"cells": ["lesson 1"]}\n', '{"cells": ["lesson 3"]}\n'


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def clone(tmp_path):
    """A git clone of a small kit: two lessons, this .gitignore and dev.py, committed."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01_one_tool_call.ipynb").write_text(LESSON_1)
    (tmp_path / "notebooks" / "03_on_the_wire.ipynb").write_text(LESSON_3)
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    shutil.copy(ROOT / "dev.py", tmp_path / "dev.py")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "kit")
    return tmp_path


def reset(clone, *names):
    return subprocess.run([sys.executable, "dev.py", "reset-lessons", *names], cwd=clone,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_a_changed_lesson_is_restored_and_the_learners_version_kept(clone):
    lesson = clone / "notebooks" / "01_one_tool_call.ipynb"
    lesson.write_text('{"cells": ["my answers"]}\n')
    (clone / "notebooks" / "03_on_the_wire.ipynb").unlink()  # deleted by mistake
    (clone / "notebooks" / "my_notes.ipynb").write_text("mine")  # the learner's own file
    result = reset(clone)
    assert result.returncode == 0, result.stdout + result.stderr
    assert lesson.read_text() == LESSON_1
    assert (clone / "notebooks" / "03_on_the_wire.ipynb").read_text() == LESSON_3
    kept = list((clone / "notebooks" / "my-copies").iterdir())
    assert [p.read_text() for p in kept] == ['{"cells": ["my answers"]}\n']
    assert kept[0].name.startswith("01_one_tool_call-") and kept[0].suffix == ".ipynb"
    kept_line = f"kept your version of 01_one_tool_call.ipynb as notebooks/my-copies/{kept[0].name}"
    assert kept_line in result.stdout
    assert "restored 03_on_the_wire.ipynb" in result.stdout
    assert (clone / "notebooks" / "my_notes.ipynb").read_text() == "mine"
    # the kept copy is git-ignored: only the learner's own new file shows as untracked
    assert git(clone, "status", "--porcelain").splitlines() == ["?? notebooks/my_notes.ipynb"]
    assert not (clone / ".venv").exists()  # no environment was built for this


@pytest.mark.slow
def test_only_the_named_lesson_is_restored(clone):
    for name in ("01_one_tool_call.ipynb", "03_on_the_wire.ipynb"):
        (clone / "notebooks" / name).write_text("changed")
    assert reset(clone, "3").returncode == 0
    assert (clone / "notebooks" / "03_on_the_wire.ipynb").read_text() == LESSON_3
    assert (clone / "notebooks" / "01_one_tool_call.ipynb").read_text() == "changed"


@pytest.mark.slow
def test_unchanged_lessons_are_left_alone(clone):
    result = reset(clone)
    assert "nothing to restore" in result.stdout
    assert not (clone / "notebooks" / "my-copies").exists()


@pytest.mark.slow
def test_an_unknown_lesson_is_named_with_the_real_ones(clone):
    result = reset(clone, "09_nothing")
    assert result.returncode == 2
    assert "no lesson called 09_nothing; the lessons are: 01_one_tool_call.ipynb" in result.stdout


def test_outside_a_git_clone_it_says_what_to_do(tmp_path):
    result = dev.reset_lessons([], root=tmp_path)
    assert result == 2


@pytest.mark.parametrize("names, picked", [
    ([], ["01_one_tool_call.ipynb", "03_on_the_wire.ipynb"]),
    (["1"], ["01_one_tool_call.ipynb"]),
    (["01_one_tool_call"], ["01_one_tool_call.ipynb"]),
    (["notebooks/03_on_the_wire.ipynb", "3"], ["03_on_the_wire.ipynb"]),
])
def test_lessons_are_named_by_number_stem_or_path(names, picked):
    assert dev.pick_lessons(names, ["01_one_tool_call.ipynb", "03_on_the_wire.ipynb"]) == (picked, [])
