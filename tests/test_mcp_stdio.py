"""A real MCP server over stdio, run as a subprocess by the official client (`mcp_tools/stdio.py`).

Every test here starts a process, so every test is slow (tests/conftest.py).
"""

from __future__ import annotations

import logging

import anyio
import pytest

from toolcall_lab import ScriptedProvider
from toolcall_lab.errors import McpToolError
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.mcp_loop import run_with_server
from toolcall_lab.mcp_tools import stdio
from toolcall_lab.mcp_tools.stdio import SDK_PARSE_LOG, connect_stdio, weather_command

pytestmark = pytest.mark.slow


def test_a_stdio_server_in_another_process_lists_its_tools_and_answers_a_run():
    with connect_stdio(weather_command(), name="weather") as connection:
        assert [t.name for t in connection.tools] == ["get_weather"]
        run = run_with_server(connection, ScriptedProvider(weather_policy), PARIS_QUESTION)
    assert run.answer == "It's 18°C and sunny in Paris."
    assert [h.request.method for h in run.hops] == ["server/discover", "tools/list", "tools/call"]
    assert run.transcript[2].tool_results[0].content == "18°C, sunny"


def test_what_the_official_client_itself_reports_for_a_line_that_is_not_json_rpc(caplog):
    """The SDK logs a parse error, hands it to message_handler as a fault, drops the line, reads on."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    faults = []

    async def handler(message):
        if isinstance(message, Exception):
            faults.append(message)

    async def session():
        program, *args = weather_command("--banner")
        server = StdioServerParameters(command=program, args=args)
        async with Client(server, message_handler=handler) as client:
            return [t.name for t in (await client.list_tools()).tools]

    quiet = logging.getLogger("mcp.client.stdio")
    quiet.removeFilter(stdio._QUIET)  # subtle: the kit's filter hides this record; see it raw here
    with caplog.at_level(logging.ERROR, logger="mcp.client.stdio"):
        names = anyio.run(session)
    assert names == ["get_weather"]                               # the session went on
    assert [r.getMessage() for r in caplog.records if r.name == "mcp.client.stdio"] == [SDK_PARSE_LOG]
    assert len(faults) == 1 and "weather server ready" in str(faults[0])


def test_the_kit_turns_a_stray_stdout_line_into_one_sentence(caplog):
    with caplog.at_level(logging.ERROR, logger="mcp.client.stdio"), \
            pytest.raises(McpToolError) as raised:
        connect_stdio(weather_command("--banner"), name="weather")
    said = str(raised.value)
    assert "\n" not in said
    assert said.startswith("the MCP server 'weather' wrote a line to its stdout that is not a JSON-RPC "
                           "message ('weather server ready')")
    assert "print(..., file=sys.stderr)" in said
    assert SDK_PARSE_LOG not in caplog.text                       # no traceback beside the sentence


@pytest.mark.parametrize("flag", ["--print", "--stderr"])
def test_a_print_inside_a_tool_misses_the_wire_while_the_sdk_serves(flag):
    """mcp 2.3's stdio_server points fd 1 at stderr while it serves: a tool's print() cannot reach the
    client (its docstring: "their stray output misses the wire"); only output before serving can."""
    with connect_stdio(weather_command(flag)) as connection:
        assert connection.tools[0].function(city="Paris") == "18°C, sunny"
        assert connection._pipe.faults == []


def test_a_command_must_be_a_list():
    from toolcall_lab import UsageError

    with pytest.raises(UsageError, match="a list of strings"):
        connect_stdio("python -m toolcall_lab.mcp_tools.stdio_server")


def test_the_servers_stderr_goes_to_a_file_of_the_connection_never_to_this_process(capfd):
    """A notebook's stderr lands in whichever cell runs (or has no descriptor): the lesson reads it here."""
    with connect_stdio(weather_command("--stderr"), name="weather") as connection:
        assert connection.tools[0].function(city="Paris") == "18°C, sunny"
        assert connection.server_stderr == "looking up Paris\n"
    assert "looking up" not in capfd.readouterr().err


def test_a_file_of_your_own_gets_the_servers_stderr(tmp_path):
    with open(tmp_path / "server.log", "w+", encoding="utf-8") as log:
        with connect_stdio(weather_command("--stderr"), errlog=log) as connection:
            connection.tools[0].function(city="Tokyo")
            assert connection.server_stderr == "looking up Tokyo\n"
    assert (tmp_path / "server.log").read_text(encoding="utf-8") == "looking up Tokyo\n"
