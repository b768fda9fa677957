"""A class on a real JupyterHub: how long a learner waits, and how much memory each learner costs.

    .venv/bin/python benchmarks/classroom_hub.py [--users 3] [--runs 1]

Runs tests/browser/hub_class.py's class (JupyterHub on loopback, the pure-Python proxy, headless
Chromium, every learner opening lesson 1 by nbgitpuller link at the same time and running all
its cells; see that file) and prints, per run: each learner's seconds from opening the link to
the first rendered cell (and the part the hub spent starting their server), the seconds to run
every cell, the resident memory of each learner's server and kernel, and the hub's and proxy's
memory. Then, over every learner of every run, the median and the worst.

No assertion here: the numbers depend on the machine and on what else it runs. What a class
needs from them: the wait is dominated by starting the learner's server (Python imports), and
a learner costs about a third of a gigabyte, so size a TLJH machine at about 0.4 GB a learner
plus the hub. Needs /usr/bin/chromium, Playwright and the `hub` extra (in the dev extra).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from pathlib import Path

HUB_CLASS = Path(__file__).resolve().parents[1] / "tests" / "browser" / "hub_class.py"


def load_hub_class():
    spec = importlib.util.spec_from_file_location("hub_class", HUB_CLASS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # subtle: dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=3, help="learners at once (default 3)")
    parser.add_argument("--runs", type=int, default=1, help="classes, one after the other (default 1)")
    args = parser.parse_args()
    hub_class = load_hub_class()
    if not hub_class.check_lesson.CHROMIUM.exists():
        print(f"classroom_hub: {hub_class.check_lesson.CHROMIUM} is missing (apt-get install chromium)")
        return 2
    learners, hubs = [], []
    for run in range(1, args.runs + 1):
        session = hub_class.run_class(args.users)
        print(f"run {run}:")
        for line in hub_class.report_lines(session):
            print(f"  {line}")
        learners += session.learners
        hubs.append(session.hub_mib)
    summary = {
        "link -> first cell (s)": [learner.seconds_to_first_cell for learner in learners],
        "  of which server start (s)": [learner.seconds_to_start_server for learner in learners],
        "run all cells (s)": [learner.seconds_to_run_all for learner in learners],
        "server + kernel per learner (MiB)": [learner.server_mib for learner in learners],
        "CPU per learner, start + lesson 1 (s)": [learner.server_cpu_s for learner in learners],
        "hub + proxy per learner (MiB)": [mib / args.users for mib in hubs],
    }
    print(f"\n{args.users} learners at once, {args.runs} run(s): median, worst")
    for name, values in summary.items():
        known = [value for value in values if value is not None]
        if known:
            print(f"  {name:<36} {statistics.median(known):7.1f} {max(known):7.1f}")
    failed = [f"{learner.name}: {problem}" for learner in learners for problem in learner.problems]
    for problem in failed:
        print(f"classroom_hub: FAIL {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
