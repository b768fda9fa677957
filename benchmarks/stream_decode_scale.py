"""How decoding a stream grows with the size of the reply, per API.

    .venv/bin/python benchmarks/stream_decode_scale.py [--sizes 25 100 400 800] [--apis chat ollama]

For each API and each size (in KB), one finished reply holds a text of half that size and
one tool call whose arguments are the other half; the API's own server half
(`wire/<api>/streaming.py`, what the double sends) plays it as the API's events, cut every
4 characters (`stream.pieces`), so a 400 KB reply is about 100,000 deltas. Timed: the
codec's `decode_stream` read to its `StreamFinished`, the events made beforehand, so only
the decoding is measured.

Printed per size: milliseconds per KB, and the ratio of that to the one at the smallest
size; then the growth exponent, the slope of log(time) against log(size): 1 for linear
work, 2 for quadratic (text joined with `+=` per delta, or a whole prefix parsed again per
piece). Issue 29 §5 measured about 2 s for 400 KB, an exponent near 2, before the pieces
were joined once. Goal: an exponent under 1.2 on every API. No assertion: shared machines
are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import time
from typing import Any

GOAL_EXPONENT = 1.2


def reply_for(api: str, kb: int) -> dict[str, Any]:
    """A finished reply of about `kb` KB in `api`'s shape: words, then one call with long arguments."""
    from toolcall_lab import Message, StopReason, ToolCall, Turn, Usage
    from toolcall_lab.wire import API_SPECS

    half = kb * 1024 // 2
    words = ("It is 18°C and sunny. " * (half // 22 + 1))[:half]
    arguments = {"notes": "x" * max(half - 12, 0)}
    turn = Turn(Message.assistant(words, ToolCall("call_01", "get_weather", arguments)),
                StopReason.TOOL_USE, Usage(10, kb * 256), "m")
    return API_SPECS[api].server.encode_response(turn, response_id="r_1")


def events_for(api: str, kb: int) -> list[dict[str, Any]]:
    """The raw events of that reply, as the API streams it (with Chat's usage chunk)."""
    from toolcall_lab.wire import API_SPECS

    request = {"stream": True, "stream_options": {"include_usage": True}}
    # subtle: through JSON, as a client reads them, so no event shares a dict with another
    return json.loads(json.dumps(list(API_SPECS[api].server.encode_stream(reply_for(api, kb),
                                                                          request=request))))


def seconds(api: str, events: list[dict[str, Any]], *, repeat: int) -> float:
    """The best of `repeat` decodes of `events` (the least disturbed by the rest of the machine)."""
    from toolcall_lab.wire import codec

    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        for _event in codec(api).decode_stream(events):
            pass
        best = min(best, time.perf_counter() - started)
    return best


def slope(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) against log(size)."""
    xs, ys = [math.log(n) for n in sizes], [math.log(s) for s in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[25, 100, 400, 800])
    parser.add_argument("--apis", nargs="+", default=["anthropic", "responses", "chat", "ollama"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    print(f"{'api':<10} {'KB':>5} {'events':>8} {'ms/KB':>7} {'ratio':>6} {'total s':>8}")
    for api in args.apis:
        times: list[float] = []
        for kb in args.sizes:
            events = events_for(api, kb)
            took = seconds(api, events, repeat=args.repeat)
            times.append(took)
            per_kb, first = took / kb * 1e3, times[0] / args.sizes[0] * 1e3
            print(f"{api:<10} {kb:>5} {len(events):>8,} {per_kb:>7.3f} {per_kb / first:>6.2f} {took:>8.3f}")
        print(f"{api:<10} growth exponent: time ~ size**{slope(args.sizes, times):.2f}")
    print(f"goal: every exponent under {GOAL_EXPONENT:g} (linear); quadratic work shows about 2")


if __name__ == "__main__":
    main()
