"""Committed lessons are freshly executed and carry nothing that changes run to run.

nbval compares the outputs; this checks the rest of the file: every code cell ran, in
order, with a fresh kernel, and no per-cell timestamps (which would churn every diff).
"""

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_lessons():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_top_to_bottom_without_timestamps(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    assert not [i for i, c in enumerate(cells) if "execution" in c.get("metadata", {})]
