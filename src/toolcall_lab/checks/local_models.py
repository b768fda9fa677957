"""Answer keys and worked solutions of lesson 17, "Local models and the OpenAI-compatible spectrum".

The lesson's questions are answered from the data the kit keeps on each local server (its
flavour, `toolcall_lab.wire.flavours`: which fields it reads, ignores or refuses, how many calls
a reply holds) and from the prompt the shipped chat template renders
(`toolcall_lab.template`), so the key holds no answer of its own:

    >>> predict_result_role("user")
    Prediction: correct.

Reading tool calls back out of a model's raw text is lesson 18's, with its keys in
`toolcall_lab.checks.reading_calls_from_text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..providers.openai_chat import LOCAL_SERVERS
from ..selfcheck import check, word
from ..selfcheck import number as a_number
from ..template import render
from ..wire.flavoured import held_to, ignored, output_limit, refusal
from ..wire.flavours import FLAVOURS

__all__ = ["Q1_OPTIONS", "Q2_CITIES", "SOLUTIONS", "exercise_1", "predict_limit", "predict_result_role", "q1",
           "q2"]


# -- a prediction ---------------------------------------------------------------------------------------
def _role_of_results() -> str:
    """The role of the turn that carries a tool's result in the shipped template's prompt."""
    from ..examples import PARIS_QUESTION, weather_policy
    from ..loop import run_agent
    from ..providers.scripted import ScriptedProvider
    from ..tools.weather import get_weather

    transcript = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather]).transcript
    prompt = render(transcript, [get_weather])
    before = prompt[: prompt.index("<tool_response>")]
    return before[before.rindex("<|im_start|>") + len("<|im_start|>"):].split("\n", 1)[0]


def predict_result_role(answer: Any) -> None:
    """In the rendered prompt, the role of the turn that carries the tool's result."""
    check("Prediction", answer, word(_role_of_results(), choices=("system", "user", "assistant", "tool")),
          hint="look for <tool_response> in the rendered prompt, then for the <|im_start|> before it")


# -- the spectrum: predictions and questions, answered from the flavours' data -----------------------
def _wrong_server_set(answer: Any, expected: set[str]) -> str | None:
    names = list(FLAVOURS)
    if isinstance(answer, str):
        return 'expected a set of server names, like {"vllm"} (or set() for none), not one string'
    if not isinstance(answer, (set, frozenset, list, tuple)):
        return f"expected a set of server names, got {type(answer).__name__}"
    said = {str(a).strip().casefold() for a in answer}
    unknown = said - set(names)
    if unknown:
        return f"{', '.join(sorted(unknown))} is not one of {', '.join(names)}"
    return None if said == expected else "that is not the set of servers the table shows"


def _limit_outcome(name: str, field: str) -> str:
    """What server `name` does with `{field: 5}`: "cut" (stops at 5), "refused" (4xx) or "ignored"."""
    body = {"model": FLAVOURS[name].model, "messages": [{"role": "user", "content": "Hi"}], field: 5}
    if refusal(FLAVOURS[name], body) is not None:
        return "refused"
    return "cut" if output_limit(FLAVOURS[name], body) == 5 else "ignored"


def predict_limit(answer: Any) -> None:
    """What a server that reads only `max_tokens` does with `max_completion_tokens: 5`."""
    old_name_only = [name for name, server in LOCAL_SERVERS.items() if server.reads_limit("max_tokens")
                     and not server.reads_limit("max_completion_tokens")]
    outcomes = {_limit_outcome(name, "max_completion_tokens") for name in old_name_only}
    # subtle: the question assumes those servers agree; a flavour that breaks ranks fails here
    assert len(outcomes) == 1, f"the servers that read only max_tokens disagree: {outcomes}"
    check("Prediction", answer, word(outcomes.pop(), choices=("cut", "refused", "ignored")),
          hint="find the servers whose max_tokens: 5 row says length but whose "
               "max_completion_tokens: 5 row does not: what did their reply do instead?")


#: Q1's request options: short replies, and one tool call per reply.
Q1_OPTIONS: dict[str, Any] = {"max_tokens": 100, "parallel_tool_calls": False}


def _honoured_by(options: Mapping[str, Any]) -> set[str]:
    """The Chat servers that neither refuse nor ignore any of `options`."""
    body = {"model": "a-model", "messages": [{"role": "user", "content": "Hi"}], **options}
    return {name for name, server in LOCAL_SERVERS.items() if refusal(server, body, model_check=False) is None
            and not ignored(server, body)}


def q1(answer: Any) -> None:
    """The Chat servers that honour both of `Q1_OPTIONS` (an output limit, one call per reply)."""
    expected = _honoured_by(Q1_OPTIONS)
    check("Q1", answer, lambda a: _wrong_server_set(a, expected),
          hint="each option has its row in the table of section 2; a server belongs in the set "
               "only if both of its cells show the option working")


#: Q2's cities: a question that needs two calls of get_weather.
Q2_CITIES = ("Paris", "Tokyo")


def q2(answer: Any) -> None:
    """Model calls of a run on llama.cpp's server for two cities, `parallel_tool_calls` not sent."""
    from ..examples import weather_policy
    from ..loop import run_agent
    from ..providers.scripted import ScriptedProvider
    from ..tools.weather import get_weather

    _, parallel = held_to(FLAVOURS["llamacpp"], {})  # what the server does when it is not told
    question = f"What's the weather in {Q2_CITIES[0]} and in {Q2_CITIES[1]}?"
    run = run_agent(ScriptedProvider(weather_policy), question, tools=[get_weather],
                    parallel_tool_calls=parallel)
    check("Q2", answer, a_number(len(run.steps)),
          hint="the row parallel_tool_calls not sent says how many calls one llamacpp reply holds; "
               "then count the replies the loop needs, the one with the answer included")


# -- exercises ------------------------------------------------------------------------------------------
_LIMITS = ("max_tokens", "max_completion_tokens")


def _wrong_portable(options: Any) -> str | None:
    if not isinstance(options, Mapping):
        return f"expected a dict of request options, got {type(options).__name__}"
    if not any(isinstance(options.get(name), int) and not isinstance(options.get(name), bool)
               and options[name] > 0 for name in _LIMITS):
        return "it sets no output limit: give one of max_tokens or max_completion_tokens a whole number"
    body = {"model": "a-model", "messages": [{"role": "user", "content": "Hi"}],
            "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
                "type": "object", "properties": {"city": {"type": "string"}}}}}], **options}
    for name in LOCAL_SERVERS:
        refused = refusal(FLAVOURS[name], body, model_check=False)
        if refused is not None:
            return f"{name} answers {refused.status}: {refused.problem.text[:70]}"
        warned = ignored(FLAVOURS[name], body)
        if warned:
            return f"{name} would ignore it: {warned[0].text[:80]}"
    return None


def exercise_1(answer: Any) -> None:
    """Request options every Chat server honours: an output limit, and nothing any of them ignores."""
    check("Exercise 1", answer, _wrong_portable,
          hint="section 3's checker warns about what one server ignores, and section 2's table "
               "shows which limit field each server reads; keep a limit none of the four ignores, "
               "and nothing else")


SOLUTIONS: dict[str, str] = {
    "predict_result_role": '"user"',
    "predict_limit": '"ignored"',
    "q1": '{"vllm", "llamacpp", "lmstudio"}',
    "q2": "3",
    "exercise_1": '{"max_tokens": 50}',
}
