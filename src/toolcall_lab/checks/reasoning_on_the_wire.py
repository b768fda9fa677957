# mypy: disable-error-code="no-untyped-def"
# (the worked functions of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 8, "Reasoning on the wire".

Most answers are values, checked as in every lesson, and each expected value is worked out
from the lesson's own data: the reply the API double gave, the versions of call 2 the
lesson staged, the body the double received. Two answers are functions the learner writes
in a `your-code` cell, judged by what they do:

- `goes_back(block, api, model)`, the learner's replay rule, is asked about a grid of
  reasoning blocks (from both APIs, two Claude models, other providers) and must agree
  with the kit's codecs (`wire.<api>.why_dropped`) on every one;
- `stateful_answer(client, question)`, exercise 3, runs against a fresh API double, which
  records what each request carried: it must continue with `previous_response_id` and
  send only what is new.

A function whose body is still the template's `...` counts as not answered yet, so
**Run All** reaches the end. `goes_back` and `stateful_answer` below are the worked
answers, kept as code so that they are linted and run; `SOLUTIONS` holds their source.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any

from ..blocks import ReasoningBlock
from ..examples import PARIS_QUESTION, weather_policy
from ..messages import Message, ToolCall, ToolResult, Transcript
from ..selfcheck import check, equal, number, word
from ..tools.weather import get_weather
from ..turn import Turn
from ..wire import APIS, check_request, codec, decode_response, encode_request
from ..wire import check as api_check
from ._runs import raised as _raised
from ._runs import template as _template

__all__ = ["SOLUTIONS", "exercise_1", "exercise_2", "exercise_3", "predict_first", "predict_items",
           "predict_refused", "q1", "q2", "q3", "replay_rule"]

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


# -- section 6: store: true and previous_response_id -------------------------------------------
def predict_items(answer: Any, body: Mapping[str, Any]) -> None:
    """How many input items did the request that continued with previous_response_id carry?"""
    check("Prediction", answer, number(len(body["input"])),
          hint="the server kept the question, the reasoning and the call; what is new since then?")


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
          hint="look for the API whose assistant messages have no field for reasoning (lesson 2 showed "
               "each one's request body)")


def q2(answer: Any) -> None:
    """Thinking text omitted (an empty block): are its tokens still billed?"""
    body = {"model": "m", "stop_reason": "end_turn", "content": [
        {"type": "thinking", "thinking": "", "signature": "sig"}, {"type": "text", "text": "Hi"}],
        "usage": {"input_tokens": 10, "output_tokens": 300,
                  "output_tokens_details": {"thinking_tokens": 290}}}
    billed = decode_response(body, api="anthropic").usage.reasoning_tokens > 0
    check("Q2", answer, word("yes" if billed else "no", choices=("yes", "no")),
          hint="the tokens were spent when the model thought, whatever the reply shows; where does "
               "usage count them?",
          why="Anthropic's thinking page says so: thinking is billed as output tokens even when its "
              "text is not returned (platform.claude.com/docs/en/build-with-claude/thinking).")


def q3(answer: Any) -> None:
    """Stateless Responses: how many input items does call 3 of a two-tool loop send?"""
    def reply(n: int, city: str) -> Message:
        item = _item(f"call {n}", encrypted_content="gAAAA" + str(n))
        return Message.assistant(ReasoningBlock("", "openai", "gpt-6-luna", item),
                                 ToolCall(f"call_{n}", "get_weather", {"city": city}))
    loop = Transcript(messages=[Message.user("Paris, then Tokyo?"), reply(1, "Paris"),
                                Message.results([ToolResult("call_1", "18°C, sunny")]), reply(2, "Tokyo"),
                                Message.results([ToolResult("call_2", "22°C, cloudy")])])
    sent = encode_request(loop, [get_weather], api="responses", model="gpt-6-luna", reasoning_effort="low")
    check("Q3", answer, number(len(sent["input"])),
          hint="count what call 2 sent (section 6), then add what reply 2 and its result bring: "
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


def _wrong_repair(answer: Any, logged: Transcript, reply: Turn, model: str) -> str | None:
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    if len(answer) != len(logged):
        return (f"call 2 sends {len(logged)} messages (question, Claude's reply, your result); "
                f"this has {len(answer)}")
    if answer[0].text != logged[0].text or answer[0].role != "user":
        return "keep the question as message 1"
    if answer[2].tool_results != logged[2].tool_results:
        return "keep the tool result as message 3"
    if answer[1].tool_calls != reply.message.tool_calls:
        return "message 2 must hold Claude's tool call as it came"
    refused = api_check(answer, api="anthropic", model=model, tools=[get_weather], **THINKING)
    if refused:
        return f"Anthropic would refuse it: {_refusal(refused[0].text)}"
    return None


def exercise_2(answer: Any, logged: Transcript, reply: Turn, model: str) -> None:
    """Call 2's transcript, repaired so that Anthropic accepts it (thinking on)."""
    check("Exercise 2", answer, lambda a: _wrong_repair(a, logged, reply, model),
          hint="the log kept what you could read of the thinking, not what the API checks; where does "
               "the reply exactly as it came still live?")


def stateful_answer(client, question):
    """Run `question` to its answer with store=True and previous_response_id; return the answer's text."""
    tools = encode_request(Transcript(), [get_weather], api="responses", model="gpt-6-luna")["tools"]
    response = client.responses.create(model="gpt-6-luna", input=question, tools=tools, store=True)
    while True:
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return response.output_text
        outputs = [{"type": "function_call_output", "call_id": call.call_id,
                    "output": get_weather(**json.loads(call.arguments))} for call in calls]
        response = client.responses.create(model="gpt-6-luna", input=outputs, tools=tools, store=True,
                                           previous_response_id=response.id)


def _wrong_stateful(function: Any) -> str | None:
    from openai import OpenAI

    from ..double import ApiDouble

    if not callable(function):
        return ("expected your function itself (stateful_answer, without brackets), got "
                f"{type(function).__name__}")
    with ApiDouble(weather_policy) as double:
        client = OpenAI(base_url=double.base_url("responses"), api_key="no-key-needed", max_retries=0)
        try:
            answer = function(client, PARIS_QUESTION)
        except Exception as exc:
            return f"stateful_answer(client, question) raised {_raised(exc)}"
        requests = [r for r in double.requests if r.api == "responses"]
    bodies = [r.body for r in requests]
    if any(r.status != 200 for r in requests):
        return f"the server refused a request (status {next(r.status for r in requests if r.status != 200)})"
    if len(bodies) < 2:
        return "the model asked for get_weather: run it and send the result back in a second request"
    if any(b.get("store", True) is not True for b in bodies):
        return "keep store: true (the API's default), or there is nothing for previous_response_id to name"
    for number_, body in enumerate(bodies[1:], start=2):
        if not body.get("previous_response_id"):
            return f"request {number_} has no previous_response_id, so it cannot continue the stored response"
        items = body.get("input")
        kinds = [i.get("type", "message") for i in items] if isinstance(items, list) else ["message"]
        if any(kind != "function_call_output" for kind in kinds):
            return (f"request {number_} re-sent {kinds}; with previous_response_id the server has "
                    "the rest, so send only the new results")
    if not isinstance(answer, str) or "18°C" not in answer:
        return (f"it returned {answer!r:.60}; return the text of the model's final answer, which "
                "gives the weather get_weather reported")
    return None


def exercise_3(answer: Any) -> None:
    """Your stateful loop, against a fresh API double playing OpenAI."""
    check("Exercise 3", ... if _template(answer) else answer, _wrong_stateful,
          hint="create(...) once with the question; then, while the response holds function_call items, "
               "answer them in a new create(...) that names the previous response's id")


SOLUTIONS: dict[str, str] = {
    "predict_first": '"reasoning"',
    "predict_refused": '{"b", "c"}',
    "predict_items": "1",
    "goes_back": inspect.getsource(goes_back),
    "q1": '"chat"',
    "q2": '"yes"',
    "q3": "7",
    "exercise_1": '{"thinking": 2048, "max_tokens": 4096}',
    "exercise_2": "Transcript(messages=[logged[0], reply.message, logged[2]])",
    "stateful_answer": inspect.getsource(stateful_answer),
}
