"""Lesson 23's wrong answers: ids, row sets, counts and adapters that each get one thing wrong.

The data are the lesson's own, made here through the real `mcp` client and server, in this
process: a run on the honest server, a connection by the older handshake, a transcript a
server's exit left as it was, and two servers that both list get_weather.
"""

from __future__ import annotations

from dataclasses import replace

from checkrows import Row
from toolcall_lab import ScriptedProvider, Tool, Transcript
from toolcall_lab.checks import tools_from_another_process as key
from toolcall_lab.checks.tools_from_another_process import to_kit_tool
from toolcall_lab.errors import McpServerGoneError
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.mcp_loop import run_with_server
from toolcall_lab.mcp_tools import connect, tool_from_mcp
from toolcall_lab.mcp_tools.servers import weather_server
from toolcall_lab.tools.weather import get_weather as kit_weather

HOME = connect(weather_server())
RUN = run_with_server(HOME, ScriptedProvider(weather_policy), PARIS_QUESTION)
CALL_HOP = RUN.hops[-1]
LEGACY = connect(weather_server(), mode="legacy")


def gone_transcript() -> Transcript:
    """The lesson's section 7: one question answered, a second broken by the server's exit."""
    fragile = connect(weather_server(), exits_after_calls=1)
    asked = Transcript()
    run_with_server(fragile, ScriptedProvider(weather_policy), PARIS_QUESTION, transcript=asked)
    try:
        run_with_server(fragile, ScriptedProvider(weather_policy), "And in Tokyo?", transcript=asked)
    except McpServerGoneError:
        pass
    fragile.close()
    return asked


ASKED = gone_transcript()


# -- adapters, wrong one way each --------------------------------------------------------------------
def forgets_errors(server_tool, connection):
    """An isError reply read as an ordinary result."""
    def on_the_server(**arguments):
        result = connection.call_tool(server_tool.name, arguments)
        return "\n".join(block.text for block in result.content)
    return Tool(server_tool.name, server_tool.description or "", server_tool.input_schema, on_the_server)


def keeps_none(server_tool, connection):
    """A missing description passed on as None."""
    made = to_kit_tool(server_tool, connection)
    return Tool(server_tool.name, server_tool.description, server_tool.input_schema, made.function)


def runs_it_here(server_tool, connection):
    """The kit's own weather function, run here: the server is never asked."""
    return Tool(server_tool.name, server_tool.description or "", server_tool.input_schema,
                lambda city: kit_weather.function(city=city))


def own_words(server_tool, connection):
    """A description of its own instead of the server's."""
    return replace(to_kit_tool(server_tool, connection), description=f"The {server_tool.name} tool.")


def loses_the_schema(server_tool, connection):
    return replace(to_kit_tool(server_tool, connection), input_schema={"type": "object"})


def hands_it_to_the_kit(server_tool, connection):
    return tool_from_mcp(server_tool, connection)


def the_connections_own(server_tool, connection):
    return next(t for t in connection.tools if t.name == server_tool.name)


def a_copy_of_the_connections_own(server_tool, connection):
    """dataclasses.replace of the kit's Tool: a new object, the kit's function."""
    return replace(next(t for t in connection.tools if t.name == server_tool.name))


def wraps_the_connections_function(server_tool, connection):
    """Its own Tool, whose function only calls the kit's."""
    kits = next(t for t in connection.tools if t.name == server_tool.name)
    return Tool(server_tool.name, server_tool.description or "", server_tool.input_schema,
                lambda **arguments: kits.function(**arguments))


def always_the_weather(server_tool, connection):
    """Its function asks the server for get_weather, whichever tool it stands for."""
    def on_the_server(**arguments):
        result = connection.call_tool("get_weather", arguments)
        text = "\n".join(block.text for block in result.content)
        if result.is_error:
            raise RuntimeError(text)
        return text
    return Tool(server_tool.name, server_tool.description or "", server_tool.input_schema, on_the_server)


ROWS = [
    Row("23 to_kit_tool", key.your_adapter, (), lambda: to_kit_tool,
        (lambda: "to_kit_tool", lambda: forgets_errors, lambda: keeps_none, lambda: runs_it_here,
         lambda: own_words, lambda: loses_the_schema, lambda: hands_it_to_the_kit,
         lambda: the_connections_own, lambda: a_copy_of_the_connections_own,
         lambda: wraps_the_connections_function, lambda: always_the_weather)),
    Row("23 predict_result_id", key.predict_result_id, (RUN,), lambda: CALL_HOP.call_id,
        (lambda: str(CALL_HOP.request.id), lambda: CALL_HOP.request.id, lambda: CALL_HOP.call_id.upper(),
         lambda: f"id {CALL_HOP.call_id}", lambda: "toolu_02")),
    Row("23 server_rows", key.server_rows, (RUN,), lambda: {2, 4, 8},
        (lambda: {2, 4, 8, 9}, lambda: {2, 4}, lambda: [2, 4, 8], lambda: "2, 4, 8", lambda: {1, 3, 7},
         lambda: {"2", "4", "8"})),
    Row("23 predict_handshake", key.predict_handshake, (LEGACY,), lambda: 3,
        (lambda: 2, lambda: "3", lambda: 4, lambda: 5)),
    Row("23 predict_after_gone", key.predict_after_gone, (ASKED,), lambda: 4,
        (lambda: 5, lambda: 6, lambda: "4", lambda: 0)),
    Row("23 q1", key.q1, (), lambda: 7,
        (lambda: 6, lambda: 5, lambda: "7", lambda: 3, lambda: 2)),
]
