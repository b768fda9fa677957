"""The times the kit states for its lessons follow from the measurement, not from a guess.

`benchmarks/lesson_times.py` measures each lesson (words read, cells run, lines of code
read, and every answer the learner gives, classed and sized by its worked answer) and turns
it into minutes with allowances calibrated on the lessons as learners did them (its
docstring and docs/teaching.md say how). The README's lesson table, each lesson's **Takes**
line, the start page's map and the teacher's guide all state a time; each must be within
`TOLERANCE` minutes of the model (without the Run All seconds, which need a kernel), so a
lesson that grows by a section cannot keep its old promise. And a lesson fits one class:
`ONE_CLASS` minutes at most (/work/shared/LESSONS.md, "one idea, one sitting").
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
TOLERANCE = 5  # minutes: the stated times are rounded to 5
ONE_CLASS = 50  # minutes: more is two lessons

# Lessons the calibrated model (issue 29 §4) puts over one class that are not split yet, and
# stated times not yet brought to the calibrated model: each is a known failure, listed so
# it cannot pass unnoticed (strict xfail). Remove a name when its lesson is split or updated.
OVER_ONE_CLASS: set[str] = set()
STATED_BEFORE_CALIBRATION: set[str] = set()


def _benchmark():
    spec = importlib.util.spec_from_file_location("lesson_times", ROOT / "benchmarks" / "lesson_times.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # subtle: its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


TIMES = _benchmark()
MODEL = {path.stem: TIMES.count(path).minutes(175) for path in NOTEBOOKS}


def _close(stated: int, lesson: str) -> bool:
    return abs(stated - MODEL[lesson]) <= TOLERANCE


def _known(names: set[str], why: str, lessons: list[str] | None = None) -> list:
    """Each lesson as a parameter; those in `names` marked as a known failure."""
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=why)) if name in names
            else name for name in (sorted(MODEL) if lessons is None else lessons)]


@pytest.mark.parametrize("lesson", _known(OVER_ONE_CLASS, "over one class, not split yet"))
def test_each_lesson_fits_one_class(lesson):
    assert MODEL[lesson] <= ONE_CLASS, (
        f"{lesson} takes {MODEL[lesson]:.0f} min by the calibrated model, more than one "
        f"{ONE_CLASS}-minute class: split it at a section boundary")


def test_the_model_reproduces_the_lessons_learners_tried():
    """The calibration's evidence (issue 29 §4): lessons 10-14 as learners did them took
    50-60, 60-75, 65-80, 35-45 and 55-70 minutes; the same allowances for every lesson put
    each inside its range. Read from the docstring's table, so the table cannot drift."""
    table = re.findall(r"^    (\d\d) .+? (\d+)-(\d+) min +\d+ min +(\d+) min$", TIMES.__doc__, re.M)
    assert [number for number, *_ in table] == ["10", "11", "12", "13", "14"]
    for number, low, high, modelled in table:
        assert int(low) <= int(modelled) <= int(high), f"lesson {number}: {modelled} not in {low}-{high}"


def test_answers_are_classed_by_what_the_learner_writes():
    kind = TIMES.kind
    assert kind("q1", "2") == "value"
    assert kind("q3", "10 / 1000 + 2_000 * 5 / 1e6 * 5") == "value"
    assert kind("predict_rate", "0.75") == "prediction"
    assert kind("exercise_1", '{"caching": "moving", "cache_ttl": "1h"}') == "structure"
    assert kind("exercise_1", "[replace(t, name=t.name) for t in tools]") == "code"  # a blank, yet code
    assert kind("f", "def f(x):\n    return x") == "code"
    assert kind("m", "m = Transcript()\nm.append(1)") == "code"
    tokens, characters = TIMES.size('def f(x):\n    """Doc."""\n    return x')
    assert (tokens, characters) == (8, 15)  # the docstring is the template's, not typed


@pytest.mark.parametrize("lesson", sorted(MODEL))
def test_the_readme_table_states_the_measured_time(lesson):
    row = re.search(rf"^\| \[`{lesson}`\].*?\| (\d+) min \|", (ROOT / "README.md").read_text(), re.M)
    assert row, f"README's lesson table has no row for {lesson}"
    assert _close(int(row[1]), lesson), f"README says {row[1]} min for {lesson}; measured {MODEL[lesson]:.0f}"


@pytest.mark.parametrize("lesson", _known(STATED_BEFORE_CALIBRATION, "stated before the calibration",
                                          [name for name in sorted(MODEL) if not name.startswith("00")]))
def test_each_lesson_says_how_long_it_takes(lesson):
    cells = json.loads((ROOT / "notebooks" / f"{lesson}.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    takes = re.search(r"\*\*Takes:\*\* about (\d+) minutes", text)
    assert takes, f"{lesson} has no 'Takes: about N minutes' line"
    assert _close(int(takes[1]), lesson), f"{lesson} says {takes[1]} min; measured {MODEL[lesson]:.0f}"


def test_the_start_page_map_and_the_teachers_guide_agree_with_the_measurement():
    cells = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8"))["cells"]
    start = "".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    guide = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    mapped = dict(re.findall(r"\]\((\d\d_\w+)\.ipynb\) \| (\d+) min \|", start))
    planned = dict(re.findall(r"^\| (\d\d) · [^|]+\|[^|]+\|[^|]+\|[^|]+\| (\d+) min \|$", guide, re.M))
    assert set(mapped) == {name for name in MODEL if not name.startswith("00")}
    assert set(planned) == {name[:2] for name in MODEL}
    for lesson, minutes in mapped.items():
        assert _close(int(minutes), lesson), f"the start page says {minutes} min for {lesson}"
    for number, minutes in planned.items():
        lesson = next(name for name in MODEL if name.startswith(number))
        assert _close(int(minutes), lesson), f"the teacher's guide says {minutes} min for {lesson}"
