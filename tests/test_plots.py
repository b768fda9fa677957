"""The cost figures: right numbers, readable on a projector, never colour alone, no secrets,
and each shows as a picture (not `<Figure size ...>` text) as a notebook cell's last value."""

import base64
import io
import pickle
import struct
import subprocess
import sys

import matplotlib
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from toolcall_lab import Message, Run, ScriptedProvider, Step, Transcript, Turn, Usage, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.models import default_model
from toolcall_lab.tokens import loop_input_tokens
from toolcall_lab.tools import get_weather
from toolcall_lab.views import _figure, palette, plots
from toolcall_lab.views._figure import new_figure, to_png
from toolcall_lab.views.cost import dollars, loop_bill
from toolcall_lab.views.palette import OKABE_ITO
from toolcall_lab.views.plots import (
    describe_caching,
    describe_estimated_vs_billed,
    describe_loop_tokens,
    estimated_vs_billed,
    plot_caching,
    plot_estimated_vs_billed,
    plot_loop_tokens,
)

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


@pytest.mark.slow
def test_importing_the_modules_loads_no_matplotlib():
    code = ("import toolcall_lab.views.cost, toolcall_lab.views.plots, toolcall_lab.teacher.figures, sys; "
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
    from toolcall_lab.teacher.figures import paris_double_run

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
    assert [(r.estimated_input, r.billed_input) for r in rows] == [(111, 397), (168, 454)]
    assert "hidden 286-token tool-use system prompt" in all_text(fig)
    described = describe_estimated_vs_billed(run, tools=[get_weather])
    assert "call 2: input 168 estimated vs 454 billed" in described
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
    from toolcall_lab.views.plots import describe_caching, describe_loop_tokens

    single = describe_caching(1, 2000, 500, model="claude-opus-5")
    assert "25% more" in single and "a single call never reads the cache back" in single
    free_writes = describe_caching(10, 2000, 500, model="gpt-4o")
    assert "Call 1 costs the same with caching" in free_writes
    one_call = describe_loop_tokens(1, 2000, 500)
    assert "below the dashed line at 2,500" in one_call and "x)" not in one_call
    assert "x)" not in describe_loop_tokens(2, 2000, 5000)   # billed < final: no ratio below 1
    assert "rises to 20,000" in describe_loop_tokens(10, 2000, 0)
    assert "curves upward to 42,500, far above" in describe_loop_tokens()


# -- every figure displays as a picture ------------------------------------------------------
def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's header: the IHDR chunk follows the 8-byte signature."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", png[16:24])


def made(name: str) -> Figure:
    """Each plot function with lesson arguments, and its text alternative."""
    return {"loop_tokens": lambda: plot_loop_tokens(10, 2000, 500),
            "caching": lambda: plot_caching(10, 2000, 500, model="claude-opus-5"),
            "estimated_vs_billed": lambda: plot_estimated_vs_billed(scripted_run(), tools=[get_weather]),
            }[name]()


DESCRIBED = {"loop_tokens": lambda: describe_loop_tokens(10, 2000, 500),
             "caching": lambda: describe_caching(10, 2000, 500, model="claude-opus-5"),
             "estimated_vs_billed": lambda: describe_estimated_vs_billed(scripted_run(), tools=[get_weather])}


@pytest.mark.parametrize("name", list(DESCRIBED))
def test_each_plot_displays_as_a_png_with_its_text_alternative(name):
    fig = made(name)
    bundle = fig._repr_mimebundle_()
    assert sorted(bundle) == ["image/png", "text/plain"]
    assert png_size(base64.b64decode(bundle["image/png"])) == (1280, 720)
    assert " ".join(bundle["text/plain"].split()) == DESCRIBED[name]()  # the same words, wrapped
    first_line = bundle["text/plain"].split("\n")[0]
    assert repr(fig) == first_line == DESCRIBED[name]().split(". ")[0] + "."
    for text in (bundle["text/plain"], repr(fig)):
        assert not text.startswith("<Figure")
    assert max(len(line) for line in bundle["text/plain"].split("\n")[1:]) <= 100


@pytest.mark.parametrize("name", list(DESCRIBED))
def test_ipython_formats_each_plot_as_a_png(name):
    """The real notebook path: what the kernel sends for a cell's last value."""
    from IPython.core.formatters import DisplayFormatter

    fig = made(name)
    data, metadata = DisplayFormatter().format(fig)
    assert set(data) == {"image/png", "text/plain"} and metadata == {}
    assert png_size(base64.b64decode(data["image/png"])) == (1280, 720)
    assert data["text/plain"] == fig._repr_mimebundle_()["text/plain"]
    assert not data["text/plain"].startswith("<Figure")


def test_the_png_is_deterministic_and_carries_no_version_or_date():
    fig = plot_loop_tokens(3, 100, 10)
    png = fig._repr_png_()
    assert png == fig._repr_png_() == plot_loop_tokens(3, 100, 10)._repr_png_()
    assert png == to_png(fig, description=describe_loop_tokens(3, 100, 10))
    assert b"matplotlib" not in png.lower() and b"Software" not in png
    with Image.open(io.BytesIO(png)) as image:
        assert image.info["Description"] == describe_loop_tokens(3, 100, 10)  # the text alternative too


def test_a_notebooks_savefig_settings_do_not_change_the_picture():
    fig = plot_caching()
    with matplotlib.rc_context({"savefig.bbox": "tight", "savefig.transparent": True, "savefig.dpi": 50}):
        png = fig._repr_png_()
    assert png == fig._repr_png_() and png_size(png) == (1280, 720)


def test_the_figure_is_still_a_matplotlib_figure_that_pickles():
    fig = plot_loop_tokens(3, 100, 10)
    assert isinstance(fig, Figure) and isinstance(fig, _figure.DescribedFigure)
    again = pickle.loads(pickle.dumps(fig))
    assert type(again) is _figure.DescribedFigure and again.description == fig.description
    assert png_size(again._repr_png_()) == (1280, 720)


def test_new_figure_without_a_description_still_says_what_it_is():
    fig = new_figure("", figsize=(4, 3))
    assert repr(fig) == "A 400x300-pixel figure with no text alternative."
    assert "Description" not in Image.open(io.BytesIO(fig._repr_png_())).info


def test_mime_bundle_honours_include_and_exclude():
    fig = plot_loop_tokens(3, 100, 10)
    assert list(fig._repr_mimebundle_(include={"text/plain"})) == ["text/plain"]
    assert list(fig._repr_mimebundle_(exclude={"text/plain"})) == ["image/png"]


INLINE_BACKEND = """
import base64, struct
from IPython.core.interactiveshell import InteractiveShell
from matplotlib_inline.backend_inline import configure_inline_support, flush_figures
shell = InteractiveShell.instance()
configure_inline_support(shell, "module://matplotlib_inline.backend_inline")  # as `import pyplot` does
import matplotlib.pyplot as plt
from matplotlib._pylab_helpers import Gcf
from toolcall_lab.views.plots import plot_loop_tokens
fig = plot_loop_tokens()
data, _ = shell.display_formatter.format(fig)
png = base64.b64decode(data["image/png"]) if isinstance(data["image/png"], str) else data["image/png"]
first = data["text/plain"].split("\\n")[0]
print(sorted(data), png[:4] == b"\\x89PNG", first, len(Gcf.get_all_fig_managers()))
"""


@pytest.mark.slow
def test_with_pyplots_inline_backend_active_a_figure_still_shows_once_as_a_picture():
    # subtle: the inline backend registers its own PNG formatter for every Figure, which IPython
    # prefers to a `_repr_mimebundle_` (its PNG is cropped "tight"); it is still one picture, and
    # the figure is not pyplot's, so the backend's flush at the end of a cell does not show it again.
    out = subprocess.run([sys.executable, "-c", INLINE_BACKEND], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "['image/png', 'text/plain'] True Input tokens billed by a 10-call loop that starts at 2,000 "
        "tokens and adds 500 per step. 0")


def test_the_palette_is_written_once():
    """Every colour of `palette.OKABE_ITO` is spelled in palette.py only: the cost figures, the
    sequence diagram and the HTML views take it from there by name."""
    from pathlib import Path

    src = Path(palette.__file__).parents[1]  # the whole package
    spelled = [f"{path.relative_to(src)}: {code}" for path in sorted(src.rglob("*.py"))
               if path.name != "palette.py"
               for code in palette.OKABE_ITO.values() if code.lower() in path.read_text().lower()]
    assert spelled == []


def test_the_figure_helpers_live_in_one_module_only():
    """One address per name (issue 20): plots draws the figures, _figure makes and shows them."""
    assert not {"new_figure", "to_png", "figure_style", "OKABE_ITO"} & set(plots.__all__)
    assert not hasattr(plots, "DescribedFigure")
    assert type(pickle.loads(pickle.dumps(new_figure("x", figsize=(2, 2))))) is _figure.DescribedFigure
