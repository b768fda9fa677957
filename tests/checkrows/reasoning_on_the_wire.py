"""Lesson 8's wrong answers: values, replay rules that get one case wrong, and stateful loops
that break one promise each."""

from __future__ import annotations

import atexit
import json
from dataclasses import replace

from checkrows import Row
from toolcall_lab import ApiDouble, Message, ReasoningBlock, ToolResult, Transcript, get_provider
from toolcall_lab.checks import reasoning_on_the_wire as key
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import encode_request

DOUBLE = ApiDouble(weather_policy).start()  # plays Claude, as in the lesson; stopped when the tests end
atexit.register(DOUBLE.stop)

CLAUDE = get_provider("anthropic", base_url=DOUBLE.base_url("anthropic"), **key.THINKING)
MODEL = CLAUDE.model
QUESTION = Transcript(messages=[Message.user(PARIS_QUESTION)])
REPLY = CLAUDE.complete(QUESTION, tools=[get_weather])
THOUGHT = REPLY.message.reasoning[0]
CALL = REPLY.tool_calls[0]
RESULT = Message.results([ToolResult(CALL.id, get_weather(**CALL.args))])


def call_2(*assistant_blocks, result=RESULT):
    """Call 2 of the Paris run with message 2 made of `assistant_blocks` (the reply's, if none)."""
    reply = Message.assistant(*assistant_blocks) if assistant_blocks else REPLY.message
    return Transcript(messages=[QUESTION[0], reply, *([result] if result else [])])


VERSIONS = {"a": call_2(), "b": call_2(*REPLY.tool_calls),
            "c": call_2(replace(THOUGHT, text=THOUGHT.text.replace("Paris", "Rome")), *REPLY.tool_calls)}
LOGGED = call_2(ReasoningBlock(THOUGHT.text), *REPLY.tool_calls)
STATEFUL_BODY = {"model": "gpt-6-luna", "previous_response_id": "resp_double_0001", "store": True,
                 "input": [{"type": "function_call_output", "call_id": "call_01", "output": "18°C, sunny"}]}


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


# -- stateful loops that each break one promise ------------------------------------------------------
TOOLS = encode_request(Transcript(), [get_weather], api="responses", model="gpt-6-luna")["tools"]


def _outputs(response, content=None):
    return [{"type": "function_call_output", "call_id": item.call_id,
             "output": content or get_weather(**json.loads(item.arguments))}
            for item in response.output if item.type == "function_call"]


def stateless(client, question):
    """Re-sends the whole conversation, as the kit does, instead of naming the stored response."""
    items = [{"role": "user", "content": question}]
    response = client.responses.create(model="gpt-6-luna", input=items, tools=TOOLS, store=True)
    while outputs := _outputs(response):
        items += [item.model_dump(exclude_none=True) for item in response.output] + outputs
        response = client.responses.create(model="gpt-6-luna", input=items, tools=TOOLS, store=True)
    return response.output_text


def names_it_and_resends(client, question):
    """Names the previous response, and sends the question again besides the results."""
    response = client.responses.create(model="gpt-6-luna", input=question, tools=TOOLS, store=True)
    while outputs := _outputs(response):
        response = client.responses.create(model="gpt-6-luna", tools=TOOLS, store=True,
                                           previous_response_id=response.id,
                                           input=[{"role": "user", "content": question}, *outputs])
    return response.output_text


def stops_after_the_call(client, question):
    """Returns the first response's text, which is empty: the model asked for a tool."""
    return client.responses.create(model="gpt-6-luna", input=question, tools=TOOLS, store=True).output_text


def makes_up_the_result(client, question):
    """Continues properly, but answers the call without running the tool."""
    response = client.responses.create(model="gpt-6-luna", input=question, tools=TOOLS, store=True)
    while outputs := _outputs(response, content="nice"):
        response = client.responses.create(model="gpt-6-luna", input=outputs, tools=TOOLS, store=True,
                                           previous_response_id=response.id)
    return response.output_text


def forgets_to_store(client, question):
    """Asks with store: false, so there is nothing for previous_response_id to name."""
    response = client.responses.create(model="gpt-6-luna", input=question, tools=TOOLS, store=False)
    while outputs := _outputs(response):
        response = client.responses.create(model="gpt-6-luna", input=outputs, tools=TOOLS, store=False,
                                           previous_response_id=response.id)
    return response.output_text


ROWS = [
    Row("6 predict_first", key.predict_first, (REPLY,), lambda: "reasoning",
        (lambda: "tool_call", lambda: "the reasoning", lambda: "thinking", lambda: 0)),
    Row("6 predict_refused", key.predict_refused, (VERSIONS, MODEL), lambda: {"b", "c"},
        (lambda: {"b"}, lambda: {"a", "b", "c"}, lambda: "bc", lambda: ["b", "c"], lambda: {"B", "C"},
         lambda: set())),
    Row("6 replay_rule", key.replay_rule, (), lambda: key.goes_back,
        (lambda: sends_everything, lambda: by_provider_only, lambda: ignores_encrypted_content,
         lambda: ignores_the_model, lambda: says_yes, lambda: True, lambda: "goes_back")),
    Row("6 predict_items", key.predict_items, (STATEFUL_BODY,), lambda: 1,
        (lambda: 4, lambda: "1", lambda: 0, lambda: 1.5)),
    Row("6 q1", key.q1, (), lambda: "chat",
        (lambda: "responses", lambda: "Chat Completions", lambda: "openai-chat", lambda: 3, lambda: "CHAT!")),
    Row("6 q2", key.q2, (), lambda: "yes",
        (lambda: "no", lambda: True, lambda: "yes, as output", lambda: 1)),
    Row("6 q3", key.q3, (), lambda: 7, (lambda: 4, lambda: "7", lambda: 6, lambda: 10)),
    Row("6 exercise_1", key.exercise_1, (), lambda: {"thinking": 2048, "max_tokens": 4096},
        (lambda: {"thinking": "adaptive", "max_tokens": 4096}, lambda: {"thinking": 2048},
         lambda: {"thinking": 2048, "max_tokens": 2500}, lambda: {"thinking": 1024, "max_tokens": 4096},
         lambda: {"thinking": 2048, "max_tokens": 4096, "effort": "low"}, lambda: {"budget_tokens": 2048},
         lambda: {"thinking": "2048", "max_tokens": 4096}, lambda: "thinking=2048, max_tokens=4096")),
    Row("6 exercise_2", key.exercise_2, (LOGGED, REPLY, MODEL), lambda: call_2(),
        (lambda: LOGGED, lambda: VERSIONS["b"], lambda: VERSIONS["c"], lambda: call_2(result=None),
         lambda: call_2(replace(THOUGHT, model="claude-opus-5"), *REPLY.tool_calls),
         lambda: list(call_2().messages), lambda: Transcript(messages=[QUESTION[0], REPLY.message, RESULT,
                                                                      Message.user("Thanks")]))),
    Row("6 exercise_3", key.exercise_3, (), lambda: key.stateful_answer,
        (lambda: stateless, lambda: names_it_and_resends, lambda: stops_after_the_call,
         lambda: makes_up_the_result, lambda: forgets_to_store, lambda: "stateful_answer")),
]
