"""The double under a classroom's load, with faults: seconds in CI, loopback only, bounded.

200 SDK requests start together on 200 threads (new connections, all at once) and every
one is answered; each fault behaves as specified under the same clients; and what the
double records stays bounded however much arrives. Timings are never asserted.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import SECRET

pytest.importorskip("anthropic")
pytest.importorskip("openai")

ASK = [{"role": "user", "content": "Hi"}]


def clients(double, **options):
    import anthropic
    import openai

    options = {"api_key": SECRET, "max_retries": 0, "timeout": 20, **options}
    return (anthropic.Anthropic(base_url=double.url, **options),
            openai.OpenAI(base_url=double.base_url("chat"), **options))


def call(client, n: int) -> str:
    if type(client).__module__.startswith("anthropic"):
        reply = client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=ASK)
        return reply.content[0].type
    if n % 2:
        return client.responses.create(model="gpt-4o-mini", input="Hi").output[0].type
    return client.chat.completions.create(model="gpt-4o-mini", messages=ASK).choices[0].message.role


def test_200_concurrent_sdk_requests_all_answered(make_double):
    double = make_double(keep=50)
    assert double._server.request_queue_size >= 200  # http.server's default backlog is 5
    pair = clients(double)
    start = threading.Barrier(200, timeout=30)

    def one(n: int) -> str:
        start.wait()  # all 200 connect at once: the burst a classroom makes
        return call(pair[n % 2], n)

    with ThreadPoolExecutor(max_workers=200) as pool:
        answers = list(pool.map(one, range(200)))
    assert len(answers) == 200 and set(answers) <= {"text", "message", "assistant"}
    assert len(double.requests) == 50 and {r.status for r in double.requests} == {200}


def test_each_fault_under_the_sdks(make_double):
    import anthropic
    import openai

    double = make_double()
    claude, gpt = clients(double)
    double.fail_next("slow", delay=0.2)
    assert call(claude, 0) == "text"  # slow but whole, under the 20 s timeout
    double.fail_next("slow", delay=1.0)
    with pytest.raises(anthropic.APITimeoutError):
        claude.with_options(timeout=0.3).messages.create(model="m", max_tokens=8, messages=ASK)
    double.fail_next("malformed")
    with pytest.raises(Exception) as cut:
        call(gpt, 0)
    assert "JSON" in type(cut.value).__name__ + str(cut.value) or "json" in str(cut.value).lower()
    double.fail_next("server_error")
    with pytest.raises(openai.InternalServerError):
        call(gpt, 0)
    double.fail_next("rate_limit", retry_after=0.5)
    with pytest.raises(anthropic.RateLimitError) as limited:
        call(claude, 0)
    assert limited.value.response.headers["retry-after-ms"] == "500"
    double.fail_next("rate_limit", retry_after=0.01)
    assert call(claude.with_options(max_retries=1), 0) == "text"  # the SDK waits and retries
    statuses = [r.status for r in double.requests]
    assert statuses[-2:] == [429, 200] and 500 in statuses


def test_recorded_bodies_stay_bounded(make_double):
    double = make_double(keep=20, max_recorded=10_000, max_body=1_000_000)
    _, gpt = clients(double)
    big = "x" * 200_000  # well under max_body: answered, but recorded as a note
    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(lambda _: gpt.chat.completions.create(
            model="m", messages=[{"role": "user", "content": big}]), range(60)))
    assert len(double.requests) == 20
    assert all(isinstance(r.body, str) and "not kept" in r.body for r in double.requests)
    assert sum(len(r.body) for r in double.requests) < 20 * 200


def test_a_double_serving_all_day_keeps_no_more_than_it_says(make_double):
    """`serve` says it keeps the last `keep` requests; its players kept every one they played
    (1.3 MB more per 1,000 requests, measured), so a class's double grew all day."""
    import gc
    import types

    from toolcall_lab.providers.base import SentRequest

    def alive() -> int:
        """The SentRequests this double holds, however deep: what is reachable from it (through
        anything but classes, modules and functions, which lead to every other test's objects;
        a count over the whole process also counted what other threads of the suite made).
        subtle: no gc.collect() first: what the double reaches is alive anyway, and a collection
        of the full suite's heap costs seconds (the test took 9.6 s in the quick suite, 1.5 s alone)."""
        seen, todo, held = {id(double)}, [double], 0
        while todo:
            for inner in gc.get_referents(todo.pop()):
                if id(inner) in seen or isinstance(inner, (type, types.ModuleType, types.FunctionType)):
                    continue
                seen.add(id(inner))
                held += isinstance(inner, SentRequest)
                todo.append(inner)
        return held

    double = make_double(keep=5)
    claude, gpt = clients(double)
    before = alive()
    for turn in range(40):
        call(claude, turn)
        call(gpt, turn)
    assert len(double.requests) == 5
    assert alive() - before <= 4, f"{alive() - before} more SentRequest records held after 80 requests"
