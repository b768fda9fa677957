"""What will this cost my class? Tokens, dollars and requests per minute for N learners.

`class_budget` prices the *measured* requests of each lesson (`lesson_usage`: every
lesson run top to bottom under each real provider, against the API double) with the
dated price table (`models.PRICES`, through `cost.cost_of`), so every number can be
traced to a row of one and a request of the other:

    per learner = sum over the lessons of (a Run All's requests) x (1 + reruns)
    class       = per learner x students
    dollars     = tokens / 1e6 * price_per_mtok, per request (`cost_of`: its own
                  long-context tier, and cache reads and writes at their rates)

With caching, each request reads from the cache the longest earlier request of the same
run that it starts with (a loop's call k reads call k-1, as `cost.loop_bill` has it) and
writes the rest; a prompt shorter than the model's minimum cacheable length
(`models.rules_of(model).min_cache_tokens`) is neither read nor written, as the APIs do.
Every run caches on its own: the hits a class sharing one key would get from each
other's identical first requests are left out, so the cached figure is an upper bound.

The start of a lesson is the classroom's burst: every learner presses Run All at once.
The budget assumes a Run All's requests all fall within its first minute (the lessons'
requests are few and quick), so the class sends `students x requests` in that minute,
and compares it with the model's published limits (`models.RATE_LIMITS`) where the table
has them.

Left out: the Batch API, fast mode, retries (a 429 retried is a request more), the
output a real model writes (the double's replies are short), and models' own tokenizers.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..models import (
    PRICES,
    PRICES_CHECKED,
    Price,
    RateLimit,
    default_model,
    price_of,
    rate_limit_of,
    rules_of,
    tool_prompt_tokens,
)
from ..usage import Usage
from ..views.cost import Cost, cost_of, dollars
from ..wire import API_SPECS
from .lesson_usage import PROVIDERS, load_usage

__all__ = ["ClassBudget", "LessonBill", "class_budget", "parse_lessons", "request_usages"]

COLUMNS = 80


@dataclass(frozen=True)
class LessonBill:
    """One lesson's Run All for one learner: its requests, tokens and dollars.

    `usages` and `cached_usages` hold one `Usage` per billed request (without and with
    caching); `requests` also counts a request the API refused (it is not billed, but it
    is a request against the rate limit).
    """

    lesson: str
    requests: int
    usages: tuple[Usage, ...]
    cached_usages: tuple[Usage, ...]
    cost: Cost
    cached_cost: Cost

    @property
    def input_tokens(self) -> int:
        return sum(u.input_tokens for u in self.usages)

    @property
    def output_tokens(self) -> int:
        return sum(u.output_tokens for u in self.usages)


@dataclass(frozen=True)
class ClassBudget:
    """A class's budget; `str(budget)` is the table `python -m toolcall_lab budget` prints."""

    provider: str
    api: str
    model: str
    measured_model: str
    students: int
    reruns: int
    caching: bool
    lessons: tuple[LessonBill, ...]
    price: Price | None
    limit: RateLimit | None
    measurement: Mapping[str, Any]

    @property
    def runs(self) -> int:
        return 1 + self.reruns

    def per_learner(self, *, caching: bool) -> float:
        """Dollars one learner's runs of every chosen lesson cost."""
        return self.runs * sum((b.cached_cost if caching else b.cost).total for b in self.lessons)

    def per_class(self, *, caching: bool) -> float:
        return self.students * self.per_learner(caching=caching)

    def __str__(self) -> str:
        return "\n".join(_report(self))


def parse_lessons(text: str) -> list[int]:
    """Lesson numbers from "1-6", "3", or "0,2,4-5".

    >>> parse_lessons("1-6"), parse_lessons("0,2,4-5")
    ([1, 2, 3, 4, 5, 6], [0, 2, 4, 5])
    """
    numbers: list[int] = []
    for part in text.replace(" ", "").split(","):
        found = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not found:
            raise UsageError(f"--lessons takes numbers and ranges such as 1-6 or 0,3, not {text!r}.")
        first, last = int(found[1]), int(found[2] or found[1])
        if last < first:
            raise UsageError(f"--lessons range {part!r} runs backwards; write {last}-{first}.")
        numbers += [n for n in range(first, last + 1) if n not in numbers]
    return numbers


def request_usages(requests: Sequence[Mapping[str, Any]], *, model: str, caching: bool) -> list[Usage]:
    """The `Usage` each measured request bills on `model` (refused requests are left out).

    A request measured with Anthropic's hidden tool prompt gets `model`'s figure instead.
    With `caching`, request k reads the earlier request it starts with (`prefix_of`) when
    both are at least the model's minimum cacheable length, and writes the rest.

    Worked example, Claude Haiku 5.5 (hidden tool prompt 286, minimum cacheable prompt
    512): call 1 sends 600 tokens and writes them all; call 2 starts with call 1 and
    sends 700, so it reads 600 and writes 100.

    >>> calls = [{"input": 600, "output": 20, "hidden": 286, "prefix_of": None, "status": 200},
    ...          {"input": 700, "output": 10, "hidden": 286, "prefix_of": 0, "status": 200}]
    >>> request_usages(calls, model="claude-haiku-5-5", caching=True)[1]
    Usage(input_tokens=700, output_tokens=10, cache_read_tokens=600, cache_write_tokens=100)
    >>> request_usages(calls, model="claude-haiku-4-5", caching=False)[0]   # its prompt is 496
    Usage(input_tokens=810, output_tokens=20)
    """
    shortest = rules_of(model).min_cache_tokens or 0
    inputs: list[int] = []
    usages = []
    for request in requests:
        hidden = request.get("hidden", 0)
        tokens = request["input"] - hidden + (tool_prompt_tokens(model) if hidden else 0)
        inputs.append(tokens)
        if request.get("status", 200) != 200:
            continue  # the API refused it: nothing billed
        usage = Usage(input_tokens=tokens, output_tokens=request["output"],
                      reasoning_tokens=request.get("reasoning", 0))
        if caching and tokens >= shortest:
            earlier = request.get("prefix_of")
            read = inputs[earlier] if earlier is not None and inputs[earlier] >= shortest else 0
            read = min(read, tokens)
            usage = Usage(input_tokens=tokens, output_tokens=usage.output_tokens, cache_read_tokens=read,
                          cache_write_tokens=tokens - read, reasoning_tokens=usage.reasoning_tokens)
        usages.append(usage)
    return usages


def class_budget(*, students: int, lessons: str | Sequence[int] | None = None, provider: str = "anthropic",
                 model: str | None = None, reruns: int = 0, caching: bool = False,
                 measurement: Mapping[str, Any] | None = None) -> ClassBudget:
    """The budget of `students` learners running `lessons` on `provider`'s `model`.

    `lessons` defaults to every lesson the measurement has from lesson 1 on (the start page
    sends no request). `measurement` is the data of `lesson_usage.load_usage()` (the
    committed file by default). Raises `UsageError` naming what to fix for a bad count,
    lesson or model.
    """
    if students < 1:
        raise UsageError(f"--students must be 1 or more, got {students}.")
    if reruns < 0:
        raise UsageError(f"--reruns counts extra runs of each lesson and must be 0 or more, got {reruns}.")
    if provider not in PROVIDERS:
        raise UsageError(f"--provider must be one of {', '.join(PROVIDERS)} (the paid APIs and Ollama), "
                         f"got {provider!r}; the scripted provider is free.")
    data = measurement if measurement is not None else load_usage()
    entry = data["providers"].get(provider)
    if entry is None:
        raise UsageError(f"the lesson measurement has no {provider} runs; re-run `python -m toolcall_lab "
                         "budget --measure`.")
    model = model or default_model(provider)
    price = _price_for(provider, model)
    if lessons is None:
        measured = (int(stem[:2]) for stem in entry["lessons"] if stem[:2].isdigit())
        numbers = sorted(n for n in measured if n >= 1)  # the start page (0) calls no model
    else:
        numbers = parse_lessons(lessons) if isinstance(lessons, str) else list(lessons)
    stems = _stems(entry["lessons"], numbers, data["measured"])
    bills = []
    for stem in stems:
        requests = entry["lessons"][stem]
        plain = request_usages(requests, model=model, caching=False)
        cached = request_usages(requests, model=model, caching=True)
        bills.append(LessonBill(stem, len(requests), tuple(plain), tuple(cached), _cost(plain, price),
                                _cost(cached, price)))
    return ClassBudget(provider, entry["api"], model, entry["model"], students, reruns, caching,
                       tuple(bills), price, rate_limit_of(model) if price else None, data)


def _vendor(provider: str) -> str | None:
    """The vendor whose price rows `provider` may be priced with: its default model's
    (`models.DEFAULT_MODELS`, `models.PRICES`), None for a local server, whose default has no price.

    >>> _vendor("openai-chat"), _vendor("anthropic"), _vendor("ollama")
    ('openai', 'anthropic', None)
    """
    price = price_of(default_model(provider))
    return None if price is None else price.provider


def _price_for(provider: str, model: str) -> Price | None:
    """The price row for `model`, checked against `provider`'s vendor (None: a local model)."""
    vendor = _vendor(provider)
    price = price_of(model)
    if vendor is None:
        return None  # a local server bills nothing per token, whatever the model
    if price is None:
        known = ", ".join(m for m, p in PRICES.items() if p.provider == vendor)
        raise UsageError(f"no price for model {model!r} in the table (checked {PRICES_CHECKED}); "
                         f"pass --model with one of: {known}.")
    if price.provider != vendor:
        raise UsageError(f"{model} is an {price.provider} model, not one --provider {provider} serves; "
                         f"pass --provider {'anthropic' if price.provider == 'anthropic' else 'openai'} or "
                         "another --model.")
    return price


def _stems(measured: Mapping[str, Any], numbers: Sequence[int], when: str) -> list[str]:
    by_number = {int(stem[:2]): stem for stem in measured if stem[:2].isdigit()}
    missing = [n for n in numbers if n not in by_number]
    if missing:
        have = ", ".join(str(n) for n in sorted(by_number))
        raise UsageError(f"no lesson {', '.join(map(str, missing))} in the measurement of {when} (lessons "
                         f"{have}); re-run `python -m toolcall_lab budget --measure` after adding one.")
    return [by_number[n] for n in numbers]


def _cost(usages: Sequence[Usage], price: Price | None) -> Cost:
    if price is None:
        return Cost()
    return sum((cost_of(u, price) for u in usages), Cost())


# -- the printed report ------------------------------------------------------------------------------
_ROW = "{:<22}  {:>5}  {:>12}  {:>7}  {:>10}  {:>12}"


def _spans(numbers: Sequence[int]) -> str:
    """Lesson numbers as short as they read: runs of three or more as a span.

    >>> _spans([1, 2, 3, 4, 6, 8, 9])
    '1-4, 6, 8, 9'
    """
    parts: list[str] = []
    start = 0
    for i, number in enumerate(numbers):
        if i + 1 < len(numbers) and numbers[i + 1] == number + 1:
            continue
        run = numbers[start:i + 1]
        parts.extend([f"{run[0]}-{run[-1]}"] if len(run) >= 3 else [str(n) for n in run])
        start = i + 1
    return ", ".join(parts)


def _report(budget: ClassBudget) -> list[str]:
    runs = f"{budget.runs} run{'s' if budget.runs > 1 else ''}"
    numbers = _spans([int(b.lesson[:2]) for b in budget.lessons])
    lines = [f"Class budget: {budget.students} learners x {runs} of lessons {numbers}",
             f"on {budget.provider} ({API_SPECS[budget.api].title} API), model {budget.model}", "",
             _ROW.format("lesson (one Run All)", "calls", "input tokens", "output", "no caching",
                         "with caching")]
    for bill in budget.lessons:
        lines.append(_ROW.format(_short(bill.lesson), bill.requests, f"{bill.input_tokens:,}",
                                 f"{bill.output_tokens:,}", dollars(bill.cost.total),
                                 dollars(bill.cached_cost.total)))
    calls = sum(b.requests for b in budget.lessons)
    inputs = sum(b.input_tokens for b in budget.lessons)
    outputs = sum(b.output_tokens for b in budget.lessons)
    for label, times in ((f"one learner, {runs}", budget.runs),
                         (f"class of {budget.students}", budget.runs * budget.students)):
        lines.append(_ROW.format(label, f"{calls * times:,}", f"{inputs * times:,}", f"{outputs * times:,}",
                                 dollars(budget.per_learner(caching=False) * times / budget.runs),
                                 dollars(budget.per_learner(caching=True) * times / budget.runs)))
    for note in (_prices_note, _tokens_note, _caching_note, _burst_note):
        lines += ["", *_wrap(note(budget))]
    return lines


def _short(stem: str) -> str:
    text = stem.replace("_", " ")
    return text if len(text) <= 22 else text[:21] + "…"


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, COLUMNS - 2)


def _per_million(amount: float) -> str:
    return f"${amount:.2f}" if round(amount, 2) == amount else f"${amount:g}"


def _prices_note(budget: ClassBudget) -> str:
    price = budget.price
    if price is None:
        return (f"Prices: {budget.provider} runs the model on a local machine, which bills nothing per "
                "token: $0 (the tokens still show how much work each lesson asks of it).")
    write = price.input if price.cache_write is None else price.cache_write
    tier = ""
    above = price.long_context_above
    if price.long_context is not None and above is not None:
        over = sum(1 for b in budget.lessons for u in b.usages if u.input_tokens > above)
        tier = (f"; a request whose prompt is over {above:,} tokens pays the higher tier on every token "
                f"({over or 'none'} of these)")
    return (f"Prices per million tokens: {_per_million(price.input)} input, {_per_million(price.output)} "
            f"output, {_per_million(price.cache_read)} cache read, {_per_million(write)} cache write "
            f"({price.label}; {price.source}; checked {price.checked}){tier}.")


def _tokens_note(budget: ClassBudget) -> str:
    data = budget.measurement
    swap = ""
    if budget.model != budget.measured_model:
        swap = (f" Measured on {budget.measured_model} and priced on {budget.model}"
                + (f", with its hidden tool prompt ({hidden} tokens)"
                   if (hidden := tool_prompt_tokens(budget.model)) else "") + ".")
    return (f"Tokens: measured {data['measured']} (kit {data['kit']}, commit {data['commit']}) by running "
            f"each lesson with TOOLCALL_LAB_PROVIDER={budget.provider} against the API double, "
            f"{data['tokens']}; a real tokenizer counts differently, so read them as \"about\". Requests a "
            f"lesson sends to its own double or scripted model are free and not counted.{swap}")


def _caching_note(budget: ClassBudget) -> str:
    if budget.price is None:
        return "Caching: a local server bills nothing per token, so caching saves no dollars."
    shortest = rules_of(budget.model).min_cache_tokens or 0
    requests = [r for b in budget.lessons for r in b.usages]
    short = sum(1 for r in requests if r.input_tokens < shortest)
    saved = budget.per_learner(caching=False) - budget.per_learner(caching=True)
    return (f"Caching: each request reads the earlier request of its run that it starts with and "
            f"writes the rest; a prompt under {shortest:,} tokens (the model's minimum) is not cached, "
            f"which is {short} of these {len(requests)} requests. Saving per learner: {dollars(saved)}.")


def _burst_note(budget: ClassBudget) -> str:
    busiest = max(budget.lessons, key=lambda b: (b.requests, b.input_tokens))
    rpm = budget.students * busiest.requests
    usages = busiest.cached_usages if budget.caching else busiest.usages
    # subtle: Anthropic does not count cache reads against its input-token limit on current models
    reads_counted = API_SPECS[budget.api].limit_counts_cache_reads
    counted = sum(u.input_tokens - (0 if reads_counted else u.cache_read_tokens) for u in usages)
    itpm = budget.students * counted
    otpm = budget.students * busiest.output_tokens
    text = (f"Start of a lesson: if all {budget.students} learners press Run All at once and each Run All's "
            f"requests fall within its first minute, the busiest lesson ({_short(busiest.lesson)}) sends "
            f"{rpm:,} requests, {itpm:,} input and {otpm:,} output tokens in that minute. ")
    limit = budget.limit
    if budget.price is None:
        return text + "A local server has no published rate limit: it answers as fast as its machine can."
    if limit is None:
        return text + f"No published limit in the table for {budget.model}: check your account's limits page."
    checks = [("requests", rpm, limit.rpm), ("input tokens", itpm, limit.input_tpm),
              ("output tokens", otpm, limit.output_tpm), ("tokens", itpm + otpm, limit.tpm)]
    said = [f"{what} {used:,} of {cap:,} ({used / cap:.0%})" for what, used, cap in checks if cap]
    over = [what for what, used, cap in checks if cap and used > cap]
    verdict = f"over the limit on {', '.join(over)}: expect 429s and retries" if over else "within the limits"
    return (text + f"{limit.tier} limits per minute for {limit.model} ({limit.label}; {limit.source}; "
            f"checked {limit.checked}; {limit.notes}): {'; '.join(said)}; {verdict}.")
