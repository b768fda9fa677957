"""Every lesson's self-checks: right answers pass, wrong answers fail with a hint, blanks say so.

Each lesson's code cells run here in-process (see `lessons.run_lesson`) with the answers
filled in. One table holds every lesson's answer key and a wrong answer per question; a
new lesson adds a row. (nbval separately checks the committed outputs cell by cell.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from lessons import NOTEBOOKS, blank_questions, run_lesson
from toolcall_lab.selfcheck import check

LABELS = {"q1": "Q1", "q2": "Q2", "q3": "Q3", "exercise_1": "Exercise 1", "exercise_2": "Exercise 2"}


def overloaded():
    """A learner's answer to lesson 2's exercise 2: an overloaded server, caught, transcript intact."""
    from toolcall_lab import ApiDouble, ProviderError, Transcript, get_provider, run_agent

    mine = Transcript()
    with ApiDouble() as double:
        double.fail_next("overloaded")
        provider = get_provider("anthropic", base_url=double.base_url("anthropic"), max_retries=0)
        try:
            run_agent(provider, "What's the weather in Paris?", transcript=mine)
        except ProviderError as error:
            return type(error).__name__, len(mine)
    return None, len(mine)


@dataclass(frozen=True)
class Lesson:
    notebook: str
    answers: dict[str, str]
    wrong: dict[str, str]
    namespace: dict[str, Any] = field(default_factory=dict)


LESSONS = [
    Lesson("01_one_tool_call.ipynb",
           answers={"q1": '"user"', "q2": '"toolu_01"', "q3": "3", "exercise_1": "(2, 1)",
                    "exercise_2": ('run_agent(ScriptedProvider([call("calculator", '
                                   'expression="17 * 23 - 100"), "17 * 23 - 100 = 291."]), '
                                   '"What is 17 * 23 - 100?", tools=[calculator]).answer')},
           wrong={"q1": '"assistant"', "q2": '"msg_1"', "q3": "1", "exercise_1": "(2, 2)",
                  "exercise_2": '"about 300"'}),
    Lesson("02_on_the_wire.ipynb",
           answers={"q1": '"tool"', "q2": '"responses"', "q3": "2012",
                    "exercise_1": ('Transcript(messages=[question, calls, Message.results('
                                   '[ToolResult("toolu_7", "x"), *results.tool_results])])'),
                    "exercise_2": "overloaded()"},
           wrong={"q1": '"user"', "q2": '"chat"', "q3": "12",
                  "exercise_1": "Transcript(messages=[question, calls, results])",
                  "exercise_2": '("RateLimitError", 0)'},
           namespace={"overloaded": overloaded}),
    Lesson("03_the_bill.ipynb",
           answers={"q1": "286", "q2": '"dearer"', "q3": "0.1", "exercise_1": "135_000", "exercise_2": "2"},
           wrong={"q1": "0", "q2": '"cheaper"', "q3": "0.5", "exercise_1": "42_500", "exercise_2": "1"}),
]
BY_NAME = {lesson.notebook: lesson for lesson in LESSONS}


def test_every_lesson_has_a_row():
    assert sorted(BY_NAME) == sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))


@pytest.mark.parametrize("name", BY_NAME)
def test_the_answer_key_passes_every_check(name, capsys):
    lesson = BY_NAME[name]
    run_lesson(NOTEBOOKS / name, lesson.answers, lesson.namespace)
    out = capsys.readouterr().out
    for question in lesson.answers:
        assert f"{LABELS[question]}: correct." in out


@pytest.mark.parametrize(("name", "question"),
                         [(lesson.notebook, question) for lesson in LESSONS for question in lesson.wrong])
def test_a_wrong_answer_fails_with_a_hint(name, question):
    lesson = BY_NAME[name]
    with pytest.raises(AssertionError, match="Hint:"):
        run_lesson(NOTEBOOKS / name, {**lesson.answers, question: lesson.wrong[question]}, lesson.namespace)


@pytest.mark.parametrize("name", BY_NAME)
def test_every_question_starts_blank_in_the_committed_notebook(name):
    answers = list(BY_NAME[name].answers)
    assert blank_questions(NOTEBOOKS / name, answers) == answers


def test_check_compares_strings_loosely_and_numbers_exactly(capsys):
    check("A", "  User ", expected="user", hint="h")
    check("B", "It is 291 degrees", expected="291", contains=True, hint="h")
    with pytest.raises(AssertionError):
        check("C", 3.0001, expected=3, hint="h")
    assert capsys.readouterr().out.count("correct.") == 2
