"""Committed lessons are freshly executed and carry nothing that changes run to run.

nbval compares the outputs; this checks the rest of the file: every code cell ran, in
order, with a fresh kernel, and no per-cell timestamps (which would churn every diff). And
what nbval cannot see (it skips images): every figure was saved as a picture, not as the
`<Figure size ...>` text a matplotlib Figure with no image repr shows.
"""

import itertools
import json
import re
from pathlib import Path

import pytest

from test_browser import load_checker

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_lessons():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_top_to_bottom_without_timestamps(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    assert not [i for i, c in enumerate(cells) if "execution" in c.get("metadata", {})]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_is_committed_as_a_picture(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    as_text = [i for i, c in enumerate(cells) if c["cell_type"] == "code" for o in c["outputs"]
               if "".join(o.get("data", {}).get("text/plain", "")).startswith("<Figure")]
    assert not as_text, (f"cells {as_text} show `<Figure ...>` text instead of a picture; "
                         "re-execute the lesson (python3 dev.py notebooks) and commit it")
    # a cell ending in a plot_...() call must have saved the picture it shows
    no_picture = [i for i in load_checker().figure_cells(path)
                  if not any("image/png" in o.get("data", {}) for o in cells[i]["outputs"])]
    assert not no_picture, (f"cells {no_picture} end with a plot_...() call but saved no image/png; "
                            "re-execute the lesson (python3 dev.py notebooks) and commit it")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_printed_text_is_one_output_per_stream(path):
    # How a kernel splits printed text depends on timing; dev.py notebooks merges the pieces
    # so that a re-execution changes no line of the diff it need not change.
    nb = json.loads(path.read_text(encoding="utf-8"))
    split = [index for index, cell in enumerate(nb["cells"])
             for a, b in itertools.pairwise(cell.get("outputs", []))
             if a["output_type"] == b["output_type"] == "stream" and a["name"] == b["name"]]
    assert split == [], f"cells {split} hold printed text in pieces: run python3 dev.py notebooks"


#: Presentation mode (View ▸ Appearance ▸ Presentation Mode) at 1280x720 cuts a code line at
#: about 85 characters; the lessons keep theirs within 80 (../shared/LESSONS.md).
CODE_LINE = 80


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_line_of_lesson_code_fits_a_projector(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    wide = [(index, line) for index, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code"
            for line in "".join(cell["source"]).splitlines() if len(line) > CODE_LINE]
    assert not wide, f"{path.name}: {len(wide)} code line(s) over {CODE_LINE} characters, e.g. cell {wide[0]}"


#: A link to a lesson, in Markdown: `[text](01_one_tool_call.ipynb)`, `../notebooks/...`, `#anchors` too.
LESSON_LINK = re.compile(r"\]\(((?:\.\./)?(?:notebooks/)?(\d\d_[\w-]+)\.ipynb)(#[\w-]*)?\)")


def _documents():
    root = Path(__file__).parents[1]
    def markdown(path):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")

    found = [(path, markdown(path)) for path in NOTEBOOKS]
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md")), root / "classroom" / "README.md"]:
        found.append((path, path.read_text(encoding="utf-8")))
    return found


def test_every_link_to_a_lesson_names_a_lesson_that_exists():
    """After renumbering (issue 18 §4), no page may link to a lesson by a name it no longer has."""
    names = {path.stem for path in NOTEBOOKS}
    broken = [f"{path.name}: {target}" for path, text in _documents()
              for target, stem, _ in LESSON_LINK.findall(text) if stem not in names]
    assert not broken, broken
    assert sum(len(LESSON_LINK.findall(text)) for _, text in _documents()) > 30  # the pattern finds them


def test_every_lesson_number_in_a_title_matches_its_file():
    for path in NOTEBOOKS:
        if path.stem.startswith("00"):
            continue
        title = json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"]
        first = "".join(title).splitlines()[0]
        assert first.startswith(f"# Lesson {int(path.stem[:2])} · "), f"{path.name}: {first}"
