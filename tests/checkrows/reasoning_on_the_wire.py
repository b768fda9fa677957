"""Lesson 15's wrong answers: values, replay rules that get one case wrong, histories edited
the wrong way, and a repaired call 2 built from anything but the saved reply."""

from __future__ import annotations

import atexit
import json
from dataclasses import replace

from checkrows import Row
from toolcall_lab import ApiDouble, Message, ReasoningBlock, ToolResult, Transcript, get_provider, run_agent
from toolcall_lab.checks import reasoning_on_the_wire as key
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import decode_response

DOUBLE = ApiDouble(weather_policy).start()  # plays Claude, as in the lesson; stopped when the tests end
atexit.register(DOUBLE.stop)

CLAUDE = get_provider("anthropic", base_url=DOUBLE.base_url("anthropic"), **key.THINKING)
MODEL = CLAUDE.model
QUESTION = Transcript(messages=[Message.user(PARIS_QUESTION)])
REPLY = CLAUDE.complete(QUESTION, tools=[get_weather])
THOUGHT = REPLY.message.reasoning[0]
CALL = REPLY.tool_calls[0]
RESULT = Message.results([ToolResult(CALL.id, get_weather(**CALL.args))])
HELLO = CLAUDE.complete(Transcript(messages=[Message.user("Hello!")]), tools=[get_weather])


def call_2(*assistant_blocks, result=RESULT):
    """Call 2 of the Paris run with message 2 made of `assistant_blocks` (the reply's, if none)."""
    reply = Message.assistant(*assistant_blocks) if assistant_blocks else REPLY.message
    return Transcript(messages=[QUESTION[0], reply, *([result] if result else [])])


VERSIONS = {"a": call_2(), "b": call_2(*REPLY.tool_calls),
            "c": call_2(replace(THOUGHT, text=THOUGHT.text.replace("Paris", "Rome")), *REPLY.tool_calls)}

# -- section 6: a two-question history on Claude Haiku 5.5, and its Paris result redacted -----------
HISTORY = run_agent(CLAUDE, PARIS_QUESTION, tools=[get_weather]).transcript
run_agent(CLAUDE, "And in Tokyo?", tools=[get_weather], transcript=HISTORY)
HIDDEN = replace(HISTORY[2].tool_results[0], content="[redacted]")
REDACTED = Transcript(messages=[*HISTORY.messages[:2], Message.results([HIDDEN]), *HISTORY.messages[3:]])

# -- exercise 2: a Cairo reply, kept as JSON, and the call 2 a lossy log rebuilt from it ------------
CAIRO = Transcript(messages=[Message.user("What's the weather in Cairo?")])
SAVED = json.dumps(CLAUDE.complete(CAIRO, tools=[get_weather]).response)
LOGGED = key.log_rebuilt(CAIRO, SAVED)
KEPT = decode_response(json.loads(SAVED), api="anthropic").message


def repaired(message=KEPT, *, result=True):
    return Transcript(messages=[LOGGED[0], message, *([LOGGED[2]] if result else [])])


# -- replay rules that each get one kind of block wrong ---------------------------------------------
MAKERS = {"anthropic": "anthropic", "responses": "openai"}


def sends_everything(block, api, model):
    return True


def by_provider_only(block, api, model):
    return block.provider == MAKERS[api]


def ignores_encrypted_content(block, api, model):
    return block.provider == MAKERS[api] and (api != "anthropic" or block.model == model)


def ignores_the_model(block, api, model):
    sealed = bool(block.opaque.get("encrypted_content"))
    return block.provider == MAKERS[api] and (api == "anthropic" or sealed)


def says_yes(block, api, model):
    return "yes" if key.goes_back(block, api, model) else "no"


ROWS = [
    Row("8 predict_first", key.predict_first, (REPLY,), lambda: "reasoning",
        (lambda: "tool_call", lambda: "the reasoning", lambda: "thinking", lambda: 0)),
    # "look for it, do not assume it": the greeting at effort low has no thinking
    Row("8 predict_hello", key.predict_hello, (HELLO,), lambda: ["text"],
        (lambda: ["reasoning", "text"], lambda: "text", lambda: ["Text"], lambda: ("text",),
         lambda: ["thinking", "text"], lambda: [])),
    Row("8 predict_refused", key.predict_refused, (VERSIONS, MODEL), lambda: {"b", "c"},
        (lambda: {"b"}, lambda: {"c"}, lambda: {"a", "b", "c"}, lambda: "bc", lambda: ["b", "c"],
         lambda: {"B", "C"}, lambda: set())),
    # a block is bound to what came before it: only the thinking made after the redacted result
    Row("8 predict_invalid", key.predict_invalid, (HISTORY, REDACTED), lambda: {5},
        (lambda: {1, 5}, lambda: {1}, lambda: set(), lambda: 5, lambda: [5], lambda: "5",
         lambda: {"5"}, lambda: {2, 5})),
    Row("8 replay_rule", key.replay_rule, (), lambda: key.goes_back,
        (lambda: sends_everything, lambda: by_provider_only, lambda: ignores_encrypted_content,
         lambda: ignores_the_model, lambda: says_yes, lambda: True, lambda: "goes_back")),
    Row("8 q1", key.q1, (), lambda: "chat",
        (lambda: "responses", lambda: "Chat Completions", lambda: "openai-chat", lambda: 3, lambda: "CHAT!")),
    Row("8 q2", key.q2, (), lambda: 7, (lambda: 4, lambda: "7", lambda: 6, lambda: 10, lambda: 5)),
    Row("8 exercise_1", key.exercise_1, (), lambda: {"thinking": 2048, "max_tokens": 4096},
        (lambda: {"thinking": "adaptive", "max_tokens": 4096}, lambda: {"thinking": 2048},
         lambda: {"thinking": 2048, "max_tokens": 2500}, lambda: {"thinking": 1024, "max_tokens": 4096},
         lambda: {"thinking": 2048, "max_tokens": 4096, "effort": "low"}, lambda: {"budget_tokens": 2048},
         lambda: {"thinking": "2048", "max_tokens": 4096}, lambda: "thinking=2048, max_tokens=4096")),
    # built on data the page does not hold: section 4's `versions["a"]`, a variable already on the
    # page, is another conversation; asking Claude again gives a new call id; the log is the log
    Row("8 exercise_2", key.exercise_2, (LOGGED, SAVED, MODEL), lambda: repaired(),
        (lambda: VERSIONS["a"], lambda: LOGGED, lambda: repaired(result=False),
         lambda: repaired(CLAUDE.complete(CAIRO, tools=[get_weather]).message),
         lambda: repaired(Message.assistant(*KEPT.tool_calls)),
         lambda: repaired(Message.assistant(replace(KEPT.reasoning[0], text="Cairo, then."),
                                            *KEPT.tool_calls)),
         lambda: repaired(Message.assistant(ReasoningBlock(KEPT.reasoning[0].text), *KEPT.tool_calls)),
         lambda: list(repaired().messages),
         lambda: Transcript(messages=[*repaired().messages, Message.user("Thanks")]),
         lambda: repaired(Message.assistant(*KEPT.tool_calls, KEPT.reasoning[0])))),
]
