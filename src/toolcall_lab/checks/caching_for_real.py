"""Answer keys and worked solutions of lesson 19, "Caching for real".

Every key computes its answer from what the lesson's cell passes in (a run through the API
double, the model table), so no answer is written here. Compaction and the provider's own
tools, and their questions, went to lesson 20 with the split (issue 29 §4):
`compaction_and_server_tools`.

    >>> from toolcall_lab.checks.caching_for_real import q1
    >>> q1("no")
    Q1: correct.
"""

from __future__ import annotations

from typing import Any

from ..loop import Run
from ..models import rules_of
from ..selfcheck import check, word
from ..selfcheck import number as a_number
from ..views.cost import cost_of
from ..wire.anthropic.caching import CACHE_TTLS, CACHING, TTL_SECONDS

__all__ = ["SLOW_TOOL_MINUTES", "SOLUTIONS", "call_2_input", "exercise_1", "predict_read", "predict_slow",
           "q1"]


def predict_read(answer: Any, cached: Run) -> None:
    """How many input tokens call 2 of the cached loop read from the cache."""
    check("Prediction", answer, a_number(cached.steps[1].usage.cache_read_tokens),
          hint="the moving breakpoint sits on the last block of call 1's request: how much of "
               "call 1's prompt did it write, and how much of it does call 2 repeat?")


def call_2_input(answer: Any, cached: Run) -> None:
    """What call 2's input cost in dollars with caching: reads, writes and the uncached rest."""
    usage = cached.steps[1].usage
    expected = cost_of(usage, cached.steps[1].turn.model or "").total - cost_of(
        usage, cached.steps[1].turn.model or "").output
    check("Your turn", answer, a_number(expected, tolerance=expected * 0.01),
          hint="three parts at three prices: tokens read x the read price, tokens written x the write "
               "price, tokens after the breakpoint x the input price; each per million")


def predict_slow(answer: Any, slow: Run) -> None:
    """Tokens call 2 read from a 5-minute cache after a tool that took `SLOW_TOOL_MINUTES`."""
    check("Prediction", answer, a_number(slow.steps[1].usage.cache_read_tokens),
          hint="how long does a 5-minute entry live, and how long did the tool take?")


#: How long the lesson's slow tool takes, in minutes of the double's clock.
SLOW_TOOL_MINUTES = 7


def exercise_1(answer: Any, try_plan: Any) -> None:
    """Provider options whose cache survives the slow tool: `try_plan(options)` -> tokens read by call 2,
    which must be all of call 1's prompt (what the best plan reads back), not only a part of it."""
    def wrong(options: Any) -> str | None:
        if not isinstance(options, dict):
            return f"expected a dict of AnthropicProvider options, got {type(options).__name__}"
        unknown = set(options) - {"caching", "cache_ttl"}
        if unknown:
            return f"use only caching and cache_ttl, not {', '.join(sorted(unknown))}"
        try:
            read = try_plan(options)
        except Exception as exc:  # a bad option value: say which, in one line
            return f"the provider refused it: {str(exc).splitlines()[0][:100]}"
        if not read > 0:
            return "call 2 still read nothing from the cache"
        whole = _most_read_back(try_plan)
        if read < whole:
            return (f"call 2 read back {read} tokens, not all {whole} of call 1's prompt: only the part "
                    "up to a breakpoint is kept, so call 2 wrote the rest again")
        return None

    check("Exercise 1", answer, wrong,
          hint="a cache entry lives for its ttl; which ttl outlasts a 7-minute tool, and where must the "
               "breakpoint sit for call 2 to read all of call 1's prompt (section 1)?")


def _most_read_back(try_plan: Any) -> int:
    """The most call 2 reads with any one strategy at the longest lifetime: call 1's whole prompt."""
    longest = max(CACHE_TTLS, key=TTL_SECONDS.__getitem__)
    return max(int(try_plan({"caching": strategy, "cache_ttl": longest})) for strategy in CACHING)


def q1(answer: Any) -> None:
    """Whether a 3,000-token prompt on Claude Haiku 4.5 is cached with a breakpoint on its last block."""
    minimum = rules_of("claude-haiku-4-5").min_cache_tokens or 0
    check("Q1", answer, word("yes" if 3_000 >= minimum else "no", choices=("yes", "no")),
          hint="the model table's cache minimum for claude-haiku-4-5 (section 4 printed Opus 5's)")


SOLUTIONS: dict[str, str] = {
    "predict_read": "766",
    "call_2_input": "(766 * 0.50 + 57 * 6.25) / 1_000_000",
    "predict_slow": "0",
    "exercise_1": '{"caching": "moving", "cache_ttl": "1h"}',
    "q1": '"no"',
}
