"""Lesson 7's wrong answers: a made_by with one mistake, the loop's words, and the trimmed
loop's bill counted the ways learners get it wrong."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab import ReasoningBlock, ScriptedProvider, TextBlock, ToolCall, ToolResult, call, run_agent
from toolcall_lab.checks import transcript_as_data as key
from toolcall_lab.tools import search_kb


def researcher():
    topics = ["days off", "remote work days", "password help desk", "laptop repair price",
              "travel receipts days", "meals on business trips"]
    provider = ScriptedProvider([*(call("search_kb", query=t, limit=3) for t in topics), "Six points."])
    run_agent(provider, "What should a new starter know from the handbook?", tools=[search_kb])
    return provider


RESEARCHER = researcher()
RESULTS = RESEARCHER.requests[-1].messages
TRIMMED = key.trimmed_results(RESEARCHER.requests)
UNTRIMMED = key.input_by_kind(RESEARCHER.requests)["tool_result"]
EACH_ONCE = sum(key.tokens_in(b) for m in RESULTS for b in m.blocks if isinstance(b, ToolResult))
#: each dropped result counted once too often: the call it was first sent with as well
ONE_TOO_MANY = TRIMMED + 6 * key.tokens_in(ToolResult("toolu_00", key.DROPPED))


def made_by_that(*, reasoning="the model", text="either", unknown=None, model="the model"):
    """A learner's made_by with one mistake: a wrong answer for a kind, or a guess for the unknown."""
    def made_by(block):
        match block:
            case TextBlock():
                return text
            case ReasoningBlock():
                return reasoning
            case ToolCall():
                return model
            case ToolResult():
                return "your code"
            case _:
                if unknown is None:
                    raise AssertionError(f"Expected code to be unreachable, but got: {block!r}")
                return unknown
    return made_by


ROWS = [
    Row("7 made_by", key.made_by, (), made_by_that,
        (lambda: "made_by", lambda: made_by_that(unknown="either"), lambda: made_by_that(reasoning="either"),
         lambda: made_by_that(model="model"), lambda: made_by_that(text="the user"),
         lambda: lambda block: "the model", lambda: TextBlock)),
    Row("7 predict_biggest", key.predict_biggest, (RESEARCHER,), lambda: "tool_result",
        (lambda: "text", lambda: "tool_results", lambda: "a tool_result", lambda: 1528, lambda: "tool_call")),
    Row("7 q1", key.q1, (), lambda: "tool_result",
        (lambda: "tool_call", lambda: "a tool_result", lambda: "reasoning", lambda: ["tool_result"])),
    Row("7 exercise_1", key.exercise_1, (RESEARCHER,), lambda: TRIMMED,
        (lambda: UNTRIMMED, lambda: EACH_ONCE, lambda: ONE_TOO_MANY, lambda: str(TRIMMED),
         lambda: f"{TRIMMED} tokens", lambda: [TRIMMED], lambda: None)),
]
