"""The kinds of block a message is made of, and their JSON.

- `TextBlock`: words, from the user or the model;
- `ToolCall`: the model asking your code to run a tool, with the arguments it sent;
- `ToolResult`: your code's answer to one call, matched by the call's id;
- `ReasoningBlock`: the model's reasoning, with whatever a provider needs to get it back;
- `ServerToolCall` and `ServerToolResult`: a tool the *provider* ran (a web search, say)
  and what it found, both reported in the model's reply. Your code never runs them.

Each is a small frozen dataclass with a `kind` discriminator, so code that handles
blocks can `match` on them and end with `assert_never` (a new kind then fails loudly
everywhere it is not handled yet). `block_to_dict` and `block_from_dict` turn a block
into the kit's own neutral JSON shape and back, exactly.

Text is checked where it enters: a lone surrogate (half of a UTF-16 pair, e.g. from a
JSON ``"\\ud83d"`` escape in a tool result or an API reply) cannot be encoded as UTF-8,
so it would make every later save and every provider call fail. Blocks replace each one
with U+FFFD (the replacement character, "�") when they are built or loaded; a proper
pair becomes the one character it stands for.

A model's arguments are checked where they enter too (`read_arguments`, `arguments_problem`):
text that is not a JSON object, an object nested more than `MAX_NESTING` levels deep, or one
holding a number JSON has no spelling for (NaN, Infinity, or 1e999, which Python reads as
infinity) makes a *malformed* call, which the loop answers with an error result the model
can act on, instead of a transcript that can no longer be saved or sent.

Left out on purpose: images, documents and citations. Blocks carry text, tool calls,
tool results, reasoning and the provider's own tool use, which is all the lessons need.
Who may send which block is `Message`'s business (`messages.py`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

from ._checked import expect, read_field
from ._text import shorten
from .errors import TranscriptFormatError, UsageError

__all__ = [
    "MAX_NESTING",
    "NOT_AN_OBJECT",
    "Block",
    "ReasoningBlock",
    "ServerBlock",
    "ServerToolCall",
    "ServerToolResult",
    "TextBlock",
    "ToolCall",
    "ToolResult",
    "arguments_problem",
    "block_from_dict",
    "block_to_dict",
    "clean_text",
    "loaded_block",
    "read_arguments",
]

REPR_TEXT = 60  # characters of text a repr shows before it shortens
MAX_NESTING = 100  # levels of lists and objects tool arguments may nest (real ones use 2 or 3)
#: What `read_arguments` says of text that is not a JSON object at all (the other problems
#: are of an object: too deep, or a number JSON cannot write).
NOT_AN_OBJECT = ("they are not valid JSON", "they are not a JSON object")


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


def arguments_problem(args: object, depth: int = 0) -> str | None:
    """Why `args` cannot be a tool call's arguments, in words for the model; None when they can.

    >>> arguments_problem({"city": "Paris"}) is None
    True
    >>> arguments_problem({"x": [1, float("nan")]})
    'they hold a number JSON cannot write (NaN, Infinity, or one too large such as 1e999)'
    """
    if depth > MAX_NESTING:
        return f"they nest more than {MAX_NESTING} levels deep"
    if depth == 0 and not isinstance(args, Mapping):
        return NOT_AN_OBJECT[1]
    if isinstance(args, float) and not math.isfinite(args):
        return "they hold a number JSON cannot write (NaN, Infinity, or one too large such as 1e999)"
    if isinstance(args, Mapping):
        items: Any = args.values()
    elif isinstance(args, list | tuple):
        items = args
    else:
        return None
    return next((found for item in items if (found := arguments_problem(item, depth + 1))), None)


def read_arguments(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments, None) from a model's JSON text, or (None, why they cannot be read).

    Never raises: text nested deeper than Python's recursion limit makes `json.loads`
    raise RecursionError, which is not a ValueError and would escape every handler.

    >>> read_arguments('{"city": "Paris"}')
    ({'city': 'Paris'}, None)
    >>> read_arguments('{"city": "Par'), read_arguments('{"x": NaN}')[1][:29]
    ((None, 'they are not valid JSON'), 'they hold a number JSON canno')
    """
    try:
        parsed = json.loads(text)
    except RecursionError:
        return None, f"they nest more than {MAX_NESTING} levels deep"
    except (TypeError, ValueError):
        return None, NOT_AN_OBJECT[0]
    problem = arguments_problem(parsed)
    return (None, problem) if problem else (parsed, None)


def _clean_json(value: Any, depth: int = 0) -> Any:
    """Tool arguments with every string (keys too) passed through `clean_text`."""
    if depth > MAX_NESTING:
        raise UsageError(f"args nest more than {MAX_NESTING} levels deep; tool arguments "
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
    not verify the block, and a foreign signature is an error, not a hint). Anthropic's
    thinking goes back only to the `model` that wrote it, too; `wire.foreign_reasoning`
    lists what a request leaves out, and why.
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


@dataclass(frozen=True)
class ServerToolCall:
    """A tool the provider ran on its own side (a web search, say), as the model called it.

    Not a request to your code: the provider has already run it, in the same reply, so a
    loop must never look it up among its own tools (`Message.tool_calls` leaves it out).
    `name` and `args` say what was run ("web_search", {"query": ...}); `opaque` is the
    wire item exactly as it came, replayed byte for byte, and only to the `provider` that
    made it (any other API gets nothing: it could not continue a search it never ran).

    >>> ServerToolCall("srvtoolu_01", "web_search", {"query": "Paris weather"}, "anthropic")
    ServerToolCall('srvtoolu_01', 'web_search', {'query': 'Paris weather'}, provider='anthropic')
    """

    id: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    provider: str | None = None
    opaque: Mapping[str, Any] = field(default_factory=dict)
    kind: Literal["server_tool_call"] = "server_tool_call"

    def __post_init__(self) -> None:
        if isinstance(self.args, Mapping):  # `opaque` is replayed byte for byte, so never touched
            _set(self, "args", _clean_json(self.args))

    def replayable_to(self, provider: str) -> bool:
        """Whether this block may be sent back to `provider` (only the one that ran it)."""
        return self.provider is not None and self.provider == provider

    def __repr__(self) -> str:
        provider = f", provider={self.provider!r}" if self.provider else ""
        return f"ServerToolCall({self.id!r}, {self.name!r}, {dict(self.args)!r}{provider})"


@dataclass(frozen=True)
class ServerToolResult:
    """What a tool the provider ran returned, matched to its `ServerToolCall` by `call_id`.

    It sits in the model's own reply, next to the call: nobody on your side wrote it.
    `content` is a readable digest (each search result's title and address, say);
    `opaque` is the wire block as it came (with the encrypted page text the model reads
    on the next call), replayed byte for byte to the `provider` that made it.
    `is_error` is True when the provider's tool failed (e.g. too many searches).
    """

    call_id: str
    content: str
    is_error: bool = False
    provider: str | None = None
    opaque: Mapping[str, Any] = field(default_factory=dict)
    kind: Literal["server_tool_result"] = "server_tool_result"

    def __post_init__(self) -> None:
        if isinstance(self.content, str):
            _set(self, "content", clean_text(self.content))

    def replayable_to(self, provider: str) -> bool:
        """Whether this block may be sent back to `provider` (only the one that ran it)."""
        return self.provider is not None and self.provider == provider

    def __repr__(self) -> str:
        error = ", is_error=True" if self.is_error else ""
        provider = f", provider={self.provider!r}" if self.provider else ""
        return f"ServerToolResult({self.call_id!r}, {_short(self.content)!r}{error}{provider})"


Block = TextBlock | ToolCall | ToolResult | ReasoningBlock | ServerToolCall | ServerToolResult
#: The blocks a provider's own tools leave in a reply (never run by your code).
ServerBlock = ServerToolCall | ServerToolResult


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
        case ServerToolCall(id=id_, name=name, args=args, provider=provider, opaque=opaque):
            return {"kind": "server_tool_call", "id": id_, "name": name, "args": dict(args),
                    "provider": provider, "opaque": dict(opaque)}
        case ServerToolResult(call_id=call_id, content=content, is_error=is_error, provider=provider,
                              opaque=opaque):
            return {"kind": "server_tool_result", "call_id": call_id, "content": content,
                    "is_error": is_error, "provider": provider, "opaque": dict(opaque)}
        case _:
            assert_never(block)


def block_from_dict(data: Mapping[str, Any], path: str = "block") -> Block:
    """The block `block_to_dict` made, e.g. {"kind": "text", "text": "Hi"} -> TextBlock('Hi').

    Every field is checked: a wrong one raises `TranscriptFormatError` naming its path,
    e.g. "block.text must be a string, got a number: 5".
    """
    loaded = loaded_block(data)
    return loaded if loaded is not None else _checked_block(data, path)


def _checked_block(data: Any, path: str) -> Block:
    """`block_from_dict` field by field, each checked and named by its JSON path."""
    data = expect(data, dict, path, "a JSON object (a block)")
    try:
        return _block_from_checked(data, path)
    except TranscriptFormatError:
        raise
    except ValueError as exc:  # arguments nested absurdly deep
        raise TranscriptFormatError(f"{path}: {exc}.") from None


def loaded_block(data: Any) -> Block | None:
    """The block `data` holds when every field is exactly what belongs there, else None.

    The happy path of `block_from_dict`, for a file of many thousand blocks: plain type
    checks and no path built. It accepts only what the checked path accepts, and builds the
    block the same way (so `__post_init__` still cleans the text); anything else, a missing
    key, a wrong type, an unknown kind, arguments nested too deep, is None, and the checked
    path then says what is wrong and where.

    >>> loaded_block({"kind": "text", "text": "Hi"}), loaded_block({"kind": "text", "text": 5})
    (TextBlock('Hi'), None)
    """
    if type(data) is not dict:
        return None
    # subtle: `type(x) is str`, not isinstance: JSON gives exact types, and a bool is never
    # taken for an int. A subclass, or anything unusual, goes the checked way.
    try:
        kind = data["kind"]
        if kind == "text":
            text = data["text"]
            return TextBlock(text) if type(text) is str else None
        if kind == "tool_call":
            id_, name, args, raw = data["id"], data["name"], data["args"], data.get("raw_args")
            if (type(id_) is str and type(name) is str and type(args) is dict
                    and (raw is None or type(raw) is str)):
                return ToolCall(id_, name, args, raw)
            return None
        if kind == "tool_result":
            call_id, content, is_error = data["call_id"], data["content"], data["is_error"]
            if type(call_id) is str and type(content) is str and type(is_error) is bool:
                return ToolResult(call_id, content, is_error)
            return None
        if kind == "reasoning":
            text, provider, model, opaque = data["text"], data["provider"], data["model"], data["opaque"]
            if (type(text) is str and (provider is None or type(provider) is str)
                    and (model is None or type(model) is str) and type(opaque) is dict):
                return ReasoningBlock(text, provider, model, opaque)
            return None
        # the provider's own tool use is rare enough to go the checked way
    except (KeyError, ValueError):  # a key missing; arguments nested too deep (UsageError)
        return None
    return None


def _block_from_checked(data: Mapping[str, Any], path: str) -> Block:
    text = "a string"
    match read_field(data, "kind", str, path, _KINDS):
        case "text":
            return TextBlock(read_field(data, "text", str, path, text))
        case "tool_call":
            return ToolCall(read_field(data, "id", str, path, text),
                            read_field(data, "name", str, path, text),
                            read_field(data, "args", dict, path, "a JSON object (the arguments)"),
                            read_field(data, "raw_args", str | None, path, "a string or null",
                                       default=None))
        case "tool_result":
            return ToolResult(read_field(data, "call_id", str, path, text),
                              read_field(data, "content", str, path, text),
                              read_field(data, "is_error", bool, path, "true or false"))
        case "reasoning":
            return ReasoningBlock(read_field(data, "text", str, path, text),
                                  read_field(data, "provider", str | None, path, "a string or null"),
                                  read_field(data, "model", str | None, path, "a string or null"),
                                  read_field(data, "opaque", dict, path, "a JSON object"))
        case "server_tool_call":
            return ServerToolCall(read_field(data, "id", str, path, text),
                                  read_field(data, "name", str, path, text),
                                  read_field(data, "args", dict, path, "a JSON object (the arguments)"),
                                  read_field(data, "provider", str | None, path, "a string or null"),
                                  read_field(data, "opaque", dict, path, "a JSON object"))
        case "server_tool_result":
            return ServerToolResult(read_field(data, "call_id", str, path, text),
                                    read_field(data, "content", str, path, text),
                                    read_field(data, "is_error", bool, path, "true or false"),
                                    read_field(data, "provider", str | None, path, "a string or null"),
                                    read_field(data, "opaque", dict, path, "a JSON object"))
        case other:
            raise TranscriptFormatError(f"{path}.kind is {other!r}; expected {_KINDS}.")


_KINDS = ("'text', 'tool_call', 'tool_result', 'reasoning', 'server_tool_call' or "
          "'server_tool_result'")
