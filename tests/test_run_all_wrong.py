"""A wrong answer never stops a lesson: Run All with every answer wrong reaches the end.

Each lesson runs top to bottom in a fresh kernel (nbclient, errors not allowed) with a
plausible wrong answer (tests/plausible_wrong.py) in every learner's cell and `your-code`
template, as a learner who gets everything wrong would have it. Every code cell must run,
none may show an error, and every check of an answer must show its "✗" verdict: a check
prints its line and returns, and no later cell depends on an answer being right (a
prediction's reveal runs whatever was predicted).

The lessons run a kernel per core at a time (the suite's one kernel pool, tests/background.py),
each in a fresh kernel of its own, in a background job started as collection ends; each test
then reads its lesson's.
"""

from __future__ import annotations

import re
from concurrent.futures import Future
from pathlib import Path

import pytest

from background import Job, kernels
from lessons import NOTEBOOKS
from plausible_wrong import WRONG
from toolcall_lab.selfcheck import STRICT_VARIABLE
from toolcall_lab.teacher.lesson_usage import kernel_environment
from toolcall_lab.teacher.solutions import _execute, answer_key, solve_notebook

LESSONS = [path for path in sorted(NOTEBOOKS.glob("*.ipynb")) if answer_key(path) is not None]


def topic(path):
    return answer_key(path).__name__.rsplit(".", 1)[1]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_question_has_a_plausible_wrong_answer(path):
    assert sorted(WRONG.get(topic(path), {})) == sorted(answer_key(path).SOLUTIONS)


#: What a learner's kernel sees: this environment as the test modules were imported (before any
#: test could change it), without keys or a provider, and with the checks not strict.
WRONG_ENV = {name: value for name, value in kernel_environment(None, None).items() if name != STRICT_VARIABLE}


def every_answer_wrong(job: Job) -> dict[Path, Future]:
    """Run All with every answer wrong, for each lesson a selected test reads (`job.items`), each
    in a fresh kernel of the shared pool; lesson path -> the future of its executed notebook."""
    chosen = [item.callspec.params["path"] for item in job.items]
    runs = {path: kernels().submit(_execute, solve_notebook(path, WRONG[topic(path)]), NOTEBOOKS,
                                   timeout=120, env=WRONG_ENV) for path in chosen}
    for run in runs.values():
        run.exception()  # wait for all, so the job's span in the session's summary is theirs
    return runs


WRONG_RUNS = Job("wrong", every_answer_wrong)


@pytest.mark.slow
@pytest.mark.background(WRONG_RUNS)
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_run_all_with_every_answer_wrong_reaches_the_end(path):
    wrong = WRONG[topic(path)]
    run: Future = WRONG_RUNS.value()[path]
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
