"""Tests for Usage: adding up, the one counting convention, its invariants and its repr."""

import dataclasses

import pytest

from toolcall_lab import Usage


def test_plus_adds_every_field():
    # 120 + 160 = 280 input, 20 + 15 = 35 output, cache and reasoning parts add the same way.
    a = Usage(input_tokens=120, output_tokens=20, cache_read_tokens=100, reasoning_tokens=5)
    b = Usage(input_tokens=160, output_tokens=15, cache_write_tokens=60, reasoning_tokens=10)
    assert a + b == Usage(input_tokens=280, output_tokens=35, cache_read_tokens=100,
                          cache_write_tokens=60, reasoning_tokens=15)


def test_sum_without_start():
    usages = [Usage(input_tokens=10, output_tokens=1), Usage(input_tokens=20, output_tokens=2)]
    assert sum(usages) == Usage(input_tokens=30, output_tokens=3)


def test_usage_and_cost_share_one_radd_that_lets_only_zero_through():
    from toolcall_lab.views.cost import Cost

    assert Usage.__radd__ is Cost.__radd__  # written once, in _summable.Summable
    assert sum([Cost(input=0.5), Cost(output=0.25)]) == Cost(input=0.5, output=0.25)
    with pytest.raises(TypeError):
        3 + Usage()  # only sum()'s starting 0 is let through


def test_sum_with_usage_start():
    usages = [Usage(input_tokens=10, output_tokens=1)] * 3
    assert sum(usages, Usage()) == Usage(input_tokens=30, output_tokens=3)


def test_sum_of_empty_list_with_start_is_zero_usage():
    assert sum([], Usage()) == Usage()


def test_adding_a_non_usage_is_a_type_error():
    with pytest.raises(TypeError):
        Usage(input_tokens=1) + 1


def test_uncached_input_subtracts_cache_parts():
    # 1000 input, of which 700 read from cache and 200 written: 100 at full price.
    usage = Usage(input_tokens=1000, output_tokens=50, cache_read_tokens=700,
                  cache_write_tokens=200)
    assert usage.uncached_input_tokens == 100


def test_total_tokens_is_input_plus_output():
    usage = Usage(input_tokens=1000, output_tokens=50, cache_read_tokens=700,
                  reasoning_tokens=30)
    assert usage.total_tokens == 1050


def test_cache_parts_may_equal_input():
    assert Usage(input_tokens=10, cache_read_tokens=6, cache_write_tokens=4).uncached_input_tokens == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"input_tokens": 10, "cache_read_tokens": 11},
        {"input_tokens": 10, "cache_write_tokens": 11},
        {"input_tokens": 10, "cache_read_tokens": 6, "cache_write_tokens": 5},
    ],
)
def test_cache_parts_over_input_are_rejected(fields):
    with pytest.raises(ValueError, match="parts of input_tokens"):
        Usage(**fields)


def test_reasoning_over_output_is_rejected():
    with pytest.raises(ValueError, match=r"reasoning_tokens \(6\).*output_tokens \(5\)"):
        Usage(output_tokens=5, reasoning_tokens=6)


@pytest.mark.parametrize("name", ["input_tokens", "output_tokens", "cache_read_tokens",
                                  "cache_write_tokens", "reasoning_tokens"])
def test_negative_counts_are_rejected(name):
    with pytest.raises(ValueError, match=f"Usage.{name} must be a whole number >= 0, got -1"):
        Usage(**{name: -1})


def test_fractional_counts_are_rejected():
    with pytest.raises(ValueError, match="whole number"):
        Usage(input_tokens=1.5)


def test_usage_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Usage().input_tokens = 3


@pytest.mark.parametrize(("a", "b", "expected"), [
    (False, False, False), (True, False, True), (False, True, True), (True, True, True)])
def test_estimated_propagates_through_plus(a, b, expected):
    assert (Usage(estimated=a) + Usage(estimated=b)).estimated is expected


def test_estimated_propagates_through_sum():
    usages = [Usage(input_tokens=1), Usage(input_tokens=2, estimated=True), Usage(input_tokens=3)]
    assert sum(usages, Usage()).estimated is True


def test_repr_always_shows_input_and_output():
    assert repr(Usage()) == "Usage(input_tokens=0, output_tokens=0)"


def test_repr_hides_zero_fields():
    assert repr(Usage(input_tokens=280, output_tokens=35)) == "Usage(input_tokens=280, output_tokens=35)"


def test_repr_shows_nonzero_fields_and_estimated():
    usage = Usage(input_tokens=3, output_tokens=2, cache_read_tokens=1, reasoning_tokens=2,
                  estimated=True)
    assert repr(usage) == ("Usage(input_tokens=3, output_tokens=2, cache_read_tokens=1, "
                           "reasoning_tokens=2, estimated=True)")
