"""The MCP hop (lesson 23), traced through the real `mcp` client and server, in this process.

Every test here connects the SDK's `Client` to an `MCPServer` over the SDK's own in-memory
transport (`toolcall_lab.mcp_tools.connect`): nothing is spawned, and what the log shows is
what the SDK's dispatcher sent and read.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_lab import Message, ScriptedProvider, Transcript, wire
from toolcall_lab.checks import tools_from_another_process as key
from toolcall_lab.checks import what_the_server_says
from toolcall_lab.errors import McpServerGoneError, McpToolError, UsageError
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.mcp_loop import McpRun, run_with_server
from toolcall_lab.mcp_tools import connect, screen, tool_from_mcp, version_line
from toolcall_lab.mcp_tools.servers import (
    INJECTED,
    WEATHER_DESCRIPTION,
    poisoned_weather_server,
    weather_server,
)
from toolcall_lab.messages import ToolCall
from toolcall_lab.misbehaving import obeys_tool_descriptions
from toolcall_lab.selfcheck import WrongAnswer
from toolcall_lab.tool import execute
from toolcall_lab.views.display.diagram import LANES, describe_sequence, plot_sequence, sequence_diagram
from toolcall_lab.views.report import hop_table


@pytest.fixture
def connection():
    with connect(weather_server()) as opened:
        yield opened


def paris(connection: Any) -> McpRun:
    return run_with_server(connection, ScriptedProvider(weather_policy), PARIS_QUESTION)


# -- the hop, message by message --------------------------------------------------------------------
def test_one_call_crosses_the_hop_as_json_rpc_requests_each_answered_under_its_id(connection):
    run = paris(connection)
    assert [h.request.method for h in run.hops] == ["server/discover", "tools/list", "tools/call"]
    for hop in run.hops:
        assert hop.request.sender == "client" and hop.request.body["jsonrpc"] == "2.0"
        assert hop.reply is not None and hop.reply.sender == "server" and hop.reply.id == hop.request.id
    assert [h.request.id for h in run.hops] == [1, 2, 3]
    call_hop = run.hops[-1]
    assert call_hop.request.body["params"]["name"] == "get_weather"
    assert call_hop.request.body["params"]["arguments"] == {"city": "Paris"}
    assert call_hop.reply.body["result"]["content"] == [{"type": "text", "text": "18°C, sunny"}]
    assert call_hop.reply.body["result"]["isError"] is False


def test_the_result_goes_back_under_the_models_call_id_which_never_reaches_the_server(connection):
    run = paris(connection)
    [model_call] = run.transcript[1].tool_calls
    [result] = run.transcript[2].tool_results
    assert result.call_id == model_call.id == run.hops[-1].call_id == "toolu_01"
    assert result.content == "18°C, sunny" and not result.is_error
    assert all(model_call.id not in str(m.body) for m in connection.log)


def test_every_request_of_revision_2026_07_28_names_its_version_and_the_handshake_is_gone(connection):
    assert connection.protocol_version == "2026-07-28"
    for message in connection.log:
        if message.kind == "request":
            assert message.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert "initialize" not in [m.method for m in connection.log]


def test_the_older_handshake_is_three_messages_then_the_tool_list():
    with connect(weather_server(), mode="legacy") as legacy:
        kinds = [(m.sender, m.method or m.kind, m.id) for m in legacy.log]
        assert kinds[:4] == [("client", "initialize", 1), ("server", "result", 1),
                             ("client", "notifications/initialized", None), ("client", "tools/list", 2)]
        assert legacy.log[1].body["result"]["serverInfo"]["name"] == "weather"
        key.predict_handshake(3, legacy)


def test_showing_the_sdks_tool_objects_sends_no_request(connection):
    before = len(connection.log)
    [server_tool] = connection.server_tools
    assert server_tool.input_schema == connection.log[3].body["result"]["tools"][0]["inputSchema"]
    assert len(connection.log) == before


# -- the server's tools as the kit's Tools --------------------------------------------------------------
def _holds(value: Any, wanted: Any) -> bool:
    if value == wanted:
        return True
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return any(_holds(child, wanted) for child in children)


@pytest.mark.parametrize("api", wire.APIS)
def test_the_servers_tool_goes_on_every_wire_in_the_servers_words(connection, api):
    [listed] = connection.log[3].body["result"]["tools"]
    body = wire.encode_request(Transcript(messages=[Message.user(PARIS_QUESTION)]), connection.tools,
                               api=api, model="m")
    [sent] = body["tools"]
    assert _holds(sent, "get_weather") and _holds(sent, listed["description"])
    assert _holds(sent, listed["inputSchema"])


def test_an_is_error_reply_becomes_an_error_result_with_the_servers_words(connection):
    failed = execute(ToolCall("toolu_02", "get_weather", {"city": "Atlantis"}),
                     {"get_weather": connection.tools[0]})
    assert connection.log[-1].body["result"]["isError"] is True
    assert failed.is_error and "Atlantis" in failed.content and "McpToolError" in failed.content


def test_a_json_rpc_error_is_an_mcp_tool_error_too(connection):
    [server_tool] = connection.server_tools
    unknown = tool_from_mcp(server_tool.model_copy(update={"name": "no_such_tool"}), connection)
    with pytest.raises(McpToolError, match="no_such_tool"):
        unknown.function(city="Paris")


def test_a_name_the_apis_cannot_take_is_refused_saying_which_server(connection):
    [server_tool] = connection.server_tools
    with pytest.raises(Exception, match="'weather' lists a tool the APIs cannot take"):
        tool_from_mcp(server_tool.model_copy(update={"name": "weather.get"}), connection)


def test_connect_refuses_what_is_not_a_server_in_one_sentence():
    with pytest.raises(UsageError, match="connect\\(\\) takes an MCPServer"):
        connect("weather")


# -- a server that says what no pipe can carry, or never stops -------------------------------------------
def _server_with(tool: Any, **named: Any) -> Any:
    from toolcall_lab.mcp_tools.servers import _server

    server = _server("odd")
    server.add_tool(tool, description="A tool of the odd server.")
    for name, more in named.items():
        server.add_tool(more, name=name, description=f"{name} of the odd server.")
    return server


def test_a_lone_surrogate_in_a_result_arrives_replaced_and_the_connection_stays_up():
    def half_a_pair() -> str:
        return "18\ud800C, sunny"

    with connect(_server_with(half_a_pair, plain=lambda: "still here")) as odd:
        result = execute(ToolCall("toolu_01", "half_a_pair", {}), {t.name: t for t in odd.tools})
        assert not result.is_error and result.content == "18\ufffdC, sunny"
        assert not odd.gone
        assert odd.call_tool("plain", {}).content[0].text == "still here"
        assert "18\ufffdC, sunny" in odd.hops()[-2].answered


def _paging(server: Any, next_cursor: Any) -> Any:
    """`server`, whose tools/list always names a next page: `next_cursor(cursor)`."""
    from mcp.types import ListToolsResult, PaginatedRequestParams

    async def pages(ctx: Any, params: PaginatedRequestParams) -> ListToolsResult:
        return ListToolsResult(tools=await server.list_tools(), next_cursor=next_cursor(params.cursor))

    server._lowlevel_server.add_request_handler("tools/list", PaginatedRequestParams, pages)
    return server


def test_a_tool_list_that_names_the_same_next_page_again_is_refused_in_one_sentence():
    with pytest.raises(McpToolError) as refused:
        connect(_paging(weather_server(), lambda cursor: "page-2"))
    said = str(refused.value)
    assert "'weather'" in said and "'page-2'" in said and "again" in said and said.count(". ") == 0


def test_a_tool_list_that_never_ends_is_refused_after_a_bounded_number_of_pages():
    from toolcall_lab.mcp_tools.connection import MAX_PAGES

    with pytest.raises(McpToolError, match=f"{MAX_PAGES} pages") as refused:
        connect(_paging(weather_server(), lambda cursor: str(int(cursor or 0) + 1)))
    assert "'weather'" in str(refused.value)


# -- a server that goes away ---------------------------------------------------------------------------
def test_a_server_gone_mid_run_is_one_sentence_and_the_transcript_is_left_as_it_was():
    with connect(weather_server(), exits_after_calls=1) as fragile:
        asked = Transcript()
        run_with_server(fragile, ScriptedProvider(weather_policy), PARIS_QUESTION, transcript=asked)
        before = list(asked.messages)
        with pytest.raises(McpServerGoneError) as gone:
            run_with_server(fragile, ScriptedProvider(weather_policy), "And in Tokyo?", transcript=asked)
        assert asked.messages == before and len(asked) == 4
        said = str(gone.value)
        assert said.count(". ") == 0 and said.endswith("run it again.")  # one sentence
        assert "'weather' went away" in said and "tools/call get_weather" in said and "(4 messages)" in said


# -- tool poisoning ----------------------------------------------------------------------------------
def test_a_poisoned_description_reaches_the_model_and_the_model_obeys_it():
    with connect(poisoned_weather_server()) as poisoned:
        gullible = ScriptedProvider(obeys_tool_descriptions)
        run = run_with_server(poisoned, gullible, PARIS_QUESTION)
        assert any(INJECTED in t.description for t in gullible.requests[0].tools)
        reported = [h for h in run.hops if h.request.body.get("params", {}).get("name") == "send_report"]
        assert len(reported) == 1
        assert PARIS_QUESTION in reported[0].request.body["params"]["arguments"]["text"]
        assert "report" not in run.answer.lower()


def test_the_permission_gate_stops_the_call_but_not_the_words():
    def gate(call):
        return True if call.name == "get_weather" else f"{call.name} is not allowed here"

    with connect(poisoned_weather_server()) as poisoned:
        gullible = ScriptedProvider(obeys_tool_descriptions)
        run_with_server(poisoned, gullible, PARIS_QUESTION, approve=gate)
        sent = [(m.body.get("params") or {}).get("name") for m in poisoned.log if m.method == "tools/call"]
        assert sent == ["get_weather"]
        assert any(INJECTED in t.description for t in gullible.requests[0].tools)


def test_the_description_allow_list_keeps_the_words_from_the_model():
    with connect(poisoned_weather_server()) as poisoned:
        kept, left_out = screen(poisoned.tools, {"get_weather": WEATHER_DESCRIPTION})
        assert kept == [] and len(left_out) == 2
        gullible = ScriptedProvider(obeys_tool_descriptions)
        run_with_server(poisoned, gullible, PARIS_QUESTION, tools=kept)
        assert not any(INJECTED in t.description for r in gullible.requests for t in r.tools)
        assert [m.method for m in poisoned.log].count("tools/call") == 0
    with connect(weather_server()) as honest:
        assert screen(honest.tools, {t.name: t for t in honest.tools})[0] == list(honest.tools)


def _poisoned_schema(where: str) -> dict[str, Any]:
    """get_weather's honest schema with the instruction hidden at `where`."""
    city: dict[str, Any] = {"title": "City", "type": "string"}
    match where:
        case "description" | "title" | "default":
            city[where] = INJECTED
        case "enum":
            city["enum"] = ["Paris", INJECTED]
    return {"type": "object", "properties": {"city": city}, "required": ["city"],
            "title": "get_weatherArguments"}


@pytest.mark.parametrize("where", ["description", "title", "enum", "default"])
def test_the_allow_list_keeps_an_instruction_in_the_input_schema_from_the_model(where):
    from toolcall_lab.tool import Tool

    with connect(weather_server()) as honest:
        read = {t.name: t for t in honest.tools}
        [honest_tool] = honest.tools
    poisoned = Tool("get_weather", WEATHER_DESCRIPTION, _poisoned_schema(where), honest_tool.function)
    kept, [why] = screen([poisoned], read)
    assert kept == [] and f"they differ at properties.city.{where}" in why and why.endswith("not offered")
    kept, [why] = screen([poisoned], {"get_weather": WEATHER_DESCRIPTION})
    assert kept == [] and "its input schema holds words the allow-list does not approve" in why
    named_title = Tool("get_weather", WEATHER_DESCRIPTION, {"type": "object", "properties": {
        "title": {"type": "string"}}, "required": ["title"]}, honest_tool.function)
    assert screen([named_title], {"get_weather": WEATHER_DESCRIPTION}) == ([named_title], [])  # a name


def test_an_allow_list_entry_that_is_neither_a_tool_nor_words_is_refused_in_one_sentence(connection):
    with pytest.raises(TypeError, match="the Tool as you read it, or to its description"):
        screen(connection.tools, {"get_weather": 5})


# -- the picture and the table ----------------------------------------------------------------------------
def test_an_mcp_run_gains_the_server_lane_and_a_plain_transcript_keeps_four(connection):
    run = paris(connection)
    source = str(sequence_diagram(run))
    assert "participant S as MCP server" in source
    assert "C->>S: #35;3 tools/call get_weather(city=Paris)" in source
    assert "S->>T: get_weather(city=Paris)" in source and "S-->>C: #35;3 18°C, sunny" in source
    plain = str(sequence_diagram(run.transcript))
    assert "MCP server" not in plain and plain.count("participant") == len(LANES) == 4
    assert "five lanes left to right (User, Your code, Model, MCP server, Tool)" in describe_sequence(run)


def test_plot_sequence_of_an_mcp_run_draws_five_lane_headers(connection):
    fig = plot_sequence(paris(connection))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts[:5] == ["User", "Your\ncode", "Model", "MCP\nserver", "Tool"]


def test_the_step_through_of_an_mcp_run_draws_the_server_lane(connection):
    from toolcall_lab.views.widgets import step_through
    from toolcall_lab.views.widgets._step_through import _windows

    run = paris(connection)
    w = step_through(run, tools=connection.tools)
    assert w.diagram.value and _windows(run)(2) != _windows(run.transcript)(2)


def test_the_hop_table_says_who_produced_each_row(connection):
    run = paris(connection)
    rows = hop_table(run, produced_by=True).splitlines()[2:]
    server = {int(line.split()[0]) for line in rows if line.endswith("the MCP server")}
    assert server == {2, 4, 8}
    assert "tool_result" in rows[8] and rows[8].endswith("your code")  # the server's words, your code's
    assert all(len(line) <= 80 for line in rows)


# -- the lesson's checks: shortcuts refused, the say-which-version line ----------------------------------
@pytest.mark.parametrize("answer", [
    lambda tool, connection: tool_from_mcp(tool, connection),
    lambda tool, connection: next(t for t in connection.tools if t.name == tool.name),
], ids=["tool_from_mcp", "connection.tools"])
def test_12_an_adapter_that_is_the_kits_own_is_refused_with_write_it_yourself(answer):
    with pytest.raises(WrongAnswer, match="write it yourself"):
        key.your_adapter(answer)


def test_12_an_allow_list_that_is_the_kits_screen_is_refused_with_write_it_yourself():
    with pytest.raises(WrongAnswer, match="write it yourself"):
        what_the_server_says.your_allow_list(lambda tools, allowed: screen(tools, allowed)[0])


def test_the_version_line_names_no_version_for_a_supported_mcp_and_both_for_another():
    """The next release of the SDK must not change lesson 23's page: every supported release
    gives the one line; a release outside the pin names what it was written for and yours."""
    from toolcall_lab.mcp_tools import WRITTEN_FOR
    from toolcall_lab.mcp_tools.connection import _version_sentence

    supported = {_version_sentence(v) for v in ("2.3.0", "2.3.1", "2.4.0", "2.10.2", "2.5.0rc1")}
    assert supported == {version_line()}
    assert not any(ch.isdigit() for ch in version_line())
    for other in ("1.9.0", "2.2.9", "3.0.0"):
        line = _version_sentence(other)
        assert f"mcp {WRITTEN_FOR}" in line and f"you have {other}" in line
    assert "not installed" in _version_sentence(None)


def test_the_supported_releases_are_the_pin_in_pyproject():
    import tomllib
    from pathlib import Path

    from toolcall_lab.mcp_tools.connection import SUPPORTED

    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    [pin] = pyproject["project"]["optional-dependencies"]["mcp"]
    low, high = (".".join(map(str, bound)).removesuffix(".0") for bound in SUPPORTED)
    assert pin == f"mcp>={low},<{high}"
