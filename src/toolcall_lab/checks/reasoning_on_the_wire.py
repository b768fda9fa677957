# mypy: disable-error-code="no-untyped-def"
# (the worked functions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 15, "Reasoning on the wire".

Most answers are values, checked as in every lesson, and each expected value is worked out
from the lesson's own data: the replies the API double gave, the versions of call 2 the
lesson staged, the edited history, the body the double received. One answer is a
function the learner writes in a `your-code` cell, judged by what it does:
`goes_back(block, api, model)`, the learner's replay rule, is asked about a grid of
reasoning blocks (from both APIs, two Claude models, other providers) and must agree
with the kit's codecs (`wire.<api>.why_dropped`) on every one.

Exercise 2 is built on data the page does not hold: a Cairo reply the exercise's own
cell asks for, kept as JSON (`saved`), and the call 2 a lossy log rebuilt from it
(`log_rebuilt`); the answer is built from `saved`, so no variable already on the page
(section 4's `versions["a"]`, the Paris conversation) passes.

A function whose body is still the template's `...` counts as not answered yet, so
**Run All** reaches the end. `goes_back` below is the worked answer, kept as code so that
it is linted and run; `SOLUTIONS` holds its source.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any

from ..blocks import ReasoningBlock, ToolCall, ToolResult
from ..examples import PARIS_QUESTION
from ..messages import Message
from ..selfcheck import check, equal, number, word
from ..tools.weather import get_weather
from ..transcript import Transcript
from ..turn import Turn
from ..wire import APIS, check_request, codec, decode_response, encode_request
from ..wire import check as api_check
from ._runs import raised as _raised
from ._runs import template as _template

__all__ = ["SOLUTIONS", "exercise_1", "exercise_2", "log_rebuilt", "predict_first", "predict_hello",
           "predict_invalid", "predict_refused", "q1", "q2", "replay_rule"]

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


# -- section 7: the learner's replay rule ----------------------------------------------------------
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


def _item(text: str, **more: Any) -> dict[str, Any]:
    return {"type": "reasoning", "id": "rs_" + text[:4], "summary": [{"type": "summary_text", "text": text}],
            **more}


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


# -- section 6: editing history on Claude 5.5 models --------------------------------------------
def _invalid_after(edited: Transcript, model: str) -> set[int]:
    """The messages of `edited` whose thinking a further question to `model` would be refused for."""
    from ..wire.signing import prefix_mismatches

    ask = Transcript(messages=[*edited.messages, Message.user("And in Cairo?")])
    body = encode_request(ask, [get_weather], api="anthropic", model=model, **THINKING)
    return {message for message, _ in prefix_mismatches(body)}


def predict_invalid(answer: Any, history: Transcript, redacted: Transcript) -> None:
    """Which messages' thinking does redacting message 2 make invalid? A set of indexes."""
    model = next(b.model for m in history for b in m.reasoning if b.model)
    expected = _invalid_after(redacted, model)

    def wrong(a: Any) -> str | None:
        if isinstance(a, str):
            return "write a set of message indexes in curly brackets, like {1}, not a string"
        return equal(expected)(a)

    check("Prediction", answer, wrong,
          hint="a thinking block is bound to everything before it: which of the two blocks had "
               "the Paris result before it when it was made?")


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
          hint="count what call 2 sent (section 7), then add what reply 2 and its result bring: "
               "every item goes back, in order")


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
    "predict_invalid": "{5}",
    "goes_back": inspect.getsource(goes_back),
    "q1": '"chat"',
    "q2": "7",
    "exercise_1": '{"thinking": 2048, "max_tokens": 4096}',
    "exercise_2": 'Transcript(messages=[logged[0], decode_response(json.loads(saved), '
                  'api="anthropic").message, logged[2]])',
}
