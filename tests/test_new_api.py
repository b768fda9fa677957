"""A fifth API is a copied folder and one `ApiSpec` line, and the API double serves it.

`docs/architecture.md` ("How to add an API") promises that nothing outside the API's own
folder names an API: the double asks the API's server half (`wire.ServerHalf`) for
everything it does that API's way. This test keeps the promise honest. It copies
`wire/ollama/` as it ships, renames the two names it spells (`API_NAME`, `PROVIDER_NAME`),
registers it with one `ApiSpec` line, and runs the lessons' weather question through an
`ApiDouble` at the new endpoint, then a misshapen body, a fault and an unknown path, each
answered in the copied API's own shape. (Before wire/<api>/ folders, the double answered
such an API with a 500: `KeyError: 'toy'`, in `double/shape.py`.)
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from toolcall_lab import run_agent, wire
from toolcall_lab.double import ApiDouble, shape
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import API_SPECS, ApiSpec

ENDPOINT = "/toy/chat"


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """`toolcall_lab.wire.toy`: wire/ollama/ copied, its names renamed, and its one `ApiSpec` line."""
    folder = tmp_path / "toy"
    shutil.copytree(Path(wire.__file__).parent / "ollama", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    names = folder / "_blocks.py"
    spelled = names.read_text()
    for line in ('API_NAME = "ollama"', 'PROVIDER_NAME = "ollama"'):
        assert line in spelled, f"wire/ollama/_blocks.py no longer spells {line!r}"
        spelled = spelled.replace(line, line.replace('"ollama"', '"toy"'))
    names.write_text(spelled)
    monkeypatch.setattr(wire, "__path__", [*wire.__path__, str(tmp_path)])  # the copy sits beside the others
    # the one ApiSpec line: Ollama's, renamed (it streams unless told not to, lists its models at
    # /api/tags and its few rules are its own server's); its folder is imported on first use
    monkeypatch.setitem(API_SPECS, "toy", ApiSpec("toy", "Toy", ENDPOINT, "", "toy", "toy-",
                                                  streams_by_default=True, models_path="/api/tags",
                                                  local_rules=True))
    yield importlib.import_module("toolcall_lab.wire.toy")
    for name in [name for name in sys.modules if name.startswith("toolcall_lab.wire.toy")]:
        del sys.modules[name]
    shape._validator.cache_clear()  # its validator for "toy" goes with it


class ToyProvider:
    """The thinnest provider of the toy API: its codec, and one POST with the standard library."""

    def __init__(self, url: str, codec) -> None:
        self.url, self.codec, self.model, self.requests = url, codec, "toy-1", []

    def complete(self, transcript, *, tools=()):
        body = self.codec.encode_request(transcript, tools, model=self.model)
        assert self.codec.check_request(body) == []
        return self.codec.decode_response(post(self.url, body)[1])


def post(url: str, body: object) -> tuple[int, object]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


def test_a_copied_folder_and_one_api_spec_line_is_an_api_the_double_serves(toy):
    assert wire.codec("toy") is toy and toy.API_NAME == "toy"
    assert API_SPECS["toy"].server is toy.server.SERVER and toy.server is not wire.ollama.server
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
