# mypy: disable-error-code="no-untyped-def"
# (the worked definition of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 24, "What the server says".

The learner writes `offer(tools, allowed)` in a `your-code` cell, the description
allow-list: only a tool whose name is allowed *and* whose description is, character for
character, the one allowed. It is judged by what it does on tool lists the page does not
show, then on the poisoned server, where nothing of the instruction may reach a gullible
model; a definition whose body is still the template's `...` counts as not answered yet, and
one that hands the work to the kit's `screen` is refused ("write it yourself"). Exercise 1's
tools are run: each must reach its own server, ask for a tool that server lists, and bring
back what the server answers, under the server's words.

Section 2 runs a real stdio server as a subprocess: `server_log` is the stream a server's own
lines must go to (its stderr: stdout is the wire), judged by identity with this process's
streams; `predict_print` is what a `print()` inside a tool does to a call while the SDK's
server serves, judged against what the page's own run did.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..examples import PARIS_QUESTION
from ..mcp_loop import run_with_server
from ..mcp_tools.adapter import result_text, screen
from ..mcp_tools.connection import McpConnection, connect
from ..mcp_tools.servers import INJECTED, WEATHER_DESCRIPTION, poisoned_weather_server
from ..misbehaving import obeys_tool_descriptions
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, equal, word
from ..tool import Tool, execute
from ._runs import raised as _raised
from ._runs import run_watching
from ._runs import template as _template

__all__ = ["SOLUTIONS", "exercise_1", "offer", "predict_print", "q1", "server_log", "your_allow_list"]


# -- the worked definition ------------------------------------------------------------------------
def offer(tools, allowed):
    """Tools whose name is allowed and whose description is the allowed one."""
    return [tool for tool in tools
            if tool.name in allowed and tool.description == allowed[tool.name]]


# -- section 1: your allow-list --------------------------------------------------------------------------
def _tool(name: str, description: str) -> Tool:
    return Tool(name, description, {"type": "object"}, lambda **args: "")


#: (a tool list, what an allow-list of get_weather's honest words must keep, what the case shows)
_CASES: list[tuple[list[Tool], list[str], str]] = [
    ([_tool("get_weather", WEATHER_DESCRIPTION)], ["get_weather"], "get_weather with the words allowed"),
    ([_tool("get_weather", f"{WEATHER_DESCRIPTION}\n\n{INJECTED}")], [],
     "get_weather whose description has an instruction added after the allowed words"),
    ([_tool("get_weather", WEATHER_DESCRIPTION.upper())], [], "get_weather with the words in capitals"),
    ([_tool("get_weather", WEATHER_DESCRIPTION[:29])], [], "get_weather with only the first sentence"),
    ([_tool("send_report", WEATHER_DESCRIPTION)], [],
     "send_report (a name not on the list) using allowed words"),
    ([_tool("get_weather", WEATHER_DESCRIPTION), _tool("send_report", "Send a report.")], ["get_weather"],
     "get_weather with the words allowed, and send_report"),
]


def _wrong_offer(function: Any) -> str | None:
    if not callable(function) or isinstance(function, type):
        return f"expected the function itself (offer, without brackets), got {type(function).__name__}"
    allowed = {"get_weather": WEATHER_DESCRIPTION}
    for tools, keep, what in _CASES:
        try:
            kept, handed = run_watching(screen, function, list(tools), dict(allowed))
        except Exception as exc:
            return f"it raised {_raised(exc)} for {what}"
        if handed:
            return "it hands the work to the kit's screen; write it yourself"
        if not isinstance(kept, list | tuple) or not all(isinstance(t, Tool) for t in kept):
            return f"for {what} it returned {type(kept).__name__} {kept!r:.40}; return the Tools to offer"
        names = [t.name for t in kept]
        if names != keep:
            return f"for {what} it offers {names or 'nothing'}; it should offer {keep or 'nothing'}"
    return None


def _reached(function: Any) -> str | None:
    """Whether the poisoned server's instruction reaches a gullible model through `function`."""
    with connect(poisoned_weather_server()) as poisoned:
        gullible = ScriptedProvider(obeys_tool_descriptions)
        try:
            run_with_server(poisoned, gullible, PARIS_QUESTION,
                            tools=function(poisoned.tools, {"get_weather": WEATHER_DESCRIPTION}))
        except Exception as exc:
            return f"it raised {_raised(exc)} on the poisoned server's tools"
        shown = any(INJECTED in t.description for r in gullible.requests for t in r.tools)
        reported = any((m.body.get("params") or {}).get("name") == "send_report"
                       for m in poisoned.log if m.method == "tools/call")
    return "the instruction still reached the model" if shown or reported else None


def your_allow_list(answer: Any) -> None:
    """Your offer(tools, allowed): the poisoned description never reaches the model."""
    check("offer", ... if _template(answer) else answer, lambda given: _wrong_offer(given) or _reached(given),
          why="on the poisoned server, nothing of its instruction reached the model",
          hint="a name on the list is not enough: compare the whole description with the allowed one, "
               "character for character")


# -- check yourself -----------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """Whether screen still offers get_weather after its description changes by one character."""
    fixed = _tool("get_weather", WEATHER_DESCRIPTION.replace("today's", "todays"))
    kept, _ = screen([fixed], {"get_weather": WEATHER_DESCRIPTION})
    check("Q1", answer, equal(bool(kept)),
          hint="section 1: what does the allow-list compare, and how much of it?")


def _wrong_names(tools: Any, first: McpConnection, second: McpConnection) -> str | None:
    if not isinstance(tools, list | tuple) or not all(isinstance(t, Tool) for t in tools):
        return f"expected a list of the kit's Tools, got {type(tools).__name__}"
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        return (f"two tools are named {twice[0]!r}; the model could not tell them apart, and the kit "
                "refuses two tools of one name")
    reached = {id(first): 0, id(second): 0}
    for candidate in tools:
        connections, problem = _ran(candidate, (first, second))
        if problem is not None:
            return problem
        for connection in connections:
            reached[id(connection)] += 1
    for connection in (first, second):
        if reached[id(connection)] != len(connection.tools):
            return (f"{reached[id(connection)]} of the tools reach the server {connection.server_name!r}, "
                    f"which lists {len(connection.tools)}; offer each server's tools once, each running on "
                    "its own server")
    return None


#: What Exercise 1 sends each tool when it runs it (both servers list only get_weather).
_EXERCISE_ARGUMENTS = {"city": "Paris"}


def _ran(candidate: Tool, connections: tuple[McpConnection, ...]) -> tuple[list[McpConnection], str | None]:
    """Run `candidate`: (the connections it sent a tools/call to, what is wrong with what came back)."""
    sent = [len(c.log) for c in connections]
    ran = execute(ToolCall("toolu_01", candidate.name, _EXERCISE_ARGUMENTS), {candidate.name: candidate})
    asked = [(c, m.body.get("params", {}).get("name")) for c, before in zip(connections, sent, strict=True)
             for m in c.log[before:] if m.method == "tools/call"]
    reached = [c for c in connections if any(c is each for each, _ in asked)]
    if not asked:
        return reached, None  # the count of tools per server says it
    connection, name = asked[-1]
    return reached, _wrong_result(candidate, ran, connection, name)


def _wrong_result(candidate: Tool, ran: ToolResult, connection: McpConnection, name: Any) -> str | None:
    """Whether the tool `name` that `candidate` asked `connection` for ran, and its answer came back
    under the server's words."""
    listed = {t.name: t for t in connection.server_tools}
    if name not in listed:
        return (f"running {candidate.name!r} asks the server {connection.server_name!r} for {name!r}, a "
                "tool it does not list: the server knows its tools by their own names")
    answered = result_text(connection.call_tool(name, _EXERCISE_ARGUMENTS))
    if ran.is_error or ran.content != answered:
        return (f"running {candidate.name!r}, the model would read {ran.content[:40]!r}, not what the "
                f"server answered, {answered[:30]!r}")
    said = listed[name].description or ""
    if said not in candidate.description:
        return (f"{candidate.name!r} is described as {candidate.description[:30]!r}: the model must still "
                f"read the server's words, {said[:30]!r}")
    if dict(candidate.input_schema) != dict(listed[name].input_schema):
        return f"{candidate.name!r}'s input_schema is not the one the server lists for {name!r}"
    return None


def exercise_1(answer: Any, first: Any, second: Any) -> None:
    """The tools of two servers that both list get_weather, offered together under distinct names."""
    if not isinstance(first, McpConnection) or not isinstance(second, McpConnection):
        check("Exercise 1", answer, lambda _: "the two connections are missing; run the cells above first",
              hint="the cell above the exercise connects to the second server")
        return
    check("Exercise 1", answer, lambda given: _wrong_names(given, first, second),
          hint="a Tool is a frozen dataclass, and lesson 14 (section 2) made a changed copy of one; its "
               "function still asks its own server for the tool by the server's name")


# -- section 2: a server in another process ----------------------------------------------------
def _wrong_stream(answer: Any) -> str | None:
    if answer is sys.stderr or answer is sys.__stderr__:  # the same stream, in a server's process
        return None
    if isinstance(answer, str):
        return "that is a name, as text; print(..., file=...) and logging need the stream object itself"
    if answer is None:
        return "with nowhere to go, the server's logs are lost, and they are how you debug it"
    if answer is sys.stdout or answer is sys.__stdout__:
        return ("that is stdout, the process's own or as it started: over stdio it is the wire, "
                "where every line must be a JSON-RPC message")
    return f"expected one of the sys module's streams, got {type(answer).__name__}"


def server_log(answer: Any) -> None:
    """Where a stdio server's logs, banners and debugging prints must go: its stderr."""
    check("server_log", answer, _wrong_stream,
          hint="the spec's stdio rule: which of the process's two output streams is not the protocol's?")


def predict_print(answer: Any, outcome: str) -> None:
    """What a print() to stdout inside a tool did to the call (the page's `outcome`)."""
    check("Prediction", answer, word(outcome, ("answered", "error")),
          hint="while the SDK's stdio server serves, where does the process's stdout point?")


SOLUTIONS: dict[str, str] = {
    "offer": inspect.getsource(offer),
    "q1": "False",
    "server_log": "sys.stderr",
    "predict_print": '"answered"',
    "exercise_1": ('[replace(t, name=f"{prefix}_{t.name}") for prefix, c in '
                   '(("home", connection), ("second", second)) for t in c.tools]'),
}
