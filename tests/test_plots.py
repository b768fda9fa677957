"""The cost figures: right numbers, readable on a projector, never colour alone, no secrets."""

import subprocess
import sys

import matplotlib
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from toolcall_lab import Message, Run, ScriptedProvider, Step, Transcript, Turn, Usage, run_agent
from toolcall_lab.cost import dollars, loop_bill
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.models import default_model
from toolcall_lab.plots import (
    OKABE_ITO,
    describe_caching,
    describe_estimated_vs_billed,
    describe_loop_tokens,
    estimated_vs_billed,
    plot_caching,
    plot_estimated_vs_billed,
    plot_loop_tokens,
)
from toolcall_lab.tokens import loop_input_tokens
from toolcall_lab.tools import get_weather

PALETTE = {matplotlib.colors.to_hex(c) for c in OKABE_ITO.values()}


def texts(fig: Figure) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_text() and t.get_visible()]


def all_text(fig: Figure) -> str:
    return "\n".join(t.get_text() for t in texts(fig))


def scripted_run() -> Run:
    return run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])


def assert_projector_ready(fig: Figure) -> None:
    assert isinstance(fig, Figure)
    width, height = fig.get_size_inches() * fig.dpi
    assert (round(width), round(height)) == (1280, 720)
    for t in texts(fig):
        assert t.get_fontsize() >= 14, (t.get_text(), t.get_fontsize())
        assert t.get_fontfamily() == ["sans-serif"] and t.get_fontname() == "DejaVu Sans"
    titles = [t for t in texts(fig) if t in [ax.title for ax in fig.axes] or t is fig._suptitle]
    assert titles and all(t.get_fontsize() >= 14 for t in titles)


def test_importing_the_modules_loads_no_matplotlib():
    code = ("import toolcall_lab.cost, toolcall_lab.plots, toolcall_lab.figures, sys; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- the loop ------------------------------------------------------------------------------
def test_loop_tokens_draws_the_lesson_numbers():
    fig = plot_loop_tokens()
    assert_projector_ready(fig)
    bars_ax, total_ax = fig.axes
    heights = [p.get_height() for p in bars_ax.patches]
    assert heights == loop_input_tokens(10, 2000, 500)
    assert all(p.get_hatch() == "//" for p in bars_ax.patches)  # not colour alone
    running, naive = total_ax.get_lines()
    assert list(running.get_ydata()) == list(loop_bill(10, 2000, 500, model="claude-opus-5").cumulative)
    assert running.get_marker() == "o" and naive.get_linestyle() == "--"
    assert list(naive.get_ydata()) == [7000, 7000]
    assert "42,500 billed for a\n7,000-token conversation" in all_text(fig)
    assert "6,500" in all_text(fig)  # the tenth call's bar is labelled
    legend = [t.get_text() for t in total_ax.get_legend().get_texts()]
    assert legend == ["running total billed", "final conversation, billed once"]


def test_loop_tokens_annotation_is_computed_from_the_numbers():
    fig = plot_loop_tokens(5, 1000, 200)  # 5*1,000 + 200*10 = 7,000 for a 2,000-token conversation
    assert "7,000 billed for a\n2,000-token conversation" in all_text(fig)
    assert "7,000 billed for a 2,000-token conversation (3.5x)" in describe_loop_tokens(5, 1000, 200)
    with pytest.raises(ValueError, match="at least one call"):
        plot_loop_tokens(0)


def test_a_notebooks_own_style_does_not_leak_into_the_figures():
    with matplotlib.rc_context({"font.size": 6, "font.family": "serif", "lines.linewidth": 0.5}):
        fig = plot_loop_tokens()
    assert_projector_ready(fig)
    assert fig.axes[1].get_lines()[0].get_linewidth() == 3


def test_loop_tokens_description_says_it_in_words():
    text = describe_loop_tokens()
    for fact in ("10-call loop", "from 2,000 on call 1", "to 6,500 on call 10", "dashed line at 7,000",
                 "42,500 billed for a 7,000-token conversation (6.1x)"):
        assert fact in text


# -- caching -------------------------------------------------------------------------------
def test_caching_draws_both_bills_with_markers_styles_and_direct_labels():
    fig = plot_caching()
    assert_projector_ready(fig)
    (ax,) = fig.axes
    plain_line, cached_line = ax.get_lines()
    model = default_model("anthropic")
    plain = loop_bill(10, 2000, 500, model=model)
    cached = loop_bill(10, 2000, 500, model=model, caching=True)
    assert list(plain_line.get_ydata()) == list(plain.cumulative_dollars)
    assert list(cached_line.get_ydata()) == list(cached.cumulative_dollars)
    assert (plain_line.get_marker(), cached_line.get_marker()) == ("o", "s")
    assert (plain_line.get_linestyle(), cached_line.get_linestyle()) == ("-", "--")
    assert {matplotlib.colors.to_hex(line.get_color()) for line in (plain_line, cached_line)} <= PALETTE
    words = all_text(fig)
    assert f"no caching:\n{dollars(plain.total_dollars)}" in words
    assert f"caching (72% less):\n{dollars(cached.total_dollars)}" in words
    assert model in words and "2026-11-30" in words  # which prices, as of when


def test_caching_takes_any_table_model():
    fig = plot_caching(model="claude-opus-5", output_per_call=200)
    cached = loop_bill(10, 2000, 500, model="claude-opus-5", caching=True, output_per_call=200)
    assert list(fig.axes[0].get_lines()[1].get_ydata()) == list(cached.cumulative_dollars)
    assert "claude-opus-5" in describe_caching(model="claude-opus-5")
    with pytest.raises(ValueError, match="no price for model"):
        plot_caching(model="qwen3:4b")


# -- estimated vs billed ---------------------------------------------------------------------
def test_estimated_vs_billed_numbers_for_the_scripted_run():
    rows = estimated_vs_billed(scripted_run(), tools=[get_weather])
    assert [(r.estimated_input, r.billed_input, r.estimated_output, r.billed_output) for r in rows] == [
        (104, 104, 21, 21), (161, 161, 14, 14)]
    # without the tool definitions, the estimate misses what every request carries
    assert estimated_vs_billed(scripted_run())[0].estimated_input < 104


def test_estimated_vs_billed_figure_for_a_double_run():
    from toolcall_lab.figures import paris_double_run

    run = paris_double_run()
    fig = plot_estimated_vs_billed(run, tools=[get_weather])
    assert_projector_ready(fig)
    input_ax, output_ax = fig.axes
    rows = estimated_vs_billed(run, tools=[get_weather])
    assert [p.get_height() for p in input_ax.patches] == [r.estimated_input for r in rows] + [
        r.billed_input for r in rows]
    assert [p.get_height() for p in output_ax.patches] == [r.estimated_output for r in rows] + [
        r.billed_output for r in rows]
    hatches = {p.get_hatch() for p in input_ax.patches}
    assert hatches == {"//", None}  # estimate hatched, billed solid: not colour alone
    assert "billed (the provider's usage)" in all_text(fig)
    # the double bills Anthropic's hidden tool-use system prompt on top of what the request shows
    assert [(r.estimated_input, r.billed_input) for r in rows] == [(104, 390), (161, 447)]
    assert "hidden 286-token tool-use system prompt" in all_text(fig)
    described = describe_estimated_vs_billed(run, tools=[get_weather])
    assert "call 2: input 161 estimated vs 447 billed" in described
    assert described.endswith("Each call's input includes a hidden 286-token tool-use system prompt.")


def test_estimated_vs_billed_says_when_usage_is_itself_an_estimate_or_differs():
    fig = plot_estimated_vs_billed(scripted_run(), tools=[get_weather])
    assert "reported (itself an estimate: scripted provider)" in all_text(fig)
    assert "the scripted provider's usage is this same estimate" in all_text(fig)
    transcript = Transcript(messages=[Message.user(PARIS_QUESTION)])
    reply = Turn(Message.assistant("It's 18°C and sunny in Paris."), "end_turn",
                 Usage(input_tokens=400, output_tokens=12), "claude-haiku-5-5")
    transcript.append(reply.message)
    real_looking = Run(transcript, [Step(1, reply, 1)])
    fig = plot_estimated_vs_billed(real_looking)
    assert "make the pairs differ" in all_text(fig)
    assert "make the pairs differ" in describe_estimated_vs_billed(real_looking)
    with pytest.raises(ValueError, match="no model calls"):
        plot_estimated_vs_billed(Run(Transcript()))


def test_no_figure_shows_a_key_from_the_environment(monkeypatch):
    secret = "sk-ant-api03-SECRET-do-not-show-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    from toolcall_lab import ApiDouble, get_provider

    with ApiDouble() as double:
        provider = get_provider("anthropic", base_url=double.base_url("anthropic"))  # the env key
        run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    figures = [plot_loop_tokens(), plot_caching(), plot_estimated_vs_billed(run, tools=[get_weather])]
    for fig in figures:
        assert secret not in all_text(fig) and "sk-ant" not in all_text(fig)
    assert secret not in describe_estimated_vs_billed(run, tools=[get_weather])


def test_the_text_alternatives_stay_true_at_the_edges():
    from toolcall_lab.plots import describe_caching, describe_loop_tokens

    single = describe_caching(1, 2000, 500, model="claude-opus-5")
    assert "25% more" in single and "a single call never reads the cache back" in single
    free_writes = describe_caching(10, 2000, 500, model="gpt-4o")
    assert "Call 1 costs the same with caching" in free_writes
    assert "not above the dashed line" in describe_loop_tokens(1, 2000, 500)
    assert "rises to 20,000" in describe_loop_tokens(10, 2000, 0)
    assert "curves upward to 42,500, far above" in describe_loop_tokens()
