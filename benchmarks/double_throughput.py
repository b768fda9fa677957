"""Requests per second through each SDK against the API double, and against a fixed-body floor.

    .venv/bin/python benchmarks/double_throughput.py [--requests 200] [--rounds 5] [--threads 16]

All four routes (anthropic, openai responses, openai chat, ollama) are served by one
`ApiDouble` on 127.0.0.1, in turn, plain and streamed, as a lesson's kernel uses one double
for everything. Each is timed beside its floor: a standard-library server on loopback that
answers every POST with one fixed, pre-encoded answer of the same size (the double's own
reply for that route, recorded once), with TCP_NODELAY; a streamed floor writes the recorded
events one chunk each, flushed, as any streaming server must. So the ratio (double rate /
floor rate) shows what the double's own work costs on top of http.server and the SDK. The
goal is a ratio of at least 0.8 on every route.

How it is timed, for a shared machine whose load moves within seconds: a request to the
double and one to the floor take turns, and each pair's ratio compares two requests made
moments apart; a round's figure is the median pair (a burst of someone else's work slows a
request or two, which the median leaves out), and `--rounds` rounds give the median and
the spread (min-max). `--threads N` adds a row per route of N threads at once (0: none).

Last, "chat after other traffic": chat requests to the double that served everything above,
taking turns with chat requests to a fresh double that serves chat alone. Anything earlier
traffic leaves behind and a request then pays for (a log scanned, a cache grown) shows as a
ratio below 1. Nothing here asserts: shared machines are noisy, so this prints figures for
people to read.
"""

from __future__ import annotations

import argparse
import itertools
import socket
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from toolcall_lab.double import ApiDouble
from toolcall_lab.wire import ENDPOINTS

APIS = ("anthropic", "responses", "chat", "ollama")
MODELS = {"anthropic": "claude-haiku-4-5", "responses": "gpt-4o-mini", "chat": "gpt-4o-mini",
          "ollama": "qwen3:4b"}


def request_body(api: str, question: str, *, stream: bool) -> dict[str, Any]:
    """The JSON body the route's SDK sends for `question` (what the floor's recording answers)."""
    ask = [{"role": "user", "content": question}]
    body: dict[str, Any] = {"anthropic": {"max_tokens": 64, "messages": ask},
                            "responses": {"input": question, "store": False},
                            "chat": {"messages": ask}, "ollama": {"messages": ask}}[api]
    return {"model": MODELS[api], **body, "stream": stream}


def caller(api: str, url: str, *, stream: bool) -> Callable[[], object]:
    """A function making one request of `api` to the server at `url` through its SDK (a stream
    read to its end when `stream`).

    subtle: each request asks a question of its own ("Hi 1", "Hi 2", ...), as real traffic
    does, so nothing the double remembers between requests answers the same body twice for it."""
    numbers = itertools.count(1)

    def body() -> dict[str, Any]:
        sent = request_body(api, f"Hi {next(numbers)}", stream=stream)
        sent.pop("model")
        return sent

    def drained(events: Any) -> object:
        for _ in events:
            pass
        return events

    if api == "anthropic":
        import anthropic

        claude = anthropic.Anthropic(base_url=url, api_key="x", max_retries=0)
        if stream:
            return lambda: drained(claude.messages.create(model=MODELS[api], **body()))
        return lambda: claude.messages.create(model=MODELS[api], **body())
    if api in ("responses", "chat"):
        import openai

        client = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0)
        create = client.responses.create if api == "responses" else client.chat.completions.create
        if stream:
            return lambda: drained(create(model=MODELS[api], **body()))
        return lambda: create(model=MODELS[api], **body())
    import ollama

    local = ollama.Client(host=url)
    if stream:
        return lambda: drained(local.chat(model=MODELS[api], **body()))
    return lambda: local.chat(model=MODELS[api], **body())


def recorded(double: ApiDouble, api: str, *, stream: bool) -> tuple[dict[str, str], list[bytes]]:
    """The double's answer to one request of `api`, recorded: its headers and its body's
    pieces (one for a plain answer; each frame, then the end, for a stream)."""
    import json

    status, body, headers = double.handle("POST", ENDPOINTS[api],
                                          json.dumps(request_body(api, "Hi", stream=stream)).encode())
    assert status == 200, body
    if isinstance(body, bytes):
        return {"content-type": "application/json", **headers}, [body]
    pieces = [frame for frame in body.frames if frame] + ([body.end] if body.end else [])
    return {**body.headers, **headers}, pieces


def floor_server(headers: dict[str, str], pieces: list[bytes], *, stream: bool) -> ThreadingHTTPServer:
    """A loopback server answering every POST with the recorded answer: the fastest http.server
    can be. A stream goes out chunked, one flushed chunk per recorded frame."""
    whole = b"".join(pieces)

    class Fixed(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        wbufsize = 1 << 16  # subtle: status, headers and body in one send, as the double does

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def handle(self) -> None:
            try:
                super().handle()
            except ConnectionError:
                pass  # subtle: a client closed its kept-alive connection (a client thrown away)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            for name, value in headers.items():
                if name.lower() not in ("content-length", "transfer-encoding"):
                    self.send_header(name, value)
            if not stream:
                self.send_header("content-length", str(len(whole)))
                self.end_headers()
                self.wfile.write(whole)
                self.wfile.flush()
                return
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for piece in pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Fixed)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def taking_turns(ours: Callable[[], object], theirs: Callable[[], object], requests: int
                 ) -> tuple[float, float, float]:
    """(median seconds of one request of `ours`, of `theirs`, median pair ratio theirs/ours),
    the two taking turns request by request."""
    ours(), theirs()  # warm up: connect, import lazily loaded types
    mine, other, pairs = [], [], []
    for _ in range(requests):
        started = time.perf_counter()
        ours()
        middle = time.perf_counter()
        theirs()
        ended = time.perf_counter()
        mine.append(middle - started)
        other.append(ended - middle)
        pairs.append((ended - middle) / (middle - started))
    return statistics.median(mine), statistics.median(other), statistics.median(pairs)


def rounds_of(ours: Callable[[], object], theirs: Callable[[], object], requests: int,
              rounds: int) -> tuple[float, float, list[float]]:
    """Median seconds per request of each over `rounds` rounds, and each round's ratio, sorted."""
    mine, other, ratios = [], [], []
    for _ in range(rounds):
        a, b, ratio = taking_turns(ours, theirs, max(1, requests // rounds))
        mine.append(a)
        other.append(b)
        ratios.append(ratio)
    return statistics.median(mine), statistics.median(other), sorted(ratios)


def threaded(call: Callable[[], object], requests: int, threads: int) -> float:
    """Requests per second of `requests` calls spread over `threads` threads."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(lambda _: call(), range(requests)))
    return requests / (time.perf_counter() - started)


def row(api: str, mode: str, ours: float, theirs: float, ratios: list[float]) -> str:
    return (f"{api:<10} {mode:<10} {1 / ours:11.0f} {1 / theirs:11.0f} {ours * 1e3:8.2f} {theirs * 1e3:8.2f}"
            f" {statistics.median(ratios):6.2f}  ({ratios[0]:.2f}-{ratios[-1]:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per route and mode")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=16, help="0: no threaded rows")
    args = parser.parse_args()
    print(f"{'api':<10} {'mode':<10} {'double r/s':>11} {'floor r/s':>11} {'ms':>8} {'floor ms':>8}"
          f" {'ratio':>6}  (min-max of {args.rounds} rounds; goal >= 0.8)")
    threads: list[str] = []
    with ApiDouble(keep=100) as double:
        for api, stream in itertools.product(APIS, (False, True)):
            try:
                to_double = caller(api, double.url, stream=stream)
            except ImportError:
                print(f"{api:<10} skipped: its SDK is not installed")
                continue
            floor = floor_server(*recorded(double, api, stream=stream), stream=stream)
            to_floor = caller(api, f"http://127.0.0.1:{floor.server_address[1]}", stream=stream)
            mode = "streamed" if stream else "plain"
            print(row(api, mode, *rounds_of(to_double, to_floor, args.requests, args.rounds)), flush=True)
            if args.threads and not stream:
                ours, theirs = (threaded(call, args.requests, args.threads) for call in (to_double, to_floor))
                threads.append(f"{api:<10} {f'{args.threads} threads':<10} {ours:11.0f} {theirs:11.0f}"
                               f" {'':>17} {ours / theirs:6.2f}")
            floor.shutdown()
            floor.server_close()
        print(*threads, sep="\n")
        with ApiDouble(keep=100) as fresh:
            after, alone, ratios = rounds_of(caller("chat", double.url, stream=False),
                                             caller("chat", fresh.url, stream=False),
                                             args.requests, args.rounds)
        print(f"chat after other traffic {after * 1e3:.2f} ms a request, chat alone on a fresh double "
              f"{alone * 1e3:.2f} ms: ratio {statistics.median(ratios):.2f}"
              f" ({ratios[0]:.2f}-{ratios[-1]:.2f}; 1 means earlier traffic costs nothing)")


if __name__ == "__main__":
    main()
