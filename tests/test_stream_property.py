"""The property of every stream decoder: a reply streamed decodes to the same `Turn` as unstreamed.

For replies Hypothesis makes on each of the four APIs (text, several and parallel tool
calls, arguments that are not JSON, thinking with its signature, a Qwen3-style `<think>`
prefix in Chat content, Responses reasoning with encrypted content, a provider's own
tools, usage, every stop reason), written as the
API's *non-streaming* body, the stream the API's grammar gives for that body
(`stream_grammar`, which uses nothing of the kit) is cut at points Hypothesis chooses and
fed to `decode_stream`. The last event's `Turn` must equal `decode_response(body)`, and
the events before it must say the same thing piece by piece.
"""

from __future__ import annotations

import copy
import json
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples, same_turn
from stream_grammar import STREAMS
from toolcall_lab import ReasoningBlock, TextBlock, ToolCall, Turn
from toolcall_lab.stream import (
    ArgumentsDelta,
    BlockFinished,
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCallStarted,
)
from toolcall_lab.wire import APIS, codec
from toolcall_lab.wire.anthropic import _blocks as anthropic_blocks

EXAMPLES = 200  # per API (800 replies in all)

texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=30)
names = st.sampled_from(["get_weather", "calculator", "search_kb", "lookup-2"])
counts = st.integers(0, 5000)
scalars = (st.none() | st.booleans() | st.integers(-(2**60), 2**60)
           | st.floats(allow_nan=False, allow_infinity=False) | texts)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(texts, inner, max_size=3), max_leaves=8)
arguments = st.dictionaries(texts, values, max_size=4)
#: Arguments text a model may write that is not a JSON object: cut off, a list, a word.
broken = st.sampled_from(['{"city": "Par', "[1, 2]", "Paris", '{"a": 1}}', '{"x": NaN}'])
signatures = st.text(string.ascii_letters + string.digits + "+/=", min_size=1, max_size=40)
#: Chat content a Qwen3-style model writes without a reasoning parser (vLLM, llama.cpp): its
#: thinking first, in <think> tags, closed or (cut at the limit) not.
thoughts = st.builds(lambda lead, thought, end, rest: f"{lead}<think>{thought}{end}{rest}",
                     st.sampled_from(["", "\n", "  "]), texts,
                     st.sampled_from(["</think>", "</think>\n\n", "</think> ", ""]), texts)


def json_text(draw: Any, args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=draw(st.booleans()))


# -- replies, as each API's non-streaming body ------------------------------------------------------
@st.composite
def anthropic_bodies(draw: Any) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for n in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["text", "tool_use", "tool_use", "thinking", "redacted_thinking",
                                     "server_tool_use", "web_search_tool_result"]))
        if kind == "text":
            content.append({"type": "text", "text": draw(texts)})
        elif kind == "tool_use":
            block = {"type": "tool_use", "id": f"toolu_{n:02d}", "name": draw(names),
                     "input": draw(arguments)}
            caller = draw(st.sampled_from([None, {"type": "direct"},
                                           {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}]))
            content.append(block if caller is None else {**block, "caller": caller})
        elif kind == "thinking":
            content.append({"type": "thinking", "thinking": draw(texts), "signature": draw(signatures)})
        elif kind == "redacted_thinking":
            content.append({"type": "redacted_thinking", "data": draw(signatures)})
        elif kind == "server_tool_use":
            content.append({"type": "server_tool_use", "id": f"srvtoolu_{n:02d}", "name": "web_search",
                            "input": {"query": draw(words)}})
        else:
            content.append({"type": "web_search_tool_result", "tool_use_id": f"srvtoolu_{n:02d}", "content": [
                {"type": "web_search_result", "title": draw(words), "url": "https://example.com/a",
                 "encrypted_content": draw(signatures), "page_age": None}]})
    output = draw(counts)
    usage: dict[str, Any] = {"input_tokens": draw(counts), "output_tokens": output}
    if draw(st.booleans()):
        usage |= {"cache_read_input_tokens": draw(counts), "cache_creation_input_tokens": draw(counts)}
    if draw(st.booleans()):
        usage["output_tokens_details"] = {"thinking_tokens": draw(st.integers(0, output))}
    if draw(st.booleans()):
        usage["server_tool_use"] = {"web_search_requests": draw(st.integers(0, 3))}
    body = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-5",
            "content": content, "stop_reason": draw(st.sampled_from(sorted(anthropic_blocks.STOP_IN))),
            "stop_sequence": draw(st.none() | st.just("###")), "usage": usage}
    if draw(st.booleans()):
        body["container"] = {"id": "container_1", "expires_at": "2026-12-01T11:00:00Z"}
    return body


@st.composite
def responses_bodies(draw: Any) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    for n in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["reasoning", "message", "function_call", "function_call",
                                     "web_search_call", "file_search_call"]))
        if kind == "reasoning":
            summary = draw(st.lists(texts, max_size=3))
            item = {"type": "reasoning", "id": f"rs_{n}",
                    "summary": [{"type": "summary_text", "text": t} for t in summary]}
            if draw(st.booleans()):
                item["encrypted_content"] = "gAAAAB" + draw(signatures)
        elif kind == "message":
            parts = draw(st.lists(st.sampled_from(["output_text", "output_text", "refusal"]), min_size=1,
                                  max_size=2))
            content = [{"type": "output_text", "text": draw(texts), "annotations": [], "logprobs": []}
                       if part == "output_text" else {"type": "refusal", "refusal": draw(texts)}
                       for part in parts]
            item = {"type": "message", "id": f"msg_{n}", "status": "completed", "role": "assistant",
                    "content": content}
        elif kind == "function_call":
            said = draw(broken) if draw(st.integers(0, 5)) == 0 else json_text(draw, draw(arguments))
            item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": draw(names),
                    "arguments": said, "status": "completed"}
        elif kind == "web_search_call":
            item = {"type": "web_search_call", "id": f"ws_{n}", "status": "completed",
                    "action": {"type": "search", "query": draw(words)}}
        else:
            item = {"type": "file_search_call", "id": f"fs_{n}", "status": "completed", "queries": ["q"],
                    "results": None}
        output.append(item)
    status = draw(st.sampled_from(["completed", "completed", "incomplete"]))
    details = ({"reason": draw(st.sampled_from(["max_output_tokens", "content_filter"]))}
               if status == "incomplete" else None)
    inputs, outputs = draw(counts), draw(counts)
    usage = {"input_tokens": inputs, "input_tokens_details": {"cached_tokens": draw(st.integers(0, inputs))},
             "output_tokens": outputs,
             "output_tokens_details": {"reasoning_tokens": draw(st.integers(0, outputs))},
             "total_tokens": inputs + outputs}
    return {"id": "resp_1", "object": "response", "created_at": 1764777657, "status": status, "error": None,
            "incomplete_details": details, "model": "gpt-6-luna", "output": output,
            "parallel_tool_calls": True, "usage": usage}


@st.composite
def chat_bodies(draw: Any) -> dict[str, Any]:
    calls = [{"id": f"call_{n}", "type": "function", "function": {"name": draw(names), "arguments": (
        draw(broken | st.just("")) if draw(st.integers(0, 5)) == 0 else json_text(draw, draw(arguments)))}}
        for n in range(draw(st.integers(0, 4)))]
    message: dict[str, Any] = {"role": "assistant", "content": draw(st.none() | texts | thoughts),
                               "refusal": draw(st.none() | words)}
    if calls:
        message["tool_calls"] = calls
    if draw(st.booleans()):
        message["reasoning_content"] = draw(words)  # vLLM and Ollama's /v1 stream reasoning so
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1727346176,
                            "model": "gpt-4o-2024-08-06", "choices": [{"index": 0, "message": message,
                            "logprobs": None, "finish_reason": draw(st.sampled_from(
                                ["stop", "length", "tool_calls", "content_filter"]))}]}
    if draw(st.booleans()):
        prompt, completion = draw(counts), draw(counts)
        body["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                         "total_tokens": prompt + completion,
                         "prompt_tokens_details": {"cached_tokens": draw(st.integers(0, prompt))},
                         "completion_tokens_details": {"reasoning_tokens": draw(st.integers(0, completion))}}
    return body


@st.composite
def ollama_bodies(draw: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": draw(texts)}
    thinking = draw(texts)
    if thinking:
        message["thinking"] = thinking
    calls = []
    for n in range(draw(st.integers(0, 3))):
        function = {"name": draw(names), "arguments": draw(arguments)}
        with_id = draw(st.booleans())  # the docs' calls have no id; a current server sends one, and an index
        calls.append({"id": f"call_{n:08d}", "function": {"index": n, **function}} if with_id
                     else {"function": function})
    if calls:
        message["tool_calls"] = calls
    return {"model": "qwen3:4b", "created_at": "2026-12-01T10:00:59.5Z", "message": message, "done": True,
            "done_reason": draw(st.sampled_from(["stop", "length"])), "total_duration": 4883583458,
            "load_duration": 1334875, "prompt_eval_count": draw(counts), "prompt_eval_duration": 342546000,
            "eval_count": draw(counts), "eval_duration": 4535599000}


BODIES = {"anthropic": anthropic_bodies(), "responses": responses_bodies(), "chat": chat_bodies(),
          "ollama": ollama_bodies()}


class DrawnCuts:
    """Cut points and grammar choices drawn by Hypothesis (see `stream_grammar.Cuts`)."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def pieces(self, text: str) -> list[str]:
        if len(text) < 2:
            return [text]
        points = sorted(self.data.draw(st.sets(st.integers(1, len(text) - 1), max_size=5)))
        return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]

    def flag(self) -> bool:
        return bool(self.data.draw(st.booleans()))


@pytest.mark.parametrize("api", APIS)
@settings(max_examples=examples(EXAMPLES))
@given(data=st.data())
def test_a_streamed_reply_decodes_to_the_turn_of_the_same_reply_unstreamed(api, data):
    body = data.draw(BODIES[api], label="body")
    events = STREAMS[api](copy.deepcopy(body), DrawnCuts(data))
    expected = codec(api).decode_response(copy.deepcopy(body))
    said = list(codec(api).decode_stream(events))
    assert isinstance(said[-1], StreamFinished) and same_turn(said[-1].turn, expected)
    assert [e for e in said if isinstance(e, StreamFinished)] == said[-1:]
    pieces_say_what_the_turn_holds(said, expected, in_place=api in ("anthropic", "responses"))


def pieces_say_what_the_turn_holds(said: list[Any], turn: Turn, *, in_place: bool) -> None:
    """Each block's deltas, joined, are the block; each finishes once, after its pieces, as the turn holds it.

    `in_place`: block `index` is the turn's block `index` (Anthropic and Responses, whose
    wire numbers its blocks); else the finished blocks are the turn's, in some order.
    """
    blocks = list(turn.message.blocks)
    finished: dict[int, Any] = {}
    text: dict[int, str] = {}
    reasoning: dict[int, str] = {}
    signature: dict[int, str] = {}
    started: dict[int, tuple[str, str]] = {}
    arguments: dict[int, str] = {}
    for event in said[:-1]:
        assert event.index not in finished, f"{event} after block {event.index} finished"
        match event:
            case TextDelta(index=i, text=piece):
                text[i] = text.get(i, "") + piece
            case ReasoningDelta(index=i, text=piece, signature=sig):
                reasoning[i] = reasoning.get(i, "") + piece
                signature[i] = sig or signature.get(i, "")
            case ToolCallStarted(index=i, id=call_id, name=name):
                assert i not in started and i not in text and i not in reasoning
                started[i], arguments[i] = (call_id, name), ""
            case ArgumentsDelta(index=i, json=piece):
                arguments[i] += piece  # KeyError: arguments before their call started
            case BlockFinished(index=i, block=block):
                assert block == blocks[i] if in_place else block in blocks
                finished[i] = block
    assert sorted(finished) == list(range(len(finished))), "every block that started finishes, once"
    assert {*text, *reasoning, *arguments} <= set(finished)
    if not in_place:
        assert len(finished) == len(blocks)
    for i, joined in text.items():
        assert isinstance(finished[i], TextBlock) and joined == finished[i].text
    for i, joined in reasoning.items():
        block = finished[i]
        assert isinstance(block, ReasoningBlock) and joined == block.text
        if signature.get(i):
            assert signature[i] in (block.opaque.get("signature"), block.opaque.get("encrypted_content"))
    for i, joined in arguments.items():
        call = finished[i]
        assert isinstance(call, ToolCall) and started[i][1] == call.name and started[i][0] in ("", call.id)
        if call.malformed:
            assert joined == call.raw_args
        else:
            assert (call.args == {} and not joined.strip()) or json.loads(joined) == call.args
