"""Every lesson's exercises: the keys accept the worked answers in the lesson itself, and no
learner's cell holds its answer.

The wrong-answer table for each key is in tests/test_checks.py; here each lesson runs
in-process (see `lessons.run_lesson`) with the worked answers of its key module
(`toolcall_lab.checks.<topic>.SOLUTIONS`) in place of the `...`, which proves each check
cell is wired to the lesson's own data. (nbval separately checks the committed outputs.)
"""

from __future__ import annotations

import ast
import re

import pytest

from lessons import (
    NOTEBOOKS,
    YOUR_CODE,
    answer_key,
    blank_questions,
    cells,
    definition,
    learner_cells,
    run_lesson,
    your_code,
)

LESSONS = sorted(NOTEBOOKS.glob("*.ipynb"))
WITH_KEYS = [path for path in LESSONS if answer_key(path) is not None]
#: Lessons that start a process of their own (lesson 24 runs an MCP server over stdio): slow to run.
STARTS_A_PROCESS = {"24_what_the_server_says", "29_a_run_that_outlives_its_process"}
RUN_WITH_KEYS = [pytest.param(path, marks=pytest.mark.slow) if path.stem in STARTS_A_PROCESS else path
                 for path in WITH_KEYS]


def questions(path):
    """Every answer a learner gives: the `name = ...` blanks and the `your-code` definitions."""
    return blank_questions(path) + [name for name, _ in your_code(path)]


def test_every_lesson_with_exercises_has_a_key():
    for path in LESSONS:
        if questions(path):
            assert answer_key(path) is not None, f"{path.name} has questions but no key module"


@pytest.mark.parametrize("path", RUN_WITH_KEYS, ids=lambda p: p.stem)
def test_the_worked_answers_pass_every_check_in_the_lesson(path, capsys):
    solutions = answer_key(path).SOLUTIONS
    run_lesson(path, solutions)
    out = capsys.readouterr().out
    assert "not answered yet" not in out
    assert out.count(": correct.") == len(solutions)


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_every_question_starts_blank_and_has_a_worked_answer(path):
    assert sorted(questions(path)) == sorted(answer_key(path).SOLUTIONS)


ALLOWED = re.compile(r"^(\w+ = \.\.\.|checks\.\w+\(.*\)|from [\w.]+ import [\w, ]+|import [\w.]+|#.*|)$")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_learner_cell_holds_its_answer(path):
    """A learner's cell holds `name = ...`, imports, comments and `checks.<name>(...)` calls only."""
    key = answer_key(path)
    for source in learner_cells(path):
        assert "expected=" not in source
        for line in source.splitlines():
            assert ALLOWED.match(line.strip()), f"{path.name}: a learner's cell runs {line!r}"
        for called in re.findall(r"checks\.(\w+)\(", source):
            assert key is not None and callable(getattr(key, called, None)), called


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
        node.value.value, str)


def _is_ellipsis(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.value.value is ...


def template_problems(source: str) -> list[str]:
    """What in a `your-code` cell goes beyond a template: imports, comments, one definition
    whose functions hold only a docstring and `...`, and (in a class) constants."""
    problems = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Import | ast.ImportFrom | ast.ClassDef | ast.FunctionDef):
            problems.append(f"line {node.lineno} runs code outside the definition")
    top = definition(source)
    functions = [top] if isinstance(top, ast.FunctionDef) else []
    for node in top.body if isinstance(top, ast.ClassDef) else []:
        if isinstance(node, ast.FunctionDef):
            functions.append(node)
        elif not (_is_docstring(node) or isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(
                node.value, ast.Constant)):
            problems.append(f"line {node.lineno} of the class is neither a method nor a constant")
    for function in functions:
        body = function.body[1:] if _is_docstring(function.body[0]) else function.body
        if not all(_is_ellipsis(node) for node in body) or not body:
            problems.append(f"{function.name}() has a body; a template's is a docstring and `...`")
    return problems


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_your_code_cell_holds_its_answer(path):
    """A `your-code` cell is a template: the body of every function in it is `...`."""
    for name, source in your_code(path):
        problems = template_problems(source)
        assert not problems, f"{path.name}, {YOUR_CODE} cell {name}: {problems}"


def test_a_template_with_a_body_is_caught():
    template = ('from x import y\n\nclass Echo:\n    name = "echo"\n\n'
                '    def complete(self, t):\n        """Doc."""\n        ...\n')
    assert template_problems(template) == []
    assert template_problems(template.replace("        ...", "        return t")) == [
        "complete() has a body; a template's is a docstring and `...`"]
    assert template_problems(template + "Echo().complete(1)\n") == ["line 9 runs code outside the definition"]


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_no_hint_or_page_text_spells_a_worked_answer(path):
    text = "\n".join(cells(path, "markdown"))
    for name, _ in your_code(path):  # a worked definition: no line of its bodies on the page
        for line in _body_lines(answer_key(path).SOLUTIONS[name]):
            assert line not in text, f"{path.name}: the page spells a line of the answer to {name}: {line}"
    for name, solution in answer_key(path).SOLUTIONS.items():
        if name in dict(your_code(path)):
            continue  # its lines were looked for above
        try:   # a literal (a number, one of the words a question offers) is not code to copy
            ast.literal_eval(solution)
            continue
        except (ValueError, SyntaxError):  # code: an expression, or statements
            pass
        assert solution not in text, f"{path.name}: the page spells the answer to {name}"
        assert solution.replace(" ", "") not in text.replace(" ", ""), name


def _body_lines(solution: str) -> list[str]:
    """The lines of code (not docstrings) inside the functions of a worked definition,
    at least 20 characters long: what a page must not show."""
    lines = solution.splitlines()
    found = []
    for node in ast.walk(ast.parse(solution)):
        if isinstance(node, ast.FunctionDef):
            body = node.body[1:] if _is_docstring(node.body[0]) else node.body
            for statement in body:
                for line in lines[statement.lineno - 1: statement.end_lineno]:
                    if len(line.strip()) >= 20 and not line.strip().startswith("#"):
                        found.append(line.strip())
    return found


@pytest.mark.parametrize("path", WITH_KEYS, ids=lambda p: p.stem)
def test_every_worked_answer_is_python(path):
    defined = dict(your_code(path))
    for name, solution in answer_key(path).SOLUTIONS.items():
        if name in defined:  # a worked definition: one class or function of that name
            assert definition(solution).name == name
        else:  # one expression, or statements that end by setting the name (one exercise's try/except)
            try:
                ast.parse(solution, mode="eval")
            except SyntaxError:
                assigned = {t.id for node in ast.walk(ast.parse(solution)) if isinstance(node, ast.Assign)
                            for t in node.targets if isinstance(t, ast.Name)}
                assert name in assigned, f"{path.name}: the statements answering {name} never set it"
