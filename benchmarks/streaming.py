"""The double's streams through each SDK: what streaming costs, and how soon the first event comes.

    .venv/bin/python benchmarks/streaming.py [--repeat 20] [--tokens 2000]

Two figures per SDK path (anthropic `messages.stream`, openai `responses.stream` and
`chat.completions.stream`, the `ollama` client with `stream=True`), each against an
`ApiDouble` on 127.0.0.1:

1. streamed vs unstreamed: the same reply (a sentence and a tool call, about 20 output
   tokens, so 30-70 events) asked `--repeat` times each way; the median of each and
   their ratio. Goal: the stream at most 1.5 times the plain answer. Three streamed
   columns, so what costs what can be read: `wire` reads the double's stream with a bare
   httpx client (the double's own cost; its ratio is against a bare plain read), `events`
   iterates the SDK's raw stream (`create(..., stream=True)`), `helper` reads it to the end
   through the SDK's own accumulator (`get_final_message()`, ...). Against the real API
   the SDK's per-event work is the same: each delta is about one token there too.
2. first event vs whole stream: a reply of `--tokens` output tokens (4 characters a
   token, so about as many deltas) through the helper, timed from the call to the first
   event the SDK hands over and to the end of the stream; the median of each, and the
   first as a share of the whole. Goal: the first event within 5% of the total.

The double runs in a thread of this process, so the SDK and the server share one
interpreter (and, here, two cores with other work): the figures are an upper bound of
what a double in its own process (`toolcall-lab serve`) costs. Nothing here asserts:
shared machines are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from toolcall_lab import call
from toolcall_lab.double import ApiDouble
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import APIS, ENDPOINTS

ASK = [{"role": "user", "content": "What's the weather in Paris?"}]
SPEC = get_weather.spec()


def tools_for(api: str) -> list[dict[str, Any]]:
    if api == "anthropic":
        return [{"name": SPEC["name"], "description": SPEC["description"],
                 "input_schema": SPEC["input_schema"]}]
    if api == "responses":
        return [{"type": "function", "name": SPEC["name"], "description": SPEC["description"],
                 "parameters": SPEC["input_schema"]}]
    return [{"type": "function", "function": {"name": SPEC["name"], "description": SPEC["description"],
                                              "parameters": SPEC["input_schema"]}}]


def asking(api: str, double: ApiDouble) -> dict[str, Callable[[], Any]]:
    """The ways to ask `api` for the double's reply: "plain", "events" (the SDK's raw stream,
    iterated) and "helper" (a generator: each event of the SDK's helper, then its message)."""
    tools = tools_for(api)
    if api == "anthropic":
        import anthropic

        client = anthropic.Anthropic(base_url=double.base_url(api), api_key="x", max_retries=0)
        request = dict(model="claude-haiku-4-5", max_tokens=8192, messages=ASK, tools=tools)

        def helper() -> Iterator[Any]:
            with client.messages.stream(**request) as stream:
                yield from stream
                yield stream.get_final_message()

        return {"plain": lambda: client.messages.create(**request),
                "events": lambda: list(client.messages.create(**request, stream=True)), "helper": helper}
    if api in ("responses", "chat"):
        import openai

        client_ = openai.OpenAI(base_url=double.base_url(api), api_key="x", max_retries=0)
        if api == "responses":
            asked = dict(model="gpt-4o-mini", input=ASK, tools=tools, store=False)

            def helper() -> Iterator[Any]:
                with client_.responses.stream(**asked) as stream:
                    yield from stream
                    yield stream.get_final_response()

            return {"plain": lambda: client_.responses.create(**asked),
                    "events": lambda: list(client_.responses.create(**asked, stream=True)), "helper": helper}
        chat = dict(model="gpt-4o-mini", messages=ASK, tools=tools)

        def chat_helper() -> Iterator[Any]:
            with client_.chat.completions.stream(**chat) as stream:
                yield from stream
                yield stream.get_final_completion()

        return {"plain": lambda: client_.chat.completions.create(**chat),
                "events": lambda: list(client_.chat.completions.create(**chat, stream=True)),
                "helper": chat_helper}
    import ollama

    local = ollama.Client(host=double.url)
    plain = dict(model="qwen3:4b", messages=ASK, tools=tools)
    def events() -> Iterator[Any]:  # the ollama client has no accumulator: its events are all there is
        return iter(local.chat(**plain, stream=True))

    return {"plain": lambda: local.chat(**plain, stream=False), "events": events, "helper": events}


def wire(api: str, double: ApiDouble) -> dict[str, Callable[[], Any]]:
    """A bare httpx client reading the double's answer whole ("plain") or as a stream ("wire")."""
    import httpx

    client = httpx.Client()
    path = ENDPOINTS[api]
    body: dict[str, Any] = {"model": "m", "max_tokens": 8192, "tools": tools_for(api)}
    body.update({"input": ASK} if api == "responses" else {"messages": ASK})

    def read(stream: bool) -> int:
        with client.stream("POST", double.url + path, json={**body, "stream": stream}) as response:
            return sum(1 for _ in response.iter_lines())

    return {"plain": lambda: read(False), "wire": lambda: read(True)}


def timed(function: Callable[[], Any]) -> float:
    """Seconds `function` takes, an iterator it returns read to its end."""
    started = time.perf_counter()
    answer = function()
    if isinstance(answer, Iterator):
        for _ in answer:
            pass
    return time.perf_counter() - started


def first_and_whole(streamed: Callable[[], Iterator[Any]]) -> tuple[float, float]:
    """Seconds to the first event the SDK hands over, and to the end of the stream."""
    started = time.perf_counter()
    events = streamed()
    next(events)
    first = time.perf_counter() - started
    for _ in events:
        pass
    return first, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=2000)
    args = parser.parse_args()
    short = ["It is sunny, I think; let me check.", call("get_weather", city="Paris")]
    words = "the quick brown fox jumps over a lazy dog, "
    long = (words * (args.tokens * 4 // len(words) + 1))[: args.tokens * 4]  # 4 characters a token
    print(f"1. streamed vs unstreamed, the same reply (median of {args.repeat}; goal: at most 1.5x)")
    print(f"   {'':<10} {'plain':>9} {'wire':>16} {'events':>16} {'helper':>16}")
    for api in APIS:
        with ApiDouble([short] * (6 * args.repeat + 6)) as double:
            ways = {**asking(api, double), **{f"bare {name}": way for name, way in wire(api, double).items()}}
            for way in ways.values():
                timed(way)  # warm: connections, imports
            took: dict[str, list[float]] = {name: [] for name in ways}
            for _ in range(args.repeat):  # round robin, so a busy moment falls on every way alike
                for name, way in ways.items():
                    took[name].append(timed(way))
            median = {name: statistics.median(times) for name, times in took.items()}
        plain = median["plain"]
        cells = [(median["bare wire"], median["bare plain"]), (median["events"], plain),
                 (median["helper"], plain)]
        print(f"   {api:<10} {plain * 1000:6.2f} ms "
              + " ".join(f"{f'{took * 1000:6.2f} ms {took / base:4.2f}x':>16}" for took, base in cells))
    print(f"2. first event vs whole stream, a {args.tokens:,}-token reply "
          f"(median of {args.repeat}; goal: first within 5%)")
    for api in APIS:
        with ApiDouble([[long]] * (args.repeat + 1)) as double:
            helper = asking(api, double)["helper"]
            first_and_whole(helper)  # warm
            runs = [first_and_whole(helper) for _ in range(args.repeat)]
        first = statistics.median(run[0] for run in runs)
        whole = statistics.median(run[1] for run in runs)
        share = statistics.median(run[0] / run[1] for run in runs)
        print(f"   {api:<10} first {first * 1000:7.2f} ms   whole {whole * 1000:8.2f} ms   "
              f"first/whole {share * 100:5.1f}%")


if __name__ == "__main__":
    main()
