"""What each lesson's "Run All" sends to a paid API, measured, not guessed.

A learner who sets `TOOLCALL_LAB_PROVIDER=anthropic` and runs a lesson top to bottom
sends some of its cells' requests to Anthropic: the ones made with the `provider` the
lesson takes from the environment. Cells that build their own `ScriptedProvider` or start
their own `ApiDouble` stay on the learner's machine and cost nothing. To count the paid
requests, `measure` runs every lesson notebook in a fresh kernel with the provider set
and `TOOLCALL_LAB_BASE_URL` pointed at a `MeterDouble` of its own: an API double that
also writes down, for each chat request it answers, the usage it reported. That is how
tests/test_swap.py runs the lessons, and it keeps this file honest (it re-measures and
compares).

Per request the measurement keeps (`MeteredRequest`):

- `input`, `output`, `reasoning`: tokens as the double counts them (the scripted
  provider's rule: about 4 characters per token of the kit's compact JSON of the request,
  `tokens.estimate_tokens`; on the Anthropic side plus the hidden tool-use system prompt
  Anthropic bills, `models.tool_prompt_tokens`). A real tokenizer counts differently, by
  model and language, and the kit documents no error bar for the rule of thumb: read
  the numbers as "about", and use a provider's token-counting endpoint when one matters;
- `hidden`: the part of `input` that is that hidden tool prompt, so a budget on another
  Claude model can swap in that model's figure;
- `prefix_of`: the index of the longest earlier request of the same run that this one
  starts with (same tools, same system prompt, and all of that request's messages), or
  None. A loop's call k starts with call k-1, so with caching it reads that whole
  request from the cache and writes only the rest, as `cost.loop_bill` prices a loop;
- `status`: the HTTP status (only a 200 is billed).

The measurement is stored as package data, `data/lesson_usage.json`, so `python -m
toolcall_lab budget` answers offline at once; re-measure after a lesson changes with

    python -m toolcall_lab budget --measure      # about 15 s a lesson per provider

Left out: the model list requests an SDK may make (not billed), and streaming.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from ..blocks import block_to_dict
from ..double.api_double import ApiDouble
from ..double.streams import Streamed
from ..errors import UsageError
from ..models import default_model
from ..usage import Usage
from ..wire import API_SPECS

__all__ = ["CLEARED", "LESSON_USAGE", "PROVIDERS", "MeterDouble", "MeteredRequest", "kernel_environment",
           "load_usage", "measure", "run_notebook", "usage_text"]

#: Where the committed measurement lives (package data).
LESSON_USAGE = Path(__file__).parents[1] / "data" / "lesson_usage.json"
#: The real providers a lesson can be swapped to, each with the API it speaks.
PROVIDERS = {spec.provider: spec.name for spec in API_SPECS.values()}
#: Variables a shell might hold that would change which provider runs, or send a key: a
#: measuring kernel starts without them.
CLEARED = ("TOOLCALL_LAB_PROVIDER", "TOOLCALL_LAB_MODEL", "TOOLCALL_LAB_BASE_URL", "TOOLCALL_LAB_TAPE",
           "TOOLCALL_LAB_RECORD", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST")
CELL_TIMEOUT = 120  # seconds, as for nbval: a stalled cell fails, not hangs


@dataclass(frozen=True)
class MeteredRequest:
    """One chat request a lesson sent to the provider under test (see the module docstring)."""

    input: int
    output: int
    reasoning: int = 0
    hidden: int = 0
    prefix_of: int | None = None
    status: int = 200


class MeterDouble(ApiDouble):
    """An `ApiDouble` that also meters each chat request: `double.metered`, oldest first.

    >>> from toolcall_lab import get_provider, run_agent
    >>> from toolcall_lab.tools import get_weather
    >>> with MeterDouble() as double:
    ...     provider = get_provider("openai-chat", base_url=double.base_url("chat"), api_key="-")
    ...     _ = run_agent(provider, "What's the weather in Paris?", tools=[get_weather])
    >>> [request.prefix_of for request in double.metered]   # call 2 starts with call 1
    [None, 0]
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.metered: list[MeteredRequest] = []
        self._prompts: list[tuple[str, ...]] = []  # each request's fingerprints: tools, system, messages

    def handle(self, method: str, path: str, raw: bytes, *, fault_header: str | None = None,
               sdk: str | None = None, headers: Mapping[str, str] | None = None
               ) -> tuple[int, bytes | Streamed, dict[str, str]]:
        status, data, answered = super().handle(method, path, raw, fault_header=fault_header, sdk=sdk,
                                                headers=headers)
        found = self.routes.find(path)
        if found is not None and method == "POST":
            self._meter(found.api, raw, status, data)
        return status, data, answered

    def _meter(self, api: str, raw: bytes, status: int, data: bytes | Streamed) -> None:
        if status != 200:
            self.metered.append(MeteredRequest(0, 0, status=status))
            self._prompts.append(("<refused>",))
            return
        spec = API_SPECS[api]
        body = json.loads(raw)
        turn = data.turn() if isinstance(data, Streamed) else spec.codec.decode_response(json.loads(data))
        usage = turn.usage
        transcript, tools = spec.server.decode_request(body)
        prompt = tuple(_fingerprint(part) for part in (
            [t.spec() for t in tools], transcript.system or "",
            *([m.role, [block_to_dict(b) for b in m.blocks]] for m in transcript.messages)))
        # the input the API bills beyond what was sent (Anthropic's tool prompt), as its server half
        # bills it for the double: a turn that read nothing, served
        unread = replace(turn, model=str(body.get("model", "")), usage=Usage(0, 0))
        hidden = spec.server.as_served(unread, tools).usage.input_tokens
        self.metered.append(MeteredRequest(usage.input_tokens, usage.output_tokens, usage.reasoning_tokens,
                                           hidden, _longest_prefix(prompt, self._prompts)))
        self._prompts.append(prompt)


def _fingerprint(part: object) -> str:
    text = json.dumps(part, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _longest_prefix(prompt: tuple[str, ...], earlier: Sequence[tuple[str, ...]]) -> int | None:
    """The index of the longest earlier prompt that `prompt` starts with (latest on a tie).

    >>> _longest_prefix(("t", "s", "m1", "m2"), [("t", "s", "m1"), ("t", "x"), ("t", "s", "m1")])
    2
    """
    best, best_length = None, 0
    for index, other in enumerate(earlier):
        # subtle: at least one message (tools and system prompt alone are never a whole request)
        if len(other) >= max(best_length, 3) and prompt[:len(other)] == other:
            best, best_length = index, len(other)
    return best


# -- running the lessons -------------------------------------------------------------------------
def kernel_environment(provider: str | None, base_url: str | None) -> dict[str, str]:
    """This process's environment without keys or choices, plus the provider under test."""
    env = {name: value for name, value in os.environ.items() if name not in CLEARED}
    if provider is not None and base_url is not None:
        env["TOOLCALL_LAB_PROVIDER"] = provider
        env["TOOLCALL_LAB_BASE_URL"] = base_url
    return env


def run_notebook(path: Path, env: Mapping[str, str]) -> list[str]:
    """Run one lesson top to bottom in a fresh kernel; one line per cell that failed.

    A line reads "cell 46 `first source line` -> InvalidRequestError: its first line", with
    the cell's index in the notebook (from 0, markdown cells counted). Needs nbclient and
    nbformat, which come with JupyterLab (the `lab` extra).
    """
    try:
        import nbclient
        import nbformat
    except ImportError:
        raise UsageError("running the lessons needs nbclient and nbformat, which come with JupyterLab: "
                         "pip install -e '.[lab]'.") from None
    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    from .solutions import kernel_config

    client = nbclient.NotebookClient(notebook, config=kernel_config(), timeout=CELL_TIMEOUT,
                                     allow_errors=True, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    failures = []
    try:
        client.execute(env=dict(env))
    except Exception as exc:  # a timeout or a dead kernel stops the run: say where
        failures.append(f"the run stopped: {type(exc).__name__}: {str(exc).strip().splitlines()[0]}")
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                head = next((line for line in cell.source.splitlines() if line.strip()), "")
                said = (output.evalue.splitlines() or [""])[0]
                failures.append(f"cell {index} `{head[:70]}` -> {output.ename}: {said[:300]}")
    return failures


def _run_metered(path: Path, provider: str) -> tuple[list[MeteredRequest], list[str]]:
    with MeterDouble() as double:
        failures = run_notebook(path, kernel_environment(provider, double.base_url(PROVIDERS[provider])))
        return list(double.metered), failures


def measure(notebooks: Path, *, providers: Iterable[str] = PROVIDERS, lessons: Iterable[str] | None = None,
            workers: int | None = None) -> dict[str, Any]:
    """Run each lesson under each provider against a `MeterDouble`; the data `usage_text` writes.

    `lessons` are notebook stems ("05_the_bill"), default every `*.ipynb` in `notebooks`.
    Raises `UsageError` naming the cells that failed: a lesson that stops half way would be
    under-counted.
    """
    paths = sorted(notebooks.glob("*.ipynb"))
    if lessons is not None:
        wanted = set(lessons)
        paths = [p for p in paths if p.stem in wanted]
    if not paths:
        raise UsageError(f"no lesson notebooks found in {notebooks}; pass --notebooks DIR.")
    chosen = list(providers)
    with ThreadPoolExecutor(max_workers=workers or max(2, os.cpu_count() or 1)) as pool:
        jobs = {(p, path.stem): pool.submit(_run_metered, path, p) for p in chosen for path in paths}
        runs = {key: job.result() for key, job in jobs.items()}
    failed = [f"{stem} with {p}: {line}" for (p, stem), (_, lines) in runs.items() for line in lines]
    if failed:
        raise UsageError("some cells failed, so the measurement would be short:\n  " + "\n  ".join(failed))
    return {
        "measured": date.today().isoformat(),
        "kit": _kit_version(),
        "commit": _commit(notebooks),
        "tokens": "as the API double counts them: about 4 characters per token of the kit's compact JSON "
                  "of each request (tokens.estimate_tokens), plus, on the Anthropic API, the hidden tool "
                  "prompt Anthropic bills",
        "providers": {p: {"api": PROVIDERS[p], "model": default_model(p),
                          "lessons": {stem: [asdict(r) for r in runs[p, stem][0]]
                                      for (q, stem) in runs if q == p}}
                      for p in chosen},
    }


def _kit_version() -> str:
    from .._version import __version__

    return __version__


def _commit(folder: Path) -> str:
    """The short commit the lessons were measured at ("unknown" outside a git checkout)."""
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=folder, capture_output=True,
                              text=True, timeout=10, check=False)
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


# -- the stored file ------------------------------------------------------------------------------
def usage_text(data: Mapping[str, Any]) -> str:
    """`data` as the committed JSON: one request a line, so a diff shows which request changed."""
    lines = ["{"]
    for key in ("measured", "kit", "commit", "tokens"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(data[key], ensure_ascii=False)},")
    lines.append('  "providers": {')
    providers = list(data["providers"].items())
    for i, (name, entry) in enumerate(providers):
        lines.append(f'    {json.dumps(name)}: {{"api": {json.dumps(entry["api"])}, '
                     f'"model": {json.dumps(entry["model"])}, "lessons": {{')
        lessons = sorted(entry["lessons"].items())
        for j, (stem, requests) in enumerate(lessons):
            rows = [json.dumps(r, separators=(", ", ": ")) for r in requests]
            body = ("\n        " + ",\n        ".join(rows) + "\n      ") if rows else ""
            lines.append(f"      {json.dumps(stem)}: [{body}]" + ("," if j < len(lessons) - 1 else ""))
        lines.append("    }}" + ("," if i < len(providers) - 1 else ""))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def load_usage(path: Path | None = None) -> dict[str, Any]:
    """The committed measurement (or the one at `path`), as written by `usage_text`."""
    path = path or LESSON_USAGE
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"no lesson measurement at {path}; run `python -m toolcall_lab budget "
                         "--measure` in a checkout of the kit.") from None
    return data
