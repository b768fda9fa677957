"""What a model reads when a tool runs out of time: a lookup may be retried, a side effect may not.

`execute` abandons a timed-out worker; it does not stop it (Python cannot stop a thread), so a
tool that sends, writes or pays may still complete. Its error must not say "try again"
(issue 31: "Try simpler arguments" invited a second invoice).
"""

from __future__ import annotations

import threading

import pytest

from toolcall_lab import ToolCall, ToolDefinitionError, tool
from toolcall_lab.tool import Tool, execute, tool_map

HOLD = threading.Event()


@pytest.fixture(autouse=True)
def _release():
    HOLD.clear()
    yield
    HOLD.set()  # the abandoned workers end with the test


def _slow(**_: object) -> str:
    HOLD.wait()
    return "done"


SCHEMA = {"type": "object", "properties": {"to": {"type": "string"}}}


@pytest.mark.parametrize("flags", [{"side_effects": True}, {"needs_approval": True}])
def test_a_side_effecting_tool_that_times_out_is_not_retried_blindly(flags):
    send = Tool("send_invoice", "Send an invoice.", SCHEMA, _slow, timeout=0.1, **flags)
    result = execute(ToolCall("toolu_01", "send_invoice", {"to": "ACME"}), tool_map([send]))
    assert result.is_error and result.call_id == "toolu_01"
    assert "time limit of 0.1 s" in result.content
    assert "may still have completed" in result.content
    assert "Do not call it again before checking whether it did" in result.content
    assert "Try simpler arguments" not in result.content and "try again" not in result.content.lower()


def test_a_lookup_that_times_out_still_invites_narrower_arguments():
    look = Tool("lookup", "Look something up.", SCHEMA, _slow, timeout=0.1)
    result = execute(ToolCall("toolu_02", "lookup", {"to": "x"}), tool_map([look]))
    assert result.is_error and "Try simpler arguments" in result.content
    assert "may still have completed" not in result.content


def test_the_decorator_takes_side_effects_and_checks_it_is_a_bool():
    @tool(side_effects=True, timeout=1)
    def pay(amount: int) -> str:
        """Pay an amount."""
        return "paid"

    assert pay.side_effects and not pay.needs_approval and pay.timeout == 1
    assert pay.spec() == {"name": "pay", "description": "Pay an amount.",
                          "input_schema": dict(pay.input_schema)}  # the model never sees the flag
    with pytest.raises(ToolDefinitionError, match="side_effects must be True or False"):
        Tool("f", "d", {"type": "object"}, print, side_effects=1)
