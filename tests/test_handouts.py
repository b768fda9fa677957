"""The handouts in docs/handouts/ are the lessons' own, one printed page each (issue 18 §5).

Each is made from its lesson by `toolcall_lab.teacher.handouts` (title, promise, Takes, Assumes,
sections, recap), so regenerating them must give exactly what is committed: a lesson that
changes without its handout fails here, with the command to run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolcall_lab.teacher.handouts import BOX_FORMULA, BOX_MESSAGES, handout, write_handouts

ROOT = Path(__file__).parents[1]
LESSONS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if not p.stem.startswith("00"))
REFRESH = "run `python -m toolcall_lab handouts` and commit docs/handouts/"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_each_committed_handout_is_its_lessons_own(lesson):
    committed = ROOT / "docs" / "handouts" / f"{lesson.stem}.md"
    assert committed.exists(), REFRESH
    assert committed.read_text(encoding="utf-8") == handout(lesson), REFRESH


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_handout_holds_the_four_messages_the_formula_and_fits_one_page(lesson):
    page = handout(lesson)
    assert BOX_MESSAGES in page and BOX_FORMULA in page and "n·h0 + t·n(n−1)/2" in page
    assert "**Takes:** about" in page and "## Where to look in the lesson" in page
    assert len(page.split()) <= 600 and len(page.splitlines()) <= 60  # one A4 page at 11 pt
    assert "```" not in page  # no code: a handout is not an answer key


@pytest.mark.slow
def test_the_command_writes_every_handout_and_an_index(tmp_path):
    result = subprocess.run([sys.executable, "-m", "toolcall_lab", "handouts", str(tmp_path),
                             "--lessons", str(ROOT / "notebooks")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    expected = sorted([*(f"{p.stem}.md" for p in LESSONS), "README.md"])
    assert sorted(p.name for p in tmp_path.iterdir()) == expected
    index = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert all(f"]({p.stem}.md)" in index for p in LESSONS)


def test_a_folder_without_lessons_is_one_sentence(tmp_path):
    with pytest.raises(Exception, match="no lessons in"):
        write_handouts(tmp_path, tmp_path)


def test_the_promise_is_the_whole_sentence_under_the_title_whatever_of_it_is_bold(tmp_path):
    for title in ("**By the end you can** run a loop.", "**By the end you can run a loop.**"):
        lesson = tmp_path / "01_x.ipynb"
        lesson.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": [
            "# Lesson 1 · X\n", "\n", title]}]}), encoding="utf-8")
        assert "\nBy the end you can run a loop.\n" in handout(lesson)
