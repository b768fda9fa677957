"""Answer keys of lesson 7, "The transcript is data": blocks, one complete `match`, what a
loop re-sends.

The prediction and the question are words, checked as in every lesson; `made_by` is a function
the learner writes with one complete `match`, and its check also hands it a kind of block it was
never told about, which must make it fail rather than guess. The exercise is a number the
learner computes from the six-search loop's calls (the tool results' bill had old results been
dropped); its check recounts it from what the scripted model was sent, so the key holds no
number of its own.

    >>> from toolcall_lab import ScriptedProvider, call, run_agent
    >>> from toolcall_lab.tools import search_kb
    >>> twice = ScriptedProvider([call("search_kb", query="days off"),
    ...                           call("search_kb", query="remote work"), "Done."])
    >>> _ = run_agent(twice, "What should I know?", tools=[search_kb])
    >>> exercise_1(input_by_kind(twice.requests)["tool_result"], twice)
    ✗ Exercise 1: 151 is not it: that is what the results cost untrimmed, each re-sent with \
every later call. Hint: section 2 counted the calls each result went out with: in full on the \
first, dropped on the rest; tokens_in measures a dropped one too

Left out: lesson 8's frozen messages, ids, synthetic messages and usage, whose keys are in
`frozen_history`; lesson 9's provider and tracer, in `your_own_provider`; lesson 10's adapter, in
`an_adapter_of_your_own`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..blocks import Block, ReasoningBlock, TextBlock, ToolCall, ToolResult
from ..messages import Message
from ..selfcheck import check, number, word
from ..tokens import estimate_tokens
from ._runs import raised, template

__all__ = ["SOLUTIONS", "exercise_1", "input_by_kind", "made_by", "predict_biggest", "q1", "tokens_in",
           "trimmed_results"]

KINDS = ("text", "tool_call", "tool_result", "reasoning")


# -- what the checks share ----------------------------------------------------------------------
def tokens_in(block: Any) -> int:
    """The lesson's measure of a block (section 1): its words or its call, ~4 characters a token."""
    match block:
        case TextBlock(text=text):
            return estimate_tokens(text)
        case ToolCall(name=name, args=args):
            return estimate_tokens(name + json.dumps(dict(args)))
        case ToolResult(content=content):
            return estimate_tokens(content)
        case _:  # reasoning
            return estimate_tokens(getattr(block, "text", ""))


def input_by_kind(requests: Sequence[Any]) -> Counter[str]:
    """Input tokens per kind of block over `requests` (the lesson's section 2, blocks only)."""
    bill: Counter[str] = Counter()
    for request in requests:
        for message in request.messages:
            for block in message.blocks:
                bill[block.kind] += tokens_in(block)
    return bill


# -- section 1: made_by ----------------------------------------------------------------------------
#: Who puts each kind of block into a conversation (messages.py holds the same rule per role).
MADE_BY = {"text": "either", "reasoning": "the model", "tool_call": "the model", "tool_result": "your code"}


@dataclass(frozen=True)
class _ImageBlock:
    """A kind of block the learner's function was never told about."""

    url: str
    kind: str = "image"


def _wrong_made_by(function: Any) -> str | None:
    if isinstance(function, type) or not callable(function):
        return f"expected the function itself (made_by, without brackets), got {type(function).__name__}"
    samples: list[Block] = [TextBlock("Hi"), ReasoningBlock("The user wants Paris."),
                            ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
                            ToolResult("toolu_01", "18°C, sunny")]
    for block in samples:
        try:
            said = function(block)
        except Exception as exc:
            return f"made_by raised {raised(exc)} for a {block.kind} block"
        if said not in set(MADE_BY.values()):
            return (f"made_by answered {said!r} for a {block.kind} block; answer with one of "
                    "'the model', 'your code' or 'either'")
        if said != MADE_BY[block.kind]:
            return f"made_by says {said!r} made a {block.kind} block, and that is not who makes it"
    try:
        guess = function(_ImageBlock("https://example.com/paris.png"))
    except Exception:
        return None  # it failed loudly on a kind it was not told about
    return (f"made_by answered {guess!r} for a kind of block it was never told about (image); a "
            "complete match fails there instead of guessing")


def made_by(answer: Any) -> None:
    """Your made_by(block): who makes each kind, and a loud failure on a kind it does not know."""
    check("made_by", ... if template(answer) else answer, _wrong_made_by,
          hint="compare the trace's block and produced-by columns; tokens_in's match has the shape, "
               "down to its last case")


# -- section 2 -------------------------------------------------------------------------------------
def predict_biggest(answer: Any, provider: Any) -> None:
    """Which kind of block cost the most input tokens over `provider`'s calls."""
    bill = input_by_kind(getattr(provider, "requests", []))
    expected = max(KINDS, key=lambda kind: bill[kind])
    check("Prediction", answer, word(expected, choices=KINDS),
          hint="every call re-sends every earlier block: which kind is long, and is there one per step?")


# -- check yourself --------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """The kind of block an assistant message can never hold."""
    samples: list[Block] = [TextBlock("x"), ToolCall("toolu_01", "f", {}), ToolResult("toolu_01", "x")]
    refused = []
    for block in samples:
        try:
            Message.assistant(block)
        except ValueError:
            refused.append(block.kind)
    check("Q1", answer, word(refused[0], choices=KINDS),
          hint="which kind is produced by your code, never by the model?")


# -- exercise 1: drop old tool output --------------------------------------------------------------
#: What a dropped result says on the calls after the one it was sent for.
DROPPED = "[dropped]"


def trimmed_results(requests: Sequence[Any]) -> int:
    """Input tokens of the tool results over `requests` had each gone in full only with the
    first call that sent it, and as a result saying DROPPED with every later call.

    Three calls, the second sending result A (12 characters, 3 tokens), the third A and B
    (8 characters, 2 tokens): A in full 3, then A dropped 3 (9 characters) and B in full 2,
    3 + 3 + 2 = 8.

    >>> from types import SimpleNamespace as Sent
    >>> a, b = ToolResult("toolu_01", "x" * 12), ToolResult("toolu_02", "y" * 8)
    >>> calls = [Sent(messages=[]), Sent(messages=[Message.results([a])]),
    ...          Sent(messages=[Message.results([a]), Message.results([b])])]
    >>> trimmed_results(calls)
    8
    """
    sent: set[str] = set()
    total = 0
    for request in requests:
        results = _results(request)
        for result in results:
            dropped = result.call_id in sent
            total += tokens_in(ToolResult(result.call_id, DROPPED) if dropped else result)
        sent |= {r.call_id for r in results}
    return total


def _results(request: Any) -> list[ToolResult]:
    return [b for m in request.messages for b in m.blocks if isinstance(b, ToolResult)]


def _wrong_trim(answer: Any, requests: Sequence[Any]) -> str | None:
    wrong = number(trimmed_results(requests))(answer)
    if wrong is None or isinstance(answer, bool) or not isinstance(answer, int | float):
        return wrong  # right, or not a number at all
    each_once = {r.call_id: tokens_in(r) for request in requests for r in _results(request)}
    if answer == input_by_kind(requests)["tool_result"]:
        return "that is what the results cost untrimmed, each re-sent with every later call"
    if answer == sum(each_once.values()):
        return f"that is each result once; a dropped result still goes out, saying {DROPPED!r}"
    return wrong


def exercise_1(answer: Any, provider: Any) -> None:
    """The tool results' input tokens over `provider`'s calls, each result dropped after its first call."""
    requests = list(getattr(provider, "requests", []))
    check("Exercise 1", answer, lambda a: _wrong_trim(a, requests),
          hint="section 2 counted the calls each result went out with: in full on the first, "
               "dropped on the rest; tokens_in measures a dropped one too")


_MADE_BY_SOLUTION = '''def made_by(block):
    """Who puts `block` in a conversation: the model, your code, or either."""
    match block:
        case TextBlock():
            return "either"
        case ReasoningBlock() | ToolCall():
            return "the model"
        case ToolResult():
            return "your code"
        case _:
            assert_never(block)
'''

SOLUTIONS: dict[str, str] = {
    "made_by": _MADE_BY_SOLUTION,
    "predict_biggest": '"tool_result"',
    "q1": '"tool_result"',
    "exercise_1": ("results = research.transcript.tool_results()\n"
                   "dropped = tokens_in(ToolResult('toolu_00', '[dropped]'))\n"
                   "exercise_1 = sum(tokens_in(r) + dropped * (len(results) - 1 - i)\n"
                   "                 for i, r in enumerate(results))\n"),
}
