"""Milliseconds a request through each SDK to the API double, in-process and over loopback.

    .venv/bin/python benchmarks/double_in_process.py [--requests 300]

For each SDK path (anthropic, openai responses, openai chat, ollama), plain and streamed, it
times `--requests` calls made one after another to one `ApiDouble`, two ways taking turns
request by request: through the double's transport (`double.transport()`: no socket, the
double answers in the caller's thread) and over loopback (the double serving on 127.0.0.1,
the SDK's own HTTP client). Each figure is the median request (the steadiest figure on a
shared machine), and the ratio is loopback / in-process. Both clients ask the same double,
so what the double does per request is the same both ways: the difference is the socket,
HTTP framing and the handler's thread. Nothing here asserts: shared machines are noisy, so
this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

from toolcall_lab.double import ApiDouble


def caller(api: str, double: ApiDouble, *, in_process: bool, stream: bool) -> Callable[[], Any]:
    """One request of `api` to `double` through its SDK, read to its end, as a function.

    subtle: each request asks a question of its own ("Hi 1", "Hi 2", ...), as real traffic
    does, so nothing the double remembers between requests answers the same body twice."""
    numbers = itertools.count(1)
    url = double.url if not in_process else "http://double.invalid"

    def ask() -> list[dict[str, str]]:
        return [{"role": "user", "content": f"Hi {next(numbers)}"}]

    if api == "ollama":
        import ollama

        client = ollama.Client(host=url, **({"transport": double.transport()} if in_process else {}))
        return lambda: list(client.chat(model="qwen3:4b", messages=ask(), stream=stream)) if stream else (
            client.chat(model="qwen3:4b", messages=ask(), stream=False))
    import httpx2

    http_client = httpx2.Client(transport=double.transport()) if in_process else None
    if api == "anthropic":
        import anthropic

        claude = anthropic.Anthropic(base_url=url, api_key="x", max_retries=0, http_client=http_client)
        return lambda: _read(claude.messages.create(model="claude-haiku-4-5", max_tokens=64,
                                                    messages=ask(), stream=stream), stream)
    import openai

    gpt = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0, http_client=http_client)
    if api == "responses":
        return lambda: _read(gpt.responses.create(model="gpt-4o-mini", input=ask()[0]["content"],
                                                  store=False, stream=stream), stream)
    return lambda: _read(gpt.chat.completions.create(model="gpt-4o-mini", messages=ask(), stream=stream),
                         stream)


def _read(answer: Any, stream: bool) -> Any:
    return list(answer) if stream else answer


def taking_turns(first: Callable[[], Any], second: Callable[[], Any], requests: int) -> tuple[float, float]:
    """The median milliseconds of a request of `first` and of `second`, the two taking turns."""
    first(), second()  # warm up: connect, import lazily loaded types
    ones, twos = [], []
    for _ in range(requests):
        started = time.perf_counter()
        first()
        middle = time.perf_counter()
        second()
        ones.append(middle - started)
        twos.append(time.perf_counter() - middle)
    return statistics.median(ones) * 1000, statistics.median(twos) * 1000  # ms = s * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    print(f"{'api':<10} {'answer':<9} {'in-process ms':>13} {'loopback ms':>12} {'loopback / in-process':>22}"
          f"   median request of {args.requests}, taking turns")
    with ApiDouble(keep=100) as double:
        for api in ("anthropic", "responses", "chat", "ollama"):
            for stream in (False, True):
                try:
                    inside = caller(api, double, in_process=True, stream=stream)
                    over = caller(api, double, in_process=False, stream=stream)
                except ImportError:
                    print(f"{api:<10} skipped: its SDK is not installed")
                    break
                ms_inside, ms_over = taking_turns(inside, over, args.requests)
                print(f"{api:<10} {'streamed' if stream else 'plain':<9} {ms_inside:13.2f} {ms_over:12.2f}"
                      f" {ms_over / ms_inside:22.2f}")


if __name__ == "__main__":
    main()
