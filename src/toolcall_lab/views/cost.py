"""What a call, a run and a loop cost in dollars, and what prompt caching changes.

Token counts come from `Usage` (what the provider reported); prices come from the one
dated table, `models.PRICES`. Nothing here spells a price:

    dollars = tokens / 1e6 * price_per_mtok

A call's input is billed in three parts. In the kit's `Usage` convention `input_tokens`
includes the cache reads and writes, so

    uncached = input_tokens - cache_read_tokens - cache_write_tokens

is billed at the input price, cache reads at the cheap read price (0.1x input on most
models) and cache writes at the dear write price (Anthropic: 1.25x input for the
5-minute cache, 2x for 1 hour; OpenAI from GPT-5.6: 1.25x; older OpenAI models: no
write fee, so a write costs plain input).

Three questions this module answers:

- `cost_of(usage, model)` / `run_cost(run)`: what did these calls cost at list price?
- `loop_bill(n, h0, t, model=...)`: what does an n-call loop cost, with and without
  caching? Every call re-sends the history, so input grows with the square of n.
- `compaction_effect(...)`: why rewriting the middle of a history (compaction) makes the
  *next* call dearer even though it makes the prompt shorter; `cache_effect(before, after)`
  measures it on two transcripts (`compaction.compact`'s input and output).

Each call is priced at the tier its own prompt falls in (`Price.for_prompt`): on Claude
Haiku 5.5 a call whose prompt (input, cache reads and cache writes together) is over
100,000 tokens pays the higher rates on every token, output included, so a long loop
gets dearer per token once its history passes the threshold.

Left out: batch and fast-mode prices, OpenAI's long-context rates (above 272K input
tokens), minimum cacheable lengths, and negotiated discounts.
The numbers are "estimated cost at list prices as of `models.PRICES_CHECKED`", not a bill.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Literal

from .._summable import Summable
from ..errors import UsageError
from ..models import Price, require_price, server_tool_fee
from ..tokens import loop_input_tokens, request_tokens
from ..transcript import Transcript
from ..usage import Usage

if TYPE_CHECKING:
    from ..loop import Run
    from ..tool import Tool

__all__ = ["CompactionEffect", "Cost", "LoopBill", "cache_effect", "compaction_effect", "compaction_in_loop",
           "cost_of", "dollars", "loop_bill", "run_cost"]

MILLION = 1_000_000


def dollars(amount: float) -> str:
    """Dollars as a learner reads them: 4 decimals, or 2 significant digits below a cent.

    >>> dollars(0.2125), dollars(0.0000265), dollars(0), dollars(1234.5)
    ('$0.2125', '$0.000027', '$0', '$1,234.5000')
    """
    if amount == 0:
        return "$0"
    if abs(amount) >= 0.01:
        return f"${amount:,.4f}"
    # subtle: enough decimals for two significant digits, never scientific notation.
    decimals = min(12, 1 - math.floor(math.log10(abs(amount))))
    return f"${amount:.{decimals}f}"


@dataclass(frozen=True, repr=False)
class Cost(Summable):
    """Dollars one call (or, added up, several) cost, split by what was billed.

    >>> a = Cost(input=0.01, output=0.002)
    >>> b = Cost(cache_read=0.0003)
    >>> a + b
    Cost($0.0123: input $0.0100, cache read $0.00030, output $0.0020)
    >>> round(sum([a, b]).total, 6)
    0.0123
    """

    input: float = 0.0         # uncached input tokens
    cache_read: float = 0.0
    cache_write: float = 0.0
    output: float = 0.0
    server_tools: float = 0.0  # per-use fees of the provider's own tools (web searches)

    @property
    def total(self) -> float:
        return self.input + self.cache_read + self.cache_write + self.output + self.server_tools

    def __add__(self, other: Cost) -> Cost:
        if not isinstance(other, Cost):
            return NotImplemented
        return Cost(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __repr__(self) -> str:
        parts = [f"input {dollars(self.input)}"]
        if self.cache_read:
            parts.append(f"cache read {dollars(self.cache_read)}")
        if self.cache_write:
            parts.append(f"cache write {dollars(self.cache_write)}")
        parts.append(f"output {dollars(self.output)}")
        if self.server_tools:
            parts.append(f"searches {dollars(self.server_tools)}")
        return f"Cost({dollars(self.total)}: {', '.join(parts)})"


def _price(model: str | Price) -> Price:
    if isinstance(model, Price):
        return model
    return require_price(model)  # a dated snapshot id gets its family's row


def _write_price(price: Price, ttl: str) -> float:
    if ttl not in ("5m", "1h"):
        raise UsageError(f"cache_write_ttl must be '5m' or '1h', got {ttl!r}.")
    if ttl == "1h":
        if price.cache_write_1h is None:
            raise UsageError(f"{price.model} has no 1-hour cache write price in the table; "
                             "use cache_write_ttl='5m'.")
        return price.cache_write_1h
    # subtle: a model with no write fee (OpenAI before GPT-5.6) bills a write as plain input.
    return price.input if price.cache_write is None else price.cache_write


def cost_of(usage: Usage, model: str | Price, *, cache_write_ttl: Literal["5m", "1h"] = "5m") -> Cost:
    """The list-price dollars of `usage` on `model` (a model id from the table, or a `Price`).

    `cache_write_ttl` picks Anthropic's write price: "5m" (1.25x input) or "1h" (2x).
    OpenAI rows have one write price (their 30-minute write), used for "5m". Writes the
    usage itself reports as 1-hour ones (`Usage.cache_write_1h_tokens`, read from
    Anthropic's `cache_creation.ephemeral_1h_input_tokens`) are priced at the 1-hour
    price whatever `cache_write_ttl` says, so a real run prices itself. A model with
    a long-context tier is priced at the tier of this call's prompt (`usage.input_tokens`,
    which in the kit's convention holds the cache reads and writes too).

    Worked example on Claude Opus 5 ($5 input, $0.50 cache read, $6.25 5-minute write,
    $25 output per million): 12,000 input tokens of which 10,000 were read from the cache
    and 1,500 written to it, so 500 uncached; 400 output tokens.

        500 * 5 + 10,000 * 0.50 + 1,500 * 6.25 + 400 * 25 = 2,500 + 5,000 + 9,375 + 10,000
        = 26,875 dollars per million tokens -> $0.026875

    >>> usage = Usage(input_tokens=12_000, cache_read_tokens=10_000, cache_write_tokens=1_500,
    ...               output_tokens=400)
    >>> cost_of(usage, "claude-opus-5")
    Cost($0.0269: input $0.0025, cache read $0.0050, cache write $0.0094, output $0.0100)

    On Claude Haiku 5.5, 150,000 input tokens are over its 100,000-token threshold, so
    they pay $0.50 per million, not $0.10: 150,000 * 0.50 / 1e6 = $0.075.

    >>> cost_of(Usage(input_tokens=150_000), "claude-haiku-5-5")
    Cost($0.0750: input $0.0750, output $0)

    Searches the provider ran (`usage.web_search_requests`) add their per-use fee from
    `models.SERVER_TOOL_FEES` ($10 per 1,000 on Anthropic): 2 searches -> $0.02. The
    results they returned are already in the input tokens.

    >>> cost_of(Usage(input_tokens=4_000, output_tokens=200, web_search_requests=2), "claude-opus-5")
    Cost($0.0450: input $0.0200, output $0.0050, searches $0.0200)

    A run with 1-hour breakpoints on Claude Opus 5 ($10 per million for a 1-hour write):
    1,000 tokens written, 800 of them for an hour: 200 * 6.25 + 800 * 10 = 9,250 -> $0.00925.

    >>> cost_of(Usage(input_tokens=1_000, cache_write_tokens=1_000, cache_write_1h_tokens=800),
    ...         "claude-opus-5").cache_write
    0.00925
    """
    base = _price(model)
    price = base.for_prompt(usage.input_tokens)
    write = _write_price(price, cache_write_ttl)
    fee = server_tool_fee(base.provider, "web_search") if usage.web_search_requests else None
    hour_writes = usage.cache_write_1h_tokens
    hour_price = _write_price(price, "1h") if hour_writes else 0.0
    # dollars = tokens / 1e6 * price_per_mtok, the 1-hour writes at their own price;
    # a search's fee = searches * per_use
    return Cost(input=usage.uncached_input_tokens * price.input / MILLION,
                cache_read=usage.cache_read_tokens * price.cache_read / MILLION,
                cache_write=((usage.cache_write_tokens - hour_writes) * write + hour_writes * hour_price)
                / MILLION,
                output=usage.output_tokens * price.output / MILLION,
                server_tools=usage.web_search_requests * fee.per_use if fee else 0.0)


def run_cost(run: Run, *, model: str | Price | None = None) -> Cost:
    """The list-price dollars of every call in `run`, priced as each call's own model.

    Pass `model=` to price the same tokens on another model ("what would this run have
    cost on ..."), or when the run was made by the scripted provider, which is free.
    Usage from the scripted provider is an estimate (4 characters per token), so its
    price is an estimate too. Cache reads and writes are priced as each call reported
    them, 1-hour writes at the 1-hour price (`cost_of`).
    """
    return sum((cost_of(step.usage, model or step.turn.model) for step in run.steps), Cost())


# -- the bill of a loop ------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class LoopBill:
    """Tokens and dollars of an n-call loop; built by `loop_bill`.

    Per call (tuples, call 1 first): `input_tokens`, `cumulative` (input tokens so far),
    `usages` (with the cache reads and writes), `costs`, `dollars` and
    `cumulative_dollars`. Totals: `total_tokens` (input tokens billed over every call),
    `total_dollars` (input and output), `final_size` (h0 + t*n, how long the conversation
    is at the end) and `naive_dollars` (that final size billed once, as plain input: what
    people expect before they learn that every call re-sends everything).
    """

    model: str
    calls: int
    h0: int
    t: int
    caching: bool
    output_per_call: int
    input_tokens: tuple[int, ...]
    cumulative: tuple[int, ...]
    usages: tuple[Usage, ...]
    costs: tuple[Cost, ...]
    dollars: tuple[float, ...]
    cumulative_dollars: tuple[float, ...]
    total_tokens: int
    total_dollars: float
    final_size: int
    naive_dollars: float

    @property
    def total_cost(self) -> Cost:
        return sum(self.costs, Cost())

    @property
    def ratio(self) -> float:
        """Input tokens billed per token of the final conversation (6.1 for 10, 2,000, 500)."""
        return self.total_tokens / self.final_size if self.final_size else 0.0

    def __repr__(self) -> str:
        cache = "caching" if self.caching else "no caching"
        return (f"LoopBill({self.calls} calls on {self.model}, {cache}: {self.total_tokens:,} input "
                f"tokens, {dollars(self.total_dollars)}; final size {self.final_size:,} tokens)")


def loop_bill(n: int, h0: int, t: int, *, model: str | Price, caching: bool = False,
              output_per_call: int = 0) -> LoopBill:
    """The bill of an `n`-call loop that starts at `h0` tokens and adds `t` per step.

    Call k sends h0 + (k-1)*t input tokens (`tokens.loop_input_tokens`). Each call also
    generates `output_per_call` tokens, billed at the output price; that reply is counted
    inside the `t` tokens of its step (a step is the reply plus the tool result), so it
    does not change the input.

    With `caching=True` the history is a stable prefix cached from call to call, the way
    Anthropic's automatic caching moves its breakpoint to the end of each request:
    call 1 writes its whole prompt (h0) to the cache; call k reads what call k-1 sent
    (h0 + (k-2)*t) and writes only the new tail (t: the previous reply and its tool
    result). Simplified: every call comes within the cache lifetime (5 minutes), every
    prompt is long enough to cache (real APIs need 512 to 4,096 tokens) and nothing is
    evicted. Writes are priced at the model's 5-minute (OpenAI: 30-minute) write price,
    or at plain input where the model has no write fee. Each call is priced at the tier
    of its own prompt (`cost_of`), so on Claude Haiku 5.5 the calls past 100,000 tokens
    pay the high rates; `naive_dollars` prices the final conversation as one request.

    Worked example, 10 calls, h0 = 2,000, t = 500, at $5 input per million:
    no caching bills 42,500 input tokens, $0.2125, for a conversation 7,000 tokens long.
    With caching at $6.25 per million written and $0.50 read, the writes are
    2,000 + 9 * 500 = 6,500 tokens ($0.040625) and the reads are calls 2..10 re-reading
    2,000, 2,500, ..., 6,000 = 36,000 tokens ($0.018): $0.058625, 72% less.

    >>> bill = loop_bill(10, 2000, 500, model="claude-opus-5")
    >>> bill.input_tokens[-1], bill.total_tokens, bill.final_size, dollars(bill.total_dollars)
    (6500, 42500, 7000, '$0.2125')
    >>> cached = loop_bill(10, 2000, 500, model="claude-opus-5", caching=True)
    >>> cached.usages[1]  # call 2 reads call 1's 2,000 tokens and writes its new 500
    Usage(input_tokens=2500, output_tokens=0, cache_read_tokens=2000, cache_write_tokens=500)
    >>> dollars(cached.total_dollars)
    '$0.0586'

    Tiers, on Claude Haiku 5.5 (the cost explorer's sliders at their maximum: 50 calls,
    20,000 tokens to start, 5,000 per step): calls 1-17 send at most 100,000 tokens,
    1,020,000 in all, at $0.10 per million ($0.102); calls 18-50 send 105,000 to 265,000,
    6,105,000 in all, at $0.50 ($3.0525). Total $3.1545, not the $0.7125 that 7,125,000
    tokens would cost at the low rate.

    >>> dollars(loop_bill(50, 20_000, 5_000, model="claude-haiku-5-5").total_dollars)
    '$3.1545'
    """
    if t < 0 or output_per_call < 0:
        raise UsageError(f"t and output_per_call must be >= 0, got {t} and {output_per_call}")
    price = _price(model)
    sent = loop_input_tokens(n, h0, t)
    usages = []
    for k, tokens in enumerate(sent):
        if not caching:
            usage = Usage(input_tokens=tokens, output_tokens=output_per_call)
        else:
            read = 0 if k == 0 else sent[k - 1]  # the whole previous request is a cache hit
            usage = Usage(input_tokens=tokens, output_tokens=output_per_call,
                          cache_read_tokens=read, cache_write_tokens=tokens - read)
        usages.append(usage)
    costs = [cost_of(u, price) for u in usages]
    per_call = [c.total for c in costs]
    cumulative, cumulative_dollars = [], []
    running_tokens, running_dollars = 0, 0.0
    for tokens, amount in zip(sent, per_call, strict=True):
        running_tokens += tokens
        running_dollars += amount
        cumulative.append(running_tokens)
        cumulative_dollars.append(running_dollars)
    final_size = h0 + t * n
    return LoopBill(
        model=price.model, calls=n, h0=h0, t=t, caching=caching, output_per_call=output_per_call,
        input_tokens=tuple(sent), cumulative=tuple(cumulative), usages=tuple(usages),
        costs=tuple(costs), dollars=tuple(per_call), cumulative_dollars=tuple(cumulative_dollars),
        total_tokens=running_tokens, total_dollars=running_dollars, final_size=final_size,
        naive_dollars=final_size * price.for_prompt(final_size).input / MILLION)


# -- what compaction does to the cache -----------------------------------------------------
@dataclass(frozen=True, repr=False)
class CompactionEffect:
    """The next call's bill without (`before`) and with (`after`) a compaction.

    `later_saving` is what every call after that saves (a shorter prefix to read), and
    `pays_back_after` how many such calls it takes to win back the extra cost of the
    next one (0 when the next call is already cheaper, None when it never pays back).
    """

    before: Cost
    after: Cost
    before_usage: Usage
    after_usage: Usage
    later_saving: float
    pays_back_after: int | None
    explanation: str

    @property
    def extra(self) -> float:
        """Dollars the compaction adds to the next call (negative if it saves)."""
        return self.after.total - self.before.total

    def __repr__(self) -> str:
        if self.pays_back_after is None:
            payback = "never pays back"
        else:
            calls = "call" if self.pays_back_after == 1 else "calls"
            payback = f"pays back after {self.pays_back_after} {calls}"
        return (f"CompactionEffect(next call {dollars(self.before.total)} -> "
                f"{dollars(self.after.total)}, {payback})")


def compaction_effect(history: int, *, kept_prefix: int, compacted: int, new_tokens: int,
                      model: str | Price, caching: bool = True) -> CompactionEffect:
    """What a compaction that rewrites the middle of a history does to the next call's bill.

    The history is `history` tokens long and fully cached (the last call wrote it). A
    compaction keeps the first `kept_prefix` tokens (system prompt, tools, the task) and
    rewrites everything after them, so the history becomes `compacted` tokens long
    (the prefix, a summary and the recent turns). The next call adds `new_tokens`.

    The cache is a *prefix* match: it is reused only up to the first token that changed.
    Without compaction the next call reads `history` and writes `new_tokens`. After it,
    the next call reads only `kept_prefix` and must write everything after it again,
    `compacted - kept_prefix + new_tokens` tokens, at the write price (1.25x input)
    instead of the read price (0.1x). Each later call then reads a shorter prefix, saving
    `history - compacted` tokens of reads, which is where compaction pays off.

    Worked example on Claude Opus 5 ($5 input, $0.50 read, $6.25 write per million): a
    100,000-token history with a 5,000-token stable prefix is compacted to 20,000 tokens;
    the next call adds 500.

        without: read 100,000 ($0.05) + write 500 ($0.003125)      = $0.053125
        with:    read 5,000 ($0.0025) + write 15,500 ($0.096875)    = $0.099375
        every later call reads 80,000 fewer tokens: $0.04 saved, so it pays back in 2 calls

    >>> effect = compaction_effect(100_000, kept_prefix=5_000, compacted=20_000, new_tokens=500,
    ...                            model="claude-opus-5")
    >>> effect
    CompactionEffect(next call $0.0531 -> $0.0994, pays back after 2 calls)
    >>> print(effect.explanation)  # one line, wrapped here
    Compaction rewrote everything after token 5,000, so the next call reads 5,000 cached tokens
    instead of 100,000 and writes 15,500 instead of 500: $0.0531 -> $0.0994.

    With `caching=False` every call pays plain input for all it sends, so a shorter
    history is cheaper at once and the compaction pays back immediately (0 calls):

        without: 100,500 * $5 = $0.5025; with: 20,500 * $5 = $0.1025; later calls save
        80,000 * $5 = $0.40 each

    >>> compaction_effect(100_000, kept_prefix=5_000, compacted=20_000, new_tokens=500,
    ...                   model="claude-opus-5", caching=False)
    CompactionEffect(next call $0.5025 -> $0.1025, pays back after 0 calls)
    """
    if not 0 <= kept_prefix <= compacted:
        raise UsageError(f"kept_prefix must be between 0 and compacted ({compacted}), got {kept_prefix}")
    if kept_prefix > history:
        raise UsageError(f"kept_prefix ({kept_prefix}) cannot exceed the history ({history})")
    if new_tokens < 0:
        raise UsageError(f"new_tokens must be >= 0, got {new_tokens}")
    price = _price(model)
    rewritten = compacted - kept_prefix + new_tokens
    if caching:
        before_usage = Usage(input_tokens=history + new_tokens, cache_read_tokens=history,
                             cache_write_tokens=new_tokens)
        after_usage = Usage(input_tokens=compacted + new_tokens, cache_read_tokens=kept_prefix,
                            cache_write_tokens=rewritten)
    else:
        before_usage = Usage(input_tokens=history + new_tokens)
        after_usage = Usage(input_tokens=compacted + new_tokens)
    before, after = cost_of(before_usage, price), cost_of(after_usage, price)
    # each side's history at the rates of its own tier (the same rates below a threshold):
    # read from the cache when caching, sent as plain input when not
    rate = "cache_read" if caching else "input"
    later_saving = (history * getattr(price.for_prompt(before_usage.input_tokens), rate)
                    - compacted * getattr(price.for_prompt(after_usage.input_tokens), rate)) / MILLION
    extra = after.total - before.total
    pays_back: int | None
    if extra <= 0:
        pays_back = 0
    elif later_saving <= 0:
        pays_back = None  # the compaction made nothing shorter, so nothing is won back
    else:
        pays_back = math.ceil(extra / later_saving)
    if caching:
        explanation = (
            f"Compaction rewrote everything after token {kept_prefix:,}, so the next call reads "
            f"{kept_prefix:,} cached tokens instead of {history:,} and writes {rewritten:,} instead "
            f"of {new_tokens:,}: {dollars(before.total)} -> {dollars(after.total)}.")
    else:
        explanation = (
            f"With no cache, the next call sends {compacted + new_tokens:,} tokens instead of "
            f"{history + new_tokens:,}: {dollars(before.total)} -> {dollars(after.total)}.")
    return CompactionEffect(before, after, before_usage, after_usage, later_saving, pays_back,
                            explanation)


def compaction_in_loop(after_call: int, h0: int, t: int, *, kept_prefix: int, compacted: int,
                       model: str | Price, caching: bool = True) -> CompactionEffect:
    """`compaction_effect` for a loop of `loop_bill`'s shape, compacted after call `after_call`.

    Call k of the loop sends h0 + (k-1)*t tokens, and with caching that whole request is
    in the cache for call k+1 (`loop_bill`). So compacting after call k rewrites a cached
    history of h0 + (k-1)*t tokens, and the next call adds t (the last reply and its tool
    result): `compaction_effect(h0 + (k-1)*t, ..., new_tokens=t)`.

    Worked example on Claude Opus 5 ($5 input, $0.50 read, $6.25 write per million): a loop
    that starts at 2,000 tokens and adds 500 a step is compacted after call 40 (history
    2,000 + 39 * 500 = 21,500 tokens), keeping the first 2,000 and shrinking to 4,000.

        without: read 21,500 ($0.01075) + write 500 ($0.003125)    = $0.013875
        with:    read 2,000 ($0.001) + write 2,500 ($0.015625)     = $0.016625
        extra $0.00275; each later call reads 17,500 fewer tokens ($0.00875): pays back in 1

    >>> compaction_in_loop(40, 2_000, 500, kept_prefix=2_000, compacted=4_000, model="claude-opus-5")
    CompactionEffect(next call $0.0139 -> $0.0166, pays back after 1 call)
    """
    if after_call < 1:
        raise UsageError(f"after_call is the call the compaction follows (1 or more), got {after_call}")
    history = loop_input_tokens(after_call, h0, t)[-1]
    return compaction_effect(history, kept_prefix=kept_prefix, compacted=compacted, new_tokens=t,
                             model=model, caching=caching)


def cache_effect(before: Transcript, after: Transcript, *, model: str | Price,
                 tools: Sequence[Tool] = (), new_tokens: int = 0) -> CompactionEffect:
    """What compacting `before` into `after` (`compaction.compact`) does to the next call's bill, cached.

    Token counts are the kit's estimate (`tokens.request_tokens`, four characters a
    token). The cached prefix that survives is the system prompt, the tools and the
    messages both transcripts start with (the same objects, as `compact` keeps them);
    everything after it is written again. `new_tokens` is what the next call adds. The
    arithmetic, and its worked example, is `compaction_effect`.
    """
    same = 0
    for mine, theirs in zip(before.messages, after.messages, strict=False):
        if mine is not theirs:
            break
        same += 1
    prefix = Transcript(before.system, before.messages[:same])
    history, compacted = request_tokens(before, tools), request_tokens(after, tools)
    kept = min(request_tokens(prefix, tools), history, compacted)
    return compaction_effect(history, kept_prefix=kept, compacted=compacted, new_tokens=new_tokens,
                             model=model)
