"""A real MCP server over stdio: the lessons' weather server, run as a process of its own.

    python -m toolcall_lab.mcp_tools.stdio_server            the honest server
    python -m toolcall_lab.mcp_tools.stdio_server --print    ... whose tool print()s to its stdout
    python -m toolcall_lab.mcp_tools.stdio_server --stderr   ... whose tool prints to stderr (the fix)

Over stdio the client starts the server and the two speak newline-delimited JSON-RPC on the
server's stdin and stdout. The specification's rule: "The server MUST NOT write anything to
its stdout that is not a valid MCP message", while "The server MAY write UTF-8 strings to
stderr for any logging purposes"
(https://modelcontextprotocol.io/specification/draft/basic/transports/stdio). A `print()` in
a tool breaks the first rule, one of the commonest MCP server bugs
(netboxlabs/netbox-mcp-server#43, as issue 31 reports it): its line reaches the client where
a message belongs. `--print` stages it; `stdio.connect_stdio` shows what the client then says.

The server is the official SDK's `MCPServer`, run with `server.run("stdio")`; its one tool
answers from the kit's offline weather table, as `servers.weather_server` does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["FLAGS", "main"]

#: What each flag makes get_weather do before it answers.
FLAGS = {"--banner": "print a line to stdout before serving (the bug)",
         "--print": "print a line to stdout in the tool (diverted by the SDK while it serves)",
         "--stderr": "print a line to stderr in the tool (the fix)"}


def main(argv: Sequence[str] | None = None) -> None:
    """Serve get_weather over this process's stdin and stdout until the client closes stdin."""
    flags = list(sys.argv[1:] if argv is None else argv)
    unknown = [f for f in flags if f not in FLAGS]
    if unknown:
        sys.exit(f"stdio_server: unknown flag {unknown[0]!r}; use one of {', '.join(FLAGS)} or none.")
    from mcp.server.mcpserver.exceptions import ToolError

    from ..tools.weather import get_weather as kit_weather
    from .servers import WEATHER_DESCRIPTION, weather_server

    server = weather_server()
    server.remove_tool("get_weather")

    def get_weather(city: str) -> str:
        if "--print" in flags:
            print(f"looking up {city}")  # subtle: the bug on show; stdout belongs to the protocol
        if "--stderr" in flags:
            print(f"looking up {city}", file=sys.stderr)
        try:
            return str(kit_weather.function(city=city))
        except ValueError as exc:
            raise ToolError(str(exc)) from None

    server.add_tool(get_weather, description=WEATHER_DESCRIPTION)
    if "--banner" in flags:
        # subtle: before run("stdio") stdout is still the wire; flushed (as python -u does for
        # every print), the line reaches the client
        print("weather server ready", flush=True)
    server.run("stdio")


if __name__ == "__main__":
    main()
