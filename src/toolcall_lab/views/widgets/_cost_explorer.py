"""Drag the size of a tool loop and watch its input bill grow with the square of the calls.

`cost_explorer()` puts `cost.loop_bill` behind sliders: the number of model calls, the
first request's tokens and the tokens each step adds, a model from `models.PRICES` and a
prompt-caching checkbox. Each change rewrites the per-call table, the totals, the
"billed vs conversation size" sentence and the figure with its caption in words:

    >>> w = cost_explorer(n=3, h0=1000, t=100)
    >>> w.calls.value = 4
    >>> "4,600 tokens billed for a 1,400-token conversation" in w.comparison.value
    True

Call j re-sends everything so far: 1,000 + 1,100 + 1,200 + 1,300 = 4,600 tokens billed,
for a conversation that ends at 1,000 + 4 x 100 = 1,400 tokens (the last step included).
With one call the bill is the smaller number (the step's tokens come after the call), and
the sentence says that instead of a "times" below 1 (`_comparison`).

Speed is part of the lesson: a learner drags a slider and expects the picture to follow,
so the default compact figure is drawn in place (`_CompactFigure`) in well under 100 ms.

Left out: output tokens and per-call timings; the lesson is the input side of the bill.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ...errors import UsageError
from ..display.html import THEME
from ._common import FONT, described, figure_png, render_png

if TYPE_CHECKING:
    from matplotlib.ticker import MaxNLocator
    from matplotlib.typing import RcKeyType

__all__ = ["cost_explorer"]


def _price_label(price: Any, model: str | None = None) -> str:
    return f"{model or price.model} (${price.input:g} in / ${price.output:g} out per MTok)"


_TABLE = f"border-collapse:collapse;{FONT};font-size:15px;line-height:1.3"
_CELL = f"border:1px solid {THEME['rule']};padding:1px 8px;text-align:right"
_HEAD = f"{_CELL};background:{THEME['shade']}"


def _bill_table(bill: Any) -> str:
    """HTML table: per-call and cumulative input tokens and dollars (middle rows elided)."""
    from ..cost import dollars

    n = len(bill.input_tokens)
    shown = list(range(n)) if n <= 12 else [*range(5), -1, *range(n - 5, n)]
    header = ["call", "input<br>tokens", "tokens<br>so far", "dollars", "dollars<br>so far"]  # narrow columns
    rows = ["<tr>" + "".join(f"<th style='{_HEAD}'>{h}</th>" for h in header) + "</tr>"]
    for i in shown:
        if i < 0:
            rows.append(f"<tr><td style='{_CELL};text-align:center' colspan='5'>"
                        f"… calls 6 to {n - 5} …</td></tr>")
            continue
        cells = [str(i + 1), f"{bill.input_tokens[i]:,}", f"{bill.cumulative[i]:,}",
                 dollars(bill.dollars[i]), dollars(bill.cumulative_dollars[i])]
        rows.append("<tr>" + "".join(f"<td style='{_CELL}'>{c}</td>" for c in cells) + "</tr>")
    return f"<table style='{_TABLE}'>{''.join(rows)}</table>"


def _comparison(bill: Any) -> tuple[str, str]:
    """The headline and why, in words: the input tokens billed against the final conversation.

    From call 2 on, each call re-sends the history, so the bill is usually a multiple of the
    final size, and the headline says how many times. It is not always larger: the tokens
    the last step adds come after the last call and are never sent, so one call (or a few
    calls that each add a lot) bill fewer tokens than the conversation ends with; then the
    second part says why, and no "times" below 1 is given.

    >>> from toolcall_lab.views.cost import loop_bill
    >>> _comparison(loop_bill(10, 2000, 500, model="claude-opus-5"))
    ('42,500 tokens billed for a 7,000-token conversation: 6.1 times its size', '')
    >>> for part in _comparison(loop_bill(1, 2000, 500, model="claude-opus-5")):
    ...     print(part)
    1 call: 2,000 tokens billed, the first request sent once
    Its step adds 500 tokens after it, so the conversation ends at 2,500; re-sending starts at call 2.
    """
    n, total, final, t = bill.calls, bill.total_tokens, bill.final_size, bill.t
    if n == 1:
        after = (f"Its step adds {t:,} tokens after it, so the conversation ends at {final:,}" if t
                 else "Its step adds nothing, so that is the whole conversation")
        headline = f"1 call: {total:,} tokens billed, the first request sent once"
        return headline, f"{after}; re-sending starts at call 2."
    if total >= final:
        times = f"{bill.ratio:.1f} times its size"
        return f"{total:,} tokens billed for a {final:,}-token conversation: {times}", ""
    # subtle: total + t >= final for every n >= 1, so the unsent last step is the whole shortfall
    fewer = f"fewer than the {final:,}-token conversation they end with"
    return (f"{total:,} tokens billed over {n} calls, {fewer}",
            f"The last step's {t:,} tokens came after the last call, so no call sent them.")


COMPACT_SIZE, COMPACT_DPI = (6.4, 3.4), 80  # inches and dots per inch: 512x272 pixels
_STYLE: dict[RcKeyType, Any]
_STYLE = {"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"], "font.size": 14,
          "axes.spines.top": False, "axes.spines.right": False, "lines.linewidth": 3, "lines.markersize": 7}
#: The tallest a figure is drawn in the widget (CSS): the lesson figures (`figure="full"`)
#: are 1280x720 and are shrunk to their column.
FIGURE_MAX_HEIGHT = "272px"


class _CompactFigure:
    """The explorer's quick figure: one panel, few ticks, built once and redrawn in place.

    Without caching: the running total of input tokens (solid line, circles) against
    the final conversation billed once (dashed line); with caching: cumulative dollars
    without (solid, circles) and with caching (dashed, squares). Each line is labelled
    at its end, so colour is never the only cue. The lesson figures, with per-call bars,
    are `plots.plot_loop_tokens` and `plots.plot_caching` (`cost_explorer(figure="full")`).

    Why one figure, kept: most of a fresh figure's time goes to building the axes and
    their tick artists (each tick is a line, a marker and a text), not to drawing them.
    Here every artist the two views need is made once, the view not shown is hidden, and
    a change only moves data, limits and label text before one Agg draw (`png`).
    """

    def __init__(self) -> None:
        import matplotlib
        from matplotlib.figure import Figure

        from ..palette import OKABE_ITO

        with matplotlib.rc_context(_STYLE):
            self.figure = Figure(figsize=COMPACT_SIZE, dpi=COMPACT_DPI)
            ax = self.axes = self.figure.add_axes((0.17, 0.17, 0.57, 0.70))  # title above, labels right
            (self.plain,) = ax.plot([], [], color=OKABE_ITO["vermillion"], marker="o")
            (self.cached,) = ax.plot([], [], color=OKABE_ITO["blue"], marker="s", linestyle="--")
            self.final = ax.axhline(0, color=OKABE_ITO["black"], linestyle="--", linewidth=2.5)
            # written in the right margin, level with their line's end
            self.labels = [ax.annotate("", (1, 0), xycoords=("axes fraction", "data"), xytext=(10, 0),
                                       textcoords="offset points", va="center", annotation_clip=False)
                           for _ in range(2)]
            # subtle: min_n_ticks=1, or a 1-call loop (one whole number in view) gets ticks 0.6, 0.8 …
            cast("MaxNLocator", ax.xaxis.get_major_locator()).set_params(integer=True, min_n_ticks=1)
            ax.set_xlabel("call")

    def png(self, plain: Any, cached: Any | None) -> bytes:
        """The figure for `plain` (a `cost.LoopBill`), with `cached` beside it if given, as PNG."""
        import matplotlib
        from matplotlib.ticker import FuncFormatter

        from ..cost import dollars

        ax, calls = self.axes, range(1, plain.calls + 1)
        with matplotlib.rc_context(_STYLE):
            if cached is None:
                self.plain.set_data(calls, plain.cumulative)
                self.final.set_ydata([plain.final_size, plain.final_size])
                labels = [(plain.cumulative[-1], f"running total\n{plain.total_tokens:,}", True),
                          (plain.final_size, f"final size\n{plain.final_size:,}", False)]
                ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
                ax.set_title("input tokens so far", loc="left", fontsize="medium")
            else:
                self.plain.set_data(calls, plain.cumulative_dollars)
                self.cached.set_data(calls, cached.cumulative_dollars)
                labels = [(plain.total_dollars, f"no caching\n{dollars(plain.total_dollars)}", True),
                          (cached.total_dollars, f"caching\n{dollars(cached.total_dollars)}", True)]
                ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: dollars(value)))
                ax.set_title("dollars so far", loc="left", fontsize="medium")
            self.cached.set_visible(cached is not None)
            self.final.set_visible(cached is None)
            top = max(y for y, _, _ in labels) * 1.1 or 1.0
            ax.set_ylim(0, top)
            ax.set_xlim(0.5, plain.calls + 0.5)
            # subtle: two labels whose lines end close together would overprint; keep them 15% apart
            previous = None
            for label, (y, text, bold) in zip(self.labels, sorted(labels), strict=True):
                y = y if previous is None else max(y, previous + 0.15 * top)
                label.xy = (1, y)
                label.set_text(text)
                label.set_fontweight("bold" if bold else "normal")
                previous = y
        return render_png(self.figure)


def cost_explorer(*, n: int = 10, h0: int = 2000, t: int = 500, model: str | None = None,
                  caching: bool = False, figure: str = "compact") -> Any:
    """Drag the size of a tool loop and watch the input bill grow with the square of the calls.

    Sliders set the number of model calls (`n`), the first request's tokens (`h0`:
    system prompt, tools, question) and the tokens each step adds (`t`: a call and its
    result); a dropdown picks the model from `models.PRICES` (by default
    `models.TEACHING_MODEL`, lesson 5's; a dated snapshot id is priced by its family, as
    `cost.cost_of` prices it), a checkbox turns prompt caching on. Every change recomputes
    `cost.loop_bill` and redraws the figure.

    `figure="compact"` (the default) draws one quick panel, the running total against
    the final size (or, with caching, dollars with and without), so a change updates in
    well under 100 ms; `figure="full"` shows the lesson figures, `plots.plot_loop_tokens`
    and `plots.plot_caching`, which take two to three times as long to draw.

    Laid out for a 1280x720 screen: the controls beside the sentences they change, the
    figure (at most `FIGURE_MAX_HEIGHT` tall) and its caption beside the table; on a narrow
    screen each row wraps into a column.

    Parts: `calls`, `first`, `per_step` (IntSliders), `model` (Dropdown), `caching`
    (Checkbox), `table`, `comparison`, `totals` (HTML), `figure` (Image),
    `figure_caption` (HTML, the figure in words).

    >>> w = cost_explorer()
    >>> "42,500 tokens billed for a 7,000-token conversation" in w.comparison.value
    True
    """
    if figure not in ("compact", "full"):
        raise UsageError(f'figure must be "compact" or "full", not {figure!r}.')
    controls = _controls(n=n, h0=h0, t=t, model=model, caching=caching)
    views = _views()
    update = _updater(controls, views, figure=figure)
    for control in controls.values():
        control.observe(update, names="value")
    update()
    return _laid_out(controls, views)


def _controls(*, n: int, h0: int, t: int, model: str | None, caching: bool) -> dict[str, Any]:
    """The three sliders, the model dropdown and the caching checkbox, named as the widget's parts."""
    import ipywidgets as widgets

    from ...models import PRICES, TEACHING_MODEL, require_price

    model = model or TEACHING_MODEL
    price = require_price(model)  # priced as `cost_of` prices it: a dated snapshot id by its family
    options = [(_price_label(p), p.model) for p in PRICES.values()]
    if model not in PRICES:  # a dated snapshot id ("claude-haiku-4-5-20251001") is offered as itself
        options.insert(0, (_price_label(price, model), model))
    # descriptions in a fixed column, so the four tracks line up; every part stretches to its column
    wide, full = {"description_width": "14em"}, widgets.Layout(width="100%")
    calls = widgets.IntSlider(value=n, min=1, max=max(50, n), description="model calls",
                              style=wide, layout=full)
    first = widgets.IntSlider(value=h0, min=min(100, h0), max=max(20_000, h0), step=100,
                              description="first request (tokens)", style=wide, layout=full)
    per_step = widgets.IntSlider(value=t, min=0, max=max(5_000, t), step=50,
                                 description="added per step (tokens)", style=wide, layout=full)
    model_box = widgets.Dropdown(options=options, value=model, description="model",
                                 style={"description_width": "initial"}, layout=full)
    # subtle: a Checkbox truncates its description to the width of the description column
    # ("prompt cac…"); indent=False drops that column, and the label takes the room it needs
    caching_box = widgets.Checkbox(value=caching, description="prompt caching", indent=False,
                                   style={"description_width": "initial"},
                                   layout=widgets.Layout(width="auto"))
    return dict(calls=calls, first=first, per_step=per_step, model=model_box, caching=caching_box)


def _views() -> dict[str, Any]:
    """What a change rewrites: the table, the two sentences, the figure and its caption."""
    import ipywidgets as widgets

    table, comparison, totals = widgets.HTML(), widgets.HTML(), widgets.HTML()
    image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%", max_height=FIGURE_MAX_HEIGHT))
    figure_caption = widgets.HTML()
    return dict(table=table, comparison=comparison, totals=totals, figure=image,
                figure_caption=figure_caption)


def _updater(controls: dict[str, Any], views: dict[str, Any], *, figure: str) -> Callable[..., None]:
    """The one callback of every control: recompute the bill, rewrite the texts, redraw if it changed."""
    from ..cost import loop_bill

    drawn: dict[str, tuple[int, int, int, str | None]] = {}  # what the figure shows now
    compact = _CompactFigure() if figure == "compact" else None

    def update(change: object = None) -> None:
        n, h0, t, model, caching = (controls[name].value for name in ("calls", "first", "per_step",
                                                                      "model", "caching"))
        bill = loop_bill(n, h0, t, model=model, caching=caching)
        views["table"].value = _bill_table(bill)
        views["comparison"].value = _comparison_html(bill)
        views["totals"].value = _totals_html(bill, model=model, caching=caching)
        # subtle: the loop figure does not depend on the model; skip a render that would not change it
        key = (n, h0, t, model if caching else None)
        if key == drawn.get("key"):
            return
        png = _figure_png(compact, bill, model=model, caching=caching)
        described = _figure_in_words(bill, model=model, caching=caching, full=figure == "full")
        views["figure"].value = png
        views["figure_caption"].value = (f"<div style='{FONT};font-size:14px'><b>Figure:</b> "
                                         f"{html.escape(described)}</div>")
        drawn["key"] = key

    return update


def _comparison_html(bill: Any) -> str:
    """`_comparison`'s headline in bold, and its why (if any) below."""
    headline, why = (html.escape(part) for part in _comparison(bill))
    return (f"<div style='{FONT};font-size:18px'><b>{headline}</b></div>"
            + (f"<div style='{FONT}'>{why}</div>" if why else ""))


def _totals_html(bill: Any, *, model: str, caching: bool) -> str:
    """The totals sentence: tokens and dollars over all calls, and the conversation billed once."""
    from ..cost import dollars

    n, cached = bill.calls, " with prompt caching" if caching else ""
    return (f"<div style='{FONT}'>total over {n} call{'' if n == 1 else 's'}: "
            f"<b>{bill.total_tokens:,}</b> input tokens, <b>{dollars(bill.total_dollars)}</b> "
            f"on {html.escape(model)}{cached}; the final {bill.final_size:,}-token "
            f"conversation billed once would cost {dollars(bill.naive_dollars)}</div>")


def _figure_png(compact: _CompactFigure | None, bill: Any, *, model: str, caching: bool) -> bytes:
    """The figure: the compact one redrawn in place, or the lesson figure drawn anew."""
    from ..cost import loop_bill
    from ..plots import plot_caching, plot_loop_tokens

    n, h0, t = bill.calls, bill.h0, bill.t
    if compact is not None:
        return compact.png(loop_bill(n, h0, t, model=model), bill if caching else None)
    if caching:
        return figure_png(plot_caching(n, h0, t, model=model))
    return figure_png(plot_loop_tokens(n, h0, t))


def _figure_in_words(bill: Any, *, model: str, caching: bool, full: bool) -> str:
    """The figure's caption: what it shows, in words, so colour and shape are never the only cue."""
    from ..plots import describe_caching, describe_loop_tokens

    n, h0, t = bill.calls, bill.h0, bill.t
    if caching:
        return describe_caching(n, h0, t, model=model)
    if full:
        return describe_loop_tokens(n, h0, t)
    # subtle: the running total curves only when the calls grow (t > 0) and there are 3 or more
    grows = "curve up to" if n > 2 and t > 0 else "reach"
    return (f"input tokens billed so far over {n} call{'' if n == 1 else 's'} (solid line, "
            f"circles) {grows} {bill.total_tokens:,}; the dashed line is the final "
            f"{bill.final_size:,}-token conversation, billed once.")


def _laid_out(controls: dict[str, Any], views: dict[str, Any]) -> Any:
    """Controls beside the sentences they change, the figure beside the table, the parts named.

    At 1280x720 the whole explorer is on screen at once; on a narrow screen each row wraps
    into a column.
    """
    import ipywidgets as widgets

    def row(*parts: Any) -> Any:
        return widgets.HBox(list(parts), layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start",
                                                               grid_gap="8px 16px"))

    def column(*parts: Any, grow: int = 1, basis: str = "22em") -> Any:
        return widgets.VBox(list(parts), layout=widgets.Layout(flex=f"{grow} 1 {basis}", min_width="0"))

    controlled = column(*controls.values())
    pictured = column(views["figure"], views["figure_caption"], basis="24em")
    box = described(widgets.VBox, "Cost explorer: a loop's calls and tokens, a model and caching; "
                    "its bill and figure", [row(controlled, column(views["comparison"], views["totals"])),
                                            row(pictured, column(views["table"], grow=0, basis="auto"))])
    for name, part in {**controls, **views}.items():
        setattr(box, name, part)
    return box
