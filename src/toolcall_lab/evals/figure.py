"""The picture of "95% confidence": many evals of one model, each interval against the true rate.

Run an eval of `runs` runs many times over and each measures its own pass rate, with its
own interval; about 95 in 100 of those intervals hold the rate the model really has (the
dashed line). `plot_intervals` draws them one above the other: a solid line with a
circle where the interval holds the true rate, a dashed line with a cross where it
misses, so shape and line carry the meaning as well as colour (`palette.OKABE_ITO`).

    >>> from .stats import simulate
    >>> counts = simulate(0.8, 20, evals=40, seed=1)
    >>> print(describe_intervals(counts, 20, 0.8).split(". ")[1].split("; ")[1])
    38 of the 40 intervals hold the true rate (solid lines, circles), 2 miss it (dashed lines, crosses)

Left out: intervals other than Wilson's, and more than a few hundred evals (the lines merge).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..views._figure import DPI, SIZE, figure_style, new_figure
from ..views.palette import OKABE_ITO
from .stats import Interval, _rate, wilson

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["describe_intervals", "plot_intervals"]


def _intervals(counts: Sequence[int], runs: int, level: float) -> list[Interval]:
    if not counts:
        raise UsageError("plot_intervals needs the pass counts of at least one eval, got none.")
    return [wilson(count, runs, level=level) for count in counts]


def describe_intervals(counts: Sequence[int], runs: int, rate: float, *, level: float = 0.95) -> str:
    """The figure in words: how the measured rates spread, and how many intervals hold `rate`.

    `rate` is a pass rate, between 0 and 1 (80% is 0.8); anything else raises `UsageError`.
    """
    rate = _rate("rate", rate)
    intervals = _intervals(counts, runs, level)
    held = sum(interval.holds(rate) for interval in intervals)
    rates = [count / runs for count in counts]
    width = sum(interval.width for interval in intervals) / len(intervals)
    return (f"{level:.0%} Wilson intervals of {len(counts)} evals of {runs} runs each, of a model whose "
            f"true pass rate is {rate:.0%} (the dashed vertical line). Measured rates run from "
            f"{min(rates):.0%} to {max(rates):.0%}; {held} of the {len(counts)} intervals hold the true "
            f"rate (solid lines, circles), {len(counts) - held} miss it (dashed lines, crosses). "
            f"On average an interval is {width * 100:.0f} points wide.")


def plot_intervals(counts: Sequence[int], runs: int, rate: float, *, level: float = 0.95,
                   figsize: tuple[float, float] = SIZE, dpi: float = DPI) -> Figure:
    """One horizontal line per eval, from its interval's low end to its high end, the measured rate a mark.

    `counts` are the evals' pass counts, each of `runs` runs (`stats.simulate`, or
    `EvalResult.passed` of evals you ran); `rate` is the model's true rate, a dashed line.

    >>> fig = plot_intervals([16, 18, 11], 20, 0.8)
    >>> fig.axes[0].get_title(loc="left")
    '3 evals of 20 runs each: 2 of 3 intervals hold the true rate, 80%'
    """
    rate = _rate("rate", rate)
    intervals = _intervals(counts, runs, level)
    held = [interval.holds(rate) for interval in intervals]
    with figure_style():
        fig = new_figure(describe_intervals(counts, runs, rate, level=level), figsize=figsize, dpi=dpi,
                         layout="constrained")
        ax = fig.subplots()
        for row, (interval, count, hit) in enumerate(zip(intervals, counts, held, strict=True), start=1):
            colour = OKABE_ITO["blue"] if hit else OKABE_ITO["vermillion"]
            ax.plot([interval.low, interval.high], [row, row], color=colour,
                    linestyle="-" if hit else "--", linewidth=2.5)
            # subtle: a mark at 0% or 100% sits on the frame; unclipped, it shows whole
            ax.plot([count / runs], [row], color=colour, marker="o" if hit else "X",
                    markersize=8 if hit else 11, linestyle="none", clip_on=False)
        ax.axvline(rate, color=OKABE_ITO["black"], linestyle="--", linewidth=2)
        ax.annotate(f"true rate {rate:.0%}", xy=(rate, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(6, -2), textcoords="offset points", va="top", fontweight="bold")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, len(counts) + 2.5)  # a free band on top for the true rate's label
        ax.xaxis.set_major_formatter(lambda value, _: f"{value:.0%}")
        ax.set_yticks([])
        ax.set_xlabel(f"pass rate, with its {level:.0%} interval")
        ax.set_ylabel("one eval per line")
        ax.set_title(f"{len(counts)} evals of {runs} runs each: {sum(held)} of {len(counts)} intervals "
                     f"hold the true rate, {rate:.0%}", loc="left")
    return fig
