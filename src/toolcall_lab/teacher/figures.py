"""Every figure the lessons use, regenerated from code: `python -m toolcall_lab figures`.

`FIGURES` names each figure and says how to make it and how to say it in words:

    name                  what it shows
    loop_tokens           per-call input tokens of a 10-call loop, the running total, the
                          final conversation billed once ("42,500 billed for a 7,000-token ...")
    caching               cumulative dollars of that loop with and without prompt caching
    estimated_vs_billed   the kit's 4-characters-per-token estimate vs the usage billed, per
                          call of the Paris run through the API double (Anthropic's API)
    paris_sequence        the lesson-1 Paris run (scripted provider) as a sequence diagram:
                          user, your code, model and tool lanes (`display.plot_sequence`)

`write_figures(out_dir)` saves them as PNG at a fixed size and dpi, with no matplotlib
version or date in the file (so a regenerated file differs only if the picture does),
and the text alternative in the PNG's Description field. `compare_figures` checks a
fresh set against the committed one, pixel by pixel within a tolerance, which is what
`python -m toolcall_lab figures --check` and tests/test_figures.py do.

Every input is deterministic: the loop numbers are fixed, the prices come from the dated
table, and the API double's usage is the kit's own estimate.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast

from .._files import save_atomically
from ..errors import UsageError
from ..models import TEACHING_MODEL
from ..views import _figure, plots

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..loop import Run
    from ..tool import Tool

__all__ = ["FIGURES", "FigureSpec", "compare_figures", "paris_double_run", "paris_run", "write_figures"]


class FigureSpec(NamedTuple):
    """How to make one figure (`make()`) and its text alternative (`describe()`), both from code."""

    make: Callable[[], Figure]
    describe: Callable[[], str]


@functools.cache
def paris_double_run() -> Run:
    """The lesson-1 Paris question asked through the API double, on Anthropic's Messages API.

    The real `AnthropicProvider` and SDK talk HTTP to the double on 127.0.0.1; the double's
    scripted model answers and reports usage with the 4-characters-per-token rule, so the
    run, and its usage, are the same every time. (Cached: the run is made once.)
    """
    from ..double.api_double import ApiDouble
    from ..examples import PARIS_QUESTION, SYSTEM_PROMPT, weather_policy
    from ..loop import run_agent
    from ..providers.registry import get_provider
    from ..tools.weather import get_weather

    with ApiDouble(weather_policy) as double:
        # subtle: a placeholder key; the double accepts any key and the real one must not be used.
        provider = get_provider("anthropic", base_url=double.base_url("anthropic"), api_key="double")
        return run_agent(provider, PARIS_QUESTION, tools=[get_weather], system=SYSTEM_PROMPT)


@functools.cache
def paris_run() -> Run:
    """The lesson-1 Paris question answered by the scripted provider (no server at all)."""
    from ..examples import PARIS_QUESTION, SYSTEM_PROMPT, weather_policy
    from ..loop import run_agent
    from ..providers.scripted import ScriptedProvider
    from ..tools.weather import get_weather

    return run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather],
                     system=SYSTEM_PROMPT)


def _plot_paris_sequence() -> Figure:
    from ..views.display.diagram import plot_sequence

    fig = plot_sequence(paris_run())
    fig.description = _describe_paris_sequence()  # names the run
    return fig


def _describe_paris_sequence() -> str:
    from ..views.display.diagram import describe_sequence

    return describe_sequence(paris_run(), subject="the lesson-1 Paris run")


def _paris_tools() -> list[Tool]:
    from ..tools.weather import get_weather

    return [get_weather]


FIGURES: dict[str, FigureSpec] = {
    "loop_tokens": FigureSpec(plots.plot_loop_tokens, plots.describe_loop_tokens),
    "caching": FigureSpec(functools.partial(plots.plot_caching, model=TEACHING_MODEL),
                          functools.partial(plots.describe_caching, model=TEACHING_MODEL)),
    "estimated_vs_billed": FigureSpec(
        lambda: plots.plot_estimated_vs_billed(paris_double_run(), tools=_paris_tools()),
        lambda: plots.describe_estimated_vs_billed(paris_double_run(), tools=_paris_tools())),
    "paris_sequence": FigureSpec(_plot_paris_sequence, _describe_paris_sequence),
}


def write_figures(out_dir: str | Path, *, names: list[str] | None = None) -> list[Path]:
    """Save every figure (or those in `names`) as `<out_dir>/<name>.png`; return the paths.

    `_figure.to_png`, the bytes a notebook displays: each figure's own dpi, no matplotlib
    version or date in the file, and the text alternative in the PNG's "Description".
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or list(FIGURES):
        spec = FIGURES[name]
        path = out / f"{name}.png"
        save_atomically(path, _figure.to_png(spec.make(), title=name, description=spec.describe()),
                        what="figure", error=UsageError)
        written.append(path)
    return written


def compare_figures(expected_dir: str | Path, actual_dir: str | Path | None = None, *,
                    tol: float = 2.0) -> dict[str, str | None]:
    """Compare each figure in `actual_dir` with the committed one in `expected_dir`.

    With no `actual_dir`, a fresh set is written to a temporary folder first: only the
    figures `expected_dir` holds, since a missing one is reported without drawing it. Returns
    name -> None when the two agree within `tol` (RMS difference of pixel values, 0-255),
    or a sentence saying what differs (a missing file, or matplotlib's comparison message).
    """
    from matplotlib.testing.compare import compare_images
    from matplotlib.testing.exceptions import ImageComparisonFailure

    if actual_dir is None:
        held = [name for name in FIGURES if (Path(expected_dir) / f"{name}.png").exists()]
        with tempfile.TemporaryDirectory(prefix="toolcall-lab-figures-") as tmp:
            if held:  # subtle: write_figures(names=[]) would draw every figure
                write_figures(tmp, names=held)
            return compare_figures(expected_dir, tmp, tol=tol)
    results: dict[str, str | None] = {}
    for name in FIGURES:
        expected, actual = Path(expected_dir) / f"{name}.png", Path(actual_dir) / f"{name}.png"
        if not expected.exists():
            results[name] = (f"{expected} is missing; run `python -m toolcall_lab figures "
                             f"--out {expected_dir}` and commit it.")
        elif not actual.exists():
            results[name] = f"{actual} was not generated."
        else:
            try:
                # subtle: outside matplotlib's test decorator the result is a message or None
                results[name] = cast(str | None, compare_images(str(expected), str(actual), tol=tol))
            except ImageComparisonFailure as failure:  # e.g. the two differ in size
                results[name] = str(failure)
    return results
