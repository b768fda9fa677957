"""Approvals that outlive a function call: a run stopped before a sensitive call, saved, decided later.

`run_agent(..., approve=gate)` asks `gate` about every call before it runs, and waits for
the answer: fine for a program with a person at the keyboard, not for one whose approver
reads an e-mail tomorrow (openai/openai-agents-python#2230, as issue 31 reports it). The
agent SDKs pause instead: "When a tool call requires approval, the SDK pauses the run,
returns interruptions, and lets you resume later from the same RunState"
(https://openai.github.io/openai-agents-js/guides/human-in-the-loop). Here:

1. the gate answers `approval.DEFER` for a call (`approval.ask_later(tools)` does so for
   every tool marked `needs_approval`); the loop stops before running *any* call of that
   reply, and `run.pending` is a `Pending`: the transcript, ending with the reply whose
   calls are open, the ids of the calls waiting for a person, and what the gate said of
   the others;
2. `pending.save(path)` writes it as JSON (atomically); `Pending.load(path)` reads it back,
   in this process or in another one, any time later;
3. `pending.decide({"toolu_02": True}, tools=...)` runs the reply's calls: a waiting one as
   decided (True runs it; False or a reason refuses it, and the model reads why, in
   `approval.refusal`'s words), the others as the gate said. All the results go into one
   message, in call order, and the transcript comes back ready for the next call:
   `run_agent(provider, None, tools=..., transcript=...)`.

The tools are not saved (a function cannot be), so the process that decides passes them
again. A `Ledger` given to the run is saved with it and used by `decide`, so a call that
already ran before a crash is not run twice (`ledger.py`).

    >>> from toolcall_lab import Message, ToolCall, Transcript
    >>> from toolcall_lab.tools import get_weather
    >>> t = Transcript(None, [Message.user("Weather?"), Message.assistant(
    ...     ToolCall("toolu_01", "get_weather", {"city": "Paris"}))])
    >>> later = Pending.from_json(Pending(t, ("toolu_01",)).to_json())
    >>> later
    Pending(waiting for 1 decision: get_weather (toolu_01))
    >>> said = later.decide({"toolu_01": "the user said no"}, tools=[get_weather])[-1].tool_results[0]
    >>> said.content.split(". ")[0], said.is_error, later
    ('Refused: get_weather did not run (the user said no)', True, Pending(decided))

Left out: editing a call's arguments before approving it, decisions that expire, and
several pending runs in one file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._checked import expect, read_field
from ._files import parse_json, read_file, save_atomically
from .approval import answer_of, refused
from .blocks import ToolCall, ToolResult
from .errors import TranscriptFormatError, UsageError
from .ledger import Ledger
from .messages import Message
from .tool import Tool, tool_map
from .tool import execute as run_call
from .transcript import Transcript

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["PENDING_FORMAT", "Decision", "Execute", "Pending"]

PENDING_FORMAT = "toolcall-lab/pending"

#: A person's decision on a waiting call: True runs it; False or a reason refuses it.
Decision = bool | str

#: How a call that may run is run: `tool.execute`'s shape, (call, tools by name) -> its result.
Execute = Callable[[ToolCall, Mapping[str, Tool]], ToolResult]


@dataclass(repr=False)
class Pending:
    """A run stopped before calls waiting for a person: saved, loaded, decided (see the module).

    `answers` holds what the gate said of the reply's other calls (True, or a refusal's
    reason), so `decide` does not need the gate again.
    """

    transcript: Transcript
    waiting: tuple[str, ...]
    answers: dict[str, Decision] = field(default_factory=dict)
    ledger: Ledger | None = None

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The calls of the reply the run stopped at (the transcript's last message)."""
        last = self.transcript.messages[-1] if self.transcript.messages else None
        return last.tool_calls if last is not None and last.role == "assistant" else ()

    @property
    def decided(self) -> bool:
        """True once `decide` has answered the calls."""
        return not self.calls

    def __repr__(self) -> str:
        if self.decided:
            return "Pending(decided)"
        names = ", ".join(f"{c.name} ({c.id})" for c in self.calls if c.id in self.waiting)
        plural = "" if len(self.waiting) == 1 else "s"
        return f"Pending(waiting for {len(self.waiting)} decision{plural}: {names})"

    def decide(self, decisions: Mapping[str, Decision], *, tools: Sequence[Tool],
               execute: Execute | None = None) -> Transcript:
        """Run the reply's calls with these decisions; the transcript, ready for `run_agent(..., None, ...)`.

        Every waiting call needs a decision; a call id that is not waiting is refused, so a
        typo cannot approve nothing silently. `execute` runs each call that may run, as
        `tool.execute(call, tools)` does (the default: the saved ledger's `execute`, or
        `tool.execute` when there is none): a ledger of your own plugs in here.
        """
        if self.decided:
            raise UsageError("these calls were already decided (the transcript no longer ends with them); "
                             "continue with run_agent(provider, None, transcript=pending.transcript).")
        missing = [i for i in self.waiting if i not in decisions]
        unknown = [i for i in decisions if i not in self.waiting]
        if missing or unknown:
            raise UsageError(f"decide() needs one decision for each waiting call, {list(self.waiting)}; "
                             f"missing {missing}, not waiting {unknown}.")
        said: dict[str, Decision] = {**self.answers, **decisions}
        by_name = tool_map(tools)
        once = execute or (self.ledger.execute if self.ledger is not None else run_call)
        results: list[ToolResult] = []
        for call in self.calls:
            # the gate's own words for a decision: False is "not approved"; no entry fails closed
            answer = answer_of(call, by_name, lambda c: said.get(c.id, False))
            results.append(once(call, by_name) if answer is True else refused(call, str(answer)))
        self.transcript.append(Message.results(results))
        return self.transcript

    # -- JSON --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"format": PENDING_FORMAT, "version": 1, "transcript": self.transcript.to_dict(),
                "waiting": list(self.waiting), "answers": dict(self.answers),
                "ledger": None if self.ledger is None else self.ledger.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Pending:
        """The record `to_dict` made; `TranscriptFormatError` naming the path when it is not one."""
        data = expect(data, dict, "the pending run", "a JSON object (a saved pending run)")
        if data.get("format") != PENDING_FORMAT or data.get("version") != 1:
            raise TranscriptFormatError(f"not a {PENDING_FORMAT} of version 1 (format="
                                        f"{data.get('format')!r}, version={data.get('version')!r}); save it "
                                        "again with this kit.")
        waiting = read_field(data, "waiting", list, "", "a list of call ids")
        answers = read_field(data, "answers", dict, "", "an object of decisions by call id")
        for i, call_id in enumerate(waiting):
            expect(call_id, str, f"waiting[{i}]", "a call id")
        for call_id, answer in answers.items():
            expect(answer, bool | str, f"answers.{call_id}", "true, false or a reason")
        ledger = read_field(data, "ledger", dict | None, "", "null or a saved ledger")
        return cls(Transcript.from_dict(read_field(data, "transcript", dict, "", "a saved transcript")),
                   tuple(waiting), dict(answers), None if ledger is None else Ledger.from_dict(ledger))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, allow_nan=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Pending:
        return cls.from_dict(parse_json(text, where="the pending run", what="saved pending run",
                                        error=TranscriptFormatError))

    def save(self, path: str | Path) -> Path:
        """Write it as JSON, atomically (`_files.save_atomically`), and return the path."""
        self.transcript.to_json()  # subtle: a transcript JSON cannot hold fails here, in its own words
        return save_atomically(path, (self.to_json() + "\n").encode("utf-8"), what="pending run",
                               error=TranscriptFormatError)

    @classmethod
    def load(cls, path: str | Path) -> Pending:
        """The pending run saved at `path`."""
        return cls.from_json(read_file(path, what="pending run", error=TranscriptFormatError))
