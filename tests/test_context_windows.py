"""The model table's context windows: dated, sourced, and what the budget check before each call uses."""

from __future__ import annotations

from datetime import date

import pytest

from toolcall_lab.context_budget import Budget
from toolcall_lab.models import CONTEXT_WINDOWS, PRICES, context_window_of


def test_the_windows_the_lessons_use_are_in_the_table():
    assert context_window_of("claude-haiku-4-5").tokens == 200_000
    assert context_window_of("claude-opus-5").tokens == 1_000_000
    assert context_window_of("claude-haiku-4-5-20251001").model == "claude-haiku-4-5"


def test_a_sibling_or_a_local_model_gets_no_window_guessed():
    assert context_window_of("claude-opus-5-5") is None    # starts like claude-opus-5, a model of its own
    assert context_window_of("llama3.2") is None


@pytest.mark.parametrize("row", list(CONTEXT_WINDOWS.values()), ids=lambda r: r.model)
def test_every_window_is_dated_sourced_and_leaves_room_for_a_reply(row):
    assert row.source and row.label in {"official", "quoted", "third-party"}
    assert date.fromisoformat(row.checked) <= date.today()
    assert 0 < row.max_output < row.tokens
    assert row.model in PRICES                          # a model the rest of the table knows
    assert Budget(window=row.tokens, reserve=row.max_output).limit == row.tokens - row.max_output
