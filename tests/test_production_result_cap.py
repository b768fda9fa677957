"""The tool-result cap (`result_cap.py`): a big result is cut to head and tail, and says so."""

from __future__ import annotations

import pytest

from toolcall_lab import ScriptedProvider, ToolResult, UsageError, call, run_agent, tool
from toolcall_lab.result_cap import CUT, cap_result
from toolcall_lab.tokens import estimate_tokens

HEAD, TAIL = "BEGIN " + "a" * 20_000, "b" * 20_000 + " END"


@tool
def read_log() -> str:
    """Read the whole server log."""
    return HEAD + "m" * 60_000 + TAIL          # 100,010 characters: 25,003 tokens


@pytest.mark.parametrize("cap", [100, 1000, 5000, 25_002])
def test_a_cut_result_fits_keeps_its_start_and_end_and_says_how_much_was_dropped(cap):
    whole = read_log.function()
    cut = cap_result(ToolResult("toolu_01", whole, is_error=True), cap)
    assert estimate_tokens(cut.content) <= cap
    assert (cut.call_id, cut.is_error) == ("toolu_01", True)
    assert cut.content.startswith("BEGIN ") and cut.content.endswith(" END")
    head, note, tail = cut.content.split("\n")
    assert note.startswith(CUT) and "call the tool again" in note
    dropped = int(note.removeprefix(CUT).split()[0])
    assert dropped == estimate_tokens(whole) - estimate_tokens(head) - estimate_tokens(tail) > 0
    assert f"of its {estimate_tokens(whole)} tokens" in note


def test_a_result_that_fits_is_the_same_object_and_a_tiny_cap_keeps_only_the_note():
    small = ToolResult("toolu_01", "18°C, sunny")
    assert cap_result(small, 10) is small
    tiny = cap_result(ToolResult("toolu_01", "x" * 4000), 5)
    assert tiny.content.startswith(CUT) and "x" not in tiny.content


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "100"])
def test_a_cap_that_is_not_a_positive_whole_number_is_refused_before_anything_is_sent(bad):
    provider = ScriptedProvider([call("read_log"), "done"])
    with pytest.raises(UsageError, match="max_tokens must be a whole number"):
        run_agent(provider, "What went wrong?", tools=[read_log], max_result_tokens=bad)
    assert provider.requests == []


def test_the_loop_caps_a_result_before_it_enters_the_history_so_the_next_call_stays_small():
    uncapped = ScriptedProvider([call("read_log"), "The log ends normally."])
    run_agent(uncapped, "What went wrong?", tools=[read_log])
    capped = ScriptedProvider([call("read_log"), "The log ends normally."])
    run = run_agent(capped, "What went wrong?", tools=[read_log], max_result_tokens=1000)
    result = run.transcript[2].tool_results[0]
    assert CUT in result.content and estimate_tokens(result.content) <= 1000
    # the second call re-sends the result: over 25,000 tokens whole, under 1,200 capped
    assert uncapped.requests[1].input_tokens > 25_000
    assert capped.requests[1].input_tokens < 1_200
    assert capped.requests[0].input_tokens == uncapped.requests[0].input_tokens
