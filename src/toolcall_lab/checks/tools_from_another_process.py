# mypy: disable-error-code="no-untyped-def"
# (the worked definitions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 12, "Tools from another process".

Most answers are values, each computed from the lesson's own data (its run, its
connections), so a real provider's ids work as well as the scripted ones. Two are code the
learner writes in a `your-code` cell, judged by what it does on a server the page does not
show (`mcp_tools.servers.checker_server`), one clause at a time; a definition whose body is
still the template's `...` counts as not answered yet, and one that hands the work to the
kit's own function is refused ("write it yourself"):

    to_kit_tool   the adapter: one tool the server listed -> the kit's Tool, its name,
                  description (or "") and schema as the server gave them, each tool run on
                  the server by its own name (a tools/call for it goes out, and the model
                  reads what the server answered), an isError reply an error result
    offer         the description allow-list: only a tool whose name is allowed *and* whose
                  description is, character for character, the one allowed

The worked definitions are real code below (linted, and run by the tests); `SOLUTIONS`
holds their source, which tests/test_lessons.py puts in place of the templates. Exercise 1's
tools are run too: each must reach its own server, ask for a tool that server lists, and
bring back what the server answers, under the server's words.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..blocks import ToolCall, ToolResult
from ..examples import PARIS_QUESTION
from ..mcp_loop import McpRun, run_with_server
from ..mcp_tools.adapter import result_text, screen, tool_from_mcp
from ..mcp_tools.connection import McpConnection, connect
from ..mcp_tools.servers import INJECTED, WEATHER_DESCRIPTION, checker_server, poisoned_weather_server
from ..misbehaving import obeys_tool_descriptions
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, equal, exact, number
from ..tool import Tool, execute
from ..transcript import Transcript
from ..views.report import hop_rows
from ._runs import raised as _raised
from ._runs import run_watching
from ._runs import template as _template

__all__ = ["SOLUTIONS", "exercise_1", "offer", "predict_after_gone", "predict_handshake",
           "predict_result_id", "q1", "server_rows", "to_kit_tool", "your_adapter", "your_allow_list"]


# -- the worked definitions ------------------------------------------------------------------------
def to_kit_tool(server_tool, connection):
    """The kit's Tool for one tool the server listed, run on the server."""
    def on_the_server(**arguments):
        result = connection.call_tool(server_tool.name, arguments)
        text = "\n".join(block.text for block in result.content)
        if result.is_error:
            raise RuntimeError(text)
        return text

    return Tool(server_tool.name, server_tool.description or "",
                server_tool.input_schema, on_the_server)


def offer(tools, allowed):
    """Tools whose name is allowed and whose description is the allowed one."""
    return [tool for tool in tools
            if tool.name in allowed and tool.description == allowed[tool.name]]


# -- section 2: your adapter -------------------------------------------------------------------------
def _made(adapter: Any, server_tool: Any, probe: McpConnection) -> tuple[Any, str | None]:
    """(what `adapter` built for `server_tool`, or None and what is wrong with the answer)."""
    try:
        made, handed = run_watching(tool_from_mcp, adapter, server_tool, probe)
    except Exception as exc:
        return None, f"it raised {_raised(exc)} for the tool {server_tool.name!r}"
    if handed:
        return None, "it hands the work to the kit's tool_from_mcp; write it yourself, field by field"
    if not isinstance(made, Tool):
        return None, f"it returned a {type(made).__name__} for {server_tool.name!r}; build the kit's Tool"
    if any(made is kits for kits in probe.tools):
        return None, ("it returns the connection's own Tool (connection.tools, the kit's version); "
                      "write it yourself")
    return made, None


def _wrong_words(made: Tool, server_tool: Any) -> str | None:
    """What the model would be shown that the server did not say."""
    if made.name != server_tool.name:
        return f"its name is {made.name!r}; the server calls the tool {server_tool.name!r}"
    said = server_tool.description or ""
    if made.description != said:
        return (f"its description for {server_tool.name!r} is {made.description[:40]!r}, not the "
                f"server's {said[:40]!r}: the model must read the server's words as given")
    if dict(made.input_schema) != dict(server_tool.input_schema):
        return "its input_schema is not the one the server listed (inputSchema)"
    return None


#: What the checks send each tool of the checker server when they run it, by the server's name.
_ARGUMENTS: dict[str, dict[str, Any]] = {"get_weather": {"city": "Paris"}, "server_time": {}}


def _wrong_run(made: Tool, server_tool: Any, probe: McpConnection) -> str | None:
    """Running the tool must ask the server for this tool, and the model must read what it answered."""
    arguments = _ARGUMENTS.get(server_tool.name, {})
    before = len(probe.log)
    ran, leaned = run_watching(probe.tools[0].function, execute,
                               ToolCall("toolu_01", made.name, arguments), {made.name: made})
    if leaned:
        return ("its function is the connection's own (connection.tools, the kit's version); write it "
                "yourself, with connection.call_tool")
    asked = [m.body.get("params", {}).get("name") for m in probe.log[before:] if m.method == "tools/call"]
    if not asked:
        return (f"running {made.name!r} did not ask the server: no tools/call went out; its function must "
                "call the tool there")
    if asked[-1] != server_tool.name:
        return (f"running {made.name!r} asks the server for {asked[-1]!r}; ask for the tool the Tool "
                "stands for, by the server's name")
    answered = result_text(probe.call_tool(server_tool.name, arguments))
    if ran.is_error or ran.content != answered:
        return (f"for {server_tool.name!r} the model would read {ran.content[:50]!r}; it should read the "
                f"text the server sent, {answered[:30]!r}")
    return None


def _wrong_error(made: Tool, probe: McpConnection) -> str | None:
    """An isError reply must become an error result that keeps the server's words."""
    failed = execute(ToolCall("toolu_02", made.name, {"city": "Atlantis"}), {made.name: made})
    if not failed.is_error:
        return (f"the server answered isError for Atlantis, and the model would read {failed.content[:40]!r} "
                "as an ordinary result; an error reply must become an error result")
    if "Atlantis" not in failed.content:
        return f"the error result {failed.content[:50]!r} lost the server's words"
    return None


def _wrong_adapter(adapter: Any) -> str | None:
    if not callable(adapter) or isinstance(adapter, type):
        return f"expected the function itself (to_kit_tool, without brackets), got {type(adapter).__name__}"
    with connect(checker_server()) as probe:
        weather, clock = probe.list_tools()
        quiet = clock.model_copy(update={"description": None})  # a server may list no description
        built = []
        for server_tool in (weather, clock, quiet):
            made, problem = _made(adapter, server_tool, probe)
            if problem is None and made is not None:
                problem = _wrong_words(made, server_tool)
            if problem is not None:
                return problem
            built.append((made, server_tool))
        for made, server_tool in built:
            problem = _wrong_run(made, server_tool, probe)
            if problem is not None:
                return problem
        return _wrong_error(built[0][0], probe)


def your_adapter(answer: Any) -> None:
    """Your to_kit_tool, on a server of the kit's: the server's words, run on the server, errors kept."""
    check("to_kit_tool", ... if _template(answer) else answer, _wrong_adapter,
          why="the model is shown the server's words, and your code asks the server to run it",
          hint="section 1 shows what tools/list says of a tool; the SDK's Python object names the same "
               "fields in snake_case, and a CallToolResult has content blocks and is_error")


# -- section 3: one call across the hop ---------------------------------------------------------------
def _first_call(run: Any) -> Any:
    hops = run.hops if isinstance(run, McpRun) else []
    return next((h for h in hops if h.call_id is not None), None)


def predict_result_id(answer: Any, run: Any) -> None:
    """The id the tool result the model reads carries: the model's call id, not the JSON-RPC one."""
    hop = _first_call(run)
    expected = hop.call_id if hop is not None else ""

    def compare(given: Any) -> str | None:
        if hop is not None and given in (hop.request.id, str(hop.request.id)):
            return "that is the JSON-RPC id of your code's request to the server, which the model never saw"
        return exact(str(expected))(given)

    check("Prediction", answer, compare,
          hint="the result goes back to the model, which matches results to its own calls (lesson 1)")


def _server_rows(run: Any) -> set[int]:
    return {int(row[0]) for row in hop_rows(run) if row[-1] == "the MCP server"}


def server_rows(answer: Any, run: Any) -> None:
    """The rows of the hop table the MCP server produced."""
    expected = _server_rows(run)

    def compare(given: Any) -> str | None:
        if not isinstance(given, set | frozenset) or not all(isinstance(n, int) for n in given):
            return "answer with a set of row numbers, like {1, 2}"
        if expected < given:
            extra = sorted(given - expected)
            return f"row {extra[0]} was not written by the server" if len(extra) == 1 else \
                "some of those rows were written by your code, the user or the model"
        if given < expected:
            return "the server wrote more rows than those"
        return None if given == expected else "that is not the set of the server's rows"

    check("server_rows", answer, compare,
          hint="the server only ever answers your code's requests; a message on the model's side is never "
               "the server's, whoever's words it carries")


# -- section 6: the handshake ----------------------------------------------------------------------------
def predict_handshake(answer: Any, legacy: Any) -> None:
    """How many messages crossed before the first tools/list, on a connection opened with the handshake."""
    log = legacy.log if isinstance(legacy, McpConnection) else []
    before = next((i for i, m in enumerate(log) if m.method == "tools/list"), len(log))
    check("Prediction", answer, number(before),
          hint="count every message both ways: the client proposes, the server answers, the client "
               "acknowledges")


# -- section 7: a server that goes away -----------------------------------------------------------------
def predict_after_gone(answer: Any, asked: Any) -> None:
    """How many messages the transcript holds after the run the server's exit broke."""
    check("Prediction", answer, number(len(asked) if isinstance(asked, Transcript) else 0),
          hint="what does run_with_server promise about the transcript when it stops a run?")


# -- section 8: your allow-list --------------------------------------------------------------------------
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
          hint="section 8: what does the allow-list compare, and how much of it?")


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
          hint="a Tool is a frozen dataclass, and lesson 7 (section 5) made a changed copy of one; its "
               "function still asks its own server for the tool by the server's name")


SOLUTIONS: dict[str, str] = {
    "to_kit_tool": inspect.getsource(to_kit_tool),
    "predict_result_id": '"toolu_01"',
    "server_rows": "{2, 4, 8}",
    "predict_handshake": "3",
    "predict_after_gone": "4",
    "offer": inspect.getsource(offer),
    "q1": "False",
    "exercise_1": ('[replace(t, name=f"{prefix}_{t.name}") for prefix, c in '
                   '(("home", connection), ("second", second)) for t in c.tools]'),
}
