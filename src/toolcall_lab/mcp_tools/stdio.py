"""An MCP server in another process, over its stdin and stdout: `connect_stdio`.

`connect_stdio(command)` starts `command` as a subprocess with the official SDK's stdio
transport (`mcp.client.stdio.stdio_client`, through `mcp.Client`) and hands back the same
`McpConnection` an in-process server gets (`connection.py`): version agreed, tools listed,
every JSON-RPC message in `log`, ready for `mcp_loop.run_with_server`. Closing it closes the
server's stdin, and the SDK stops the process ("close stdin, wait, then kill the process
tree", its own words). `weather_command(...)` is the lessons' server (`stdio_server.py`).

    >>> with connect_stdio(weather_command()) as connection:          # doctest: +SKIP
    ...     connection.tools[0].function(city="Paris")
    '18°C, sunny'

A server must write nothing but MCP messages to its stdout ("The server MUST NOT write
anything to its stdout that is not a valid MCP message",
https://modelcontextprotocol.io/specification/draft/basic/transports/stdio). What the SDK
does with a line that is not one: it logs "Failed to parse JSONRPC message from server"
with a traceback, drops the line, hands the parse error to the session as a fault instead
of a message, and reads on. A `print()` that ends its line leaves the reply after it
intact; one that does not (`end=""`, a progress bar) glues itself to the reply, which is
then lost, and the call waits out its timeout. Either way the connection turns the fault
into one `McpToolError` sentence for the call it came with, naming the line and the fix
(stderr); the SDK's traceback is not shown, since that sentence says it all.

Left out: servers behind a URL, and restarting a server that died (connect again).
"""

from __future__ import annotations

import logging
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from ..errors import UsageError
from .connection import TIMEOUT_S, McpConnection

__all__ = ["connect_stdio", "weather_command"]

#: What the SDK's stdio reader logs for a stdout line that is not JSON-RPC (mcp.client.stdio).
SDK_PARSE_LOG = "Failed to parse JSONRPC message from server"


def weather_command(*flags: str) -> list[str]:
    """The command that runs the lessons' stdio weather server with this Python (`stdio_server.py`).

    >>> weather_command("--print")[1:]
    ['-m', 'toolcall_lab.mcp_tools.stdio_server', '--print']
    """
    return [sys.executable, "-m", "toolcall_lab.mcp_tools.stdio_server", *flags]


class _Reported(logging.Filter):
    """Drops the SDK's log record of a stray stdout line: the connection reports it in one sentence."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != SDK_PARSE_LOG


_QUIET = _Reported()


def connect_stdio(command: Sequence[str], *, name: str | None = None, mode: str = "auto",
                  timeout: float = TIMEOUT_S, errlog: TextIO | None = None) -> McpConnection:
    """A connection to the MCP server `command` starts (a list: the program, then its arguments).

    `name` is what the kit calls the server in its sentences (by default the program's or
    module's name); `timeout` is how many seconds a call waits for its reply. The server's
    stderr goes to `errlog` (a file with a descriptor), by default to a temporary file the
    connection keeps and `connection.server_stderr` reads: never into a notebook's own
    stderr, which may have no descriptor and whose lines would land in whichever cell runs.
    """
    from mcp.client.stdio import StdioServerParameters

    if isinstance(command, str) or not command or not all(isinstance(part, str) for part in command):
        raise UsageError(f"connect_stdio() takes the command as a list of strings, the program first "
                         f"(weather_command() is one), got {command!r}.")
    program, *args = command
    # subtle: the SDK passes the child only a few safe variables (HOME, PATH, ...); the kit's own
    # source folder goes along, so `-m toolcall_lab...` works where the kit is not installed
    kit = str(Path(__file__).resolve().parents[2])
    params = StdioServerParameters(command=program, args=args, env={"PYTHONPATH": kit})
    logging.getLogger("mcp.client.stdio").addFilter(_QUIET)  # the same filter object: added once
    label = name or (args[args.index("-m") + 1].rsplit(".", 1)[-1] if "-m" in args[:-1]
                     else Path(args[0] if args else program).stem)
    if errlog is None:
        errlog = tempfile.TemporaryFile("w+", encoding="utf-8")  # closed and gone with the connection
    return McpConnection(params, mode=mode, name=label, timeout=timeout, errlog=errlog)
