"""Where a lesson's prose states what an output shows, the committed output must show it.

One test function per fact, named for its lesson: each reads the committed notebook, finds
the sentence and the cell whose output it describes, and compares them, so a change that
alters the output without the prose (or the prose without the output) fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _cells(stem: str) -> list[dict]:
    return json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def _prose(stem: str) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(stem) if c["cell_type"] == "markdown")


def _output(stem: str, source_contains: str) -> str:
    """The printed output of the one code cell whose source holds `source_contains`."""
    found = [c for c in _cells(stem) if c["cell_type"] == "code" and source_contains in "".join(c["source"])]
    assert len(found) == 1, f"{stem}: {len(found)} cells hold {source_contains!r}"
    return "".join("".join(o.get("text", "")) for o in found[0]["outputs"] if o["output_type"] == "stream")


LESSON_8 = "08_reasoning_on_the_wire"


def test_reasoning_on_the_wire_a_greeting_at_low_effort_has_no_thinking():
    assert 'at effort `"low"`, a reply that calls no tool has no thinking' in _prose(LESSON_8)
    table = _output(LESSON_8, 'for ask in ("Hello!", PARIS_QUESTION)')
    rows = {tuple(line.split()[:2]): line for line in table.splitlines() if line.startswith(("low", "high"))}
    assert rows["low", "'Hello!'"].endswith("['text']")
    assert "'reasoning'" in rows["high", "'Hello!'"]
    assert all("['reasoning', 'tool_call']" in line for key, line in rows.items() if key[1] != "'Hello!'")


def test_reasoning_on_the_wire_the_thinking_costs_more_than_the_rest_of_the_call():
    assert "thinking tokens cost more than the rest of the call together" in _prose(LESSON_8)
    printed = _output(LESSON_8, "long_think = Usage(")
    total = float(re.search(r"Cost\(\$([\d.]+)", printed)[1])
    thinking = float(re.search(r"of which the thinking: \$([\d.]+)", printed)[1])
    assert thinking > total - thinking


def test_reasoning_on_the_wire_only_haiku_5_5_thinking_went_back_to_it():
    assert "Its own thinking went back (message 5); Opus 5's did not" in _prose(LESSON_8)
    printed = _output(LESSON_8, "last = claude.requests[-1].body").splitlines()
    assert "1 ['tool_use']" in printed and "5 ['thinking', 'tool_use']" in printed


def test_reasoning_on_the_wire_earlier_thinking_is_billed_on_haiku_5_5_only():
    assert "billed as input\"; older models' APIs strip earlier turns' thinking" in _prose(LESSON_8)
    printed = _output(LESSON_8, "def without_thinking(")
    added = dict(re.findall(r"^(claude-[\w-]+): the earlier thinking adds (\d+)", printed, re.M))
    assert added["claude-haiku-4-5"] == "0" and int(added["claude-haiku-5-5"]) > 0


def test_reasoning_on_the_wire_an_edit_voids_the_thinking_after_it_only():
    prose = _prose(LESSON_8)
    assert "(thinking in messages 1 and 5)" in prose
    assert "Message 1's thinking came before the edit and stays valid; message 5's" in prose
    printed = _output(LESSON_8, "edits = {")
    redacted, compacted = printed.split("compacted, wire.check:")
    assert "messages.5.content.0: Invalid `signature`" in redacted and "messages.1." not in redacted
    assert "bound to a different" in compacted and redacted.count("the double: 400") == 1
    assert "accepted" in _output(LESSON_8, "safe = without_thinking(")


def test_reasoning_on_the_wire_a_stateful_request_sends_only_the_result():
    assert "Only the result went." in _prose(LESSON_8)
    assert "sent: ['function_call_output']" in _output(LESSON_8, "previous_response_id=first.id")
