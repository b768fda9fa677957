"""Every lesson's exercises: the keys accept the worked answers in the lesson itself, and no
learner's cell holds its answer.

The wrong-answer table for each key is in tests/test_checks.py; here each lesson runs
in-process (see `lessons.run_lesson`) with the worked answers of its key module
(`toolcall_lab.checks.<topic>.SOLUTIONS`) in place of the `...`, which proves each check
cell is wired to the lesson's own data. (nbval separately checks the committed outputs.)
"""

from __future__ import annotations

import ast
import re

import pytest

from lessons import NOTEBOOKS, answer_key, blank_questions, cells, learner_cells, run_lesson

LESSONS = sorted(NOTEBOOKS.glob("*.ipynb"))
WITH_KEYS = [path for path in LESSONS if answer_key(path) is not None]


def overloaded():
    """Lesson 2, exercise 2, solved: an overloaded server, caught, the transcript intact."""
    from toolcall_lab import ApiDouble, ProviderError, Transcript, get_provider, run_agent

    mine = Transcript()
    with ApiDouble() as double:
        double.fail_next("overloaded")
        provider = get_provider("anthropic", base_url=double.base_url("anthropic"), max_retries=0)
        try:
            run_agent(provider, "What's the weather in Paris?", transcript=mine)
        except ProviderError as error:
            return error, mine
    return None, mine


NAMESPACE = {"overloaded": overloaded}


def test_every_lesson_with_exercises_has_a_key():
    for path in LESSONS:
        if blank_questions(path):
            assert answer_key(path) is not None, f"{path.name} has questions but no key module"


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_the_worked_answers_pass_every_check_in_the_lesson(path, capsys):
    solutions = answer_key(path).SOLUTIONS
    run_lesson(path, solutions, NAMESPACE)
    out = capsys.readouterr().out
    assert "not answered yet" not in out
    assert out.count(": correct.") == len(solutions)


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_every_question_starts_blank_and_has_a_worked_answer(path):
    assert sorted(blank_questions(path)) == sorted(answer_key(path).SOLUTIONS)


ALLOWED = re.compile(r"^(\w+ = \.\.\.|checks\.\w+\(.*\)|from [\w.]+ import [\w, ]+|import [\w.]+|#.*|)$")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_learner_cell_holds_its_answer(path):
    """A learner's cell holds `name = ...`, imports, comments and `checks.<name>(...)` calls only."""
    key = answer_key(path)
    for source in learner_cells(path):
        assert "expected=" not in source
        for line in source.splitlines():
            assert ALLOWED.match(line.strip()), f"{path.name}: a learner's cell runs {line!r}"
        for called in re.findall(r"checks\.(\w+)\(", source):
            assert key is not None and callable(getattr(key, called, None)), called


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_no_hint_or_page_text_spells_a_worked_answer(path):
    text = "\n".join(cells(path, "markdown"))
    for name, solution in answer_key(path).SOLUTIONS.items():
        try:   # a literal (a number, one of the words a question offers) is not code to copy
            ast.literal_eval(solution)
            continue
        except ValueError:
            pass
        assert solution not in text, f"{path.name}: the page spells the answer to {name}"
        assert solution.replace(" ", "") not in text.replace(" ", ""), name


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_every_worked_answer_is_python(path):
    for solution in answer_key(path).SOLUTIONS.values():
        ast.parse(solution, mode="eval")
