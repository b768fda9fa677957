"""What the keys ask of a learner's run: that a tool really ran, not that some text appeared."""

from __future__ import annotations

import re
from typing import Any

from ..loop import Run
from ..messages import ToolCall, ToolResult

__all__ = ["mentions_number", "tool_exchanges"]


def tool_exchanges(run: Any) -> list[tuple[ToolCall, ToolResult]]:
    """Each tool call of `run` paired with the result that answered it (by id)."""
    if not isinstance(run, Run):
        return []
    results = {r.call_id: r for r in run.transcript.tool_results()}
    return [(c, results[c.id]) for c in run.transcript.tool_calls() if c.id in results]


def mentions_number(text: str, value: str) -> bool:
    """True when `value` stands in `text` as a whole number ("291", not "2910" or "29.1").

    >>> mentions_number("17 * 23 - 100 = 291.", "291"), mentions_number("2910", "291")
    (True, False)
    """
    return re.search(rf"(?<![\d.,]){re.escape(value)}(?![\d,]|\.\d)", text) is not None
