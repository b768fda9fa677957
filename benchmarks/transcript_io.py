"""How loading and saving a transcript grows with its length, against bare `json`.

    .venv/bin/python benchmarks/transcript_io.py [--sizes 10000 100000 200000] [--repeat 5]

For each size it builds a transcript of that many messages (questions, tool calls,
results, answers), then times `Transcript.save` and `Transcript.load` and a bare
`json.dumps` / `json.loads` of the same document, the four in turn, `--repeat` times, so
machine noise hits each alike. It prints the median time of each and the ratio to bare
json: the median of the per-round ratios, with their spread (min-max), in wall time and
in this process's CPU time (less disturbed on a shared machine). Then the growth
exponent: the slope of log(median time) against log(n), which is 1 for linear work and 2
for quadratic. Goals: an exponent of about 1, and a load within 3x `json.loads` at
200,000 messages (issue 20). No assertion here: shared machines are noisy, so this
prints figures for people to read.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from toolcall_lab import Message, ToolCall, ToolResult, Transcript


def build(n: int) -> Transcript:
    kinds = [
        lambda i: Message.user(f"What's the weather in city {i}?"),
        lambda i: Message.assistant(ToolCall(f"toolu_{i}", "get_weather", {"city": f"City {i}"})),
        lambda i: Message.results([ToolResult(f"toolu_{i - 1}", "18°C, sunny")]),
        lambda i: Message.assistant(f"It is 18°C and sunny in city {i}."),
    ]
    return Transcript(system="Be brief.", messages=[kinds[i % 4](i) for i in range(n)])


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `action`, started from a collected heap."""
    gc.collect()  # subtle: else a collection owed by the previous action lands in this one
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def slope(sizes: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(size)."""
    xs, ys = [math.log(n) for n in sizes], [math.log(s) for s in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def ratios(ours: list[tuple[float, float]], bare: list[tuple[float, float]], clock: int) -> str:
    """The median of the per-round ratios on `clock` (0 wall, 1 CPU), and their spread."""
    each = [mine[clock] / floor[clock] for mine, floor in zip(ours, bare, strict=True)]
    return f"{statistics.median(each):4.2f}x ({min(each):.2f}-{max(each):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 200_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    loads, saves = [], []
    print(f"median of {args.repeat} rounds; ratio to bare json as median (min-max), wall and CPU")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.json"
        for n in args.sizes:
            transcript = build(n)
            document = transcript.to_dict()
            text = json.dumps(document, ensure_ascii=False, indent=2)
            rounds: dict[str, list[tuple[float, float]]] = {"save": [], "dumps": [], "load": [], "loads": []}
            for _ in range(args.repeat):
                rounds["save"].append(timed(lambda t=transcript: t.save(path)))
                rounds["dumps"].append(timed(lambda d=document: json.dumps(d, ensure_ascii=False, indent=2)))
                rounds["load"].append(timed(lambda: Transcript.load(path)))
                rounds["loads"].append(timed(lambda s=text: json.loads(s)))
            save, load = (statistics.median(wall for wall, _ in rounds[k]) for k in ("save", "load"))
            saves.append(save)
            loads.append(load)
            print(f"{n:>8,} messages  save {save:6.2f} s, {ratios(rounds['save'], rounds['dumps'], 0)} wall, "
                  f"{ratios(rounds['save'], rounds['dumps'], 1)} CPU of json.dumps")
            print(f"{'':>17} load {load:6.2f} s, {ratios(rounds['load'], rounds['loads'], 0)} wall, "
                  f"{ratios(rounds['load'], rounds['loads'], 1)} CPU of json.loads  (goal: <= 3x)")
    if len(args.sizes) > 1:
        print(f"growth exponent (1 = linear): save {slope(args.sizes, saves):.2f}, "
              f"load {slope(args.sizes, loads):.2f}")


if __name__ == "__main__":
    main()
