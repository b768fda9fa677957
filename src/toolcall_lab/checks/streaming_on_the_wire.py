# mypy: disable-error-code="no-untyped-def, var-annotated"
# (the worked accumulator of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 21, "Streaming on the wire".

**The learner's accumulator.** The lesson asks for `accumulate(chunks)`: the tool calls of
a streamed Chat Completions reply, rebuilt from its chunks (each chunk the `data` JSON of
one server-sent event, as a dict), as a list of `(id, name, arguments)` in the order of
their `index`, `arguments` the JSON text the pieces join into. `your_accumulator` feeds it
`STREAMS`, real streams and what the wire allows (a whole call in one chunk, parallel calls
interleaved, two calls' pieces in one chunk, an empty first delta, a usage chunk with no
choices), then `QUIRKS`, which real servers send and the openai SDK's own accumulator gets
wrong (llama.cpp's id and name sent again in every piece, indexes that arrive out of
order), and names the first one it gets wrong. What is right for each stream is what the
kit's own `wire.chat.decode_stream` rebuilds there, listed by index, so the key holds no
answer of its own; an accumulator that hands the chunks to the kit's decoder, or to the
SDK's (`ChatCompletionStreamState`), is refused ("write it yourself"):

    >>> your_accumulator(accumulate)
    accumulate: correct.

Left out, as in the lesson: servers that bend the grammar further (an index repeated for
a new call, no index at all); the kit's decoder copes with those, and the lesson names them.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ..recorded import RECORDINGS
from ..selfcheck import check, equal, number, word
from ..stream import StreamFinished
from ..wire import _stream
from ..wire.chat.stream import decode_stream as chat_stream
from ._runs import raised as _raised
from ._runs import run_watching as _run_watching
from ._runs import template as _template

__all__ = ["EXERCISE_1_CHUNKS", "Q1_CHUNKS", "QUIRKS", "SOLUTIONS", "STREAMS", "accumulate", "exercise_1",
           "predict_run", "q1", "q2", "your_accumulator"]

_HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "local-model"}


def _chunk(delta: Mapping[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    """One Chat chunk whose first choice carries `delta` (None: the usage chunk, no choices)."""
    if delta is None:
        return {**_HEAD, "choices": [], "usage": {"prompt_tokens": 80, "completion_tokens": 20,
                                                   "total_tokens": 100}}
    return {**_HEAD, "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish}]}


def _piece(index: int, arguments: str, call_id: str = "", name: str = "") -> dict[str, Any]:
    """One `delta.tool_calls` entry: the first of a call has its id and name, the rest only arguments."""
    if call_id:
        return {"index": index, "id": call_id, "type": "function",
                "function": {"name": name, "arguments": arguments}}
    return {"index": index, "function": {"arguments": arguments}}


def _calls(*pieces: dict[str, Any]) -> dict[str, Any]:
    return _chunk({"tool_calls": list(pieces)})


#: Ollama's /v1 sends each call whole, in one chunk (`openai/openai.go`, `ToToolCalls`).
_WHOLE = [
    _chunk({"role": "assistant", "content": ""}),
    _calls(_piece(0, '{"city":"Paris"}', "call_p4r1s", "get_weather")),
    _calls(_piece(1, '{"city":"Tokyo"}', "call_t0ky0", "get_weather")),
    _chunk({}, "tool_calls"), _chunk()]
#: Two calls whose pieces alternate: the API's index says which call each piece belongs to.
_INTERLEAVED = [
    _chunk({"role": "assistant", "content": None}),
    _calls(_piece(0, "", "call_a", "get_weather")),
    _calls(_piece(1, "", "call_b", "get_time")),
    _calls(_piece(0, '{"city": ')), _calls(_piece(1, '{"zone": ')),
    _calls(_piece(0, '"Lima"}')), _calls(_piece(1, '"UTC"}')),
    _chunk({}, "tool_calls"), _chunk()]
#: An empty first delta (no role, no content), a call's first piece carrying arguments too,
#: and text before the call.
_EMPTY_FIRST = [
    _chunk({}), _chunk({"content": "Let me look."}),
    _calls(_piece(0, '{"ci', "call_x1", "get_weather")),
    _calls(_piece(0, 'ty": "Oslo"}')),
    _chunk({}, "tool_calls")]
#: Two calls opened in one chunk, then continued in one: `delta.tool_calls` is an array, and
#: nothing limits it to one entry.
_SIDE_BY_SIDE = [
    _chunk({"role": "assistant", "content": None}),
    _calls(_piece(0, "", "call_m1", "get_weather"), _piece(1, "", "call_m2", "get_time")),
    _calls(_piece(0, '{"city": "Rome"}'), _piece(1, '{"zone": "CET"}')),
    _chunk({}, "tool_calls"), _chunk()]
#: llama.cpp before ggml-org/llama.cpp#13800: every piece sends the call's id and name again
#: (each written as a call's first piece).
_REPEATED = [
    _chunk({"role": "assistant", "content": None}),
    _calls(_piece(0, "", "call_l1", "get_weather")),
    _calls(_piece(0, '{"city": ', "call_l1", "get_weather")),
    _calls(_piece(0, '"Lima"}', "call_l1", "get_weather")),
    _chunk({}, "tool_calls"), _chunk()]
#: Index 1 opens before index 0: the index, not the order of arrival, says which call is first.
_OUT_OF_ORDER = [
    _chunk({"role": "assistant", "content": None}),
    _calls(_piece(1, "", "call_o2", "get_time")),
    _calls(_piece(0, "", "call_o1", "get_weather")),
    _calls(_piece(1, '{"zone": "UTC"}')),
    _calls(_piece(0, '{"city": "Oslo"}')),
    _chunk({}, "tool_calls"), _chunk()]
#: A plain answer: no call at all.
_TEXT = [_chunk({"role": "assistant", "content": "It is"}), _chunk({"content": " 18°C."}),
         _chunk({}, "stop"), _chunk()]

#: What the check feeds an accumulator first, (what it is, the chunks): the openai SDK's own
#: accumulator rebuilds each of these as the kit does (tests/test_recorded.py).
STREAMS: tuple[tuple[str, list[dict[str, Any]]], ...] = (
    ("the recorded one-call stream", RECORDINGS["chat"].events()),
    ("the recorded two-call stream", RECORDINGS["chat_parallel"].events()),
    ("two whole calls, one chunk each (Ollama's /v1)", _WHOLE),
    ("two calls interleaved", _INTERLEAVED),
    ("an empty first delta, then text, then a call", _EMPTY_FIRST),
    ("two calls opened in one chunk, one delta.tool_calls array", _SIDE_BY_SIDE),
    ("a plain answer", _TEXT),
)
#: Then these: what real servers send that the openai SDK's own accumulator gets wrong.
QUIRKS: tuple[tuple[str, list[dict[str, Any]]], ...] = (
    ("llama.cpp's stream, whose every piece sends the id and name again", _REPEATED),
    ("two calls whose indexes arrive out of order (index 1 first)", _OUT_OF_ORDER),
)


# -- the worked accumulator ---------------------------------------------------------------------
def accumulate(chunks):
    """The tool calls in a streamed Chat reply: [(id, name, arguments)]."""
    calls = {}
    for chunk in chunks:
        for choice in chunk.get("choices", [])[:1]:
            for piece in choice.get("delta", {}).get("tool_calls") or []:
                call = calls.setdefault(
                    piece["index"], {"id": "", "name": "", "arguments": ""})
                function = piece.get("function") or {}
                call["id"] = piece.get("id") or call["id"]
                call["name"] = function.get("name") or call["name"]
                call["arguments"] += function.get("arguments") or ""
    return [(c["id"], c["name"], c["arguments"])
            for _, c in sorted(calls.items())]


# -- what the key expects, from the kit's decoder -------------------------------------------------
def _expected(chunks: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, Any]]:
    """(id, name, arguments as an object) of each call, as the kit's Chat decoder rebuilds them,
    in the order of the index each call opened at."""
    finished = [e for e in chat_stream(chunks) if isinstance(e, StreamFinished)]
    opened = _opening_indexes(chunks)
    calls = [(c.id, c.name, dict(c.args)) for c in finished[0].turn.tool_calls]
    # subtle: the decoder lists calls as they begin; the lesson asks for index order (stable for
    # a reused index, where two calls open at one)
    return sorted(calls, key=lambda call: opened.get(call[0], 0))


def _opening_indexes(chunks: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Each call id -> the index of the first piece that carried it."""
    opened: dict[str, int] = {}
    for chunk in chunks:
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) == 0:
                for piece in (choice.get("delta") or {}).get("tool_calls") or ():
                    if piece.get("id"):
                        opened.setdefault(piece["id"], piece.get("index") or 0)
    return opened


def _wrong_on(what: str, got: Any, chunks: Sequence[Mapping[str, Any]]) -> str | None:
    if isinstance(got, (str, Mapping)) or not isinstance(got, Sequence):
        return (f"on {what}, it returned a {type(got).__name__}; return a list of (id, name, "
                "arguments), one per call, in index order")
    expected = _expected(chunks)
    if len(got) != len(expected):
        return f"on {what}, it found {len(got)} call(s) where the reply holds {len(expected)}"
    if any(isinstance(call, str) or not isinstance(call, Sequence) or len(call) != 3 for call in got):
        shape = next(c for c in got if isinstance(c, str) or not isinstance(c, Sequence) or len(c) != 3)
        return f"on {what}, one call is {shape!r}; give each call as (id, name, arguments)"
    ids, expected_ids = [call[0] for call in got], [call_id for call_id, _, _ in expected]
    if ids != expected_ids and sorted(map(str, ids)) == sorted(expected_ids):
        return (f"on {what}, the calls come as {ids}: in the order they arrived; list them by their "
                "index")
    for number_, (call, (call_id, name, arguments)) in enumerate(zip(got, expected, strict=True), 1):
        again = _sent_again(call[0], call_id) or _sent_again(call[1], name)
        if again:
            return f"on {what}, call {number_} {again}"
        if call[0] != call_id:
            return (f"on {what}, call {number_} has id {call[0]!r}; ids are compared exactly, and the "
                    "chunk that opens a call carries it")
        if call[1] != name:
            return f"on {what}, call {number_} is named {call[1]!r}"
        if not isinstance(call[2], str):
            return (f"on {what}, call {number_}'s arguments are a {type(call[2]).__name__}; keep them as "
                    "the JSON text the pieces join into")
        try:
            parsed = json.loads(call[2])
        except ValueError:
            return f"on {what}, call {number_}'s arguments {call[2][:40]!r} are not JSON: pieces are missing"
        if parsed != arguments:
            return f"on {what}, call {number_}'s arguments read {parsed!r}"
    return None


def _sent_again(got: Any, once: str) -> str | None:
    """What is wrong when `got` is `once` joined to itself ("call_1call_1"), else None."""
    if isinstance(got, str) and once and got != once and got == once * (len(got) // len(once)):
        return (f"reads {got!r}: an id or name a later piece sends again is the same one, not more of "
                "it; keep it once")
    return None


def _ready_made() -> tuple[Any, ...]:
    """The accumulators an answer must not hand the chunks to: the kit's, and the openai SDK's
    when it is loaded (`ChatCompletionStreamState.handle_chunk` and the `accumulate_delta` under it)."""
    # subtle: read from sys.modules, not imported: an SDK not loaded cannot be running, and the
    # check stays as light as the lesson; a function that imports it is caught from the next stream on
    deltas = sys.modules.get("openai.lib.streaming._deltas")
    chat = sys.modules.get("openai.lib.streaming.chat._completions")
    state = getattr(chat, "ChatCompletionStreamState", None)
    found = (getattr(deltas, "accumulate_delta", None), getattr(state, "handle_chunk", None))
    return (_stream.decode, *(each for each in found if callable(each)))


def _wrong_accumulator(function: Any) -> str | None:
    if not callable(function) or isinstance(function, type):
        return f"expected the function itself (accumulate, without brackets), got {type(function).__name__}"
    for label, chunks in (*STREAMS, *QUIRKS):
        copied = json.loads(json.dumps(chunks))  # subtle: a learner's code may change what it reads
        try:
            got, leaned = _run_watching(_ready_made(), function, copied)
        except Exception as exc:
            return f"on {label}, it raised {_raised(exc)}"
        if leaned:
            return ("it hands the chunks to a ready-made accumulator (the kit's decode_stream, or the "
                    "openai SDK's stream helper): write it yourself, from the chunks' delta.tool_calls")
        found = _wrong_on(label, got, chunks)
        if found:
            return found
    return None


def your_accumulator(answer: Any) -> None:
    """Your accumulate, over the streams of `STREAMS`, then `QUIRKS`."""
    check("accumulate", ... if _template(answer) else answer, _wrong_accumulator,
          hint="print that stream's chunks' delta.tool_calls, one line each, and follow each index "
               "from its first chunk to the last")


# -- predictions ----------------------------------------------------------------------------------
_WHEN = ("started", "parses", "finished", "done")
_WIRES = ("anthropic", "responses", "chat", "ollama")


def predict_run(answer: Any) -> None:
    """When a program may run a streamed call: only once the whole reply is done."""
    check("Prediction", answer, word("done", _WHEN),
          hint="a stream can still break off after a call's block is finished; what does the "
               "transcript hold then?",
          why="Until the reply's end event, the stream may still break off (lesson 22).")


# -- check yourself -------------------------------------------------------------------------------
#: Q1's stream: an OpenAI-compatible server's two calls, their pieces interleaved.
Q1_CHUNKS = [
    _chunk({"role": "assistant", "content": None}),
    _calls(_piece(0, '{"ci', "call_q0", "get_weather")),
    _calls(_piece(1, '{"ci', "call_q1", "get_weather")),
    _calls(_piece(1, 'ty": "Rome"}')),
    _calls(_piece(0, 'ty": "Nairobi"}')),
    _chunk({}, "tool_calls")]


def q1(answer: Any) -> None:
    """The arguments of the call whose id is call_q1, as a dict."""
    calls = {call_id: arguments for call_id, _, arguments in _expected(Q1_CHUNKS)}
    check("Q1", answer, equal(calls["call_q1"]),
          hint="call_q1 opens at one index; follow that index, not the order of the chunks")


def q2(answer: Any) -> None:
    """The wire whose recorded call arrives whole, so a UI has no partial arguments to show."""
    whole = [name for name in _WIRES
             if sum(1 for e in _events_of(name) if e.kind == "arguments_delta") == 1]
    check("Q2", answer, word(whole[0], _WIRES),
          hint="play each wire in the player and count the argument pieces")


def _events_of(name: str) -> list[Any]:
    from ..wire import decode_stream

    recording = RECORDINGS[name]
    return list(decode_stream(recording.events(), api=recording.api))


#: Exercise 1's stream: litellm's Ollama translator put index 0 on every call (BerriAI/litellm#33678).
EXERCISE_1_CHUNKS = [
    _chunk({"role": "assistant", "content": None}),
    _calls(_piece(0, '{"city": "Paris"}', "call_e1", "get_weather")),
    _calls(_piece(0, '{"city": "Lima"}', "call_e2", "get_weather")),
    _chunk({}, "tool_calls")]


def exercise_1(answer: Any) -> None:
    """How many calls the reply really holds (two: two ids, one index)."""
    check("Exercise 1", answer, number(len(_expected(EXERCISE_1_CHUNKS))),
          hint="count the ids, not the indexes")


SOLUTIONS: dict[str, str] = {
    "accumulate": inspect.getsource(accumulate),
    "predict_run": '"done"',
    "q1": '{"city": "Rome"}',
    "q2": '"ollama"',
    "exercise_1": "2",
}
