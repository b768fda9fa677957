"""The shapes compiled into plain checks (`double.shape.fits`) never let through what jsonschema
refuses, and spare jsonschema the bodies that fit (issue 30 §3: it was a third of the double's
time per request). Asserted on what is checked, never timed."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from test_double_shape import BASE, MISSHAPEN, SWITCHES, mutated, rich_body, wrongly_switched
from toolcall_lab.double import shape
from toolcall_lab.wire import ENDPOINTS

APIS = list(ENDPOINTS)


def jsonschema_finds(api: str, body: object) -> bool:
    return next(shape._validator(api).iter_errors(body), None) is not None


@pytest.mark.parametrize("api", APIS)
@settings(max_examples=examples(150))
@given(data=st.data())
def test_a_body_that_surely_fits_is_one_jsonschema_finds_nothing_in(api, data):
    body = data.draw(mutated(api) | st.just(rich_body(api)) | st.just(copy.deepcopy(BASE[api])))
    if shape.fits(api, body):
        assert not jsonschema_finds(api, body), body


@pytest.mark.parametrize("api", list(SWITCHES))
@settings(max_examples=examples(60))
@given(data=st.data())
def test_a_wrongly_typed_switch_is_never_sure_to_fit(api, data):
    assert not shape.fits(api, wrongly_switched(api, data)[1])


@pytest.mark.parametrize(("api", "change", "text"), MISSHAPEN)
def test_each_misshapen_body_of_the_table_is_not_sure_to_fit(api, change, text):
    assert not shape.fits(api, {**BASE[api], **change})


@pytest.mark.parametrize("api", APIS)
def test_a_body_the_kit_sends_is_not_walked_by_jsonschema(api, monkeypatch):
    def walked(api: str) -> None:
        raise AssertionError("jsonschema walked a body that fits")

    assert shape.refusal(api, rich_body(api)) is None  # the validator is built first, as in any run
    monkeypatch.setattr(shape, "_validator", walked)
    assert shape.refusal(api, rich_body(api)) is None
    assert shape.refusal(api, copy.deepcopy(BASE[api])) is None
