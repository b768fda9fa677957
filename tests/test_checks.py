"""Every answer key rejects wrong answers: at least three per check, with one line and a hint.

The table below (lessons 1, 3 and 5; the others add theirs in tests/checkrows/) is the contract
of `toolcall_lab.checks`: for each check, the data it is
given, one right answer, and the wrong answers it must refuse (a string that merely
contains the right one, another case for an id, the right value of the wrong type, and
the mistakes a learner really makes). A wrong answer raises `WrongAnswer`, whose notebook
rendering is one line with "Hint:" and no file path.
"""

from __future__ import annotations

import json

import pytest

from checkrows import Row, more_rows
from checkrows import streaming_on_the_wire as streaming_rows
from checkrows import when_a_stream_breaks as cut_rows
from toolcall_lab import (
    ApiDouble,
    Message,
    ScriptedProvider,
    ToolResult,
    Transcript,
    get_provider,
    run_agent,
)
from toolcall_lab.cancel import cancel_open_calls
from toolcall_lab.checks import on_the_wire, one_tool_call, the_bill
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.selfcheck import WrongAnswer, check, equal, exact, number, word
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import encode_request


def paris(provider=None, **options):
    provider = provider or ScriptedProvider(weather_policy)
    return run_agent(provider, PARIS_QUESTION, tools=[get_weather], **options)


PARIS = paris(system="You are a helpful assistant.")
TWO = run_agent(ScriptedProvider(weather_policy), "What's the weather in London and Cairo?",
                tools=[get_weather])
REQUEST = PARIS.transcript[1].tool_calls[0]
SECOND_CALL = Transcript(PARIS.transcript.system, PARIS.transcript.messages[:3])
PAIR = run_agent(ScriptedProvider(weather_policy), "Weather in Paris and Tokyo?", tools=[get_weather])
QUESTION, CALLS, RESULTS = PAIR.transcript[0], PAIR.transcript[1], PAIR.transcript[2]


def provider_after_two_calls():
    provider = ScriptedProvider(weather_policy)
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    turn = provider.complete(transcript, tools=[get_weather])
    transcript.append(turn.message)
    transcript.append(Message.results([ToolResult(turn.tool_calls[0].id, "18°C, sunny")]))
    provider.complete(transcript, tools=[get_weather])
    return provider


def chat_body():
    body = encode_request(SECOND_CALL, [get_weather], api="chat", model="gpt-6-luna")
    return {k: v for k, v in body.items() if k != "max_completion_tokens"}


def with_path(body, path, value):
    import copy

    body = copy.deepcopy(body)
    *parents, last = path
    target = body
    for key in parents:
        target = target[key]
    target[last] = value
    return body


def results_message(*pairs):
    return Message.results([ToolResult(call_id, content) for call_id, content in pairs])


#: Mistake 3 of lesson 3's section 7, as the page holds it (`invented`).
INVENTED = Transcript(messages=[QUESTION, CALLS, Message.results(
    [ToolResult("toolu_99", "20°C"), *RESULTS.tool_results])])
#: Bodies the kit's codec wrote, which the hand-written body of lesson 3 must refuse.
SHORTCUT_CHAT_BODIES = (
    lambda: encode_request(SECOND_CALL, [get_weather], api="chat", model="gpt-6-luna"),
    lambda: encode_request(SECOND_CALL, [get_weather], api="chat", model="gpt-6-luna",
                           reasoning_effort="none"),
    lambda: encode_request(SECOND_CALL, [get_weather], api="chat", model="gpt-6-luna",
                           max_tokens_field="max_tokens"),
)


CAIRO = next(c for c in TWO.transcript[1].tool_calls if c.args["city"] == "Cairo")
LONDON = next(c for c in TWO.transcript[1].tool_calls if c.args["city"] == "London")


ROWS = [
    # lesson 1
    Row("1 tool_result", one_tool_call.tool_result, (REQUEST, get_weather),
        lambda: ToolResult(REQUEST.id, "18°C, sunny"),
        (lambda: "18°C, sunny",
         lambda: ToolResult(REQUEST.id.upper(), "18°C, sunny"),
         lambda: ToolResult("toolu_99", "18°C, sunny"),
         lambda: ToolResult(REQUEST.id, "sunny"),
         lambda: ToolResult(REQUEST.id, "18°C, sunny", is_error=True))),
    Row("1 predict_call_2", one_tool_call.predict_call_2, (provider_after_two_calls(),),
        lambda: 3, (lambda: 1, lambda: "3", lambda: 4, lambda: 3.5)),
    Row("1 q1", one_tool_call.q1, (), lambda: 2, (lambda: 3, lambda: "2", lambda: 4, lambda: True)),
    Row("1 q2", one_tool_call.q2, (TWO,), lambda: CAIRO.id,
        (lambda: CAIRO.id.upper(), lambda: f"id {CAIRO.id}", lambda: LONDON.id, lambda: 2,
         lambda: f" {CAIRO.id}")),
    Row("1 exercise_1", one_tool_call.exercise_1, (TWO, get_weather),
        lambda: results_message((LONDON.id, "14°C, light rain"), (CAIRO.id, "31°C, sunny")),
        (lambda: [results_message((LONDON.id, "14°C, light rain")),
                  results_message((CAIRO.id, "31°C, sunny"))],
         lambda: results_message((LONDON.id, "14°C, light rain")),
         lambda: results_message((LONDON.id, "31°C, sunny"), (CAIRO.id, "14°C, light rain")),
         lambda: results_message((LONDON.id.upper(), "14°C, light rain"), (CAIRO.id, "31°C, sunny")),
         lambda: Message.assistant("14°C, light rain; 31°C, sunny"),
         lambda: "14°C, light rain")),
    # lesson 3
    Row("3 chat_body", on_the_wire.chat_body, (SECOND_CALL, [get_weather]), chat_body,
        (lambda: encode_request(SECOND_CALL, [get_weather], api="anthropic", model="m"),
         lambda: with_path(chat_body(), ["messages", 3, "role"], "user"),
         lambda: with_path(chat_body(), ["messages", 2, "tool_calls", 0, "function", "arguments"],
                           {"city": "Paris"}),
         lambda: with_path(chat_body(), ["messages", 3, "tool_call_id"], REQUEST.id.upper()),
         lambda: with_path(chat_body(), ["tools", 0], dict(get_weather.spec())),
         lambda: str(chat_body()),
         *SHORTCUT_CHAT_BODIES)),
    Row("3 predict_accepted", on_the_wire.predict_accepted,
        (Transcript(messages=[QUESTION, CALLS, Message.user("And in London?")]),),
        lambda: {"ollama"},
        (lambda: "ollama", lambda: set(), lambda: {"ollama", "chat"},
         lambda: {"anthropic", "responses", "chat"}, lambda: {"olama"})),
    Row("3 q1", on_the_wire.q1, (RESULTS,), lambda: 2, (lambda: 1, lambda: "2", lambda: 3)),
    Row("3 q2", on_the_wire.q2,
        (Transcript(messages=[QUESTION, CALLS, Message.results(
            [ToolResult(c.id.upper(), "18°C") for c in CALLS.tool_calls])]),),
        lambda: "no", (lambda: "yes", lambda: False, lambda: "no way", lambda: "maybe")),
    Row("3 exercise_1", on_the_wire.exercise_1, (),
        lambda: Transcript(messages=[QUESTION, CALLS, RESULTS, Message.assistant("Anything else?"),
                                     Message.results([RESULTS.tool_results[0]])]),
        (lambda: Transcript(messages=[QUESTION, CALLS, RESULTS]),
         lambda: "unexpected `tool_use_id` found",
         lambda: Transcript(messages=[QUESTION, CALLS, Message.user("And in London?")]),
         lambda: [QUESTION, Message.results([ToolResult("toolu_99", "x")])],
         lambda: Transcript(messages=[QUESTION, CALLS, RESULTS, Message.results([RESULTS.tool_results[0]])]),
         lambda: INVENTED,  # the page's own `invented`: mistake 3 of section 7
         lambda: Transcript(messages=[QUESTION, CALLS, RESULTS, Message.assistant("Anything else?"),
                                      Message.results([ToolResult(CALLS.tool_calls[0].id.upper(), "x")])]))),
    # lesson 5
    Row("5 loop_total", the_bill.loop_total, (12, 3000, 800), lambda: 88_800,
        (lambda: 12 * 3000 + 800 * 12 * 12 // 2, lambda: "88800", lambda: 3000 + 800 * 12,
         lambda: 12 * (3000 + 800 * 12))),
    Row("5 q1", the_bill.q1, (), lambda: 20 * 496 / 1e6,
        (lambda: 20 * 286 / 1e6,  # the page's model's hidden prompt, not this model's
         lambda: 496 / 1e6,  # once, not on every call
         lambda: 20 * 496,  # tokens, not dollars
         lambda: 20 * 496 * 5 / 1e6,  # at the output price
         lambda: "0.00992")),
    Row("5 q2", the_bill.q2, (), lambda: "higher", (lambda: "same", lambda: "Higher!", lambda: 5.0)),
    Row("5 exercise_1", the_bill.exercise_1, (), lambda: 16,
        (lambda: 17,  # the first loop over the budget
         lambda: 50,  # the budget over the first request: as if nothing were re-sent
         lambda: 197,  # the last request's size kept within the budget, not the bill
         lambda: "16", lambda: 16.5)),
    Row("5 predict_tools_tokens", the_bill.predict_tools_tokens, (), lambda: 50 * 253,  # 50 x the first tool
        (lambda: 253,  # the one definition the page shows, not the fifty
         lambda: 20 * 12_137,  # the 20-call loop's, not one request's
         lambda: "12137", lambda: 5 * 253,  # one service's five tools, not all ten services
         lambda: 12_137 * 4)),  # characters, not tokens
    Row("5 tools_loop_dollars", the_bill.tools_loop_dollars, (), lambda: 20 * 12_137 / 1e6 * 5,
        (lambda: 12_137 / 1e6 * 5,  # one call's, as if the definitions were sent once
         lambda: 20 * 12_137,  # tokens, not multiplied by the price
         lambda: 20 * 12_137 / 1e6,  # tokens in millions, not priced
         lambda: 20 * 253 / 1e6 * 5,  # the one tool the page shows
         lambda: 20 * 12_137 / 1e6 * 25,  # at the output price
         lambda: "1.2137")),
    Row("5 q3", the_bill.q3, (), lambda: 4.6,
        (lambda: 2 * 1.2 + 2 * 0.5,  # both calls in one reply, as with parallel calls on
         lambda: 3 * 1.2,  # the tools take no time
         lambda: 2 * 1.2 + 0.5,  # one call per city and the answer forgotten
         lambda: "4.6", lambda: 4)),
]
ROWS += more_rows()  # the other lessons keep their rows in tests/checkrows/<topic>.py


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_the_right_answer_passes(row, capsys):
    row.key(row.right(), *row.args)
    assert "correct." in capsys.readouterr().out


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_every_check_has_at_least_three_wrong_answers(row):
    assert len(row.wrong) >= 3


#: Answers that are one call of the kit's own function, or a variable already on the page:
#: refused with "write it yourself" (issue 18 §3), each also a wrong answer of its row above.
SHORTCUTS = [
    *[(on_the_wire.chat_body, (SECOND_CALL, [get_weather]), body) for body in SHORTCUT_CHAT_BODIES],
    (on_the_wire.exercise_1, (), lambda: INVENTED),
    (streaming_rows.key.your_accumulator, (), lambda: streaming_rows.the_sdks_accumulator),
    (cut_rows.key.cancelled_result, (cut_rows.STOPPED,), lambda: cancel_open_calls(
        Transcript(messages=list(cut_rows.STOPPED.messages)))[0]),
]


@pytest.mark.parametrize(("key", "args", "answer"), SHORTCUTS,
                         ids=["chat_body encode_request", "chat_body reasoning_effort",
                              "chat_body max_tokens", "exercise_1 invented", "accumulate openai sdk",
                              "cancelled cancel_open_calls"])
def test_a_shortcut_is_refused_with_write_it_yourself(key, args, answer):
    with pytest.raises(WrongAnswer, match="write it yourself"):
        key(answer(), *args)


@pytest.mark.parametrize(("label", "chunks"), streaming_rows.key.QUIRKS, ids=lambda v: str(v)[:20])
def test_the_openai_sdks_accumulator_gets_each_quirk_wrong(label, chunks):
    # why lesson 21's QUIRKS stand apart from STREAMS, which tests/test_recorded.py holds the SDK to
    try:
        rebuilt = streaming_rows.the_sdks_accumulator(chunks)
    except (IndexError, KeyError, TypeError):
        return
    assert [(i, n, json.loads(a)) for i, n, a in rebuilt] != streaming_rows.key._expected(chunks)


@pytest.mark.parametrize(("row", "index"), [(r, i) for r in ROWS for i in range(len(r.wrong))],
                         ids=lambda v: v.name if isinstance(v, Row) else str(v))
def test_a_wrong_answer_is_rejected_in_one_line(row, index):
    with pytest.raises(WrongAnswer) as caught:
        row.key(row.wrong[index](), *row.args)
    lines = caught.value._render_traceback_()
    assert len(lines) == 1
    assert lines[0].startswith("✗ ") and "Hint:" in lines[0]
    assert ".py" not in lines[0] and "Traceback" not in lines[0]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_unanswered_says_so_and_moves_on(row, capsys):
    row.key(..., *row.args)
    assert "not answered yet" in capsys.readouterr().out


def test_the_scripted_model_bills_no_hidden_prompt_but_the_double_does():
    from toolcall_lab.models import tool_prompt_tokens

    with ApiDouble(weather_policy) as double:
        billed = paris(get_provider("anthropic", base_url=double.base_url("anthropic")))
    estimated = paris(get_provider("scripted", script=weather_policy))
    gaps = {b.usage.input_tokens - e.usage.input_tokens for b, e in zip(billed.steps, estimated.steps,
                                                                          strict=True)}
    assert gaps == {tool_prompt_tokens(billed.steps[0].turn.model)}  # the same on every call


# -- the comparisons themselves ---------------------------------------------------------
@pytest.mark.parametrize(("compare", "answer", "says"), [
    (exact("toolu_01"), "TOOLU_01", "case differs"),
    (exact("toolu_01"), " toolu_01", "spaces"),
    (exact("toolu_01"), "the id is toolu_01", "nothing around it"),
    (exact("toolu_01"), 1, "expected text"),
    (number(3), "3", "drop the quotes"),
    (number(3), "three", "expected a number"),
    (number(3), True, "expected a number"),
    (word("user", choices=("user", "assistant")), "tool", "one of"),
    (word("user"), "the user", "word alone"),
    (word("291"), 291, "put it in quotes"),
    (equal((2, 1)), [2, 1], "round brackets"),
])
def test_each_comparison_says_what_is_wrong(compare, answer, says):
    assert says in compare(answer)


@pytest.mark.slow
def test_a_notebook_shows_a_wrong_answer_as_one_line_and_goes_on():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(
        "from toolcall_lab.checks import one_tool_call as checks\nchecks.q1('2')"))
    nb.cells.append(nbformat.v4.new_code_cell("print('the next cell ran')"))
    nbclient.NotebookClient(nb, timeout=60).execute()  # errors not allowed: none may happen
    [verdict] = nb.cells[0].outputs
    assert verdict.output_type == "stream" and verdict.name == "stdout"
    assert verdict.text.count("\n") == 1 and verdict.text.startswith("✗ Q1: '2' is not it")
    assert ".py" not in verdict.text and "Hint:" in verdict.text
    assert nb.cells[1].outputs[0].text == "the next cell ran\n"


def test_outside_strict_a_wrong_answer_prints_its_line_and_returns(capsys):
    from toolcall_lab.selfcheck import _STRICT, STRICT_VARIABLE

    token = _STRICT.set(False)
    try:
        assert check("A", "tool", word("user"), hint="look") is None
    finally:
        _STRICT.reset(token)
    assert capsys.readouterr().out == "✗ A: 'tool' is not it: that is not the right one. Hint: look\n"
    assert STRICT_VARIABLE == "TOOLCALL_LAB_STRICT_CHECKS"


@pytest.mark.parametrize(("answer", "shown"), [
    (print, "your function print()"),
    (lambda text: text, "your function"),
    (Transcript, "your class Transcript"),
    ("It is minus 291 degrees today, or so the tool said when it was asked",
     "'It is minus 291 degrees today, or so the tool said when…"),
])
def test_a_verdict_names_a_definition_and_cuts_text_at_a_word(answer, shown):
    from toolcall_lab.selfcheck import _show

    assert _show(answer) == shown
    assert "0x" not in _show(answer)


def test_a_check_returns_nothing_so_a_cell_shows_only_its_line(capsys):
    assert check("A", "user", word("user"), hint="h") is None
    assert check("A", ..., word("user"), hint="h") is None
    assert capsys.readouterr().out.splitlines() == [
        "A: correct.", "A: not answered yet. Replace ... with your answer and run this cell again."]


def test_lesson_14s_staged_runs_fail_each_step_of_the_grader():
    # a grader that skips a step says "passed" of the run that fails it (tests/checkrows/measuring_a_model.py)
    from toolcall_lab.checks.measuring_a_model import staged
    from toolcall_lab.evals import CASES, behaviour

    said = [behaviour(CASES[index], run).why for _, index, run in staged()]
    for step in ("no call of get_weather: it called get_forecast", "get_weather got {'city': 'paris'}",
                 "no result answers the call", "the result was an error", "the result does not say",
                 "the answer does not say"):
        assert any(reason.startswith(step) for reason in said), step
