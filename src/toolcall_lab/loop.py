"""The agent loop: call the model, run the tools it asks for, send the results, repeat.

`run_agent` is the whole exchange in one function. Each pass:

1. sends the *entire* transcript and the tool definitions (the model keeps no state);
2. reads the reply's stop reason and decides (`decide`, a pure function), as the APIs document:
   - tool calls (stop reason tool_use): run every call, in order, in *your* process, and
     send all the results back in ONE user message, in call order;
   - end_turn / stop_sequence: done, the reply is the answer;
   - pause_turn: the provider paused a long turn; send it back as it is to continue;
   - max_tokens / context_window_exceeded: the reply was cut off. Text is kept; a
     tool call that was cut off is incomplete, so it is never run and the reply is
     not added (the transcript stays valid, ready to retry with more room);
   - refusal: the model declined; its reply is kept out of the transcript, as the
     APIs advise, and the run stops saying so.
3. stops after `max_steps` model calls with `MaxStepsExceeded`, which carries the run.

A tool problem never raises: `execute` turns an unknown tool, bad arguments or a tool
that raises into an error result the model can read and act on. An exception from the
provider itself propagates, and the transcript is left exactly as it was before that
call, so the same call can be retried.

What the caller may ask of the model's tool use, and what the loop does with it:

- `tool_choice` ("auto", "none", "required" or a tool's name; `tool_choice.py`) holds
  until the model has called a tool, then the loop stops sending it: a choice that forces
  a call, sent again with the results, would force another call on every step and the
  model could never answer (the OpenAI Agents SDK resets it the same way,
  `reset_tool_choice`). `parallel_tool_calls` holds for every call.
- `approve` is the permission gate (`approval.py`): asked about every call of a reply that
  could run, before any of them runs; a call it refuses never runs, and the model gets an
  error result saying so. A tool marked `needs_approval=True` never runs without it. A
  gate that answers `DEFER` stops the run before any call of the reply runs: `run.pending`
  holds the waiting calls, to save and decide later (`pending.py`).
- `tools` are sent in the order given, the same on every call of a run: a prompt cache
  matches the request's bytes, tools first, so tools gathered in an order that may change
  (from a set of names, from several MCP servers) go through `tool_order.stable_order`.
- `max_result_tokens` caps every tool result before it enters the transcript
  (`result_cap.py`): a longer one keeps its head and tail, and a note tells the model how
  much was cut and how to ask for the rest.
- `tool_timeout` gives every tool without a `timeout` of its own one: a call that runs
  longer (a hung tool) is answered with an error result and the loop goes on (`tool.py`).
- `budget` (`context_budget.Budget`) is checked before *every* model call, not only
  between user turns: a request that would not fit the window is compacted first, or the
  run stops before sending it, saying why.
- `ledger` (`ledger.py`) runs each call id at most once: a call id it has seen before (a
  run started again from a saved transcript) is answered from it, not run again.

Whatever else interrupts a run (Ctrl-C, a raising `on_event`, `SystemExit`), the
transcript is left in a state the next call accepts:

- if the model has not replied yet, it is exactly as it was before `run_agent` (the
  prompt is taken out again, so re-running the cell does not ask twice);
- otherwise every message so far is kept, and tool calls left without a result get one
  with `is_error=True` saying the run was interrupted, because an unanswered call makes
  every later request invalid.

Bad arguments (`max_steps=0`, a prompt that is not text) are refused before anything is
touched.

`on_event` receives one event per step of the exchange (`CallSent`, `ReplyReceived`,
`ToolExecuted`, `ToolRefused`, `RunFinished`, defined in events.py); `on_event=print`
narrates a run line by line.

`stream=True` asks each reply as a stream (`provider.stream`, which every provider of the
kit has; one that cannot stream says so before anything is sent, `providers.base.streaming`):
between a call's `CallSent` and its `ReplyReceived`, `on_event` also receives the reply's
stream events as they arrive (`TextDelta`, `ToolCallStarted`, `ArgumentsDelta`,
`ReasoningDelta`, `BlockFinished`, and `StreamFinished` last; `toolcall_lab.stream`), so
text and arguments can be watched growing. Nothing else changes: the loop acts only on
the finished `Turn`, so the run's transcript is the one the same replies give unstreamed,
and a call is run only once its whole reply has arrived. A stream that breaks off raises
`IncompleteStreamError` like any failed call: the transcript is as it was before that
call, and no call of the broken reply runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, assert_never

from ._display import html_of
from ._text import PartsRepr
from .approval import Approve, Deferred, answer_of, refused
from .blocks import ToolCall, ToolResult
from .errors import IncompleteStreamError, MaxStepsExceeded, UsageError, UsageTypeError
from .events import CallSent, Event, ReplyReceived, RunFinished, ToolExecuted, ToolRefused
from .messages import Message
from .providers.base import Provider, streaming
from .stream import StreamEvent, StreamFinished
from .tool import Tool, execute, tool_map
from .tool_choice import check_tool_choice
from .transcript import Transcript
from .turn import StopReason, Turn

if TYPE_CHECKING:
    # subtle: the production guards load only when a run asks for one (`import toolcall_lab`
    # stays light): the loop imports each where it is used
    from .context_budget import Budget
    from .ledger import Ledger
    from .pending import Pending
from .usage import Usage

__all__ = [
    "ContinuePaused", "Decision", "Run", "RunTools", "Step", "Stop", "decide", "run_agent",
]

DEFAULT_MAX_STEPS = 10


# -- what a run returns ------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class Step:
    """One model call of a run: the reply, how many messages were sent, the results run,
    the `tool_choice` the call was sent with (None when it left the model free), and the
    names of the tools it offered."""

    index: int
    turn: Turn
    messages_sent: int
    results: tuple[ToolResult, ...] = ()
    tool_choice: str | None = None
    tools: tuple[str, ...] = ()

    @property
    def usage(self) -> Usage:
        return self.turn.usage

    @property
    def stop_reason(self) -> StopReason:
        return self.turn.stop_reason

    @property
    def latency_s(self) -> float:
        return self.turn.latency_s

    def __repr__(self) -> str:
        plural = "" if self.messages_sent == 1 else "s"
        choice = f", tool_choice={self.tool_choice!r}" if self.tool_choice is not None else ""
        return (f"Step({self.index}, sent {self.messages_sent} message{plural}{choice}, "
                f"stop_reason={self.stop_reason!r}, usage={self.usage!r})")


@dataclass(repr=False)
class Run(PartsRepr):
    """A finished run: the transcript, one `Step` per model call, and why it stopped.

    `pending` is set when the run stopped before calls waiting for a person (`pending.py`).
    """

    transcript: Transcript
    steps: list[Step] = field(default_factory=list)
    stop_reason: StopReason | None = None
    note: str = ""
    pending: Pending | None = None

    @property
    def usage(self) -> Usage:
        """Total usage over every model call."""
        return sum((s.usage for s in self.steps), Usage())

    @property
    def latency_s(self) -> float:
        """Seconds spent waiting for the model, over every call (the tools' own time is not in it)."""
        return sum(s.latency_s for s in self.steps)

    @property
    def answer(self) -> str:
        """The text of the last assistant message in the transcript ("" if there is none)."""
        for message in reversed(self.transcript.messages):
            if message.role == "assistant":
                return message.text
        return ""

    def _parts(self) -> list[str]:
        calls = len(self.steps)
        return [f"{calls} call{'s' if calls != 1 else ''}", f"stop_reason={self.stop_reason!r}",
                f"usage={self.usage!r}", f"answer={self.answer!r}"]

    def _repr_html_(self) -> str | None:
        return html_of(self)  # the views register it from above (`_display.py`)


# -- step 2: what to do with a reply -----------------------------------------------------------
@dataclass(frozen=True)
class RunTools:
    """Keep the reply, run every call in it, send all the results back in one message."""

    keep: ClassVar[bool] = True
    kind: Literal["run_tools"] = "run_tools"


@dataclass(frozen=True)
class ContinuePaused:
    """Keep the paused reply and call again unchanged: the model picks the turn up."""

    keep: ClassVar[bool] = True
    kind: Literal["continue_paused"] = "continue_paused"


@dataclass(frozen=True)
class Stop:
    """The run is over; `note` says why in one sentence.

    `keep` says whether the reply goes into the transcript: not a refusal, and not a
    reply cut off in the middle of a tool call (an incomplete call must never be sent).
    """

    note: str
    keep: bool = True
    kind: Literal["stop"] = "stop"


Decision = RunTools | ContinuePaused | Stop


_NOTES = {
    StopReason.END_TURN: "the model answered.",
    StopReason.STOP_SEQUENCE: "a stop sequence ended the reply; treat it as complete.",
    StopReason.MAX_TOKENS: (
        "the reply was cut off at the output limit (max_tokens); raise the provider's "
        "max_tokens, or ask the model to continue."),
    StopReason.CONTEXT_WINDOW_EXCEEDED: (
        "the conversation filled the model's context window and the reply is truncated; "
        "shorten or summarise the history before continuing."),
}
_CUT_MID_CALL = (
    "the reply was cut off ({reason}) in the middle of a tool call, so the call was not run "
    "and the reply was not added to the transcript; give the model more room (raise "
    "max_tokens) and retry with run_agent(provider, None, transcript=run.transcript).")
_WAITING = (
    "stopped before running the reply's calls: {pending!r}. Save it with run.pending.save(path); "
    "later, transcript = Pending.load(path).decide({{call_id: True or a reason}}, tools=...) and "
    "run_agent(provider, None, tools=..., transcript=transcript) goes on.")
_REFUSED = (
    "the model declined to answer (refusal); its reply was kept out of the transcript and "
    "is in run.steps[-1].turn. Rephrase the request, or try another model.")


def decide(turn: Turn) -> Decision:
    """What the loop does with `turn`, from its stop reason and its tool calls alone.

    A pure function: it reads the reply and changes nothing, so each case can be shown
    (and tested) without a provider.

    >>> from toolcall_lab import Message, ToolCall, Usage
    >>> asks = Message.assistant(ToolCall("toolu_01", "get_weather", {"city": "Paris"}))
    >>> decide(Turn(asks, StopReason.TOOL_USE, Usage(), "m"))
    RunTools(kind='run_tools')
    >>> decide(Turn(asks, StopReason.MAX_TOKENS, Usage(), "m")).keep  # a cut-off call is kept out
    False
    >>> decide(Turn(Message.assistant("It is 18°C."), StopReason.END_TURN, Usage(), "m"))
    Stop(note='the model answered.', keep=True, kind='stop')
    """
    reason = turn.stop_reason
    if reason in (StopReason.MAX_TOKENS, StopReason.CONTEXT_WINDOW_EXCEEDED) and turn.tool_calls:
        return Stop(_CUT_MID_CALL.format(reason=reason), keep=False)  # the call is incomplete
    if reason is StopReason.REFUSAL:
        return Stop(_REFUSED, keep=False)
    if reason is StopReason.PAUSE_TURN:
        return ContinuePaused()  # subtle: the paused turn goes back unchanged
    if turn.tool_calls:
        # subtle: run calls even if a provider labelled the reply end_turn; an
        # unanswered call would make the next request invalid.
        return RunTools()
    return Stop(_NOTES.get(reason, _NOTES[StopReason.END_TURN]))


def _check_arguments(provider: Provider, prompt: object, system: object, transcript: object,
                     max_steps: object, on_event: object, approve: object, choice: dict[str, Any],
                     stream: object = False) -> None:
    """Refuse a bad argument with one sentence, before anything is touched."""
    if not callable(getattr(provider, "complete", None)):
        raise UsageTypeError(f"provider must have a complete(transcript, tools=...) method, got "
                             f"{type(provider).__name__}; build one with ScriptedProvider(...) or "
                             "get_provider(...).")
    if not isinstance(stream, bool):
        raise UsageTypeError(f"stream must be True or False, got {stream!r}.")
    if stream:
        streaming(provider)  # a provider that cannot stream says so now, before anything is sent
    if prompt is not None and not isinstance(prompt, str | Message):
        raise UsageTypeError(f"prompt must be a str, a Message or None, got {type(prompt).__name__}.")
    if system is not None and not isinstance(system, str):
        raise UsageTypeError(f"system must be a str or None, got {type(system).__name__}.")
    if transcript is not None and not isinstance(transcript, Transcript):
        raise UsageTypeError(f"transcript must be a Transcript or None, got {type(transcript).__name__}.")
    if isinstance(max_steps, bool) or not isinstance(max_steps, int):
        raise UsageTypeError(f"max_steps must be a whole number of model calls, got {max_steps!r}.")
    if max_steps < 1:
        raise UsageError(f"max_steps must be at least 1, got {max_steps}")
    if on_event is not None and not callable(on_event):
        raise UsageTypeError(f"on_event must be a function that takes one event (print works), "
                             f"got {on_event!r}.")
    if approve is not None and not callable(approve):
        raise UsageTypeError(f"approve must be a function that takes a ToolCall and returns True to run "
                             f"it, or False or a reason to refuse it; got {approve!r}.")
    method = "stream" if stream else "complete"
    missing = [name for name in choice if not _takes(getattr(provider, method), name)]
    if missing:
        raise UsageTypeError(f"{type(provider).__name__}.{method}() takes no {missing[0]}=, so this "
                             f"provider cannot pass it on; leave it out, or add it to {method}().")


def _takes(function: Callable[..., Any], name: str) -> bool:
    """Whether `function` accepts the keyword argument `name`."""
    import inspect

    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True  # subtle: a signature Python cannot read; let the call itself decide
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in parameters)


def _check_guards(max_result_tokens: int | None, ledger: object, budget: object) -> None:
    """Refuse a bad production guard (`result_cap`, `ledger`, `context_budget`) before anything is sent."""
    if budget is not None:
        from .context_budget import Budget

        if not isinstance(budget, Budget):
            raise UsageTypeError(f"budget must be a Budget (from toolcall_lab.context_budget import "
                                 f"Budget), got {budget!r}.")
    if ledger is not None:
        from .ledger import Ledger

        if not isinstance(ledger, Ledger):
            raise UsageTypeError(f"ledger must be a Ledger (from toolcall_lab.ledger import Ledger), "
                                 f"got {ledger!r}.")
    if max_result_tokens is not None:
        from .result_cap import cap_result

        cap_result(ToolResult("", ""), max_result_tokens)  # a bad cap says what is wrong, here


def _timed(tools: Sequence[Tool], tool_timeout: float | None) -> tuple[Tool, ...]:
    """`tools`, each without a `timeout` of its own given `tool_timeout` (a bad one: ToolDefinitionError)."""
    if tool_timeout is None:
        return tuple(tools)
    return tuple(replace(t, timeout=tool_timeout) if isinstance(t, Tool) and t.timeout is None else t
                 for t in tools)


@dataclass
class _Setup:
    """What every step of one run uses: the provider, the tools, and what the caller asked for."""

    provider: Provider
    tools: tuple[Tool, ...]
    emit: Callable[[Event | StreamEvent], object]
    approve: Approve | None
    choice: dict[str, Any]  # tool_choice / parallel_tool_calls: only those set, so any provider works
    stream: bool = False
    max_result_tokens: int | None = None
    ledger: Ledger | None = None
    budget: Budget | None = None
    before: int = 0  # where this run's messages start (moved when a budget compacts the history)
    by_name: dict[str, Tool] = field(init=False)

    def __post_init__(self) -> None:
        self.by_name = tool_map(self.tools)


def _run_tools(step: int, calls: Sequence[ToolCall], setup: _Setup, results: list[ToolResult],
               transcript: Transcript) -> Pending | None:
    """Run every call of one reply in order, in your process, unless the gate refuses it.

    The gate is asked about every call first: one it defers stops the reply before any
    call runs, and the calls are handed back as a `Pending`.
    """
    answers = {c.id: answer_of(c, setup.by_name, setup.approve) for c in calls}
    waiting = tuple(i for i, a in answers.items() if isinstance(a, Deferred))
    if waiting:
        said = {i: a for i, a in answers.items() if not isinstance(a, Deferred)}
        from .pending import Pending

        return Pending(transcript, waiting, said, setup.ledger)
    for tool_call in calls:
        answer = answers[tool_call.id]
        once = setup.ledger.execute if setup.ledger is not None else execute
        result = once(tool_call, setup.by_name) if answer is True else refused(tool_call, str(answer))
        if setup.max_result_tokens is not None:
            from .result_cap import cap_result

            result = cap_result(result, setup.max_result_tokens)  # before it enters the history
        results.append(result)
        ran = answer is True
        setup.emit(ToolExecuted(step, tool_call, result) if ran else ToolRefused(step, tool_call, result))
    return None


def _leave_usable(transcript: Transcript, before: int, answered: list[ToolResult],
                  exc: BaseException) -> None:
    """After an interruption, put `transcript` in a state the next call accepts.

    No reply yet: back to its first `before` messages. A reply whose calls were not all
    answered: the answers so far, plus an error result for each call left over.
    """
    added = transcript.messages[before:]
    if not any(m.role == "assistant" for m in added):
        del transcript.messages[before:]
        exc.add_note("toolcall-lab: the run was interrupted before the model replied; the "
                     "transcript is as it was before run_agent.")
        return
    last = transcript.messages[-1]
    if last.role == "assistant" and last.tool_calls:
        if answered:  # this batch's results so far, in call order: the cancel joins them
            transcript.append(Message.results(answered))
        from .cancel import answer_open_calls

        reason = f"the run was interrupted ({type(exc).__name__}) before this call finished"
        left = answer_open_calls(transcript, lambda call: f"Not run: {reason}.")
        exc.add_note(f"toolcall-lab: {len(left)} tool call(s) were answered with an error "
                     "saying the run was interrupted; the transcript is ready for the next call.")


def run_agent(
    provider: Provider,
    prompt: str | Message | None,
    *,
    tools: Sequence[Tool] = (),
    system: str | None = None,
    transcript: Transcript | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    on_event: Callable[[Event | StreamEvent], object] | None = None,
    tool_choice: str | None = None,
    parallel_tool_calls: bool | None = None,
    approve: Approve | None = None,
    stream: bool = False,
    max_result_tokens: int | None = None,
    ledger: Ledger | None = None,
    tool_timeout: float | None = None,
    budget: Budget | None = None,
) -> Run:
    """Ask `prompt`, let the model call `tools`, and return the finished `Run`.

    Pass `transcript=` to continue a conversation (it is extended in place) and
    `prompt=None` to call the model again without adding a message. If the run is
    interrupted (Ctrl-C, a raising `on_event`), the transcript is restored, or its open
    tool calls are answered with "interrupted" error results: the next call accepts it.
    `tool_choice` holds until the model calls a tool; `approve` gates every call (see above).
    `stream=True` streams each reply and hands its stream events to `on_event` too.
    `max_result_tokens` cuts a longer tool result to its head and tail (`result_cap.py`);
    `ledger` runs each call id at most once (`ledger.py`); `tool_timeout` (seconds) limits
    every tool that has no `timeout` of its own; `budget` is checked before every call.

    >>> from toolcall_lab import ScriptedProvider, call
    >>> from toolcall_lab.tools import calculator
    >>> provider = ScriptedProvider([call("calculator", expression="17 * 23 - 100"), "It is 291."])
    >>> run = run_agent(provider, "What is 17 * 23 - 100?", tools=[calculator])
    >>> [m.role for m in run.transcript], run.transcript[2].tool_results
    (['user', 'assistant', 'user', 'assistant'], (ToolResult('toolu_01', '291'),))
    """
    choice = {k: v for k, v in [("tool_choice", tool_choice), ("parallel_tool_calls", parallel_tool_calls)]
              if v is not None}
    _check_arguments(provider, prompt, system, transcript, max_steps, on_event, approve, choice, stream)
    _check_guards(max_result_tokens, ledger, budget)
    setup = _Setup(provider, _timed(tools, tool_timeout), on_event or (lambda event: None), approve, choice,
                   stream, max_result_tokens, ledger, budget)
    check_tool_choice(tool_choice, setup.tools, parallel_tool_calls)
    for t in setup.tools:
        # A broken schema must fail here, before any call, not halfway through the run.
        t.check_schema()
    if transcript is None:
        transcript = Transcript(system=system)
    elif system is not None and system != transcript.system:
        raise UsageError("this transcript already has its own system prompt; pass either "
                         "system= or transcript=, not both.")
    run = Run(transcript)
    setup.before = len(transcript)
    answered: list[ToolResult] = []  # results of the batch being run, kept if it is interrupted
    try:
        if prompt is not None:
            transcript.append(prompt if isinstance(prompt, Message) else Message.user(prompt))
        for index in range(1, max_steps + 1):
            if _step(run, index, setup, answered):
                return run
    except BaseException as exc:
        _leave_usable(transcript, setup.before, answered, exc)
        raise
    return _too_many_steps(run, max_steps)


def _step(run: Run, index: int, setup: _Setup, answered: list[ToolResult]) -> bool:
    """One pass: send the transcript, decide on the reply, act. True when the run is finished."""
    transcript = run.transcript
    if setup.budget is not None and (over := _within_budget(setup, transcript)) is not None:
        run.stop_reason, run.note = StopReason.CONTEXT_WINDOW_EXCEEDED, f"stopped before call {index}: {over}"
        setup.emit(RunFinished(index, run.stop_reason, run.note))
        return True
    sent, choice = len(transcript), setup.choice.get("tool_choice")
    turn = _send(index, setup, transcript)                    # step 1
    answered.clear()
    decision = decide(turn)                                   # step 2
    if decision.keep:
        transcript.append(turn.message)
    match decision:
        case RunTools():
            pending = _run_tools(index, turn.tool_calls, setup, answered, transcript)
            if pending is not None:
                run.pending, decision = pending, Stop(_WAITING.format(pending=pending))
            else:
                transcript.append(Message.results(answered))
                # subtle: a forced choice sent again would force another call, forever
                setup.choice.pop("tool_choice", None)
        case ContinuePaused() | Stop():
            pass
        case _:
            assert_never(decision)
    offered = tuple(t.name for t in setup.tools)
    run.steps.append(Step(index, turn, sent, tuple(answered), choice, offered))
    answered.clear()
    if not isinstance(decision, Stop):
        return False
    run.stop_reason, run.note = turn.stop_reason, decision.note
    setup.emit(RunFinished(index, turn.stop_reason, decision.note))
    return True


def _within_budget(setup: _Setup, transcript: Transcript) -> str | None:
    """Make the next request fit the budget (compacting in place) or say why it cannot."""
    assert setup.budget is not None
    first = transcript.messages[setup.before] if setup.before < len(transcript) else None
    over = setup.budget.enforce(transcript, setup.tools)
    # subtle: compaction moved this run's first message (or summarised it); an interrupted
    # run must still take out only what it added
    setup.before = next((i for i, m in enumerate(transcript.messages) if m is first), len(transcript))
    return over


def _send(index: int, setup: _Setup, transcript: Transcript) -> Turn:
    """Send the whole transcript and the tools; a failed call leaves the transcript as it was."""
    setup.emit(CallSent(index, len(transcript), tuple(t.name for t in setup.tools),
                        tool_choice=setup.choice.get("tool_choice")))
    try:
        if setup.stream:
            turn = _streamed(index, setup, transcript)
        else:
            turn = setup.provider.complete(transcript, tools=setup.tools, **setup.choice)
    except _FromOnEvent as raised:
        raise raised.error from None  # subtle: the watcher's own error, not the model call's
    except Exception as exc:
        exc.add_note(f"toolcall-lab: model call {index} failed; the transcript is as it "
                     "was before this call, so you can retry it.")
        raise
    setup.emit(ReplyReceived(index, turn))
    return turn


class _FromOnEvent(Exception):  # a carrier, never seen outside _send
    """Carries what `on_event` raised out of a stream, so it is not noted as a failed model call."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _streamed(index: int, setup: _Setup, transcript: Transcript) -> Turn:
    """The reply as `provider.stream` hands it over, each event shown to `on_event`; its `Turn`.

    The stream is closed however this ends (a raising `on_event`, Ctrl-C), so its connection
    is let go; only `StreamFinished` gives a turn, so a reply that broke off gives none.
    """
    events = iter(streaming(setup.provider).stream(transcript, tools=setup.tools, **setup.choice))
    try:
        for event in events:
            try:
                setup.emit(event)
            except Exception as exc:
                raise _FromOnEvent(exc) from None
            if isinstance(event, StreamFinished):
                return event.turn
    finally:
        close = getattr(events, "close", None)
        if callable(close):
            close()
    raise IncompleteStreamError(
        f"{type(setup.provider).__name__}.stream() ended without StreamFinished (call {index}), so there "
        "is no finished reply: nothing was added to the transcript and no tool ran; a stream must end "
        "with StreamFinished(turn) or raise.", provider=str(getattr(setup.provider, "name", "")))


def _too_many_steps(run: Run, max_steps: int) -> Run:
    """Raise `MaxStepsExceeded`: the model still wanted tools after `max_steps` calls."""
    asked = ", ".join(sorted({c.name for c in run.steps[-1].turn.tool_calls})) or "a paused turn"
    run.stop_reason = run.steps[-1].stop_reason
    run.note = f"stopped at max_steps={max_steps} before the model finished."
    raise MaxStepsExceeded(
        f"run_agent stopped after max_steps={max_steps} model calls and the model still wanted "
        f"more (last: {asked}). Nothing is lost: error.run holds the transcript so far. If the "
        f"task needs more calls, pass max_steps={max_steps * 2}; if the model is going in "
        "circles, read error.run.transcript.tool_calls().",
        run,
    )
