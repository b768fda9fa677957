"""How the scripted loop's time and memory grow with the number of calls.

    .venv/bin/python benchmarks/loop_scale.py [--sizes 10 100 1000 3000]

Runs `run_agent` with a scripted provider that asks for `get_weather` n times and then
answers, for each n, and times the same loop driven by a bare provider that returns the
same replies and keeps no accounts at all (no `SentRequest`, no token estimate). Prints,
per n: wall time, peak memory (tracemalloc, in a second run so tracing does not skew the
timing), and the ratio of the scripted loop's time to the bare one's; then the growth
exponent fitted to the scripted times (time ~ n**k; k = 1 is linear, 2 quadratic).

Goals (issue 9): 1,000 calls under 1 s on a quiet machine, and a ratio under 3. The loop's
own work (the loop re-sends the whole transcript, so a copy for the policy is O(n) per
call) grows with n too; what the kit adds on top must not. No assertion: shared machines
are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import math
import time
import tracemalloc
from collections.abc import Callable, Sequence

GOAL_SECONDS_AT_1000 = 1.0
GOAL_RATIO = 3.0


def scripted(n: int) -> object:
    from toolcall_lab import ScriptedProvider, call

    calls = itertools.count(1)

    def policy(transcript: object, tools: object) -> object:
        return call("get_weather", city="Paris") if next(calls) <= n else "Sunny."

    return ScriptedProvider(policy)


def bare(n: int) -> object:
    """The same replies with nothing recorded or estimated: the loop's own cost."""
    from toolcall_lab import Message, StopReason, ToolCall, Turn, Usage

    class Bare:
        name, model = "bare", "bare-1"

        def __init__(self) -> None:
            self.calls = 0

        def complete(self, transcript: object, *, tools: Sequence[object] = ()) -> object:
            self.calls += 1
            transcript.copy()  # type: ignore[attr-defined]  # the scripted provider's copy for its policy
            if self.calls <= n:
                block = ToolCall(f"toolu_{self.calls:02d}", "get_weather", {"city": "Paris"})
                return Turn(Message("assistant", (block,)), StopReason.TOOL_USE, Usage(), self.model)
            return Turn(Message.assistant("Sunny."), StopReason.END_TURN, Usage(), self.model)

    return Bare()


def run_once(make: Callable[[int], object], n: int, *, trace: bool = False) -> tuple[float, int]:
    from toolcall_lab import run_agent
    from toolcall_lab.tools import get_weather

    provider = make(n)
    gc.collect()
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    run_agent(provider, "What's the weather in Paris?", tools=[get_weather], max_steps=n + 1)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    if trace:
        tracemalloc.stop()
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 3000])
    args = parser.parse_args()

    run_once(scripted, 5)  # imports and first-call caches, not counted
    print(f"{'calls':>6} {'scripted s':>11} {'bare s':>9} {'ratio':>7} {'peak MB':>8}")
    times = []
    for n in args.sizes:
        seconds, _ = run_once(scripted, n)
        base, _ = run_once(bare, n)
        _, peak = run_once(scripted, n, trace=True)
        times.append((n, seconds))
        print(f"{n:>6} {seconds:>11.3f} {base:>9.3f} {seconds / base:>7.2f} {peak / 1e6:>8.1f}")
    if len(times) >= 2:
        xs = [math.log(n) for n, _ in times]
        ys = [math.log(s) for _, s in times]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
        print(f"fitted growth exponent: time ~ n**{k:.2f}")
    at_1000 = dict(times).get(1000)
    if at_1000 is not None:
        print(f"1,000 calls: {at_1000:.3f} s, {at_1000 / GOAL_SECONDS_AT_1000:.2f}x the goal of "
              f"{GOAL_SECONDS_AT_1000:g} s")


if __name__ == "__main__":
    main()
