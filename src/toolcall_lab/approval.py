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

A gate may also answer `DEFER`: a person must decide, and not now. `run_agent` then stops
before running any call of that reply and hands back the calls waiting for a decision as
`run.pending` (`pending.py`), which is saved with the transcript as JSON and decided later,
in this process or another one (`ask_later` is such a gate: it defers every tool marked
`needs_approval` and lets the rest run). Every call of the reply is asked about first,
before any runs, so a person is never asked after the reply's other calls have acted.

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

__all__ = ["DEFER", "REFUSED", "Approve", "Deferred", "answer_of", "ask_later", "asks", "refusal", "refused"]


class Deferred:
    """The type of `DEFER`, a gate's answer meaning "a person decides this later"."""

    def __repr__(self) -> str:
        return "DEFER"


#: A gate's answer: stop the run before this call; it waits, saved, for a person's decision.
DEFER = Deferred()

#: A gate: gets the call about to run; True runs it, False or a reason refuses it, DEFER stops the run.
Approve = Callable[[ToolCall], "bool | str | Deferred"]

#: How every refusal's text starts, so a reader (and a check) can tell it from a failure.
REFUSED = "Refused:"


def asks(call: ToolCall, tools: Mapping[str, Tool]) -> bool:
    """Whether the gate is asked about `call`: only one that could run (an offered tool, valid arguments)."""
    chosen = tools.get(call.name)
    return not (chosen is None or call.malformed or not isinstance(call.args, Mapping)
                or chosen.check_args(call.args))


def ask_later(tools: Mapping[str, Tool]) -> Approve:
    """A gate that defers every call of a tool marked `needs_approval` and lets the others run.

    >>> from toolcall_lab.tools import get_weather
    >>> ask_later({"get_weather": get_weather})(ToolCall("toolu_01", "get_weather", {"city": "Oslo"}))
    True
    """
    def gate(call: ToolCall) -> bool | Deferred:
        chosen = tools.get(call.name)
        return DEFER if chosen is not None and chosen.needs_approval else True

    return gate


def answer_of(call: ToolCall, tools: Mapping[str, Tool], approve: Approve | None) -> bool | str | Deferred:
    """What the gate says of `call`: True (it may run), `DEFER`, or the reason it is refused.

    True also for a call the gate is not asked about (`asks`), which `execute` answers itself.
    A gate that raises refuses, with what it raised as the reason.

    >>> from toolcall_lab.tools import get_weather
    >>> answer_of(ToolCall("toolu_01", "get_weather", {"city": "Oslo"}), {"get_weather": get_weather},
    ...           lambda call: False)
    'not approved'
    """
    chosen = tools.get(call.name)
    if chosen is None or not asks(call, tools):
        return True
    if approve is None:
        if not chosen.needs_approval:
            return True
        return "it needs approval, and this program has no approve function to ask"
    try:
        answer = approve(call)
    except Exception as exc:  # subtle: a gate that breaks must not let the call through
        return f"the approval check failed: {_describe(exc)}"
    if answer is True or isinstance(answer, Deferred):
        return answer
    return (answer.strip() or "not approved" if isinstance(answer, str)
            else "not approved" if answer is False
            else f"the approve function returned {answer!r}, and only True lets a call run")


def refused(call: ToolCall, reason: str) -> ToolResult:
    """The error result the model reads for a call that was not allowed to run, and why."""
    return ToolResult(call.id, f"{REFUSED} {call.name} did not run ({reason}). Do not call it again for "
                               "this request; tell the user what you wanted to do and why.", is_error=True)


def refusal(call: ToolCall, tools: Mapping[str, Tool], approve: Approve | None) -> ToolResult | None:
    """The error result refusing `call`, or None when it may run (or cannot run anyway).

    None also for a call `execute` will refuse on its own (unknown tool, bad arguments), so
    the model gets that error; the gate is asked only about calls that could run. `DEFER`
    here (a gate that defers, where nothing stops the run for it) refuses.
    """
    answer = answer_of(call, tools, approve)
    if answer is True:
        return None
    return refused(call, "it waits for a person's decision" if isinstance(answer, Deferred) else str(answer))
