# mypy: disable-error-code="no-untyped-def"
# (the worked functions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 16, "Reasoning across turns".

Most answers are values, checked as in every lesson, and each expected value is worked out
from the lesson's own data: the edited history, the body the double received. One answer is
a function the learner writes in a `your-code` cell, judged by what it does:
`goes_back(block, api, model)`, the learner's replay rule, is asked about a grid of
reasoning blocks (from both APIs, two Claude models, other providers) and must agree
with the kit's codecs (`wire.<api>.why_dropped`) on every one.

Exercise 1 is built on data the page does not hold: a three-question history its own cell
asks for, with the second question's result redacted; the answer keeps every thinking
block still valid, and the check asks the API double's own prefix check which those are.

A function whose body is still the template's `...` counts as not answered yet, so
**Run All** reaches the end. `goes_back` below is the worked answer, kept as code so that
it is linted and run; `SOLUTIONS` holds its source.

    >>> q1("chat")
    Q1: correct.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..blocks import ReasoningBlock, ToolCall, ToolResult
from ..messages import Message
from ..selfcheck import check, equal, number, word
from ..tools.weather import get_weather
from ..transcript import Transcript
from ..wire import APIS, codec, encode_request
from ..wire import check as api_check
from ._runs import raised as _raised
from ._runs import template as _template
from .reasoning_on_the_wire import THINKING

__all__ = ["SOLUTIONS", "exercise_1", "predict_invalid", "q1", "q2", "replay_rule"]


def _item(text: str, **more: Any) -> dict[str, Any]:
    return {"type": "reasoning", "id": "rs_" + text[:4], "summary": [{"type": "summary_text", "text": text}],
            **more}


# -- section 1: editing history on Claude 5.5 models --------------------------------------------
def _invalid_after(edited: Transcript, model: str) -> set[int]:
    """The messages of `edited` whose thinking a further question to `model` would be refused for."""
    from ..wire.signing import prefix_mismatches

    ask = Transcript(messages=[*edited.messages, Message.user("And in Cairo?")])
    body = encode_request(ask, [get_weather], api="anthropic", model=model, **THINKING)
    return {message for message, _ in prefix_mismatches(body)}


def _model_of(history: Transcript) -> str:
    return next(b.model for m in history for b in m.reasoning if b.model)


def predict_invalid(answer: Any, history: Transcript, redacted: Transcript) -> None:
    """Which messages' thinking does redacting message 2 make invalid? A set of indexes."""
    expected = _invalid_after(redacted, _model_of(history))

    def wrong(a: Any) -> str | None:
        if isinstance(a, str):
            return "write a set of message indexes in curly brackets, like {1}, not a string"
        return equal(expected)(a)

    check("Prediction", answer, wrong,
          hint="a thinking block is bound to everything before it: which of the two blocks had "
               "the Paris result before it when it was made?")


# -- section 3: the learner's replay rule ----------------------------------------------------------
def goes_back(block, api, model):
    """True when a request to `api` ("anthropic" or "responses") for `model` may carry `block`."""
    maker = {"anthropic": "anthropic", "responses": "openai"}[api]
    if block.provider != maker:
        return False  # another provider's reasoning: only its maker can read it
    if api == "anthropic":
        return block.model == model  # thinking is tied to the model that wrote it
    return bool(block.opaque.get("encrypted_content"))  # store: false keeps nothing to look up


def _signed(text: str, model: str) -> ReasoningBlock:
    return ReasoningBlock(text, "anthropic", model, {"signature": "sig-" + model})


#: The blocks the learner's rule is asked about, each with how a sentence names it.
GRID: list[tuple[str, ReasoningBlock]] = [
    ("Claude Haiku 5.5's thinking", _signed("Paris: look it up.", "claude-haiku-5-5")),
    ("Claude Opus 5's thinking", _signed("Tokyo: look it up.", "claude-opus-5")),
    ("Claude Haiku 5.5's redacted thinking",
     ReasoningBlock("", "anthropic", "claude-haiku-5-5", {"redacted": "EmwKAhgBEgy3va=="})),
    ("an OpenAI reasoning item with encrypted_content",
     ReasoningBlock("Cairo.", "openai", "gpt-6-luna", _item("Cairo.", encrypted_content="gAAAA1"))),
    ("an OpenAI reasoning item without encrypted_content",
     ReasoningBlock("Rome.", "openai", "gpt-6-luna", _item("Rome."))),
    ("a Chat server's reasoning", ReasoningBlock("Oslo.", "openai-chat", "qwen3:4b")),
    ("Ollama's reasoning", ReasoningBlock("Lima.", "ollama", "qwen3:4b")),
    ("reasoning nobody signed", ReasoningBlock("made up by hand")),
]
TARGETS = [("anthropic", "claude-haiku-5-5"), ("anthropic", "claude-opus-5"), ("responses", "gpt-6-luna")]


def _kit_sends(block: ReasoningBlock, api: str, model: str) -> bool:
    return codec(api).why_dropped(block, model=model) is None


def _wrong_rule(function: Any) -> str | None:
    if not callable(function):
        return f"expected your function itself (goes_back, without brackets), got {type(function).__name__}"
    for label, block in GRID:
        for api, model in TARGETS:
            try:
                said = function(block, api, model)
            except Exception as exc:
                return f"goes_back({label}, {api!r}, {model!r}) raised {_raised(exc)}"
            if not isinstance(said, bool):
                return f"goes_back returned {type(said).__name__}; return True or False"
            if said != _kit_sends(block, api, model):
                verdict = "sends it back" if not said else "leaves it out"
                return f"for {label}, a request to {api} for {model}: you said {said}, the kit {verdict}"
    return None


def replay_rule(answer: Any) -> None:
    """Your goes_back, asked about every block of GRID for every target of TARGETS."""
    check("goes_back", ... if _template(answer) else answer, _wrong_rule,
          hint="three rules, in order: who made the block (`block.provider`), then for Anthropic the "
               "model (`block.model`), for Responses the item's encrypted_content (`block.opaque`)")


# -- check yourself ---------------------------------------------------------------------------------
def _own_block(api: str) -> ReasoningBlock:
    """A reasoning block as `api`'s own decoder makes it (with all it needs to go back)."""
    provider = codec(api).PROVIDER_NAME
    opaque = {"anthropic": {"signature": "sig"},
              "responses": _item("Paris.", encrypted_content="gAAAA1")}.get(api, {})
    return ReasoningBlock("Paris.", provider, "m", opaque)


def q1(answer: Any) -> None:
    """To which API can no reasoning go back, not even the reasoning its own models wrote?"""
    keeps_nothing = [api for api in APIS if codec(api).why_dropped(_own_block(api), model="m") is not None]
    check("Q1", answer, word(keeps_nothing[0], choices=APIS),
          hint="look for the API whose assistant messages have no field for reasoning (lesson 3 showed "
               "each one's request body)")


def q2(answer: Any) -> None:
    """Stateless Responses: how many input items does call 3 of a two-tool loop send?"""
    def reply(n: int, city: str) -> Message:
        item = _item(f"call {n}", encrypted_content="gAAAA" + str(n))
        return Message.assistant(ReasoningBlock("", "openai", "gpt-6-luna", item),
                                 ToolCall(f"call_{n}", "get_weather", {"city": city}))
    loop = Transcript(messages=[Message.user("Paris, then Tokyo?"), reply(1, "Paris"),
                                Message.results([ToolResult("call_1", "18°C, sunny")]), reply(2, "Tokyo"),
                                Message.results([ToolResult("call_2", "22°C, cloudy")])])
    sent = encode_request(loop, [get_weather], api="responses", model="gpt-6-luna", reasoning_effort="low")
    check("Q2", answer, number(len(sent["input"])),
          hint="count what call 2 sent (section 2), then add what reply 2 and its result bring: "
               "every item goes back, in order")


# -- exercises ---------------------------------------------------------------------------------------
def _without_reasoning(message: Message) -> tuple[Any, ...]:
    return (message.role, tuple(b for b in message.blocks if b.kind != "reasoning"))


def _wrong_history(answer: Any, edited: Transcript, original: Transcript) -> str | None:
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    if len(answer) != len(edited):
        return f"`edited` holds {len(edited)} messages; keep them all (this has {len(answer)})"
    for index, (mine, theirs) in enumerate(zip(answer, edited, strict=True)):
        if _without_reasoning(mine) == _without_reasoning(theirs):
            continue
        if _without_reasoning(mine) == _without_reasoning(original[index]):
            return f"message {index} still holds the result you had to redact"
        return f"message {index} is not `edited`'s: change nothing but which thinking blocks stay"
    for index, (mine, theirs) in enumerate(zip(answer, edited, strict=True)):
        if any(block not in theirs.reasoning for block in mine.reasoning):
            return (f"message {index}'s thinking is not the block Claude sent: a block goes back "
                    "unchanged or not at all")
    model = _model_of(original)
    ask = Transcript(system=edited.system, messages=[*answer.messages, Message.user("And in Rome?")])
    refused = api_check(ask, api="anthropic", model=model, tools=[get_weather], **THINKING)
    if refused:
        return f"Anthropic would refuse it: {refused[0].text.split('. ')[0]}"
    invalid = _invalid_after(edited, model)
    for index, (mine, theirs) in enumerate(zip(answer, edited, strict=True)):
        if index not in invalid and len(mine.reasoning) < len(theirs.reasoning):
            return (f"message {index}'s thinking was made before the edit and is still valid: "
                    "keep it (the model reads it, and you paid for it)")
    return None


def exercise_1(answer: Any, edited: Transcript, original: Transcript) -> None:
    """`edited` with the thinking the redaction made invalid taken out, and nothing else."""
    check("Exercise 1", answer, lambda a: _wrong_history(a, edited, original),
          hint="section 1: a thinking block is bound to everything before it; which blocks were "
               "made after the message you redacted?")


SOLUTIONS: dict[str, str] = {
    "predict_invalid": "{5}",
    "goes_back": inspect.getsource(goes_back),
    "q1": '"chat"',
    "q2": "7",
    "exercise_1": "without_thinking(edited, after=6)",
}
