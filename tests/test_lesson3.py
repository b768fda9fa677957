"""Lesson 3's self-checks: right answers pass, wrong answers fail with a hint, blanks say so."""

import pytest

from lessons import NOTEBOOKS, blank_questions, run_lesson

NOTEBOOK = NOTEBOOKS / "03_the_bill.ipynb"

ANSWER_KEY = {"q1": "286", "q2": '"dearer"', "q3": "0.1", "exercise_1": "135_000", "exercise_2": "2"}
WRONG = {"q1": "0", "q2": '"cheaper"', "q3": "0.5", "exercise_1": "42_500", "exercise_2": "1"}


def test_the_answer_key_passes_every_check(capsys):
    run_lesson(NOTEBOOK, ANSWER_KEY)
    out = capsys.readouterr().out
    for label in ("Q1", "Q2", "Q3", "Exercise 1", "Exercise 2"):
        assert f"{label}: correct." in out


@pytest.mark.parametrize("question", sorted(WRONG))
def test_a_wrong_answer_fails_with_a_hint(question):
    with pytest.raises(AssertionError, match="Hint:"):
        run_lesson(NOTEBOOK, {**ANSWER_KEY, question: WRONG[question]})


def test_every_question_starts_blank_in_the_committed_notebook():
    assert blank_questions(NOTEBOOK, list(ANSWER_KEY)) == list(ANSWER_KEY)
