"""`McpConnection`: your code's connection to one MCP server, in this process, every message kept.

An MCP server usually runs in another process (started by your program and spoken to over
its stdin and stdout) or behind a URL. Here it runs in the notebook's own process, over the
SDK's in-memory transport (`mcp.client._memory.InMemoryTransport`, the one `mcp.Client`
itself uses for an in-process server): nothing is spawned, which also avoids the crashes a
subprocess server started from Jupyter is known for on Windows. The messages are the same
JSON-RPC the SDK would write on a pipe, framed by the SDK's own dispatcher; the connection
only writes each one down (`log`, a list of `rpc.RpcMessage`) as it passes.

`connect(server)` builds one and does what a client does first: agree on a protocol version
(`mode="auto"`, the SDK's default: a `server/discover` probe, falling back to the
`initialize` handshake for a server from before revision 2026-07-28; `mode="legacy"`: the
handshake, always), then `tools/list`. After that:

    connection.tools            the server's tools as the kit's `Tool`s (`adapter.tool_from_mcp`)
    connection.server_tools     ... as the SDK read them (`mcp.types.Tool`), from that same tools/list
    connection.list_tools()     the SDK's own `Tool` objects, fetched again
    connection.call_tool(n, a)  one `tools/call`: the SDK's `CallToolResult`
    connection.log, .hops()     every message so far, and the messages paired up
    connection.close()          the end of the connection

The SDK is asynchronous (anyio) and a notebook already runs an event loop, so the client
lives on an event loop of its own in a daemon thread, and each call waits for its answer
there (`anyio.from_thread.BlockingPortal`). Every method here is an ordinary blocking call.

A server that goes away (here staged with `exits_after_calls=N`: after answering N
`tools/call` requests the server's end of the connection closes, as a crashed process's pipe
does) makes every later call raise `McpServerGoneError`, one sentence saying which server
and what your code was doing. A tool that *fails* is not that: the server answers with an
`isError` result, which `call_tool` returns like any other. Text no UTF-8 pipe can carry
(a lone surrogate, "\\ud800") arrives with U+FFFD in its place, and the connection stays up;
a tool list that never ends (the same next page again, or more than `MAX_PAGES`) is refused.

A server in another process, spoken to over its stdin and stdout, is `stdio.connect_stdio`:
the same connection, with the SDK's stdio transport in place of the in-memory one. Every
line the server writes to its stdout must be one JSON-RPC message; a line that is not (a
`print` in the server) is what the SDK's reader hands over as a fault instead of a message,
and the call it came with raises `McpToolError` saying so in one sentence.

Left out: servers behind a URL (`mcp.Client` takes a URL the same way), server-initiated
requests (sampling, elicitation), resources and prompts.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import threading
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from ..blocks import clean_text
from ..errors import McpServerGoneError, McpToolError, UsageError
from .rpc import Hop, RpcMessage, hops

if TYPE_CHECKING:
    from ..tool import Tool

__all__ = ["MODES", "SUPPORTED", "WRITTEN_FOR", "McpConnection", "connect", "version_line"]

#: The `mode=` values of `mcp.Client`: "auto" (discover, or the handshake), "legacy" (the handshake).
MODES = ("auto", "legacy")
#: Seconds a call waits for the server's reply before it gives up (the SDK's read timeout).
TIMEOUT_S = 30.0
#: The most tools/list pages a connection reads before it calls the list endless.
MAX_PAGES = 100
#: The name and version your code gives the server (clientInfo): the kit's, so outputs stay stable.
CLIENT_NAME = "toolcall-lab"
#: The release of the `mcp` SDK lessons 23 and 24 and this package were written for.
WRITTEN_FOR = "2.3.0"
#: The releases the kit supports, [from, up to): the pin in pyproject.toml, mcp>=2.3,<3.
SUPPORTED = ((2, 3), (3, 0))


def version_line() -> str:
    """Whether the `mcp` you have is one this kit supports, in one line.

    The line names no version when yours is supported, so a lesson's page is the same
    whichever release of that line is installed (the next release of the SDK must not change
    the page); it names both when it is not, since then a message or two may well differ:

    >>> print(version_line())
    Written for the official MCP Python SDK; the mcp you have is a release this kit supports.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed: str | None = version("mcp")
    except PackageNotFoundError:
        installed = None
    return _version_sentence(installed)


def _version_sentence(installed: str | None) -> str:
    """e.g. "2.3.7" -> the supported line; "1.9.0" -> "... you have 1.9.0, ..."."""
    if installed is None:
        return (f"Written for the official MCP Python SDK, mcp {WRITTEN_FOR}; it is not installed here: "
                "pip install -e '.[lab]' brings it.")
    numbers = tuple(int(part) if part.isdigit() else 0 for part in installed.split(".")[:2])
    if SUPPORTED[0] <= numbers < SUPPORTED[1]:
        return "Written for the official MCP Python SDK; the mcp you have is a release this kit supports."
    low, high = (".".join(map(str, bound)) for bound in SUPPORTED)
    return (f"Written for the official MCP Python SDK, mcp {WRITTEN_FOR}; you have {installed}, outside "
            f"the releases this kit supports (mcp>={low},<{high}), so a message or two may differ from "
            "the page: pip install -e '.[lab]' brings a supported one.")


def connect(server: Any, *, mode: str = "auto", exits_after_calls: int | None = None) -> McpConnection:
    """A connection to `server` (an `mcp.server.mcpserver.MCPServer`), version agreed, tools listed.

    `exits_after_calls=N` stages a server that goes away after answering N `tools/call`
    requests. Close it with `.close()` (or use it in a `with` block).
    """
    return McpConnection(server, mode=mode, exits_after_calls=exits_after_calls)


class McpConnection:
    """Your code's side of one MCP connection, run on an event loop of its own (see the module)."""

    def __init__(self, server: Any, *, mode: str = "auto", exits_after_calls: int | None = None,
                 name: str | None = None, timeout: float = TIMEOUT_S,
                 errlog: TextIO | None = None) -> None:
        _check_arguments(server, mode, exits_after_calls)
        self.server_name = name or str(getattr(server, "name", "") or "server")
        self._timeout = timeout
        self._reported = 0  # how many of the pipe's faults a call has raised already
        self.log: list[RpcMessage] = []
        #: How many of `log`'s messages a run has already shown (`mcp_loop.run_with_server` moves it).
        self.traced = 0
        #: Calls your code could not send because the server had gone away.
        self.lost_calls = 0
        self._pipe = _Pipe(server, self.log, exits_after_calls, errlog)
        self._portal, self._thread = _event_loop_thread(self.server_name)
        self._client_context: Any = None
        self._client: Any = None
        self._tools: tuple[Tool, ...] = ()
        self._server_tools: tuple[Any, ...] = ()
        self._closer = weakref.finalize(self, _shut, self._portal, self._thread)
        self._open(mode)

    # -- what a client does first ------------------------------------------------------------
    def _open(self, mode: str) -> None:
        from mcp import Client
        from mcp.types import Implementation

        from .._version import __version__

        # subtle: no client-side cache, so every tools/list reaches the server (and the log)
        client = Client(self._pipe, mode=mode, cache=None, read_timeout_seconds=self._timeout,
                        client_info=Implementation(name=CLIENT_NAME, version=__version__))
        self._client_context = self._portal.wrap_async_context_manager(client)
        try:
            self._client = self._client_context.__enter__()
        except BaseException:
            self._closer()
            raise
        from .adapter import tool_from_mcp

        try:
            self._check_stream("its first messages (the version agreement)")
            self._server_tools = tuple(self.list_tools())
            self._tools = tuple(tool_from_mcp(t, self) for t in self._server_tools)
        except BaseException:
            self.close()  # subtle: a connection that could not list its tools is never handed out
            raise

    @property
    def protocol_version(self) -> str:
        """The protocol revision the two sides agreed on ("2026-07-28", or "2025-11-25" by handshake)."""
        return str(self._client.protocol_version)

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The server's tools as the kit's `Tool`s, from the `tools/list` done when connecting."""
        return self._tools

    @property
    def server_tools(self) -> tuple[Any, ...]:
        """The same tools as the SDK read them (`mcp.types.Tool`, fields in snake_case), no request sent."""
        return self._server_tools

    @property
    def server_stderr(self) -> str:
        """What a server in another process has written to its stderr so far ("" for one in this
        process, or when its stderr is not a file the connection was given: `stdio.connect_stdio`)."""
        errlog = self._pipe.errlog
        if errlog is None:
            return ""
        fd = errlog.fileno()
        if hasattr(os, "pread"):  # subtle: pread leaves alone the offset the server's process shares
            return os.pread(fd, os.fstat(fd).st_size, 0).decode("utf-8", "replace")
        errlog.seek(0)  # Windows: no pread; reading to the end leaves the offset where writes go
        return errlog.read()

    @property
    def gone(self) -> bool:
        """True once the server has gone away (its end of the connection closed)."""
        return self._pipe.gone

    # -- the calls -----------------------------------------------------------------------------
    def list_tools(self) -> list[Any]:
        """Every tool the server lists (the SDK's `mcp.types.Tool`), page after page.

        A list must end: a server that names a page it already sent as the next one, or is
        still naming a next page after `MAX_PAGES`, is refused with `McpToolError`.
        """
        found: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page = self._call("tools/list", lambda at=cursor: self._client.list_tools(cursor=at))
            found += page.tools
            cursor = page.next_cursor
            if not cursor:
                return found
            if cursor in seen:
                raise McpToolError(f"the MCP server {self.server_name!r} names the tools/list page "
                                   f"{cursor!r} as the next one again, so its list would never end; "
                                   "fix the server's pagination (the last page names no nextCursor).")
            seen.add(cursor)
        raise McpToolError(f"the MCP server {self.server_name!r} still names a next tools/list page after "
                           f"{MAX_PAGES} pages ({len(found)} tools so far), so its list may never end; fix "
                           "the server's pagination (the last page names no nextCursor).")

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """One `tools/call`: the SDK's `CallToolResult` (`.content`, `.is_error`).

        A tool that failed is an ordinary result with `is_error=True`. A JSON-RPC error (the
        server refused the request itself) raises `McpToolError`; a server that has gone away
        raises `McpServerGoneError`.
        """
        return self._call(f"tools/call {name}", lambda: self._client.call_tool(name, dict(arguments)))

    def _call(self, what: str, send: Any) -> Any:
        from mcp import MCPError
        from mcp.types import CONNECTION_CLOSED

        if self._client is None:
            raise UsageError(f"the connection to {self.server_name!r} is closed; connect again with "
                             "connect(server).")
        if self._pipe.gone:
            self.lost_calls += 1
            raise McpServerGoneError(self._gone_sentence(what))

        async def call() -> Any:
            return await send()

        try:
            answer = self._portal.call(call)
        except MCPError as exc:
            self._check_stream(what)  # subtle: a reply glued to a stray line is lost, and times out
            if exc.error.code == CONNECTION_CLOSED or self._pipe.gone:
                self._pipe.gone = True
                self.lost_calls += 1
                raise McpServerGoneError(self._gone_sentence(what)) from None
            raise McpToolError(f"the MCP server {self.server_name!r} refused {what} (JSON-RPC error "
                               f"{exc.error.code}: {exc.error.message})") from None
        self._check_stream(what)
        return answer

    def _check_stream(self, what: str) -> None:
        """Raise `McpToolError` for a stray stdout line the server wrote since the last check."""
        from .._text import shorten

        faults = self._pipe.faults
        if len(faults) <= self._reported:
            return
        fault, self._reported = faults[self._reported], len(faults)
        line = _stray_line(fault)
        wrote = f" ({shorten(line, 60)!r})" if line else ""
        raise McpToolError(
            f"the MCP server {self.server_name!r} wrote a line to its stdout that is not a JSON-RPC "
            f"message{wrote}, found with {what}; over stdio the server must write only MCP messages to "
            "stdout: send its print() and logging to stderr (print(..., file=sys.stderr)).")

    def _gone_sentence(self, what: str) -> str:
        return (f"the MCP server {self.server_name!r} has gone away (its end of the connection closed), "
                f"so your code could not send {what}; connect to it again with connect(server).")

    # -- what was said -------------------------------------------------------------------------
    def hops(self) -> list[Hop]:
        """Every request so far with its reply (`rpc.hops` of `log`)."""
        return hops(self.log)

    def close(self) -> None:
        """End the connection and its event loop; the log stays."""
        if self._client_context is not None:
            context, self._client_context, self._client = self._client_context, None, None
            try:
                context.__exit__(None, None, None)
            except Exception:  # subtle: a server that went away may fail its own goodbye
                pass
        self._closer()

    def __enter__(self) -> McpConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._client is None:
            return f"McpConnection({self.server_name!r}, closed)"
        names = [t.name for t in self._tools]
        return f"McpConnection({self.server_name!r}, protocol={self.protocol_version!r}, tools={names})"


def _stray_line(fault: Exception) -> str:
    """The text of the stdout line the SDK could not read as JSON-RPC ("" when it does not say)."""
    errors = getattr(fault, "errors", None)  # the SDK's parse error is a pydantic ValidationError
    try:
        found = errors()[0].get("input") if callable(errors) else None
    except Exception:  # subtle: whatever the fault is, the sentence about it must not fail
        found = None
    return found if isinstance(found, str) else ""


def _check_arguments(server: Any, mode: object, exits_after_calls: object) -> None:
    """Refuse a bad argument in one sentence, before a thread is started."""
    from mcp.client.stdio import StdioServerParameters
    from mcp.server.mcpserver import MCPServer

    if not isinstance(server, MCPServer | StdioServerParameters):
        raise UsageError(f"connect() takes an MCPServer (from mcp.server.mcpserver import MCPServer), "
                         f"got {type(server).__name__}; build the server first, then connect to it.")
    if mode not in MODES:
        raise UsageError(f"mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}.")
    if exits_after_calls is not None and (isinstance(exits_after_calls, bool)
                                          or not isinstance(exits_after_calls, int) or exits_after_calls < 0):
        raise UsageError(f"exits_after_calls must be a whole number of calls or None, got "
                         f"{exits_after_calls!r}.")


# -- the event loop the client lives on ---------------------------------------------------------
def _event_loop_thread(name: str) -> tuple[Any, threading.Thread]:
    """A blocking portal into an event loop running in a daemon thread of its own.

    subtle: a daemon thread, not anyio's `start_blocking_portal` (a worker of a thread pool,
    which the interpreter waits for at exit): a connection nobody closed must not keep Python
    from exiting.
    """
    import anyio
    from anyio.from_thread import BlockingPortal

    handed: queue.Queue[Any] = queue.Queue()

    async def serve() -> None:
        async with BlockingPortal() as portal:
            handed.put(portal)
            await portal.sleep_until_stopped()

    def main() -> None:
        try:
            anyio.run(serve)
        except BaseException as exc:  # handed to the thread that is waiting for the portal
            handed.put(exc)

    thread = threading.Thread(target=main, name=f"mcp client of {name}", daemon=True)
    thread.start()
    portal = handed.get(timeout=TIMEOUT_S)
    if isinstance(portal, BaseException):
        raise portal
    return portal, thread


def _shut(portal: Any, thread: threading.Thread) -> None:
    """Stop the portal's event loop and wait for its thread (at most a few seconds)."""
    try:
        portal.call(portal.stop, True)
    except Exception:  # subtle: already stopped
        pass
    thread.join(timeout=5)


# -- the transport, with every message written down ------------------------------------------------
class _Pipe:
    """The SDK's in-memory transport, writing down each message as it passes.

    It is an `mcp.client.Transport`: an async context manager handing `mcp.Client` the
    (read, write) streams of the connection. What the client writes is noted as it is sent;
    what the server wrote, as the client reads it. `exits_after` stages the server going
    away: once it has answered that many `tools/call` requests, the client reads the end of
    the stream and every later write fails, as with a crashed server's pipe.
    """

    def __init__(self, server: Any, log: list[RpcMessage], exits_after: int | None,
                 errlog: TextIO | None = None) -> None:
        self.server, self.log, self.exits_after = server, log, exits_after
        #: The file a server in another process writes its stderr to (None: this process's stderr).
        self.errlog = errlog
        self.gone = False
        #: What the SDK's reader handed over instead of a message (a stdout line that is not JSON-RPC).
        self.faults: list[Exception] = []
        self._inner: Any = None
        self._calls_answered = 0
        self._call_ids: set[Any] = set()

    async def __aenter__(self) -> tuple[Any, Any]:
        # subtle: the SDK's own in-process transport, from a private module; the `mcp<3` pin holds it
        from mcp.client._memory import InMemoryTransport
        from mcp.client.stdio import StdioServerParameters, stdio_client

        # a server in another process: the SDK's stdio transport, the server's stderr to `errlog`
        if isinstance(self.server, StdioServerParameters):
            self._inner = (stdio_client(self.server) if self.errlog is None
                           else stdio_client(self.server, errlog=self.errlog))
        else:
            self._inner = InMemoryTransport(self.server)
        read, write = await self._inner.__aenter__()
        return _Reading(read, self), _Writing(write, self)

    async def __aexit__(self, *exc: Any) -> None:
        await self._inner.__aexit__(*exc)

    def note(self, sender: str, message: Any) -> None:
        body = json.loads(message.model_dump_json(by_alias=True, exclude_unset=True))
        self.log.append(RpcMessage("client" if sender == "client" else "server", body))
        if sender == "client" and body.get("method") == "tools/call":
            self._call_ids.add(body.get("id"))
        elif sender == "server" and body.get("id") in self._call_ids:
            self._calls_answered += 1
            if self.exits_after is not None and self._calls_answered >= self.exits_after:
                self.gone = True  # the server has answered its last call


class _Writing:
    """The client's write stream: each message noted as it is sent; a failure once the server is gone."""

    def __init__(self, inner: Any, pipe: _Pipe) -> None:
        self._inner, self._pipe = inner, pipe

    async def send(self, item: Any) -> None:
        import anyio

        if self._pipe.gone:
            raise anyio.BrokenResourceError  # the other end of the pipe is closed
        self._pipe.note("client", item.message)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Writing:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


class _Reading:
    """The client's read stream: each of the server's messages noted as it arrives; the end once gone."""

    def __init__(self, inner: Any, pipe: _Pipe) -> None:
        self._inner, self._pipe = inner, pipe

    async def receive(self) -> Any:
        import anyio

        if self._pipe.gone:
            raise anyio.EndOfStream
        item = await self._inner.receive()
        if isinstance(item, Exception):
            self._pipe.faults.append(item)  # subtle: the SDK goes on reading; the call it came with fails
        else:
            item = _readable(item)
            self._pipe.note("server", item.message)
        return item

    def __aiter__(self) -> _Reading:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Reading:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


def _readable(item: Any) -> Any:
    """The server's message with every lone surrogate in it replaced by U+FFFD (`blocks.clean_text`).

    subtle: a tool may return text holding half of a UTF-16 pair ("\\ud800"), which no
    UTF-8 pipe can carry: noting it (`model_dump_json`) would fail inside the SDK's reader
    and close the connection. Cleaned here, at the one door the server's words come in by,
    the tool's result arrives with "\ufffd" in their place, and the connection stays up.
    """
    from mcp.types import jsonrpc_message_adapter

    body = item.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
    said = json.dumps(body, ensure_ascii=False)
    cleaned = clean_text(said)  # subtle: JSON's own punctuation is ASCII, so only strings change
    if cleaned == said:
        return item
    message = jsonrpc_message_adapter.validate_python(json.loads(cleaned), by_name=False)
    return dataclasses.replace(item, message=message)
