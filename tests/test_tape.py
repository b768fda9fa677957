"""Record once, replay for the class (issue 12, item 5): tapes through every real SDK.

A run is recorded through each real SDK against the API double (with a key in the
environment), replayed through the same SDK from the tape, and must give the same answer
and send the same requests; a request that differs gets the API's 400 naming the path;
no key ever reaches a tape; the shipped tapes are exactly what their sources build.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REAL_PROVIDERS, SECRET, examples, json_paths
from stub_server import StubServer
from tape_sources import BUILDERS, TAPES
from toolcall_lab import (
    InvalidRequestError,
    Message,
    ReasoningBlock,
    Tool,
    ToolCall,
    ToolcallLabError,
    ToolResult,
    Transcript,
    get_provider,
    run_agent,
)
from toolcall_lab.double import ApiDouble
from toolcall_lab.double.playback import first_difference
from toolcall_lab.errors import TapeError, UsageError
from toolcall_lab.examples import PARIS_QUESTION, SYSTEM_PROMPT
from toolcall_lab.tape import Exchange, Tape, load, record, recording, replay, shipped
from toolcall_lab.tools import get_weather

KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "openai-chat": "OPENAI_API_KEY"}
#: What a key or an auth header looks like in text: none may be in a tape.
KEYLIKE = re.compile(r"sk-[A-Za-z0-9_-]{6,}|Bearer |x-api-key|authorization|api[_-]?key", re.I)


def recorded_run(name, double, tmp_path, monkeypatch, tools=(get_weather,)):
    """Record the Paris run through `name`'s SDK with a key in the environment; (tape file, run)."""
    if name == "ollama":
        pytest.importorskip("ollama")
        options = {"api_key": SECRET}  # Ollama reads no variable; a key given goes out as a header
    else:
        monkeypatch.setenv(KEY_ENV[name], SECRET)
        options = {}
    provider = get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), **options)
    path = tmp_path / f"{name}.tape.json"
    with record(provider, path) as recorder:
        run = run_agent(provider, PARIS_QUESTION, tools=list(tools), system=SYSTEM_PROMPT)
    assert recorder.tape == Tape.load(path)
    return path, run


@pytest.mark.parametrize("name", list(REAL_PROVIDERS))
def test_a_run_recorded_through_the_real_sdk_replays_through_it(name, double, tmp_path, monkeypatch):
    path, run = recorded_run(name, double, tmp_path, monkeypatch)
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and not KEYLIKE.search(text)
    tape = Tape.load(path)
    assert tape.label.startswith("recorded against the toolcall-lab API double on ")
    assert [e.status for e in tape.exchanges] == [200, 200] == [r.status for r in double.requests]
    assert [e.request for e in tape.exchanges] == [r.body for r in double.requests]
    assert all(isinstance(e.latency_ms, int) and e.path == double.requests[0].path for e in tape.exchanges)
    assert tape.question == PARIS_QUESTION and tape.system == SYSTEM_PROMPT and tape.answer == run.answer

    monkeypatch.delenv(KEY_ENV.get(name, "NO_SUCH_VARIABLE"), raising=False)
    provider = replay(path)  # no key anywhere is needed to replay
    again = run_agent(provider, PARIS_QUESTION, tools=[get_weather], system=SYSTEM_PROMPT)
    assert again.answer == run.answer == "It's 18°C and sunny in Paris."
    assert [step.turn.response for step in again.steps] == [e.response for e in tape.exchanges]
    assert [sent.body for sent in provider.requests] == [e.request for e in tape.exchanges]


#: The providers whose API has no is_error field: a result's flag travels in its words.
NO_ERROR_FLAG = [name for name, api in REAL_PROVIDERS.items() if api != "anthropic"]


@pytest.mark.parametrize("name", NO_ERROR_FLAG)
def test_a_success_that_starts_with_error_records_and_replays(name, double, tmp_path, monkeypatch):
    # issue 19, item 7: the double used to read it as a failure with "Error: " cut off, so the
    # tape's tools answered "none, 18°C and sunny" and the replay differed from the tape
    station = Tool("get_weather", get_weather.description, get_weather.input_schema,
                   lambda city: "Error: none, 18°C and sunny")
    path, run = recorded_run(name, double, tmp_path, monkeypatch, tools=[station])
    assert run.answer == "It's Error: none and 18°C and sunny in Paris."  # the double read a success
    tape = Tape.load(path)
    assert tape.tools()[0].function(city="Paris") == "Error: none, 18°C and sunny"  # as it was sent
    provider = replay(path)
    again = run_agent(provider, tape.question, tools=tape.tools(), system=tape.system)
    assert again.answer == run.answer
    assert [sent.body for sent in provider.requests] == [e.request for e in tape.exchanges]


@pytest.mark.parametrize("name", list(REAL_PROVIDERS))
def test_a_changed_cell_gets_the_apis_400_naming_the_first_differing_path(name, double, tmp_path,
                                                                         monkeypatch):
    path, _ = recorded_run(name, double, tmp_path, monkeypatch)
    provider = replay(path)
    with pytest.raises(InvalidRequestError) as caught:
        run_agent(provider, "What's the weather in Tokyo?", tools=[get_weather], system=SYSTEM_PROMPT)
    message = str(caught.value)
    assert caught.value.status == 400
    assert "This request differs from the tape at " in message and "exchange 1 of 2" in message
    assert '"What\'s the weather in Paris?", this request has "What\'s the weather in Tokyo?"' in message
    # a tool that answers differently: the second request differs, at the tool result
    weather = Tool("get_weather", get_weather.description, get_weather.input_schema, lambda city: "snow")
    with pytest.raises(InvalidRequestError) as caught:
        run_agent(provider, PARIS_QUESTION, tools=[weather], system=SYSTEM_PROMPT)
    assert "exchange 2 of 2" in str(caught.value)
    assert '"18°C, sunny", this request has "snow"' in str(caught.value)


def test_a_key_in_a_body_masked_or_not_is_redacted_before_it_reaches_the_tape(make_double, monkeypatch):
    double = make_double([f"Your keys: {SECRET} and sk-proj-****Ab12."])
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai-chat", base_url=double.base_url("chat"))
    with record(provider) as recorder:
        run_agent(provider, f"Is {SECRET} my key?")
    text = json.dumps(recorder.tape.to_dict())
    assert SECRET not in text and "sk-" not in text
    assert recorder.tape.answer == "Your keys: [redacted] and [redacted]."


def test_the_raw_sdks_raise_bad_request_with_the_path():
    anthropic = pytest.importorskip("anthropic")
    openai = pytest.importorskip("openai")
    tape = load("anthropic_weather")
    with ApiDouble(tape=tape) as double:
        client = anthropic.Anthropic(base_url=double.url, api_key="unused", max_retries=0)
        changed = {**tape.exchanges[0].request, "max_tokens": 512}
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.messages.create(**changed)
        assert caught.value.body["error"]["type"] == "invalid_request_error"
        assert "differs from the tape at max_tokens: the tape has 1024, this request has 512" in \
            caught.value.message
        # the tape holds Messages exchanges; a Chat request is told so in Chat's shape
        chat = openai.OpenAI(base_url=double.base_url("chat"), api_key="unused", max_retries=0)
        with pytest.raises(openai.BadRequestError) as caught:
            chat.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Hi"}])
        assert caught.value.code == "tape_mismatch" and caught.value.param == "path"
        assert "none with /v1/chat/completions" in caught.value.message


def test_the_ollama_client_gets_the_400_in_ollamas_shape(double, tmp_path, monkeypatch):
    ollama = pytest.importorskip("ollama")
    path, _ = recorded_run("ollama", double, tmp_path, monkeypatch)
    tape = Tape.load(path)
    with ApiDouble(tape=tape) as replaying:
        client = ollama.Client(host=replaying.url)
        with pytest.raises(ollama.ResponseError) as caught:
            client.chat(model="other-model", messages=tape.exchanges[0].request["messages"], stream=False)
        assert caught.value.status_code == 400
        assert f'model: the tape has "{tape.model}", this request has "other-model"' in caught.value.error


def test_requests_are_answered_in_order_retries_too_and_a_rerun_starts_again(make_double, tmp_path,
                                                                            monkeypatch):
    double = make_double()
    double.fail_next("rate_limit", retry_after=0.01)  # the SDK retries after 10 ms
    path, run = recorded_run("anthropic", double, tmp_path, monkeypatch)
    tape = Tape.load(path)
    assert [e.status for e in tape.exchanges] == [429, 200, 200]
    assert tape.exchanges[0].request == tape.exchanges[1].request
    with ApiDouble(tape=tape) as replaying:
        provider = get_provider("anthropic", base_url=replaying.url, max_retries=2)
        for _ in range(2):  # the second run replays from the start: a cell run again
            assert run_agent(provider, PARIS_QUESTION, tools=[get_weather],
                             system=SYSTEM_PROMPT).answer == run.answer
        assert [r.status for r in replaying.requests] == [429, 200, 200, 429, 200, 200]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_each_shipped_tape_replays_its_recorded_answer_through_the_real_sdk(name):
    tape = load(name)
    assert tape.label.startswith("recorded against the real ") and "github.com/" in tape.source
    run = run_agent(replay(name), tape.question, tools=tape.tools())
    assert run.answer == tape.answer and len(run.steps) == len(tape.exchanges)
    assert [step.turn.response for step in run.steps] == [e.response for e in tape.exchanges]


def test_the_shipped_tape_replays_claudes_real_answer_through_the_sdk():
    tape = load("anthropic_weather")
    assert tape.label.startswith("recorded against the real Anthropic Messages API")
    assert "github.com/anthropics/anthropic-sdk-python/blob/" in tape.source
    run = run_agent(replay("anthropic_weather"), tape.question, tools=tape.tools())
    assert run.answer == tape.answer == "The weather in SF is currently **20°C** (68°F) and **Sunny**!"
    assert run.usage.input_tokens == 597 + 705  # billed by the real API, replayed as billed
    assert run.transcript[1].tool_calls[0].id == "toolu_013DU6hV4C1M8dJ32ybQFAFi"


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_each_shipped_tape_is_what_its_source_builds(name):
    assert name in shipped()
    built = BUILDERS[name]()
    assert load(name) == built
    assert (TAPES / f"{name}.json").read_text(encoding="utf-8") == \
        json.dumps(built.to_dict(), indent=2, ensure_ascii=False) + "\n"


def test_no_shipped_tape_holds_anything_like_a_key():
    assert shipped()
    for path in TAPES.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert not KEYLIKE.search(text), path.name
        assert "shared/" not in text  # sources are public URLs


def test_the_format_round_trips_and_a_wrong_file_says_what_is_wrong(tmp_path):
    tape = load("anthropic_weather")
    assert Tape.from_dict(json.loads(json.dumps(tape.to_dict()))) == tape
    assert Tape.load(tape.save(tmp_path / "copy.json")) == tape
    assert (tmp_path / "copy.json").read_text(encoding="utf-8").endswith("}\n")
    assert repr(tape) == "Tape('anthropic', model='claude-haiku-4-5', exchanges=2)"
    (tmp_path / "old.json").write_text('{"format": 0}')
    with pytest.raises(UsageError, match="not a toolcall-lab tape of format 1"):
        Tape.load(tmp_path / "old.json")
    with pytest.raises(UsageError, match="no tape at .*shipped tapes: anthropic_weather"):
        load(tmp_path / "missing.json")


def test_first_difference_names_paths_in_the_recorded_order():
    assert first_difference({"a": 1, "b": [True]}, {"b": [True], "a": 1}) is None  # key order is free
    found = first_difference({"a": 1, "b": [True]}, {"a": 1, "b": [1]})
    assert (found.path, found.matched) == ("b[0]", 1)
    assert str(found) == "b[0]: the tape has true, this request has 1"
    assert str(first_difference({"a": 1}, {"a": 1, "z": None})) == \
        "z: the tape has nothing there, this request has null"
    assert str(first_difference([], {})) == "the body: the tape has [], this request has {}"


def test_record_needs_an_sdk_provider_and_a_double_takes_a_tape_or_a_policy():
    with pytest.raises(UsageError, match="record AnthropicProvider"):
        record(get_provider("scripted"))
    with pytest.raises(UsageError, match="either a tape or a policy"):
        ApiDouble(["Hi"], tape="anthropic_weather")
    assert Exchange("chat", "/v1/chat/completions", 200, "m", None, {}, {}).to_dict()["latency_ms"] is None


def test_a_replay_listens_nowhere_and_leaves_nothing_running(monkeypatch):
    """A replay's double is reached in-process, through its transport: no network socket is
    opened, no thread started, so there is nothing to stop when the provider goes."""
    import socket
    import threading

    real = socket.socket

    class NoNetwork(real):  # type: ignore[misc, valid-type]
        def __init__(self, family=-1, *args, **kwargs):
            if family in (-1, socket.AF_INET, socket.AF_INET6):
                raise AssertionError("a network socket was opened")
            super().__init__(family, *args, **kwargs)

    tape = load("anthropic_weather")
    before = set(threading.enumerate())
    monkeypatch.setattr(socket, "socket", NoNetwork)
    provider = replay(tape)
    assert run_agent(provider, tape.question, tools=tape.tools()).answer == tape.answer
    assert set(threading.enumerate()) == before and not ApiDouble.serving_at(provider.base_url)
    monkeypatch.undo()
    with ApiDouble() as served:  # serving_at still tells a started double's URL
        assert ApiDouble.serving_at(served.url) and not ApiDouble.serving_at(served.url + "0")


def test_serve_with_a_tape_that_is_not_there_says_so(capsys):
    from toolcall_lab.teacher.cli import main

    assert main(["serve", "--tape", "no-such.tape.json", "--port", "0"]) == 2
    assert "serve: no tape at 'no-such.tape.json'" in capsys.readouterr().err


@pytest.mark.slow
def test_serve_plays_a_tape_for_the_room_through_the_real_sdk():
    import subprocess
    import sys

    command = [sys.executable, "-m", "toolcall_lab", "serve", "--port", "0", "--tape", "openai_chat_color"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(11)]
        setting = next(line for line in lines if "replay it with" in line)
        base_url = re.search(r'base_url="([^"]+)"', setting).group(1)
        assert 'get_provider("openai-chat", ' in setting and "max_tokens=1024" in setting
        tape = load("openai_chat_color")
        provider = get_provider("openai-chat", base_url=base_url, model=tape.model)
        assert run_agent(provider, tape.question, tools=tape.tools()).answer == \
            "Your favorite color in February is chartreuse."
    finally:
        process.terminate()
        process.wait(timeout=10)



# -- issue 19, item 1: a class tape is never emptied, and a failed save says what it is -----------
REPLY = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
         "content": [{"type": "text", "text": "fine"}], "stop_reason": "end_turn", "stop_sequence": None,
         "usage": {"input_tokens": 5, "output_tokens": 2}}


def recording_against(server, path, monkeypatch):
    """What TOOLCALL_LAB_RECORD=path builds: a real provider (SDK retries on), saving after each exchange."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return recording(get_provider("anthropic", base_url=server.url, max_retries=2), path)


def test_a_reply_with_a_lone_surrogate_is_recorded_cleaned_and_empties_nothing(tmp_path, monkeypatch):
    path = tmp_path / "class.tape.json"
    with StubServer(reply=(200, REPLY)) as server:
        provider = recording_against(server, path, monkeypatch)
        run_agent(provider, "Lesson 1")
        first = path.stat().st_size
        server.reply = (200, json.dumps(REPLY).replace('"fine"', '"half an emoji \\ud83d"'))
        assert run_agent(provider, "Lesson 2").answer == "half an emoji \ufffd"
        assert len(server.requests) == 2, "each call sent once: nothing made the SDK retry"
    tape = Tape.load(path)
    assert path.stat().st_size > first and len(tape.exchanges) == 2
    assert tape.answer == "half an emoji \ufffd"


def full_disk(fd):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_save_that_fails_while_recording_is_a_tape_error_and_the_tape_keeps_its_lessons(tmp_path,
                                                                                          monkeypatch):
    path = tmp_path / "class.tape.json"
    with StubServer(reply=(200, REPLY)) as server:
        provider = recording_against(server, path, monkeypatch)
        run_agent(provider, "Lesson 1")
        before = path.read_bytes()
        with monkeypatch.context() as disk:
            disk.setattr(os, "fsync", full_disk)
            with pytest.raises(TapeError) as caught:
                run_agent(provider, "Lesson 2")
        message = str(caught.value)
        assert message.startswith(f"cannot save the tape at {str(path)!r} (No space left on device); "
                                  "the file there is as it was before; free some space")
        assert "nothing answers" not in message and "network" not in message
        assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [path.name]
        assert len(server.requests) == 2, "the failed save did not make the SDK send the request again"
        run_agent(provider, "Lesson 2")  # space again: this save writes every exchange, the unsaved one too
    assert [e.request["messages"][-1]["content"] for e in Tape.load(path).exchanges] == [
        [{"type": "text", "text": text}] for text in ("Lesson 1", "Lesson 2", "Lesson 2")]


def test_a_ctrl_c_during_a_save_leaves_the_tape_exactly_as_it_was(tmp_path, monkeypatch):
    path = load("anthropic_weather").save(tmp_path / "class.tape.json")
    before = path.read_bytes()

    def ctrl_c(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        load("openai_chat_color").save(path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_tape_built_in_code_with_a_lone_surrogate_still_saves(tmp_path):
    tape = load("anthropic_weather")
    odd = Exchange("anthropic", "/v1/messages", 200, "m", None, {"x": "a\ud83d"}, {"y": "\udc00"})
    saved = Tape.load(Tape(**{**vars(tape), "exchanges": (odd,)}).save(tmp_path / "odd.json"))
    assert (saved.exchanges[0].request, saved.exchanges[0].response) == ({"x": "a\ufffd"}, {"y": "\ufffd"})


# -- issue 19, item 13: a hostile tape is one TapeError naming the JSON path ----------------------
DELETE = object()


def edited(where, value):
    """The shipped Anthropic tape's document, with the value at `where` replaced (or deleted)."""
    document = load("anthropic_weather").to_dict()
    *parents, last = where
    target = document
    for key in parents:
        target = target[key]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return document


STATUS = r"exchanges\[1\]\.status must be a whole number from 200 to 599 \(not 204, 205 or 304.*\), got "
HOSTILE = [
    (("api",), "nope", r"api must be one of 'anthropic', 'responses', 'chat', 'ollama', got 'nope'"),
    (("provider",), "openai", r"provider must name a provider that speaks the tape's api 'anthropic' "
                              r"\(anthropic\), got 'openai'"),
    (("exchanges", 0, "request"), 5, r"exchanges\[0\]\.request must be a JSON object .*got a number: 5"),
    (("exchanges",), [], r"exchanges is empty; a tape holds at least one exchange"),
    (("exchanges",), {}, r"exchanges must be a list of exchanges, got a JSON object"),
    (("settings",), "abc", r"settings must be a JSON object \(the provider's options\), got a string: 'abc'"),
    (("settings",), {"base_url": "http://10.0.0.1"}, r"settings\.base_url is not an option a tape keeps"),
    (("settings", "max_tokens"), "1024", r"settings\.max_tokens must be a whole number of tokens"),
    (("settings", "max_tokens"), True, r"settings\.max_tokens must be a whole number .*got true/false"),
    (("exchanges", 1, "status"), "200", STATUS + "a string: '200'"),
    (("exchanges", 1, "status"), None, STATUS + "null"),
    (("exchanges", 1, "status"), 0, STATUS + "0"),
    (("exchanges", 1, "status"), -1, STATUS + "-1"),
    (("exchanges", 1, "status"), 10**6, STATUS + "1000000"),
    (("exchanges", 1, "status"), 204, STATUS + "204"),
    (("exchanges", 1, "status"), True, STATUS + "true/false"),
    (("exchanges", 0, "latency_ms"), -5, r"exchanges\[0\]\.latency_ms must be a whole number of milliseconds "
                                        r"or null, got -5"),
    (("exchanges", 0, "api"), "nope", r"exchanges\[0\]\.api must be one of 'anthropic'"),
    (("exchanges", 0, "model"), DELETE, r"exchanges\[0\]\.model is missing"),
    (("exchanges", 0, "headers"), {}, r"exchanges\[0\]\.headers is not a field of a tape"),
    (("label",), 5, r"label must be a string, got a number: 5"),
]


@pytest.mark.parametrize(("where", "value", "message"), HOSTILE)
def test_a_hostile_tape_is_one_tape_error_naming_the_json_path(where, value, message, tmp_path):
    path = tmp_path / "hostile.tape.json"
    path.write_text(json.dumps(edited(where, value)), encoding="utf-8")
    with pytest.raises(TapeError, match=message) as caught:
        Tape.load(path)
    assert str(caught.value).startswith("hostile.tape.json is not a tape this kit can play: ")
    assert str(caught.value).endswith("; record it again with toolcall_lab.tape.record, or mend that field.")
    with pytest.raises(TapeError):
        replay(path)  # the double is never started with it (settings: base_url was a TypeError here)


def test_a_tape_file_that_cannot_be_read_says_why(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(TapeError, match="deep.json nests lists or objects too deeply to read; it is not a "):
        Tape.load(tmp_path / "deep.json")
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(TapeError, match=r"cannot read the tape at .*folder\.json' \(Is a directory\); "
                                        "name a file, not a folder"):
        load(tmp_path / "folder.json")
    with pytest.raises(TapeError, match=r"\(File name too long\); pick a shorter name"):
        load(tmp_path / ("x" * 300 + ".json"))
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe")
    with pytest.raises(TapeError, match="binary.json is not valid JSON"):
        load(tmp_path / "binary.json")


# -- issue 19, item 11: the common token shapes never reach a tape -------------------------------
#: One made-up token of each shape (built here, so no token-shaped literal sits in the source).
TOKENS = {
    "GitHub": "gh" + "p_" + "A1b2C3d4E5f6" * 3,
    "GitHub fine-grained": "github" + "_pat_" + "11ABCDEFG0" * 3,
    "AWS": "AK" + "IA" + "IOSFODNN7EXAMPLE",
    "Hugging Face": "h" + "f_" + "aBcDeFgHiJ" * 3 + "kLmN",
    "Google": "AI" + "za" + "SyD-9tSrke72I6e0qOZVOtU5oBRBmBPUfhI",
    "Slack": "xo" + "xb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
}


def test_tokens_of_every_common_shape_are_redacted_before_they_reach_the_tape(make_double, monkeypatch):
    pasted = ", ".join(TOKENS.values())
    double = make_double([f"I saw {pasted}."])  # the model says them back
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai-chat", base_url=double.base_url("chat"))
    with record(provider) as recorder:
        run_agent(provider, f"Keep these safe: {pasted}")
    text = json.dumps(recorder.tape.to_dict())
    assert [name for name, token in TOKENS.items() if token in text] == []
    assert recorder.tape.answer == "I saw " + ", ".join(["[redacted]"] * len(TOKENS)) + "."
    assert "Keep these safe: " + ", ".join(["[redacted]"] * len(TOKENS)) in text


# -- issue 19, must show: mutated tapes and transcripts raise only the kit's errors ---------------
def _transcript_document():
    return Transcript(system="Be brief.", messages=[
        Message.user("What's the weather in Paris?"),
        Message.assistant(ReasoningBlock("think", "anthropic", opaque={"signature": "s"}),
                          ToolCall("toolu_1", "get_weather", {"city": "Paris"})),
        Message.results([ToolResult("toolu_1", "18°C", is_error=False)]),
        Message.assistant("Sunny.")]).to_dict()


DOCUMENTS = {"tape": load("anthropic_weather").to_dict(), "transcript": _transcript_document()}
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(10**7), 10**7), st.floats(),
                   st.sampled_from(["", "200", "\ud83d", "anthropic", "chat", "text", "user", "tool_call"]),
                   st.text(max_size=6))
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)




@st.composite
def mutated(draw, name):
    """The document `name` with 1-3 mutations: a value replaced, deleted, nested deep, or a key added."""
    document = copy.deepcopy(DOCUMENTS[name])
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(list(json_paths(document))))
        how = draw(st.sampled_from(["replace", "delete", "nest", "add"]))
        value = draw(VALUES)
        if not where:
            document = value if how == "replace" else [document] if how == "nest" else document
            continue
        parent = document
        for key in where[:-1]:
            parent = parent[key]
        old = parent[where[-1]]
        if how == "replace":
            parent[where[-1]] = value
        elif how == "delete":
            del parent[where[-1]]
        elif how == "nest":
            for _ in range(draw(st.sampled_from([1, 2, 150]))):
                old = [old]
            parent[where[-1]] = old
        elif isinstance(old, dict):
            old[draw(st.text(max_size=6))] = value
    return document


_FOLDER = tempfile.TemporaryDirectory(prefix="mutated-")  # removed when the test run ends
_FILES = Path(_FOLDER.name)


@settings(max_examples=examples(800))
@given(name=st.sampled_from(sorted(DOCUMENTS)), data=st.data())
def test_a_mutated_tape_or_transcript_raises_only_the_kits_errors(name, data):
    """Loaded from a file and read as a lesson reads it, a mutated document either works or
    raises a `ToolcallLabError`: never a raw KeyError, TypeError, RecursionError ..."""
    document = data.draw(mutated(name))
    path = _FILES / f"{name}.json"
    path.write_text(json.dumps(document), encoding="utf-8")  # ensure_ascii: a surrogate as "\\ud83d"
    try:
        if name == "tape":
            tape = Tape.load(path)
            repr(tape), tape.question, tape.system, tape.answer, [repr(t) for t in tape.tools()]
        else:
            transcript = Transcript.load(path)
            repr(transcript), transcript.to_json(), transcript.tool_calls(), transcript.last_user_text()
    except ToolcallLabError:
        pass
