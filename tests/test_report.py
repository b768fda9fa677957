"""Tests for the plain-text reports: exact tables for the Paris run and the loop's cost."""

import pytest

from toolcall_lab import Message, Run, ScriptedProvider, StopReason, Transcript, Turn, Usage, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.loop import Step
from toolcall_lab.tools import get_weather
from toolcall_lab.views.report import calls_table, loop_table, trace_table


@pytest.fixture
def paris_run():
    return run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])


PARIS_TRACE = """\
#  role       block        id        content                        produced by
-  ---------  -----------  --------  -----------------------------  -----------------
1  user       text                   What's the weather in Paris?   the user
2  assistant  tool_call    toolu_01  get_weather {"city": "Paris"}  the model, call 1
3  user       tool_result  toolu_01  18°C, sunny                    your code
4  assistant  text                   It's 18°C and sunny in Paris.  the model, call 2"""


def test_trace_table_of_the_paris_run_is_exact(paris_run):
    assert trace_table(paris_run.transcript) == PARIS_TRACE


def test_trace_table_is_the_same_on_every_run(paris_run):
    again = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    assert trace_table(again.transcript) == trace_table(paris_run.transcript)


def test_trace_table_has_no_trailing_spaces(paris_run):
    assert all(line == line.rstrip() for line in trace_table(paris_run.transcript).splitlines())


def test_calls_table_has_a_row_per_call_and_a_total(paris_run):
    lines = calls_table(paris_run).splitlines()
    first, second = paris_run.steps
    assert lines[2].split() == ["1", "1", str(first.usage.input_tokens),
                                str(first.usage.output_tokens), str(first.usage.input_tokens),
                                "tool_use"]
    assert lines[3].split() == ["2", "3", str(second.usage.input_tokens),
                                str(second.usage.output_tokens),
                                str(paris_run.usage.input_tokens), "end_turn"]
    assert lines[4].split() == ["total", str(paris_run.usage.input_tokens),
                                str(paris_run.usage.output_tokens)]


def test_calls_table_marks_scripted_numbers_as_estimates(paris_run):
    table = calls_table(paris_run)
    assert paris_run.usage.estimated
    assert table.splitlines()[-1] == "(tokens estimated at about 4 characters per token)"


def test_calls_table_without_estimates_has_no_note():
    turn = Turn(Message.assistant("Hi."), StopReason.END_TURN,
                Usage(input_tokens=1200, output_tokens=30), "real-1")
    run = Run(Transcript(messages=[Message.user("Hi"), turn.message]), [Step(1, turn, 1)],
              StopReason.END_TURN)
    table = calls_table(run)
    assert "estimated" not in table
    assert table.splitlines()[-1].split() == ["total", "1,200", "30"]


def test_loop_table_last_line_shows_the_tenth_call_and_the_total():
    lines = loop_table(10, 2000, 500).splitlines()
    assert len(lines) == 12  # header, rule, ten calls
    assert lines[-1] == "  10         6,500         42,500"


def test_loop_table_worked_example():
    assert loop_table(3, 2000, 500) == (
        "call  input tokens  running total\n"
        "----  ------------  -------------\n"
        "   1         2,000          2,000\n"
        "   2         2,500          4,500\n"
        "   3         3,000          7,500"
    )


def test_stop_table_asks_each_apis_codec_how_its_body_says_why_the_reply_ended(monkeypatch):
    # issue 30: the table matched on the API's name, and any other API fell to Ollama's `done_reason`
    from toolcall_lab.views.report import stop_table
    from toolcall_lab.wire import API_SPECS, ApiSpec

    monkeypatch.setitem(API_SPECS, "toy", ApiSpec("toy", "Toy", "/toy", "/v1", "openai-chat", "toy-",
                                                  package="toolcall_lab.wire.chat"))
    assert stop_table("end_turn", "max_tokens").splitlines()[-1].split() == ["toy", "stop", "length"]
