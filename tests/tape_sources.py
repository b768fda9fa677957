"""How the shipped tapes (src/toolcall_lab/tapes/) are built from recorded fixtures.

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
from toolcall_lab.tape import Exchange, Tape

ROOT = Path(__file__).parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
TAPES = ROOT / "src" / "toolcall_lab" / "tapes"

SDK_RUN = ("https://github.com/anthropics/anthropic-sdk-python/blob/0c20cf40f20edb11ab0453f646bcccf42479d92f/"
           "tests/lib/tools/__inline_snapshot__/test_runners/TestSyncRunTools/"
           "a8ac789b-f856-48cd-9ff3-d5f36799e432.json")


def _canned(cls: type, responses: list[dict[str, Any]]) -> type:
    """`cls` with its network call answered from `responses`, in order (the request is still encoded
    and checked by the kit, exactly as when it is sent)."""

    class Canned(cls):  # type: ignore[misc, valid-type]
        def _send(self, request: dict[str, Any]) -> dict[str, Any]:
            return responses.pop(0)

    return Canned


def build_anthropic_weather() -> Tape:
    """Claude Haiku 4.5 asks for the weather in SF, gets it, and answers: two live calls."""
    run = json.loads((FIXTURES / "anthropic_tool_runner_run.sdk_recorded.json").read_text(encoding="utf-8"))
    first = run[0]["request"]["body"]
    schema = first["tools"][0]["input_schema"]
    recorded_result = run[1]["request"]["body"]["messages"][2]["content"][0]["content"]
    get_weather = Tool("get_weather", "", schema, lambda location, units: recorded_result)
    provider = _canned(AnthropicProvider, [entry["response"]["body"] for entry in run])(
        first["model"], api_key="unused", max_tokens=first["max_tokens"])
    question = first["messages"][0]["content"]
    result = run_agent(provider, question, tools=[get_weather])
    exchanges = tuple(
        Exchange(api="anthropic", path="/v1/messages", status=entry["response"]["status_code"],
                 model=entry["response"]["body"]["model"], latency_ms=None, request=step.turn.request,
                 response=entry["response"]["body"])
        for entry, step in zip(run, result.steps, strict=True))
    return Tape(
        api="anthropic", provider="anthropic", model=first["model"],
        settings={"max_tokens": first["max_tokens"]},
        label="recorded against the real Anthropic Messages API by the anthropic-sdk-python test suite "
              "(responses verbatim; requests as toolcall-lab sends them)",
        source=(f"Responses: {SDK_RUN}, entries 0 and 1, response bodies and statuses verbatim "
                "(tests/lib/tools/test_runners.py: \"all the snapshots in this file are auto-generated "
                "from the live API\"). Requests: what toolcall-lab sends for the same conversation and "
                "tool. The recorded requests (same file) say the same thing spelled two ways the kit "
                "does not: the question as a plain string rather than one text block, and the tool_use "
                "block sent back with the `caller` field the API added. The recording's timings were "
                "not kept, so latency_ms is null."),
        exchanges=exchanges)


BUILDERS = {"anthropic_weather": build_anthropic_weather}


if __name__ == "__main__":
    for name, build in BUILDERS.items():
        print("wrote", build().save(TAPES / f"{name}.json"))
