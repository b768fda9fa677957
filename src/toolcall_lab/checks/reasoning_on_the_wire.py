"""Answer keys and worked solutions of lesson 15, "Reasoning on the wire".

The answers are values, checked as in every lesson, and each expected value is worked out
from the lesson's own data: the replies the API double gave, the versions of call 2 the
lesson staged, a reply's usage read by the kit's own decoder. Lesson 16, "Reasoning across
turns" (editing history, OpenAI's reasoning, a change of provider), has its own key,
`reasoning_across_turns`, which takes this lesson's `THINKING`.

Exercise 2 is built on data the page does not hold: a Cairo reply the exercise's own
cell asks for, kept as JSON (`saved`), and the call 2 a lossy log rebuilt from it
(`log_rebuilt`); the answer is built from `saved`, so no variable already on the page
(section 4's `versions["a"]`, the Paris conversation) passes.

    >>> q1(900)
    Q1: correct.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..blocks import ReasoningBlock, ToolResult
from ..examples import PARIS_QUESTION
from ..messages import Message
from ..selfcheck import check, equal, number, word
from ..tools.weather import get_weather
from ..transcript import Transcript
from ..turn import Turn
from ..wire import check as api_check
from ..wire import check_request, decode_response, encode_request
from ._runs import raised as _raised

__all__ = ["SOLUTIONS", "exercise_1", "exercise_2", "log_rebuilt", "predict_first", "predict_hello",
           "predict_refused", "q1"]

#: How the lesson turns thinking on for Claude Haiku 5.5 (section 1), and so what a check asks.
THINKING = {"thinking": "adaptive", "effort": "low"}


def _refusal(text: str) -> str:
    """The first sentence of an API's refusal, without its full stop (a hint follows it)."""
    return text.split(". ")[0].rstrip(".")



# -- section 1: where reasoning sits --------------------------------------------------------------
def predict_first(answer: Any, reply: Turn) -> None:
    """Which kind of block comes first in a reply made with thinking on?"""
    first = reply.message.blocks[0].kind
    check("Prediction", answer, word(first, choices=("reasoning", "text", "tool_call")),
          hint="the model thinks before it acts: what would it need to have done before choosing a tool?")


def predict_hello(answer: Any, turn: Turn) -> None:
    """Which kinds of block does a reply to "Hello!" hold, at adaptive thinking and effort low?"""
    kinds = [block.kind for block in turn.message.blocks]

    def wrong(a: Any) -> str | None:
        if isinstance(a, str):
            return f'write a list of kinds in square brackets, like ["text"], not the string {a!r}'
        return equal(kinds)(a)

    check("Prediction", answer, wrong,
          hint="the table this cell printed has the reply at each effort; with adaptive thinking "
               "the model decides whether to think, and a greeting needs no tool")


# -- section 4: thinking goes back unchanged -----------------------------------------------------
def _refused(versions: Mapping[str, Transcript], model: str) -> set[str]:
    return {letter for letter, transcript in versions.items()
            if api_check(transcript, api="anthropic", model=model, tools=[get_weather], **THINKING)}


def _wrong_letters(answer: Any, expected: set[str], letters: set[str]) -> str | None:
    if isinstance(answer, str) and set(answer.replace(",", "").replace(" ", "")) <= letters:
        return "write a set of letters in curly brackets, like {'a'}"
    problem = equal(expected)(answer)
    if problem is not None:
        return problem
    return None


def predict_refused(answer: Any, versions: Mapping[str, Transcript], model: str) -> None:
    """Which versions of call 2 will Anthropic refuse, with thinking on? A set of letters."""
    expected = _refused(versions, model)
    check("Prediction", answer, lambda a: _wrong_letters(a, expected, set(versions)),
          hint="the API checks two things about the thinking of the current tool loop: that it is "
               "there, first, and that it is exactly what the model sent")


# -- check yourself ---------------------------------------------------------------------------------
#: Q1's reply, a Chat Completions reply from a reasoning model: its usage as the page quotes it.
#: Its reasoning is counted inside completion_tokens, which is billed at the output price
#: (section 2; OpenAI's OpenAPI spec, CompletionTokensDetails, in ../shared/wire: "like reasoning
#: tokens, these tokens are still counted in the total completion tokens for purposes of billing").
Q1_USAGE = {"prompt_tokens": 300, "completion_tokens": 900,
            "completion_tokens_details": {"reasoning_tokens": 700}}


def q1(answer: Any) -> None:
    """How many of Q1_USAGE's tokens are billed at the output price?"""
    body = {"id": "chatcmpl-q1", "object": "chat.completion", "model": "gpt-6-luna",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "Lisbon."}}],
            "usage": Q1_USAGE}
    billed = decode_response(body, api="chat").usage.output_tokens
    check("Q1", answer, number(billed),
          hint="section 2: is a reply's reasoning counted beside its output total, or inside it?")


# -- exercises ---------------------------------------------------------------------------------------
OLD_MODEL = "claude-haiku-4-5"
BUDGET, ANSWER_ROOM = 2048, 1000


def _wrong_options(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return f"expected a dict of options, like {{'max_tokens': 512}}, got {type(answer).__name__}"
    question = Transcript(messages=[Message.user(PARIS_QUESTION)])
    try:
        body = encode_request(question, api="anthropic", model=OLD_MODEL, **answer)
    except (TypeError, ValueError) as exc:
        return f"encode_request refused these options: {_raised(exc)}"
    refused = check_request(body, api="anthropic")
    if refused:
        return f"Anthropic would refuse it: {_refusal(refused[0].text)}"
    thinking = body.get("thinking") or {}
    if thinking.get("type") != "enabled":
        return f"thinking is not on as {OLD_MODEL} takes it (it sends {thinking or 'no thinking'})"
    if thinking.get("budget_tokens") != BUDGET:
        return f"the budget is {thinking.get('budget_tokens')}; the exercise asks for {BUDGET:,}"
    if body["max_tokens"] - BUDGET < ANSWER_ROOM:
        return (f"max_tokens {body['max_tokens']} leaves {body['max_tokens'] - BUDGET} tokens after the "
                f"thinking; the answer needs {ANSWER_ROOM:,}")
    return None


def exercise_1(answer: Any) -> None:
    """Options that turn thinking on for Claude Haiku 4.5: a 2,048-token budget, 1,000 for the answer."""
    check("Exercise 1", answer, _wrong_options,
          hint="section 3: which kind of thinking does this model take, and how does max_tokens relate "
               "to the thinking budget?")


def log_rebuilt(question: Transcript, saved: str) -> Transcript:
    """Call 2 as a program rebuilt it from a readable log of `saved`, the reply's JSON body.

    The log kept the words of Claude's thinking and the tool call, nothing else of the
    block, so the thinking comes back without its signature.
    """
    reply = decode_response(json.loads(saved), api="anthropic")
    words = " ".join(block.text for block in reply.message.reasoning)
    results = [ToolResult(c.id, get_weather(**c.args)) for c in reply.message.tool_calls]
    return Transcript(messages=[question[0], Message.assistant(ReasoningBlock(words), *reply.tool_calls),
                                Message.results(results)])


def _wrong_repair(answer: Any, logged: Transcript, saved: str, model: str) -> str | None:
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    if len(answer) and answer[0].role == "user" and answer[0].text != logged[0].text:
        return (f"that is another conversation (its question: {answer[0].text!r}); call 2 here "
                "continues the question in `logged`")
    if len(answer) != len(logged):
        return (f"call 2 sends {len(logged)} messages (question, Claude's reply, your result); "
                f"this has {len(answer)}")
    if answer[0].text != logged[0].text or answer[0].role != "user":
        return "keep the question as message 1"
    if answer[2].tool_results != logged[2].tool_results:
        return "keep the tool result as message 3"
    sent = decode_response(json.loads(saved), api="anthropic")
    if answer[1].tool_calls != sent.tool_calls:
        return "message 2 must hold Claude's tool call as the API sent it (in `saved`)"
    refused = api_check(answer, api="anthropic", model=model, tools=[get_weather], **THINKING)
    if refused:
        return f"Anthropic would refuse it: {_refusal(refused[0].text)}"
    return None


def exercise_2(answer: Any, logged: Transcript, saved: str, model: str) -> None:
    """Call 2's transcript, repaired so that Anthropic accepts it (thinking on)."""
    check("Exercise 2", answer, lambda a: _wrong_repair(a, logged, saved, model),
          hint="the log kept what you could read of the thinking, not what the API checks; "
               "`saved` still holds the reply as it came")


SOLUTIONS: dict[str, str] = {
    "predict_first": '"reasoning"',
    "predict_hello": '["text"]',
    "predict_refused": '{"b", "c"}',
    "q1": "900",
    "exercise_1": '{"thinking": 2048, "max_tokens": 4096}',
    "exercise_2": 'Transcript(messages=[logged[0], decode_response(json.loads(saved), '
                  'api="anthropic").message, logged[2]])',
}
