"""From an MCP server's tool to the kit's `Tool`, and what the model reads of a tool's result.

A server lists each tool as a name, a description and an `inputSchema` (the SDK's Python
object spells it `input_schema`: SDK 2.x names fields in snake_case, the wire keeps
camelCase). Those three are exactly what a model is shown of any tool, so the kit's `Tool`
takes them as the server gave them, word for word; its function, instead of running code
here, sends `tools/call` to the server and returns what the server said:

    MCP (tools/list, tools/call)              the kit
    name                                      Tool.name (the APIs allow 64 characters of
                                              letters, digits, _ and -; MCP also allows "."
                                              and 128: such a name is refused, saying so)
    description (optional)                    Tool.description ("" when there is none)
    inputSchema                               Tool.input_schema (so `execute` checks the
                                              arguments before the server is asked)
    a result's content: text blocks           the result's text, joined by new lines
    ... an image, audio, a resource           a line saying what it was (the kit sends text)
    isError: true                             McpToolError -> execute's is_error result
    a JSON-RPC error                          McpToolError -> execute's is_error result

`screen` keeps what your program has read and allows: a tool is offered to the model only
when its name is on your allow-list *and* everything else the model reads of it, its
description and its input schema (a property's description, title, enum values, defaults),
is, character for character, what you read (a server can change its words at any time,
and a model does what they say).

Left out: `outputSchema` and `structuredContent` (the text a tool returns is what the model
reads; the MCP spec asks a tool with structured content to send it as text too), `title`,
`icons` and `annotations` (which the spec calls untrusted unless the server is).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import McpToolError, ToolDefinitionError, UsageTypeError
from ..tool import Tool

if TYPE_CHECKING:
    from .connection import McpConnection

__all__ = ["result_text", "screen", "tool_from_mcp"]


def tool_from_mcp(server_tool: Any, connection: McpConnection) -> Tool:
    """The kit's `Tool` for one tool `connection`'s server listed: its words as given, run by the server.

    The function raises `McpToolError` when the server answers `isError`, which `execute`
    turns into an error result the model can read (it names the server's words).
    """
    name = str(server_tool.name)

    def on_the_server(**arguments: Any) -> str:
        result = connection.call_tool(name, arguments)
        text = result_text(result)
        if result.is_error:
            raise McpToolError(f"the MCP server {connection.server_name!r} answered isError: {text}")
        return text

    try:
        return Tool(name, server_tool.description or "", dict(server_tool.input_schema), on_the_server)
    except ToolDefinitionError as exc:
        raise ToolDefinitionError(f"the MCP server {connection.server_name!r} lists a tool the APIs "
                                  f"cannot take as it is: {exc}") from None


def result_text(result: Any) -> str:
    """What the model reads of a `CallToolResult`: its text blocks, a line for each other block.

    >>> from mcp.types import CallToolResult, ImageContent, TextContent
    >>> print(result_text(CallToolResult(content=[TextContent(type="text", text="18°C"),
    ...     ImageContent(type="image", data="", mime_type="image/png")])))
    18°C
    (an image/png image the model is not shown)
    """
    lines = [_block_text(block) for block in result.content]
    if not lines and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(lines)


def _block_text(block: Any) -> str:
    match getattr(block, "type", None):
        case "text":
            return str(block.text)
        case "image" | "audio":
            return f"(an {block.mime_type} {block.type} the model is not shown)"
        case "resource_link":
            return f"(a link to the resource {block.uri})"
        case "resource":
            inner = block.resource
            return str(getattr(inner, "text", None) or f"(the resource {inner.uri}, not text)")
        case other:
            return f"(a {other} block the kit does not read)"


def screen(tools: Iterable[Tool], allowed: Mapping[str, str | Tool]) -> tuple[list[Tool], list[str]]:
    """(the tools to offer, one sentence for each left out): only a tool whose every word the
    model would read is one you read and allow.

    A model reads a tool's name, its description and its input schema, and a server can
    hide an instruction in any of them: a property's description or title, an enum value,
    a default. So `allowed` maps a name to what you read of that tool: the `Tool` itself
    (its description and its whole input schema must be exactly the ones you read), or
    only its description, a str (then the schema may hold no words at all: no string but
    its types, its required names and its `$ref`s).

    >>> from toolcall_lab.tools import calculator, get_weather
    >>> kept, left_out = screen([get_weather, calculator], {"get_weather": get_weather})
    >>> [t.name for t in kept], left_out
    (['get_weather'], ['calculator: not on the allow-list, so it is not offered'])
    """
    kept: list[Tool] = []
    left_out: list[str] = []
    for candidate in tools:
        if candidate.name not in allowed:
            left_out.append(f"{candidate.name}: not on the allow-list, so it is not offered")
            continue
        why = _unread(candidate, allowed[candidate.name])
        if why is None:
            kept.append(candidate)
        else:
            left_out.append(f"{candidate.name}: {why}, so it is not offered")
    return kept, left_out


def _unread(candidate: Tool, read: object) -> str | None:
    """What of `candidate` the model would read that is not what you read (`read`), or None."""
    if isinstance(read, str):
        description, schema = read, None
    elif isinstance(getattr(read, "description", None), str) and isinstance(
            getattr(read, "input_schema", None), Mapping):
        description, schema = read.description, read.input_schema  # type: ignore[attr-defined]
    else:
        raise UsageTypeError(f"an allow-list maps a tool's name to the Tool as you read it, or to its "
                             f"description (a str); got {type(read).__name__} for {candidate.name!r}.")
    if candidate.description != description:
        return (f"its description is not the one on the allow-list "
                f"({_differs(candidate.description, description)})")
    if schema is None:
        words = next(_words(candidate.input_schema, ()), None)
        if words is not None:
            text, where = words
            return (f"its input schema holds words the allow-list does not approve ({text!r} at "
                    f"{_path(where)}); allow the Tool as you read it to approve its schema too")
    elif not _same(candidate.input_schema, schema):
        where = _first_difference(candidate.input_schema, schema, ())
        return f"its input schema is not the one on the allow-list (they differ at {_path(where)})"
    return None


def _differs(given: str, read: str) -> str:
    """Where the server's words leave the ones you read, in a few words."""
    same = next((i for i, (a, b) in enumerate(zip(given, read, strict=False)) if a != b),
                min(len(given), len(read)))
    return f"they part at character {same + 1} of the server's {len(given)}"


#: The strings of a schema that are its structure, not words for the model: a type, a $ref.
_STRUCTURE = ("type", "$ref", "$schema")
#: The keywords whose keys are names (of properties, of definitions), each naming a schema.
_NAMED = ("properties", "$defs", "definitions", "patternProperties")


def _words(node: Any, where: tuple[Any, ...]) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """Each string in a schema the model would read as words, with its path; depth first.

    subtle: the keys of `properties` and `$defs` are names, not keywords (a property may be
    called "title"), and `required` lists those names; every other string is words.
    """
    if isinstance(node, str):
        yield node, where
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _words(item, (*where, index))
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if key in _STRUCTURE and isinstance(value, str | list):
                continue
            if key == "required" and isinstance(value, list) and all(isinstance(v, str) for v in value):
                continue
            if key in _NAMED and isinstance(value, Mapping):
                for name, inner in value.items():
                    yield from _words(inner, (*where, key, name))
                continue
            yield from _words(value, (*where, key))


def _same(given: Any, read: Any) -> bool:
    """Whether the model reads the same JSON in both (key order aside; 1 is not true, as in Python)."""
    return json.dumps(given, sort_keys=True) == json.dumps(read, sort_keys=True)


def _first_difference(given: Any, read: Any, where: tuple[Any, ...]) -> tuple[Any, ...]:
    """The path of the first place `given` and `read` differ (they do differ somewhere)."""
    if isinstance(given, Mapping) and isinstance(read, Mapping):
        for key in [*given, *(k for k in read if k not in given)]:
            if key not in given or key not in read or not _same(given[key], read[key]):
                return _first_difference(given.get(key), read.get(key), (*where, key))
    elif isinstance(given, list) and isinstance(read, list) and len(given) == len(read):
        for index, (a, b) in enumerate(zip(given, read, strict=True)):
            if not _same(a, b):
                return _first_difference(a, b, (*where, index))
    return where


def _path(where: tuple[Any, ...]) -> str:
    """A path in the schema the kit's way: properties.city.title ("the top" for the schema itself)."""
    return ".".join(map(str, where)) or "the top"
