"""A whole conversation, `Transcript`, and how it is saved and loaded.

A transcript is the system prompt and the messages, oldest first. Providers send it,
`run_agent` extends it in place, and the views (`report`, `display`) show it.

Saving is atomic (`_files.save_atomically`, the one way the kit writes a file: a
temporary file in the same folder, then `os.replace`): a save that fails leaves the
previous file exactly as it was; a new file gets the permissions the umask leaves, and
a symbolic link is written through to its target. What strict JSON cannot hold (NaN, a
non-string key, an object that is not JSON) is refused before any file is touched, with
the path of the value. Loading checks every field and raises one `TranscriptFormatError`
naming the JSON path that is wrong and what belongs there. The format is versioned
(`TRANSCRIPT_FORMAT_VERSION`), and a file of another version is refused, not guessed at.

Left out: migrating files of older versions, streaming a transcript as it grows, and
any compression or encryption of what is saved.
"""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

from ._checked import expect, read_field
from ._display import html_of
from ._files import parse_json, read_file, save_atomically
from ._text import shorten
from .blocks import MAX_NESTING, REPR_TEXT, ToolCall, ToolResult, clean_text
from .errors import TranscriptFormatError, UsageTypeError
from .messages import Message

__all__ = ["TRANSCRIPT_FORMAT_VERSION", "Transcript"]

TRANSCRIPT_FORMAT_VERSION = 1


def _unsavable(value: Any, path: str, depth: int = 0) -> str | None:
    """Where and why `value` cannot be written as strict JSON, or None when it can."""
    if depth > MAX_NESTING:
        return f"{path} nests more than {MAX_NESTING} levels deep (or refers to itself)"
    if isinstance(value, float) and not math.isfinite(value):
        return (f"{path} is {value!r}, which JSON cannot represent; replace it with null "
                "or a string before saving")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has the key {key!r}; JSON object keys are strings"
            if (found := _unsavable(item, f"{path}.{key}", depth + 1)) is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if (found := _unsavable(item, f"{path}[{i}]", depth + 1)) is not None:
                return found
    elif not isinstance(value, str | int | float | bool | type(None)):
        return f"{path} is a {type(value).__name__}, which JSON cannot hold"
    return None


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, then as it was before.

    subtle: a load makes a few objects per block, all new and none in a cycle, and while
    it does the collector walks the whole heap again and again for nothing to free: over
    half of the time of a 200,000-message load (`benchmarks/transcript_io.py`). Objects
    are still freed as usual meanwhile; only cycles wait for the next collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(repr=False)
class Transcript:
    """A whole conversation: the system prompt and the messages, oldest first.

    The transcript is the only memory there is. The model keeps nothing between calls,
    so every call sends all of it again.

    >>> t = Transcript(system="Be brief.")
    >>> _ = t.append(Message.user("Hi"))
    >>> len(t), t.last_user_text()
    (1, 'Hi')
    """

    system: str | None = None
    messages: list[Message] = field(default_factory=list)

    def __post_init__(self) -> None:
        if isinstance(self.system, str):
            self.system = clean_text(self.system)

    def append(self, message: Message) -> Message:
        """Add `message` at the end and return it."""
        if not isinstance(message, Message):
            raise UsageTypeError(f"a Transcript holds Message objects, not {type(message).__name__}; "
                                 "build one with Message.user(...) or Message.assistant(...).")
        self.messages.append(message)
        return message

    def copy(self) -> Transcript:
        """A new transcript with the same (immutable) messages."""
        return Transcript(self.system, list(self.messages))

    def __len__(self) -> int:
        return len(self.messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __getitem__(self, index: int) -> Message:
        return self.messages[index]

    def __repr__(self) -> str:
        system = f"system={shorten(self.system, REPR_TEXT)!r}, " if self.system else ""
        return f"Transcript({system}{len(self.messages)} messages)"

    def _repr_html_(self) -> str | None:
        return html_of(self)  # the views register it from above (`_display.py`)

    # -- reading a conversation (what a scripted policy usually needs) -------------
    def last_user_text(self) -> str:
        """The text of the newest user message that has text ("" if none)."""
        for message in reversed(self.messages):
            if message.role == "user" and message.text:
                return message.text
        return ""

    def tool_calls(self) -> list[ToolCall]:
        """Every tool call the model has made so far, oldest first."""
        return [call for message in self.messages for call in message.tool_calls]

    def tool_results(self) -> list[ToolResult]:
        """Every tool result sent back so far, oldest first."""
        return [result for message in self.messages for result in message.tool_results]

    # -- JSON --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "toolcall-lab/transcript",
            "version": TRANSCRIPT_FORMAT_VERSION,
            "system": self.system,
            "messages": [m.to_dict() for m in self.messages],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Transcript:
        """The transcript `to_dict` made; `TranscriptFormatError` naming the path if not one."""
        data = expect(data, dict, "the document", "a JSON object (a saved transcript)")
        version = data.get("version")
        if data.get("format") != "toolcall-lab/transcript" or version != TRANSCRIPT_FORMAT_VERSION:
            raise TranscriptFormatError(
                f"not a toolcall-lab transcript of version {TRANSCRIPT_FORMAT_VERSION} "
                f"(format={data.get('format')!r}, version={version!r}); "
                "save it again with this version of toolcall-lab."
            )
        system = read_field(data, "system", str | None, "", "a string or null")
        messages = read_field(data, "messages", list, "", "a list of messages")
        with _collector_paused():
            return cls(system, [Message.from_dict(m, f"messages[{i}]") for i, m in enumerate(messages)])

    def to_json(self) -> str:
        """The transcript as strict JSON; NaN and Infinity are refused, never written bare."""
        data = self.to_dict()
        try:
            return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            problem = _unsavable(data, "transcript") or "the transcript cannot be written as JSON"
            raise TranscriptFormatError(f"cannot save: {problem.removeprefix('transcript.')}.") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> Transcript:
        data = parse_json(text, where="the document", what="saved transcript", error=TranscriptFormatError)
        return cls.from_dict(data)

    def save(self, path: str | Path) -> Path:
        """Write the transcript as JSON (UTF-8) and return the path.

        The JSON goes to a temporary file in the same folder, which then replaces `path`
        in one step (`os.replace`): if anything fails, `path` is exactly as it was, and a
        `TranscriptFormatError` says why (a value JSON cannot hold, a full disk, a folder
        you may not write to).
        """
        data = (self.to_json() + "\n").encode("utf-8")  # every error happens before any file is touched
        return save_atomically(path, data, what="transcript", error=TranscriptFormatError)

    @classmethod
    def load(cls, path: str | Path) -> Transcript:
        """The transcript saved at `path`; a file that is not one raises `TranscriptFormatError`."""
        return cls.from_json(read_file(path, what="transcript", error=TranscriptFormatError))
