"""The strict checks of lessons 8 and 9 accept the right answer in the shapes learners write it.

The wrong-answer table (tests/checkrows/) proves each check refuses the mistakes; these prove
that being strict did not make a check fussy: a summary may put a temperature before or after
its city, a log line may say "in: 183" or "183 input tokens".
"""

from __future__ import annotations

import pytest

from checkrows.frozen_history import LONG_TALK, summarised
from checkrows.your_own_provider import TRACED, _printing
from toolcall_lab.checks import frozen_history, your_own_provider
from toolcall_lab.checks.frozen_history import temperature_pairs
from toolcall_lab.checks.your_own_provider import _labelled
from toolcall_lab.selfcheck import WrongAnswer, strict


@pytest.mark.parametrize("text", [
    "Earlier: Paris was 18°C and sunny, Tokyo 22°C and cloudy.",
    "It was 18°C in Paris and 22°C in Tokyo.",
    "Paris: 18°C, sunny. Tokyo: 22°C, cloudy.",
    "In Paris it was sunny at 18°C; in Tokyo, cloudy at 22°C.",
    "Paris (18°C, sunny) and Tokyo (22°C, cloudy).",
])
def test_a_summary_may_put_each_temperature_before_or_after_its_city(text, capsys):
    frozen_history.exercise_2(summarised(text), LONG_TALK)
    assert capsys.readouterr().out == "Exercise 2: correct.\n"


def test_temperatures_listed_apart_from_their_cities_are_refused():
    # "respectively" leaves the reader to pair them up; the task asks for each beside its city
    assert temperature_pairs("Paris and Tokyo: 18°C and 22°C.", ["Paris", "Tokyo"]) == [
        ("Tokyo", "18°C"), ("Tokyo", "22°C")]
    with pytest.raises(WrongAnswer, match="beside Tokyo"):
        with strict():
            frozen_history.exercise_2(summarised("Paris and Tokyo: 18°C and 22°C."), LONG_TALK)


@pytest.mark.parametrize("line", ["x: 183 in, 12 out", "x: in: 183, out: 12", "x: in=183 out=12",
                                  "x: 183 input tokens, 12 output", "x: 12 out, 183 in"])
def test_a_log_line_labels_its_numbers_in_any_common_way(line):
    assert _labelled(line, 183, "in") and not _labelled(line, 183, "out")
    assert _labelled(line, 12, "out") and not _labelled(line, 12, "in")


def test_swapped_labels_are_caught_with_or_without_commas():
    for line in ("x: 12 in, 183 out", "x: in: 12, out: 183"):
        assert not _labelled(line, 183, "in") and _labelled(line, 183, "out")


@pytest.mark.parametrize("line", [
    "{self.name}/{self.model} call {n}: {u.input_tokens} in, {u.output_tokens} out",
    "[{self.name} {self.model}] #{n} input={u.input_tokens} output={u.output_tokens}",
    "call {n} ({self.name}, {self.model}): {u.output_tokens} out, {u.input_tokens} in",
])
def test_a_tracer_may_write_its_line_its_own_way(line, capsys):
    your_own_provider.exercise_1(_printing(line))
    assert capsys.readouterr().out == "Exercise 1: correct.\n"
    assert TRACED is not None
