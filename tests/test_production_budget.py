"""The budget check before each model call (`context_budget.Budget`, `run_agent(budget=)`)."""

from __future__ import annotations

import pytest

from toolcall_lab import Message, ScriptedProvider, StopReason, UsageError, UsageTypeError, call, run_agent
from toolcall_lab import tool as make_tool
from toolcall_lab.cancel import open_calls
from toolcall_lab.context_budget import Budget

LIMIT = 2500                                   # a window of 3,000 tokens, 500 kept for the reply


@make_tool
def read_chunk(n: int) -> str:
    """Read one chunk of the report."""
    return f"chunk {n}: " + "z" * 2000         # about 500 tokens each


def long_run(**options):
    provider = ScriptedProvider([*(call("read_chunk", n=n) for n in range(1, 9)), "The report is fine."])
    run = run_agent(provider, "Read the whole report, then sum it up.", tools=[read_chunk], max_steps=12,
                    **options)
    return provider, run


def test_without_a_budget_one_loop_grows_past_the_window():
    provider, run = long_run()
    sent = [r.input_tokens for r in provider.requests]
    assert sent == sorted(sent) and sent[-1] > 4000 > LIMIT   # the requests that would have failed
    assert run.answer == "The report is fine."


def test_a_budget_compacts_inside_the_loop_so_no_request_passes_it():
    provider, run = long_run(budget=Budget(window=3000, reserve=500))
    assert max(r.input_tokens for r in provider.requests) <= LIMIT
    assert len(provider.requests) == 9 and run.answer == "The report is fine."
    assert any(m.synthetic for m in run.transcript) and open_calls(run.transcript) == []
    assert run.transcript[0].text == "Read the whole report, then sum it up."   # the task is kept


def test_a_budget_that_may_not_compact_stops_before_sending_and_says_why():
    provider, run = long_run(budget=Budget(window=3000, reserve=500, compact=False))
    assert max(r.input_tokens for r in provider.requests) <= LIMIT
    assert run.stop_reason is StopReason.CONTEXT_WINDOW_EXCEEDED
    stopped_at = len(provider.requests) + 1
    assert run.note.startswith(f"stopped before call {stopped_at}: the next request would be about ")
    assert "over this budget of 2500 (a window of 3000, less 500 kept for the reply)" in run.note
    assert run.note.endswith("nothing was sent (Budget(compact=False)).")
    assert open_calls(run.transcript) == [] and run.transcript[-1].tool_results   # valid, ready to go on


def test_a_request_that_cannot_fit_even_compacted_is_never_sent():
    provider = ScriptedProvider(["never"])
    run = run_agent(provider, Message.user("x" * 20_000), budget=Budget(window=3000, reserve=500))
    assert provider.requests == [] and run.steps == []
    assert "nothing left to compact" in run.note and "max_result_tokens=" in run.note


@pytest.mark.parametrize(("options", "words"), [
    ({"window": 1000, "reserve": 1000}, "leaves no room"),
    ({"window": -5}, "window must be a whole number"),
    ({"window": 1000, "keep_last": 1.5}, "keep_last must be a whole number"),
])
def test_a_budget_that_cannot_work_is_refused_when_built(options, words):
    with pytest.raises(UsageError, match=words):
        Budget(**options)


def test_budget_must_be_a_budget():
    with pytest.raises(UsageTypeError, match="budget must be a Budget"):
        run_agent(ScriptedProvider(["hi"]), "hi", budget=3000)


@pytest.fixture
def make_double(make_in_process_double):
    return make_in_process_double


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat", "ollama"])
def test_a_history_compacted_mid_loop_is_a_request_every_api_accepts(make_double, name):
    from conftest import real_provider
    from toolcall_lab.compaction import compact

    _, run = long_run()
    short = compact(run.transcript, keep_last=3, within_a_run=True)
    del short.messages[-1]                          # end on a results message: the model's turn next
    assert [m.role for m in short][:3] == ["user", "user", "assistant"] and short[1].synthetic
    turn = real_provider(name, make_double()).complete(short, tools=[read_chunk])
    assert turn.message.role == "assistant"
