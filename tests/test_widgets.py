"""The widgets, driven headless: set a value or click a button, read the other widgets' values."""

from __future__ import annotations

import html
import importlib
import json
import socket
import threading
import time

import pytest

from conftest import SECRET
from test_display import theme_problems
from toolcall_lab import (
    Message,
    MissingKeyError,
    ScriptedProvider,
    ToolCall,
    ToolResult,
    Transcript,
    UsageError,
    run_agent,
)
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
from toolcall_lab.views.widgets import cost_explorer, pick_provider, step_through, wire_view


def paris_run():
    return run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])


def walk(widget):
    """Every widget in the tree under `widget`, itself included."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def shown_strings(widget):
    """Every string a widget tree can show: values, descriptions, labels, options, titles."""
    for w in walk(widget):
        for name in ("value", "description", "placeholder", "tooltip", "button_style"):
            value = getattr(w, name, None)
            if isinstance(value, str):
                yield value
        yield from getattr(w, "_options_labels", ())
        yield from (t for t in getattr(w, "titles", ()) if isinstance(t, str))
        yield repr(w)


def marker(message):
    """Something message k's HTML must contain: its escaped text, or its call / result id."""
    block = message.blocks[0]
    if isinstance(block, ToolCall):
        return html.escape(block.id)
    if isinstance(block, ToolResult):
        return html.escape(block.call_id)
    return html.escape(message.text)


# -- step_through ----------------------------------------------------------------------------
def test_step_through_walks_every_message_forward_and_back():
    run = paris_run()
    w = step_through(run, tools=[get_weather])
    total = len(run.transcript)
    assert total == 4
    seen_forward = []
    for k in range(total):
        assert w.slider.value == k + 1
        assert w.position.value.startswith(f"message {k + 1} of {total} · ")
        assert marker(run.transcript[k]) in w.message.value
        assert w.previous_button.disabled is (k == 0)
        assert w.next_button.disabled is (k == total - 1)
        assert w.diagram.value[:8] == b"\x89PNG\r\n\x1a\n"
        seen_forward.append((w.message.value, w.diagram.value))
        if k < total - 1:
            w.next_button.click()
    w.next_button.click()  # at the end: stays put
    assert w.slider.value == total
    for k in reversed(range(total)):
        assert (w.message.value, w.diagram.value) == seen_forward[k]  # same HTML, same cached PNG
        w.previous_button.click()
    assert w.slider.value == 1 and w.previous_button.disabled


def test_step_through_labels_who_produced_each_message():
    w = step_through(paris_run())
    labels = []
    for _ in range(4):
        labels.append(w.position.value.split(" · ", 1)[1])
        w.next_button.click()
    assert labels == ["the user", "the model, call 1", "your code", "the model, call 2"]
    assert w.position.value == "message 4 of 4 · the model, call 2"


def test_step_through_escapes_untrusted_text():
    t = Transcript(messages=[Message.user("<script>alert(1)</script>"), Message.assistant("<b>hi</b>")])
    w = step_through(t)
    assert "<script>alert(1)" not in w.message.value + w.wire.value
    assert "&lt;script&gt;" in w.message.value
    w.next_button.click()
    assert "<b>hi</b>" not in w.message.value + w.wire.value


def test_step_through_wire_dropdown_shows_the_part_of_the_request_for_message_k():
    run = paris_run()
    w = step_through(run, tools=[get_weather])
    w.slider.value = 3  # the tool results, sent by your code
    anthropic = w.wire.value
    assert "messages[2]" in anthropic and "tool_result" in anthropic
    call_id = run.transcript[2].tool_results[0].call_id
    assert html.escape(call_id) in anthropic
    w.api.value = "chat"
    assert w.wire.value != anthropic
    assert "messages[2]" in w.wire.value  # no system prompt: the tool message follows user, assistant
    assert html.escape('"role": "tool"') in w.wire.value
    w.api.value = "responses"
    assert "function_call_output" in w.wire.value and "input[" in w.wire.value
    w.api.value = "ollama"
    assert html.escape('"role": "tool"') in w.wire.value
    w.previous_button.click()  # the wire follows the position too
    assert "tool_calls" in w.wire.value and "get_weather" in w.wire.value


def test_step_through_wire_part_is_valid_json():
    w = step_through(paris_run(), tools=[get_weather], api="anthropic")
    body = w.wire.value.split("<pre", 1)[1].split(">", 1)[1].rsplit("</pre>", 1)[0]
    assert json.loads(html.unescape(body)) == {"role": "user", "content": [
        {"type": "text", "text": PARIS_QUESTION}]}


def test_step_through_tokens_grow_with_each_call_and_match_the_run():
    run = paris_run()
    w = step_through(run)
    shown = []
    for _ in range(4):
        shown.append(w.tokens.value)
        w.next_button.click()
    first, second = (s.usage.input_tokens for s in run.steps)
    assert "<b>0</b> over 0 model calls" in shown[0]
    assert f"<b>{first:,}</b> over 1 model call " in shown[1]
    assert f"<b>{first:,}</b> over 1 model call " in shown[2]
    assert f"<b>{first + second:,}</b> over 2 model calls" in shown[3]


def test_step_through_of_a_plain_transcript_estimates_the_tokens():
    w = step_through(paris_run().transcript)
    w.slider.value = 4
    assert "over 2 model calls (estimated" in w.tokens.value


def test_step_through_output_is_deterministic():
    a, b = step_through(paris_run()), step_through(paris_run())
    for _ in range(3):
        for part in ("message", "wire", "tokens", "diagram"):
            assert getattr(a, part).value == getattr(b, part).value
        a.next_button.click()
        b.next_button.click()


def test_step_through_refuses_an_empty_transcript():
    with pytest.raises(ValueError, match="at least one message"):
        step_through(Transcript())


# -- cost_explorer ---------------------------------------------------------------------------
def test_cost_explorer_defaults_show_the_worked_example():
    w = cost_explorer()
    assert "42,500 tokens billed for a 7,000-token conversation: 6.1 times its size" in w.comparison.value
    assert "42,500" in w.totals.value
    assert "6,500" in w.table.value  # the tenth call
    assert w.figure.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert "42,500" in w.figure_caption.value


def test_cost_explorer_updates_on_every_control():
    w = cost_explorer()
    before = (w.totals.value, w.comparison.value, w.table.value, w.figure.value)
    w.calls.value = 20
    after = (w.totals.value, w.comparison.value, w.table.value, w.figure.value)
    assert all(x != y for x, y in zip(before, after, strict=True))
    # n*h0 + t*n(n-1)/2 = 20*2,000 + 500*190 = 40,000 + 95,000; final size 2,000 + 20*500
    assert "135,000 tokens billed for a 12,000-token conversation" in w.comparison.value
    for control, value in ((w.first, 3000), (w.per_step, 1000)):
        old = w.totals.value
        control.value = value
        assert w.totals.value != old
    old = w.totals.value
    w.model.value = "claude-haiku-5-5"
    assert w.totals.value != old and "claude-haiku-5-5" in w.totals.value


def test_cost_explorer_caching_lowers_the_dollars():
    w = cost_explorer(model="claude-opus-5")
    plain = w.totals.value
    assert "$0.2125" in plain
    plain_figure = w.figure.value
    w.caching.value = True
    assert "$0.0586" in w.totals.value
    assert "caching" in w.totals.value
    assert w.figure.value != plain_figure
    w.caching.value = False
    assert w.totals.value == plain


def test_cost_explorer_long_loops_elide_the_middle_rows():
    w = cost_explorer(n=30)
    assert "calls 6 to 25" in w.table.value
    assert w.table.value.count("<tr>") == 1 + 5 + 1 + 5


def test_cost_explorer_model_labels_carry_the_price():
    from toolcall_lab.models import PRICES

    w = cost_explorer()
    labels = dict((value, label) for label, value in w.model.options)
    assert set(labels) == set(PRICES)
    price = PRICES["claude-opus-5"]
    assert f"${price.input:g} in" in labels["claude-opus-5"]


def test_cost_explorer_caption_of_a_single_call_is_grammatical():
    w = cost_explorer(n=1, t=0)
    assert "over 1 calls" not in w.figure_caption.value
    assert "over 1 call " in w.figure_caption.value
    assert "curve up" not in w.figure_caption.value  # one point, or a straight line, does not curve
    w.calls.value = 10
    assert "curve up" not in w.figure_caption.value  # t = 0: every call sends the same tokens
    w.per_step.value = 500
    assert "over 10 calls (solid line, circles) curve up to 42,500" in w.figure_caption.value


def test_cost_explorer_refuses_an_unpriced_model():
    with pytest.raises(UsageError, match="no price for model 'llama3.2'"):
        cost_explorer(model="llama3.2")


def test_cost_explorer_defaults_to_the_lessons_model():
    from toolcall_lab.models import TEACHING_MODEL

    w = cost_explorer()
    assert w.model.value == TEACHING_MODEL
    assert "$0.2125" in w.totals.value  # loop_bill's worked example: 10 calls, 2,000 + 500 on Opus 5


def test_cost_explorer_prices_a_dated_snapshot_as_cost_of_does():
    from toolcall_lab.usage import Usage
    from toolcall_lab.views.cost import cost_of, dollars, loop_bill

    dated = "claude-haiku-4-5-20251001"
    w = cost_explorer(model=dated)
    assert w.model.value == dated
    # 42,500 input tokens at Haiku 4.5's $1 per million: what cost_of says for the same tokens
    expected = cost_of(Usage(input_tokens=42_500), dated).total
    assert loop_bill(10, 2000, 500, model=dated).total_dollars == pytest.approx(expected)
    assert dollars(expected) == "$0.0425" and "$0.0425" in w.totals.value
    assert dated in w.totals.value


# -- pick_provider ---------------------------------------------------------------------------
def assert_no_secret(widget):
    for text in shown_strings(widget):
        assert SECRET not in text


def test_pick_provider_with_a_key_in_the_environment_hides_the_box_and_never_shows_the_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    picker = pick_provider()
    picker.choice.value = "anthropic"
    assert picker.key.layout.display == "none"
    assert "ANTHROPIC_API_KEY" in picker.status.value
    provider = picker.provider
    assert type(provider).__name__ == "AnthropicProvider"
    assert SECRET not in repr(provider)
    assert_no_secret(picker)
    for name, _ in ((v, label) for label, v in picker.choice.options):
        picker.choice.value = name
        assert_no_secret(picker)


def test_pick_provider_without_a_key_shows_the_box_and_clears_a_typed_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    picker = pick_provider()
    picker.choice.value = "anthropic"
    assert picker.key.layout.display != "none"
    assert "ANTHROPIC_API_KEY is not set" in picker.status.value
    picker.key.value = SECRET  # what pressing Enter in the box does
    assert picker.key.value == ""
    assert type(picker.provider).__name__ == "AnthropicProvider"
    assert_no_secret(picker)
    picker.model.value = "claude-opus-5"  # new settings: the key is not kept, so it must come again
    assert "paste the key again" in picker.status.value
    with pytest.raises(MissingKeyError, match="ANTHROPIC_API_KEY is not set"):
        picker.provider  # noqa: B018
    picker.key.value = SECRET
    assert picker.provider.model == "claude-opus-5" and picker.key.value == ""
    assert_no_secret(picker)
    picker.choice.value = "openai"
    assert picker.key.layout.display != "none"
    picker.choice.value = "vllm"  # a local server: no key, a base URL
    assert picker.key.layout.display == "none"
    assert picker.base_url.value == "http://localhost:8000/v1"
    assert picker.base_url.layout.display != "none"


def test_pick_provider_reads_the_given_environ():
    picker = pick_provider(environ={"OPENAI_API_KEY": SECRET})
    picker.choice.value = "openai"
    assert picker.key.layout.display == "none"
    assert type(picker.provider).__name__ == "OpenAIResponsesProvider"
    picker.choice.value = "anthropic"
    assert picker.key.layout.display != "none"
    assert_no_secret(picker)


def test_pick_provider_scripted_is_the_default_and_runs_offline():
    picker = pick_provider(environ={})
    run = run_agent(picker.provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer == "It's 18°C and sunny in Paris."
    picker.test_button.click()
    assert "nothing to connect to" in picker.status.value


@pytest.mark.parametrize("api", ["anthropic", "responses", "chat"])
def test_pick_provider_double_gives_a_working_provider(api, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    picker = pick_provider()
    try:
        picker.choice.value = "double"
        picker.double_api.value = api
        picker.test_button.click()
        assert "connected" in picker.status.value
        run = run_agent(picker.provider, PARIS_QUESTION, tools=[get_weather])
        assert run.answer == "It's 18°C and sunny in Paris."
        assert picker.double is not None and len(picker.double.requests) == 3  # test + 2 calls
        assert all(SECRET not in json.dumps(r.body) for r in picker.double.requests)
        assert_no_secret(picker)
    finally:
        picker.close()
    assert picker.double is None


def test_pick_provider_test_connection_reports_a_provider_error_in_one_sentence():
    picker = pick_provider(environ={})
    picker.choice.value = "llamacpp"
    picker.base_url.value = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    started = time.perf_counter()
    picker.test_button.click()
    # one try, no retries: the SDK's backoff (about 1.5 s for its 2 retries) is not waited out
    assert time.perf_counter() - started < 1.0
    assert picker.status.value.count("test failed") == 1
    assert "127.0.0.1:9" in picker.status.value
    assert picker.provider.max_retries == 2  # the provider later cells use keeps the SDK's retries


@pytest.fixture
def silent_server():
    """A port that accepts connections and never answers (a server stuck loading a model)."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []
    threading.Thread(target=lambda: [accepted.append(server.accept()) for _ in range(8)],
                     daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for connection, _ in accepted:
        connection.close()


@pytest.mark.parametrize("name", ["vllm", "ollama"])
def test_pick_provider_test_connection_to_a_silent_server_gives_up_quickly(name, silent_server, monkeypatch):
    picker_module = importlib.import_module("toolcall_lab.views.widgets._pick_provider")
    monkeypatch.setattr(picker_module, "_TEST_TIMEOUT", 0.5, raising=False)
    picker = pick_provider(environ={})
    picker.choice.value = name
    picker.base_url.value = silent_server + ("/v1" if name == "vllm" else "")
    clicked = threading.Thread(target=picker.test_button.click, daemon=True)
    clicked.start()
    clicked.join(timeout=10)  # the provider's own 60 s timeout, retried twice, would hang the kernel
    assert not clicked.is_alive(), "Test connection is still waiting for a server that never answers"
    assert "test failed" in picker.status.value and "did not answer within 0.5 s" in picker.status.value
    assert picker.provider.timeout == 60.0  # only the test call is short


def test_pick_provider_stops_the_double_when_the_choice_moves_away():
    picker = pick_provider(environ={})
    try:
        picker.choice.value = "double"
        picker.test_button.click()
        assert "connected" in picker.status.value
        url = picker.double.base_url("anthropic")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        picker.choice.value = "scripted"
        assert picker.double is None  # no server thread left running behind the learner's back
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        picker.choice.value = "double"  # choosing it again starts a fresh one
        picker.test_button.click()
        assert "connected" in picker.status.value and picker.double is not None
    finally:
        picker.close()
    assert picker.double is None


def test_pick_provider_callbacks_turn_any_failure_into_a_status_line(monkeypatch, caplog):
    from toolcall_lab.double import ApiDouble

    def refuse(self):
        raise OSError(f"[Errno 98] Address already in use (key {SECRET})")

    monkeypatch.setattr(ApiDouble, "start", refuse)
    picker = pick_provider(environ={"ANTHROPIC_API_KEY": SECRET})
    picker.choice.value = "double"
    picker.test_button.click()  # ipywidgets would log (or, in a notebook, hide) an escaped exception
    assert "test failed" in picker.status.value and "Address already in use" in picker.status.value
    assert SECRET not in picker.status.value
    assert "Exception in callback" not in caplog.text


def test_pick_provider_strips_a_pasted_key(make_double):
    double = make_double()
    picker = pick_provider(environ={})
    picker.choice.value = "anthropic"
    picker.base_url.value = double.base_url("anthropic")
    picker.key.value = f"  {SECRET}\n"  # pasted with the spaces and newline around it
    assert picker.key.value == ""
    picker.test_button.click()
    assert "connected" in picker.status.value  # not "nothing answers" (httpx refuses the header)
    assert_no_secret(picker)


# -- wire_view -------------------------------------------------------------------------------
def test_wire_view_has_one_tab_per_api():
    run = paris_run()
    tabs = wire_view(run.transcript, [get_weather])
    assert tabs.titles == ("Anthropic Messages", "OpenAI Responses", "OpenAI Chat", "Ollama")
    assert len(tabs.children) == 4
    assert "input_schema" not in tabs.views["anthropic"].value  # tools summarised
    assert "(1 item hidden)" in tabs.views["anthropic"].value
    assert "function_call_output" in tabs.views["responses"].value
    assert html.escape('"role": "tool"') in tabs.views["chat"].value
    assert "claude-haiku-5-5" in tabs.views["anthropic"].value
    assert wire_view(run.transcript, [get_weather]).views["chat"].value == tabs.views["chat"].value


def test_wire_view_escapes_text():
    tabs = wire_view(Transcript(messages=[Message.user("</pre><img src=x onerror=alert(1)>")]))
    for view in tabs.children:
        assert "<img" not in view.value


def test_cost_explorer_full_figure_shows_the_lesson_figures():
    compact, full = cost_explorer(), cost_explorer(figure="full")
    assert compact.figure.value != full.figure.value
    assert "Left: one bar per call" in full.figure_caption.value  # plots.describe_loop_tokens
    assert compact.comparison.value == full.comparison.value
    full.caching.value = True
    assert "with the history cached" in full.figure_caption.value
    with pytest.raises(ValueError, match='"compact" or "full"'):
        cost_explorer(figure="big")


# -- fitting a 1280x720 screen, in either JupyterLab theme ------------------------------------
def row_holding(widget, *parts):
    """The HBox under `widget` whose children (one per part) hold each of `parts`, or None."""
    for box in walk(widget):
        if type(box).__name__ == "HBox":
            holders = [next((i for i, child in enumerate(box.children)
                             if any(p is w for w in walk(child))), None) for p in parts]
            if None not in holders and len(set(holders)) == len(parts):
                return box
    return None


def html_values(widget):
    return [w.value for w in walk(widget) if type(w).__name__ == "HTML"]


def test_step_through_puts_the_diagram_beside_the_message_and_caps_its_height():
    from toolcall_lab.views.widgets._step_through import DIAGRAM_MAX_HEIGHT

    w = step_through(paris_run(), tools=[get_weather])
    assert w.diagram.layout.max_height == DIAGRAM_MAX_HEIGHT == "400px"
    assert w.diagram.layout.max_width == "100%"
    # the buttons share one row; the diagram sits beside what message k is and becomes on the wire
    assert row_holding(w, w.previous_button, w.next_button) is w.children[0]
    assert all(p in w.children[0].children for p in (w.slider, w.position))
    assert row_holding(w, w.diagram, w.message) is not None
    assert row_holding(w, w.diagram, w.wire) is not None
    for row in (w.children[0], row_holding(w, w.diagram, w.message)):
        assert row.layout.flex_flow == "row wrap"  # a narrow screen stacks the parts, no sideways scroll


def _png_size(data: bytes) -> tuple[int, int]:
    from io import BytesIO

    from PIL import Image

    return Image.open(BytesIO(data)).size


def test_step_through_draws_its_diagram_at_the_size_it_is_shown():
    # issue 18 §5: drawn 12 inches wide and shrunk into a ~470 px column, its labels were 7-8 px
    from toolcall_lab.views.display.diagram import FONT
    from toolcall_lab.views.widgets._step_through import DIAGRAM_INCHES

    w = step_through(paris_run(), tools=[get_weather])
    width, _ = _png_size(w.diagram.value)
    assert width == DIAGRAM_INCHES * 100 <= 600
    column = 470  # the diagram's column at 1280x720, JupyterLab's file browser open
    assert FONT * 100 / 72 * column / width >= 16  # pixels of a 14-point label, as shown


def test_step_through_never_cuts_the_current_message():
    from toolcall_lab import Message, ToolCall, ToolResult, Transcript
    from toolcall_lab.views.widgets._step_through import WINDOW, _Diagram

    cities = [f"City{i}" for i in range(14)]  # one reply asking 14 calls: taller than the window
    calls = [ToolCall(f"toolu_{i:02}", "get_weather", {"city": city}) for i, city in enumerate(cities)]
    transcript = Transcript(messages=[
        Message.user("Weather everywhere?"), Message.assistant(*calls),
        Message.results([ToolResult(c.id, "18°C") for c in calls]), Message.assistant("Done.")])
    diagram = _Diagram(transcript)
    for k in range(len(transcript)):
        top, bottom = diagram.boxes[k][1], diagram.boxes[k][3]
        _, height = _png_size(diagram.png(k))
        assert height - diagram.header >= bottom - top, f"message {k + 1} is cut"
    assert diagram.boxes[2][3] - diagram.boxes[2][1] > WINDOW  # the results: the case the rule is for


def test_step_through_wire_part_is_one_wrapped_line():
    w = step_through(paris_run(), tools=[get_weather])
    w.slider.value = 2  # the tool call: 14 lines as indented JSON
    body = html.unescape(w.wire.value.split("<pre", 1)[1].split(">", 1)[1].rsplit("</pre>", 1)[0])
    assert "\n" not in body and json.loads(body)["content"][0]["name"] == "get_weather"
    assert "white-space:pre-wrap" in w.wire.value


def test_cost_explorer_caching_checkbox_label_is_never_cut():
    w = cost_explorer()
    assert w.caching.description == "prompt caching"
    assert w.caching.indent is False  # no fixed description column to truncate it into "prompt cac…"
    assert w.caching.style.description_width == "initial"
    for slider in (w.calls, w.first, w.per_step):
        assert slider.style.description_width == "14em"  # fits "added per step (tokens)" at 13px
        assert slider.layout.width == "100%"


def test_cost_explorer_puts_controls_beside_what_they_change():
    from toolcall_lab.views.widgets._cost_explorer import FIGURE_MAX_HEIGHT

    w = cost_explorer()
    assert row_holding(w, w.calls, w.comparison) is w.children[0]
    assert row_holding(w, w.caching, w.totals) is w.children[0]
    assert row_holding(w, w.figure, w.table) is w.children[1]
    assert any(w.figure_caption is part for part in walk(w.children[1]))
    assert w.figure.layout.max_height == FIGURE_MAX_HEIGHT == "272px"
    assert all(row.layout.flex_flow == "row wrap" for row in w.children)
    assert len(w.figure.value) > 0 and w.figure.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_cost_explorer_compact_figure_is_drawn_at_the_size_it_is_shown():
    import io

    from PIL import Image

    w = cost_explorer()
    assert Image.open(io.BytesIO(w.figure.value)).size == (512, 272)  # no shrinking at 1280x720


def test_cost_explorer_one_call_says_what_it_sends_instead_of_a_ratio_below_one():
    w = cost_explorer(n=1, h0=2000, t=500)
    text = html.unescape(w.comparison.value)
    assert "1 call: 2,000 tokens billed, the first request sent once" in text
    assert "the conversation ends at 2,500;" in text and "re-sending starts at call 2" in text
    assert "0.8" not in text and "times" not in text and "x)" not in text
    w.per_step.value = 0
    assert "Its step adds nothing, so that is the whole conversation" in html.unescape(w.comparison.value)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 50])
@pytest.mark.parametrize(("h0", "t"), [(100, 0), (100, 5000), (2000, 500), (20000, 50)])
def test_cost_explorer_comparison_is_true_for_every_setting(n, h0, t):
    import re

    from toolcall_lab.views.cost import loop_bill

    w = cost_explorer(n=n, h0=h0, t=t)
    text = html.unescape(re.sub(r"<[^>]+>", " ", w.comparison.value))
    total, final = n * h0 + t * n * (n - 1) // 2, h0 + n * t  # worked out here, not read back
    assert f"{total:,} tokens billed" in text
    times = re.findall(r"([\d.]+) times its size", text)
    if n == 1:
        assert times == []
        assert f"ends at {final:,};" in text if t else "that is the whole conversation" in text
    elif total >= final:
        assert times == [f"{total / final:.1f}"] and float(times[0]) >= 1.0
    else:
        assert times == [] and "fewer than the" in text and f"last step's {t:,} tokens" in text
    assert loop_bill(n, h0, t, model="claude-opus-5").total_tokens == total


def test_every_widget_takes_its_colours_from_the_jupyterlab_theme():
    run = paris_run()
    step = step_through(run, tools=[get_weather])
    explorer = cost_explorer(model="claude-opus-5", caching=True)
    picker = pick_provider(environ={})
    tabs = wire_view(run.transcript, [get_weather])
    seen = []
    for widget in (step, explorer, picker, tabs):
        for value in html_values(widget):
            assert value and theme_problems(value) == [], value[:200]
            seen.append(value)
    step.next_button.click()
    explorer.calls.value = 1
    for value in html_values(step) + html_values(explorer):
        assert theme_problems(value) == []
    joined = "".join(seen)
    assert "var(--jp-content-font-color0, #000)" in joined and "var(--jp-layout-color0, #fff)" in joined
    assert "#fff;" not in joined.replace("#fff)", "") and "background:#" not in joined.replace(
        "background:#D55E00", "")


def test_wire_view_bodies_scroll_inside_a_capped_box():
    from toolcall_lab.views.widgets._wire_view import BODY_MAX_HEIGHT

    tabs = wire_view(paris_run().transcript, [get_weather])
    for view in tabs.views.values():
        assert f"max-height:{BODY_MAX_HEIGHT};overflow:auto" in view.value


def test_step_through_totals_are_the_full_estimate_of_every_prefix():
    """The running totals (O(n)) equal re-estimating every prefix the old way (issue 9, item 21)."""
    from toolcall_lab import Message, Transcript
    from toolcall_lab.tokens import estimate_tokens, request_text
    from toolcall_lab.views.widgets._step_through import _input_so_far

    run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    transcript = Transcript(run.transcript.system, [*run.transcript.messages, Message.user("And London?"),
                                                    Message.assistant("Rainy.")])
    calls = [(i, estimate_tokens(request_text(Transcript(transcript.system, transcript.messages[:i]),
                                              [get_weather])))
             for i, m in enumerate(transcript) if m.role == "assistant"]
    expected = [(len(made), sum(c[1] for c in made), bool(made))
                for k in range(len(transcript)) for made in [[c for c in calls if c[0] <= k]]]
    assert _input_so_far(transcript, None, [get_weather]) == expected
    with_run = _input_so_far(run.transcript, run, [get_weather])
    assert with_run[-1] == (len(run.steps), sum(s.usage.input_tokens for s in run.steps), True)


def test_step_through_draws_the_diagram_once_and_shows_a_window_per_message(monkeypatch):
    """Issue 9, item 21: a click crops the one drawing; it never redraws the whole diagram."""
    import io

    from PIL import Image

    import toolcall_lab.views.display.diagram as diagram
    from toolcall_lab import ScriptedProvider, call, run_agent
    from toolcall_lab.examples import PARIS_QUESTION
    from toolcall_lab.tools import get_weather
    from toolcall_lab.views.widgets import step_through
    from toolcall_lab.views.widgets._step_through import WINDOW

    drawn = []
    real = diagram.plot_sequence
    monkeypatch.setattr(diagram, "plot_sequence", lambda *a, **k: drawn.append(k) or real(*a, **k))
    script = [call("get_weather", city="Paris")] * 24 + ["done"]
    run = run_agent(ScriptedProvider(script), PARIS_QUESTION, tools=[get_weather], max_steps=30)
    widget = step_through(run, tools=[get_weather])
    for _ in range(len(run.transcript) - 1):
        widget.next_button.click()
    assert len(drawn) == 1 and drawn[0].get("highlight") is None
    height = Image.open(io.BytesIO(widget.diagram.value)).height
    assert height <= WINDOW + 150   # the lane headers over one window, not the whole run


def test_each_factory_is_the_only_public_name_of_its_module():
    """A module named like its factory would be shadowed by it; the modules carry an underscore."""
    import toolcall_lab.views.widgets as widgets

    for name in ("cost_explorer", "step_through", "wire_view"):
        module = importlib.import_module(f"toolcall_lab.views.widgets._{name}")
        assert getattr(widgets, name) is getattr(module, name) and callable(getattr(widgets, name))
        assert module.__all__ == [name]


def test_each_widget_reads_as_what_it_is_before_its_cell_runs():
    # issue 18 §5: a committed widget output showed `VBox(children=(HBox(...` until run
    made = {"step-through": step_through(paris_run(), tools=[get_weather]), "cost explorer": cost_explorer(),
            "provider picker": pick_provider(environ={}), "wire view": wire_view(paris_run().transcript)}
    for name, widget in made.items():
        text = widget._repr_mimebundle_()["text/plain"]
        assert text.lower().startswith(name) and text.endswith("(run the cell to use it)"), text
        assert len(repr(widget)) <= 110 and "children=" not in text  # ipywidgets cuts at 110
        assert type(widget).__name__ in ("VBox", "Tab", "ProviderPicker")
    assert "4 messages" in repr(made["step-through"])


# -- interval_explorer -------------------------------------------------------------------------
def test_interval_explorer_defaults_say_what_forty_evals_of_twenty_runs_show():
    from toolcall_lab.evals import simulate, wilson
    from toolcall_lab.views.widgets import interval_explorer

    w = interval_explorer(runs=20, rate=0.8)
    counts = simulate(0.8, 20, evals=40, seed=0)
    assert f"{counts[0]} passed" in w.first.value and str(wilson(counts[0], 20)) in w.first.value
    held = sum(wilson(count, 20).holds(0.8) for count in counts)
    assert f"{held} of the 40 intervals hold" in w.summary.value
    assert "true pass rate is 80%" in w.figure_caption.value
    assert w.figure.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_interval_explorer_updates_on_every_control_and_the_button_draws_anew(capsys):
    from toolcall_lab.views.widgets import interval_explorer

    w = interval_explorer()
    before = (w.first.value, w.summary.value, w.figure.value)
    w.runs.value = 200
    assert "200 runs" in w.first.value and "200 runs each" in w.figure_caption.value
    w.rate.value = 0.6
    assert "true 60%" in w.summary.value
    shown = w.summary.value
    w.again.click()
    assert w.summary.value != shown or w.first.value != before[0]
    assert capsys.readouterr().out == ""  # values set, nothing printed
    assert not any(type(part).__name__ == "Output" for part in walk(w))


def test_interval_explorer_figure_is_drawn_at_the_size_it_is_shown_and_fits_720p():
    import io

    from PIL import Image

    from toolcall_lab.views.widgets import interval_explorer
    from toolcall_lab.views.widgets._interval_explorer import FIGURE_MAX_HEIGHT

    w = interval_explorer()
    assert Image.open(io.BytesIO(w.figure.value)).size == (512, 288)  # no shrinking at 1280x720
    assert w.figure.layout.max_height == FIGURE_MAX_HEIGHT == "300px"
    assert w.layout.flex_flow == "row wrap"
    for slider in (w.runs, w.rate):
        assert slider.layout.width == "100%" and slider.style.description_width == "11em"


def test_interval_explorer_takes_its_colours_from_the_theme():
    from toolcall_lab.views.widgets import interval_explorer

    w = interval_explorer()
    w.runs.value = 10
    for value in html_values(w):
        assert value and theme_problems(value) == [], value[:200]


def test_the_step_through_shows_the_items_under_each_apis_own_key(monkeypatch):
    # issue 30: the key was a table by API name ("input" for Responses), which a new API had to join
    from toolcall_lab.views.widgets._step_through import _wire_part
    from toolcall_lab.wire import API_SPECS, ApiSpec

    monkeypatch.setitem(API_SPECS, "toy", ApiSpec("toy", "Toy", "/toy", "/v1", "openai", "toy-",
                                                  package="toolcall_lab.wire.responses"))
    shown = _wire_part(Transcript(messages=[Message.user("Hi")]), 0, (), "toy", None)
    assert "message 1 in the Toy request body: input[0]" in shown


def test_the_stream_player_offers_each_apis_first_recording():
    from toolcall_lab.recorded import RECORDINGS
    from toolcall_lab.views.widgets._stream_player import ONE_PER_API
    from toolcall_lab.wire import API_SPECS

    assert ONE_PER_API == ("anthropic", "responses", "chat", "ollama")
    assert [RECORDINGS[name].api for name in ONE_PER_API] == list(API_SPECS)
