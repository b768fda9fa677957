"""How long the API double takes to match a request against a tape, for `serve --tape` in a room.

    .venv/bin/python benchmarks/tape_playback.py [--exchanges 50] [--repeat 200]

Builds a tape of `--exchanges` Responses exchanges whose requests grow the way a tool
loop's do (call k re-sends the whole conversation: k copies of the shipped
`openai_responses_weather` tape's last input), then times `Playback.answer` for the
last request (a match, found among all exchanges) and for the same request with its
last tool output changed (a mismatch: every exchange is walked to find the closest, and
the 400 names the path). Prints the median in milliseconds, wall clock and CPU, and the
size of the request. No goal is asserted; the number is for people to read next to the
SDK's own round trip (a few milliseconds on loopback).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time

from toolcall_lab.double.playback import Playback
from toolcall_lab.tape import Exchange, Tape, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    shipped = load("openai_responses_weather").exchanges[-1]
    exchanges = []
    for number in range(args.exchanges):
        request = copy.deepcopy(shipped.request)
        request["input"] = shipped.request["input"] * (number + 1)
        exchanges.append(Exchange("responses", "/v1/responses", 200, shipped.model, None, request,
                                  shipped.response))
    playback = Playback(Tape("responses", "openai", shipped.model, "a benchmark", tuple(exchanges)))
    last = exchanges[-1].request
    changed = copy.deepcopy(last)
    changed["input"][-1]["output"] = "a different tool result"
    print(f"{args.exchanges} exchanges; the last request is {len(json.dumps(last)):,} bytes")
    for label, body, status in (("match", last, 200), ("mismatch", changed, 400)):
        wall, cpu = [], []
        for _ in range(args.repeat):
            playback.cursor = 0
            started, started_cpu = time.perf_counter(), time.process_time()
            answer = playback.answer("responses", "/v1/responses", body)
            wall.append((time.perf_counter() - started) * 1000)  # ms = s * 1000
            cpu.append((time.process_time() - started_cpu) * 1000)
            assert answer[0] == status
        print(f"  {label:<9} median {statistics.median(wall):6.2f} ms wall, "
              f"{statistics.median(cpu):6.2f} ms CPU")


if __name__ == "__main__":
    main()
