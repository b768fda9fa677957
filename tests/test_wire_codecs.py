"""Each codec module is its API's whole codec, though its halves live in three files.

`wire/<api>.py` holds the client half and re-exports the server half (`wire/server/`)
and the rules (`wire/rules/`), so a provider and the API double each find everything
they need on the one module `API_SPECS` names.
"""

import importlib

import pytest

from toolcall_lab.wire import API_SPECS, Codec

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
