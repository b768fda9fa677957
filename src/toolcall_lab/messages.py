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

Left out on purpose: images, documents and server-side tools. Messages carry text,
tool calls, tool results and reasoning, which is all the lessons need.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, assert_never

if TYPE_CHECKING:
    from pathlib import Path

from ._text import shorten

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


def _short(text: str) -> str:
    return shorten(text, REPR_TEXT)


@dataclass(frozen=True)
class TextBlock:
    """Words, from the user or the model."""

    text: str
    kind: Literal["text"] = "text"

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
        # subtle: a frozen dataclass cannot assign in __post_init__ the usual way.
        object.__setattr__(self, "blocks", tuple(self.blocks))
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
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        return cls(
            role=data["role"],
            blocks=tuple(block_from_dict(b) for b in data["blocks"]),
            id=data["id"],
            created_at=datetime.fromisoformat(data["created_at"]),
            synthetic=data.get("synthetic", False),
        )


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


def block_from_dict(data: Mapping[str, Any]) -> Block:
    """The block `block_to_dict` made, e.g. {"kind": "text", "text": "Hi"} -> TextBlock('Hi')."""
    match data["kind"]:
        case "text":
            return TextBlock(data["text"])
        case "tool_call":
            return ToolCall(data["id"], data["name"], data["args"], data.get("raw_args"))
        case "tool_result":
            return ToolResult(data["call_id"], data["content"], data["is_error"])
        case "reasoning":
            return ReasoningBlock(data["text"], data["provider"], data["model"], data["opaque"])
        case other:
            raise ValueError(f"unknown block kind {other!r} in a saved transcript")


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
        version = data.get("version")
        if data.get("format") != "toolcall-lab/transcript" or version != TRANSCRIPT_FORMAT_VERSION:
            raise ValueError(
                f"not a toolcall-lab transcript of version {TRANSCRIPT_FORMAT_VERSION} "
                f"(format={data.get('format')!r}, version={version!r}); "
                "save it again with this version of toolcall-lab."
            )
        return cls(data["system"], [Message.from_dict(m) for m in data["messages"]])

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    @classmethod
    def from_json(cls, text: str) -> Transcript:
        return cls.from_dict(json.loads(text))

    def save(self, path: str | Path) -> Path:
        """Write the transcript as JSON (UTF-8) and return the path."""
        from pathlib import Path

        path = Path(path)
        path.write_text(self.to_json() + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Transcript:
        from pathlib import Path

        return cls.from_json(Path(path).read_text(encoding="utf-8"))
