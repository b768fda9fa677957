"""Issue 9: nothing lost, every bad input a clear error.

Saving never destroys the previous file, loading a bad document names the JSON path that
is wrong, whatever interrupts `run_agent` leaves a transcript the next call accepts, and
no tool problem escapes `execute`.
"""

import json
import math
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from toolcall_lab import (
    Message,
    ScriptedProvider,
    TextBlock,
    Tool,
    ToolCall,
    ToolcallLabError,
    ToolResult,
    Transcript,
    TranscriptFormatError,
    call,
    run_agent,
    tool,
)
from toolcall_lab.tool import execute, tool_map
from toolcall_lab.tools import get_weather

# -- 1. saving is atomic; lone surrogates become U+FFFD where text enters ---------------------


def test_lone_surrogate_becomes_replacement_character_when_a_block_is_built():
    assert TextBlock("x\ud83dy").text == "x\ufffdy"
    assert ToolResult("t1", "a\udc00").content == "a\ufffd"
    assert ToolCall("t1", "f", {"k\ud83d": ["v\ud83d", {"n": "\ud83d"}]}).args == {
        "k\ufffd": ["v\ufffd", {"n": "\ufffd"}]}
    assert TextBlock("a proper pair: \ud83d\ude00").text == "a proper pair: \U0001f600"


def test_lone_surrogate_in_a_loaded_transcript_is_replaced():
    text = Transcript(messages=[Message.user("hi")]).to_json().replace('"hi"', '"x\\ud83dy"')
    loaded = Transcript.from_json(text)
    assert loaded[0].text == "x\ufffdy"
    loaded[0].text.encode("utf-8")  # what every provider call does with the text


def test_save_with_a_surrogate_succeeds(tmp_path):
    path = tmp_path / "t.json"
    Transcript(messages=[Message.user("x\ud83dy")]).save(path)
    assert Transcript.load(path)[0].text == "x\ufffdy"


def test_failed_save_leaves_the_previous_file_exactly_as_it_was(tmp_path):
    path = tmp_path / "t.json"
    Transcript(messages=[Message.user("first")]).save(path)
    before = path.read_bytes()
    broken = Transcript(system="sys\ud83d", messages=[Message.assistant(
        ToolCall("t1", "f", {"x": math.nan}))])
    with pytest.raises(TranscriptFormatError, match=r"messages\[0\]\.blocks\[0\]\.args\.x"):
        broken.save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]  # no temporary file left


def test_infinity_is_refused_not_written_as_bare_json(tmp_path):
    t = Transcript(messages=[Message.assistant(ToolCall("t1", "f", {"x": [1, math.inf]}))])
    with pytest.raises(TranscriptFormatError, match=r"args\.x\[1\].*inf"):
        t.to_json()


# -- issue 19, item 10: one writer for every file the kit saves ------------------------------
def _save_transcript(path):
    return Transcript(messages=[Message.user("saved")]).save(path)


def _save_tape(path):
    from toolcall_lab.tape import load

    return load("anthropic_weather").save(path)


SAVERS = {"transcript": _save_transcript, "tape": _save_tape}


@pytest.fixture
def umask():
    """Set the process umask for one test (`umask(0o077)`), and put the old one back after it."""
    import os

    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("save", SAVERS.values(), ids=SAVERS.keys())
def test_a_new_file_gets_the_mode_the_umask_leaves_and_an_old_one_keeps_its_own(save, tmp_path, umask):
    umask(0o077)  # a shared hub where other users must not read your files
    assert save(tmp_path / "private.json").stat().st_mode & 0o777 == 0o600
    umask(0o022)
    assert save(tmp_path / "public.json").stat().st_mode & 0o777 == 0o644
    (tmp_path / "private.json").chmod(0o640)
    assert save(tmp_path / "private.json").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("save", SAVERS.values(), ids=SAVERS.keys())
def test_a_name_as_long_as_the_folder_allows_saves_and_leaves_no_temporary_file(save, tmp_path):
    name = "a" * 250 + ".json"  # 255 bytes: the longest name most file systems take
    assert save(tmp_path / name).name == name
    assert [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("save", SAVERS.values(), ids=SAVERS.keys())
def test_saving_through_a_link_writes_its_target_and_keeps_the_link(save, tmp_path):
    target = tmp_path / "real" / "kept.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    save(link)
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text(encoding="utf-8").startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real"]


@pytest.mark.parametrize(("save", "error"), [(_save_transcript, TranscriptFormatError),
                                             (_save_tape, ToolcallLabError)], ids=SAVERS.keys())
def test_a_full_disk_is_one_error_and_the_file_stays_as_it_was(save, error, tmp_path, monkeypatch):
    import errno
    import os

    path = save(tmp_path / "kept.json")
    before = path.read_bytes()

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(error, match=r"cannot save the \w+ at .*kept\.json' \(No space left on device\); "
                                    r"the file there is as it was before; free some space"):
        save(path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["kept.json"]


def test_saving_into_a_folder_that_is_not_there_or_onto_a_folder_says_so(tmp_path):
    with pytest.raises(TranscriptFormatError, match=r"\(No such file or directory\); create the folder"):
        _save_transcript(tmp_path / "missing" / "t.json")
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(TranscriptFormatError, match=r"\(Is a directory\); name a file, not a folder"):
        _save_transcript(tmp_path / "folder.json")
    assert [p.name for p in tmp_path.iterdir()] == ["folder.json"]


def test_loading_a_file_that_is_not_there_or_is_a_folder_is_a_format_error(tmp_path):
    with pytest.raises(TranscriptFormatError, match=r"no transcript at .*gone\.json'; check the path"):
        Transcript.load(tmp_path / "gone.json")
    with pytest.raises(TranscriptFormatError, match=r"\(Is a directory\); name a file, not a folder"):
        Transcript.load(tmp_path)


def test_the_kit_writes_files_in_one_place_only():
    """Every save goes through `_files.save_atomically`: no other module writes a file itself."""
    import re
    from pathlib import Path

    import toolcall_lab

    writes = re.compile(r"\.write_(?:text|bytes)\(|\bmkstemp\(|\bos\.replace\(|open\([^)]*['\"][wax]b?['\"]")
    source = Path(toolcall_lab.__file__).parent
    found = [f"{path.relative_to(source)}:{number}" for path in sorted(source.rglob("*.py"))
             if path.name != "_files.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if writes.search(line) and not line.lstrip().startswith(("#", ">>>"))]
    assert found == []


# -- 2. loading validates, with the JSON path and what was expected ---------------------------

def good_document():
    t = Transcript(system="s", messages=[
        Message.user("hi"), Message.assistant(ToolCall("t1", "get_weather", {"city": "Paris"})),
        Message.results([ToolResult("t1", "18")])])
    return json.loads(t.to_json())


def edit(path_and_value):
    doc = good_document()
    *where, last = path_and_value[0]
    target = doc
    for key in where:
        target = target[key]
    if path_and_value[1] is DELETE:
        del target[last]
    else:
        target[last] = path_and_value[1]
    return doc


DELETE = object()

BAD_DOCUMENTS = [
    (("messages", 0, "role"), DELETE, r"messages\[0\]\.role.*missing"),
    (("messages", 0, "blocks"), 5, r"messages\[0\]\.blocks must be a list.*5"),
    (("messages", 1, "blocks", 0, "args"), "city=Paris", r"messages\[1\]\.blocks\[0\]\.args.*object"),
    (("messages", 0, "blocks", 0, "text"), 5, r"messages\[0\]\.blocks\[0\]\.text.*string"),
    (("messages", 2, "blocks", 0, "content"), {}, r"messages\[2\]\.blocks\[0\]\.content.*string"),
    (("messages", 2, "blocks", 0, "is_error"), "no", r"is_error.*true or false"),
    (("messages", 0, "created_at"), "yesterday", r"messages\[0\]\.created_at.*ISO"),
    (("messages", 0, "blocks", 0, "kind"), "image", r"messages\[0\]\.blocks\[0\]\.kind.*image"),
    (("messages", 0, "role"), "system", r"messages\[0\]\.role must be .user. or .assistant., got .system."),
    (("messages",), {}, r"messages.*list"),
    (("system",), 3, r"system.*string"),
]


@pytest.mark.parametrize(("where", "value", "message"), BAD_DOCUMENTS)
def test_bad_document_is_one_clear_error_naming_the_path(where, value, message):
    with pytest.raises(TranscriptFormatError, match=message):
        Transcript.from_dict(edit((where, value)))


def test_a_top_level_list_is_a_format_error():
    with pytest.raises(TranscriptFormatError, match="JSON object"):
        Transcript.from_json("[]")


def test_deep_nesting_is_a_format_error_not_a_recursion_error():
    text = json.dumps(good_document()).replace('{"city": "Paris"}', '{"a": ' * 500 + '1' + '}' * 500)
    with pytest.raises(TranscriptFormatError, match=r"messages\[1\]\.blocks\[0\].*args.*deep"):
        Transcript.from_json(text)
    with pytest.raises(TranscriptFormatError, match="deep"):
        Transcript.from_json("[" * 100_000 + "]" * 100_000)


def test_invalid_json_is_a_format_error():
    with pytest.raises(TranscriptFormatError, match="not valid JSON"):
        Transcript.from_json('{"format": ')


def test_format_error_is_a_value_error_and_a_kit_error():
    from toolcall_lab import ToolcallLabError

    assert issubclass(TranscriptFormatError, ValueError)
    assert issubclass(TranscriptFormatError, ToolcallLabError)


def test_good_document_still_round_trips():
    doc = good_document()
    assert Transcript.from_dict(doc).to_dict() == doc


# A load reads each block and message the quick way first (plain type tests, no JSON path
# built, issue 20's 200,000-message goal) and falls back to the checked way on anything
# unusual: the two must agree on every document, the errors included.
_DEEP: dict = {}
_node = _DEEP
for _ in range(120):
    _node["a"] = {}
    _node = _node["a"]
VALUES = ["x", "", "18°C", "a\ud83d", 0, 1.5, True, False, None, [], {}, {"city": "Paris"}, _DEEP, DELETE]
BLOCK_FIELDS = ["kind", "text", "id", "name", "args", "raw_args", "call_id", "content", "is_error",
                "provider", "model", "opaque"]
KINDS = ["text", "tool_call", "tool_result", "reasoning", "server_tool_call", "server_tool_result", "image"]


def outcome(read, data):
    try:
        return ("read", read(data))
    except Exception as exc:  # the outcome, whatever it is, is what is compared
        return ("raised", type(exc), str(exc))


VALID_BLOCKS = [{"kind": "text", "text": "Hi"},
                {"kind": "tool_call", "id": "t1", "name": "f", "args": {"city": "Paris"}},
                {"kind": "tool_call", "id": "t1", "name": "f", "args": {}, "raw_args": "{\"city"},
                {"kind": "tool_result", "call_id": "t1", "content": "18°C", "is_error": False},
                {"kind": "reasoning", "text": "hm", "provider": "anthropic", "model": None,
                 "opaque": {"signature": "s"}},
                {"kind": "server_tool_call", "id": "s1", "name": "web_search", "args": {"query": "q"},
                 "provider": "anthropic", "opaque": {}}]
VALID_MESSAGE = {"id": "msg_1", "role": "assistant", "created_at": "2026-12-01T12:00:00+00:00",
                 "synthetic": False, "blocks": [VALID_BLOCKS[0]]}


def changed(base, key, value):
    return {k: v for k, v in {**base, key: value}.items() if v is not DELETE}


def block_documents():
    changes = st.dictionaries(st.sampled_from(BLOCK_FIELDS), st.sampled_from(VALUES + KINDS), max_size=3)
    return st.builds(lambda base, change: {k: v for k, v in {**base, **change}.items() if v is not DELETE},
                     st.sampled_from(VALID_BLOCKS), changes)


def test_the_quick_and_the_checked_reading_agree_on_every_one_field_change():
    from toolcall_lab.blocks import _checked_block, block_from_dict
    from toolcall_lab.messages import _checked_message

    for base in VALID_BLOCKS:
        for key in [*base, "raw_args", "is_error"]:
            for value in VALUES + KINDS:
                data = changed(base, key, value)
                assert outcome(block_from_dict, data) == outcome(lambda d: _checked_block(d, "block"), data)
    for key in [*VALID_MESSAGE, "unknown"]:
        for value in [*VALUES, VALID_BLOCKS, [VALID_BLOCKS[3]], ["x"]]:
            data = changed(VALID_MESSAGE, key, value)
            assert outcome(Message.from_dict, data) == outcome(
                lambda d: _checked_message(Message, d, "message"), data), data


@settings(max_examples=examples(300))
@given(block_documents())
def test_the_quick_and_the_checked_reading_of_a_block_agree(data):
    from toolcall_lab.blocks import _checked_block, block_from_dict, loaded_block

    checked = outcome(lambda d: _checked_block(d, "block"), data)
    assert outcome(block_from_dict, data) == checked
    if loaded_block(data) is not None:
        assert checked == ("read", loaded_block(data))


MESSAGE_VALUES = {"role": ["user", "assistant", "system", 5, None, DELETE],
                  "created_at": ["2026-12-01T12:00:00+00:00", "yesterday", 5, DELETE],
                  "id": ["msg_1", 5, None, DELETE], "synthetic": [True, False, 0, None, DELETE]}


def message_documents():
    base = {k: v for k, v in VALID_MESSAGE.items() if k != "blocks"}
    changes = st.fixed_dictionaries({}, optional={key: st.sampled_from(values)
                                                  for key, values in MESSAGE_VALUES.items()})
    blocks = st.one_of(st.lists(block_documents(), max_size=2), st.sampled_from(VALUES))
    return st.builds(lambda change, items: {k: v for k, v in {**base, **change, "blocks": items}.items()
                                            if v is not DELETE}, changes, blocks)


@settings(max_examples=examples(300))
@given(message_documents())
def test_the_quick_and_the_checked_reading_of_a_message_agree(data):
    from toolcall_lab.messages import _checked_message

    checked = outcome(lambda d: _checked_message(Message, d, "message"), data)
    assert outcome(Message.from_dict, data) == checked


def test_a_load_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    import gc

    doc = good_document()
    assert gc.isenabled()
    Transcript.from_dict(doc)
    assert gc.isenabled()
    with pytest.raises(TranscriptFormatError):
        Transcript.from_dict(edit((("messages", 0, "role"), "system")))
    assert gc.isenabled()
    gc.disable()
    try:
        Transcript.from_dict(doc)
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- 3. whatever interrupts run_agent, the transcript stays usable -------------------------


def interrupt_on_call(transcript, tools):
    raise KeyboardInterrupt


def test_ctrl_c_during_the_first_call_removes_the_prompt():
    transcript = Transcript(messages=[Message.user("earlier"), Message.assistant("ok")])
    with pytest.raises(KeyboardInterrupt):
        run_agent(ScriptedProvider(interrupt_on_call), "Hi", transcript=transcript)
    assert [m.text for m in transcript] == ["earlier", "ok"]


@pytest.mark.parametrize("max_steps", [0, -1, 1.5, "3", True, None])
def test_bad_max_steps_touches_nothing(max_steps):
    transcript = Transcript()
    with pytest.raises((ValueError, TypeError), match="max_steps"):
        run_agent(ScriptedProvider(["x"]), "Hi", transcript=transcript, max_steps=max_steps)
    assert len(transcript) == 0


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"prompt": 5}, "prompt"), ({"on_event": "print"}, "on_event"),
    ({"tools": [get_weather, "calculator"]}, "Tool"), ({"system": 3}, "system"),
])
def test_bad_arguments_touch_nothing(kwargs, match):
    transcript = Transcript(messages=[Message.user("earlier"), Message.assistant("ok")])
    kwargs = {"prompt": "Hi", **kwargs}
    if "system" in kwargs:
        transcript = None
    with pytest.raises((ValueError, TypeError), match=match):
        run_agent(ScriptedProvider(["x"]), kwargs.pop("prompt"), transcript=transcript, **kwargs)
    if transcript is not None:
        assert [m.text for m in transcript] == ["earlier", "ok"]


def test_a_raising_on_event_leaves_the_transcript_as_it_was():
    def boom(event):
        raise RuntimeError("callback broke")

    transcript = Transcript()
    with pytest.raises(RuntimeError, match="callback broke"):
        run_agent(ScriptedProvider(["x"]), "Hi", transcript=transcript, on_event=boom)
    assert len(transcript) == 0


def test_ctrl_c_inside_a_tool_answers_the_calls_and_a_retry_works():
    calls = []

    @tool
    def slow(city: str) -> str:
        """Look something up.

        Args:
            city: the city
        """
        calls.append(city)
        if city == "Rome":
            raise KeyboardInterrupt
        return "fine"

    def policy(transcript, tools):
        if not transcript.tool_results():
            return [call("slow", city="Paris"), call("slow", city="Rome"), call("slow", city="Oslo")]
        return "done"

    provider = ScriptedProvider(policy)
    transcript = Transcript()
    with pytest.raises(KeyboardInterrupt):
        run_agent(provider, "Hi", tools=[slow], transcript=transcript)
    assert calls == ["Paris", "Rome"]
    results = transcript[-1].tool_results
    assert [r.content for r in results][0] == "fine"
    assert [r.is_error for r in results] == [False, True, True]
    assert "interrupted" in results[1].content and "KeyboardInterrupt" in results[1].content
    assert results[1].content == results[2].content == (
        "Not run: the run was interrupted (KeyboardInterrupt) before this call finished.")
    assert [m.role for m in transcript] == ["user", "assistant", "user"]  # one results message
    run = run_agent(provider, None, tools=[slow], transcript=transcript)
    assert run.answer == "done"


def test_ctrl_c_in_the_first_tool_answers_every_call_in_one_new_message():
    @tool
    def stuck(city: str) -> str:
        """Look something up.

        Args:
            city: the city
        """
        raise KeyboardInterrupt

    provider = ScriptedProvider([[call("stuck", city="Paris"), call("stuck", city="Rome")], "done"])
    transcript = Transcript()
    with pytest.raises(KeyboardInterrupt):
        run_agent(provider, "Hi", tools=[stuck], transcript=transcript)
    assert [m.role for m in transcript] == ["user", "assistant", "user"]
    assert [(r.call_id, r.is_error) for r in transcript[-1].tool_results] == [
        (c.id, True) for c in transcript[1].tool_calls]


# -- 4. no tool problem escapes execute --------------------------------------------------------


def returning(value):
    def function() -> str:
        """Return something awkward."""
        return value

    return tool(name="awkward")(function)


cyclic = []
cyclic.append(cyclic)


@pytest.mark.parametrize("value", [{(1, 2): "tuple key"}, cyclic, 10 ** 5000],
                         ids=["tuple-keys", "cycle", "huge-int"])
def test_a_result_that_cannot_become_json_is_an_error_result(value):
    result = execute(ToolCall("t1", "awkward", {}), tool_map([returning(value)]))
    assert result.is_error and "awkward" in result.content and "JSON" in result.content


def test_an_exception_whose_str_fails_is_an_error_result():
    class Nasty(Exception):
        def __str__(self):
            raise RuntimeError("no")

    def function() -> str:
        """Fail badly."""
        raise Nasty

    result = execute(ToolCall("t1", "nasty", {}), tool_map([tool(name="nasty")(function)]))
    assert result.is_error and "Nasty" in result.content


@pytest.mark.parametrize("args", [["Paris"], "city=Paris", None])
def test_args_that_are_not_an_object_are_an_error_result(args):
    result = execute(ToolCall("t1", "get_weather", args), tool_map([get_weather]))
    assert result.is_error and "JSON object" in result.content


def test_a_hung_tool_times_out_as_an_error_result():
    @tool(timeout=0.2)
    def hang(seconds: float) -> str:
        """Sleep.

        Args:
            seconds: how long
        """
        time.sleep(seconds)
        return "woke"

    started = time.perf_counter()
    result = execute(ToolCall("t1", "hang", {"seconds": 5}), tool_map([hang]))
    assert time.perf_counter() - started < 2
    assert result.is_error and "0.2" in result.content
    assert execute(ToolCall("t2", "hang", {"seconds": 0}), tool_map([hang])) == ToolResult("t2", "woke")


@pytest.mark.parametrize("timeout", [0, -1, "5", True])
def test_a_bad_timeout_is_a_definition_error(timeout):
    from toolcall_lab import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="timeout"):
        Tool("t", "d", {"type": "object"}, lambda: 1, timeout=timeout)


# -- 5. the first argument check does not build format-checker grammars -------------------------

SCHEMA_TABLE = [
    ({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
     [({"city": "Paris"}, None), ({}, "args.city is missing (it is required)"),
      ({"city": 3}, "args.city must be a string, got 3")]),
    ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
      "additionalProperties": False},
     [({"n": 2}, None), ({"n": 0}, "args.n must be at least 1, got 0"),
      ({"m": 1}, "args has a field the schema does not allow: 'm'")]),
    # "format" is an annotation only, before and after: no format checker is used.
    ({"type": "object", "properties": {"u": {"type": "string", "format": "iri"},
                                       "d": {"type": "string", "format": "duration"},
                                       "e": {"type": "string", "format": "email"}}},
     [({"u": "not an iri", "d": "soon", "e": "nope"}, None),
      ({"u": 5}, "args.u must be a string, got 5")]),
    ({"type": "object", "properties": {"xs": {"type": "array", "items": {"enum": ["a", "b"]}}}},
     [({"xs": ["a"]}, None), ({"xs": ["a", "c"]}, 'args.xs[1] must be "a" or "b", got "c"')]),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
      "properties": {"x": {"type": ["number", "null"]}}},
     [({"x": None}, None), ({"x": "1"}, 'args.x must be a number or null, got "1"')]),
]


@pytest.mark.parametrize(("schema", "cases"), SCHEMA_TABLE)
def test_schemas_accept_and_reject_the_same_arguments_as_before(schema, cases):
    checked = Tool("t", "d", schema, lambda **kw: None)
    for args, expected in cases:
        assert checked.check_args(args) == expected


@pytest.mark.slow
def test_first_argument_check_builds_no_format_grammar():
    code = ("import sys\nfrom toolcall_lab.tools import get_weather\n"
            "assert get_weather.check_args({'city': 'Paris'}) is None\n"
            "print('rfc3987_syntax' in sys.modules, 'isoduration' in sys.modules)\n"
            "import rfc3987_syntax  # still importable by anyone who wants it\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False"]
