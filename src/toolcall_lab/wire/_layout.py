"""A prompt, block by block: the prefixes a prompt cache names, and the tokens each one holds.

A prompt cache keeps the model's work on a prompt's *prefix*, so a later request that
starts the same way pays less for that part. The prompt is read in the order tools ->
system -> messages, one *block* at a time (a tool, a system text, a content block). Every
block ends a prefix (a `Boundary`), named by a hash of everything up to and including it
(the bytes of the request, `cache_control` left out), and measured in tokens the way the
double counts all input: the scripted estimate of about 4 characters per token
(`tokens.request_text`), plus any hidden prompt the API bills (`Layout(offset)`). So the
prefix that ends with the last block is exactly the request's `input_tokens`.

`kit_layout` lays out a conversation in the kit's own shape (what OpenAI's automatic cache
reads); an API that caches where the request says lays out its own body
(`wire/anthropic/caching.py`). Each API's server half decides what it reads and writes
(`cache_usage`), in the `Prefixes` the double keeps (`double/cache.py`: the spaces, the
clock, the lifetimes).

Left out: a real tokenizer (the kit's estimate stands in for every API's).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .._json import compact
from ..blocks import block_to_dict
from ..tokens import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from ..messages import Message
    from ..tool import Tool
    from ..transcript import Transcript

__all__ = ["HOUR", "MINUTE", "Boundary", "Layout", "Prefixes", "kit_layout", "message_head"]

MINUTE, HOUR = 60.0, 3600.0


class Prefixes(Protocol):
    """Where a server half reads and writes the prefixes it caches (the double's `PromptCache`).

    `space` names one cache (an API and a model, say, and on OpenAI a `prompt_cache_key`);
    `key` is a prefix's hash (`Boundary.key`), `lifetime` how many seconds it lives unused.
    """

    def held(self, space: tuple[str, ...], key: str) -> bool:
        """Whether `space` holds the prefix `key`, not expired; a read starts its lifetime again."""
        ...

    def keep(self, space: tuple[str, ...], key: str, lifetime: float) -> None:
        """Store the prefix `key` in `space` for `lifetime` seconds from now."""
        ...


class Boundary(NamedTuple):
    """The end of one block of the prompt: the prefix's hash, its tokens, and where it is."""

    key: str
    tokens: int
    where: str


class Layout:
    """Walks a prompt block by block, keeping the running hash and character count.

    The characters are those `tokens.request_text` spends on each part, so the prefix
    that ends with the last block holds exactly the request's estimated tokens.
    """

    def __init__(self, offset: int) -> None:
        self.offset = offset  # tokens before any character: the hidden tool prompt
        self.chars = len('{"system":,"messages":[],"tools":}')  # request_text's fixed punctuation
        self.hash = hashlib.sha256()
        self.boundaries: list[Boundary] = []

    def add(self, chars: int, hashed: object = None) -> None:
        self.chars += chars
        if hashed is not None:
            self.hash.update(compact(hashed).encode())

    def boundary(self, where: str) -> int:
        tokens = self.offset + math.ceil(self.chars / CHARS_PER_TOKEN)
        self.boundaries.append(Boundary(self.hash.copy().hexdigest(), tokens, where))
        return len(self.boundaries) - 1

    def tools(self, specs: Sequence[Mapping[str, Any] | None], hashed: Sequence[object]) -> None:
        """One boundary per tool on the wire; `None` for a provider's own tool (web search, ...).

        subtle: the kit's token estimate counts only your tools, so a provider's own tool adds
        no characters, but it is in the prefix's hash: changing it invalidates the cache.
        """
        counted = [spec for spec in specs if spec is not None]
        self.add(1 if counted else 2)  # "[" (or "[]": no tools of yours)
        seen = 0
        for index, (spec, item) in enumerate(zip(specs, hashed, strict=True)):
            if spec is None:
                self.add(0, {"server_tool": item})
            else:
                self.add(len(compact(spec)) + (seen > 0) + (seen == len(counted) - 1), {"tool": item})
                seen += 1
            self.boundary(f"tools.{index}")

    def system(self, texts: Sequence[str], hashed: Sequence[object]) -> None:
        self.add(2)  # the quotes of the system string, "" when there is none
        shown = 0
        for index, item in enumerate(hashed):
            whole = len(compact("\n".join(texts[: index + 1]))) - 2
            self.add(whole - shown, {"system": item})
            shown = whole
            self.boundary("system" if len(hashed) == 1 else f"system.{index}")


def message_head(role: str) -> int:
    return len(f'{{"role":{compact(role)},"content":[')


def kit_layout(transcript: Transcript, tools: Sequence[Tool]) -> list[Boundary]:
    """Every block boundary of a conversation in the kit's own shape (OpenAI's automatic cache).

    >>> from toolcall_lab import Message, Transcript
    >>> from toolcall_lab.tokens import request_tokens
    >>> t = Transcript("Be brief.", [Message.user("Hi"), Message.assistant("Hello!")])
    >>> [b.where for b in kit_layout(t, [])], kit_layout(t, [])[-1].tokens == request_tokens(t)
    (['system', 'messages.0.content.0', 'messages.1.content.0'], True)
    """
    layout = Layout(0)
    specs = [t.spec() for t in tools]
    layout.tools(specs, specs)
    texts = [transcript.system] if transcript.system else []
    if texts:
        layout.system(texts, texts)
    else:
        layout.add(2)
    for number, message in enumerate(transcript.messages):
        _kit_message(layout, number, message)
    return layout.boundaries


def _kit_message(layout: Layout, number: int, message: Message) -> None:
    layout.add(message_head(message.role) + (number > 0), {"role": message.role})
    for position, block in enumerate(message.blocks):
        data = block_to_dict(block)
        layout.add(len(compact(data)) + (position > 0) + 2 * (position == len(message.blocks) - 1), data)
        layout.boundary(f"messages.{number}.content.{position}")
    if not message.blocks:
        layout.add(2)
