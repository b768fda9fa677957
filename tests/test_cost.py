"""Dollars from usage and the dated price table; the quadratic loop; caching; compaction."""

import pytest

from toolcall_lab import ScriptedProvider, Usage, loop_input_tokens, loop_input_total, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.models import PRICES, Price
from toolcall_lab.tools import get_weather
from toolcall_lab.views.cost import Cost, compaction_effect, cost_of, dollars, loop_bill, run_cost

# A price row made up for the tests, so the hand arithmetic below never changes when the
# real table is updated. Anthropic's shape: write 1.25x, 1-hour write 2x, read 0.1x.
DEMO = Price("demo-model", "anthropic", input=5.00, output=25.00, cache_read=0.50,
             cache_write=6.25, cache_write_1h=10.00)
NO_WRITE_FEE = Price("demo-old-openai", "openai", input=2.50, output=10.00, cache_read=1.25)


# -- the loop's tokens: the lesson's numbers ---------------------------------------------
def test_ten_calls_of_2000_plus_500_bill_42500_for_a_7000_token_conversation():
    calls = loop_input_tokens(10, 2000, 500)
    assert calls[0] == 2000 and calls[-1] == 6500
    assert sum(calls) == loop_input_total(10, 2000, 500) == 42_500
    bill = loop_bill(10, 2000, 500, model=DEMO)
    assert bill.input_tokens[-1] == 6500
    assert bill.total_tokens == 42_500 and bill.cumulative[-1] == 42_500
    assert bill.final_size == 7000
    assert round(bill.ratio, 2) == 6.07


@pytest.mark.parametrize(("h0", "t"), [(2000, 500), (0, 1), (1, 0), (4096, 333), (123_456, 7)])
def test_closed_form_equals_the_sum_for_every_n_up_to_1000(h0, t):
    running = 0
    for n in range(0, 1001):
        if n:
            running += h0 + (n - 1) * t  # call n re-sends h0 and n - 1 steps
        assert loop_input_total(n, h0, t) == running == n * h0 + t * n * (n - 1) // 2
    assert sum(loop_input_tokens(1000, h0, t)) == running


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1000])
def test_loop_bill_totals_agree_with_the_closed_form(n):
    bill = loop_bill(n, 2000, 500, model=DEMO)
    assert bill.total_tokens == loop_input_total(n, 2000, 500)
    assert bill.cumulative == tuple(sum(bill.input_tokens[: k + 1]) for k in range(n))
    assert bill.total_dollars == pytest.approx(bill.total_tokens * 5.00 / 1e6)


# -- Cost ----------------------------------------------------------------------------------
def test_cost_adds_sums_and_has_a_stable_repr():
    a = Cost(input=0.01, output=0.002)
    b = Cost(cache_read=0.0003, cache_write=0.004)
    assert (a + b).total == pytest.approx(0.0163)
    assert sum([a, b]) == a + b
    assert repr(Cost(input=0.01, cache_read=0.0003, output=0.002)) == (
        "Cost($0.0123: input $0.0100, cache read $0.00030, output $0.0020)")
    assert repr(Cost()) == "Cost($0: input $0, output $0)"
    with pytest.raises(AttributeError):
        a.input = 1.0  # frozen


def test_dollars_reads_well_on_a_projector():
    assert dollars(0.2125) == "$0.2125"
    assert dollars(0.058625) == "$0.0586"
    assert dollars(0.0000265) == "$0.000027"
    assert dollars(0) == "$0"
    assert "e" not in dollars(1e-9)


# -- cost_of -----------------------------------------------------------------------------
def test_cost_of_splits_input_into_uncached_reads_and_writes_by_hand():
    usage = Usage(input_tokens=12_000, cache_read_tokens=10_000, cache_write_tokens=1_500,
                  output_tokens=400)
    cost = cost_of(usage, DEMO)
    # uncached = 12,000 - 10,000 - 1,500 = 500 tokens at $5 per million
    assert cost.input == pytest.approx(500 * 5 / 1e6)            # $0.0025
    assert cost.cache_read == pytest.approx(10_000 * 0.50 / 1e6)  # $0.005
    assert cost.cache_write == pytest.approx(1_500 * 6.25 / 1e6)  # $0.009375
    assert cost.output == pytest.approx(400 * 25 / 1e6)          # $0.01
    assert cost.total == pytest.approx(0.026875)


def test_one_hour_writes_cost_twice_input():
    usage = Usage(input_tokens=1_000_000, cache_write_tokens=1_000_000)
    assert cost_of(usage, DEMO).total == pytest.approx(6.25)
    assert cost_of(usage, DEMO, cache_write_ttl="1h").total == pytest.approx(10.00)
    with pytest.raises(ValueError, match="'5m' or '1h'"):
        cost_of(usage, DEMO, cache_write_ttl="30m")
    with pytest.raises(ValueError, match="no 1-hour cache write price"):
        cost_of(usage, NO_WRITE_FEE, cache_write_ttl="1h")


def test_a_model_without_a_write_fee_bills_writes_as_plain_input():
    usage = Usage(input_tokens=3_000_000, cache_read_tokens=1_000_000, cache_write_tokens=1_000_000)
    cost = cost_of(usage, NO_WRITE_FEE)
    assert cost.cache_write == pytest.approx(2.50) and cost.input == pytest.approx(2.50)
    assert cost.cache_read == pytest.approx(1.25)


@pytest.mark.parametrize("model", sorted(PRICES))
def test_every_table_row_is_priced_from_the_table(model):
    usage = Usage(input_tokens=1_000_000, cache_read_tokens=200_000, output_tokens=1_000_000)
    price = PRICES[model].for_prompt(usage.input_tokens)  # a million-token prompt: the long-context tier
    cost = cost_of(usage, model)
    assert cost.input == pytest.approx(0.8 * price.input)
    assert cost.cache_read == pytest.approx(0.2 * price.cache_read)
    assert cost.output == pytest.approx(price.output)
    assert cost_of(usage, f"{model}-2099-01-01") == cost  # a dated snapshot id prices as its family


def test_an_unknown_or_local_model_is_refused_with_the_known_models():
    with pytest.raises(ValueError) as info:
        cost_of(Usage(input_tokens=10), "llama3.2")
    message = str(info.value)
    assert "'llama3.2'" in message and "Local models cost nothing per token" in message
    assert all(model in message for model in PRICES)


def test_run_cost_prices_each_call_as_its_model_or_as_told():
    run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    with pytest.raises(ValueError, match="scripted-1"):
        run_cost(run)  # the scripted provider is free: there is no price to use
    total = run_cost(run, model=DEMO)
    by_hand = sum(cost_of(step.usage, DEMO).total for step in run.steps)
    assert total.total == pytest.approx(by_hand)
    assert total.total == pytest.approx((265 * 5 + 35 * 25) / 1e6)  # 265 in, 35 out (estimated)


def test_run_cost_of_a_double_run_uses_the_model_that_answered():
    from toolcall_lab.teacher.figures import paris_double_run

    run = paris_double_run()
    model = run.steps[0].turn.model
    assert run_cost(run) == sum((cost_of(s.usage, model) for s in run.steps), Cost())


# -- caching -------------------------------------------------------------------------------
def test_caching_by_hand_for_the_lesson_loop():
    # 10 calls, 2,000 to start, 500 per step, 100 output tokens per call, on DEMO.
    plain = loop_bill(10, 2000, 500, model=DEMO, output_per_call=100)
    cached = loop_bill(10, 2000, 500, model=DEMO, caching=True, output_per_call=100)
    output = 10 * 100 * 25 / 1e6                         # $0.025, the same either way
    assert plain.total_dollars == pytest.approx(42_500 * 5 / 1e6 + output)  # $0.2375
    # writes: call 1 writes 2,000, calls 2..10 write 500 each  -> 6,500 tokens at $6.25
    # reads: calls 2..10 re-read 2,000, 2,500, ..., 6,000      -> 36,000 tokens at $0.50
    assert sum(u.cache_write_tokens for u in cached.usages) == 6_500
    assert sum(u.cache_read_tokens for u in cached.usages) == 36_000
    assert cached.total_dollars == pytest.approx(6_500 * 6.25 / 1e6 + 36_000 * 0.50 / 1e6 + output)
    assert cached.total_dollars == pytest.approx(0.083625)
    assert cached.total_tokens == plain.total_tokens == 42_500  # same tokens, cheaper kinds


def test_call_k_reads_what_call_k_minus_1_sent_and_writes_the_new_tail():
    bill = loop_bill(5, 2000, 500, model=DEMO, caching=True)
    assert bill.usages[0] == Usage(input_tokens=2000, cache_write_tokens=2000)
    for k in range(1, 5):
        usage = bill.usages[k]
        assert usage.cache_read_tokens == bill.input_tokens[k - 1]
        assert usage.cache_write_tokens == 500
        assert usage.uncached_input_tokens == 0


@pytest.mark.parametrize("model", sorted(PRICES))
@pytest.mark.parametrize("n", [2, 3, 10, 50])
def test_caching_lowers_the_bill_on_every_model(model, n):
    plain = loop_bill(n, 2000, 500, model=model, output_per_call=50)
    cached = loop_bill(n, 2000, 500, model=model, caching=True, output_per_call=50)
    assert cached.total_dollars < plain.total_dollars
    assert cached.naive_dollars == plain.naive_dollars == pytest.approx(
        plain.final_size * PRICES[model].input / 1e6)


def test_with_caching_the_first_call_costs_more_and_every_later_call_less():
    plain = loop_bill(10, 2000, 500, model=DEMO)
    cached = loop_bill(10, 2000, 500, model=DEMO, caching=True)
    assert cached.dollars[0] > plain.dollars[0]  # a write is 1.25x plain input
    assert all(c < p for c, p in zip(cached.dollars[1:], plain.dollars[1:], strict=True))


def test_loop_bill_repr_and_validation():
    assert repr(loop_bill(10, 2000, 500, model=DEMO)) == (
        "LoopBill(10 calls on demo-model, no caching: 42,500 input tokens, $0.2125; "
        "final size 7,000 tokens)")
    with pytest.raises(ValueError):
        loop_bill(-1, 2000, 500, model=DEMO)
    with pytest.raises(ValueError):
        loop_bill(3, 2000, 500, model=DEMO, output_per_call=-1)


# -- compaction ----------------------------------------------------------------------------
def test_compaction_makes_the_next_call_dearer_and_later_calls_cheaper():
    effect = compaction_effect(100_000, kept_prefix=5_000, compacted=20_000, new_tokens=500, model=DEMO)
    # without: read 100,000 at $0.50 + write 500 at $6.25
    assert effect.before.total == pytest.approx(0.05 + 0.003125)
    # with: read 5,000 at $0.50 + write (20,000 - 5,000 + 500) = 15,500 at $6.25
    assert effect.after_usage.cache_write_tokens == 15_500
    assert effect.after.total == pytest.approx(0.0025 + 0.096875)
    assert effect.extra == pytest.approx(0.04625)
    assert effect.later_saving == pytest.approx(80_000 * 0.50 / 1e6)  # $0.04 per later call
    assert effect.pays_back_after == 2
    assert "after token 5,000" in effect.explanation and "$0.0531 -> $0.0994" in effect.explanation
    assert repr(effect) == "CompactionEffect(next call $0.0531 -> $0.0994, pays back after 2 calls)"


def test_compaction_edge_cases():
    nothing_rewritten = compaction_effect(10_000, kept_prefix=10_000, compacted=10_000, new_tokens=100,
                                          model=DEMO)
    assert nothing_rewritten.extra == pytest.approx(0) and nothing_rewritten.pays_back_after == 0
    longer = compaction_effect(10_000, kept_prefix=1_000, compacted=12_000, new_tokens=100, model=DEMO)
    assert longer.pays_back_after is None and "never pays back" in repr(longer)
    with pytest.raises(ValueError, match="kept_prefix"):
        compaction_effect(10_000, kept_prefix=5_000, compacted=4_000, new_tokens=0, model=DEMO)
    with pytest.raises(ValueError, match="kept_prefix"):
        compaction_effect(1_000, kept_prefix=5_000, compacted=6_000, new_tokens=0, model=DEMO)


# -- long-context tiers (Claude Haiku 5.5: over 100,000 prompt tokens) -----------------------------
TIERED = Price("demo-tiered", "anthropic", input=0.10, output=0.50, cache_read=0.01, cache_write=0.125,
               cache_write_1h=0.20, long_context_above=100_000,
               long_context=Price("demo-tiered", "anthropic", input=0.50, output=2.50, cache_read=0.05,
                                  cache_write=0.625, cache_write_1h=1.00))


def test_the_tier_is_chosen_per_request_from_input_cache_reads_and_writes():
    # 100,000 tokens exactly is the low tier; one more and the whole request pays the high rates
    assert cost_of(Usage(input_tokens=100_000, output_tokens=1_000), TIERED).total == pytest.approx(
        (100_000 * 0.10 + 1_000 * 0.50) / 1e6)
    # 150,000 input (of which 120,000 read and 20,000 written) + 1,000 output, all at the high rates:
    # 10,000 * 0.50 + 120,000 * 0.05 + 20,000 * 0.625 + 1,000 * 2.50 = 5,000 + 6,000 + 12,500 + 2,500
    usage = Usage(input_tokens=150_000, cache_read_tokens=120_000, cache_write_tokens=20_000,
                  output_tokens=1_000)
    assert cost_of(usage, TIERED).total == pytest.approx(26_000 / 1e6)
    assert cost_of(usage, TIERED, cache_write_ttl="1h").cache_write == pytest.approx(20_000 * 1.00 / 1e6)


def test_haiku_5_5_in_the_table_has_both_tiers():
    haiku = PRICES["claude-haiku-5-5"]
    assert haiku.long_context_above == 100_000
    assert haiku.for_prompt(150_000) == haiku.long_context
    high = haiku.long_context
    assert (high.input, high.output, high.cache_read, high.cache_write, high.cache_write_1h) == (
        0.50, 2.50, 0.05, 0.625, 1.00)
    # the docstring's worked example: 150,000 input tokens -> $0.075 at the high tier ($0.015 at the low)
    assert cost_of(Usage(input_tokens=150_000), "claude-haiku-5-5").total == pytest.approx(0.075)


def test_the_cost_explorers_largest_loop_on_haiku_5_5_pays_the_long_context_tier():
    # The explorer's sliders at their maximum (50 calls, 20,000 to start, 5,000 per step) on its
    # default model, Claude Haiku 5.5, without caching: 7,125,000 input tokens. At the low rate
    # only that is $0.7125 (what the explorer used to show); calls 18..50 send over 100,000
    # tokens each, 6,105,000 in all, at $0.50: $3.0525 + calls 1..17 ($0.102) = $3.1545.
    bill = loop_bill(50, 20_000, 5_000, model="claude-haiku-5-5")
    assert bill.total_tokens == 7_125_000
    assert sum(bill.input_tokens[:17]) == 1_020_000 and bill.input_tokens[16] == 100_000
    assert bill.total_dollars == pytest.approx(3.1545)
    assert dollars(bill.total_dollars) == "$3.1545"
    assert bill.dollars[16] == pytest.approx(100_000 * 0.10 / 1e6)   # call 17: low tier
    assert bill.dollars[17] == pytest.approx(105_000 * 0.50 / 1e6)   # call 18: high tier
    assert bill.naive_dollars == pytest.approx(270_000 * 0.50 / 1e6)  # the final size is one long request


def test_the_cost_explorer_itself_shows_the_tiered_bill():
    pytest.importorskip("ipywidgets")
    from toolcall_lab.views.widgets import cost_explorer

    w = cost_explorer(n=50, h0=20_000, t=5_000, model="claude-haiku-5-5")
    assert "<b>$3.1545</b> on claude-haiku-5-5" in w.totals.value
    assert "$0.7125" not in w.totals.value


def test_a_model_with_no_price_is_a_usage_error():
    from toolcall_lab.errors import ToolcallLabError, UsageError

    for attempt in (lambda: cost_of(Usage(input_tokens=1), "llama3.2"),
                    lambda: loop_bill(3, 100, 10, model="llama3.2")):
        with pytest.raises(UsageError, match="no price for model 'llama3.2'") as info:
            attempt()
        assert isinstance(info.value, ToolcallLabError) and isinstance(info.value, ValueError)
    with pytest.raises(UsageError, match="'5m' or '1h'"):
        cost_of(Usage(input_tokens=1), "claude-opus-5", cache_write_ttl="2h")


def test_compaction_across_the_threshold_reads_at_each_sides_rates():
    effect = compaction_effect(150_000, kept_prefix=5_000, compacted=20_000, new_tokens=500, model=TIERED)
    # before: 150,500-token prompt, high tier; after: 20,500-token prompt, low tier
    assert effect.before.total == pytest.approx((150_000 * 0.05 + 500 * 0.625) / 1e6)
    assert effect.later_saving == pytest.approx((150_000 * 0.05 - 20_000 * 0.01) / 1e6)
