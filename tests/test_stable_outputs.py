"""A lesson's page does not change when a dependency does (../shared/LESSONS.md, "Stable outputs").

Ids, timestamps, timings, versions and a dependency's internals (its exception class names,
reprs, warning texts) never appear raw in a compared output: the kit says it in its own
words, or the cell is marked ignored with a reason. Two halves:

- every committed lesson output strict nbval compares is scanned for the exception class
  names of the SDKs and libraries below (found by walking their installed modules, so a new
  release's new names are found too), memory addresses, default reprs, jsonschema's and
  pydantic's wording, the installed versions of those dependencies, absolute paths, timings
  and timestamps; the scan is shown to catch what lesson 21 used to
  print ("after 9 events the SDK raised RemoteProtocolError"), and to pass the kit's own
  error names, which are the kit's vocabulary;
- a stream cut mid-reply gives one `IncompleteStreamError` sentence whatever the SDK raised
  (anthropic's `APIConnectionError`, httpx's or httpx2's `RemoteProtocolError`, anything).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import pkgutil
import re
import sys
import warnings
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from toolcall_lab import IncompleteStreamError, Message, Transcript, get_provider
from toolcall_lab.recorded import RECORDINGS
from toolcall_lab.tools import get_weather
from toolcall_lab.wire.ollama.server import _CREATED_AT

ROOT = Path(__file__).parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: The dependencies whose internals must not reach a page: the SDKs, their HTTP clients, the
#: validation libraries. A package that is not installed is left out (httpx2 came with anthropic 2.17).
DEPENDENCIES = ("anthropic", "openai", "ollama", "mcp", "httpx", "httpx2", "httpcore", "httpcore2",
                "pydantic", "pydantic_core", "jsonschema")
#: Subpackages walked past: data models and endpoints, thousands of modules and no exception
#: (`types`, `resources`), and those that run a program when imported (`cli`, `__main__`).
NOT_WALKED = frozenset({"types", "resources", "tests", "cli", "__main__"})
#: What strict nbval compares of a display output besides the text (`nbval.plugin.IPyNbFile`
#: skips pictures, and widget views whose model ids are random).
NOT_COMPARED = ("image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json")


# -- what must not appear ---------------------------------------------------------------------------
def _modules(root: str) -> Iterator[str]:
    """The importable modules of package `root`, imported (quietly), skipping NOT_WALKED."""
    package = importlib.import_module(root)
    todo = [package]
    while todo:
        current = todo.pop()
        for info in pkgutil.iter_modules(getattr(current, "__path__", []), current.__name__ + "."):
            if info.name.rpartition(".")[2].strip("_") in NOT_WALKED | {"main"}:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    module = importlib.import_module(info.name)
            except BaseException:  # an optional extra missing, or a module that exits (SystemExit)
                continue
            yield info.name
            if info.ispkg:
                todo.append(module)


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


@cache
def kit_vocabulary() -> frozenset[str]:
    """The kit's own exception names (RateLimitError is the kit's word as well as the SDKs')."""
    import toolcall_lab.errors
    import toolcall_lab.selfcheck  # noqa: F401 - WrongAnswer

    return frozenset(cls.__name__ for cls in _subclasses(BaseException)
                     if cls.__module__.startswith("toolcall_lab"))


@cache
def wire_words() -> frozenset[str]:
    """The error types a server sends as data, as the double plays them (`wire.flavours`):
    vLLM's are its Python exception names ("NotFoundError"), the API's words on the wire."""
    from toolcall_lab.wire.flavoured import error_body
    from toolcall_lab.wire.flavours import FLAVOURS

    found = set()
    for flavour in FLAVOURS.values():
        for status in (400, 404, 500):
            error = error_body(flavour, "m", status=status)["error"]
            if isinstance(error, dict) and isinstance(error.get("type"), str):
                found.add(error["type"])
    return frozenset(found)


@cache
def dependency_exception_names() -> frozenset[str]:
    """Every public exception (and warning) class the installed DEPENDENCIES define."""
    roots = [name for name in DEPENDENCIES if importlib.util.find_spec(name) is not None]
    for root in roots:
        for _ in _modules(root):
            pass
    return frozenset(cls.__name__ for cls in _subclasses(BaseException)
                     if cls.__module__.partition(".")[0] in roots and not cls.__name__.startswith("_"))


@cache
def patterns() -> dict[str, re.Pattern[str]]:
    """What a compared output must not hold, by kind."""
    names = sorted(dependency_exception_names() - kit_vocabulary() - wire_words(), key=len, reverse=True)
    versions = {}
    for name in DEPENDENCIES:
        try:
            versions[name] = importlib.metadata.version(name.replace("_", "-"))
        except importlib.metadata.PackageNotFoundError:
            continue
    named = "|".join(map(re.escape, [*versions, "python"]))
    python = ".".join(map(str, sys.version_info[:3]))
    installed = "|".join(re.escape(v) for v in {*versions.values(), python})
    here = sorted({str(ROOT), sys.prefix, str(Path.home())}, key=len, reverse=True)
    return {
        "an exception class of a dependency": re.compile(r"\b(?:" + "|".join(names) + r")\b"),
        "a memory address": re.compile(r"\b0x[0-9a-fA-F]{6,16}\b"),
        "an object's default repr": re.compile(r"<(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w* object\b"),
        "a validation library's words": VALIDATION_WORDS,
        "a dependency's version": re.compile(
            rf"(?i)\b(?:{named})\b[\s=/:@v-]{{0,3}}\d+\.\d+|(?<![\w.])(?:{installed})(?![\w.])"),
        "an absolute path": re.compile(
            r"(?:site|dist)-packages|(?<![\w.:/])(?:/root|/home|/tmp|/Users|/private|/usr|/opt)/"
            r"|\b[A-Za-z]:\\\\|" + "|".join(map(re.escape, here))),
        "a timing": re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|secs?|seconds?)\b|\belapsed\b"),
        "a timestamp": re.compile(rf"(?!{re.escape(STAND_IN_TIME)})"
                                  r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}"),
    }


#: How jsonschema and pydantic word a failed check: their text, which their releases reword
#: (the kit says it its own way, `_jsonschema.describe`).
VALIDATION_WORDS = re.compile(r"\d+ validation errors? for \w+|errors\.pydantic\.dev|is a required property"
                              r"|is not of type '|Additional properties are not allowed|is not one of \[")
#: The time the API double writes where a server's reply carries one (Ollama's `created_at`):
#: one made-up instant, the same every run.
STAND_IN_TIME = _CREATED_AT
#: A cell that states the times it shows (a scripted latency, the double's retry-after, a tool's
#: time limit, which the kit's timeout answer quotes) shows the same ones every run: its timings
#: are inputs, not measurements.
STATED_TIME = re.compile(r"\b(?:latency_s|retry_after|timeout|tool_timeout)=")


def findings(text: str, *, source: str = "") -> list[str]:
    """What in `text` (a cell's output; `source` the cell's code) must not be on a page."""
    found = []
    for kind, pattern in patterns().items():
        if kind == "a timing" and STATED_TIME.search(source):
            continue
        found += [f"{kind}: {match.group(0)!r}" for match in pattern.finditer(text)]
    return found


# -- the committed lessons --------------------------------------------------------------------------
IGNORED = ("nbval-ignore-output", "nbval-skip")
IGNORED_COMMENT = re.compile(r"^\s*#\s*(?:NBVAL_IGNORE_OUTPUT|NBVAL_SKIP)\b", re.MULTILINE)


def ignored(cell: dict[str, Any]) -> bool:
    """Whether strict nbval leaves the cell's output uncompared (a tag, or a marker comment)."""
    tags = cell.get("metadata", {}).get("tags", [])
    return any(tag in IGNORED for tag in tags) or bool(IGNORED_COMMENT.search("".join(cell["source"])))


def compared_text(output: dict[str, Any]) -> str:
    """The text of one output that a learner reads and strict nbval compares."""
    match output["output_type"]:
        case "stream":
            return "".join(output["text"])
        case "error":
            return "\n".join([output["ename"], output["evalue"], *output.get("traceback", [])])
        case _:
            data = output.get("data", {})
            return "\n".join("".join(value) if isinstance(value, list) else json.dumps(value)
                             for kind, value in data.items() if kind not in NOT_COMPARED)


def page_findings(notebook: dict[str, Any]) -> list[str]:
    found = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code" or ignored(cell):
            continue
        source = "".join(cell["source"])
        for output in cell.get("outputs", []):
            found += [f"cell {index}: {what}" for what in findings(compared_text(output), source=source)]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_compared_output_names_a_dependencys_internals_a_version_a_path_or_a_time(path):
    found = page_findings(json.loads(path.read_text(encoding="utf-8")))
    assert not found, (f"{path.name}: {found[:5]}; say it in the kit's words (where the message is "
                       "made), or tag the cell nbval-ignore-output and say why in a comment")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_cell_left_uncompared_says_why(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    silent = [index for index, cell in enumerate(cells) if cell["cell_type"] == "code" and ignored(cell)
              and not any(line.strip().startswith("#") and not IGNORED_COMMENT.match(line)
                          for line in "".join(cell["source"]).splitlines())]
    assert not silent, f"{path.name}: cells {silent} are not compared and no comment in them says why"


#: What lesson 21 printed before: the SDK's class for a dropped connection (each release its own).
OLD_LESSON_11 = ["after 9 events the SDK raised RemoteProtocolError\n",
                 "after 9 events the SDK raised APIConnectionError\n"]


@pytest.mark.parametrize("line", OLD_LESSON_11)
def test_the_scan_catches_what_lesson_11_printed_before(line):
    cell = {"cell_type": "code", "metadata": {}, "source": ["cut = take_turn(talk)\n"],
            "outputs": [{"name": "stdout", "output_type": "stream", "text": [line]}]}
    assert page_findings({"cells": [cell]}) == [
        f"cell 0: an exception class of a dependency: {line.split()[-1]!r}"]
    cell["metadata"] = {"tags": ["nbval-ignore-output"]}
    assert page_findings({"cells": [cell]}) == []  # unless the cell is left uncompared


@pytest.mark.parametrize("text", [
    "<anthropic.types.message.Message object at 0x7f3a2c1d9e50>",
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for Message",
    "httpx2.RemoteProtocolError: peer closed connection",
    "jsonschema.exceptions.ValidationError: 'city' is a required property",
    "'city' is a required property", "42 is not of type 'string' (at args.city)",
    "1 validation error for ChatResponse", "<IPython.core.display.Markdown object>",
    "anthropic 2.17.0", "User-Agent: Anthropic/Python 0.40.0",
    "File /work/main/.venv/lib/python3.11/site-packages/anthropic/_base_client.py",
    "/home/learner/notes.json", "/tmp/tape.json",
    "took 0.53 s", "first token in 212 ms", "at 2026-12-01T10:15:00Z",
])
def test_the_scan_catches_each_kind(text):
    assert findings(text), text


@pytest.mark.parametrize("text", [
    "IncompleteStreamError: the stream ended after 9 events, before message_stop: a whole "
    "get_weather call had arrived; nothing was added to the transcript and no tool ran: call again.",
    "RateLimitError | retry after 2.0 s",  # the kit's RateLimitError; the time as the cell states it
    "ProviderUnreachableError: nothing answers at http://127.0.0.1:8000/v1",
    "MalformedResponseError, ModelNotFoundError, ToolDefinitionError, McpServerGoneError, WrongAnswer",
    "after 9 events the SDK raised an error",
    "unknown model  404 not_found_error  404 NotFoundError",  # vLLM's error type, on the wire
    "input $5.0, cache write (5 minutes) $6.25", "error=True  Error", "args.city must be a string, got 42",
    '"protocolVersion": "2025-11-25"', '"jsonrpc": "2.0"', "anthropic-sdk-python@009b0353",
    "claude-opus-5 answered in 2 calls", "10 errors, 3 tests, 0x",
])
def test_the_scan_passes_the_kits_own_words(text):
    assert findings(text, source="ScriptedProvider(weather_policy, latency_s=1.2, retry_after=2)") == []


def test_a_time_limit_the_cell_sets_may_be_quoted_but_a_measured_time_may_not():
    said = "get_forecast did not finish within its time limit of 0.5 s, so it was abandoned."
    assert findings(said, source="run_agent(p, q, tools=[get_forecast], tool_timeout=LIMIT)") == []
    assert findings(said, source="@tool(timeout=0.5)\ndef get_forecast(city): ...") == []
    assert findings(said, source="run_agent(p, q, tools=[get_forecast])") == ["a timing: '0.5 s'"]


# -- a cut stream, whatever the SDK raised ----------------------------------------------------------
class _Event(dict):
    """One event as the SDKs hand it over: `to_dict()` gives the JSON the wire carried."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self)


class StreamSnapped(Exception):
    """A class no SDK has yet: what a future release might raise for a dropped connection."""


def _http_request() -> Any:
    """A request object of the HTTP client the installed anthropic SDK uses."""
    http = importlib.import_module("httpx2" if importlib.util.find_spec("httpx2") else "httpx")
    return http.Request("POST", "http://127.0.0.1:9/v1/messages")


def _raised() -> list[BaseException]:
    """What an SDK may raise when the connection drops mid-stream, one of each kind."""
    anthropic = pytest.importorskip("anthropic")
    found: list[BaseException] = [anthropic.APIConnectionError(request=_http_request())]
    for http in ("httpx", "httpx2"):
        if importlib.util.find_spec(http):
            found.append(importlib.import_module(http).RemoteProtocolError(
                "peer closed connection without sending complete message body (incomplete chunked read)"))
    return [*found, ConnectionResetError(104, "Connection reset by peer"), StreamSnapped("gone")]


def _cut_after(events: int, error: BaseException) -> IncompleteStreamError:
    """The error the kit's Anthropic provider raises when its SDK stream breaks with `error`
    after `events` of a recorded stream (no server: the SDK's stream is stood in for)."""
    provider = get_provider("anthropic", base_url="http://127.0.0.1:9", api_key="sk-test", max_retries=0)
    recorded = [_Event(event) for event in RECORDINGS["anthropic"].events()]

    def sdk_stream(request: dict[str, Any]) -> Iterator[_Event]:
        yield from recorded[:events]
        raise error

    provider._open_stream = sdk_stream  # type: ignore[method-assign]
    with pytest.raises(IncompleteStreamError) as raised:
        list(provider.stream(Transcript(messages=[Message.user("Weather in Paris?")]), tools=[get_weather]))
    assert raised.value.__cause__ is error  # kept for debugging: the traceback still says why
    assert raised.value.events == events
    return raised.value


@pytest.mark.parametrize("events", [0, 6])
def test_a_cut_stream_says_the_same_sentence_whatever_the_sdk_raised(events):
    said = {type(error).__name__: str(_cut_after(events, error)) for error in _raised()
            if events or not isinstance(error, StreamSnapped)}  # before any event: by name only
    assert len(set(said.values())) == 1, said
    [sentence] = set(said.values())
    assert sentence.startswith(f"the stream ended after {events} events, before message_stop: "), sentence
    assert sentence.endswith("nothing was added to the transcript and no tool ran: call again.")
    assert not findings(sentence)
    if events:
        assert "get_weather's arguments were cut at" in sentence
