"""The times the kit states for its lessons follow from the measurement, not from a guess.

`benchmarks/lesson_times.py` measures each lesson (words read, cells run, predictions,
questions and code the learner writes) and turns it into minutes with stated allowances
(docs/teaching.md says how). The README's lesson table, each lesson's **Takes** line, the
start page's map and the teacher's guide all state a time; each must be within
`TOLERANCE` minutes of the model (without the Run All seconds, which need a kernel), so a
lesson that grows by a section cannot keep its old promise.
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


@pytest.mark.parametrize("lesson", sorted(MODEL))
def test_the_readme_table_states_the_measured_time(lesson):
    row = re.search(rf"^\| \[`{lesson}`\].*?\| (\d+) min \|", (ROOT / "README.md").read_text(), re.M)
    assert row, f"README's lesson table has no row for {lesson}"
    assert _close(int(row[1]), lesson), f"README says {row[1]} min for {lesson}; measured {MODEL[lesson]:.0f}"


@pytest.mark.parametrize("lesson", [name for name in sorted(MODEL) if not name.startswith("00")])
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
