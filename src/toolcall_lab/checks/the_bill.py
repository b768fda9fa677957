"""Answer keys of lesson 5, "The bill of a loop".

Money is compared to the cent's hundredth; token counts exactly. A total worked out
with an off-by-one in the formula (n² instead of n(n−1)) is a wrong answer, on purpose:
that is the mistake the formula exercise is there to catch. Prompt caching, compaction and
server-held threads are lesson 6's (`caching_and_threads`).
"""

from __future__ import annotations

from typing import Any

from ..examples import PARIS_QUESTION, SYSTEM_PROMPT, many_tools
from ..messages import Message
from ..models import TEACHING_MODEL, require_price, tool_prompt_tokens
from ..selfcheck import check, number, word
from ..tokens import loop_input_total, request_tokens
from ..transcript import Transcript
from ..usage import Usage
from ..views.cost import cost_of

__all__ = ["EXERCISE_1", "MANY_TOOLS", "Q1_LOOP", "Q3_QUESTION", "Q3_TIMES", "SOLUTIONS", "exercise_1",
           "loop_total", "predict_tools_tokens", "q1", "q2", "q3", "tools_loop_dollars", "tools_tokens"]


def loop_total(answer: Any, n: int, h0: int, t: int) -> None:
    """Your total input tokens for a loop of `n` calls, `h0` to start, `t` per step."""
    check("Your total", answer, number(loop_input_total(n, h0, t)),
                 hint="call i re-sends h0 + (i − 1)·t; add those up for i = 1 … n, or use "
                      "n·h0 + t·n(n−1)/2 (mind the n − 1)")


#: Section 7: (how many of `examples.many_tools` are offered, the calls of the loop that offers them).
MANY_TOOLS = (50, 20)


def tools_tokens(n: int = MANY_TOOLS[0]) -> int:
    """The input tokens `many_tools(n)`'s definitions add to the Paris run's first request (the kit's
    estimate, `tokens.request_tokens`); every request that offers them carries them again."""
    first = Transcript(SYSTEM_PROMPT, [Message.user(PARIS_QUESTION)])
    return request_tokens(first, many_tools(n)) - request_tokens(first)


def predict_tools_tokens(answer: Any) -> None:
    """Your prediction of the tokens the 50 tool definitions add to one request (within 10%)."""
    expected = tools_tokens()
    check("Your prediction", answer, number(expected, tolerance=expected * 0.1),
          hint="the cell above shows what one definition adds; every definition of the list "
               "travels in the request, and they are about the same size",
          why="Within 10% of what the kit counts.")


def tools_loop_dollars(answer: Any, model: str = TEACHING_MODEL) -> None:
    """Dollars the 50 definitions add to the input bill of a loop of MANY_TOOLS[1] calls on `model`."""
    _, calls = MANY_TOOLS
    # sent on every call, as input: calls x tokens, at the input price per million
    expected = calls * tools_tokens() / 1e6 * require_price(model).input
    check("Your dollars", answer, number(expected, tolerance=expected * 0.01),
          hint="the definitions are part of h0 in section 4's formula, so every call of the loop "
               "sends them; turn those tokens into dollars with section 4's input price")


#: Q1's loop: (calls, model). Not the page's model, so its hidden prompt is looked up, not copied.
Q1_LOOP = (20, "claude-haiku-4-5")


def q1(answer: Any) -> None:
    """Dollars the hidden tool-use prompt adds to the bill of Q1's loop (every call offers a tool)."""
    calls, model = Q1_LOOP
    # dollars = tokens / 1e6 * price_per_mtok; the hidden prompt is input, once per request
    expected = calls * tool_prompt_tokens(model) / 1e6 * require_price(model).input
    check("Q1", answer, number(expected, tolerance=expected * 0.01),
          hint="section 3 says which requests carry the hidden prompt and the table that holds its "
               "size per model; section 1 has that model's input price")


def q2(answer: Any, model: str = "claude-haiku-5-5") -> None:
    """Does a 150,000-token prompt pay the same per input token as a 50,000-token one?"""
    small = cost_of(Usage(input_tokens=50_000, output_tokens=0), model).total / 50_000
    large = cost_of(Usage(input_tokens=150_000, output_tokens=0), model).total / 150_000
    expected = "higher" if large > small * 1.0001 else "same"
    check("Q2", answer, word(expected, choices=("same", "higher")),
                 hint="look at the price table of section 1: does any row have two tiers?")


#: Exercise 1's loop: (a budget of input tokens, h0, t).
EXERCISE_1 = (100_000, 2_000, 500)


def exercise_1(answer: Any) -> None:
    """The most calls a loop (h0 to start, t per step) makes with its input bill within the budget."""
    budget, h0, t = EXERCISE_1
    expected = max(n for n in range(1, budget) if loop_input_total(n, h0, t) <= budget)
    check("Exercise 1", answer, number(expected),
          hint="section 4's formula gives the bill of n calls; the answer is the last n whose bill "
               "is still within the budget (the bill, not the size of the last request)")


#: Q3's timings, in seconds: (one model call, one tool run), and the question's two cities.
Q3_TIMES = (1.2, 0.5)
Q3_QUESTION = "What's the weather in London and Cairo?"


def q3(answer: Any) -> None:
    """Seconds, at least, before the answer to Q3_QUESTION with one call per reply (Q3_TIMES)."""
    from ..examples import weather_policy
    from ..loop import run_agent
    from ..providers.scripted import ScriptedProvider
    from ..tools.weather import get_weather

    per_call, per_tool = Q3_TIMES
    run = run_agent(ScriptedProvider(weather_policy, latency_s=per_call), Q3_QUESTION,
                    tools=[get_weather], parallel_tool_calls=False)
    tools_run = sum(len(step.results) for step in run.steps)
    expected = run.latency_s + tools_run * per_tool  # the calls wait in turn, and so do the tools
    check("Q3", answer, number(expected, tolerance=1e-6),
          hint="count the model calls first: with one call per reply, how many replies ask for a "
               "tool before one can answer? Then add each tool's run")


SOLUTIONS: dict[str, str] = {
    "my_total": "12 * 3000 + 800 * 12 * 11 // 2",
    "q1": '20 * tool_prompt_tokens("claude-haiku-4-5") / 1e6 * price_of("claude-haiku-4-5").input',
    "q2": '"higher"',
    "q3": "3 * 1.2 + 2 * 0.5",
    "predict_tools_tokens": "len(tools) * one",
    "my_tools_dollars": "20 * added / 1e6 * price.input",
    "exercise_1": "max(n for n in range(1, 100) if n * 2000 + 500 * n * (n - 1) // 2 <= 100_000)",
}
