"""Lesson 21's wrong answers: Chat accumulators that each break on one thing real streams do,
the shortcuts, and the predictions' and questions' plausible slips."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab.checks import streaming_on_the_wire as key
from toolcall_lab.checks.streaming_on_the_wire import accumulate


def _pieces(chunk):
    choices = chunk.get("choices") or [{}]
    return choices[0].get("delta", {}).get("tool_calls") or []


def ignores_index(chunks):
    """Every piece into one call: parallel calls melt into one."""
    call = {"id": "", "name": "", "arguments": ""}
    for chunk in chunks:
        for piece in _pieces(chunk):
            call["id"] = call["id"] or piece.get("id", "")
            call["name"] = call["name"] or piece.get("function", {}).get("name", "")
            call["arguments"] += piece.get("function", {}).get("arguments") or ""
    return [(call["id"], call["name"], call["arguments"])] if call["id"] else []


def keeps_the_last_fragment(chunks):
    """Replaces the arguments with each new piece instead of joining them."""
    calls = {}
    for chunk in chunks:
        for piece in _pieces(chunk):
            call = calls.setdefault(piece["index"], {"id": "", "name": "", "arguments": ""})
            call["id"] = piece.get("id") or call["id"]
            call["name"] = piece.get("function", {}).get("name") or call["name"]
            call["arguments"] = piece.get("function", {}).get("arguments") or call["arguments"]
    return [(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())]


def expects_an_id_on_every_chunk(chunks):
    """Reads piece["id"] on every piece: the second piece of a call has none."""
    calls = {}
    for chunk in chunks:
        for piece in _pieces(chunk):
            call = calls.setdefault(piece["id"], [piece["function"].get("name"), ""])
            call[1] += piece["function"].get("arguments") or ""
    return [(call_id, name, arguments) for call_id, (name, arguments) in calls.items()]


def keyed_by_id(chunks):
    """Joins pieces by id: later pieces carry none, so they pile up under None."""
    calls = {}
    for chunk in chunks:
        for piece in _pieces(chunk):
            call = calls.setdefault(piece.get("id"), {"name": "", "arguments": ""})
            call["name"] = piece.get("function", {}).get("name") or call["name"]
            call["arguments"] += piece.get("function", {}).get("arguments") or ""
    return [(call_id, c["name"], c["arguments"]) for call_id, c in calls.items() if call_id]


def reads_choices_zero(chunks):
    """chunk["choices"][0] on every chunk: the usage chunk has no choices."""
    calls = {}
    for chunk in chunks:
        for piece in chunk["choices"][0]["delta"].get("tool_calls") or []:
            call = calls.setdefault(piece["index"], {"id": "", "name": "", "arguments": ""})
            call["id"] = piece.get("id") or call["id"]
            call["name"] = piece.get("function", {}).get("name") or call["name"]
            call["arguments"] += piece.get("function", {}).get("arguments") or ""
    return [(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())]


def opens_on_the_first_chunk(chunks):
    """Takes the id and name from the stream's first chunk: an empty first delta has neither."""
    first = _pieces(chunks[0])
    if not first:
        return []
    found = accumulate(chunks)
    return found


def skips_the_first_pieces_arguments(chunks):
    """Treats a call's first piece as id and name only: a whole call in one chunk loses its arguments."""
    calls = {}
    for chunk in chunks:
        for piece in _pieces(chunk):
            function = piece.get("function") or {}
            if piece.get("id"):
                calls[piece["index"]] = {"id": piece["id"], "name": function.get("name"), "arguments": ""}
            else:
                calls[piece["index"]]["arguments"] += function.get("arguments") or ""
    return [(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())]


def follows_the_last_call(chunks):
    """Adds each argument piece to the call opened last: interleaved calls get each other's pieces."""
    calls = []
    for chunk in chunks:
        for piece in _pieces(chunk):
            function = piece.get("function") or {}
            if piece.get("id"):
                calls.append([piece["id"], function.get("name"), ""])
            calls[-1][2] += function.get("arguments") or ""
    return [tuple(call) for call in calls]


def reads_the_role_first(chunks):
    """Checks the first delta's role before anything else: an empty first delta has none."""
    if chunks[0]["choices"][0]["delta"]["role"] != "assistant":
        return []
    return accumulate(chunks)


def arguments_as_objects(chunks):
    """Returns the arguments parsed into dicts, not the JSON text the lesson asks for."""
    import json

    return [(call_id, name, json.loads(arguments)) for call_id, name, arguments in accumulate(chunks)]


def a_dict_by_index(chunks):
    """Returns the calls as a dict keyed by index instead of a list."""
    return dict(enumerate(accumulate(chunks)))


def wraps_the_kit(chunks):
    """Hands the chunks to the kit's decoder: refused with "write it yourself"."""
    from toolcall_lab import wire

    turn = list(wire.decode_stream(chunks, api="chat"))[-1].turn
    import json

    return [(c.id, c.name, json.dumps(dict(c.args))) for c in turn.tool_calls]


def the_sdks_accumulator(chunks):
    """The openai SDK's own stream helper, fed the chunks: refused with "write it yourself"."""
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    message = state.current_completion_snapshot.choices[0].message
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]


def _gathered(chunks, *, pieces=_pieces, joined=False):
    """The calls a stream's pieces build, by index: id and name kept once seen (or, `joined`, joined
    like the arguments), the arguments joined."""
    calls = {}
    for chunk in chunks:
        for piece in pieces(chunk):
            call = calls.setdefault(piece["index"], {"id": "", "name": "", "arguments": ""})
            for field, said in (("id", piece.get("id")), ("name", piece.get("function", {}).get("name"))):
                call[field] = call[field] + (said or "") if joined else said or call[field]
            call["arguments"] += piece.get("function", {}).get("arguments") or ""
    return calls


def _by_index(calls):
    return [(c["id"], c["name"], c["arguments"]) for _, c in sorted(calls.items())]


def reads_the_first_entry_only(chunks):
    """delta.tool_calls[0] on every chunk: a chunk carrying two calls' pieces loses the second."""
    return _by_index(_gathered(chunks, pieces=lambda chunk: _pieces(chunk)[:1]))


def joins_every_field(chunks):
    """Joins id and name as it joins the arguments: llama.cpp's pieces each send them again."""
    return _by_index(_gathered(chunks, joined=True))


def in_order_of_arrival(chunks):
    """Keyed by index, but listed in the order the calls first appeared, not by their index."""
    return [(c["id"], c["name"], c["arguments"]) for c in _gathered(chunks).values()]


ROWS = [
    Row("21 your_accumulator", key.your_accumulator, (), lambda: accumulate,
        (lambda: ignores_index, lambda: keeps_the_last_fragment, lambda: expects_an_id_on_every_chunk,
         lambda: keyed_by_id, lambda: reads_choices_zero, lambda: opens_on_the_first_chunk,
         lambda: skips_the_first_pieces_arguments, lambda: follows_the_last_call,
         lambda: reads_the_role_first, lambda: arguments_as_objects,
         lambda: a_dict_by_index, lambda: wraps_the_kit, lambda: "accumulate",
         lambda: the_sdks_accumulator, lambda: reads_the_first_entry_only, lambda: joins_every_field,
         lambda: in_order_of_arrival)),
    Row("21 predict_run", key.predict_run, (), lambda: "done",
        (lambda: "finished", lambda: "parses", lambda: "started", lambda: "done!", lambda: True)),
    Row("21 q1", key.q1, (), lambda: {"city": "Rome"},
        (lambda: {"city": "Nairobi"}, lambda: '{"city": "Rome"}', lambda: "Rome",
         lambda: {"City": "Rome"}, lambda: {"city": "rome"})),
    Row("21 q2", key.q2, (), lambda: "ollama",
        (lambda: "chat", lambda: "anthropic", lambda: "responses", lambda: "Ollama's /v1", lambda: 4)),
    Row("21 exercise_1", key.exercise_1, (), lambda: 2, (lambda: 1, lambda: "2", lambda: 0, lambda: 2.5)),
]
