"""OpenAI Chat Completions' stream half: chunks in, the kit's events out.

`decode_stream(raw_events)` reads a streamed `/v1/chat/completions` reply (`"stream":
true`), pure and with no I/O. A raw event is one chunk (`object:
"chat.completion.chunk"`), the `data` JSON of one server-sent event, as a dict: what the
openai SDK's `client.chat.completions.create(..., stream=True)` yields as objects
(`chunk.to_dict()`; its `chat.completions.stream()` helper wraps each chunk in an event of
its own, whose `.chunk` is the one to pass). The SDK stops at `data: [DONE]`, and so does
a stream of raw events. Chat has no event names and no block boundaries; its grammar (the
API reference's `CreateChatCompletionStreamResponse` and the recorded streams in the
openai-python tests):

    {"choices": [{"delta": {"role": "assistant", "content": ""}}]}   the first chunk
    {"choices": [{"delta": {"content": "It is"}}]}                    text, in pieces
    {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": ""}}]}}]}   a call begins
    {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\\"ci"}}]}}]}
    {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}       the reply is complete
    {"choices": [], "usage": {...}}        with stream_options.include_usage, just before [DONE]

A call is known by its `index`, and its id and name come once, in its first piece. Local
servers bend that, so the pieces are joined by what they mean:

- a whole call in one chunk (Ollama's /v1, `openai/openai.go` `ToToolCalls`) is one
  piece like any other;
- an `index` seen again with another id is a new call (litellm's Ollama translator put
  index 0 on every call: BerriAI/litellm#33678);
- a piece with no `index` continues the last call, or begins one when it has a new id
  (Ollama before v0.4.7 sent none: ollama/ollama#7881);
- an id or a name sent again is kept once (llama.cpp resent both in every piece before
  ggml-org/llama.cpp#13800), and a name sent again longer replaces the shorter
  (llama.cpp's `common_chat_msg_diff` resends a grown name whole).

The reply is complete at the first choice's `finish_reason`: nothing it carries may come
after (a call there is refused). Its usage comes after it, only when the request asked
with `stream_options: {"include_usage": true}` (the kit's provider always does): "an
additional chunk will be streamed before the `data: [DONE]` message", with `choices: []`,
and "all other chunks will also include a `usage` field, but with a null value", so a
stream that carries `"usage": null` and stops before the usage chunk was cut off ("If the
stream is interrupted, you may not receive the final usage chunk": the spec's
`ChatCompletionStreamOptions`), an `IncompleteStreamError`, never a reply that cost 0
tokens. A stream that asked for no usage has none: its `Turn`'s usage is 0, as the API
sent nothing to count. A stream that ends without `[DONE]` after the end is complete (the
SDK accepts it). Every block finishes then, since Chat never says when one ends. The
final `Turn` is `decode_response` of the rebuilt completion, so `finish_reason: "length"`
inside a call's arguments gives stop reason max_tokens and a malformed call, never run.

>>> chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-6-luna"}
>>> events = [{**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}]},
...           {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
...           {**chunk, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 1}}]
>>> for event in decode_stream(events):
...     print(event)
[0] text += 'Hi'
[0] finished: TextBlock('Hi')
done [end_turn]: 1 block, 9 tokens in, 1 out

Left out: choices other than the first (`n > 1`), logprobs, and audio.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

from ...stream import StreamEvent
from ...turn import Turn
from .._shared import json_text
from .._stream import Assembly, Pieces, decode
from ._blocks import PROVIDER_NAME, text_of
from .client import _THINK, decode_response

__all__ = ["decode_stream"]


def decode_stream(raw_events: Iterable[Mapping[str, Any]]) -> Iterator[StreamEvent]:
    """The kit's events for a streamed Chat Completions reply, ending in `StreamFinished(turn)`.

    Raises `IncompleteStreamError` when the stream stops before the first choice's
    `finish_reason` (or, when its chunks say the usage was asked for, before the usage
    chunk), or sends an error object (vLLM sends `data: {"error": ...}`), and
    `MalformedResponseError` for a chunk that adds to the reply after its finish, or a field
    of the wrong type.
    """
    return decode(raw_events, _Reader(), provider=PROVIDER_NAME)


class _Reader:
    """Rebuilds the completion's first choice from its chunks, and says each piece through the assembly."""

    def __init__(self) -> None:
        self.completion: dict[str, Any] = {}
        self.message: dict[str, Any] = {"role": "assistant", "content": None}
        self.said = Pieces()  # the message's texts, and each call's arguments ("call", slot), so far
        self.calls: list[dict[str, Any]] = []
        self.finish_reason: str | None = None
        self._by_index: dict[int | None, int] = {}  # the wire's index -> the call it names now
        self._usage_asked = False  # a chunk said "usage": null: the usage chunk is due
        self._usage_in = False     # a usage came with the finish or after it
        self._think = _Think()     # a Qwen3-style <think> prefix of the content, told apart

    @property
    def END(self) -> str:
        if self.finish_reason is not None and self._usage_asked and not self._usage_in:
            return "the usage chunk (stream_options.include_usage)"
        return "a finish_reason"

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None and (self._usage_in or not self._usage_asked)

    def trailing(self, raw: Mapping[str, Any]) -> bool:
        """After the end, only chunks that carry none of the reply: the usage, an empty delta."""
        choices = raw.get("choices")
        return not isinstance(choices, list) or not any(  # subtle: a wrong type is read's to name
            _carries(choice) for choice in choices
            if isinstance(choice, Mapping) and choice.get("index") in (0, None))

    def read(self, raw: Mapping[str, Any], kit: Assembly) -> Iterator[StreamEvent]:
        if raw.get("error") or raw.get("object") == "error":
            error = raw["error"] if isinstance(raw.get("error"), Mapping) else raw
            said = error.get("message") or raw.get("error")
            raise kit.broke(f"{error.get('type') or error.get('code') or 'error'}: {said}")
        for key in ("id", "created", "model", "system_fingerprint", "service_tier"):
            if key in raw and key not in self.completion:
                self.completion[key] = raw[key]
        self._usage_asked = self._usage_asked or ("usage" in raw and raw["usage"] is None)
        for n, choice in enumerate(kit.listed(raw, "choices")):
            within = f"choices[{n}]"
            if not isinstance(choice, Mapping):
                raise kit.wrong(within, choice, "an object")
            if kit.number(choice, "index", within=within) not in (0, None):
                continue  # n > 1: the kit reads the first choice, as decode_response does
            if self.finish_reason is not None and _carries(choice):
                raise kit.late("a finish_reason")  # subtle: the usage chunk may still be due
            yield from self._delta(kit.mapping(choice, "delta", within=within), f"{within}.delta", kit)
            if (finish := kit.string(choice, "finish_reason", within=within)) and self.finish_reason is None:
                yield from self._finish(finish, kit)
        if usage := kit.mapping(raw, "usage"):
            self.completion["usage"] = usage  # the last one counts (vLLM can send one per chunk)
            self._usage_in = self.finish_reason is not None

    def _finish(self, finish_reason: str, kit: Assembly) -> Iterator[StreamEvent]:
        """The reply is complete: a `<think>` still held is text, and every call's arguments are in."""
        self.finish_reason = finish_reason
        yield from _said(self._think.end(), kit)
        for slot in range(len(self.calls)):
            kit.whole(("call", slot))  # (what a cut before the usage chunk then reports)

    def _delta(self, delta: Mapping[str, Any], path: str, kit: Assembly) -> Iterator[StreamEvent]:
        # subtle: a server may send the reasoning under both names, the same text twice; as
        # decode_response does, reasoning_content is read first and the other only without it
        reasoning = (kit.string(delta, "reasoning_content", within=path)
                     or kit.string(delta, "reasoning", within=path))
        if reasoning:
            yield from _said(self._think.end(), kit)  # beside a reasoning field, no <think> is split out
            self.said.add("reasoning_content", reasoning)
            yield kit.reasoning("reasoning", reasoning)
        if content := _text(delta, path, "content", kit):
            self.said.add("content", content)
            yield from _said(self._think.feed(content), kit)
        if refusal := _text(delta, path, "refusal", kit):
            self.said.add("refusal", refusal)
            yield kit.text("refusal", refusal)
        for n, piece in enumerate(kit.listed(delta, "tool_calls", within=path)):
            if not isinstance(piece, Mapping):
                raise kit.wrong(f"{path}.tool_calls[{n}]", piece, "an object")
            yield from self._call_piece(piece, f"{path}.tool_calls[{n}]", kit)

    def _call_piece(self, piece: Mapping[str, Any], path: str, kit: Assembly) -> Iterator[StreamEvent]:
        """One tool_calls entry of a delta, joined to the call it belongs to (see the module docstring)."""
        function = kit.mapping(piece, "function", within=path)
        call_id = kit.string(piece, "id", within=path)
        name = kit.string(function, "name", within=f"{path}.function")
        index = kit.number(piece, "index", within=path)
        slot = self._slot(index, call_id)
        if slot is None:
            slot = len(self.calls)
            self.calls.append({"id": call_id, "type": "function", "function": {"name": name}})
            yield kit.call(("call", slot), call_id, name)
        self._by_index[index] = slot
        call = self.calls[slot]
        call["id"] = call["id"] or call_id
        old = call["function"]["name"]
        if name and name != old:
            # subtle: a name sent again whole is kept once, a longer one replaces a prefix of it;
            # only a piece that continues nothing is joined on (as the SDK joins every string).
            call["function"]["name"] = name if name.startswith(old) else old + name
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping):  # a few servers send the object itself, whole
            arguments = json_text(arguments)
        elif arguments is not None and not isinstance(arguments, str):
            raise kit.wrong(f"{path}.function.arguments", arguments, "a string of JSON")
        if arguments:
            self.said.add(("call", slot), arguments)
            yield kit.arguments(("call", slot), arguments)

    def _slot(self, index: int | None, call_id: str) -> int | None:
        """The call a piece continues, or None when it begins one.

        e.g. index 0 again with id "call_2" after "call_1" at index 0 -> None (a new call);
        no index and no id -> the last call.
        """
        if index is None:
            if call_id:
                return next((at for at, call in enumerate(self.calls) if call["id"] == call_id), None)
            return len(self.calls) - 1 if self.calls else None
        slot = self._by_index.get(index)
        if slot is not None and call_id and self.calls[slot]["id"] not in ("", call_id):
            return None
        return slot

    def turn(self) -> Turn:
        message = dict(self.message)
        for field in ("reasoning_content", "content", "refusal"):
            if field in self.said:
                message[field] = self.said[field]
        if self.calls:
            message["tool_calls"] = [{**call, "function": {**call["function"], "arguments":
                                                           self.said.get(("call", slot))}}
                                     for slot, call in enumerate(self.calls)]
        choice = {"index": 0, "message": message, "finish_reason": self.finish_reason}
        return decode_response({"object": "chat.completion", **self.completion, "choices": [choice]})


def _text(delta: Mapping[str, Any], within: str, field: str, kit: Assembly) -> str:
    """The text of a delta's content or refusal: a string, or text parts (a few servers send those)."""
    value = delta.get(field)
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, list) and all(isinstance(part, Mapping) and isinstance(
            part.get("text") or part.get("refusal") or "", str) for part in value):
        return text_of(value)
    raise kit.wrong(f"{within}.{field}", value, "a string or a list of text parts")


def _carries(choice: Mapping[str, Any]) -> bool:
    """Whether a choice's delta carries any of the reply: text, reasoning, a refusal, a call."""
    delta = choice.get("delta")
    return isinstance(delta, Mapping) and any(delta.get(field) for field in _CARRIED)


#: The delta fields that are the reply itself (the role, and nulls, are not).
_CARRIED = ("content", "refusal", "reasoning_content", "reasoning", "tool_calls")


class _Think:
    """A Qwen3-style `<think>...</think>` at the start of the content, told apart as it streams.

    Without a reasoning parser, vLLM and llama.cpp leave the model's thinking in `content`,
    and `decode_response` takes it out as reasoning (`client._THINK`), unless the message has
    a reasoning field. The stream must say the same, but cannot know the tag is closed before
    `</think>` arrives: so what could still open one (whitespace, "<thi") is held, then the
    whole thought until `</think>`, which is said then as one reasoning delta (stripped, as
    `decode_response` strips it) and the rest as text; held content the reply ends inside
    (or a reasoning field arrives beside) was text after all, and is said as text.

    >>> think = _Think()
    >>> think.feed("<thi"), think.feed("nk>Paris, so"), think.feed(" sunny.</think>\\n\\nIt is")
    ([], [], [('reasoning', 'Paris, so sunny.'), ('text', 'It is')])
    >>> think.feed(" 18°C")
    [('text', ' 18°C')]
    """

    def __init__(self) -> None:
        self.state: Literal["open", "think", "after", "text"] = "open"
        self._held: list[str] = []
        self._tail = ""  # the last characters held, where a "</think>" cut in two begins

    def feed(self, piece: str) -> list[tuple[str, str]]:
        """What to say now for one piece of content: ("reasoning" or "text", its text) pairs."""
        if self.state == "text":
            return [("text", piece)]
        if self.state == "after":  # subtle: the whitespace after </think> is the tag's (_THINK's `\s*`)
            piece = piece.lstrip()
            self.state = "text" if piece else "after"
            return [("text", piece)] if piece else []
        self._held.append(piece)
        if self.state == "open":
            start = "".join(self._held).lstrip()  # subtle: short, whitespace and at most "<think"
            if "<think>".startswith(start):
                return []
            if not start.startswith("<think>"):
                return self.end()
            self.state, self._tail = "think", ""
            piece = "".join(self._held)
        seen = self._tail + piece
        if "</think>" not in seen:
            self._tail = seen[-len("</think>"):]
            return []
        return self._split()

    def _split(self) -> list[tuple[str, str]]:
        held, self._held = "".join(self._held), []
        found = _THINK.match(held)
        if found is None:  # cannot be: the held text opens with <think> and holds </think>
            self.state = "text"
            return [("text", held)]
        thought, rest = found.group(1).strip(), held[found.end():]
        self.state = "text" if rest else "after"
        return [(kind, text) for kind, text in (("reasoning", thought), ("text", rest)) if text]

    def end(self) -> list[tuple[str, str]]:
        """No `</think>` is coming (the reply ended, a reasoning field came, no tag opened): what
        was held is text."""
        held, self._held = "".join(self._held), []
        if self.state in ("open", "think"):
            self.state = "text"
        return [("text", held)] if held else []


def _said(pairs: list[tuple[str, str]], kit: Assembly) -> Iterator[StreamEvent]:
    """The kit's events for what `_Think` says."""
    for kind, text in pairs:
        yield kit.reasoning("reasoning", text) if kind == "reasoning" else kit.text("text", text)
