"""Compaction (issue 13): one synthetic summary, calls kept with their results, valid on every wire,
and what it does to the cache, computed by hand."""

import pytest

from toolcall_lab import Message, ToolCall, ToolResult, Transcript, wire
from toolcall_lab.compaction import compact, outline
from toolcall_lab.errors import UsageError, UsageTypeError
from toolcall_lab.tools import get_weather
from toolcall_lab.views.cost import cache_effect, compaction_effect, compaction_in_loop


def exchange(n, city, temperature="18°C"):
    call = ToolCall(f"toolu_{n:02d}", "get_weather", {"city": city})
    return [Message.assistant(call), Message.results([ToolResult(call.id, f"{temperature}, sunny")])]


def long_talk():
    """[0] question, [1]-[4] two calls and results, [5] answer, [6] question, [7]-[8] a call, [9] answer."""
    return Transcript("Be brief.", [
        Message.user("Paris and Rome?"), *exchange(1, "Paris"), *exchange(2, "Rome", "24°C"),
        Message.assistant("Paris 18°C, Rome 24°C."), Message.user("And Oslo?"),
        *exchange(3, "Oslo", "4°C"), Message.assistant("Oslo 4°C.")])


def pairs_intact(t):
    """Every call's result is in the message right after it, and every result has its call."""
    for i, message in enumerate(t.messages):
        for call in message.tool_calls:
            following = t.messages[i + 1].tool_results if i + 1 < len(t) else ()
            assert call.id in {r.call_id for r in following}, f"call {call.id} lost its result"
        for result in message.tool_results:
            assert result.call_id in {c.id for c in t.messages[i - 1].tool_calls}, "a result lost its call"


def test_compact_replaces_the_middle_with_one_synthetic_summary():
    t = long_talk()
    short = compact(t, keep_first=1, keep_last=4)
    # the tail would start at [6] "And Oslo?" exactly: [1]-[5] become the summary
    assert [m.synthetic for m in short] == [False, True, False, False, False, False]
    assert short[0] is t[0] and all(a is b for a, b in zip(short.messages[2:], t.messages[6:], strict=True))
    assert short.system == "Be brief." and len(t) == 10  # the original is untouched
    assert short[1].role == "user"
    assert short[1].text == outline(t.messages[1:6])
    pairs_intact(short)


@pytest.mark.parametrize("keep_last", [0, 1, 2, 3, 4, 5, 6, 9, 10, 20])
@pytest.mark.parametrize("keep_first", [0, 1, 2, 3, 4, 5])
def test_no_cut_ever_separates_a_call_from_its_result(keep_first, keep_last):
    short = compact(long_talk(), keep_first=keep_first, keep_last=keep_last, summary="Earlier: weather.")
    pairs_intact(short)
    synthetic = [i for i, m in enumerate(short.messages) if m.synthetic]
    assert len(synthetic) <= 1
    if synthetic:
        after = short.messages[synthetic[0] + 1:]
        # the kept tail starts at a user turn that answers no call (or is empty)
        assert not after or (after[0].role == "user" and not after[0].tool_results)


def test_the_tail_moves_earlier_to_a_question_and_the_head_later_past_results():
    t = long_talk()
    # keep_last=3 would start at [7], a call: the tail moves back to [6], the question
    assert compact(t, keep_first=1, keep_last=3)[2] is t[6]
    # keep_first=2 would end after [1], a call: the head takes [2], its result
    short = compact(t, keep_first=2, keep_last=4)
    assert short.messages[:3] == t.messages[:3] and short[3].synthetic


def test_when_the_cuts_meet_nothing_changes():
    t = long_talk()
    same = compact(t, keep_first=5, keep_last=5)  # head [0]-[4], tail from [5] (an answer) back to [5]
    assert same is not t and same.messages == t.messages
    assert compact(Transcript(), keep_first=1, keep_last=1).messages == []


def test_a_summariser_gets_the_replaced_messages():
    t = long_talk()
    seen = []

    def summarise(messages):
        seen.extend(messages)
        return "Paris 18°C, Rome 24°C."

    short = compact(t, summary=summarise)
    assert seen == t.messages[1:6] and short[1].text == "Paris 18°C, Rome 24°C."


@pytest.mark.parametrize("api", wire.APIS)
@pytest.mark.parametrize("keep", [(0, 2), (1, 3), (1, 4), (2, 1), (3, 3)])
def test_a_compacted_transcript_is_valid_on_every_wire(api, keep):
    keep_first, keep_last = keep
    short = compact(long_talk(), keep_first=keep_first, keep_last=keep_last)
    if short[-1].role == "assistant":  # a request ends with the user's turn
        short.append(Message.user("Thanks. Anything else?"))
    assert wire.check(short, api=api, tools=[get_weather]) == []


def test_outline_says_what_was_asked_called_and_answered():
    assert outline(long_talk().messages[:6]).splitlines() == [
        "Summary of 6 earlier messages:",
        "- asked: Paris and Rome?",
        '- get_weather({"city": "Paris"}) -> 18°C, sunny',
        '- get_weather({"city": "Rome"}) -> 24°C, sunny',
        "- answered: Paris 18°C, Rome 24°C.",
    ]


def test_bad_arguments_say_what_to_pass():
    with pytest.raises(UsageTypeError, match="takes a Transcript"):
        compact([Message.user("Hi")])
    with pytest.raises(UsageError, match="keep_last must be a whole number"):
        compact(long_talk(), keep_last=-1)
    with pytest.raises(UsageError, match="non-empty string"):
        compact(long_talk(), summary=lambda messages: "")


# -- what it does to the cache, by hand ---------------------------------------------------------
# Claude Opus 5: $5 input, $0.50 cache read, $6.25 5-minute cache write, $25 output per million.

def test_compaction_effect_without_caching_pays_back_at_once():
    # no cache: the next call sends 20,500 instead of 100,500 tokens at $5 a million
    effect = compaction_effect(100_000, kept_prefix=5_000, compacted=20_000, new_tokens=500,
                               model="claude-opus-5", caching=False)
    assert effect.before.total == pytest.approx(100_500 * 5 / 1e6)   # $0.5025
    assert effect.after.total == pytest.approx(20_500 * 5 / 1e6)     # $0.1025
    assert effect.later_saving == pytest.approx(80_000 * 5 / 1e6)    # $0.40 a call
    assert effect.pays_back_after == 0 and effect.after_usage.cache_write_tokens == 0
    assert "With no cache" in effect.explanation


def test_compaction_in_loop_by_hand():
    # compacted after call 40 of a 2,000 + 500/step loop: the cache holds call 40's
    # 2,000 + 39*500 = 21,500 tokens; the next call adds 500.
    effect = compaction_in_loop(40, 2_000, 500, kept_prefix=2_000, compacted=4_000, model="claude-opus-5")
    before = 21_500 * 0.50 + 500 * 6.25                 # 10,750 + 3,125 = 13,875 per million
    after = 2_000 * 0.50 + (4_000 - 2_000 + 500) * 6.25  # 1,000 + 15,625 = 16,625
    saving = (21_500 - 4_000) * 0.50                    # 8,750 per later call
    assert effect.before.total == pytest.approx(before / 1e6)
    assert effect.after.total == pytest.approx(after / 1e6)
    assert effect.later_saving == pytest.approx(saving / 1e6)
    assert effect.pays_back_after == 1  # ceil((16,625 - 13,875) / 8,750) = ceil(0.31)
    assert repr(effect) == "CompactionEffect(next call $0.0139 -> $0.0166, pays back after 1 call)"
    uncached = compaction_in_loop(40, 2_000, 500, kept_prefix=2_000, compacted=4_000,
                                  model="claude-opus-5", caching=False)
    assert uncached.before.total == pytest.approx(22_000 * 5 / 1e6)
    assert uncached.after.total == pytest.approx(4_500 * 5 / 1e6) and uncached.pays_back_after == 0
    with pytest.raises(UsageError, match="after_call"):
        compaction_in_loop(0, 2_000, 500, kept_prefix=0, compacted=0, model="claude-opus-5")


def test_cache_effect_measures_the_two_transcripts():
    from toolcall_lab.tokens import request_tokens

    t = long_talk()
    short = compact(t, keep_first=1, keep_last=4)
    effect = cache_effect(t, short, model="claude-opus-5", tools=[get_weather], new_tokens=50)
    history, compacted = request_tokens(t, [get_weather]), request_tokens(short, [get_weather])
    kept = request_tokens(Transcript(t.system, t.messages[:1]), [get_weather])
    assert effect == compaction_effect(history, kept_prefix=kept, compacted=compacted, new_tokens=50,
                                       model="claude-opus-5")
    assert effect.after_usage.cache_read_tokens == kept  # only the kept head is read from the cache
    assert effect.after_usage.cache_write_tokens == compacted - kept + 50


def test_compaction_reads_nothing_of_the_views():
    """The bill of a compaction is the views' (`views.cost.cache_effect`): compaction, in the loop's
    layer above them, imports none of them, not even inside a function (issue 30)."""
    import ast
    import inspect

    import toolcall_lab.compaction as compaction

    tree = ast.parse(inspect.getsource(compaction))
    named = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert [name for name in named if "views" in name] == []
    assert not hasattr(compaction, "cache_effect")
