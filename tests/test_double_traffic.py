"""What earlier traffic leaves behind in a double: nothing that grows (issue 30 §3).

A lesson's kernel runs one double for every API, so a chat request may follow hundreds of
Anthropic, Responses and Ollama requests, plain and streamed. Whatever the double keeps
between requests (its request log, each API's stored conversations, the prompt cache, each
player's last record) is bounded by `keep`, so a later request never pays for the earlier
ones: no log, cache or store that a request scans can grow with the traffic. Counted here
as objects, never timed (benchmarks/double_throughput.py prints the "chat after other
traffic" ratio). In-process (`ApiDouble.handle`), so no socket is opened.
"""

from __future__ import annotations

import gc
import itertools
import json
import types

from toolcall_lab.double import ApiDouble
from toolcall_lab.wire import ENDPOINTS

MODELS = {"anthropic": "claude-haiku-4-5", "responses": "gpt-4o-mini", "chat": "gpt-4o-mini",
          "ollama": "qwen3:4b"}


def held_by(double: ApiDouble) -> int:
    """How many objects are reachable from `double` (not through classes, modules or
    functions, which lead to everything else in the process).

    subtle: no `gc.collect()` first: what is reachable from the double is alive whatever a
    collection frees, and in the full suite's heap a collection costs seconds."""
    seen, todo = {id(double)}, [double]
    while todo:
        for inner in gc.get_referents(todo.pop()):
            if id(inner) not in seen and not isinstance(inner, (type, types.ModuleType, types.FunctionType)):
                seen.add(id(inner))
                todo.append(inner)
    return len(seen)


def serve_every_route(double: ApiDouble, numbers: itertools.count, requests: int) -> None:
    """`requests` requests to each route, plain and streamed (streams read to the end), each
    asking a question of its own and calling a tool, as a lesson's traffic does."""
    for api, stream in itertools.product(MODELS, (False, True)):
        for _ in range(requests):
            question = f"What's the weather in Paris? ({next(numbers)})"
            ask = [{"role": "user", "content": question}]
            body = {"anthropic": {"max_tokens": 64, "messages": ask}, "responses": {"input": question},
                    "chat": {"messages": ask}, "ollama": {"messages": ask}}[api]
            status, answer, _ = double.handle("POST", ENDPOINTS[api], json.dumps(
                {"model": MODELS[api], **body, "stream": stream}).encode())
            assert status == 200, answer
            bytes(answer)


def test_traffic_on_every_route_leaves_nothing_that_grows():
    double = ApiDouble(keep=5)
    numbers = itertools.count(1)
    serve_every_route(double, numbers, 10)  # past `keep` on every route: the log and stores are full
    full = held_by(double)
    serve_every_route(double, numbers, 30)
    assert held_by(double) == full, "the double holds more after 240 more requests than after its first 80"
    assert len(double.requests) == 5
    assert all(len(stored) <= 5 for stored in double._player.stored.values())
