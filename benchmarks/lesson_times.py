"""How long each lesson takes in class: what can be measured, and a stated model for the rest.

    python benchmarks/lesson_times.py [NOTEBOOK ...] [--wpm 175] [--no-run]

Measured, per lesson: the wall time of **Restart Kernel and Run All** (nbclient, a fresh
kernel, the scripted provider, kernel start included), the words of its text cells, its code
cells, and what it asks of the learner: *predict* cells (`predict_... = ...`), questions and
exercises (any other `name = ...`), and `your-code` cells (a class or function to write).

Estimated (a model, not a stopwatch of people):

    class time = words / WPM                    reading the text
               + code cells x 15 s              running each cell and glancing at its output
               + predict cells x 1 min          a guess, typed
               + questions x 3 min              a one-line answer, checked
               + your-code cells x 10 min       a class or function written and checked
               + the Run All time               waiting for the kernel

WPM defaults to 175 words a minute: the low end of the range Brysbaert's meta-analysis
gives for most adults reading English non-fiction silently (175-300, mean 238; "How many
words do we read per minute?", Journal of Memory and Language 109, 2019,
https://doi.org/10.1016/j.jml.2019.104047), because a lesson is technical text read between
code, often in a second language. The per-item allowances are this kit's assumptions; change
them below and say so. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"
BLANK = re.compile(r"^(\w+) = \.\.\.$", re.M)  # a learner's answer, as tests/lessons.py reads it

PER_CODE_CELL_S = 15
PER_PREDICT_MIN = 1
PER_QUESTION_MIN = 3
PER_YOUR_CODE_MIN = 10


@dataclass
class Lesson:
    name: str
    words: int
    code_cells: int
    predicts: int
    questions: int
    your_code: int
    run_s: float | None

    def minutes(self, wpm: float) -> float:
        """The model above, in minutes."""
        return (self.words / wpm + self.code_cells * PER_CODE_CELL_S / 60
                + self.predicts * PER_PREDICT_MIN + self.questions * PER_QUESTION_MIN
                + self.your_code * PER_YOUR_CODE_MIN + (self.run_s or 0) / 60)


def count(path: Path) -> Lesson:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    code = [c for c in cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    blanks = BLANK.findall("\n".join("".join(c["source"]) for c in code))
    words = sum(len(re.findall(r"[A-Za-z0-9][\w'’-]*", t)) for t in text)
    return Lesson(path.stem, words, len(code), sum(b.startswith("predict") for b in blanks),
                  sum(not b.startswith("predict") for b in blanks),
                  sum("your-code" in c.get("metadata", {}).get("tags", []) for c in code), None)


def run_all(path: Path) -> float:
    """Seconds for a fresh kernel to run the lesson top to bottom, as the learner's copy stands."""
    import nbclient
    import nbformat

    from toolcall_lab.teacher.solutions import (
        kernel_config,  # over IPC: no "eavesdropping" warning per lesson
    )

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, config=kernel_config(), timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--wpm", type=float, default=175, help="reading speed (default 175)")
    parser.add_argument("--no-run", action="store_true", help="count only; do not start kernels")
    args = parser.parse_args()
    paths = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb"))
    lessons = []
    for path in paths:
        lesson = count(path)
        if not args.no_run:
            lesson.run_s = run_all(path)
        lessons.append(lesson)
    header = (f"{'lesson':<34} {'words':>6} {'read':>5} {'cells':>5} {'pred':>4} {'q/ex':>4} "
              f"{'code':>4} {'run all':>7} {'model':>6}")
    print(header)
    print("-" * len(header))
    for lesson in lessons:
        run = "-" if lesson.run_s is None else f"{lesson.run_s:.1f} s"
        print(f"{lesson.name:<34} {lesson.words:>6} {lesson.words / args.wpm:>4.0f}m "
              f"{lesson.code_cells:>5} {lesson.predicts:>4} {lesson.questions:>4} {lesson.your_code:>4} "
              f"{run:>7} {lesson.minutes(args.wpm):>4.0f} m")
    print(f"\nread = words / {args.wpm:g} wpm; model = read + cells x {PER_CODE_CELL_S} s + pred x "
          f"{PER_PREDICT_MIN} min + q/ex x {PER_QUESTION_MIN} min + code x {PER_YOUR_CODE_MIN} min "
          "+ run all.\nA model with stated assumptions, not a measurement of learners; "
          "time a real class to calibrate it.")


if __name__ == "__main__":
    main()
