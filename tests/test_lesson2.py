"""Lesson 2's self-checks: right answers pass, wrong answers fail with a hint, blanks say so."""

import pytest

from lessons import NOTEBOOKS, blank_questions, run_lesson

NOTEBOOK = NOTEBOOKS / "02_on_the_wire.ipynb"


def overloaded():
    """A learner's answer to exercise 2: an overloaded server, caught, transcript intact."""
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


ANSWER_KEY = {
    "q1": '"tool"',
    "q2": '"responses"',
    "q3": "2012",
    "exercise_1": ('Transcript(messages=[question, calls, Message.results('
                   '[ToolResult("toolu_7", "x"), *results.tool_results])])'),
    "exercise_2": "overloaded()",
}
WRONG = {"q1": '"user"', "q2": '"chat"', "q3": "12",
         "exercise_1": "Transcript(messages=[question, calls, results])",
         "exercise_2": '("RateLimitError", 0)'}


def test_the_answer_key_passes_every_check(capsys):
    run_lesson(NOTEBOOK, ANSWER_KEY, {"overloaded": overloaded})
    out = capsys.readouterr().out
    for label in ("Q1", "Q2", "Q3", "Exercise 1", "Exercise 2"):
        assert f"{label}: correct." in out


@pytest.mark.parametrize("question", sorted(WRONG))
def test_a_wrong_answer_fails_with_a_hint(question):
    with pytest.raises(AssertionError, match="Hint:"):
        run_lesson(NOTEBOOK, {**ANSWER_KEY, question: WRONG[question]}, {"overloaded": overloaded})


def test_every_question_starts_blank_in_the_committed_notebook():
    assert blank_questions(NOTEBOOK, list(ANSWER_KEY)) == list(ANSWER_KEY)
