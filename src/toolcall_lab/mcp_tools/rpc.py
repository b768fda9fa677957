"""The JSON-RPC messages between your code and an MCP server, kept as data.

MCP speaks JSON-RPC 2.0: a *request* has a `method` and an `id`, its reply has the same `id`
and either a `result` or an `error`, and a *notification* has a `method` and no `id`, so
nothing answers it. `McpConnection` writes down every message that crosses the connection,
as the SDK would write it on a pipe (its stdio transport's `model_dump_json(by_alias=True,
exclude_unset=True)`, read back as JSON), in an `RpcMessage`: who sent it and its body.
`hops` pairs each request with its reply (a `Hop`), and `Hop.asked` / `Hop.answered` say
each in one line, for the tables and the sequence diagram.

    >>> ask = RpcMessage("client", {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
    ...                            "params": {"name": "get_weather", "arguments": {"city": "Paris"}}})
    >>> reply = RpcMessage("server", {"jsonrpc": "2.0", "id": 3, "result": {
    ...     "content": [{"type": "text", "text": "18°C, sunny"}], "isError": False}})
    >>> [(h.asked, h.answered) for h in hops([ask, reply])]
    [('tools/call get_weather {"city": "Paris"}', '18°C, sunny')]

The id in a JSON-RPC message is the *connection's* (1, 2, 3, ... per request); the model's
call id (`toolu_01`) never reaches the server. `Hop.call_id` is where your code notes which
model call a `tools/call` answered.

Left out: batches (MCP does not use them) and messages the server starts (its requests and
notifications to the client), which none of the lessons' servers send.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

__all__ = ["Hop", "RpcMessage", "hops", "result_words"]

Sender = Literal["client", "server"]
#: What the `_meta` of a 2026-07-28 request names its protocol version under.
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


@dataclass(frozen=True)
class RpcMessage:
    """One JSON-RPC message on the connection: who sent it ("client" is your code) and its body."""

    sender: Sender
    body: Mapping[str, Any]

    @property
    def kind(self) -> Literal["request", "notification", "result", "error"]:
        """What the message is, read off its fields as JSON-RPC 2.0 defines them."""
        if "method" in self.body:
            return "request" if "id" in self.body else "notification"
        return "error" if "error" in self.body else "result"

    @property
    def method(self) -> str | None:
        return self.body.get("method")

    @property
    def id(self) -> int | str | None:
        return self.body.get("id")

    def __repr__(self) -> str:
        what = self.method or self.kind
        number = f" #{self.id}" if self.id is not None else ""
        return f"RpcMessage({self.sender!r}, {what}{number})"


@dataclass(frozen=True)
class Hop:
    """A request and its reply (None for a notification, or a reply that never came), and
    the model's call id a `tools/call` answered (None for the rest)."""

    request: RpcMessage
    reply: RpcMessage | None = None
    call_id: str | None = None

    @property
    def asked(self) -> str:
        """The request in one line: its method, and what it asks for."""
        params: Mapping[str, Any] = self.request.body.get("params") or {}
        method = self.request.method or "?"
        match method:
            case "tools/call":
                arguments = json.dumps(params.get("arguments") or {}, ensure_ascii=False)
                return f"tools/call {params.get('name')} {arguments}"
            case "initialize":
                return f"initialize {params.get('protocolVersion')}"
            case _:
                version = (params.get("_meta") or {}).get(VERSION_KEY)
                return f"{method} {version}" if method == "server/discover" and version else method

    @property
    def answered(self) -> str:
        """The reply in one line ("" for a notification): the part of it the request asked for."""
        if self.reply is None:
            return "" if self.request.kind == "notification" else "(no reply)"
        if self.reply.kind == "error":
            error = self.reply.body.get("error") or {}
            return f"JSON-RPC error {error.get('code')}: {error.get('message')}"
        return result_words(self.request.method, self.reply.body.get("result") or {})

    def answering(self, call_id: str) -> Hop:
        """This hop, noted as answering the model's call `call_id`."""
        return replace(self, call_id=call_id)


def result_words(method: str | None, result: Mapping[str, Any]) -> str:
    """A result in one line, as its method's reader wants it: a tool's words, a tool list, a version.

    >>> result_words("tools/list", {"tools": [{"name": "get_weather"}, {"name": "send_report"}]})
    'tools: get_weather, send_report'
    >>> result_words("tools/call", {"content": [{"type": "text", "text": "No."}], "isError": True})
    'isError: No.'
    """
    match method:
        case "tools/list":
            names = [str(t.get("name")) for t in result.get("tools") or []]
            return "tools: " + (", ".join(names) or "(none)")
        case "tools/call":
            texts = [str(c.get("text", f"({c.get('type')})")) for c in result.get("content") or []]
            said = " ".join(" ".join(texts).split())
            return f"isError: {said}" if result.get("isError") else said
        case "initialize":
            server = (result.get("serverInfo") or {}).get("name")
            return f"{result.get('protocolVersion')}, server {server}"
        case "server/discover":
            versions = ", ".join(result.get("supportedVersions") or [])
            return f"speaks {versions}"
        case _:
            return "result"


def hops(messages: Sequence[RpcMessage]) -> list[Hop]:
    """The messages paired up: each request with the reply that has its id, in request order.

    A notification is a hop of its own, with no reply; a reply whose request is not in
    `messages` is left out.
    """
    replies = {(m.id, m.sender): m for m in messages if m.kind in ("result", "error")}
    other: dict[Sender, Sender] = {"client": "server", "server": "client"}
    return [Hop(m, replies.get((m.id, other[m.sender])) if m.kind == "request" else None)
            for m in messages if m.kind in ("request", "notification")]
