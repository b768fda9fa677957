"""The "OpenAI-compatible" spectrum, measured: the same requests sent to every server flavour.

`flavour_table()` starts the API double once per flavour (`ApiDouble(flavour=...)`), sends
each probe through the server's real client (the `openai` SDK for the `/v1` servers, the
`ollama` client for Ollama's own API) and writes down what came back, one row per probe:

    probe                          what a cell says
    max_tokens: 5                  finish_reason: "length" (limit read) or "stop" (ignored)
    max_completion_tokens: 5       the same, for the newer field
    options.num_predict: 5         the same, for Ollama's own API
    tool_choice: "none"            "text" (honoured) or the calls the model made anyway
    tool_choice: "required"        what the server held the model to ("required", or "-": nothing)
    tool_choice: get_time          the tools called (get_weather: the name was not honoured) or the error
    parallel_tool_calls not sent   how many calls one reply makes for two cities
    parallel_tool_calls: false     the same, asked for one
    tool-call id                   the first id (cut at 18 characters; "(not kept)": the client drops it)
    arguments arrive as            the type the client hands you: str (JSON text) or dict
    unknown model                  the status, and the error's type (or "string": a bare string)

A cell of "n/a" is a field the client cannot send to that API. The output has no ports
and no times, so it is the same on every run. `quirk_table()` prints what each flavour
documents instead, with the public page each quirk comes from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..wire import API_SPECS
from ..wire.flavours import FLAVOURS, Flavour
from .api_double import ApiDouble

__all__ = ["PROBES", "flavour_table", "quirk_table"]

_WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
_TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Local time in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
_PARIS = [{"role": "user", "content": "What's the weather in Paris?"}]
_TWO = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
_CHAT = [{"role": "user", "content": "Tell me about the sea."}]

#: Each probe: its label, and the request (as keyword arguments of the clients' chat call;
#: "options" only reaches Ollama's own API, the other keys only the /v1 servers).
PROBES: dict[str, dict[str, Any]] = {
    "max_tokens: 5": {"messages": _CHAT, "max_tokens": 5},
    "max_completion_tokens: 5": {"messages": _CHAT, "max_completion_tokens": 5},
    "options.num_predict: 5": {"messages": _CHAT, "options": {"num_predict": 5}},
    'tool_choice: "none"': {"messages": _PARIS, "tools": [_WEATHER], "tool_choice": "none"},
    'tool_choice: "required"': {"messages": _PARIS, "tools": [_WEATHER], "tool_choice": "required"},
    "tool_choice: get_time": {"messages": _PARIS, "tools": [_WEATHER, _TIME], "tool_choice": {
        "type": "function", "function": {"name": "get_time"}}},
    "parallel_tool_calls not sent": {"messages": _TWO, "tools": [_WEATHER]},
    "parallel_tool_calls: false": {"messages": _TWO, "tools": [_WEATHER], "parallel_tool_calls": False},
    "tool-call id": {"messages": _PARIS, "tools": [_WEATHER]},
    "arguments arrive as": {"messages": _PARIS, "tools": [_WEATHER]},
    "unknown model": {"messages": _CHAT, "model": "no-such-model"},
}


def _probe_policy(transcript: Any, tools: tuple[Any, ...]) -> Any:
    """The probes' model: the lessons' weather model, calling `get_time` when that is all it may call."""
    from ..examples import weather_policy
    from ..providers.scripted import call

    if [t.name for t in tools] == ["get_time"]:
        return call("get_time", city="Paris")
    return weather_policy(transcript, tools)


def flavour_table(request: Mapping[str, Any] | None = None, *, flavours: Sequence[str] | None = None) -> str:
    """Every probe sent to every flavour through its real client; a plain-text table of the answers.

    With `request` (the keyword arguments of a chat call: `messages`, `tools`,
    `tool_choice`, `max_tokens`, ...; `model` defaults to each server's own), only that
    request is sent, and the table has one row per flavour: the status, the finish
    reason, the calls, the first id, the arguments' type, the error. `flavours` picks and
    orders the flavours (default: all five). Needs the `openai` and `ollama` packages.
    """
    names = list(flavours or FLAVOURS)
    if request is not None:
        return _one_request(dict(request), names)
    columns = {name: _run_probes(FLAVOURS[name]) for name in names}
    return _table([["probe", *names], *([label, *(columns[n][label] for n in names)] for label in PROBES)])


def _one_request(request: dict[str, Any], names: list[str]) -> str:
    rows = [["flavour", "status", "finish", "calls", "first id", "arguments", "error"]]
    for name in names:
        flavour = FLAVOURS[name]
        with ApiDouble(_probe_policy, flavour=flavour) as double:
            answer = _sender(double, flavour.api)({"model": flavour.model, **request})
        if answer is None:
            rows.append([name, "n/a", "", "", "", "", "a field /api/chat has not"])
            continue
        status, finish, calls, error = answer
        first = calls[0][1] if calls else None
        rows.append([name, str(status), str(finish or "-"), ", ".join(c[0] for c in calls) or "-",
                     "-" if not calls else "(not kept)" if not first else
                     first if len(first) <= 18 else f"{first[:18]}...",
                     type(calls[0][2]).__name__ if calls else "-", error or "-"])
    return _table(rows)


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) + 2 for i in range(len(rows[0]))]
    lines = ["".join(text.ljust(width) for text, width in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    lines.insert(1, "-" * (sum(widths) - 2))
    return "\n".join(lines)


def _run_probes(flavour: Flavour) -> dict[str, str]:
    with ApiDouble(_probe_policy, flavour=flavour) as double:
        send = _sender(double, flavour.api)
        cells = {}
        for label, request in PROBES.items():
            request = {"model": flavour.model, **request}
            cells[label] = _cell(label, request, send, double)
    return cells


def _cell(label: str, request: dict[str, Any], send: Callable[[dict[str, Any]], Any],
          double: ApiDouble) -> str:
    """What one probe shows: sent with `send`, which answers (status, finish, calls, error)."""
    answer = send(request)
    if answer is None:
        return "n/a"
    status, finish, calls, error = answer
    if label == "unknown model":
        return f"{status} (model ignored)" if status == 200 else f"{status} {error}"
    if status != 200:
        return f"{status} {error}"
    if label.startswith(("max_", "options.")):
        return str(finish)
    if label == 'tool_choice: "required"':
        return double.held_to[0] or "-"
    if label == 'tool_choice: "none"':
        return "text" if not calls else ", ".join(name for name, _, _ in calls)
    if label == "tool_choice: get_time":
        return ", ".join(name for name, _, _ in calls) or "text"
    if label.startswith("parallel"):
        return f"{len(calls)} call" + ("s" if len(calls) != 1 else "")
    if label == "tool-call id":
        found = calls[0][1] if calls else None
        if not found:  # subtle: Ollama sends one, but the ollama client's ToolCall has no field for it
            return "(not kept)"
        return str(found) if len(found) <= 18 else f"{found[:18]}..."
    return type(calls[0][2]).__name__ if calls else "-"


def _sender(double: ApiDouble, api: str) -> Callable[[dict[str, Any]], Any]:
    """How a probe reaches `api` on `double`: through the client its default provider uses
    (`ProviderSpec` -> `sdk_client`), which answers (status, finish, calls, error)."""
    from ..providers.registry import PROVIDERS

    client = str(getattr(PROVIDERS[API_SPECS[api].provider].cls, "sdk_client", ""))
    return _SENDERS[client](double, api)


def _openai_sender(double: ApiDouble, api: str) -> Callable[[dict[str, Any]], Any]:
    import openai

    client = openai.OpenAI(base_url=double.base_url(api), api_key="local", max_retries=0)

    def send(request: dict[str, Any]) -> Any:
        if "options" in request:
            return None  # Ollama's own field: the OpenAI client has no such argument
        try:
            reply = client.chat.completions.create(**request)
        except openai.APIStatusError as exc:
            return exc.status_code, None, [], _error_kind(exc.response.text)
        choice = reply.choices[0]
        calls = [(c.function.name, c.id, c.function.arguments) for c in choice.message.tool_calls or []]
        return 200, choice.finish_reason, calls, None

    return send


def _ollama_sender(double: ApiDouble, api: str) -> Callable[[dict[str, Any]], Any]:
    import ollama

    client = ollama.Client(host=double.base_url(api))

    def send(request: dict[str, Any]) -> Any:
        if set(request) & {"max_tokens", "max_completion_tokens", "tool_choice", "parallel_tool_calls"}:
            return None  # the ollama client has no such argument, and /api/chat no such field
        try:
            reply = client.chat(stream=False, **request)
        except ollama.ResponseError as exc:
            return exc.status_code, None, [], "string"
        calls = [(c.function.name, None, c.function.arguments) for c in reply.message.tool_calls or []]
        return 200, reply.done_reason, calls, None

    return send


#: The real clients a probe is sent through, by the class name a provider's `sdk_client` gives
_SENDERS = {"openai.OpenAI": _openai_sender, "ollama.Client": _ollama_sender}


def _error_kind(text: str) -> str:
    """What a client finds under "error": its `type`, or "string" when the error is bare text."""
    try:
        error = json.loads(text).get("error")
    except (ValueError, AttributeError):
        return "not JSON"
    return "string" if isinstance(error, str) else str((error or {}).get("type"))


def quirk_table(flavours: Sequence[str] | None = None) -> str:
    """What each flavour documents, quirk by quirk, each with the public page it comes from.

    >>> for line in quirk_table(["lmstudio"]).splitlines()[:4]:
    ...     print(line)
    lmstudio (LM Studio, chat API)
    ------------------------------
      limit_fields      max_tokens
                        https://lmstudio.ai/docs/developer/openai-compat/chat-completions
    """
    lines: list[str] = []
    for name in flavours or FLAVOURS:
        flavour = FLAVOURS[name]
        lines.append(f"{flavour.name} ({flavour.title}, {flavour.api} API)")
        lines.append("-" * len(lines[-1]))
        for field, source in flavour.sources.items():
            value = flavour.fact(field)
            shown = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)
            lines.append(f"  {field:<17} {shown or '(none)'}")
            lines.append(f"  {'':<17} {source}")
        lines.append("")
    return "\n".join(lines).rstrip()
