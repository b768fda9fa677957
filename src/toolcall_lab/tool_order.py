"""Tools in a stable order, so the prompt cache matches from one request to the next.

A prompt cache matches the request's *bytes* from the start, and the tools come first:
"The cache follows a prefix hierarchy (tools → system → messages), so a change at one level
invalidates that level" and what follows it
(https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching;
the double lays prompts out the same way, `wire/_layout.py`).
Tools gathered in an order that changes (from a `set` of names, whose order changes from
one process to the next with string hashing; MCP servers reconnecting in another order;
plugins loaded as they come) make every request a new prefix, and the cache
is never read (zeroclaw-labs/zeroclaw#10959, as issue 31 reports it).

`run_agent` sends the tools in the order it is given them, the same on every call of a
run: registration order, stable as long as the registration is. Tools put together from
several places (servers, plugins, a set of names) go through `stable_order` first: sorted
by name, the one order that does not depend on how they arrived.

    >>> from toolcall_lab.tools import calculator, get_weather, search_kb
    >>> [t.name for t in stable_order([search_kb, get_weather, calculator])]
    ['calculator', 'get_weather', 'search_kb']

Left out: keeping the *contents* of each tool stable (a description with today's date in it
changes the bytes just the same), and other orders (by how often a tool is used) that a
cache would match equally well as long as they do not change.
"""

from __future__ import annotations

from collections.abc import Iterable

from .tool import Tool, tool_map

__all__ = ["stable_order"]


def stable_order(tools: Iterable[Tool]) -> tuple[Tool, ...]:
    """`tools` sorted by name: the same tuple whatever order they came in (names are unique)."""
    by_name = tool_map(tools)  # subtle: also refuses two tools of one name, which no order could fix
    return tuple(by_name[name] for name in sorted(by_name))
