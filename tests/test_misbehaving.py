"""The misbehaving models: each makes its mistake on cue, the loop answers it, and it recovers."""

from __future__ import annotations

import pytest

from toolcall_lab import (
    ApiDouble,
    MaxStepsExceeded,
    ScriptedProvider,
    StopReason,
    Tool,
    get_provider,
    run_agent,
)
from toolcall_lab.approval import REFUSED
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.misbehaving import (
    fills_the_window,
    guesses_the_city,
    invents_a_tool,
    keeps_checking,
    obeys_injection,
    pauses_a_search,
    picks_by_description,
    sends_bad_arguments,
    sends_broken_json,
)
from toolcall_lab.tools import delete_files, get_weather, read_file
from toolcall_lab.tools.files import DELETIONS, FILES, INJECTED

INBOX = "Summarise inbox/supplier-update.txt for me."


@pytest.mark.parametrize(("policy", "first_error"), [
    (invents_a_tool, "Unknown tool 'get_forecast'. Available tools: get_weather."),
    (sends_bad_arguments, "Invalid arguments for get_weather: args.city is missing (it is required)"),
    (sends_broken_json, "The arguments for get_weather were not a valid JSON object: '{\"city\": \"Par'"),
])
def test_each_mistake_comes_back_as_an_error_result_and_the_model_recovers(policy, first_error):
    run = run_agent(ScriptedProvider(policy), PARIS_QUESTION, tools=[get_weather])
    first, second = (m.tool_results[0] for m in (run.transcript[2], run.transcript[4]))
    assert first.is_error and first.content.startswith(first_error)
    assert not second.is_error and run.answer == "It's 18°C and sunny in Paris."
    assert len(run.steps) == 3


def test_the_model_that_keeps_checking_runs_into_max_steps_and_stops_when_told():
    provider = ScriptedProvider(keeps_checking)
    with pytest.raises(MaxStepsExceeded) as caught:
        run_agent(provider, PARIS_QUESTION, tools=[get_weather], max_steps=4)
    so_far = caught.value.run.transcript
    assert len(so_far.tool_calls()) == 4 and len(so_far) == 9
    with pytest.raises(MaxStepsExceeded):  # more room does not help a loop
        run_agent(provider, None, tools=[get_weather], transcript=so_far, max_steps=3)
    run = run_agent(provider, "You have it already: answer now.", tools=[get_weather], transcript=so_far)
    assert run.answer == "Sorry for the wait: it's 18°C, sunny." and len(run.steps) == 1


def test_the_guess_is_a_valid_call_with_a_confident_wrong_answer():
    run = run_agent(ScriptedProvider(guesses_the_city), "What's the weather like today?", tools=[get_weather])
    assert run.transcript[1].tool_calls[0].args == {"city": "London"}
    assert run.answer == "It's 14°C and light rain."
    assert not any(r.is_error for r in run.transcript.tool_results())  # nothing for a schema to catch


def test_the_gullible_model_obeys_the_file_unless_the_gate_refuses():
    before = len(DELETIONS)
    run = run_agent(ScriptedProvider(obeys_injection), INBOX, tools=[read_file, delete_files])
    assert DELETIONS[before:] == ["/"] and run.answer.endswith("I also cleared out old files.")
    before = len(DELETIONS)
    run = run_agent(ScriptedProvider(obeys_injection), INBOX, tools=[read_file, delete_files],
                    approve=lambda c: c.name == "read_file" or "this assistant may only read files")
    assert DELETIONS[before:] == []
    refused = run.transcript[4].tool_results[0]
    assert refused.is_error and refused.content.startswith(f"{REFUSED} delete_files did not run")
    assert run.answer.endswith("but that was refused.")


def test_it_only_calls_what_is_offered_and_the_file_holds_the_instruction():
    before = len(DELETIONS)
    run = run_agent(ScriptedProvider(obeys_injection), INBOX, tools=[read_file])
    assert DELETIONS[before:] == [] and [c.name for c in run.transcript.tool_calls()] == ["read_file"]
    assert INJECTED in FILES["inbox/supplier-update.txt"] and "delete_files" in INJECTED
    assert run_agent(ScriptedProvider(obeys_injection), "Read my mail.", tools=[read_file]).answer == (
        "Which file should I read?")


def test_a_paused_search_goes_back_unchanged_through_the_real_sdk_and_finishes():
    # the teaching model refuses an assistant prefill; a paused turn sent back is not one
    with ApiDouble(pauses_a_search) as double:
        searcher = get_provider("anthropic", base_url=double.base_url("anthropic"), max_retries=0)
        run = run_agent(searcher, PARIS_QUESTION)
        sent = [request.body["messages"] for request in double.requests]
    assert [s.stop_reason for s in run.steps] == [StopReason.PAUSE_TURN, StopReason.END_TURN]
    assert [[m["role"] for m in messages] for messages in sent] == [["user"], ["user", "assistant"]]
    assert [b["type"] for b in sent[1][1]["content"]] == ["text", "server_tool_use", "web_search_tool_result"]
    assert run.answer == "The Paris forecast I found says 18°C and sunny."


def test_a_full_window_cuts_the_answer_and_the_run_stops_keeping_the_text():
    run = run_agent(ScriptedProvider(fills_the_window), PARIS_QUESTION, tools=[get_weather])
    assert run.stop_reason is StopReason.CONTEXT_WINDOW_EXCEEDED and len(run.steps) == 2
    assert run.answer == "It's 18°C and sunny i" and "shorten or summarise" in run.note


def test_the_chooser_reads_only_the_description():
    def weather_for(city):
        return get_weather(city=city)

    def offered(description):
        return [Tool("lookup", description, get_weather.input_schema, weather_for)]

    vague = run_agent(ScriptedProvider(picks_by_description), PARIS_QUESTION, tools=offered("Looks it up."))
    precise = run_agent(ScriptedProvider(picks_by_description), PARIS_QUESTION,
                        tools=offered("The current weather in one city."))
    assert vague.transcript.tool_calls() == [] and "cannot" in vague.answer
    assert [c.args for c in precise.transcript.tool_calls()] == [{"city": "Paris"}]
    assert precise.answer == "It's 18°C, sunny."
