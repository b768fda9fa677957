"""Data lost or leaked in tapes (issue 29, section 5): each gets the right result or one clear error.

1. a secret the model repeats in a stream, cut across deltas, is redacted as the text assembles;
2. every well-known token shape is redacted wherever it sits in a body (after a line break too);
3. a stream framed with CR or CRLF keeps every event, and one that yields none says so;
4. concurrent calls through `recording()` keep every exchange on the tape.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REAL_PROVIDERS, SECRET, examples, same_turn
from stream_grammar import STREAMS, NoCuts
from test_stream_fixtures import anthropic_sdk
from test_stream_property import DrawnCuts, pieces_say_what_the_turn_holds
from toolcall_lab import Message, Transcript, call, get_provider, run_agent
from toolcall_lab._redact import TOKEN_SHAPES
from toolcall_lab.double import ApiDouble
from toolcall_lab.errors import MalformedResponseError, TapeError
from toolcall_lab.providers.anthropic import AnthropicProvider
from toolcall_lab.providers.sdk import SealedKeys
from toolcall_lab.recorded import RECORDINGS
from toolcall_lab.stream import StreamFinished, TextDelta
from toolcall_lab.tape import Tape, record, replay
from toolcall_lab.tape.redaction import scrubbed
from toolcall_lab.wire import APIS, decode_reply, decode_stream
from toolcall_lab.wire._framing import events_of

SSE_RECORDINGS = sorted(name for name, recording in RECORDINGS.items() if recording.api != "ollama")

#: One made-up token of each well-known shape, (what comes before it, the token): built here, so
#: no token-shaped literal sits in the source.
SHAPED = {
    "OpenAI project key": ("", "sk-" + "proj-" + "A1b2C3d4_e5F6-g7H8" * 3),
    "OpenAI key, the old shape": ("", "sk-" + "T3BlbkFJ" + "a1B2c3D4e5F6" * 4),
    "Anthropic key": ("", "sk-" + "ant-api03-" + "Ab1_Cd2-Ef3gH4" * 6 + "-AA"),
    "AWS access key id": ("", "AK" + "IA" + "IOSFODNN7EXAMPLE"),
    "GitHub personal token": ("", "gh" + "p_" + "A1b2C3d4E5f6" * 3),
    "GitHub fine-grained token": ("", "github" + "_pat_" + "11ABCDEFG0" * 3 + "_" + "a1B2c3" * 9),
    "Hugging Face token": ("", "h" + "f_" + "aBcDeFgHiJ" * 3 + "kLmN"),
    "Google API key": ("", "AI" + "za" + "SyD-9tSrke72I6e0qOZVOtU5oBRBmBPUfhI"),
    "Slack bot token": ("", "xo" + "xb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    "Bearer token": ("Authorization: Bearer ", "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiI0MiJ9.c2lnbmVk-_x"),
}
#: A secret with no shape, which only the provider's own redaction knows (a URL's password, say).
SHAPELESS = "hunter2-of-the-classroom"


# -- 1. a secret cut across a stream's pieces is redacted as the text assembles ----------------------
def reply_bodies(text: str) -> dict[str, dict[str, Any]]:
    """Each API's unstreamed body of one reply that says `text`, thinks it and passes it to a call."""
    args = {"note": text, "city": "Paris"}
    anthropic = [{"type": "thinking", "thinking": text, "signature": "c2ln"}, {"type": "text", "text": text},
                 {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": args}]
    responses = [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": text}]},
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
         "arguments": json.dumps(args), "status": "completed"}]
    chat = {"role": "assistant", "content": text, "refusal": None, "reasoning_content": text,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "get_weather", "arguments": json.dumps(args, ensure_ascii=False)}}]}
    ollama = {"role": "assistant", "content": text, "thinking": text,
              "tool_calls": [{"function": {"name": "get_weather", "arguments": args}}]}
    return {
        "anthropic": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
                      "content": anthropic, "stop_reason": "tool_use", "stop_sequence": None,
                      "usage": {"input_tokens": 12, "output_tokens": 34}},
        "responses": {"id": "resp_1", "object": "response", "created_at": 1764777657, "status": "completed",
                      "error": None, "incomplete_details": None, "model": "gpt-5-mini", "output": responses,
                      "parallel_tool_calls": True,
                      "usage": {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                                "output_tokens": 34, "output_tokens_details": {"reasoning_tokens": 5},
                                "total_tokens": 46}},
        "chat": {"id": "chatcmpl-1", "object": "chat.completion", "created": 1727346176, "model": "gpt-4o",
                 "choices": [{"index": 0, "logprobs": None, "finish_reason": "tool_calls", "message": chat}]},
        "ollama": {"model": "qwen3:4b", "created_at": "2026-12-01T10:00:59.5Z", "done": True,
                   "done_reason": "stop", "message": ollama, "prompt_eval_count": 12, "eval_count": 34},
    }


def kept_on_the_tape(api: str, body: dict[str, Any], cuts: Any, secrets: Any) -> tuple[Any, Any]:
    """(the tape's stored form of `body` streamed as `cuts` cut it, of `body` unstreamed), each
    as the recorder scrubs an exchange."""
    events = STREAMS[api](copy.deepcopy(body), cuts)
    exchange = {"api": api, "path": "/", "status": 200, "model": "m", "latency_ms": 1, "request": {}}
    streamed = scrubbed({**exchange, "response": None, "events": events}, secrets)
    unstreamed = scrubbed({**exchange, "response": copy.deepcopy(body), "events": None}, secrets)
    return streamed, unstreamed


def replays_redacted(api: str, streamed: Any, unstreamed: Any, secret: str) -> None:
    """The stored stream holds no `secret`, not even in pieces: it decodes to the very Turn of
    the reply stored unstreamed, and its deltas, joined, are that Turn's blocks, where each
    text says "[redacted]" in the secret's place."""
    assert secret not in json.dumps(streamed, ensure_ascii=False)
    assert secret not in json.dumps(unstreamed, ensure_ascii=False)
    said = list(decode_stream(streamed["events"], api=api))
    expected = decode_reply(api=api, response=unstreamed["response"])
    assert isinstance(said[-1], StreamFinished) and same_turn(said[-1].turn, expected)
    pieces_say_what_the_turn_holds(said, expected, in_place=api in ("anthropic", "responses"))
    assert "[redacted]" in expected.message.text
    assert "[redacted]" in expected.message.tool_calls[0].args["note"]


class CutAt:
    """Every text cut at one point, `at` characters into the secret (`stream_grammar.Cuts`)."""

    def __init__(self, where: int) -> None:
        self.where = where

    def pieces(self, text: str) -> list[str]:
        return [text[:self.where], text[self.where:]] if 0 < self.where < len(text) else [text]

    def flag(self) -> bool:
        return False


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("shape", ["Google API key", "Anthropic key", "Bearer token", SHAPELESS])
def test_a_secret_cut_in_two_at_every_point_is_redacted_on_the_tape_of_each_wire(api, shape):
    lead, secret = SHAPED.get(shape, ("", shape))
    before = f"Your key, as you pasted it: {lead}"
    text = f"{before}{secret}. Keep it safe."
    secrets = SealedKeys([SHAPELESS])
    for where in range(len(before), len(before) + len(secret) + 1):  # each point in it, and either end
        for cuts in (CutAt(where), CutAt(where - len(before) + 1)):  # the arguments' JSON starts elsewhere
            replays_redacted(api, *kept_on_the_tape(api, reply_bodies(text)[api], cuts, secrets), secret)


@pytest.mark.parametrize("api", APIS)
@settings(max_examples=examples(60))
@given(data=st.data(), shape=st.sampled_from([*SHAPED, SHAPELESS]),
       before=st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=12),
       after=st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=12),
       gap=st.sampled_from([" ", "\n", "\t", ": ", "\n\n"]))
def test_a_secret_cut_anywhere_across_many_pieces_never_reaches_the_tape(api, data, shape, before, after,
                                                                        gap):
    """Hypothesis cuts every text of the reply (its words, its thinking, a call's arguments) at up
    to five points it chooses, as many APIs' deltas do, around a secret of every shape."""
    lead, secret = SHAPED.get(shape, ("", shape))
    text = f"{before}{gap}{lead}{secret}{' ' if after[:1].isalnum() else ''}{after}"
    streamed, unstreamed = kept_on_the_tape(api, reply_bodies(text)[api], DrawnCuts(data),
                                            SealedKeys([SHAPELESS]))
    replays_redacted(api, streamed, unstreamed, secret)


def test_a_stream_with_no_secret_is_kept_exactly_as_it_came():
    for api in APIS:
        streamed, _ = kept_on_the_tape(api, reply_bodies("Sunny, 18°C in Paris.")[api], NoCuts(), None)
        assert streamed["events"] == STREAMS[api](reply_bodies("Sunny, 18°C in Paris.")[api], NoCuts())


def test_a_secret_in_pieces_the_tape_cannot_place_is_a_tape_error_never_kept(monkeypatch):
    """The safety net: were a decoder to say a piece no field of its event holds, the stream is
    read again once scrubbed, and a secret still in it is refused, not written."""
    from toolcall_lab.tape import redaction

    monkeypatch.setattr(redaction, "_place", lambda *args: None)
    body = reply_bodies(f"You pasted {SHAPED['Google API key'][1]}.")["chat"]
    said = (r"^a secret in the streamed reasoning of block 0 arrived in pieces the tape cannot place, so it "
            r"cannot be redacted; record this call unstreamed")
    with pytest.raises(TapeError, match=said):
        kept_on_the_tape("chat", body, CutAt(14), None)


@pytest.mark.parametrize("name", list(REAL_PROVIDERS))
def test_a_streamed_reply_that_repeats_a_key_is_recorded_redacted_and_replays_so(name):
    """Through each real SDK's stream call: the double repeats a Google key in 4-character deltas."""
    if name == "ollama":
        pytest.importorskip("ollama")
    lead, secret = SHAPED["Google API key"]
    said = f"You pasted {secret}, keep it safe."
    with ApiDouble([said]) as double:
        provider = get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), api_key=SECRET)
        with record(provider) as recorder:
            live = list(provider.stream(Transcript(messages=[Message.user(f"Is {secret} my key?")])))
    assert live[-1].turn.message.text == said  # the learner's own stream is untouched
    text = json.dumps(recorder.tape.to_dict(), ensure_ascii=False)
    assert secret not in text and SECRET not in text and recorder.tape.exchanges[0].streamed
    assert recorder.tape.answer == "You pasted [redacted], keep it safe."
    replayed = replay(recorder.tape)
    again = list(replayed.stream(Transcript(messages=[Message.user("Is [redacted] my key?")])))
    deltas = "".join(event.text for event in again if isinstance(event, TextDelta))
    assert deltas == again[-1].turn.message.text == "You pasted [redacted], keep it safe."


# -- 2. every well-known token shape, wherever it sits in a body ------------------------------------
def test_every_token_shape_has_an_example_here():
    for shape in TOKEN_SHAPES:
        assert any(re.search(shape.pattern, lead + token) for lead, token in SHAPED.values()), shape.name


@pytest.mark.parametrize("shape", sorted(SHAPED))
def test_a_token_pasted_in_a_prompt_and_said_back_never_reaches_the_tape(shape, make_double, monkeypatch):
    """After a space, after a line break (written `\\n` in the JSON), in a call's arguments."""
    lead, token = SHAPED[shape]
    pasted = f"Keep these safe:\n{lead}{token}\tand {lead}{token}"
    double = make_double([[call("get_weather", city=f"Paris\n{lead}{token}")], f"I saw:\n{lead}{token}"])
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai-chat", base_url=double.base_url("chat"))
    with record(provider) as recorder:
        from toolcall_lab.tools import get_weather

        run_agent(provider, pasted, tools=[get_weather])
    text = json.dumps(recorder.tape.to_dict(), ensure_ascii=False)
    assert token not in text
    assert recorder.tape.answer == f"I saw:\n{lead}[redacted]"
    assert f"Keep these safe:\\n{lead}[redacted]\\tand {lead}[redacted]" in text


# -- 3. a stream's framing: CR, CRLF and LF alike; never 0 events of a stream that had some -------
def _lines(body: bytes) -> list[bytes]:
    """The body's lines, with the blank line that ends its last event (the recordings drop it)."""
    return (body.rstrip(b"\n") + b"\n\n").split(b"\n")[:-1]


@settings(max_examples=examples(60))
@given(name=st.sampled_from(SSE_RECORDINGS), data=st.data())
def test_an_sse_stream_reads_the_same_whatever_its_lines_end_with(name, data):
    """WHATWG's event stream grammar: `end-of-line = ( cr lf / cr / lf )`, mixed freely."""
    lines = _lines(RECORDINGS[name].body)
    ends = data.draw(st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=len(lines),
                              max_size=len(lines)))
    for number in range(len(lines) - 1):
        # subtle: a CR, then a blank line ended by LF, is one CRLF: the grammar reads it so too
        if ends[number] == b"\r" and not lines[number + 1] and ends[number + 1].startswith(b"\n"):
            ends[number] = b"\r\n"
    framed = b"".join(line + end for line, end in zip(lines, ends, strict=True))
    assert events_of(framed) == RECORDINGS[name].events() != []


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_a_tape_keeps_every_event_of_a_stream_framed_with_cr_or_crlf(end):
    body = b"".join(line + end.encode() for line in _lines(RECORDINGS["anthropic"].body))
    provider = AnthropicProvider("claude-haiku-4-5", client=anthropic_sdk(body))
    with record(provider) as recorder:
        said = list(provider.stream(Transcript(messages=[Message.user("Weather in SF?")])))
    (exchange,) = recorder.tape.exchanges
    assert list(exchange.events) == RECORDINGS["anthropic"].events()
    assert Tape.from_dict(recorder.tape.to_dict()).exchanges[0].events == exchange.events
    assert said[-1].turn.message.tool_calls[0].name == "get_weather"


def test_an_ndjson_line_with_a_raw_line_separator_in_a_string_stays_one_event():
    body = '{"message": {"content": "a\u2028b\u0085c"}, "done": false}\n{"done": true}\n'.encode()
    assert events_of(body, lines=True) == [{"message": {"content": "a\u2028b\u0085c"}, "done": False},
                                           {"done": True}]


@pytest.mark.parametrize(("body", "lines"), [(b"data: not json\n\ndata: {oops\n\n", False),
                                             (b"<html>\n<body>busy</body>\n", True)])
def test_a_stream_whose_whole_events_all_read_as_nothing_is_one_clear_error(body, lines):
    with pytest.raises(MalformedResponseError, match=r"held no JSON object to read, so none could be kept; "
                                                     r"check that the server streams"):
        events_of(body, lines=lines)


@pytest.mark.parametrize("body", [b"", b": keep-alive\n\n", b"data: [DONE]\n\n", b'data: {"type": "mess'])
def test_a_stream_with_nothing_whole_to_read_is_no_events_and_no_error(body):
    """Comments, the end marker, and an event cut before its blank line carry nothing to keep."""
    assert events_of(body) == []


def test_a_recorded_stream_that_yields_no_event_is_a_tape_error_not_an_empty_exchange():
    provider = AnthropicProvider("claude-haiku-4-5", client=anthropic_sdk(b"data: {oops\n\n"))
    said = r"could not record the stream from /v1/messages: the stream's 1 whole event .* held no JSON object"
    with pytest.raises(TapeError, match=said), record(provider) as recorder:
        list(provider.stream(Transcript(messages=[Message.user("hi")])))
    assert recorder.tape.exchanges == ()


# -- 4. concurrent calls through recording(): every exchange on the tape ------------------------------
def test_concurrent_calls_through_recording_keep_every_exchange_on_the_tape(make_double, tmp_path,
                                                                           monkeypatch):
    """N calls at once through one recording provider: the saved tape holds all N. A disk that
    is slower for the earlier saves (the k-th of N waits (N - k) * 10 ms) makes sure of the
    race an unlocked save loses: a thread holding an older tape renames it over a newer one."""
    import threading
    import time

    from conftest import SECRET
    from toolcall_lab import get_provider
    from toolcall_lab.tape import recording

    calls = 8
    question = "Question {}: the weather in Paris?"
    save = Tape.save

    saves = iter(range(calls, 0, -1))  # subtle: next() of a range iterator is atomic in CPython

    def slow_save(self, path):
        time.sleep(next(saves, 0) * 0.01)  # s = (N - k) * 10 ms / 1000
        return save(self, path)

    monkeypatch.setattr(Tape, "save", slow_save)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    double = make_double()
    path = tmp_path / "class.tape.json"
    provider = recording(get_provider("openai-chat", base_url=double.base_url("chat")), path)
    start = threading.Barrier(calls, timeout=30)
    failed: list[BaseException] = []

    def ask(number: int) -> None:
        try:
            start.wait()
            provider.complete(Transcript(messages=[Message.user(question.format(number))]))
        except BaseException as exc:  # said by the assert below, in the test's own thread
            failed.append(exc)

    threads = [threading.Thread(target=ask, args=(number,), daemon=True) for number in range(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failed and not any(thread.is_alive() for thread in threads)
    asked = sorted(exchange.request["messages"][-1]["content"] for exchange in Tape.load(path).exchanges)
    assert asked == sorted(question.format(number) for number in range(calls))


def test_a_piece_sent_under_two_names_is_cut_from_both():
    # Chat servers may send reasoning as reasoning_content and reasoning, the same text; the
    # decoder says it once, so the tape must cut the secret from both names, not only one
    from toolcall_lab.tape.redaction import scrubbed_events

    key = "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12"
    pieces = ["my key is ", key[:6], key[6:14], key[14:], " ok"]
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    chunks = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": p,
                                                          "reasoning": p}, "finish_reason": None}]}
              for p in pieces]
    chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    kept = scrubbed_events(chunks, "chat")
    for name in ("reasoning_content", "reasoning"):
        said = "".join(c["choices"][0]["delta"].get(name, "") for c in kept)
        assert key not in said and said == "my key is [redacted] ok", name


def test_a_deeply_nested_body_is_redacted_without_overflowing_the_stack():
    """Each string is scrubbed by a loop, not a recursion: a request nested 700 containers deep
    (JSON writes and reads it; the kit's earlier text-level redaction took it) is recorded with
    its secret cut."""
    from toolcall_lab.tape.redaction import scrubbed

    deep: Any = {"note": f"my key is {SECRET}", "keys": [SECRET]}
    for _ in range(350):  # an object and a list each time
        deep = {"inner": [deep]}
    clean = scrubbed({"api": "chat", "request": deep, "events": None})
    assert SECRET not in json.dumps(clean) and clean["events"] is None
    clean = clean["request"]
    for _ in range(350):
        clean = clean["inner"][0]
    assert clean == {"note": "my key is [redacted]", "keys": ["[redacted]"]}
