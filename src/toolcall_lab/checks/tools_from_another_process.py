# mypy: disable-error-code="no-untyped-def"
# (the worked definitions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 23, "Tools from another process".

Most answers are values, each computed from the lesson's own data (its run, its
connections), so a real provider's ids work as well as the scripted ones. One is code the
learner writes in a `your-code` cell, judged by what it does on a server the page does not
show (`mcp_tools.servers.checker_server`), one clause at a time; a definition whose body is
still the template's `...` counts as not answered yet, and one that hands the work to the
kit's own function is refused ("write it yourself"):

    to_kit_tool   the adapter: one tool the server listed -> the kit's Tool, its name,
                  description (or "") and schema as the server gave them, each tool run on
                  the server by its own name (a tools/call for it goes out, and the model
                  reads what the server answered), an isError reply an error result

The worked definition is real code below (linted, and run by the tests); `SOLUTIONS` holds
its source, which tests/test_lessons.py puts in place of the template. The allow-list and
the two servers of one name are lesson 24's (`what_the_server_says`).
"""

from __future__ import annotations

import inspect
from typing import Any

from ..blocks import ToolCall
from ..mcp_loop import McpRun
from ..mcp_tools.adapter import result_text, tool_from_mcp
from ..mcp_tools.connection import McpConnection, connect
from ..mcp_tools.servers import checker_server
from ..selfcheck import check, exact, number
from ..tool import Tool, execute
from ..transcript import Transcript
from ..views.report import hop_rows
from ._runs import raised as _raised
from ._runs import run_watching
from ._runs import template as _template

__all__ = ["SOLUTIONS", "predict_after_gone", "predict_handshake", "predict_result_id", "q1",
           "server_rows", "to_kit_tool", "your_adapter"]


# -- the worked definition -------------------------------------------------------------------------
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


# -- check yourself -----------------------------------------------------------------------------------
def _legacy_log_after_one_call() -> int:
    """How many messages an older server's log holds once it has answered one tools/call."""
    from ..mcp_tools.servers import weather_server

    with connect(weather_server(), mode="legacy") as legacy:
        legacy.call_tool("get_weather", {"city": "Paris"})
        return len(legacy.log)


def q1(answer: Any) -> None:
    """The messages in an older server's log after one tools/call, its handshake included."""
    check("Q1", answer, number(_legacy_log_after_one_call()),
          hint="section 6's handshake, then the listing, then one request and its reply")


SOLUTIONS: dict[str, str] = {
    "to_kit_tool": inspect.getsource(to_kit_tool),
    "predict_result_id": '"toolu_01"',
    "server_rows": "{2, 4, 8}",
    "predict_handshake": "3",
    "predict_after_gone": "4",
    "q1": "7",
}
