"""A new API is a copied folder and one `ApiSpec` line, and the API double serves it.

`docs/architecture.md` ("How to add an API") promises that nothing outside the API's own
folder names an API: the double asks the API's server half (`wire.ServerHalf`) for
everything it does that API's way, and routes a request by its `ApiSpec`'s `Route`s. This
test keeps the promise honest. It copies `wire/ollama/` as it ships, renames the two names
it spells (`API_NAME`, `PROVIDER_NAME`), registers it with one `ApiSpec` line, and runs the
lessons' weather question through an `ApiDouble` at the new endpoint, then a misshapen
body, a fault and an unknown path, each answered in the copied API's own shape. (Before
wire/<api>/ folders, the double answered such an API with a 500: `KeyError: 'toy'`, in
`double/shape.py`.)

A sixth copy, "gem", carries its model and its stream switch in the URL, as Gemini's
`/v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse` do: its
`ApiSpec` line declares the two routes, and the double serves it unchanged (before issue 30
it looked up each API by one fixed path with `model` and `stream` in the body, and
answered both with a 404). Last, the kit's files outside an API's folder are read for
tables with a row per API: each is a file a new API must edit.
"""

from __future__ import annotations

import ast
import importlib
import json
import shutil
import sys
import urllib.request
from pathlib import Path

import pytest

from conftest import parsed
from stub_server import post_json as post
from toolcall_lab import run_agent, wire
from toolcall_lab.double import ApiDouble, shape
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import API_SPECS, ApiSpec, Route, decode_reply
from toolcall_lab.wire._framing import events_of

ENDPOINT = "/toy/chat"


def copied(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: ApiSpec):
    """`toolcall_lab.wire.<name>`: wire/ollama/ copied, its names renamed, and its one `ApiSpec` line."""
    folder = tmp_path / name
    shutil.copytree(Path(wire.__file__).parent / "ollama", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    names = folder / "_blocks.py"
    spelled = names.read_text()
    for line in ('API_NAME = "ollama"', 'PROVIDER_NAME = "ollama"'):
        assert line in spelled, f"wire/ollama/_blocks.py no longer spells {line!r}"
        spelled = spelled.replace(line, line.replace('"ollama"', f'"{name}"'))
    names.write_text(spelled)
    monkeypatch.setattr(wire, "__path__", [*wire.__path__, str(tmp_path)])  # the copy sits beside the others
    monkeypatch.setitem(API_SPECS, name, spec)  # its folder is imported on first use
    yield importlib.import_module(f"toolcall_lab.wire.{name}")
    for module in [module for module in sys.modules if module.startswith(f"toolcall_lab.wire.{name}")]:
        del sys.modules[module]
    shape._validator.cache_clear()  # its validator goes with it


@pytest.fixture
def toy(tmp_path, monkeypatch):
    # the one ApiSpec line: Ollama's, renamed (it streams unless told not to, lists its models at
    # /api/tags and its few rules are its own server's)
    yield from copied("toy", tmp_path, monkeypatch, ApiSpec(
        "toy", "Toy", ENDPOINT, "", "toy", "toy-", streams_by_default=True, models_path="/api/tags",
        local_rules=True))


GENERATE = "/v1beta/models/{model}:generateContent"
STREAM = "/v1beta/models/{model}:streamGenerateContent"


@pytest.fixture
def gem(tmp_path, monkeypatch):
    # its one ApiSpec line declares where the model and the stream switch live: in the URL
    yield from copied("gem", tmp_path, monkeypatch, ApiSpec(
        "gem", "Gem", GENERATE, "", "gem", "gem-", models_path="/v1beta/models", local_rules=True,
        routes=(Route(GENERATE, streams=False), Route(STREAM, streams=True, query=(("alt", "sse"),)))))


class ToyProvider:
    """The thinnest provider of the toy API: its codec, and one POST with the standard library."""

    def __init__(self, url: str, codec) -> None:
        self.url, self.codec, self.model, self.requests = url, codec, "toy-1", []

    def complete(self, transcript, *, tools=()):
        body = self.codec.encode_request(transcript, tools, model=self.model)
        assert self.codec.check_request(body) == []
        return self.codec.decode_response(post(self.url, body)[1])


def test_a_copied_folder_and_one_api_spec_line_is_an_api_the_double_serves(toy):
    assert wire.codec("toy") is toy and toy.API_NAME == "toy"
    assert API_SPECS["toy"].server is toy.server.SERVER is not API_SPECS["ollama"].server
    with ApiDouble() as double:
        run = run_agent(ToyProvider(double.url + ENDPOINT, toy), PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [(r.api, r.path, r.status) for r in double.requests] == [("toy", ENDPOINT, 200)] * 2


def test_the_new_api_refuses_and_fails_in_its_own_shape(toy):
    with ApiDouble() as double:
        misshapen = post(double.url + ENDPOINT, {"model": "m", "stream": False, "messages": 5})
        double.fail_next("rate_limit")
        limited = post(double.url + ENDPOINT, {"model": "m", "stream": False, "messages": []})
        elsewhere = post(double.url + "/toy/nothing", {})
    assert misshapen == (400, {"error": "json: cannot unmarshal number into Go struct field "
                                        "ChatRequest.messages of type []api.Message"})
    assert limited == (429, {"error": "too many requests"})
    assert elsewhere == (404, {"error": "404 page not found"})
    assert [r.api for r in double.requests] == ["toy"] * 3


def test_the_double_names_no_api():
    # issue 20: what the double does differently per API lives in each API's server half (and a
    # local server's in its Flavour record), so no module of double/ branches on an API's name
    import re
    from pathlib import Path

    import toolcall_lab.double

    folder = Path(toolcall_lab.double.__file__).parent
    branches = [f"{path.name}:{number}: {line.strip()}"
                for path in sorted(folder.rglob("*.py"))
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if re.search(r"""api\s*[!=]=\s*["'](anthropic|responses|chat|ollama)""", line)
                or re.search(r"""["'](anthropic|responses|chat|ollama)["']\s*[!=]=\s*\w*api""", line)]
    assert branches == []


class GemProvider:
    """A provider of the gem API: the model goes in the URL, the stream switch in the path and query."""

    def __init__(self, url: str, codec, *, model: str = "gem-1", stream: bool = False) -> None:
        self.url, self.codec, self.model, self.stream = url, codec, model, stream

    def complete(self, transcript, *, tools=()):
        body = self.codec.encode_request(transcript, tools, model=self.model)
        del body["model"], body["stream"]  # the URL says both
        if not self.stream:
            return self.codec.decode_response(post(self.url + GENERATE.format(model=self.model), body)[1])
        request = urllib.request.Request(self.url + STREAM.format(model=self.model) + "?alt=sse",
                                         data=json.dumps(body).encode(), method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.headers["content-type"] == "application/x-ndjson"  # the copy streams as Ollama
            return decode_reply(api="gem", events=events_of(response.read(), lines=True))


@pytest.mark.parametrize("stream", [False, True], ids=["generate", "stream"])
def test_an_api_with_its_model_and_stream_switch_in_the_url_is_served_unchanged(gem, stream):
    with ApiDouble() as double:
        provider = GemProvider(double.url, gem, stream=stream)
        run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    assert run.steps[-1].turn.model == "gem-1"  # the URL's model, read as the body's by the server half
    path = (STREAM if stream else GENERATE).format(model="gem-1")
    assert [(r.api, r.path, r.status) for r in double.requests] == [("gem", path, 200)] * 2
    assert all("model" not in r.body for r in double.requests)  # recorded as sent


def test_the_url_api_refuses_and_fails_in_its_own_shape(gem):
    asked = {"messages": [{"role": "user", "content": "Hi"}]}
    with ApiDouble() as double:
        double.fail_next("not_found")
        missing = post(double.url + GENERATE.format(model="gem-9"), asked)
        no_alt = post(double.url + STREAM.format(model="gem-1"), asked)  # a stream without ?alt=sse
        misshapen = post(double.url + GENERATE.format(model="gem-1"), {"messages": 5})
    assert missing == (404, {"error": "model 'gem-9' not found"})
    assert no_alt == (404, {"error": "404 page not found"})
    assert misshapen[0] == 400 and "ChatRequest.messages" in misshapen[1]["error"]
    assert [r.api for r in double.requests] == ["gem"] * 3


# -- what a new API edits outside its folder -------------------------------------------------------
PACKAGE = Path(wire.__file__).parent.parent
APIS = ("anthropic", "responses", "chat", "ollama")
#: The kit's files a new API (with the provider that speaks it) edits outside its folder, each for
#: one line: its `ApiSpec`, its provider's `ProviderSpec`, and its provider's default model. Its
#: folder, its provider's module and its tests are new files.
EDITED = {"wire/__init__.py": "its ApiSpec line", "providers/registry.py": "its provider's ProviderSpec line",
          "models.py": "its provider's default model (DEFAULT_MODELS), dated"}


def per_api_tables() -> dict[str, list[int]]:
    """file -> the lines of each table in it that names three or more of the APIs (as a dict's keys,
    a `match`'s cases, or a tuple, list or set of names), outside the API folders and the lessons'
    answer keys (`checks/`: a question about the four wires a lesson plays has its answer there)."""
    found: dict[str, list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where.split("/")[0] == "checks" or (where.split("/")[0] == "wire" and where.split("/")[1] in APIS):
            continue
        for node in ast.walk(parsed(path)):
            match node:
                case ast.Dict(keys=keys):
                    named = keys
                case ast.Tuple(elts=named) | ast.List(elts=named) | ast.Set(elts=named):
                    pass
                case ast.Match(cases=cases):
                    named = [p.value for case in cases for p in ast.walk(case.pattern)
                             if isinstance(p, ast.MatchValue)]
                case _:
                    continue
            names = {n.value for n in named if isinstance(n, ast.Constant)} & set(APIS)
            if len(names) >= 3:
                found.setdefault(where, []).append(node.lineno)
    return found


def test_a_new_api_edits_three_kit_files_outside_its_folder():
    # before issue 30, five more files held such a table (recorded.py, teacher/budget.py,
    # views/report.py and two widgets); each value now lives in the API's folder or its ApiSpec
    tables = per_api_tables()
    assert tables == {}, f"a table with a row per API outside the API folders: {tables}"
    assert len({*EDITED, *tables}) == 3
