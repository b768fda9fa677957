"""A wrong answer never stops a lesson: Run All with every answer wrong reaches the end.

Each lesson runs top to bottom in a fresh kernel (nbclient, errors not allowed) with a
plausible wrong answer (tests/plausible_wrong.py) in every learner's cell and `your-code`
template, as a learner who gets everything wrong would have it. Every code cell must run,
none may show an error, and every check of an answer must show its "✗" verdict: a check
prints its line and returns, and no later cell depends on an answer being right (a
prediction's reveal runs whatever was predicted).
"""

from __future__ import annotations

import re

import pytest

from lessons import NOTEBOOKS
from plausible_wrong import WRONG
from toolcall_lab.selfcheck import STRICT_VARIABLE
from toolcall_lab.solutions import _execute, answer_key, solve_notebook

LESSONS = [path for path in sorted(NOTEBOOKS.glob("*.ipynb")) if answer_key(path) is not None]


def topic(path):
    return answer_key(path).__name__.rsplit(".", 1)[1]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_question_has_a_plausible_wrong_answer(path):
    assert sorted(WRONG.get(topic(path), {})) == sorted(answer_key(path).SOLUTIONS)


@pytest.mark.slow
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_run_all_with_every_answer_wrong_reaches_the_end(path, monkeypatch):
    monkeypatch.delenv(STRICT_VARIABLE, raising=False)  # the kernel sees what a learner's sees
    wrong = WRONG[topic(path)]
    nb = _execute(solve_notebook(path, wrong), NOTEBOOKS, timeout=120)  # raises on any error
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    assert all(cell["execution_count"] is not None for cell in code), "a cell did not run"
    shown = set()
    for cell in code:
        assert not [o for o in cell["outputs"] if o["output_type"] == "error"]
        text = "".join(o.get("text", "") for o in cell["outputs"] if o["output_type"] == "stream")
        for name in re.findall(r"\bchecks\.\w+\(\s*(\w+)", cell["source"]):  # its first argument
            if name in wrong:
                assert re.search(r"^✗ ", text, re.M), f"{path.name}: {name}'s check did not say ✗:\n{text}"
                shown.add(name)
    assert shown == set(wrong), f"{path.name}: never checked: {sorted(set(wrong) - shown)}"
