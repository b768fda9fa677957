"""At-most-once tool calls: a ledger of the calls already run, keyed by the model's call id.

A tool that changes something (sends an e-mail, places an order, deletes a file) must not
run twice for one request of the model. Yet a second run is easy to get: your code (or an
MCP client) retries a call that timed out although the first attempt had landed
(https://github.com/modelcontextprotocol/python-sdk/pull/2338: "We want to be able to retry
tool calls upon non-logical timeouts, like a timeout, with the same idempotency key"), or
a program that crashed is started again from its saved state and runs the calls its last
reply asked for once more.

The call id is the natural key: the model gives every call its own id, the result must
carry the same id back, and a retry of *that* request is the same id again, while a new
request of the model (even with the same arguments) is a new id: the ledger stops *your*
side running one request twice, not the model asking twice (the model "mints a new one
every turn, so a retry arrives with a fresh id",
https://github.com/openai/openai-agents-python/issues/4254). So `Ledger.execute(call,
tools)` is `tool.execute` run at most once per call id:

- the first time, the id is written down as *started* before the tool runs, then with its
  result once it has one;
- a repeat does not run the tool. The model gets the first run's result again, marked as
  a repeat (`REPEAT`), or, when the first run never finished (it crashed, or the process
  died), an error saying the call may already have had its effect and was not run again.

`Ledger.to_dict` / `from_dict` / `save` / `load` keep it as JSON, beside the transcript or
inside a saved pending approval (`pending.py`), so a program started again knows what has
already run. `Ledger(path=...)` (and `Ledger.load(path)`) saves itself at every change,
*before* a tool runs as well as after: a process that dies mid-call leaves the call on disk
as started. `run_agent(..., ledger=...)` runs every call through it.

subtle: the key is only as good as the ids. A real API gives every call an id of its own;
the scripted provider numbers its calls from toolu_01 again in each new provider, so keep
one ledger per conversation.

    >>> from toolcall_lab.tools import get_weather
    >>> ledger, tools = Ledger(), {"get_weather": get_weather}
    >>> ledger.execute(ToolCall("toolu_01", "get_weather", {"city": "Paris"}), tools)
    ToolResult('toolu_01', '18°C, sunny')
    >>> ledger.execute(ToolCall("toolu_01", "get_weather", {"city": "Paris"}), tools).content
    'Already run (toolu_01 ran once; it was not run again). Its result then: 18°C, sunny'

Left out: a key that spans processes running at once (a database row with a unique key does
that), passing the key on to the service the tool calls (an `Idempotency-Key` header is how
payment APIs take it), and noticing that a *new* call repeats an old one's arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._checked import expect, read_field
from ._files import parse_json, read_file, save_atomically
from .blocks import ToolCall, ToolResult
from .errors import TranscriptFormatError
from .tool import Tool, execute

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["LEDGER_FORMAT", "REPEAT", "Entry", "Ledger"]

LEDGER_FORMAT = "toolcall-lab/ledger"
#: How the answer to a repeated call starts, so a reader (and a check) can tell it from a first run.
REPEAT = "Already run"


@dataclass(frozen=True)
class Entry:
    """One call in the ledger: its tool, and its result (None: started, never finished)."""

    name: str
    result: ToolResult | None = None


class Ledger:
    """The calls already run, by call id; `execute` runs each call id at most once (see the module)."""

    def __init__(self, entries: Mapping[str, Entry] | None = None, *, path: str | Path | None = None) -> None:
        self.entries: dict[str, Entry] = dict(entries or {})
        #: Where the ledger saves itself at every change (None: it lives in memory only).
        self.path = path

    def __contains__(self, call_id: object) -> bool:
        return call_id in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        open_ = sum(1 for e in self.entries.values() if e.result is None)
        return f"Ledger({len(self.entries)} calls{f', {open_} never finished' if open_ else ''})"

    def execute(self, call: ToolCall, tools: Mapping[str, Tool]) -> ToolResult:
        """`tool.execute(call, tools)`, unless `call.id` has run before: then the answer to a repeat."""
        seen = self.entries.get(call.id)
        if seen is not None:
            return self.repeat(call, seen)
        self._note(call.id, Entry(call.name))  # subtle: written down *before* it runs
        result = execute(call, tools)
        self._note(call.id, Entry(call.name, result))
        return result

    def _note(self, call_id: str, entry: Entry) -> None:
        self.entries[call_id] = entry
        if self.path is not None:
            self.save(self.path)

    @staticmethod
    def repeat(call: ToolCall, seen: Entry) -> ToolResult:
        """What the model is told when `call` ran before: the first result again, or that it may have run."""
        if seen.result is None:
            text = (f"{REPEAT}? {seen.name} was started for this call ({call.id}) but never finished, "
                    "so it may already have had its effect; it was not run again. Check whether it "
                    "took effect before asking for it again.")
            return ToolResult(call.id, text,
                              is_error=True)
        return ToolResult(call.id, f"{REPEAT} ({call.id} ran once; it was not run again). Its result then: "
                                   f"{seen.result.content}", is_error=seen.result.is_error)

    # -- JSON --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"format": LEDGER_FORMAT, "version": 1, "calls": {
            call_id: {"name": e.name, "result": None if e.result is None else
                      {"content": e.result.content, "is_error": e.result.is_error}}
            for call_id, e in self.entries.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ledger:
        """The ledger `to_dict` made; `TranscriptFormatError` naming the path when it is not one."""
        data = expect(data, dict, "the ledger", "a JSON object (a saved ledger)", error=TranscriptFormatError)
        if data.get("format") != LEDGER_FORMAT or data.get("version") != 1:
            raise TranscriptFormatError(f"not a {LEDGER_FORMAT} of version 1 (format={data.get('format')!r}, "
                                        f"version={data.get('version')!r}); save it again with this kit.")
        calls = read_field(data, "calls", dict, "", "an object of calls by id", error=TranscriptFormatError)
        entries: dict[str, Entry] = {}
        for call_id, raw in calls.items():
            at = f"calls.{call_id}"
            raw = expect(raw, dict, at, "an object with name and result", error=TranscriptFormatError)
            name = read_field(raw, "name", str, at, "the tool's name", error=TranscriptFormatError)
            got = read_field(raw, "result", dict | None, at, "null or {content, is_error}",
                             error=TranscriptFormatError)
            result = None if got is None else ToolResult(
                call_id, read_field(got, "content", str, f"{at}.result", "text", error=TranscriptFormatError),
                is_error=read_field(got, "is_error", bool, f"{at}.result", "true or false",
                                    error=TranscriptFormatError))
            entries[call_id] = Entry(name, result)
        return cls(entries)

    def save(self, path: str | Path) -> Path:
        """Write the ledger as JSON (atomically, `_files.save_atomically`) and return the path."""
        import json

        data = (json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        return save_atomically(path, data, what="ledger", error=TranscriptFormatError)

    @classmethod
    def load(cls, path: str | Path) -> Ledger:
        """The ledger saved at `path`, saving itself there again at every change."""
        text = read_file(path, what="ledger", error=TranscriptFormatError)
        data = parse_json(text, where="the ledger", what="saved ledger", error=TranscriptFormatError)
        return cls(cls.from_dict(data).entries, path=path)
