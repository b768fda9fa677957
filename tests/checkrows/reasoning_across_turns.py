"""Lesson 16's wrong answers: values, replay rules that get one case wrong, and histories edited
the wrong way (the thinking the redaction voided kept, or the thinking still valid dropped)."""

from __future__ import annotations

from dataclasses import replace

from checkrows import Row
from checkrows.reasoning_on_the_wire import CLAUDE  # Claude with thinking, on lesson 15's double
from toolcall_lab import Message, Transcript, run_agent
from toolcall_lab.checks import reasoning_across_turns as key
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.tools import get_weather


def redacted(history, index):
    """`history` with the tool result of message `index` redacted."""
    hidden = replace(history[index].tool_results[0], content="[redacted]")
    return Transcript(messages=[*history.messages[:index], Message.results([hidden]),
                                *history.messages[index + 1:]])


def without_thinking(transcript, keep=lambda index: False):
    """`transcript` without the reasoning of each message `keep` does not keep (the page's helper)."""
    def bare(message):
        return Message(message.role, tuple(b for b in message.blocks if b.kind != "reasoning"))
    return Transcript(messages=[message if keep(index) else bare(message)
                                for index, message in enumerate(transcript)])


# -- section 1: a two-question history on Claude Haiku 5.5, and its Paris result redacted -----------
HISTORY = run_agent(CLAUDE, PARIS_QUESTION, tools=[get_weather]).transcript
run_agent(CLAUDE, "And in Tokyo?", tools=[get_weather], transcript=HISTORY)
REDACTED = redacted(HISTORY, 2)

# -- exercise 1: three questions (thinking in messages 1, 5 and 9), the Tokyo result redacted -------
TRIP = run_agent(CLAUDE, PARIS_QUESTION, tools=[get_weather]).transcript
for _city in ("Tokyo", "Cairo"):
    run_agent(CLAUDE, f"And in {_city}?", tools=[get_weather], transcript=TRIP)
EDITED = redacted(TRIP, 6)


def kept(*indexes):
    return without_thinking(EDITED, keep=lambda index: index in indexes)


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
    # a block is bound to what came before it: only the thinking made after the redacted result
    Row("16 predict_invalid", key.predict_invalid, (HISTORY, REDACTED), lambda: {5},
        (lambda: {1, 5}, lambda: {1}, lambda: set(), lambda: 5, lambda: [5], lambda: "5",
         lambda: {"5"}, lambda: {2, 5})),
    Row("16 replay_rule", key.replay_rule, (), lambda: key.goes_back,
        (lambda: sends_everything, lambda: by_provider_only, lambda: ignores_encrypted_content,
         lambda: ignores_the_model, lambda: says_yes, lambda: True, lambda: "goes_back")),
    Row("16 q1", key.q1, (), lambda: "chat",
        (lambda: "responses", lambda: "Chat Completions", lambda: "openai-chat", lambda: 3, lambda: "CHAT!")),
    Row("16 q2", key.q2, (), lambda: 7, (lambda: 4, lambda: "7", lambda: 6, lambda: 10, lambda: 5)),
    # the edit as it is (refused); all thinking dropped, or all after the edit's first valid block
    # (valid thinking lost); only message 1's dropped (which voids message 5's); the secret kept;
    # a block changed; a list, not a Transcript; a message too many
    Row("16 exercise_1", key.exercise_1, (EDITED, TRIP), lambda: kept(1, 5),
        (lambda: EDITED, lambda: kept(), lambda: kept(1), lambda: kept(5), lambda: kept(1, 5, 9),
         lambda: without_thinking(TRIP, keep=lambda index: index in (1, 5)),
         lambda: Transcript(messages=[*kept(1, 5).messages[:5],
                                      Message.assistant(replace(EDITED[5].reasoning[0], text="Tokyo, then."),
                                                        *EDITED[5].tool_calls),
                                      *kept(1, 5).messages[6:]]),
         lambda: list(kept(1, 5).messages),
         lambda: Transcript(messages=[*kept(1, 5).messages, Message.user("And in Rome?")]),
         lambda: "without_thinking(edited, after=6)")),
]
