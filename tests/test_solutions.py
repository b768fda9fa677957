"""A teacher's solved copy is the lesson with the worked answers of its key filled in.

It is built by `toolcall_lab.teacher.solutions`, the same code `tests/lessons.py` runs every lesson
through (tests/test_lessons.py proves every check accepts the result), so this file only
shows that the copy holds exactly that code, answers every question, runs in a real kernel
(one short lesson, to keep CI's time), and is never handed to learners.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lessons import BLANK, NOTEBOOKS, answer_key
from test_lessons import WITH_KEYS, template_problems
from toolcall_lab.teacher.solutions import YOUR_CODE, solve_notebook, solved_code

ROOT = Path(__file__).parents[1]


def code_of(nb):
    return [(c["source"], c.get("metadata", {}).get("tags", [])) for c in nb["cells"]
            if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_the_solved_copy_is_the_code_the_lesson_tests_run(path):
    solved = solve_notebook(path)
    assert [source for source, _ in code_of(solved)] == solved_code(path, answer_key(path).SOLUTIONS)


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_the_solved_copy_answers_every_question(path):
    solved = solve_notebook(path)
    code = code_of(solved)
    assert not BLANK.findall("\n".join(source for source, _ in code))
    templates = [source for source, tags in code_of(json.loads(path.read_text(encoding="utf-8")))
                 if YOUR_CODE in tags]
    for source, tags in code:
        if YOUR_CODE in tags:  # a worked definition now, not the template
            assert source not in templates
            assert template_problems(source)  # a body of its own: no worked answer is a subclass of one
            assert "checks" not in source and "(PartsProvider)" not in source
    assert [c["outputs"] for c in solved["cells"] if c["cell_type"] == "code" and c["outputs"]] == []
    note = "".join(solved["cells"][0]["source"])
    assert note.startswith("**Teacher's copy") and answer_key(path).__name__ in note


@pytest.mark.slow
def test_the_command_writes_an_executed_copy_whose_checks_pass(tmp_path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    shutil.copy(NOTEBOOKS / "00_start_here.ipynb", lessons)  # the shortest lesson: one kernel run
    result = subprocess.run([sys.executable, "-m", "toolcall_lab", "solutions", str(tmp_path / "out"),
                             "--lessons", str(lessons)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    nb = json.loads((tmp_path / "out" / "00_start_here.ipynb").read_text(encoding="utf-8"))
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    printed = "".join("".join(o.get("text", "")) for o in outputs)
    assert [o for o in outputs if o["output_type"] == "error"] == []
    assert printed.count(": correct.") == len(answer_key(NOTEBOOKS / "00_start_here.ipynb").SOLUTIONS)
    assert "Teacher's copies (executed): 1 lessons" in result.stdout
    if sys.platform != "win32":  # kernels over IPC say nothing of "eavesdropping" (issue 18 §5)
        assert "without encryption" not in result.stderr, result.stderr


@pytest.mark.slow
def test_a_folder_without_lessons_gets_one_sentence(tmp_path):
    result = subprocess.run([sys.executable, "-m", "toolcall_lab", "solutions", str(tmp_path / "out"),
                             "--lessons", str(tmp_path), "--no-execute"], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.startswith("solutions: no lessons with answer keys in")
    assert "Traceback" not in result.stderr


def test_learners_are_not_shown_the_solutions():
    # generated on demand into a git-ignored folder; no committed lesson is a solved copy
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "solutions/" in ignored
    for path in NOTEBOOKS.glob("*.ipynb"):
        assert "Teacher's copy" not in path.read_text(encoding="utf-8")
