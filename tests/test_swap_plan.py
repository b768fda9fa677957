"""Which lessons the swap matrix runs under which real provider (tests/test_swap.py's `PLAN`).

The matrix leaves a (provider, lesson) run out only where the swap cannot change the lesson.
These tests hold the rules to a table of lessons, and the package to what the rules assume:
only `provider_from_env` reads the swap's environment variables, and nothing in the package
calls it for a lesson.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from conftest import REAL_PROVIDERS, parsed
from test_swap import NOTEBOOKS, PLAN, READS_THE_SWAP, RUNS, reads_the_swap, swap_plan

SRC = Path(__file__).parents[1] / "src" / "toolcall_lab"
SWAP_VARIABLES = set(READS_THE_SWAP[1:])
ALL = tuple(REAL_PROVIDERS)
SENT = [{"input": 10, "output": 1}]


def lesson(folder: Path, name: str, *sources: str) -> Path:
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
              "source": source} for i, source in enumerate(sources)]
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def measured(**lessons: dict[str, list]) -> dict:
    """lesson_usage.json's "providers" from {stem: {provider: requests}} (a provider left out: [])."""
    return {p: {"lessons": {stem: said.get(p, []) for stem, said in lessons.items()}} for p in ALL}


def test_the_plan_follows_the_rules(tmp_path):
    paths = [
        lesson(tmp_path, "a_sends", "provider = provider_from_env()", "run(provider)"),
        lesson(tmp_path, "b_sends_under_one", "provider = provider_from_env()"),
        lesson(tmp_path, "c_takes_but_sends_nothing", "provider = provider_from_env()"),
        lesson(tmp_path, "d_reads_the_variable", "import os\nos.environ['TOOLCALL_LAB_MODEL']"),
        lesson(tmp_path, "e_never_takes_it", "print(1)"),
        lesson(tmp_path, "f_not_measured", "print(1)"),
        lesson(tmp_path, "g_takes_but_sends_nothing", "provider = provider_from_env()"),
    ]
    usage = measured(a_sends={p: SENT for p in ALL}, b_sends_under_one={ALL[2]: SENT},
                     c_takes_but_sends_nothing={}, d_reads_the_variable={}, e_never_takes_it={},
                     g_takes_but_sends_nothing={})
    plan = swap_plan(paths, usage)
    assert plan == {
        "a_sends.ipynb": ALL,  # sends under every provider: all four
        "b_sends_under_one.ipynb": ALL,  # sends under one: still all four
        "c_takes_but_sends_nothing.ipynb": (ALL[0],),  # one, in turn
        "d_reads_the_variable.ipynb": (ALL[1],),
        "e_never_takes_it.ipynb": (),  # the swap cannot reach it
        "f_not_measured.ipynb": (ALL[2],),  # so its missing measurement shows as stale
        "g_takes_but_sends_nothing.ipynb": (ALL[3],),
    }


@pytest.mark.parametrize("source", ["print('provider')", "provider = get_provider('scripted')",
                                    "os.environ['HOME']"])
def test_a_cell_that_does_not_take_the_provider_does_not_read_the_swap(tmp_path, source):
    assert not reads_the_swap(lesson(tmp_path, "x", source))


def test_markdown_that_names_the_provider_cell_does_not_read_the_swap(tmp_path):
    path = lesson(tmp_path, "x", "1")
    data = json.loads(path.read_text())
    data["cells"].append({"cell_type": "markdown", "id": "m", "metadata": {}, "source": "provider_from_env"})
    path.write_text(json.dumps(data))
    assert not reads_the_swap(path)


def test_every_lesson_runs_scripted_and_every_real_provider_is_run():
    assert [name for p, name in RUNS if p is None] == NOTEBOOKS
    assert {p for p, _ in RUNS if p} == set(REAL_PROVIDERS)
    assert len(RUNS) == len(set(RUNS))
    # lesson 1, whose promise the swap is, runs under all four
    assert PLAN["01_one_tool_call.ipynb"] == ALL


def _package_modules():
    return sorted(SRC.rglob("*.py"))


def test_only_provider_from_env_reads_the_swaps_variables():
    readers = set()
    for path in _package_modules():
        for node in ast.walk(parsed(path)):
            read = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            called = (isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute)
                      and node.func.attr in {"get", "getenv"})
            looked_up = node.slice if read else node.args[0] if called else None
            if isinstance(looked_up, ast.Constant) and looked_up.value in SWAP_VARIABLES:
                readers.add(path.relative_to(SRC).as_posix())
    assert readers == {"tape/environment.py"}


def test_nothing_in_the_package_calls_provider_from_env():
    callers = [path.relative_to(SRC).as_posix() for path in _package_modules()
               for node in ast.walk(parsed(path))
               if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None))
               == "provider_from_env"]
    assert callers == []
