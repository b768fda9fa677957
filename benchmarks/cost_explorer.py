"""How long the cost explorer takes to update after a slider moves, driven headless.

    .venv/bin/python benchmarks/cost_explorer.py [--changes 50]

Builds `widgets.cost_explorer()` (the first build imports matplotlib and ipywidgets, so
it is timed apart and not counted), then makes `--changes` changes in turn to the number
of calls, the first-request tokens, the tokens per step and the caching checkbox. Each
change sets a widget's `.value`, which runs the update callback synchronously (the
table, the sentences, the figure rendered to PNG), so the time around the assignment
is the whole update. Every change leads to a state not seen before, so no change is
served by the widget's "figure unchanged" shortcut.

Prints the median and 90th percentile in milliseconds and their ratio to the goal of
100 ms, as wall-clock time (what a learner waits) and as this process's CPU time (less
disturbed when other jobs share the machine). No assertion: shared machines are noisy,
so this prints figures for people to read. `--figure full` times the lesson figures.
"""

from __future__ import annotations

import argparse
import statistics
import time

GOAL_MS = 100.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--figure", choices=("compact", "full"), default="compact")
    args = parser.parse_args()
    changes = args.changes

    from toolcall_lab.views.widgets import cost_explorer

    started = time.perf_counter()
    explorer = cost_explorer(figure=args.figure)
    build_ms = (time.perf_counter() - started) * 1000

    times, cpu_times, kinds = [], [], {"calls": [], "first request": [], "per step": [], "caching": []}
    for i in range(changes):
        cycle, which = divmod(i, 4)
        # subtle: each value moves on with the cycle, so no state repeats and every figure renders
        control, kind, value = [
            (explorer.calls, "calls", 5 + (cycle * 3) % 45),
            (explorer.first, "first request", 1000 + (cycle * 700) % 15_000),
            (explorer.per_step, "per step", 100 + (cycle * 150) % 3_000),
            (explorer.caching, "caching", not explorer.caching.value),
        ][which]
        started, cpu_started = time.perf_counter(), time.process_time()
        control.value = value
        elapsed = (time.perf_counter() - started) * 1000
        times.append(elapsed)
        cpu_times.append((time.process_time() - cpu_started) * 1000)
        kinds[kind].append(elapsed)

    def summary(values: list[float]) -> tuple[float, float]:
        p90 = statistics.quantiles(values, n=10)[-1] if len(values) >= 2 else values[0]
        return statistics.median(values), p90

    print(f"first build (imports matplotlib, ipywidgets)  {build_ms:7.1f} ms  (not counted)")
    print(f"{changes} changes, figure={args.figure!r}, goal {GOAL_MS:.0f} ms per update:")
    for name, values in (("wall", times), ("cpu", cpu_times)):
        median, p90 = summary(values)
        print(f"  {name:<4}  median {median:7.1f} ms ({median / GOAL_MS:.2f}x the goal)   "
              f"p90 {p90:7.1f} ms ({p90 / GOAL_MS:.2f}x)")
    print("wall-clock median per control:")
    for kind, values in kinds.items():
        if values:
            print(f"  {kind:<14} median {statistics.median(values):7.1f} ms  ({len(values)} changes)")


if __name__ == "__main__":
    main()
