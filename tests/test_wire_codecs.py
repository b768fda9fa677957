"""Each codec module is its API's whole codec, though its halves live in three files.

`wire/<api>.py` holds the client half and re-exports the server half (`wire/server/`)
and the rules (`wire/rules/`), so a provider and the API double each find everything
they need on the one module `API_SPECS` names.
"""

import importlib
import json

import pytest

from toolcall_lab import Message, ReasoningBlock, Transcript
from toolcall_lab.wire import API_SPECS, Codec, Dropped, encode_request, foreign_reasoning

CLIENT = [name for name in vars(Codec) if not name.startswith("_")]
SERVER = ["decode_request", "decode_tool_choice", "encode_response", "error_body"]


def test_the_codec_protocol_is_what_a_client_needs():
    assert sorted(CLIENT) == ["check_request", "decode_response", "encode_request", "error_body"]


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
    rules = importlib.import_module(f"toolcall_lab.wire.rules.{api}")
    server = importlib.import_module(f"toolcall_lab.wire.server.{api}")
    assert codec.check_request is rules.check_request
    assert all(getattr(codec, name) is getattr(server, name) for name in SERVER)


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
