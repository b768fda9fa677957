"""The permission gate: your program decides, call by call, whether a tool may run.

A model only *asks*; whether anything happens is your code's decision. `execute` already
refuses what cannot work (a tool that is not offered, arguments the schema rejects). This
module adds the decision that cannot be read off a schema: *may* it run? The model cannot
be trusted to make that decision, whatever its instructions say: a web page, a file or an
e-mail that a tool returns can carry instructions of its own (a prompt injection), and a
model that reads them may act on them.

`run_agent(..., approve=...)` takes a function that gets each `ToolCall` that is about to
run and answers:

- `True`: run it;
- `False`, or a string saying why: refuse it. The call does not run, and the model gets an
  error result saying it was refused (and why), so it can tell the user instead of
  retrying. Anything else (a forgotten `return` gives None) refuses too: a gate fails
  closed. So does a gate that raises, with what it raised as the reason.

A tool built with `needs_approval=True` never runs unless an `approve` function said yes:
without one, every call of it is refused. Forgetting the gate then costs an answer, not a
deleted file.

The gate sees only calls that could run (an offered tool, valid arguments): the others
get `execute`'s own error first. Left out: asking a person interactively (an `approve`
function can call `input()`), remembering decisions, and the tools' own privileges. A gate
decides which requests run; what a tool *can* do when it runs (the files, accounts and
networks it can reach) is the last line of defence, and belongs to the tool.

    >>> from toolcall_lab.tools import get_weather
    >>> tools = {"get_weather": get_weather}
    >>> no_weather = lambda call: "no weather today"
    >>> refusal(ToolCall("toolu_01", "get_weather", {"city": "Paris"}), tools, no_weather)
    ToolResult('toolu_01', 'Refused: get_weather did not run (no weather today). Do not…', is_error=True)
    >>> refusal(ToolCall("toolu_02", "get_weather", {"city": "Paris"}), tools, lambda call: True) is None
    True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .blocks import ToolCall, ToolResult
from .tool import Tool, _describe

__all__ = ["REFUSED", "Approve", "refusal"]

#: A gate: gets the call about to run; True runs it, False or a reason refuses it.
Approve = Callable[[ToolCall], "bool | str"]

#: How every refusal's text starts, so a reader (and a check) can tell it from a failure.
REFUSED = "Refused:"


def refusal(call: ToolCall, tools: Mapping[str, Tool], approve: Approve | None) -> ToolResult | None:
    """The error result refusing `call`, or None when it may run (or cannot run anyway).

    None also for a call `execute` will refuse on its own (unknown tool, bad arguments), so
    the model gets that error; the gate is asked only about calls that could run.
    """
    chosen = tools.get(call.name)
    if chosen is None or call.malformed or not isinstance(call.args, Mapping) or chosen.check_args(call.args):
        return None
    if approve is None:
        if not chosen.needs_approval:
            return None
        reason = "it needs approval, and this program has no approve function to ask"
    else:
        try:
            answer = approve(call)
        except Exception as exc:  # subtle: a gate that breaks must not let the call through
            answer = f"the approval check failed: {_describe(exc)}"
        if answer is True:
            return None
        reason = (answer.strip() or "not approved" if isinstance(answer, str)
                  else "not approved" if answer is False
                  else f"the approve function returned {answer!r}, and only True lets a call run")
    return ToolResult(call.id, f"{REFUSED} {call.name} did not run ({reason}). Do not call it again for "
                               "this request; tell the user what you wanted to do and why.", is_error=True)
