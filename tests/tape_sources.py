"""How the shipped tapes (src/toolcall_lab/data/tapes/) are built from recorded fixtures.

`python tests/tape_sources.py` writes them again; tests/test_tape.py checks that the shipped
files are exactly what these functions build, so a tape never drifts from its source.

A tape replays through the kit's providers only if its requests are the ones the kit
sends. The fixtures' requests were sent by the vendors' own SDK helpers, which spell some
things differently, so each tape keeps the recorded *responses* verbatim and records the
requests the kit sends for the same conversation: the kit's real provider class, with
its `_send` (the one line that touches the network) answering from the fixture.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolcall_lab import Tool, run_agent
from toolcall_lab.providers.anthropic import AnthropicProvider
from toolcall_lab.providers.openai_chat import OpenAIChatProvider
from toolcall_lab.providers.openai_responses import OpenAIResponsesProvider
from toolcall_lab.tape import Exchange, Tape
from toolcall_lab.wire import API_SPECS

ROOT = Path(__file__).parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
TAPES = ROOT / "src" / "toolcall_lab" / "data" / "tapes"

SDK_RUN = ("https://github.com/anthropics/anthropic-sdk-python/blob/0c20cf40f20edb11ab0453f646bcccf42479d92f/"
           "tests/lib/tools/__inline_snapshot__/test_runners/TestSyncRunTools/"
           "a8ac789b-f856-48cd-9ff3-d5f36799e432.json")
DOTNET = "https://github.com/openai/openai-dotnet/blob/4a51bc9d9f5b83b58155a237d00f19df21abb6a8"
DOTNET_CHAT = "https://github.com/openai/openai-dotnet/blob/c4e8c20e7f31191e46719d8f7a793e160a636b0c"
RESPONSES_RUN = "openai_responses_function_call_run.dotnet_recorded.json"
CHAT_RUN = "openai_chat_tool_call_run.dotnet_recorded.json"


def _canned(cls: type, responses: list[dict[str, Any]]) -> type:
    """`cls` with its network call answered from `responses`, in order (the request is still encoded
    and checked by the kit, exactly as when it is sent)."""

    class Canned(cls):  # type: ignore[misc, valid-type]
        def _send(self, request: dict[str, Any]) -> dict[str, Any]:
            return responses.pop(0)

    return Canned


def build(cls: type, fixture: str, tool: Tool, question: str, **fields: Any) -> Tape:
    """A tape of the kit's `cls` running `question` with `tool` against the recorded responses
    in `fixture`; `fields` are the tape's label, source and settings."""
    run = json.loads((FIXTURES / fixture).read_text(encoding="utf-8"))
    settings = fields.pop("settings", {})
    provider = _canned(cls, [entry["response"]["body"] for entry in run])(
        run[0]["request"]["body"]["model"], api_key="unused", **settings)
    result = run_agent(provider, question, tools=[tool])
    exchanges = tuple(
        Exchange(api=cls.api, path=API_SPECS[cls.api].endpoint, status=entry["response"]["status_code"],
                 model=entry["response"]["body"]["model"], latency_ms=None, request=step.turn.request,
                 response=entry["response"]["body"])
        for entry, step in zip(run, result.steps, strict=True))
    return Tape(api=cls.api, provider=cls.name, model=provider.model, settings=settings, exchanges=exchanges,
                **fields)


def build_anthropic_weather() -> Tape:
    """Claude Haiku 4.5 asks for the weather in SF, gets it, and answers: two live calls."""
    run = json.loads((FIXTURES / "anthropic_tool_runner_run.sdk_recorded.json").read_text(encoding="utf-8"))
    first = run[0]["request"]["body"]
    recorded_result = run[1]["request"]["body"]["messages"][2]["content"][0]["content"]
    get_weather = Tool("get_weather", "", first["tools"][0]["input_schema"],
                       lambda location, units: recorded_result)
    return build(
        AnthropicProvider, "anthropic_tool_runner_run.sdk_recorded.json", get_weather,
        first["messages"][0]["content"], settings={"max_tokens": first["max_tokens"]},
        label="recorded against the real Anthropic Messages API by the anthropic-sdk-python test suite "
              "(responses verbatim; requests as toolcall-lab sends them)",
        source=(f"Responses: {SDK_RUN}, entries 0 and 1, response bodies and statuses verbatim "
                "(tests/lib/tools/test_runners.py: \"all the snapshots in this file are auto-generated "
                "from the live API\"). Requests: what toolcall-lab sends for the same conversation and "
                "tool. The recorded requests (same file) say the same thing spelled two ways the kit "
                "does not: the question as a plain string rather than one text block, and the tool_use "
                "block sent back with the `caller` field the API added. The recording's timings were "
                "not kept, so latency_ms is null."))


def build_openai_responses_weather() -> Tape:
    """gpt-4o-mini on the Responses API asks for San Francisco's weather, then says what to wear."""
    run = json.loads((FIXTURES / RESPONSES_RUN).read_text(encoding="utf-8"))
    spec = run[0]["request"]["body"]["tools"][0]
    tool = Tool(spec["name"], spec["description"], spec["parameters"],
                lambda location, unit=None: "22 celcius and windy")  # the recorded output, typo and all
    return build(
        OpenAIResponsesProvider, RESPONSES_RUN, tool,
        run[0]["request"]["body"]["input"][0]["content"][0]["text"],
        label="recorded against the real OpenAI Responses API by the openai-dotnet test suite "
              "(responses verbatim; requests as toolcall-lab sends them)",
        source=(f"Responses: {DOTNET}/tests/SessionRecords/ResponsesTests/FunctionCallWorks.json, the two "
                "POST /v1/responses entries, response bodies and statuses verbatim (openai-dotnet records "
                "its tests against the live API; the third entry, a GET of the input items, is left out). "
                "Requests: what toolcall-lab sends for the same conversation and tool, which adds "
                "max_output_tokens: 1024 and store: false to each; the recorded second request continued "
                "with previous_response_id and only the function_call_output, where the kit sends the "
                "whole conversation. The recording's timings were not kept, so latency_ms is null."),
        settings={"max_tokens": 1024})


def build_openai_chat_color() -> Tape:
    """gpt-4o-mini on Chat Completions looks up a favourite colour with a tool, then answers."""
    run = json.loads((FIXTURES / CHAT_RUN).read_text(encoding="utf-8"))
    spec = run[0]["request"]["body"]["tools"][0]["function"]
    tool = Tool(spec["name"], spec["description"], spec["parameters"], lambda month_name: "chartreuse")
    return build(
        OpenAIChatProvider, CHAT_RUN, tool, run[0]["request"]["body"]["messages"][0]["content"],
        label="recorded against the real OpenAI Chat Completions API by the openai-dotnet test suite on "
              "2025-09-16 (responses verbatim; requests as toolcall-lab sends them)",
        source=(f"Responses: {DOTNET_CHAT}/tests/SessionRecords/ChatToolTests/ParametersWork.json, both "
                "entries, response bodies and statuses verbatim (the Date headers say 2025-09-16). "
                "Requests: what toolcall-lab sends for the same conversation and tool; the recorded ones "
                "differ only in the kit's additions (a max_completion_tokens of 1024, and the "
                "assistant message's null content). The recording's timings were not kept, so "
                "latency_ms is null."), settings={"max_tokens": 1024})


BUILDERS = {"anthropic_weather": build_anthropic_weather, "openai_chat_color": build_openai_chat_color,
            "openai_responses_weather": build_openai_responses_weather}


if __name__ == "__main__":
    for name, make in BUILDERS.items():
        print("wrote", make().save(TAPES / f"{name}.json"))
