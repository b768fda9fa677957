"""Requests per second through each SDK against the API double, and against a fixed-body floor.

    .venv/bin/python benchmarks/double_throughput.py [--requests 200] [--threads 16]

For each SDK path (anthropic, openai responses, openai chat, ollama) it times `--requests`
calls made one after another three ways: one by one, a request to the double and one to the
floor taking turns, each rate from the median request (the steadiest figure on a shared
machine); in short alternating rounds (`--rounds`); and spread over `--threads` threads, all
against an `ApiDouble` on 127.0.0.1. The floor is a standard-library server on loopback
that answers every POST with one fixed, pre-encoded body (the double's own reply for
that API), with TCP_NODELAY, so the ratio shows what the double's work costs on top of
http.server and the SDK. The goal is a ratio of at least 0.8. Nothing here asserts:
shared machines are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import itertools
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from toolcall_lab.double import ApiDouble
from toolcall_lab.wire import ENDPOINTS

ASK = [{"role": "user", "content": "Hi"}]


def caller(api: str, url: str):
    """A function making one request of `api` to the server at `url` through its SDK.

    subtle: each request asks a question of its own ("Hi 1", "Hi 2", ...), as real traffic
    does, so nothing the double remembers between requests (a shape it checked already)
    answers the same body twice for it."""
    numbers = itertools.count(1)

    def question() -> str:
        return f"Hi {next(numbers)}"

    def ask() -> list[dict[str, str]]:
        return [{"role": "user", "content": question()}]

    if api == "anthropic":
        import anthropic

        client = anthropic.Anthropic(base_url=url, api_key="x", max_retries=0)
        return lambda: client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=ask())
    if api in ("responses", "chat"):
        import openai

        client = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0)
        if api == "responses":
            return lambda: client.responses.create(model="gpt-4o-mini", input=question(), store=False)
        return lambda: client.chat.completions.create(model="gpt-4o-mini", messages=ask())
    import ollama

    client = ollama.Client(host=url)
    return lambda: client.chat(model="qwen3:4b", messages=ask(), stream=False)


def floor_server(body: bytes) -> ThreadingHTTPServer:
    """A loopback server answering every POST with `body`: the fastest http.server can be."""

    class Fixed(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Fixed)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def rate(call, requests: int, threads: int) -> tuple[float, float]:
    """Requests per second, of wall time and of this process's CPU time, for `requests` calls
    over `threads` threads (1: one after another). Client and server share the process, so the
    CPU figure is what one request costs both ends, whatever else the machine is doing."""
    started, cpu = time.perf_counter(), time.process_time()
    if threads == 1:
        for _ in range(requests):
            call()
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(lambda _: call(), range(requests)))
    return requests / (time.perf_counter() - started), requests / (time.process_time() - cpu)


def compare(ours, best, requests: int, threads: int,
            rounds: int) -> tuple[float, float, list[float], list[float]]:
    """Median wall rates of the double and the floor, and each round's wall and CPU ratio.

    subtle: on a shared machine the load moves within seconds, so the double and the floor
    take turns (`rounds` short runs each, alternating) and each round's ratio compares two
    runs made moments apart; one long run of each would compare two different machines."""
    ours(), best()  # warm up: connect, import lazily loaded types
    mine, floor, ratios, cpu_ratios = [], [], [], []
    for _ in range(rounds):
        (a, a_cpu), (b, b_cpu) = (rate(call, requests // rounds, threads) for call in (ours, best))
        mine.append(a)
        floor.append(b)
        ratios.append(a / b)
        cpu_ratios.append(a_cpu / b_cpu)
    return statistics.median(mine), statistics.median(floor), sorted(ratios), sorted(cpu_ratios)


def one_by_one(ours, best, requests: int) -> tuple[float, float, float]:
    """Requests per second of the double and the floor from the median time of one request,
    the two taking turns request by request, and the median of each pair's ratio.

    subtle: the steadiest view on a shared machine: a burst of someone else's work slows a
    request or two of each, which the medians leave out; a round of many requests (`compare`)
    takes the burst whole into its rate."""
    ours(), best()
    mine, floor, pairs = [], [], []
    for _ in range(requests):
        started = time.perf_counter()
        ours()
        middle = time.perf_counter()
        best()
        ended = time.perf_counter()
        mine.append(middle - started)
        floor.append(ended - middle)
        pairs.append((ended - middle) / (middle - started))
    return 1 / statistics.median(mine), 1 / statistics.median(floor), statistics.median(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"{'api':<10} {'mode':<12} {'double req/s':>13} {'floor req/s':>12} {'ratio':>6}"
          f"  (min-max)  {'CPU ratio':>9} (min-max)"
          f"   median of {args.rounds} alternating rounds; goal >= 0.8")
    with ApiDouble(keep=100) as double:
        for api in ("anthropic", "responses", "chat", "ollama"):
            try:
                to_double = caller(api, double.url)
            except ImportError:
                print(f"{api:<10} skipped: its SDK is not installed")
                continue
            sample = double.handle("POST", ENDPOINTS[api], _sample_request(api))[1]
            floor = floor_server(sample)
            to_floor = caller(api, f"http://127.0.0.1:{floor.server_address[1]}")
            ours, best, pair = one_by_one(to_double, to_floor, args.requests)
            print(f"{api:<10} {'one by one':<12} {ours:13.0f} {best:12.0f} {ours / best:6.2f}"
                  f"  (median request; median pair {pair:.2f})")
            for mode, threads in (("sequential", 1), (f"{args.threads} threads", args.threads)):
                ours, best, walls, cpus = compare(to_double, to_floor, args.requests, threads, args.rounds)
                print(f"{api:<10} {mode:<12} {ours:13.0f} {best:12.0f} {statistics.median(walls):6.2f}"
                      f"  ({walls[0]:.2f}-{walls[-1]:.2f})  {statistics.median(cpus):9.2f}"
                      f" ({cpus[0]:.2f}-{cpus[-1]:.2f})")
            floor.shutdown()
            floor.server_close()


def _sample_request(api: str) -> bytes:
    import json

    body = {"anthropic": {"model": "claude-haiku-4-5", "max_tokens": 64, "messages": ASK},
            "responses": {"model": "gpt-4o-mini", "input": "Hi", "store": False},
            "chat": {"model": "gpt-4o-mini", "messages": ASK},
            "ollama": {"model": "qwen3:4b", "messages": ASK, "stream": False}}[api]
    return json.dumps(body).encode()


if __name__ == "__main__":
    main()
