"""A one-page printable handout per lesson, made from the lesson itself.

A teacher prints one page per learner: what the lesson promises, how long it takes and what
it assumes, the two things every lesson leans on (the four messages of a tool call and what
a loop costs), where to look in the lesson (its sections), and what it showed (its recap).
Everything lesson-specific is read from the notebook: its title, its bold promise, the
**Takes** and **Assumes** lines of "Before you start", its `##` headings and its Recap's
bullets. So a handout cannot drift from its lesson; `tests/test_handouts.py` regenerates
every handout and compares it with the one committed in `docs/handouts/`.

    python -m toolcall_lab handouts [OUT] [--lessons notebooks]

writes `OUT/NN_name.md` (default `docs/handouts/`) for every lesson, and `OUT/README.md`
listing them. Markdown prints from any browser (GitHub renders it); each page is kept to
about one printed page.

>>> print(BOX_MESSAGES.splitlines()[2])
| 1 | user | the question | the user |

Left out: the lesson's code and its answers (a handout is for the desk, not a key).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .._files import save_atomically
from ..errors import UsageError

__all__ = ["BOX_FORMULA", "BOX_MESSAGES", "handout", "write_handouts"]

#: The four messages of one tool call, who produced each: the spine of every lesson.
BOX_MESSAGES = """\
| # | role | what it holds | produced by |
|---|---|---|---|
| 1 | user | the question | the user |
| 2 | assistant | a tool call: a name, arguments, an id | the model (it runs nothing) |
| 3 | user | the tool result, carrying the **same id** | your code, which ran the tool |
| 4 | assistant | the answer, read from the result | the model |"""

#: What a loop costs: each call re-sends the whole conversation.
BOX_FORMULA = """\
Call *k* of a loop sends everything so far: *h0 + t·(k−1)* input tokens (*h0*: the first
request, *t*: what each step adds). A loop of *n* calls is billed
**n·h0 + t·n(n−1)/2** input tokens: the square of its length."""

_HEADING = re.compile(r"^## (.+)$", re.M)
_SKIPPED = {"Before you start", "Recap", "Check yourself", "Exercises", "Where next"}


def _markdown_cells(notebook: Path) -> list[str]:
    try:
        nb: dict[str, Any] = json.loads(notebook.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read the lesson {notebook} ({error}); pass a lesson notebook.") from error
    return ["".join(c.get("source", "")) for c in nb.get("cells", []) if c.get("cell_type") == "markdown"]


def _line(text: str, label: str) -> str:
    found = re.search(rf"\*\*{label}:\*\* (.+)", text)
    return found[1].strip() if found else ""


def handout(notebook: Path | str) -> str:
    """The handout of the lesson at `notebook`, as Markdown (one printed page)."""
    notebook = Path(notebook)
    cells = _markdown_cells(notebook)
    if not cells or not cells[0].startswith("# "):
        raise UsageError(f"{notebook.name} has no title cell ('# Lesson N · ...'); is it a lesson?")
    title = cells[0].splitlines()[0].removeprefix("# ")
    # subtle: the promise is the paragraph under the title, bold in part ("**By the end you
    # can** ...") or whole; its bold marks go, its words all stay
    promise = " ".join(cells[0].partition("\n")[2].replace("**", "").split())
    before = next((c for c in cells if c.startswith("## Before you start")), "")
    recap = next((c for c in cells if c.startswith("## Recap")), "")
    sections = [h for c in cells for h in _HEADING.findall(c) if h.strip() not in _SKIPPED]
    text = "\n".join(cells)
    asked = len(re.findall(r"^\*\*Q\d+\.\*\*", text, re.M))
    exercises = len(re.findall(r"^\*\*[★ ]*Exercise \d+", text, re.M))
    predictions = len(re.findall(r"^\*\*Predict first\.\*\*", text, re.M))
    lines = [f"# {title}", "", "*A one-page handout: print it, keep it beside the lesson.*", ""]
    if promise:
        lines += [promise, ""]
    facts = [f"**{label}:** {value}" for label, value in
             (("Takes", _line(before, "Takes")), ("Assumes", _line(before, "Assumes"))) if value]
    lines += [" · ".join(facts), "", "## Every tool call, four messages", "", BOX_MESSAGES, "",
              "## What a loop costs", "", BOX_FORMULA, "", "## Where to look in the lesson", ""]
    lines += [f"- {section}" for section in sections]
    bullets = [line for line in recap.splitlines() if line.startswith("- ")]
    if bullets:
        lines += ["", "## What it shows", "", *bullets]
    counts = [f"{n} {word}{'' if n == 1 else 's'}" for n, word in
              ((predictions, "prediction"), (asked, "question"), (exercises, "exercise")) if n]
    if counts:
        lines += ["", f"*You answer {', '.join(counts)}, each checked by a cell; a wrong answer says "
                      "where to look and the lesson runs on.*"]
    return "\n".join(lines) + "\n"


def write_handouts(lessons: Path | str, out: Path | str) -> list[Path]:
    """Write the handout of every numbered lesson in `lessons` into `out`, and an index."""
    lessons, out = Path(lessons), Path(out)
    found = sorted(p for p in lessons.glob("[0-9][0-9]_*.ipynb") if not p.stem.startswith("00"))
    if not found:
        raise UsageError(f"no lessons in {lessons}/; pass the folder that holds them "
                         "(--lessons notebooks, from a clone of the kit).")
    if not out.is_dir():
        raise UsageError(f"{out}/ is not a folder; make it first or pass another OUT.")
    written = [save_atomically(out / f"{p.stem}.md", handout(p).encode(), what="handout", error=UsageError)
               for p in found]
    index = ["# Handouts", "", "One printable page per lesson, made from the lesson by "
             "`python -m toolcall_lab handouts`.", ""]
    index += [f"- [{handout_title(p)}]({p.name})" for p in written]
    text = "\n".join(index) + "\n"
    written.append(save_atomically(out / "README.md", text.encode(), what="handout index", error=UsageError))
    return written


def handout_title(path: Path) -> str:
    """The title line of a written handout."""
    return path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")
