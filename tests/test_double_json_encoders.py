"""The double's two JSON encoders, built once down to the C encoder (`toolcall_lab._json`), write
exactly what `json.dumps` with the same options writes, and refuse what it refuses (issue 30 §3:
every byte the SDKs read stays the same)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from toolcall_lab._json import compact, unicode_text

SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text())  # lone surrogates, U+2028 and the C0 controls included
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20)


@settings(max_examples=examples(300))
@given(value=VALUES)
def test_each_encoder_writes_what_json_dumps_writes(value):
    assert compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert unicode_text(value) == json.dumps(value, ensure_ascii=False)


def test_keys_that_are_not_strings_and_tuples_are_written_as_json_dumps_writes_them():
    value = {1: ("a", 2.5), False: None, None: [], 2.5: {}}
    assert compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("value", [{"a": object()}, {(1, 2): 3}, {"set": {1}}])
def test_what_json_cannot_write_is_a_type_error_as_from_json_dumps(value):
    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        compact(value)
    with pytest.raises(TypeError):
        unicode_text(value)
