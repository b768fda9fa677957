"""How loading and saving a transcript grows with its length, against bare `json`.

    .venv/bin/python benchmarks/transcript_io.py [--sizes 10000 100000 200000]

For each size it builds a transcript of that many messages (questions, tool calls,
results, answers), then times `Transcript.save` and `Transcript.load` (best of 3) and a
bare `json.dumps` / `json.loads` of the same document. It prints each time, the ratio
to bare json, and the growth exponent: the slope of log(time) against log(n), which is
1 for linear work and 2 for quadratic. Goal: about 1. No assertion here: shared
machines are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import json
import math
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


def best(action: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def slope(sizes: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(size)."""
    xs, ys = [math.log(n) for n in sizes], [math.log(s) for s in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 200_000])
    sizes = parser.parse_args().sizes
    loads, saves = [], []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.json"
        for n in sizes:
            transcript = build(n)
            document = transcript.to_dict()
            text = json.dumps(document, ensure_ascii=False, indent=2)
            save = best(lambda t=transcript: t.save(path))
            load = best(lambda: Transcript.load(path))
            bare_dumps = best(lambda d=document: json.dumps(d, ensure_ascii=False, indent=2))
            bare_loads = best(lambda s=text: json.loads(s))
            saves.append(save)
            loads.append(load)
            print(f"{n:>8,} messages  save {save:6.2f} s ({save / bare_dumps:4.1f}x json.dumps)  "
                  f"load {load:6.2f} s ({load / bare_loads:4.1f}x json.loads)")
    if len(sizes) > 1:
        print(f"growth exponent (1 = linear): save {slope(sizes, saves):.2f}, "
              f"load {slope(sizes, loads):.2f}")


if __name__ == "__main__":
    main()
