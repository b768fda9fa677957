"""A wrong answer never stops a lesson: Run All with every answer wrong reaches the end.

Each lesson runs top to bottom in a fresh kernel (nbclient, errors not allowed) with a
plausible wrong answer (tests/plausible_wrong.py) in every learner's cell and `your-code`
template, as a learner who gets everything wrong would have it. Every code cell must run,
none may show an error, and every check of an answer must show its "✗" verdict: a check
prints its line and returns, and no later cell depends on an answer being right (a
prediction's reveal runs whatever was predicted).

The lessons run a kernel per core at a time (the suite's one kernel pool, tests/background.py),
each in a fresh kernel of its own, before the first of these tests; each test then reads its
lesson's.
"""

from __future__ import annotations

import re
from concurrent.futures import Future

import pytest

from background import kernels
from lessons import NOTEBOOKS
from plausible_wrong import WRONG
from toolcall_lab.selfcheck import STRICT_VARIABLE
from toolcall_lab.teacher.solutions import _execute, answer_key, solve_notebook

LESSONS = [path for path in sorted(NOTEBOOKS.glob("*.ipynb")) if answer_key(path) is not None]


def topic(path):
    return answer_key(path).__name__.rsplit(".", 1)[1]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_question_has_a_plausible_wrong_answer(path):
    assert sorted(WRONG.get(topic(path), {})) == sorted(answer_key(path).SOLUTIONS)


@pytest.fixture(scope="module")
def wrong_runs(request) -> dict:
    """lesson path -> the future of its Run All with every answer wrong, for the selected lessons."""
    chosen = [item.callspec.params["path"] for item in request.session.items
              if getattr(item, "module", None) is request.module and item.originalname == RUN_ALL]
    # subtle: each kernel takes this process's environment as it starts, so it is held still
    # (this thread waits) until every one has run
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(STRICT_VARIABLE, raising=False)  # the kernel sees what a learner's sees
        runs: dict = {path: kernels().submit(_execute, solve_notebook(path, WRONG[topic(path)]), NOTEBOOKS,
                                             timeout=120) for path in chosen}
        for run in runs.values():
            run.exception()  # wait for all, inside the patched environment
    return runs


RUN_ALL = "test_run_all_with_every_answer_wrong_reaches_the_end"


@pytest.mark.slow
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_run_all_with_every_answer_wrong_reaches_the_end(path, wrong_runs):
    wrong = WRONG[topic(path)]
    run: Future = wrong_runs[path]
    nb = run.result()  # raises what the run raised: nbclient's error names the cell that failed
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
