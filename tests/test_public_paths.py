"""The import paths the lessons and the README use are a contract: moving code never breaks them.

`PUBLIC` is every `from toolcall_lab... import ...` of the committed lessons and the README,
collected from their import lines. The package may be reorganised underneath (issue 20 moved
each API into a folder of its own), but each of these must keep importing, and a lesson that
starts importing a new path must pin it here first. A module that moves is imported from its
new home everywhere (issue 30 retired the old paths: tests/test_old_paths.py).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: module -> the names lessons and the README import from it ("" for `import module`)
PUBLIC: dict[str, set[str]] = {
    "toolcall_lab": {
        "ApiDouble", "IncompleteStreamError", "InvalidRequestError", "MaxStepsExceeded", "Message",
        "MissingKeyError", "Provider", "ProviderError", "ReasoningBlock", "ScriptedProvider", "StopReason",
        "TextBlock", "Tool", "ToolCall", "ToolResult", "ToolcallLabError", "Transcript", "Turn", "Usage",
        "UsageError", "call", "contract", "estimate_tokens", "get_provider", "loop_input_tokens",
        "loop_input_total", "provider_from_env", "run_agent", "stage", "template", "tool", "wire"},
    "toolcall_lab.approval": {"ask_later"},  # lesson 29
    "toolcall_lab.checks": {
        "why_tool_calling",  # lesson 2
        "reading_calls_from_text",  # lesson 18
        "caching_and_threads",  # lesson 6
        "telling_versions_apart",  # lesson 27
        "reading_the_stop_reason",  # lesson 12
        "reasoning_across_turns",  # lesson 16
        "an_instruction_in_a_result",  # lesson 14
        "compaction_and_server_tools",  # lesson 20
        "caching_for_real", "local_models", "on_the_wire", "one_tool_call", "reasoning_on_the_wire",
        "measuring_a_model", "start_here", "steering_and_guarding", "streaming_on_the_wire",
        "structured_output", "through_the_sdks",
        "frozen_history", "the_bill", "transcript_as_data", "tools_from_another_process",
        "what_the_server_says",
        "when_a_stream_breaks", "when_the_model_misbehaves", "your_own_provider",
        "an_adapter_of_your_own",  # lesson 10
        "when_a_tool_misbehaves",  # lesson 28
        "a_run_that_outlives_its_process"},  # lesson 29
    "toolcall_lab.cancel": {"cancel_open_calls", "open_calls"},  # lesson 22
    "toolcall_lab.compaction": {"compact"},
    "toolcall_lab.context_budget": {"Budget"},  # lesson 20
    "toolcall_lab.contract": {"check_provider", "report"},
    "toolcall_lab.ledger": {"Ledger"},  # lesson 29
    "toolcall_lab.pending": {"Pending"},  # lesson 29
    "toolcall_lab.result_cap": {"CUT"},  # lesson 28
    "toolcall_lab.tool_order": {"stable_order"},  # lesson 19
    "toolcall_lab.tools.invoices": {  # lesson 29
        "OUTBOX_VARIABLE", "api_down", "clear_outbox", "crash_after_sending", "invoice_clerk", "outbox",
        "send_invoice"},
    "toolcall_lab.views.cost": {"cache_effect", "compaction_effect", "compaction_in_loop", "cost_of",
                                "dollars", "loop_bill", "run_cost"},
    "toolcall_lab.double": {"flavour_table"},
    "toolcall_lab.errors": {"McpServerGoneError", "McpToolError", "ToolDefinitionError"},  # lessons 23 and 24
    "toolcall_lab.evals": {"CASES", "SHIPPED_TAPE_CASES", "behaviour", "cases_table", "compare",  # lesson 26
                           "difference", "plot_intervals", "run_eval", "runs_to_tell_apart", "simulate",
                           "wilson"},
    "toolcall_lab.examples": {"PARIS_QUESTION", "SYSTEM_PROMPT", "many_tools", "weather_policy"},  # 5 §7
    "toolcall_lab.loop": {"decide"},
    "toolcall_lab.mcp_loop": {"run_with_server"},  # lessons 23 and 24
    "toolcall_lab.mcp_tools": {"connect", "screen", "version_line"},
    "toolcall_lab.mcp_tools.servers": {"poisoned_weather_server", "weather_server"},
    "toolcall_lab.mcp_tools.stdio": {"connect_stdio", "weather_command"},  # lesson 24
    "toolcall_lab.messages": {"Block"},
    "toolcall_lab.misbehaving": {
        "fills_the_window", "guesses_the_city", "invents_a_tool", "keeps_checking", "obeys_injection",
        "obeys_tool_descriptions", "pauses_a_search", "picks_by_description", "sends_bad_arguments",
        "slips_at"},
    "toolcall_lab.models": {"SERVER_TOOL_FEES", "TEACHING_MODEL", "default_model", "price_of", "rules_of",
                            "tool_prompt_tokens", "context_window_of",
                            "require_price"},
    "toolcall_lab.output_format": {"OutputFormat", "problems", "read_reply"},
    "toolcall_lab.parts_api": {"DOC", "PartsServer", "post"},
    "toolcall_lab.views.plots": {"Upload", "describe_caching", "describe_estimated_vs_billed",
                           "describe_loop_tokens", "describe_upload_vs_bill", "plot_caching",
                           "plot_estimated_vs_billed", "plot_loop_tokens", "plot_upload_vs_bill"},
    "toolcall_lab.providers.openai_chat": {"LOCAL_SERVERS", "OpenAIChatProvider"},
    "toolcall_lab.recorded": {"RECORDINGS", "timeline"},
    "toolcall_lab.views.report": {"calls_table", "hop_table", "loop_table", "price_table", "rules_table",
                            "stop_table", "trace_table", "wire_json"},
    "toolcall_lab.server_tools": {"web_search"},
    "toolcall_lab.tape": {"load", "record", "replay"},
    "toolcall_lab.teacher.budget": {"class_budget"},  # the README
    "toolcall_lab.teacher.doctor": {"check_environment"},  # the start page's one line
    "toolcall_lab.teacher.hosted": {"install_lessons_packages"},  # every lesson's first cell
    "toolcall_lab.tokens": {"request_text", "request_tokens"},  # request_tokens: lesson 5 §7
    "toolcall_lab.tool": {"execute", "tool_map", "abandoned", "still_running"},
    "toolcall_lab.stream": {"ArgumentsDelta", "ToolCallStarted"},  # the README
    "toolcall_lab.tools": {"EXAMPLE_TOOLS", "calculator", "delete_files", "get_weather", "read_file",
                           "search_kb"},
    "toolcall_lab.tools.files": {"DELETIONS"},
    "toolcall_lab.views.display": {"sequence_diagram"},
    "toolcall_lab.views.widgets": {"cost_explorer", "interval_explorer", "pick_provider", "schema_lab",
                             "step_through", "stream_player", "wire_view"},
    "toolcall_lab.wire": {"APIS", "chat", "check", "codec", "decode_response", "encode_request",
                          "foreign_reasoning"},
    "toolcall_lab.wire.flavours": {"FLAVOURS"},  # lesson 17
}


def imports_in(code: str) -> set[tuple[str, str]]:
    """(module, name) of every toolcall_lab import in `code` (IPython's % and ! lines left out)."""
    python = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(python))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "toolcall_lab":
            found |= {(node.module, alias.name) for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {(alias.name, "") for alias in node.names if alias.name.split(".")[0] == "toolcall_lab"}
    return found


def used_by_the_lessons() -> set[tuple[str, str]]:
    found = set()
    for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "code":
                found |= imports_in("".join(cell["source"]))
    readme = [line.strip()[4:] for line in (ROOT / "README.md").read_text().splitlines()
              if line.strip().startswith((">>> ", "... "))]
    return found | imports_in("\n".join(readme))


def test_every_path_a_lesson_or_the_readme_imports_is_pinned():
    pinned = {(module, name) for module, names in PUBLIC.items() for name in names}
    assert sorted(used_by_the_lessons() - pinned) == [], "pin the new path in PUBLIC first"


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_every_pinned_path_imports(module):
    imported = importlib.import_module(module)
    for name in PUBLIC[module]:
        assert name == "" or hasattr(imported, name) or importlib.util.find_spec(f"{module}.{name}"), (
            f"from {module} import {name} no longer works")


def test_each_api_is_still_its_codec_at_wire_dot_its_name():
    """`from toolcall_lab.wire import chat` (lesson 9) is the codec the registry names, now a package,
    and `codec(api)` still offers the server half's `encode_response` (lessons 7 and 15)."""
    from toolcall_lab.wire import API_SPECS, codec

    for name, spec in API_SPECS.items():
        module = importlib.import_module(f"toolcall_lab.wire.{name}")
        assert spec.codec is module is codec(name)
        assert codec(name).encode_response is spec.server.encode_response
    chat = importlib.import_module("toolcall_lab.wire.chat")
    assert all(callable(getattr(chat, f)) for f in ("encode_request", "check_request", "decode_response"))

