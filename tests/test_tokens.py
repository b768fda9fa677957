"""Tests for token estimates and the cost of a loop: worked examples and the closed form."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcall_lab import Message, ToolCall, ToolResult, Transcript, UsageError
from toolcall_lab.tokens import estimate_tokens, loop_input_tokens, loop_input_total, request_text
from toolcall_lab.tools import get_weather


@pytest.mark.parametrize(("text", "tokens"), [
    ("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("abcdefgh", 2),
    ("What's the weather in Paris?", 7),  # 28 characters / 4
])
def test_estimate_tokens_worked_examples(text, tokens):
    assert estimate_tokens(text) == tokens


@given(st.text())
def test_estimate_is_characters_over_four_rounded_up(text):
    assert estimate_tokens(text) == math.ceil(len(text) / 4)


def test_loop_input_tokens_worked_example():
    # call i re-sends 2000 + (i - 1) * 500: 2000, 2500, ..., 6500.
    tokens = loop_input_tokens(10, 2000, 500)
    assert tokens[0] == 2000
    assert tokens[-1] == 6500
    assert sum(tokens) == 42500  # 10 * 2000 + 500 * 45


def test_loop_input_tokens_small_case():
    assert loop_input_tokens(4, 2000, 500) == [2000, 2500, 3000, 3500]


def test_loop_of_zero_calls_costs_nothing():
    assert loop_input_tokens(0, 2000, 500) == []
    assert loop_input_total(0, 2000, 500) == 0


def test_loop_input_total_worked_example():
    assert loop_input_total(10, 2000, 500) == 42500


@pytest.mark.parametrize(("h0", "t"), [(2000, 500), (7, 3), (0, 1), (1, 0)])
def test_closed_form_equals_the_sum_for_every_n_up_to_1000(h0, t):
    mismatches = [n for n in range(0, 1001)
                  if loop_input_total(n, h0, t) != sum(loop_input_tokens(n, h0, t))]
    assert mismatches == []


@given(st.integers(0, 300), st.integers(0, 10**9), st.integers(0, 10**9))
def test_closed_form_equals_the_sum_property(n, h0, t):
    assert loop_input_total(n, h0, t) == sum(loop_input_tokens(n, h0, t))


def test_the_growth_is_quadratic():
    # Doubling the calls of a loop with no fixed part multiplies its input by about four.
    assert loop_input_total(200, 0, 500) / loop_input_total(100, 0, 500) == pytest.approx(4, rel=0.02)


@pytest.mark.parametrize("function", [loop_input_tokens, loop_input_total])
@pytest.mark.parametrize("args", [(-1, 2000, 500), (10, -1, 500), (10, 2000, -1)])
def test_negative_inputs_are_rejected(function, args):
    with pytest.raises(UsageError, match="must be >= 0"):
        function(*args)


def test_every_loop_size_function_speaks_h0_and_t():
    """One vocabulary: the formula's symbols, n*h0 + t*n(n-1)/2, wherever a loop is sized."""
    import inspect

    from toolcall_lab.views import cost, plots, report

    for function in (loop_input_tokens, loop_input_total, report.loop_table, cost.loop_bill,
                     plots.plot_loop_tokens, plots.describe_loop_tokens, plots.plot_caching,
                     plots.describe_caching):
        assert list(inspect.signature(function).parameters)[:3] == ["n", "h0", "t"], function.__name__
    assert loop_input_total(n=10, h0=2000, t=500) == 42_500


def _conversation():
    return [
        Message.user("What's the weather in Paris?"),
        Message.assistant(ToolCall("toolu_01", "get_weather", {"city": "Paris"})),
        Message.results([ToolResult("toolu_01", "18°C, sunny")]),
    ]


def test_request_text_ignores_message_ids_and_times():
    first = Transcript(system="Be brief.", messages=_conversation())
    second = Transcript(system="Be brief.", messages=_conversation())
    assert first != second  # different ids and creation times ...
    assert request_text(first, [get_weather]) == request_text(second, [get_weather])  # same text
    text = request_text(first, [get_weather])
    for message in first:
        assert message.id not in text
        assert message.created_at.isoformat() not in text


def test_request_text_holds_system_messages_and_tool_specs():
    text = request_text(Transcript(system="Be brief.", messages=_conversation()), [get_weather])
    assert '"system":"Be brief."' in text
    assert "18°C, sunny" in text  # not escaped: counts as characters, not \\u escapes
    assert '"name":"get_weather"' in text
    assert '"input_schema"' in text


def test_request_text_changes_with_content():
    base = Transcript(messages=_conversation())
    longer = Transcript(messages=[*_conversation(), Message.assistant("It's sunny.")])
    assert len(request_text(longer)) > len(request_text(base))


# -- request_tokens: each message measured once (issue 9, item 19) ------------------------------
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
_json_value = st.recursive(st.none() | st.booleans() | st.integers() | _text,
                           lambda inner: (st.lists(inner, max_size=3)
                                          | st.dictionaries(_text, inner, max_size=3)),
                           max_leaves=6)
_message = st.one_of(
    st.builds(lambda t: Message.user(t or "?"), _text),
    st.builds(lambda t: Message.assistant(t or "?"), _text),
    st.builds(lambda i, args, t: Message.assistant(*([t] if t else []),
                                                   ToolCall(f"toolu_{i}", "get_weather", args)),
              st.integers(0, 99), st.dictionaries(_text, _json_value, max_size=3), _text),
    st.builds(lambda i, t, err: Message.results([ToolResult(f"toolu_{i}", t, is_error=err)]),
              st.integers(0, 99), _text, st.booleans()),
)


@given(system=st.none() | _text, messages=st.lists(_message, max_size=12), with_tools=st.booleans())
def test_request_tokens_equals_the_full_serialisation_estimate(system, messages, with_tools):
    from toolcall_lab.tokens import request_tokens

    transcript = Transcript(system, messages)
    tools = [get_weather] if with_tools else []
    expected = estimate_tokens(request_text(transcript, tools))
    assert request_tokens(transcript, tools) == expected
    assert request_tokens(transcript, tools) == expected, "the remembered lengths give the same count"
    for k in range(len(messages)):  # every prefix, as a loop sends them
        prefix = Transcript(system, messages[:k])
        assert request_tokens(prefix, tools) == estimate_tokens(request_text(prefix, tools))


@given(system=st.none() | _text, messages=st.lists(_message, max_size=12), with_tools=st.booleans())
def test_the_longest_cached_prefix_holds_request_tokens_and_none_holds_more(system, messages, with_tools):
    """What lets the double skip OpenAI's cache layout for a request below the model's minimum
    (`wire._openai.cache_usage`): no prefix of it could have been stored or be read."""
    from toolcall_lab.tokens import request_tokens
    from toolcall_lab.wire._layout import kit_layout

    transcript = Transcript(system, messages)
    tools = [get_weather] if with_tools else []
    boundaries = kit_layout(transcript, tools)
    if messages:
        assert boundaries[-1].tokens == request_tokens(transcript, tools)
    assert all(b.tokens <= request_tokens(transcript, tools) for b in boundaries)
    assert [b.tokens for b in boundaries] == sorted(b.tokens for b in boundaries)


def test_request_tokens_measures_each_message_once(monkeypatch):
    from toolcall_lab import tokens

    measured = []
    real = tokens._message_dict
    monkeypatch.setattr(tokens, "_message_dict", lambda m: measured.append(m) or real(m))
    transcript = Transcript("Be brief.")
    for i in range(50):
        transcript.append(Message.user(f"question {i}"))
        tokens.request_tokens(transcript, [get_weather])
    assert len(measured) == 50, "a long loop serialises each message once, not once per call"
