"""Drag the runs of an eval and the model's true rate; watch forty evals' intervals follow.

`interval_explorer()` puts `evals.simulate` and `evals.wilson` behind two sliders (runs
per eval, the model's true pass rate) and a button that draws forty new evals. Each
change rewrites the sentence about the first eval, the summary of all forty, and the
figure (`evals.figure`'s drawing: a line per eval, solid where its interval holds the
true rate, dashed with a cross where it misses) with its caption in words:

    >>> w = interval_explorer(runs=20, rate=0.8)
    >>> w.runs.value = 80
    >>> "80 runs" in w.first.value and "of the 40 intervals hold" in w.summary.value
    True

A run here is a coin that lands "pass" at the true rate, what `misbehaving.slips_at`
does per question without running the loop, so a slider moves in milliseconds; the lesson
runs real evals of the seeded model beside it.

Left out: other confidence levels and interval kinds, and more than forty evals a draw.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._common import FONT, described, render_png

if TYPE_CHECKING:
    from ...evals.stats import Interval

__all__ = ["interval_explorer"]

EVALS = 40  # evals drawn at a time: enough to see two or three miss, few enough to tell apart
COMPACT_SIZE, COMPACT_DPI = (6.4, 3.6), 80  # inches and dots per inch: 512x288 pixels
FIGURE_MAX_HEIGHT = "300px"


class _IntervalFigure:
    """The explorer's figure, built once: forty interval lines and marks, moved and restyled in place."""

    def __init__(self) -> None:
        import matplotlib
        from matplotlib.figure import Figure

        from .._figure import figure_style

        with figure_style(), matplotlib.rc_context({"font.size": 13}):
            self.figure = Figure(figsize=COMPACT_SIZE, dpi=COMPACT_DPI)
            ax = self.axes = self.figure.add_axes((0.04, 0.16, 0.88, 0.72))  # room for "100%"
            self.spans = [ax.plot([], [], linewidth=2)[0] for _ in range(EVALS)]
            self.marks = [ax.plot([], [], linestyle="none", clip_on=False)[0] for _ in range(EVALS)]
            self.truth = ax.axvline(0.8, color="black", linestyle="--", linewidth=2)
            ax.set_xlim(0, 1)
            ax.set_ylim(0, EVALS + 1)
            ax.set_yticks([])
            ax.xaxis.set_major_formatter(lambda value, _: f"{value:.0%}")
            ax.set_xlabel("pass rate, with its 95% interval")

    def png(self, counts: list[int], intervals: list[Interval], runs: int, rate: float) -> bytes:
        import matplotlib

        from .._figure import figure_style
        from ..palette import OKABE_ITO

        with figure_style(), matplotlib.rc_context({"font.size": 13}):
            held = 0
            rows = zip(self.spans, self.marks, counts, intervals, strict=True)
            for row, (span, mark, count, interval) in enumerate(rows, start=1):
                hit = interval.holds(rate)
                held += hit
                colour = OKABE_ITO["blue"] if hit else OKABE_ITO["vermillion"]
                span.set_data([interval.low, interval.high], [row, row])
                span.set(color=colour, linestyle="-" if hit else "--")
                mark.set_data([count / runs], [row])
                mark.set(color=colour, marker="o" if hit else "X", markersize=6 if hit else 9)
            self.truth.set_xdata([rate, rate])
            self.axes.set_title(f"{EVALS} evals of {runs} runs: {held} hold {rate:.0%}", loc="left",
                                fontsize=14)
            return render_png(self.figure)


def interval_explorer(*, runs: int = 20, rate: float = 0.8, seed: int = 0) -> Any:
    """Sliders for the runs of an eval and the model's true rate; forty evals' intervals and their figure.

    Parts: `runs` (IntSlider, 5 to 400), `rate` (FloatSlider, 0.5 to 0.99), `again`
    (Button: forty new evals), `first`, `summary` (HTML), `figure` (Image, a PNG) and
    `figure_caption` (HTML, the figure in words). `seed` picks the first draw; each
    click of `again` moves on to the next one.
    """
    import ipywidgets as widgets

    wide, full = {"description_width": "11em"}, widgets.Layout(width="100%")
    controls = {
        "runs": widgets.IntSlider(value=runs, min=5, max=max(400, runs), step=5, description="runs per eval",
                                  style=wide, layout=full),
        "rate": widgets.FloatSlider(value=rate, min=0.5, max=0.99, step=0.01, readout_format=".0%",
                                    description="true pass rate", style=wide, layout=full),
        "again": widgets.Button(description="Draw 40 new evals", tooltip="the same settings, new runs"),
    }
    views = {"first": widgets.HTML(), "summary": widgets.HTML(), "figure_caption": widgets.HTML(),
             "figure": widgets.Image(format="png", layout=widgets.Layout(max_width="100%",
                                                                        max_height=FIGURE_MAX_HEIGHT))}
    draw = {"seed": seed}
    update = _updater(controls, views, draw)
    controls["runs"].observe(update, names="value")
    controls["rate"].observe(update, names="value")

    def again(button: object) -> None:
        draw["seed"] += 1
        update()

    controls["again"].on_click(again)
    update()
    return _laid_out(controls, views)


def _updater(controls: dict[str, Any], views: dict[str, Any], draw: dict[str, int]) -> Callable[..., None]:
    """The one callback: draw the evals, rewrite the sentences, redraw the figure in place."""
    figure = _IntervalFigure()

    def update(change: object = None) -> None:
        from ...evals.figure import describe_intervals
        from ...evals.stats import simulate, wilson

        runs, rate = controls["runs"].value, round(controls["rate"].value, 2)
        counts = simulate(rate, runs, evals=EVALS, seed=draw["seed"])
        intervals = [wilson(count, runs) for count in counts]
        first = intervals[0]
        views["first"].value = (f"<div style='{FONT};font-size:18px'>One eval of <b>{runs} runs</b>: "
                                f"{counts[0]} passed, <b>{counts[0] / runs:.0%}</b>, 95% interval "
                                f"<b>{first}</b></div>")
        held = sum(interval.holds(rate) for interval in intervals)
        width = sum(interval.width for interval in intervals) / EVALS
        views["summary"].value = (f"<div style='{FONT}'>Of {EVALS} such evals, measured rates run from "
                                  f"{min(counts) / runs:.0%} to {max(counts) / runs:.0%}; <b>{held} of the "
                                  f"{EVALS} intervals hold</b> the true {rate:.0%}, and an interval is "
                                  f"{width * 100:.0f} points wide on average.</div>")
        views["figure"].value = figure.png(counts, intervals, runs, rate)
        views["figure_caption"].value = (f"<div style='{FONT};font-size:14px'><b>Figure:</b> "
                                         f"{html.escape(describe_intervals(counts, runs, rate))}</div>")

    return update


def _laid_out(controls: dict[str, Any], views: dict[str, Any]) -> Any:
    """Controls and sentences on the left, the figure and its caption on the right; a column when narrow."""
    import ipywidgets as widgets

    def column(*parts: Any, basis: str) -> Any:
        return widgets.VBox(list(parts), layout=widgets.Layout(flex=f"1 1 {basis}", min_width="0"))

    left = column(controls["runs"], controls["rate"], controls["again"], views["first"], views["summary"],
                  basis="22em")
    right = column(views["figure"], views["figure_caption"], basis="26em")
    box = described(widgets.HBox, "Interval explorer: an eval's runs and a model's true rate; forty evals' "
                    "intervals", [left, right],
                    layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start",
                                          grid_gap="8px 16px"))
    for name, part in {**controls, **views}.items():
        setattr(box, name, part)
    return box
