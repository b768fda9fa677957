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
when its name is on your allow-list *and* its description is, character for character, the
one you read (a server can change its words at any time, and a model does what they say).

Left out: `outputSchema` and `structuredContent` (the text a tool returns is what the model
reads; the MCP spec asks a tool with structured content to send it as text too), `title`,
`icons` and `annotations` (which the spec calls untrusted unless the server is).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import McpToolError, ToolDefinitionError
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


def screen(tools: Iterable[Tool], allowed: Mapping[str, str]) -> tuple[list[Tool], list[str]]:
    """(the tools to offer, one sentence for each left out): only a name on `allowed` whose
    description is exactly the one `allowed` gives it.

    >>> from toolcall_lab.tools import calculator, get_weather
    >>> kept, left_out = screen([get_weather, calculator], {"get_weather": get_weather.description})
    >>> [t.name for t in kept], left_out
    (['get_weather'], ['calculator: not on the allow-list, so it is not offered'])
    """
    kept: list[Tool] = []
    left_out: list[str] = []
    for candidate in tools:
        if candidate.name not in allowed:
            left_out.append(f"{candidate.name}: not on the allow-list, so it is not offered")
        elif candidate.description != allowed[candidate.name]:
            parted = _differs(candidate.description, allowed[candidate.name])
            left_out.append(f"{candidate.name}: its description is not the one on the allow-list "
                            f"({parted}), so it is not offered")
        else:
            kept.append(candidate)
    return kept, left_out


def _differs(given: str, read: str) -> str:
    """Where the server's words leave the ones you read, in a few words."""
    same = next((i for i, (a, b) in enumerate(zip(given, read, strict=False)) if a != b),
                min(len(given), len(read)))
    return f"they part at character {same + 1} of the server's {len(given)}"
