"""What the first tool call of a lesson costs, against the bare `import toolcall_lab`.

    .venv/bin/python benchmarks/first_tool_call.py [--runs 5]

Each measurement starts a fresh interpreter: one only imports the kit, the other
imports it and runs the Paris question through `run_agent` with `get_weather` (the
first argument check loads jsonschema). They alternate so machine noise hits both. It
prints the medians and the ratio; the goal is at most 3x. No assertion here: shared
machines are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

IMPORT = "import toolcall_lab"
FIRST_CALL = """\
from toolcall_lab import ScriptedProvider, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
"""


def wall_s(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    wall_s(FIRST_CALL)  # warm the file cache and write .pyc files first
    bare, first = [], []
    for _ in range(runs):
        bare.append(wall_s(IMPORT))
        first.append(wall_s(FIRST_CALL))
    b, f = statistics.median(bare), statistics.median(first)
    print(f"import toolcall_lab              median {b:6.2f} s  ({runs} runs)")
    print(f"... and a first run_agent + tool median {f:6.2f} s")
    print(f"ratio {f / b:.2f}x  (goal: <= 3x)")


if __name__ == "__main__":
    main()
