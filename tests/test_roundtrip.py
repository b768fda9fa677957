"""Round trip through each real wire: transcript -> request -> API double -> response -> turn.

The double decodes the request back into a transcript and hands it to a policy. The
property: the policy sees exactly the conversation the client sent, and the client
decodes exactly the reply the policy gave. Any loss in a codec (a dropped is_error, a
reordered result, a mangled argument) shows up as a counterexample.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REAL_PROVIDERS, SECRET, examples
from toolcall_lab import Message, TextBlock, Tool, ToolCall, ToolResult, Transcript, get_provider
from toolcall_lab.double import ApiDouble

TOOLS = tuple(Tool(name, f"The {name} tool.", {"type": "object"}, lambda **kw: "")
              for name in ("get_weather", "search_kb", "lookup-2"))

texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=24)
texts = texts.filter(lambda t: t.strip() == t and t != "")
keys = st.text(string.ascii_lowercase, min_size=1, max_size=6)
values = st.one_of(st.integers(-10**6, 10**6), st.booleans(), texts, st.lists(st.integers(0, 9), max_size=3))
arguments = st.dictionaries(keys, values, max_size=3)
#: A result's text, often starting with words a wire without is_error uses for its flag (issue 19).
result_texts = texts | st.builds(str.__add__, st.sampled_from(["Error: ", "Output: Error: ", "Output: "]),
                                 texts)


@st.composite
def conversations(draw):
    """A valid conversation that ends with the user speaking (so it can be sent)."""
    messages: list[Message] = []
    serial = 0
    for _ in range(draw(st.integers(1, 3))):
        messages.append(Message.user(draw(texts)))
        if draw(st.booleans()):
            messages.append(Message.assistant(draw(texts)))
            continue
        calls = []
        for _ in range(draw(st.integers(1, 2))):
            serial += 1
            calls.append(ToolCall(f"call_{serial:03d}", draw(st.sampled_from(TOOLS)).name, draw(arguments)))
        lead = [TextBlock(draw(texts))] if draw(st.booleans()) else []
        messages.append(Message.assistant(*lead, *calls))
        messages.append(Message.results([ToolResult(c.id, draw(result_texts), draw(st.booleans()))
                                         for c in calls]))
        messages.append(Message.assistant(draw(texts)))
    messages.append(Message.user(draw(texts)))
    return Transcript(system=draw(st.none() | texts), messages=messages)


@st.composite
def replies(draw):
    """What the policy answers: text, calls, or both."""
    blocks = [TextBlock(draw(texts))] if draw(st.booleans()) else []
    calls = draw(st.lists(st.tuples(st.sampled_from(TOOLS), arguments), max_size=2))
    blocks += [ToolCall("", t.name, args) for t, args in calls]
    return blocks or [TextBlock(draw(texts))]


def shape(messages, *, ids: bool = True):
    """Messages as comparable data; `ids=False` leaves call ids out (the server mints them)."""

    def rename(call_id: str) -> str:
        return call_id if ids else "-"

    out = []
    for message in messages:
        blocks = []
        for b in message.blocks:
            if isinstance(b, ToolCall):
                blocks.append(("call", rename(b.id), b.name, dict(b.args)))
            elif isinstance(b, ToolResult):
                blocks.append(("result", rename(b.call_id), b.content, b.is_error))
            elif isinstance(b, TextBlock):
                blocks.append(("text", b.text))
        out.append((message.role, blocks))
    return out


class Recorder:
    """A policy that records what it was sent and answers with `self.reply`."""

    def __init__(self):
        self.seen: Transcript | None = None
        self.reply: list = ["ok"]

    def __call__(self, transcript, tools):
        self.seen = transcript
        return self.reply


@pytest.mark.parametrize("name", list(REAL_PROVIDERS))
def test_a_conversation_survives_the_wire(name):
    if name == "ollama":
        pytest.importorskip("ollama")
    recorder = Recorder()
    with ApiDouble(recorder) as double:
        provider = get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), api_key=SECRET)

        @settings(max_examples=examples(30))
        @given(transcript=conversations(), reply=replies())
        def round_trip(transcript, reply):
            recorder.reply = reply
            turn = provider.complete(transcript, tools=TOOLS)
            assert recorder.seen is not None
            assert recorder.seen.system == transcript.system
            assert shape(recorder.seen.messages) == shape(transcript.messages)
            expected = Message.assistant(*reply)
            assert shape([turn.message], ids=False) == shape([expected], ids=False)

        round_trip()
