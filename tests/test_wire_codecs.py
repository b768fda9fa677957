"""Each codec package is its API's whole codec, though its halves live in files of their own.

`wire/<api>/__init__.py` re-exports the client half (`client.py`), the server half
(`server.py`), the rules (`rules.py`) and the stream half (`stream.py`), so a provider and
the API double each find everything they need on the one package `API_SPECS` names.
"""

import importlib
import json

import pytest

from conftest import parsed
from toolcall_lab import Message, ReasoningBlock, StopReason, ToolCall, ToolResult, Transcript, Turn, Usage
from toolcall_lab.wire import API_SPECS, Codec, Dropped, ServerHalf, encode_request, foreign_reasoning

CLIENT = [name for name in vars(Codec) if not name.startswith("_")]
SERVER = ["decode_request", "decode_tool_choice", "encode_response", "error_body"]
DOUBLE = [name for name in vars(ServerHalf) if not name.startswith("_")]


def test_the_codec_protocol_is_what_a_client_needs():
    assert sorted(CLIENT) == ["API_NAME", "PROVIDER_NAME", "check_request", "decode_response",
                              "decode_stream", "encode_request", "error_body", "why_dropped"]


@pytest.mark.parametrize("api", list(API_SPECS))
def test_the_codec_re_exports_its_stream_half(api):
    stream = importlib.import_module(f"toolcall_lab.wire.{api}.stream")
    assert API_SPECS[api].codec.decode_stream is stream.decode_stream


@pytest.mark.parametrize("api", list(API_SPECS))
def test_every_server_half_offers_what_the_double_asks(api):
    """`ApiSpec.server` is a `ServerHalf`: every method the double calls is there, the ones its API
    does not spell its own way from the base's defaults."""
    server = API_SPECS[api].server
    assert isinstance(server, ServerHalf) and not getattr(type(server), "__abstractmethods__", None)
    assert set(SERVER) <= set(DOUBLE)
    for name in [*DOUBLE, "SHAPE"]:
        assert callable(getattr(server, name)) or name.isupper(), f"wire.{api}.server.SERVER lacks {name}"


def test_a_server_half_spells_only_what_differs_from_the_defaults():
    """issue 30: the trivial methods (a 400 for every broken rule, nothing stored to refuse, the
    request read as sent, the reply as `encode_response` writes it) are written once, in the base."""
    chat, ollama = API_SPECS["chat"].server, API_SPECS["ollama"].server
    for name in ("status_of", "refusal", "as_the_model_reads_it"):
        assert name not in vars(type(chat)) and name not in vars(type(ollama))
    assert "reasons" not in vars(type(chat)) and chat.reasons({"think": True}, None, None) is False
    assert ollama.reasons({"think": True}, None, None) is True


@pytest.mark.parametrize("api", list(API_SPECS))
def test_every_codec_offers_both_halves_and_its_rules(api):
    codec = API_SPECS[api].codec
    for name in [*CLIENT, *SERVER, "API_NAME", "PROVIDER_NAME"]:
        assert name in codec.__all__, f"wire.{api}.__all__ lacks {name}"
        assert callable(getattr(codec, name)) or name.isupper()
    assert codec.API_NAME == api


@pytest.mark.parametrize("api", list(API_SPECS))
def test_the_codec_re_exports_the_server_half_and_the_rules(api):
    codec = API_SPECS[api].codec
    rules = importlib.import_module(f"toolcall_lab.wire.{api}.rules")
    server = importlib.import_module(f"toolcall_lab.wire.{api}.server")
    assert codec.check_request is rules.check_request
    # each translator the codec offers is the one the double plays (`SERVER`, `ApiSpec.server`)
    assert all(getattr(codec, name) is getattr(server.SERVER, name) for name in SERVER)


@pytest.mark.parametrize("api", list(API_SPECS))
def test_every_codec_says_why_it_drops_a_reasoning_block(api):
    codec = API_SPECS[api].codec
    assert "why_dropped" in codec.__all__
    stranger = ReasoningBlock("made up by hand")  # no provider: no API can read it back
    assert codec.why_dropped(stranger, model="m") == (
        "made by no named provider: reasoning goes back only to the provider that made it")


# -- foreign_reasoning: one conversation through four providers, asked of every target -------
SIGNED = {"signature": "sig"}
OPUS = ReasoningBlock("Paris: look it up.", "anthropic", "claude-opus-5", SIGNED)
HAIKU = ReasoningBlock("Tokyo: look it up.", "anthropic", "claude-haiku-5-5", SIGNED)


def item(text, **more):
    return {"type": "reasoning", "id": f"rs_{text}", "summary": [{"type": "summary_text", "text": text}],
            **more}


SEALED = ReasoningBlock("Cairo.", "openai", "gpt-6-luna", item("Cairo.", encrypted_content="gAAAA1"))
UNSEALED = ReasoningBlock("Rome.", "openai", "gpt-6-luna", item("Rome."))
CHAT = ReasoningBlock("Oslo.", "openai-chat", "qwen3:4b")
OLLAMA = ReasoningBlock("Lima.", "ollama", "qwen3:4b")
BLOCKS = [OPUS, HAIKU, SEALED, UNSEALED, CHAT, OLLAMA]
TALK = Transcript(messages=[m for block in BLOCKS
                            for m in (Message.user("And there?"), Message.assistant(block, "Sunny."))])
ELSEWHERE = "reasoning goes back only to the provider that made it"


def whys(target, **options):
    return {BLOCKS.index(d.block): d.why for d in foreign_reasoning(TALK, target, **options)}


def test_foreign_reasoning_to_anthropic_keeps_only_that_models_thinking():
    assert whys("anthropic", model="claude-haiku-5-5") == {
        0: "written by claude-opus-5, not by claude-haiku-5-5: thinking goes back only to its model",
        2: f"made by openai: {ELSEWHERE}", 3: f"made by openai: {ELSEWHERE}",
        4: f"made by openai-chat: {ELSEWHERE}", 5: f"made by ollama: {ELSEWHERE}"}
    assert set(whys("anthropic")) == {2, 3, 4, 5}  # no model named: no thinking judged by model


def test_foreign_reasoning_to_responses_depends_on_store():
    stateless = whys("responses", model="gpt-6-luna")
    assert set(stateless) == {0, 1, 3, 4, 5}
    assert stateless[3] == ("no encrypted_content, and with store: false the API would not find "
                            "the item by its id")
    assert set(whys("openai", store=True)) == {0, 1, 4, 5}  # the provider's name works as the API's


def test_foreign_reasoning_to_chat_drops_everything_even_its_own():
    chat = whys("openai-chat")
    assert set(chat) == set(range(len(BLOCKS)))
    assert chat[4] == "Chat Completions has no field to send reasoning back"


def test_foreign_reasoning_to_ollama_keeps_its_own_text():
    assert set(whys("ollama", model="qwen3:4b")) == {0, 1, 2, 3, 4}


@pytest.mark.parametrize(("api", "options"), [("anthropic", {"model": "claude-haiku-5-5"}),
                                               ("responses", {"model": "gpt-6-luna"}),
                                               ("chat", {"model": "gpt-6-luna"}),
                                               ("ollama", {"model": "qwen3:4b"})])
def test_what_foreign_reasoning_lists_is_what_the_request_leaves_out(api, options):
    """The listing and the encoder follow one rule: every block not listed reaches the wire."""
    body = json.dumps(encode_request(TALK, api=api, **options))
    dropped = {id(d.block) for d in foreign_reasoning(TALK, api, **options)}
    for block in BLOCKS:
        assert (block.text in body) == (id(block) not in dropped), (api, block)


def test_dropped_names_its_message_and_unpacks():
    message, block, why = foreign_reasoning(TALK, "chat")[0]
    assert (message, block) == (1, OPUS) and isinstance(foreign_reasoning(TALK, "chat")[0], Dropped)


# -- issue 19: what enters from the wire, and what a wire without is_error says -------------------
LONE = "\ud83d"  # half of a UTF-16 pair, as a JSON "\ud83d" escape decodes


def assert_encodable(transcript):
    """Every string the transcript holds encodes as UTF-8 (what a save and every request do)."""
    text = transcript.to_json()
    text.encode("utf-8")
    assert LONE not in text


def dirty_call():
    return ToolCall(f"call_1{LONE}", f"get_weather{LONE}", {f"city{LONE}": f"Par{LONE}is"})


@pytest.mark.parametrize("api", list(API_SPECS))
def test_a_lone_surrogate_anywhere_in_a_reply_is_replaced_where_it_enters(api, tmp_path):
    codec = API_SPECS[api].codec
    turn = Turn(Message.assistant(f"Let me check{LONE}.", dirty_call()), StopReason.TOOL_USE, Usage(5, 2),
                f"model{LONE}")
    body = codec.encode_response(turn, response_id=f"id{LONE}")
    decoded = codec.decode_response(body)
    [call] = decoded.tool_calls
    assert call.name == "get_weather\ufffd" and call.args == {"city\ufffd": "Par\ufffdis"}
    assert api == "ollama" or call.id == "call_1\ufffd"  # Ollama sends no ids: the codec mints them
    assert decoded.model == "model\ufffd"
    transcript = Transcript(messages=[Message.user("Weather?"), decoded.message])
    assert_encodable(transcript)
    transcript.save(tmp_path / "run.json")
    for other in API_SPECS:  # and every later request to any provider can be sent
        json.dumps(encode_request(transcript, api=other, model="m"), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("api", list(API_SPECS))
def test_a_lone_surrogate_anywhere_in_a_request_is_replaced_where_it_enters(api):
    call = dirty_call()
    sent = Transcript(system=f"Be brief{LONE}.", messages=[
        Message.user(f"Weather{LONE}?"), Message.assistant(call),
        Message.results([ToolResult(call.id, f"18°C{LONE}")]), Message.user("Thanks")])
    body = encode_request(sent, api=api, model=f"m{LONE}")
    read, _ = API_SPECS[api].codec.decode_request(body)
    assert_encodable(read)
    assert read.messages[1].tool_calls[0].name == "get_weather\ufffd"
    assert read.messages[2].tool_results[0].call_id == read.messages[1].tool_calls[0].id


def test_a_body_with_nothing_to_clean_is_read_as_it_is():
    from toolcall_lab.wire._shared import clean_body

    body = {"model": "m", "choices": [{"message": {"content": "18°C 😀"}}]}
    assert clean_body(body) is body
    deep: list = []
    for _ in range(5000):  # deeper than any recursive walk could go
        deep = [deep]
    cleaned = clean_body({"a": [LONE, deep]})
    assert cleaned["a"][0] == "\ufffd"


#: The APIs with no is_error field: a result's flag travels in its words.
NO_ERROR_FLAG = [api for api in API_SPECS if api != "anthropic"]
RESULTS = [
    ToolResult("call_1", "Error: 3 matches in app.log"),           # a success that starts so
    ToolResult("call_2", "no such city", is_error=True),
    ToolResult("call_3", "Output: Error: the escape itself"),
    ToolResult("call_4", "Output: 42"),                              # not escaped: no "Error: " after
    ToolResult("call_5", "Error: disk full", is_error=True),
    ToolResult("call_6", "Output: Output: Error: "),
    ToolResult("call_7", "18°C, sunny"),
]


def test_what_the_real_api_reads_for_each_result():
    from toolcall_lab.wire._shared import read_result_text, result_text

    said = [result_text(result) for result in RESULTS]
    assert said == ["Output: Error: 3 matches in app.log", "Error: no such city",
                    "Output: Output: Error: the escape itself", "Output: 42", "Error: Error: disk full",
                    "Output: Output: Output: Error: ", "18°C, sunny"]
    assert [read_result_text(text) for text in said] == [(r.content, r.is_error) for r in RESULTS]


@pytest.mark.parametrize("api", NO_ERROR_FLAG)
def test_a_results_flag_and_text_survive_a_wire_without_is_error(api):
    calls = [ToolCall(result.call_id, "get_weather", {"city": "Paris"}) for result in RESULTS]
    sent = Transcript(messages=[Message.user("Hi"), Message.assistant(*calls), Message.results(RESULTS),
                                Message.user("And?")])
    read, _ = API_SPECS[api].codec.decode_request(encode_request(sent, api=api, model="m"))
    assert read.messages[2].tool_results == tuple(RESULTS)


# -- issue 19: numbers JSON cannot write, and nesting past the limit, make malformed calls -----------
#: How a model (or a server's JSON encoder) writes arguments the kit cannot take.
UNTAKEABLE = ['{"city": NaN}', '{"city": Infinity}', '{"city": [-Infinity]}', '{"city": 1e999}',
              '{"city": ' + '{"a": ' * 100 + "1" + "}" * 101]
#: A reply of each API carrying one call with `arguments` (JSON text) in that API's spelling.
REPLIES = {
    "anthropic": '{{"type": "message", "model": "m", "stop_reason": "tool_use", "content": [{{"type": '
                 '"tool_use", "id": "call_1", "name": "get_weather", "input": {args}}}]}}',
    "responses": '{{"model": "m", "status": "completed", "output": [{{"type": "function_call", '
                 '"call_id": "call_1", "name": "get_weather", "arguments": {text}}}]}}',
    "chat": '{{"model": "m", "choices": [{{"finish_reason": "tool_calls", "message": {{"role": '
            '"assistant", "content": null, "tool_calls": [{{"id": "call_1", "type": "function", '
            '"function": {{"name": "get_weather", "arguments": {text}}}}}]}}}}]}}',
    "ollama": '{{"model": "m", "done": true, "done_reason": "stop", "message": {{"role": "assistant", '
              '"content": "", "tool_calls": [{{"id": "call_1", "function": {{"name": "get_weather", '
              '"arguments": {args}}}}}]}}}}',
}


@pytest.mark.parametrize("arguments", UNTAKEABLE, ids=["nan", "inf", "-inf", "1e999", "deep"])
@pytest.mark.parametrize("api", list(API_SPECS))
def test_arguments_json_cannot_write_are_a_malformed_call_the_model_is_told_about(api, arguments, tmp_path):
    from toolcall_lab.tool import execute, tool_map
    from toolcall_lab.tools import get_weather

    body = json.loads(REPLIES[api].format(args=arguments, text=json.dumps(arguments)))
    [call] = API_SPECS[api].codec.decode_response(body).tool_calls
    assert call.malformed and call.args == {}
    result = execute(call, tool_map([get_weather]))
    assert result.is_error and "not a valid JSON object" in result.content
    assert ("nest more than 100 levels" in result.content if '"a"' in arguments
            else "a number JSON cannot write" in result.content)
    transcript = Transcript(messages=[Message.user("Weather?"), Message.assistant(call),
                                      Message.results([result])])
    transcript.save(tmp_path / "run.json")  # a transcript that can be saved ...
    for other in API_SPECS:  # ... and sent to every API (Anthropic and Ollama refuse NaN)
        json.dumps(encode_request(transcript, api=other, model="m"), allow_nan=False)


def _importers(package_dir, module_suffix):
    """name -> the places (an API folder, or a file outside wire/) that import it from a module
    ending in `module_suffix`."""
    import ast
    from pathlib import Path

    found: dict[str, set[str]] = {}
    root = Path(package_dir)
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        place = parts[1] if parts[0] == "wire" and len(parts) > 2 else "/".join(parts)
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith(module_suffix):
                for alias in node.names:
                    found.setdefault(alias.name, set()).add(place)
    return found


def test_what_only_openai_shares_lives_in_its_own_home_not_in_shared():
    # issue 30: about 200 lines of wire/_shared.py were used by OpenAI's two APIs alone
    # (openai_error_body, OPENAI_EFFORTS, strict_schema_problems, prompt_cache_fields, ...)
    from pathlib import Path

    import toolcall_lab
    from toolcall_lab.wire import _shared

    importers = _importers(Path(toolcall_lab.__file__).parent, "_shared")
    openai_only = sorted(name for name in _shared.__all__
                         if importers.get(name) and importers[name] <= {"chat", "responses", "_openai"})
    assert openai_only == []
    # and the home keeps the layering: it imports neither OpenAI folder (`from ..chat ...`)
    import ast

    home = Path(toolcall_lab.__file__).parent / "wire" / "_openai"
    assert sorted(p.name for p in home.glob("*.py")) == ["__init__.py", "client.py", "rules.py", "server.py",
                                                          "shape.py"]
    for path in home.glob("*.py"):
        modules = {".".join(filter(None, [node.module, *(a.name for a in node.names if not node.module)]))
                   for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.ImportFrom) and node.level == 2}
        assert not {m for m in modules if m.split(".")[0] in ("chat", "responses")}, path.name
