"""The one internal shape of a conversation.

Every provider spells a conversation differently on the wire. Inside the kit there is
one spelling, and adapters translate to and from it:

- four kinds of block: `TextBlock`, `ToolCall`, `ToolResult`, `ReasoningBlock`, each a
  small frozen dataclass with a `kind` discriminator;
- `Message`: a role ("user" or "assistant") and a tuple of blocks, plus an id, a
  creation time and a `synthetic` flag for messages your code made up (a summary
  written by compaction, say) rather than anyone said;
- `Transcript`: the system prompt, kept apart because every API places it differently,
  and the list of messages. It saves to JSON and loads back exactly.

Tool results travel in a *user* message: from the model's side of the table everything
that is not the model is "the user", your code included. Adapters for APIs that have a
`tool` role (OpenAI Chat, Ollama) remap it on the way out.

Text is checked where it enters: a lone surrogate (half of a UTF-16 pair, e.g. from a
JSON ``"\\ud83d"`` escape in a tool result or an API reply) cannot be encoded as UTF-8,
so it would make every later save and every provider call fail. Blocks replace each one
with U+FFFD (the replacement character, "�") when they are built or loaded; a proper
pair becomes the one character it stands for.

Saving is atomic (a temporary file in the same folder, then `os.replace`): a save that
fails leaves the previous file exactly as it was. Loading checks every field and raises
one `TranscriptFormatError` naming the JSON path that is wrong and what belongs there.

Left out on purpose: images, documents and server-side tools. Messages carry text,
tool calls, tool results and reasoning, which is all the lessons need.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, assert_never

if TYPE_CHECKING:
    from pathlib import Path

from ._text import shorten
from .errors import TranscriptFormatError

__all__ = [
    "Block",
    "block_from_dict",
    "block_to_dict",
    "Message",
    "ReasoningBlock",
    "Role",
    "TextBlock",
    "ToolCall",
    "ToolResult",
    "Transcript",
    "TRANSCRIPT_FORMAT_VERSION",
]

Role = Literal["user", "assistant"]
TRANSCRIPT_FORMAT_VERSION = 1


REPR_TEXT = 60  # characters of text a repr shows before it shortens
MAX_NESTING = 100  # levels of lists and objects tool arguments may nest (real ones use 2 or 3)


def _short(text: str) -> str:
    return shorten(text, REPR_TEXT)


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD, so it encodes as UTF-8.

    >>> clean_text("x\\ud83dy"), clean_text("\\ud83d\\ude00")
    ('x�y', '😀')
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # subtle: through UTF-16, a proper pair joins into one character and only a
        # lone half fails to decode, which "replace" turns into U+FFFD.
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _clean_json(value: Any, depth: int = 0) -> Any:
    """Tool arguments with every string (keys too) passed through `clean_text`."""
    if depth > MAX_NESTING:
        raise ValueError(f"args nest more than {MAX_NESTING} levels deep; tool arguments "
                         "are a shallow JSON object")
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, Mapping):
        return {clean_text(k) if isinstance(k, str) else k: _clean_json(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean_json(v, depth + 1) for v in value]
    return value


def _set(block: object, name: str, value: object) -> None:
    # subtle: a frozen dataclass cannot assign in __post_init__ the usual way.
    object.__setattr__(block, name, value)


@dataclass(frozen=True)
class TextBlock:
    """Words, from the user or the model."""

    text: str
    kind: Literal["text"] = "text"

    def __post_init__(self) -> None:
        if isinstance(self.text, str):
            _set(self, "text", clean_text(self.text))

    def __repr__(self) -> str:
        return f"TextBlock({_short(self.text)!r})"


@dataclass(frozen=True)
class ToolCall:
    """The model *asking* your code to run a tool. Asking is all it can do.

    `id` pairs the call with its `ToolResult`; `args` are the arguments as a JSON object.
    When a model sends arguments that are not a JSON object (truncated by `max_tokens`,
    or simply malformed), `args` is empty and `raw_args` keeps the text exactly as it
    arrived, so the loop can answer with an error instead of crashing.

    >>> ToolCall("toolu_01", "get_weather", {"city": "Paris"})
    ToolCall('toolu_01', 'get_weather', {'city': 'Paris'})
    """

    id: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    raw_args: str | None = None
    kind: Literal["tool_call"] = "tool_call"

    def __post_init__(self) -> None:
        if isinstance(self.args, Mapping):  # anything else is answered by `execute` as an error
            _set(self, "args", _clean_json(self.args))
        if isinstance(self.raw_args, str):
            _set(self, "raw_args", clean_text(self.raw_args))

    @property
    def malformed(self) -> bool:
        """True when the arguments did not arrive as a JSON object."""
        return self.raw_args is not None

    def __repr__(self) -> str:
        if self.malformed:
            return f"ToolCall({self.id!r}, {self.name!r}, raw_args={_short(self.raw_args or '')!r})"
        return f"ToolCall({self.id!r}, {self.name!r}, {dict(self.args)!r})"


@dataclass(frozen=True)
class ToolResult:
    """Your code's answer to one `ToolCall`, matched by `call_id`.

    A failure is still a result: `is_error=True` with text the model can act on, so it
    can fix its next call instead of waiting for an answer that never comes.
    """

    call_id: str
    content: str
    is_error: bool = False
    kind: Literal["tool_result"] = "tool_result"

    def __post_init__(self) -> None:
        if isinstance(self.content, str):
            _set(self, "content", clean_text(self.content))

    def __repr__(self) -> str:
        error = ", is_error=True" if self.is_error else ""
        return f"ToolResult({self.call_id!r}, {_short(self.content)!r}{error})"


@dataclass(frozen=True)
class ReasoningBlock:
    """The model's reasoning before it answered or called a tool.

    `text` is what you may read: a thinking trace or a summary, empty when the provider
    sends reasoning only in opaque form. Everything needed to send the block back lives
    in one provider-scoped home, `opaque`: Anthropic's `signature` or redacted `data`, an
    OpenAI reasoning item with its `encrypted_content`. Adapters replay it byte for byte,
    and only to the `provider` that made it; any other provider gets nothing (it could
    not verify the block, and a foreign signature is an error, not a hint).
    """

    text: str
    provider: str | None = None
    model: str | None = None
    opaque: Mapping[str, Any] = field(default_factory=dict)
    kind: Literal["reasoning"] = "reasoning"

    def __post_init__(self) -> None:
        if isinstance(self.text, str):  # `opaque` is replayed byte for byte, so never touched
            _set(self, "text", clean_text(self.text))

    def replayable_to(self, provider: str) -> bool:
        """Whether this block may be sent back to `provider` (only its maker may read it)."""
        return self.provider is not None and self.provider == provider

    def __repr__(self) -> str:
        parts = [repr(_short(self.text))]
        if self.provider:
            parts.append(f"provider={self.provider!r}")
        if self.model:
            parts.append(f"model={self.model!r}")
        if self.opaque:
            # subtle: signatures and encrypted items run to kilobytes; show their names only.
            parts.append("opaque=<" + ", ".join(sorted(self.opaque)) + ">")
        return f"ReasoningBlock({', '.join(parts)})"


Block = TextBlock | ToolCall | ToolResult | ReasoningBlock

_ALLOWED_KINDS: dict[str, frozenset[str]] = {
    # The model makes calls and reasoning; only your side sends results back.
    "user": frozenset({"text", "tool_result"}),
    "assistant": frozenset({"text", "tool_call", "reasoning"}),
}


def _new_message_id() -> str:
    return "msg_" + os.urandom(12).hex()  # 96 random bits, like a uuid4 without its import


def _now() -> datetime:
    return datetime.now(UTC)


def _as_block(item: str | Block) -> Block:
    return TextBlock(item) if isinstance(item, str) else item


@dataclass(frozen=True, repr=False)
class Message:
    """One turn of a conversation: who spoke, and the blocks they sent.

    Build messages with the factories, which turn plain strings into `TextBlock`s:

    >>> Message.user("What's the weather in Paris?")
    Message.user(TextBlock("What's the weather in Paris?"))
    >>> Message.results([ToolResult("toolu_01", "18°C, sunny")]).role
    'user'

    `id` and `created_at` are for your logs and your debugging; they are never sent to a
    model, and reprs leave them out so that outputs stay the same from run to run.
    """

    role: Role
    blocks: tuple[Block, ...]
    id: str = field(default_factory=_new_message_id)
    created_at: datetime = field(default_factory=_now)
    synthetic: bool = False

    def __post_init__(self) -> None:
        if self.role not in _ALLOWED_KINDS:
            raise ValueError(
                f"Message role must be 'user' or 'assistant', not {self.role!r}; "
                "the system prompt goes on the Transcript (Transcript(system=...))."
            )
        _set(self, "blocks", tuple(self.blocks))
        for position, block in enumerate(self.blocks):
            if not isinstance(block, TextBlock | ToolCall | ToolResult | ReasoningBlock):
                raise TypeError(
                    f"block {position} of a {self.role} message is a {type(block).__name__}; "
                    "use TextBlock, ToolCall, ToolResult or ReasoningBlock (or a plain str)."
                )
            if block.kind not in _ALLOWED_KINDS[self.role]:
                allowed = ", ".join(sorted(_ALLOWED_KINDS[self.role]))
                raise ValueError(
                    f"a {self.role} message cannot hold a {block.kind} block (block {position}); "
                    f"{self.role} messages hold {allowed}."
                )

    # -- factories ---------------------------------------------------------------
    @classmethod
    def user(cls, *content: str | Block, synthetic: bool = False) -> Message:
        """A user message; strings become `TextBlock`s."""
        return cls("user", tuple(_as_block(item) for item in content), synthetic=synthetic)

    @classmethod
    def assistant(cls, *content: str | Block, synthetic: bool = False) -> Message:
        """An assistant (model) message; strings become `TextBlock`s."""
        return cls("assistant", tuple(_as_block(item) for item in content), synthetic=synthetic)

    @classmethod
    def results(cls, results: Iterable[ToolResult]) -> Message:
        """The user message that carries every result of one batch of calls, in call order."""
        return cls("user", tuple(results))

    # -- reading -----------------------------------------------------------------
    @property
    def text(self) -> str:
        """The text blocks joined with newlines ("" when there are none)."""
        return "\n".join(b.text for b in self.blocks if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(b for b in self.blocks if isinstance(b, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(b for b in self.blocks if isinstance(b, ToolResult))

    @property
    def reasoning(self) -> tuple[ReasoningBlock, ...]:
        return tuple(b for b in self.blocks if isinstance(b, ReasoningBlock))

    def __repr__(self) -> str:
        blocks = ", ".join(repr(b) for b in self.blocks)
        synthetic = ", synthetic=True" if self.synthetic else ""
        return f"Message.{self.role}({blocks}{synthetic})"

    def _repr_html_(self) -> str:
        from .display.html import message_html
        return message_html(self)

    # -- JSON --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
            "created_at": self.created_at.isoformat(),
            "synthetic": self.synthetic,
            "blocks": [block_to_dict(b) for b in self.blocks],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "message") -> Message:
        """The message `to_dict` made; `TranscriptFormatError` naming `path` if it is not one."""
        data = _expect(data, dict, path, "a JSON object (a message)")
        role = _field(data, "role", str, path, "'user' or 'assistant'")
        if role not in _ALLOWED_KINDS:
            raise TranscriptFormatError(f"{path}.role must be 'user' or 'assistant', got {role!r}.")
        blocks = _field(data, "blocks", list, path, "a list of blocks")
        stamp = _field(data, "created_at", str, path, "an ISO 8601 date and time")
        try:
            created_at = datetime.fromisoformat(stamp)
        except ValueError:
            raise TranscriptFormatError(f"{path}.created_at must be an ISO 8601 date and time "
                                        f"like '2025-01-31T12:00:00+00:00', got {stamp!r}.") from None
        blocks = tuple(block_from_dict(b, f"{path}.blocks[{i}]") for i, b in enumerate(blocks))
        message_id = _field(data, "id", str, path, "a string (the message id)")
        synthetic = _field(data, "synthetic", bool, path, "true or false", default=False)
        try:
            return cls(role, blocks, message_id, created_at, synthetic)  # type: ignore[arg-type]
        except ValueError as exc:  # a role that is not user/assistant, a block in the wrong role
            raise TranscriptFormatError(f"{path}: {exc}") from None


def block_to_dict(block: Block) -> dict[str, Any]:
    """A block as a JSON-ready dict, the kit's own neutral shape (not any API's).

    Saved transcripts use it, and so does token estimation, which measures what a call
    sends. ``block_from_dict`` reverses it exactly.

    >>> block_to_dict(ToolResult("toolu_01", "18°C, sunny"))
    {'kind': 'tool_result', 'call_id': 'toolu_01', 'content': '18°C, sunny', 'is_error': False}
    """
    match block:
        case TextBlock(text=text):
            return {"kind": "text", "text": text}
        case ToolCall(id=id_, name=name, args=args, raw_args=raw):
            data: dict[str, Any] = {"kind": "tool_call", "id": id_, "name": name, "args": dict(args)}
            if raw is not None:
                data["raw_args"] = raw
            return data
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            return {"kind": "tool_result", "call_id": call_id, "content": content, "is_error": is_error}
        case ReasoningBlock(text=text, provider=provider, model=model, opaque=opaque):
            return {"kind": "reasoning", "text": text, "provider": provider, "model": model,
                    "opaque": dict(opaque)}
        case _:
            assert_never(block)


def block_from_dict(data: Mapping[str, Any], path: str = "block") -> Block:
    """The block `block_to_dict` made, e.g. {"kind": "text", "text": "Hi"} -> TextBlock('Hi').

    Every field is checked: a wrong one raises `TranscriptFormatError` naming its path,
    e.g. "block.text must be a string, got a number: 5".
    """
    data = _expect(data, dict, path, "a JSON object (a block)")
    try:
        return _block_from_checked(data, path)
    except TranscriptFormatError:
        raise
    except ValueError as exc:  # arguments nested absurdly deep
        raise TranscriptFormatError(f"{path}: {exc}.") from None


def _block_from_checked(data: dict[str, Any], path: str) -> Block:
    text = "a string"
    match _field(data, "kind", str, path, "'text', 'tool_call', 'tool_result' or 'reasoning'"):
        case "text":
            return TextBlock(_field(data, "text", str, path, text))
        case "tool_call":
            return ToolCall(_field(data, "id", str, path, text), _field(data, "name", str, path, text),
                            _field(data, "args", dict, path, "a JSON object (the arguments)"),
                            _field(data, "raw_args", str | None, path, "a string or null", default=None))
        case "tool_result":
            return ToolResult(_field(data, "call_id", str, path, text),
                              _field(data, "content", str, path, text),
                              _field(data, "is_error", bool, path, "true or false"))
        case "reasoning":
            return ReasoningBlock(_field(data, "text", str, path, text),
                                  _field(data, "provider", str | None, path, "a string or null"),
                                  _field(data, "model", str | None, path, "a string or null"),
                                  _field(data, "opaque", dict, path, "a JSON object"))
        case other:
            raise TranscriptFormatError(f"{path}.kind is {other!r}; expected 'text', 'tool_call', "
                                        "'tool_result' or 'reasoning'.")


_JSON_NAMES = {dict: "a JSON object", list: "a list", str: "a string", bool: "true/false",
               int: "a number", float: "a number", type(None): "null"}
_MISSING: Any = object()


def _expect(value: Any, expected: Any, path: str, what: str) -> Any:
    """`value` if it is an instance of `expected`, else a `TranscriptFormatError` at `path`."""
    # subtle: bool is a subclass of int, and JSON's true is not a number.
    if isinstance(value, expected) and not (isinstance(value, bool) and expected in (int, float)):
        return value
    name = _JSON_NAMES.get(type(value), type(value).__name__)
    raise TranscriptFormatError(f"{path} must be {what}, got {name}: {shorten(repr(value), 40)}.")


def _field(data: dict[str, Any], key: str, expected: Any, path: str, what: str,
           default: Any = _MISSING) -> Any:
    """`data[key]` checked against `expected`; missing keys take `default` or are an error."""
    where = f"{path}.{key}" if path else key
    if key not in data:
        if default is not _MISSING:
            return default
        raise TranscriptFormatError(f"{where} is missing; expected {what}.")
    return _expect(data[key], expected, where, what)


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
            raise TypeError(f"a Transcript holds Message objects, not {type(message).__name__}; "
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
        system = f"system={_short(self.system)!r}, " if self.system else ""
        return f"Transcript({system}{len(self.messages)} messages)"

    def _repr_html_(self) -> str:
        from .display.html import transcript_html
        return transcript_html(self)

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
        data = _expect(data, dict, "the document", "a JSON object (a saved transcript)")
        version = data.get("version")
        if data.get("format") != "toolcall-lab/transcript" or version != TRANSCRIPT_FORMAT_VERSION:
            raise TranscriptFormatError(
                f"not a toolcall-lab transcript of version {TRANSCRIPT_FORMAT_VERSION} "
                f"(format={data.get('format')!r}, version={version!r}); "
                "save it again with this version of toolcall-lab."
            )
        system = _field(data, "system", str | None, "", "a string or null")
        messages = _field(data, "messages", list, "", "a list of messages")
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
        try:
            data = json.loads(text)
        except RecursionError:
            raise TranscriptFormatError("the document nests lists or objects too deeply to "
                                        "read; it is not a saved transcript.") from None
        except ValueError as exc:  # JSONDecodeError and bytes that are not UTF-8
            raise TranscriptFormatError(f"the document is not valid JSON: {exc}.") from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> Path:
        """Write the transcript as JSON (UTF-8) and return the path.

        The JSON goes to a temporary file in the same folder, which then replaces `path`
        in one step (`os.replace`): if anything fails, `path` is exactly as it was.
        """
        import tempfile
        from pathlib import Path

        path = Path(path)
        data = (self.to_json() + "\n").encode("utf-8")  # every error happens before any file is touched
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.chmod(temporary, mode)  # subtle: mkstemp makes files only their owner may read
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        return path

    @classmethod
    def load(cls, path: str | Path) -> Transcript:
        from pathlib import Path

        return cls.from_json(Path(path).read_bytes())
