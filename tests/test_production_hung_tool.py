"""A hung tool (`tool.py`'s timeout): a call that never returns becomes an error result the model acts on."""

from __future__ import annotations

import threading
import time

import pytest

from toolcall_lab import ScriptedProvider, ToolCall, ToolDefinitionError, call, run_agent, tool
from toolcall_lab.tool import abandoned, execute, still_running, tool_map

NEVER = threading.Event()   # nobody sets it while the tool waits: a hung tool


@pytest.fixture(autouse=True)
def _release():
    NEVER.clear()
    yield
    NEVER.set()              # subtle: let a worker the test left hanging end with it


@tool
def fetch_page(url: str) -> str:
    """Fetch a web page (this one hangs: the server never answers)."""
    NEVER.wait()
    return "<html>...</html>"


@tool
def polite_fetch(url: str) -> str:
    """Fetch a web page, giving up when nobody waits for the answer any more."""
    abandoned().wait()       # instead of blocking for ever: ends once execute has given up
    return "too late"


def test_a_tool_that_never_returns_is_answered_with_an_error_within_its_timeout():
    hung = tool(fetch_page.function, timeout=0.2)
    started = time.monotonic()
    result = execute(ToolCall("toolu_01", "fetch_page", {"url": "https://example.com"}), tool_map([hung]))
    assert time.monotonic() - started < 2
    assert result.is_error and result.call_id == "toolu_01"
    assert "did not finish within its time limit of 0.2 s" in result.content
    # Python cannot stop it: the thread is still there, and listed, until what it waits for happens
    [worker] = [t for t in still_running() if t.name == "tool fetch_page"]
    NEVER.set()
    worker.join(2)
    assert not worker.is_alive() and worker not in still_running()


def test_a_tool_that_watches_abandoned_ends_when_the_call_is_given_up_and_leaks_no_thread():
    polite = tool(polite_fetch.function, timeout=0.2)
    before = set(threading.enumerate())
    result = execute(ToolCall("toolu_01", "polite_fetch", {"url": "https://example.com"}), tool_map([polite]))
    assert result.is_error
    deadline = time.monotonic() + 2
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert set(threading.enumerate()) - before == set()
    assert not abandoned().is_set()   # outside a timed call: never set


def test_the_loop_gives_every_untimed_tool_its_timeout_and_the_model_reads_the_error():
    provider = ScriptedProvider([call("fetch_page", url="https://example.com"),
                                 "The page did not load in time; try again later."])
    started = time.monotonic()
    run = run_agent(provider, "What does example.com say?", tools=[fetch_page], tool_timeout=0.2)
    assert time.monotonic() - started < 2
    result = run.transcript[2].tool_results[0]
    assert result.is_error and "time limit of 0.2 s" in result.content
    assert run.answer == "The page did not load in time; try again later."
    assert fetch_page.timeout is None           # the caller's tool is not changed
    own = tool(fetch_page.function, timeout=5)
    assert run_agent(ScriptedProvider(["ok"]), "hi", tools=[own], tool_timeout=0.2).steps[0].tools == (
        "fetch_page",)
    with pytest.raises(ToolDefinitionError, match="timeout must be a positive number"):
        run_agent(ScriptedProvider(["ok"]), "hi", tools=[fetch_page], tool_timeout=-1)
