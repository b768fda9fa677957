"""Tools from another process: an MCP server's tools as the kit's `Tool`s, every message kept.

The Model Context Protocol (MCP) is how a program asks a *server* which tools it has and
has the server run them. The model still only asks (a tool call, as in lesson 1); your
code, instead of running the function itself, sends the server a JSON-RPC request
`tools/call`, and answers the model with what the server said, under the model's own call id.

    connection.py  McpConnection / connect: your code's side of one connection, in this
                   process (the SDK's in-memory transport), every JSON-RPC message in `log`
    adapter.py     tool_from_mcp: one server tool -> the kit's Tool (its words as given, run on
                   the server); result_text; screen: the tools your allow-list lets through
    rpc.py         RpcMessage and Hop: the JSON-RPC messages as data, each request with its reply
    servers.py     staged servers: an honest weather server and a poisoned one

The loop that runs with a server is `toolcall_lab.mcp_loop.run_with_server` (it keeps the
hops for the sequence diagram's MCP-server lane). Written for the official MCP Python SDK,
`mcp` 2.3.0 (the kit pins `mcp>=2.3,<3`), which speaks protocol revisions 2024-11-05 to
2025-11-25 through the `initialize` handshake and 2026-07-28 without it. Importing this
package does not import the SDK; the first connection does.

    >>> from toolcall_lab.mcp_tools.servers import weather_server
    >>> with connect(weather_server()) as connection:
    ...     print(connection)
    ...     print(connection.tools[0].function(city="Paris"))
    McpConnection('weather', protocol='2026-07-28', tools=['get_weather'])
    18°C, sunny
"""

from .adapter import result_text, screen, tool_from_mcp
from .connection import WRITTEN_FOR, McpConnection, connect, version_line
from .rpc import Hop, RpcMessage, hops

__all__ = ["WRITTEN_FOR", "Hop", "McpConnection", "RpcMessage", "connect", "hops", "result_text", "screen",
           "tool_from_mcp", "version_line"]
