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
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .messages import Block, Transcript, block_to_dict

if TYPE_CHECKING:
    from .tool import Tool

__all__ = ["blocks_text", "estimate_tokens", "loop_input_tokens", "loop_input_total", "request_text"]

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About one token per four characters, rounded up; 0 for the empty string.

    >>> estimate_tokens("What's the weather in Paris?")  # 28 characters
    7
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _compact_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def blocks_text(blocks: Sequence[Block]) -> str:
    """Blocks as compact JSON: how the scripted provider sizes a reply.

    A reply is measured exactly as it will be measured again when the next call re-sends
    it inside `request_text`, so output and re-sent input agree.

    >>> from toolcall_lab import TextBlock
    >>> blocks_text([TextBlock("Hi")])
    '[{"kind":"text","text":"Hi"}]'
    """
    return _compact_json([block_to_dict(b) for b in blocks])


def request_text(transcript: Transcript, tools: Sequence[Tool] = ()) -> str:
    """Everything one call sends, as compact JSON: system prompt, every message, every tool.

    Message ids and timestamps are left out: they are yours, never sent to a model.
    The scripted provider estimates a call's input tokens from this text.
    """
    payload = {
        "system": transcript.system or "",
        "messages": [
            {"role": m.role, "content": [block_to_dict(b) for b in m.blocks]}
            for m in transcript.messages
        ],
        "tools": [t.spec() for t in tools],
    }
    return _compact_json(payload)


def loop_input_tokens(n: int, first: int, per_step: int) -> list[int]:
    """Input tokens billed on each of `n` calls: call i re-sends `first` plus i - 1 steps.

    >>> loop_input_tokens(4, 2000, 500)  # 2000 + 0, + 500, + 1000, + 1500
    [2000, 2500, 3000, 3500]
    """
    if n < 0 or first < 0 or per_step < 0:
        raise ValueError(f"n, first and per_step must be >= 0, got {n}, {first}, {per_step}")
    return [first + i * per_step for i in range(n)]


def loop_input_total(n: int, first: int, per_step: int) -> int:
    """The closed form of `sum(loop_input_tokens(n, first, per_step))`: n*h0 + t*n(n-1)/2.

    >>> loop_input_total(10, 2000, 500)  # 10*2000 + 500*45 = 20,000 + 22,500
    42500
    """
    if n < 0 or first < 0 or per_step < 0:
        raise ValueError(f"n, first and per_step must be >= 0, got {n}, {first}, {per_step}")
    # subtle: n*(n-1) is always even, so // loses nothing.
    return n * first + per_step * n * (n - 1) // 2
