"""Tests for the conversation vocabulary: blocks, messages, transcripts and their JSON form."""

import dataclasses
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from toolcall_lab import Message, ReasoningBlock, TextBlock, ToolCall, ToolResult, Transcript
from toolcall_lab.transcript import TRANSCRIPT_FORMAT_VERSION

SIGNATURE = "EqQBCkgIARABGAIiQL" + "x" * 2000


def test_messages_still_exports_every_name_it_did_before_the_split():
    """Blocks moved to blocks.py and the Transcript to transcript.py; the old imports still work."""
    from toolcall_lab import blocks, messages, transcript

    assert set(messages.__all__) == {
        "Block", "Message", "ReasoningBlock", "Role", "TRANSCRIPT_FORMAT_VERSION", "TextBlock",
        "ToolCall", "ToolResult", "Transcript", "block_from_dict", "block_to_dict",
        # issue 13: the provider's own tool use (a web search) has block kinds of its own
        "ServerToolCall", "ServerToolResult"}
    for name in messages.__all__:
        home = next((m for m in (blocks, transcript) if name in m.__all__), messages)
        assert getattr(messages, name) is getattr(home, name), name
    from toolcall_lab.messages import Transcript  # looked up on first use (see messages.__getattr__)

    assert Transcript is transcript.Transcript
    with pytest.raises(AttributeError, match="no attribute 'Transcrip'"):
        messages.Transcrip  # noqa: B018


# -- blocks ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("block", "kind"),
    [
        (TextBlock("hi"), "text"),
        (ToolCall("toolu_01", "get_weather", {"city": "Paris"}), "tool_call"),
        (ToolResult("toolu_01", "18°C, sunny"), "tool_result"),
        (ReasoningBlock("thinking"), "reasoning"),
    ],
)
def test_block_has_its_kind(block, kind):
    assert block.kind == kind


@pytest.mark.parametrize(
    ("block", "field_name"),
    [
        (TextBlock("hi"), "text"),
        (ToolCall("toolu_01", "get_weather", {"city": "Paris"}), "name"),
        (ToolResult("toolu_01", "18°C, sunny"), "content"),
        (ReasoningBlock("thinking"), "text"),
    ],
)
def test_blocks_are_frozen(block, field_name):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(block, field_name, "changed")


def test_message_is_frozen():
    message = Message.user("hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.role = "assistant"


def test_blocks_update_with_replace():
    call = ToolCall("", "get_weather", {"city": "Paris"})
    assert dataclasses.replace(call, id="toolu_07").id == "toolu_07"
    assert call.id == ""


def test_tool_call_is_malformed_only_with_raw_args():
    assert not ToolCall("toolu_01", "get_weather", {"city": "Paris"}).malformed
    broken = ToolCall("toolu_01", "get_weather", raw_args='{"city": "Par')
    assert broken.malformed
    assert broken.args == {}


# -- messages ----------------------------------------------------------------------------

def test_user_factory_turns_strings_into_text_blocks():
    message = Message.user("Hello", "again")
    assert message.role == "user"
    assert message.blocks == (TextBlock("Hello"), TextBlock("again"))


def test_assistant_factory_mixes_strings_and_blocks():
    call = ToolCall("toolu_01", "get_weather", {"city": "Paris"})
    message = Message.assistant("Let me check.", call)
    assert message.role == "assistant"
    assert message.blocks == (TextBlock("Let me check."), call)


def test_results_factory_makes_a_user_message_in_order():
    results = [ToolResult("toolu_01", "a"), ToolResult("toolu_02", "b", is_error=True)]
    message = Message.results(results)
    assert message.role == "user"
    assert message.blocks == tuple(results)


def test_synthetic_flag_defaults_to_false():
    assert Message.user("hi").synthetic is False
    assert Message.user("summary", synthetic=True).synthetic is True


@pytest.mark.parametrize("role", ["system", "tool", "developer", "User"])
def test_other_roles_are_rejected_pointing_at_the_system_prompt(role):
    with pytest.raises(ValueError, match=r"Transcript\(system=\.\.\.\)") as info:
        Message(role, (TextBlock("x"),))
    assert repr(role) in str(info.value)


def test_tool_result_in_assistant_message_is_rejected():
    with pytest.raises(ValueError, match="assistant message cannot hold a tool_result block"):
        Message.assistant(ToolResult("toolu_01", "18°C"))


@pytest.mark.parametrize(
    "block",
    [ToolCall("toolu_01", "get_weather", {"city": "Paris"}), ReasoningBlock("thinking")],
    ids=["tool_call", "reasoning"],
)
def test_model_blocks_in_user_message_are_rejected(block):
    with pytest.raises(ValueError, match=f"user message cannot hold a {block.kind} block"):
        Message.user(block)


@pytest.mark.parametrize("thing", [42, None, {"text": "hi"}, b"bytes"])
def test_non_block_objects_are_rejected_with_type_error(thing):
    with pytest.raises(TypeError, match="use TextBlock, ToolCall, ToolResult or ReasoningBlock"):
        Message.user(thing)


def test_blocks_given_as_list_are_stored_as_tuple():
    message = Message("user", [TextBlock("a"), TextBlock("b")])
    assert isinstance(message.blocks, tuple)
    assert message.blocks == (TextBlock("a"), TextBlock("b"))


def test_text_property_joins_text_blocks_with_newlines():
    message = Message.assistant("one", ToolCall("toolu_01", "f", {}), "two")
    assert message.text == "one\ntwo"
    assert Message.assistant(ToolCall("toolu_01", "f", {})).text == ""


def test_reading_properties_pick_blocks_by_kind():
    thought = ReasoningBlock("hmm")
    first = ToolCall("toolu_01", "a", {})
    second = ToolCall("toolu_02", "b", {})
    message = Message.assistant(thought, "text", first, second)
    assert message.tool_calls == (first, second)
    assert message.reasoning == (thought,)
    assert message.tool_results == ()
    results = Message.results([ToolResult("toolu_01", "x"), ToolResult("toolu_02", "y")])
    assert [r.call_id for r in results.tool_results] == ["toolu_01", "toolu_02"]
    assert results.tool_calls == ()


# -- reprs -------------------------------------------------------------------------------

def test_message_repr_is_exact():
    assert repr(Message.user("What's the weather in Paris?")) == (
        "Message.user(TextBlock(\"What's the weather in Paris?\"))"
    )


def test_assistant_call_repr_is_exact():
    message = Message.assistant(ToolCall("toolu_01", "get_weather", {"city": "Paris"}))
    assert repr(message) == "Message.assistant(ToolCall('toolu_01', 'get_weather', {'city': 'Paris'}))"


def test_error_result_and_synthetic_reprs_are_exact():
    message = Message.results([ToolResult("toolu_02", "boom", is_error=True)])
    assert repr(message) == "Message.user(ToolResult('toolu_02', 'boom', is_error=True))"
    assert repr(Message.user("summary", synthetic=True)) == (
        "Message.user(TextBlock('summary'), synthetic=True)"
    )


def test_malformed_call_repr_shows_raw_args():
    call = ToolCall("toolu_01", "get_weather", raw_args='{"city": "Par')
    assert repr(call) == "ToolCall('toolu_01', 'get_weather', raw_args='{\"city\": \"Par')"


def test_long_text_is_shortened_in_repr():
    text = "x" * 200
    shown = repr(TextBlock(text))
    assert text not in shown
    assert shown == "TextBlock('" + "x" * 59 + "…')"


def test_message_repr_has_no_id_or_timestamp():
    message = Message.user("hi")
    shown = repr(message)
    assert message.id not in shown
    assert message.created_at.isoformat() not in shown
    assert str(message.created_at.year) not in shown


def test_repr_is_stable_across_messages_built_at_different_times():
    first = Message.user("hi")
    second = Message.user("hi")
    assert first != second  # different id and creation time ...
    assert repr(first) == repr(second)  # ... but the same repr


def test_transcript_repr_is_exact():
    transcript = Transcript(system="Be brief.", messages=[Message.user("Hi")])
    assert repr(transcript) == "Transcript(system='Be brief.', 1 messages)"
    assert repr(Transcript()) == "Transcript(0 messages)"


def test_reasoning_repr_hides_opaque_values():
    block = ReasoningBlock("I should look it up.", provider="anthropic", model="claude-x",
                           opaque={"signature": SIGNATURE})
    shown = repr(block)
    assert SIGNATURE not in shown
    assert "EqQBCkgIARABGAIiQL" not in shown
    assert shown == ("ReasoningBlock('I should look it up.', provider='anthropic', "
                     "model='claude-x', opaque=<signature>)")


def test_reasoning_is_replayable_only_to_its_own_provider():
    block = ReasoningBlock("", provider="anthropic", opaque={"signature": SIGNATURE})
    assert block.replayable_to("anthropic")
    assert not block.replayable_to("openai")
    assert not ReasoningBlock("anonymous").replayable_to("anthropic")


# -- transcripts -------------------------------------------------------------------------

def test_transcript_append_returns_the_message_and_supports_len_iter_getitem():
    transcript = Transcript(system="Be brief.")
    question = Message.user("Hi")
    assert transcript.append(question) is question
    answer = transcript.append(Message.assistant("Hello!"))
    assert len(transcript) == 2
    assert list(transcript) == [question, answer]
    assert transcript[0] is question
    assert transcript[-1] is answer


def test_transcript_append_rejects_non_messages():
    with pytest.raises(TypeError, match="Message.user"):
        Transcript().append("Hi")


def test_transcript_copy_has_an_independent_list():
    original = Transcript(system="s", messages=[Message.user("Hi")])
    copied = original.copy()
    assert copied == original
    assert copied.messages is not original.messages
    copied.append(Message.assistant("Hello"))
    assert len(original) == 1
    assert len(copied) == 2


def test_last_user_text_skips_tool_result_messages():
    transcript = Transcript(messages=[
        Message.user("What's the weather in Paris?"),
        Message.assistant(ToolCall("toolu_01", "get_weather", {"city": "Paris"})),
        Message.results([ToolResult("toolu_01", "18°C, sunny")]),
    ])
    assert transcript.last_user_text() == "What's the weather in Paris?"
    assert Transcript().last_user_text() == ""


def test_transcript_tool_calls_and_results_come_in_order():
    calls = [ToolCall(f"toolu_0{i}", "f", {"i": i}) for i in (1, 2, 3)]
    results = [ToolResult(c.id, str(i)) for i, c in enumerate(calls)]
    transcript = Transcript(messages=[
        Message.user("go"),
        Message.assistant(calls[0], calls[1]),
        Message.results(results[:2]),
        Message.assistant("and one more", calls[2]),
        Message.results(results[2:]),
    ])
    assert transcript.tool_calls() == calls
    assert transcript.tool_results() == results


# -- JSON round trip ---------------------------------------------------------------------

@pytest.fixture
def rich_transcript():
    paris = ToolCall("toolu_01", "get_weather", {"city": "Paris"})
    tokyo = ToolCall("toolu_02", "get_weather", {"city": "東京"})
    broken = ToolCall("toolu_03", "get_weather", raw_args='{"city": "Par')
    thought = ReasoningBlock("Two cities: two calls.", provider="anthropic", model="claude-x",
                             opaque={"signature": SIGNATURE, "nested": {"n": [1, 2.5, None]}})
    return Transcript(system="You are a weather assistant. Answer in °C.", messages=[
        Message.user("What's the weather in Paris and 東京?"),
        Message.assistant(thought, "Let me check both.", paris, tokyo),
        Message.results([ToolResult("toolu_01", "18°C, sunny"),
                         ToolResult("toolu_02", "get_weather failed: ValueError: no data",
                                    is_error=True)]),
        Message.assistant(broken),
        Message.results([ToolResult("toolu_03", "not a JSON object", is_error=True)]),
        Message.user("Summary so far: Paris 18°C.", synthetic=True),
        Message.assistant("Paris: 18°C, sunny. 東京: unknown."),
    ])


def test_json_round_trip_is_exact(rich_transcript):
    assert Transcript.from_json(rich_transcript.to_json()) == rich_transcript


def test_dict_round_trip_is_exact(rich_transcript):
    assert Transcript.from_dict(rich_transcript.to_dict()) == rich_transcript


def test_save_and_load_round_trip(rich_transcript, tmp_path):
    path = rich_transcript.save(tmp_path / "t.json")
    assert path == tmp_path / "t.json"
    assert Transcript.load(path) == rich_transcript
    assert "東京" in path.read_text(encoding="utf-8")  # UTF-8, not \u escapes


def test_ids_and_created_at_survive_exactly(rich_transcript):
    loaded = Transcript.from_json(rich_transcript.to_json())
    assert [m.id for m in loaded] == [m.id for m in rich_transcript]
    assert [m.created_at for m in loaded] == [m.created_at for m in rich_transcript]
    assert all(m.created_at.tzinfo is not None for m in loaded)


def test_round_trip_keeps_the_details(rich_transcript):
    loaded = Transcript.from_json(rich_transcript.to_json())
    assert loaded.system == rich_transcript.system
    assert loaded[1].reasoning[0].opaque["signature"] == SIGNATURE
    assert loaded[3].tool_calls[0].raw_args == '{"city": "Par'
    assert loaded[2].tool_results[1].is_error is True
    assert loaded[5].synthetic is True


def test_saved_json_names_format_and_version(rich_transcript):
    data = json.loads(rich_transcript.to_json())
    assert data["format"] == "toolcall-lab/transcript"
    assert data["version"] == TRANSCRIPT_FORMAT_VERSION == 1


@pytest.mark.parametrize(
    "changes",
    [{"version": 2}, {"version": None}, {"format": "something-else"}],
    ids=["newer-version", "no-version", "wrong-format"],
)
def test_loading_wrong_format_or_version_raises_naming_the_version(rich_transcript, changes):
    data = {**rich_transcript.to_dict(), **changes}
    with pytest.raises(ValueError, match=f"version {TRANSCRIPT_FORMAT_VERSION}") as info:
        Transcript.from_dict(data)
    assert f"version={data['version']!r}" in str(info.value)


# -- hypothesis: any transcript survives JSON --------------------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**63)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text())
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=4)

text_blocks = st.builds(TextBlock, st.text())
tool_calls = st.builds(ToolCall, st.text(), st.text(), json_objects,
                       st.none() | st.text())
tool_results = st.builds(ToolResult, st.text(), st.text(), st.booleans())
reasoning_blocks = st.builds(ReasoningBlock, st.text(), st.none() | st.text(),
                             st.none() | st.text(), json_objects)
times = st.datetimes(timezones=st.just(UTC))


@st.composite
def messages(draw):
    role = draw(st.sampled_from(["user", "assistant"]))
    kinds = text_blocks | (tool_results if role == "user" else tool_calls | reasoning_blocks)
    return Message(role, tuple(draw(st.lists(kinds, max_size=4))), id=draw(st.text()),
                   created_at=draw(times), synthetic=draw(st.booleans()))


transcripts = st.builds(Transcript, st.none() | st.text(), st.lists(messages(), max_size=5))


@settings(max_examples=examples(200))
@given(transcripts)
def test_any_transcript_survives_json(transcript):
    assert Transcript.from_json(transcript.to_json()) == transcript


def test_naive_created_at_survives_json():
    message = Message("user", (TextBlock("hi"),), created_at=datetime(2024, 5, 1, 12, 0, 0, 123456))
    transcript = Transcript(messages=[message])
    assert Transcript.from_json(transcript.to_json())[0].created_at == message.created_at
