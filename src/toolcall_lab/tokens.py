"""Counting tokens without a tokenizer, and why a loop's input grows with its square.

`estimate_tokens` is the rule of thumb of about four characters per token for English
text. It is fine for budgets and for the shape of a cost curve; real counts differ by
model and language (code and non-English text use more tokens per character), so use a
provider's token-counting endpoint when the number itself matters.

The model keeps nothing between calls, so call i of a loop re-sends the first request
(h0 tokens: system prompt, tool definitions, question) plus the i - 1 steps added since
(t tokens each: a tool call and its result). Summed over n calls:

    total input = n*h0 + t*n*(n-1)/2

The first term is linear; the second grows with the square of n.

`request_tokens` is the same estimate as `estimate_tokens(request_text(...))` without
re-writing the whole conversation as JSON on every call: each (frozen) message is measured
once and its length remembered, so a 1,000-call loop adds numbers instead of serialising a
million messages. The tokens still grow with the square of n; the kit's own work does not.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._json import compact
from .blocks import Block, block_to_dict
from .errors import UsageError
from .messages import Message
from .transcript import Transcript

if TYPE_CHECKING:
    from .tool import Tool

__all__ = ["blocks_text", "estimate_tokens", "loop_input_tokens", "loop_input_total", "message_chars",
           "request_text", "request_tokens"]

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About one token per four characters, rounded up; 0 for the empty string.

    >>> estimate_tokens("What's the weather in Paris?")  # 28 characters
    7
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def blocks_text(blocks: Sequence[Block]) -> str:
    """Blocks as compact JSON: how the scripted provider sizes a reply.

    A reply is measured exactly as it will be measured again when the next call re-sends
    it inside `request_text`, so output and re-sent input agree.

    >>> from toolcall_lab import TextBlock
    >>> blocks_text([TextBlock("Hi")])
    '[{"kind":"text","text":"Hi"}]'
    """
    return compact([block_to_dict(b) for b in blocks])


def request_text(transcript: Transcript, tools: Sequence[Tool] = ()) -> str:
    """Everything one call sends, as compact JSON: system prompt, every message, every tool.

    Message ids and timestamps are left out: they are yours, never sent to a model.
    The scripted provider estimates a call's input tokens from this text.
    """
    payload = {
        "system": transcript.system or "",
        "messages": [_message_dict(m) for m in transcript.messages],
        "tools": [t.spec() for t in tools],
    }
    return compact(payload)


def _message_dict(message: Message) -> dict[str, object]:
    return {"role": message.role, "content": [block_to_dict(b) for b in message.blocks]}


#: id(message) -> (a weak reference to it, the length of its compact JSON). Keyed by id
#: because a Message holding a tool call's argument dict cannot be hashed; the weak
#: reference drops the entry when the message is freed, so a reused id is never misread.
_MEASURED: dict[int, tuple[weakref.ref[Message], int]] = {}


def _forget(key: int) -> weakref.ref[Message] | None:  # the weak reference's callback
    _MEASURED.pop(key, None)
    return None


def message_chars(message: Message) -> int:
    """Characters `message` takes inside `request_text`, measured once per message object.

    Safe because a Message is frozen: its JSON never changes after it is built.

    >>> message_chars(Message.user("Hi"))  # {"role":"user","content":[{"kind":"text","text":"Hi"}]}
    55
    """
    key = id(message)
    seen = _MEASURED.get(key)
    if seen is not None and seen[0]() is message:
        return seen[1]
    chars = len(compact(_message_dict(message)))
    _MEASURED[key] = (weakref.ref(message, lambda _: _forget(key)), chars)
    return chars


def request_tokens(transcript: Transcript, tools: Sequence[Tool] = (), *,
                   messages_chars: int | None = None) -> int:
    """`estimate_tokens(request_text(transcript, tools))`, from each message's remembered length.

    The compact JSON of the request is its parts joined by fixed punctuation, so its length
    is the sum of theirs: '{"system":' S ',"messages":[' m1 ',' m2 ... '],"tools":' T '}'.
    `messages_chars`, when the caller keeps a running total, is `sum(message_chars(m) for m
    in transcript.messages)`, so even that sum is not redone on every call of a loop.

    >>> t = Transcript("Be brief.", [Message.user("Hi"), Message.assistant("Hello!")])
    >>> request_tokens(t) == estimate_tokens(request_text(t))
    True
    """
    count = len(transcript.messages)
    if messages_chars is None:
        messages_chars = sum(map(message_chars, transcript.messages))
    chars = (len('{"system":,"messages":[],"tools":}')  # the fixed punctuation: 34 characters
             + len(compact(transcript.system or ""))
             + messages_chars + max(count - 1, 0)  # one comma between two messages
             + len(compact([t.spec() for t in tools])))
    return math.ceil(chars / CHARS_PER_TOKEN)


def loop_input_tokens(n: int, h0: int, t: int) -> list[int]:
    """Input tokens billed on each of `n` calls: call i re-sends `h0` plus i - 1 steps of `t`.

    >>> loop_input_tokens(4, 2000, 500)  # 2000 + 0, + 500, + 1000, + 1500
    [2000, 2500, 3000, 3500]
    """
    if n < 0 or h0 < 0 or t < 0:
        raise UsageError(f"n, h0 and t must be >= 0, got {n}, {h0}, {t}")
    return [h0 + i * t for i in range(n)]


def loop_input_total(n: int, h0: int, t: int) -> int:
    """The closed form of `sum(loop_input_tokens(n, h0, t))`: n*h0 + t*n(n-1)/2.

    >>> loop_input_total(10, 2000, 500)  # 10*2000 + 500*45 = 20,000 + 22,500
    42500
    """
    if n < 0 or h0 < 0 or t < 0:
        raise UsageError(f"n, h0 and t must be >= 0, got {n}, {h0}, {t}")
    # subtle: n*(n-1) is always even, so // loses nothing.
    return n * h0 + t * n * (n - 1) // 2
