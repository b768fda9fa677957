"""How long each lesson takes in class: what can be measured, and a calibrated model for the rest.

    python benchmarks/lesson_times.py [NOTEBOOK ...] [--wpm 175] [--no-run] [--answers]

Measured, per lesson: the wall time of **Restart Kernel and Run All** (nbclient, a fresh
kernel, the scripted provider, kernel start included), the words of its text cells, its code
cells and their lines, and every answer the learner gives: each `name = ...` blank and each
`your-code` cell, sized by its worked answer in the lesson's key (`SOLUTIONS` in
`toolcall_lab.checks.<topic>`, the answer the checks accept), without docstrings and comments,
which a template already holds.

**Each answer is classed by what the learner must produce, not by its tag** (a `name = ...`
blank may need a comprehension; a prediction may be a dict of sets):

    prediction   a blank named predict_...: a guess, typed before the reveal
    value        a one-line literal or expression: a number, a word, a sum of prices
    structure    an expression that builds data: a dict (a request body, a JSON schema), a
                 list, set or tuple of more than 8 pieces (a script of replies), or raw text
                 of more than 8 pieces (a model's tagged tool calls)
    code         a function or class, a lambda, a comprehension, or several statements

Estimated (a model, calibrated on the lessons as a learner does them):

    class time = words / WPM                        reading the text
               + code cells x 15 s                  running each cell, glancing at its output
               + code lines x 7.2 s                 reading the code (500 lines an hour)
               + per answer: its kind's allowance   finding what to write, running its check,
                                                    reading the verdict, one correction
                           + writing its pieces     tokens x 1.35 s + characters x 0.5 s
               + the Run All time                   waiting for the kernel

Allowances per answer: prediction 1.5 min, value 1.5 min, structure 3 min, code 8 min.

The basis of each rate:
- **Reading, 175 words a minute**: the low end of the range Brysbaert's meta-analysis gives
  for most adults reading English non-fiction silently (175-300, mean 238; "How many words do
  we read per minute?", Journal of Memory and Language 109, 2019,
  https://doi.org/10.1016/j.jml.2019.104047); a lesson is technical text read between code,
  often in a second language.
- **Code, 500 lines an hour (7.2 s a line)**: the rate at which reviewers prepare an inspection
  of application code in a high-level language ("reviewers can prepare at about 500 lines of
  code per hour", McConnell, Code Complete 2nd ed., citing Humphrey 1989; quoted at
  https://www.goodreads.com/notes/11357965-code-complete/56969661-phong-b-nguyen/e29112dc-03cf-4f41-9970-2e66969c93c6):
  reading code to know what it does, line by line, as a learner reads a lesson's cells.
- **Writing, per token 1.35 s + per character 0.5 s**: the keystroke-level model's operators
  (Card, Moran and Newell, "The keystroke-level model for user performance time with
  interactive systems", CACM 23(7), 1980, https://doi.org/10.1145/358886.358895; the table at
  http://asi-www.informatik.uni-hamburg.de/informatik/SE_Evaluation/html/pages/goms.htm:
  "M MENTALLY PREPARE. 1.35", "K ... Typing random letters .50"): one mental step per token
  of the answer, and code typed at the rate of random letters, not of prose. This is an
  expert's error-free entry; what a learner adds is in the allowance.
- **The allowances per kind** are this kit's, the one part fitted: round values that put every
  lesson a learner tried (issue 29 §4: lessons 10-14, "from cell counts and the exercises")
  inside the range the learner gave, with the same numbers for every lesson, no lesson
  adjusted alone. A value or a prediction is a look back at the page and one line typed and
  checked (1.5 min); a structure asks for its shape from the page or the API's docs (3 min);
  code asks for a design, a run of its check, a wrong verdict read and a fix (8 min).

Calibration evidence (`--no-run`, the committed lessons when the model was fitted, numbered as
they were then: 10 is now 19-20, 11 is 21-22, 12 is 23-24, 13 is 25, 14 is 26-27):

    lesson                 tried by a learner   old model   this model
    10 caching for real        50-60 min          36 min       52 min
    11 streaming               60-75 min          44 min       65 min
    12 tools from a process    65-80 min          50 min       72 min
    13 structured output       35-45 min          28 min       45 min
    14 measuring a model       55-70 min          42 min       56 min

The old model (175 wpm, 15 s a cell, 1 min a prediction, 3 min a question, 10 min a
`your-code` cell) put all five 7 to 16 minutes below the learner's shortest: it never read
the code, and it gave a `name = ...` blank whose answer is code or a request body the time
of a one-word answer.
`--answers` prints each answer's kind, size and minutes. Prints tables; asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"
BLANK = re.compile(r"^(\w+) = \.\.\.$", re.M)  # a learner's answer, as tests/lessons.py reads it
WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")

PER_CODE_CELL_S = 15
PER_CODE_LINE_S = 3600 / 500  # Humphrey's 500 lines an hour
PER_TOKEN_S = 1.35  # the keystroke-level model's M, one per token written
PER_CHARACTER_S = 0.5  # its K for random letters
ALLOWANCE_MIN = {"prediction": 1.5, "value": 1.5, "structure": 3, "code": 8}


@dataclass
class Answer:
    name: str
    kind: str
    tokens: int
    characters: int

    def minutes(self) -> float:
        return ALLOWANCE_MIN[self.kind] + (self.tokens * PER_TOKEN_S + self.characters * PER_CHARACTER_S) / 60


@dataclass
class Lesson:
    name: str
    words: int
    code_cells: int
    code_lines: int
    answers: list[Answer] = field(default_factory=list)
    run_s: float | None = None

    def reading(self, wpm: float) -> float:
        return self.words / wpm

    def running(self) -> float:
        return self.code_cells * PER_CODE_CELL_S / 60

    def code_reading(self) -> float:
        return self.code_lines * PER_CODE_LINE_S / 60

    def answering(self, kind: str | None = None) -> float:
        return sum(a.minutes() for a in self.answers if kind in (None, a.kind))

    def minutes(self, wpm: float) -> float:
        """The model above, in minutes."""
        return (self.reading(wpm) + self.running() + self.code_reading() + self.answering()
                + (self.run_s or 0) / 60)


def _without_docstrings(source: str) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                skip.update(range(first.lineno - 1, first.end_lineno or first.lineno))
    return "\n".join(line for n, line in enumerate(source.splitlines()) if n not in skip)


_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER,
           tokenize.COMMENT}


def size(source: str) -> tuple[int, int]:
    """(tokens, characters) a learner types for `source`; a string's words and marks count apiece.

    size('{"max_tokens": 50}') -> (5, 17)
    """
    tokens = characters = 0
    for token in tokenize.generate_tokens(io.StringIO(_without_docstrings(source)).readline):
        if token.type in _LAYOUT:
            continue
        pieces = 1
        if token.type == tokenize.STRING:
            pieces = max(1, len(re.findall(r"\w+|[^\w\s]", token.string)) - 2)  # less the quotes
        tokens += pieces
        characters += len(token.string)
    return tokens, characters


def kind(name: str, solution: str) -> str:
    """What the learner produces for the blank `name`, judged by its worked answer."""
    if name.startswith("predict"):
        return "prediction"
    try:
        body = ast.parse(_without_docstrings(solution)).body
    except SyntaxError:
        return "code"
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return "code"  # a definition, or statements that end by setting the name
    nodes = list(ast.walk(body[0].value))
    if any(isinstance(n, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp)
           for n in nodes):
        return "code"
    if any(isinstance(n, ast.Dict) for n in nodes):
        return "structure"  # a request body, a schema, options
    if any(isinstance(n, ast.List | ast.Set | ast.Tuple) for n in nodes) and size(solution)[0] > 8:
        return "structure"  # a few choices in a set are still one line of values
    if isinstance(body[0].value, ast.Constant) and size(solution)[0] > 8:
        return "structure"  # raw text with a shape, such as a model's tagged tool calls
    return "value"


def _solutions(path: Path) -> dict[str, str]:
    from toolcall_lab.teacher.solutions import answer_key

    key = answer_key(path)
    return dict(getattr(key, "SOLUTIONS", {})) if key else {}


def count(path: Path) -> Lesson:
    from toolcall_lab.teacher.solutions import YOUR_CODE, definition

    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    code = [c for c in cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    sources = ["".join(c["source"]) for c in code]
    names = BLANK.findall("\n".join(sources))
    names += [definition(source).name for source, c in zip(sources, code, strict=True)
              if YOUR_CODE in c.get("metadata", {}).get("tags", [])]
    solutions = _solutions(path)
    answers = []
    for name in names:
        solution = solutions.get(name, "...")
        answers.append(Answer(name, kind(name, solution), *size(solution)))
    lines = sum(1 for source in sources[1:]  # the first cell installs the kit where it is missing
                for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    words = sum(len(WORD.findall(t)) for t in text)
    return Lesson(path.stem, words, len(code), lines, answers)


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
    parser.add_argument("--answers", action="store_true", help="list each answer's kind and minutes")
    args = parser.parse_args()
    paths = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb"))
    lessons = []
    for path in paths:
        lesson = count(path)
        if not args.no_run:
            lesson.run_s = run_all(path)
        lessons.append(lesson)
    header = (f"{'lesson':<34} {'words':>5} {'read':>4} {'cells':>5} {'run':>4} {'lines':>5} "
              f"{'code':>4} {'pred':>4} {'value':>5} {'struct':>6} {'write':>5} {'run all':>7} "
              f"{'model':>6}")
    print(header)
    print("-" * len(header))
    for lesson in lessons:
        run = "-" if lesson.run_s is None else f"{lesson.run_s:.1f} s"
        print(f"{lesson.name:<34} {lesson.words:>5} {lesson.reading(args.wpm):>4.0f} "
              f"{lesson.code_cells:>5} {lesson.running():>4.0f} {lesson.code_lines:>5} "
              f"{lesson.code_reading():>4.0f} {lesson.answering('prediction'):>4.0f} "
              f"{lesson.answering('value'):>5.0f} {lesson.answering('structure'):>6.0f} "
              f"{lesson.answering('code'):>5.0f} {run:>7} {lesson.minutes(args.wpm):>4.0f} m")
    print(f"\nminutes: read = words / {args.wpm:g} wpm; run = cells x {PER_CODE_CELL_S} s; "
          f"code = lines x {PER_CODE_LINE_S:g} s; pred, value, struct, write = the answers of each "
          "kind (prediction, value, structure, code), each its allowance "
          f"({', '.join(f'{k} {v:g}' for k, v in ALLOWANCE_MIN.items())} min) + tokens x "
          f"{PER_TOKEN_S} s + characters x {PER_CHARACTER_S} s; model = their sum + run all.")
    if args.answers:
        print(f"\n{'lesson':<34} {'answer':<24} {'kind':<10} {'tokens':>6} {'chars':>5} {'min':>5}")
        for lesson in lessons:
            for answer in lesson.answers:
                print(f"{lesson.name:<34} {answer.name:<24} {answer.kind:<10} {answer.tokens:>6} "
                      f"{answer.characters:>5} {answer.minutes():>5.1f}")


if __name__ == "__main__":
    main()
