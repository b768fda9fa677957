"""How checking a request grows with the parallel calls of one turn, per API.

    .venv/bin/python benchmarks/wire_check_scale.py [--sizes 750 3000 12000] [--apis responses chat]

For each API and each n, one request body holds a question, one assistant turn of n
parallel calls, their n results and an answer (Responses: replayed the way an SDK sends
output items back, each call with its `fc_` id after the turn's reasoning item, on a
reasoning model). Two things are timed on it:

- `check`: the codec's `check_request`, what `wire.check` and every provider call run;
- `double`: all the API double does with the body but the socket (`ApiDouble.handle`: the
  shape, the rules, reading it back into a transcript, the script's reply, the answer).

Printed per n: microseconds per call, and the ratio of that per-call time to the one at
the smallest n. Linear work keeps the ratio near 1; quadratic work multiplies it by the
growth of n (4 at 3,000 calls after 750, 16 at 12,000). Issue 19 item 12 measured 17x at
3,000 for `check` on Responses before it was made linear; the goal is a ratio under 2.
No assertion: shared machines are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

GOAL_RATIO = 2.0


def body_for(api: str, n: int) -> dict[str, Any]:
    """The request body of one turn of `n` parallel calls, answered, in `api`'s shape."""
    from toolcall_lab import Message, ToolCall, ToolResult, Transcript
    from toolcall_lab.tools import get_weather
    from toolcall_lab.wire import encode_request

    if api == "responses":
        return {"model": "gpt-6-luna", "input": [
            {"type": "message", "role": "user", "content": "Weather in these cities?"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            *({"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": "get_weather",
               "arguments": json.dumps({"city": f"City {i}"})} for i in range(n)),
            *({"type": "function_call_output", "call_id": f"call_{i}", "output": "18°C"} for i in range(n)),
        ], "tools": [{"type": "function", "name": "get_weather", "description": "Weather",
                      "parameters": dict(get_weather.input_schema), "strict": False}]}
    calls = [ToolCall(f"toolu_{i}", "get_weather", {"city": f"City {i}"}) for i in range(n)]
    transcript = Transcript(messages=[
        Message.user("Weather in these cities?"), Message("assistant", tuple(calls)),
        Message.results([ToolResult(call.id, "18°C") for call in calls])])
    model = {"anthropic": "claude-haiku-4-5", "chat": "gpt-4o-mini", "ollama": "qwen3:4b"}[api]
    body = encode_request(transcript, [get_weather], api=api, model=model)
    return {**body, "stream": False} if api == "ollama" else body


def seconds(work: Any, *, repeat: int) -> float:
    """The best of `repeat` runs of `work()` (the least disturbed by the rest of the machine)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[750, 3000, 12000])
    parser.add_argument("--apis", nargs="+", default=["responses", "chat", "anthropic", "ollama"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from toolcall_lab.double import ApiDouble
    from toolcall_lab.wire import ENDPOINTS, codec

    double = ApiDouble(lambda transcript, tools: "Done.", keep=2)  # handle() needs no socket
    print(f"{'api':<10} {'n':>7} {'check µs/call':>14} {'ratio':>6} {'double µs/call':>15} {'ratio':>6}")
    for api in args.apis:
        double.handle("POST", ENDPOINTS[api], json.dumps(body_for(api, 1)).encode())  # imports jsonschema
        base: tuple[float, float] | None = None
        for n in args.sizes:
            body = body_for(api, n)
            raw = json.dumps(body).encode()
            check = seconds(lambda: codec(api).check_request(body), repeat=args.repeat) / n * 1e6  # noqa: B023
            serve = seconds(lambda: double.handle("POST", ENDPOINTS[api], raw),  # noqa: B023
                            repeat=args.repeat) / n * 1e6
            base = base or (check, serve)
            print(f"{api:<10} {n:>7,} {check:>14.1f} {check / base[0]:>6.2f} {serve:>15.1f} "
                  f"{serve / base[1]:>6.2f}")
    print(f"goal: every ratio under {GOAL_RATIO:g} (linear); quadratic work shows the growth of n instead")


if __name__ == "__main__":
    main()
