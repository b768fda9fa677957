"""Strict nbval of every lesson, against the floor: as many one-cell notebooks, same command.

    .venv/bin/python benchmarks/nbval_floor.py [--runs 5] [--cells 12]

The floor is what any notebook check costs before a lesson does anything: pytest and
nbval starting, one kernel per notebook, one trivial cell (`print("ok")`) compared.
Both runs are `python -m pytest -q -c pyproject.toml <notebooks>` from the project root, with
the project's own options (`pyproject.toml`: strict `--nbval`, the sanitizer), in a fresh
process each, the lessons and the floor alternating so that machine noise hits both.

Printed per run: the wall seconds of each and their ratio, and the CPU seconds (this
process's children: pytest and the kernels it started), which other jobs on a shared
machine disturb less. Then the median and the spread (min-max) over the runs of each
figure. The goal (issue 20) was a wall ratio of at most 2 to the bare floor; issue 30's is at
most 1.25 to the floor with the lessons' libraries imported (below).

A third run separates the kit's own work from the libraries the lessons load by design
(the official SDKs, through which the lessons talk to the API double, matplotlib, ipywidgets):
each lesson kernel writes, as it exits, which of `HEAVY` it had imported (an IPython startup
file in a temporary IPYTHONDIR), and "floor + libraries" is as many one-cell notebooks, each
importing one kernel's set. Its ratio is what the lessons cost beyond importing those.

With `--cells N` it also prints the N slowest cells of the last lesson run (from pytest's
JUnit XML), which is where a profile starts. No assertion: shared machines are noisy, so
this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


HEAVY = ("anthropic", "openai", "ollama", "mcp", "matplotlib", "ipywidgets", "jsonschema")

# the kit imports jsonschema without its format checkers' packages; the floor does the same
IMPORT = {"jsonschema": "from toolcall_lab._jsonschema import import_jsonschema; import_jsonschema()"}

STARTUP = """\
import os, sys
def _write_heavy(*_):
    heavy = [m for m in {heavy!r} if m in sys.modules]
    with open(os.path.join({folder!r}, f"{{os.getpid()}}.txt"), "w") as out:
        out.write(" ".join(heavy))
get_ipython().events.register("post_execute", _write_heavy)
"""
# subtle: written after every cell, not at exit: nbval's kernels may be killed, not asked to exit


def one_cell_notebook(path: Path, imports: Sequence[str] = ()) -> None:
    """A notebook holding one cell, `print("ok")` after `imports`, with its committed output."""
    output = {"name": "stdout", "output_type": "stream", "text": ["ok\n"]}
    source = "".join(f"{IMPORT.get(name, 'import ' + name)}\n" for name in imports) + 'print("ok")'
    cell = {"cell_type": "code", "execution_count": 1, "id": "floor", "metadata": {},
            "source": [source], "outputs": [output]}
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                             "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")


def nbval(paths: list[str], junit: Path | None = None,
          env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the children) of strict nbval on `paths`; fails loudly."""
    # subtle: pytest collects a notebook outside its rootdir only when told the rootdir is there
    rootdir = Path(paths[0]).parent if Path(paths[0]).is_absolute() else ROOT
    command = [sys.executable, "-m", "pytest", "-q", "-c", str(ROOT / "pyproject.toml"),
               f"--rootdir={rootdir}", *paths]
    if junit is not None:
        command.append(f"--junitxml={junit}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                          env=None if env is None else {**os.environ, **env})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"strict nbval failed on {paths[0]}...:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def slowest_cells(junit: Path, count: int) -> list[tuple[float, str]]:
    cases = ET.parse(junit).getroot().iter("testcase")
    return sorted(((float(case.get("time", 0)), f"{case.get('classname')}::{case.get('name')}")
                   for case in cases), reverse=True)[:count]


def spread(values: list[float], unit: str = "") -> str:
    return f"median {statistics.median(values):6.2f}{unit}  (min {min(values):.2f}, max {max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cells", type=int, default=0, help="also list the N slowest lesson cells")
    args = parser.parse_args()
    cells = sum(sum(c["cell_type"] == "code" for c in json.loads((ROOT / p).read_text())["cells"])
                for p in LESSONS)
    print(f"{len(LESSONS)} lessons, {cells} code cells, against {len(LESSONS)} one-cell notebooks")
    figures: dict[str, list[float]] = {"lessons wall": [], "floor wall": [], "wall ratio": [],
                                       "lessons cpu": [], "floor cpu": [], "cpu ratio": []}
    with tempfile.TemporaryDirectory() as folder:
        floor = []
        for i in range(len(LESSONS)):
            one_cell_notebook(Path(folder) / f"floor_{i:02}.ipynb")
            floor.append(str(Path(folder) / f"floor_{i:02}.ipynb"))
        junit = Path(folder) / "lessons.xml"
        nbval(floor[:1])  # warm the file cache and the .pyc files before anything is timed
        loaded = Path(folder) / "loaded"
        startup = Path(folder) / "ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        loaded.mkdir()
        (startup / "00-heavy.py").write_text(STARTUP.format(heavy=HEAVY, folder=str(loaded)))
        nbval(LESSONS, env={"IPYTHONDIR": str(startup.parent.parent)})
        kernels = [f.read_text().split() for f in sorted(loaded.glob("*.txt"))]
        with_libraries = []
        for i, imports in enumerate(kernels):
            one_cell_notebook(Path(folder) / f"libraries_{i:02}.ipynb", imports)
            with_libraries.append(str(Path(folder) / f"libraries_{i:02}.ipynb"))
        counts = {name: sum(name in k for k in kernels) for name in HEAVY}
        print(f"libraries the {len(kernels)} lesson kernels loaded: "
              + ", ".join(f"{name} {n}" for name, n in counts.items() if n))
        figures.update({"libraries wall": [], "libraries cpu": [], "wall ratio to libraries": [],
                        "cpu ratio to libraries": []})
        for run in range(1, args.runs + 1):
            lessons_wall, lessons_cpu = nbval(LESSONS, junit)
            floor_wall, floor_cpu = nbval(floor)
            libraries_wall, libraries_cpu = nbval(with_libraries)
            for name, value in (("lessons wall", lessons_wall), ("floor wall", floor_wall),
                                ("wall ratio", lessons_wall / floor_wall), ("lessons cpu", lessons_cpu),
                                ("floor cpu", floor_cpu), ("cpu ratio", lessons_cpu / floor_cpu),
                                ("libraries wall", libraries_wall), ("libraries cpu", libraries_cpu),
                                ("wall ratio to libraries", lessons_wall / libraries_wall),
                                ("cpu ratio to libraries", lessons_cpu / libraries_cpu)):
                figures[name].append(value)
            print(f"run {run}: lessons {lessons_wall:6.1f} s, floor {floor_wall:5.1f} s, ratio "
                  f"{lessons_wall / floor_wall:4.2f}x   cpu {lessons_cpu:6.1f} s / {floor_cpu:5.1f} s = "
                  f"{lessons_cpu / floor_cpu:4.2f}x; floor + libraries {libraries_wall:5.1f} s,"
                  f" cpu {libraries_cpu:5.1f} s", flush=True)
        print(f"over {args.runs} runs:")
        for name, values in figures.items():
            print(f"  {name:<23} {spread(values, 'x' if 'ratio' in name else ' s')}")
        to_libraries = statistics.median(figures["wall ratio to libraries"])
        print(f"wall ratio {statistics.median(figures['wall ratio']):.2f}x; to the floor"
              f" with the lessons' libraries imported {to_libraries:.2f}x  (goal: <= 1.25x)")
        if args.cells:
            print(f"slowest {args.cells} lesson cells of the last run:")
            for seconds, name in slowest_cells(junit, args.cells):
                print(f"  {seconds:6.2f} s  {name}")


if __name__ == "__main__":
    main()
