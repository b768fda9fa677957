"""Lesson 1's self-checks: right answers pass, wrong answers fail, blanks say so.

The notebook's code cells are plain Python, so they run here in-process with the
answers filled in. (nbval separately checks the committed outputs cell by cell.)
"""

import pytest

from lessons import NOTEBOOKS, blank_questions
from lessons import run_lesson as run_notebook
from toolcall_lab.selfcheck import check

NOTEBOOK = NOTEBOOKS / "01_one_tool_call.ipynb"

ANSWER_KEY = {
    "q1": '"user"',
    "q2": '"toolu_01"',
    "q3": "3",
    "exercise_1": "(2, 1)",
    "exercise_2": ('run_agent(ScriptedProvider([call("calculator", expression="17 * 23 - 100"), '
                   '"17 * 23 - 100 = 291."]), "What is 17 * 23 - 100?", tools=[calculator]).answer'),
}
WRONG = {"q1": '"assistant"', "q2": '"msg_1"', "q3": "1", "exercise_1": "(2, 2)",
         "exercise_2": '"about 300"'}


def run_lesson(answers: dict[str, str]) -> None:
    run_notebook(NOTEBOOK, answers)


def test_the_answer_key_passes_every_check(capsys):
    run_lesson(ANSWER_KEY)
    out = capsys.readouterr().out
    for label in ("Q1", "Q2", "Q3", "Exercise 1", "Exercise 2"):
        assert f"{label}: correct." in out


@pytest.mark.parametrize("question", sorted(WRONG))
def test_a_wrong_answer_fails_with_a_hint(question):
    with pytest.raises(AssertionError, match="Hint:"):
        run_lesson({**ANSWER_KEY, question: WRONG[question]})


def test_every_question_starts_blank_in_the_committed_notebook():
    assert blank_questions(NOTEBOOK, list(ANSWER_KEY)) == list(ANSWER_KEY)


def test_check_compares_strings_loosely_and_numbers_exactly(capsys):
    check("A", "  User ", expected="user", hint="h")
    check("B", "It is 291 degrees", expected="291", contains=True, hint="h")
    with pytest.raises(AssertionError):
        check("C", 3.0001, expected=3, hint="h")
    assert capsys.readouterr().out.count("correct.") == 2
