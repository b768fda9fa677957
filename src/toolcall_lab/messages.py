"""The one internal shape of a conversation, and `Message`, one turn of it.

Every provider spells a conversation differently on the wire. Inside the kit there is
one spelling, and adapters translate to and from it:

- the kinds of block: `TextBlock`, `ToolCall`, `ToolResult`, `ReasoningBlock`, and the
  provider's own tool use, `ServerToolCall` and `ServerToolResult`, each a small frozen
  dataclass with a `kind` discriminator (`blocks.py`);
- `Message`: a role ("user" or "assistant") and a tuple of blocks, plus an id, a
  creation time and a `synthetic` flag for messages your code made up (a summary
  written by compaction, say) rather than anyone said (this module);
- `Transcript`: the system prompt, kept apart because every API places it differently,
  and the list of messages. It saves to JSON and loads back exactly (`transcript.py`).

Every one of those names can be imported from here, as it always could:
`from toolcall_lab.messages import Message, ToolCall, Transcript`.

Tool results travel in a *user* message: from the model's side of the table everything
that is not the model is "the user", your code included. Adapters for APIs that have a
`tool` role (OpenAI Chat, Ollama) remap it on the way out. A message is checked when it
is built: a role other than user or assistant, or a block its role cannot send (a user
never sends a tool call), is refused with one sentence saying what belongs there.

Left out on purpose: a "system" role and a "tool" role (the system prompt lives on the
`Transcript`, tool results in user messages), and images and documents (see `blocks.py`).
A server-side tool's call *and* its result sit in the assistant's message: the provider
ran it inside the same reply.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, cast

from ._checked import expect, read_field
from ._display import html_of
from .blocks import (
    Block,
    ReasoningBlock,
    ServerToolCall,
    ServerToolResult,
    TextBlock,
    ToolCall,
    ToolResult,
    block_from_dict,
    block_to_dict,
    loaded_block,
)
from .errors import TranscriptFormatError, UsageError, UsageTypeError

if TYPE_CHECKING:  # at run time, `__getattr__` at the bottom imports them on first use
    from .transcript import TRANSCRIPT_FORMAT_VERSION, Transcript

__all__ = [
    "TRANSCRIPT_FORMAT_VERSION",
    "Block",
    "Message",
    "ReasoningBlock",
    "Role",
    "ServerToolCall",
    "ServerToolResult",
    "TextBlock",
    "ToolCall",
    "ToolResult",
    "Transcript",
    "block_from_dict",
    "block_to_dict",
]

Role = Literal["user", "assistant"]

_ALLOWED_KINDS: dict[str, frozenset[str]] = {
    # The model makes calls and reasoning; only your side sends results back. A provider's
    # own tool (web search) runs inside the reply, so its call and result are the model's.
    "user": frozenset({"text", "tool_result"}),
    "assistant": frozenset({"text", "tool_call", "reasoning", "server_tool_call", "server_tool_result"}),
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
            raise UsageError(
                f"Message role must be 'user' or 'assistant', not {self.role!r}; "
                "the system prompt goes on the Transcript (Transcript(system=...))."
            )
        # subtle: a frozen dataclass cannot assign in __post_init__ the usual way.
        object.__setattr__(self, "blocks", tuple(self.blocks))
        for position, block in enumerate(self.blocks):
            if not isinstance(block, Block):
                raise UsageTypeError(
                    f"block {position} of a {self.role} message is a {type(block).__name__}; "
                    "use TextBlock, ToolCall, ToolResult or ReasoningBlock (or a plain str; a "
                    "provider's own tool use is a ServerToolCall or a ServerToolResult)."
                )
            if block.kind not in _ALLOWED_KINDS[self.role]:
                allowed = ", ".join(sorted(_ALLOWED_KINDS[self.role]))
                raise UsageError(
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
        """The calls your code must run (a provider's own `ServerToolCall`s are not among them)."""
        return tuple(b for b in self.blocks if isinstance(b, ToolCall))

    @property
    def server_tool_calls(self) -> tuple[ServerToolCall, ...]:
        """The tools the provider ran itself in this reply (never yours to run)."""
        return tuple(b for b in self.blocks if isinstance(b, ServerToolCall))

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

    def _repr_html_(self) -> str | None:
        return html_of(self)  # the views register it from above (`_display.py`)

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
        loaded = _loaded(cls, data)
        return loaded if loaded is not None else _checked_message(cls, data, path)


def _checked_message(cls: type[Message], data: Any, path: str) -> Message:
    """`Message.from_dict` field by field, each checked and named by its JSON path."""
    data = expect(data, dict, path, "a JSON object (a message)")
    role = read_field(data, "role", str, path, "'user' or 'assistant'")
    if role not in _ALLOWED_KINDS:
        raise TranscriptFormatError(f"{path}.role must be 'user' or 'assistant', got {role!r}.")
    blocks = read_field(data, "blocks", list, path, "a list of blocks")
    stamp = read_field(data, "created_at", str, path, "an ISO 8601 date and time")
    try:
        created_at = datetime.fromisoformat(stamp)
    except ValueError:
        raise TranscriptFormatError(f"{path}.created_at must be an ISO 8601 date and time "
                                    f"like '2025-01-31T12:00:00+00:00', got {stamp!r}.") from None
    blocks = tuple(block_from_dict(b, f"{path}.blocks[{i}]") for i, b in enumerate(blocks))
    message_id = read_field(data, "id", str, path, "a string (the message id)")
    synthetic = read_field(data, "synthetic", bool, path, "true or false", default=False)
    try:
        return cls(role, blocks, message_id, created_at, synthetic)
    except ValueError as exc:  # a role that is not user/assistant, a block in the wrong role
        raise TranscriptFormatError(f"{path}: {exc}") from None


def _loaded(cls: type[Message], data: Any) -> Message | None:
    """The message `data` holds when every field is exactly what belongs there, else None.

    The happy path of `Message.from_dict` (a saved transcript of 200,000 messages loads
    within 3x `json.loads`, `benchmarks/transcript_io.py`): the same checks as the checked
    path, as plain type tests, and no JSON path built. Anything else is None, and the
    checked path then names what is wrong and where.
    """
    if type(data) is not dict:
        return None
    try:
        role, items, stamp, message_id = data["role"], data["blocks"], data["created_at"], data["id"]
        synthetic = data.get("synthetic", False)
        if (type(role) is not str or role not in _ALLOWED_KINDS or type(items) is not list
                or type(stamp) is not str or type(message_id) is not str or type(synthetic) is not bool):
            return None
        blocks = []
        for item in items:
            block = loaded_block(item)
            if block is None:
                return None
            blocks.append(block)
        return cls(cast(Role, role), tuple(blocks), message_id, datetime.fromisoformat(stamp), synthetic)
    except (KeyError, ValueError):  # a key missing, a date that is not one, a block its role cannot send
        return None


def __getattr__(name: str) -> Any:
    # `Transcript` lived in this module before it had its own; it is still importable from
    # here. subtle: looked up on first use, because transcript.py imports Message from here.
    if name in ("Transcript", "TRANSCRIPT_FORMAT_VERSION"):
        from . import transcript

        return getattr(transcript, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
