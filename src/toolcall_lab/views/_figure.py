"""Figures that display: the kit's matplotlib style, and a `Figure` that shows as a picture.

A `Figure` built without pyplot has no display hook, so as a cell's last value it shows
only the text `<Figure size 1280x720 with 2 Axes>`. Every figure of the kit (the cost
figures in `plots` and `display.plot_sequence`) is made by `new_figure`, whose `Figure`
subclass, `DescribedFigure`, carries its text alternative and offers two views:
`image/png` (`to_png`, the same bytes `figures` saves) and `text/plain`, the text
alternative. It is not pyplot's, so pyplot's inline backend never shows it a second time.

Made for a projector and for every reader: 1280x720 pixels, DejaVu Sans (bundled with
matplotlib, so a render looks the same on every machine) at 16 pt and up
(`figure_style`), and PNG bytes that are the same on every run and machine (`to_png`).

Left out: what a figure draws (`plots`, `display.diagram`), its colours (`palette`),
SVG and PDF output, and interactive backends. matplotlib is imported inside the
functions, so importing this module costs nothing.
"""

from __future__ import annotations

import base64
import functools
import io
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

    class DescribedFigure(Figure):  # for the type checker: the class `_described_figure` builds
        description: str

__all__ = ["DPI", "SIZE", "figure_style", "new_figure", "to_png"]

SIZE = (12.8, 7.2)   # inches; at DPI this is 1280x720 pixels, a projector's 720p
DPI = 100
_STYLE: dict[RcKeyType, Any] = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 16,
    "axes.titlesize": 18,
    "axes.labelsize": 16,
    "xtick.labelsize": 15,
    "ytick.labelsize": 15,
    "legend.fontsize": 15,
    "figure.titlesize": 20,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "hatch.linewidth": 1.5,
    "lines.linewidth": 3,
    "lines.markersize": 10,
}


@contextmanager
def figure_style() -> Iterator[None]:
    """matplotlib's defaults plus the kit's style (DejaVu Sans, 16 pt), whatever a notebook set.

    Every `plot_...` function draws inside it; wrap another module's plotting call in it
    to give that figure the same fonts (`figures` does this for the sequence diagram).
    """
    import matplotlib
    import matplotlib.style

    # subtle: "default" first, so a notebook's own rcParams cannot leak into a figure.
    with matplotlib.style.context("default"), matplotlib.rc_context(_STYLE):
        yield


def to_png(figure: Figure, *, title: str | None = None, description: str | None = None) -> bytes:
    """`figure` as PNG bytes at its own size and dpi, the same on every run and machine.

    No matplotlib version or date goes into the file (`"Software": None`), so the bytes
    change only when the picture does; `title` and `description` (the text alternative)
    go into the PNG's Title and Description fields. What a notebook set in rcParams
    (`savefig.bbox = "tight"`, a transparent background) cannot change the file.
    """
    metadata: dict[str, str | None]
    metadata = {"Software": None}  # None: no "Software: Matplotlib version ..." in the file
    if title:
        metadata["Title"] = title
    if description:
        metadata["Description"] = description
    buffer = io.BytesIO()
    with figure_style():
        figure.savefig(buffer, format="png", dpi=figure.dpi, metadata=metadata)
    return buffer.getvalue()


@functools.cache
def _described_figure() -> type[Figure]:
    # subtle: a subclass of matplotlib's Figure can only be defined once matplotlib is imported,
    # so the class is built on first use (and once).
    from matplotlib.figure import Figure

    class DescribedFigure(Figure):
        """A matplotlib Figure that knows its text alternative and displays as a PNG.

        As a cell's last value it shows `image/png` (`to_png`) with `text/plain`, the
        text alternative, whose first line is its first sentence (a terminal, a text-only
        viewer and nbval see that); `repr()` is that first line.
        """

        description: str = ""

        def _repr_png_(self) -> bytes:
            return to_png(self, description=self.description or None)

        def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
            def wanted(mime: str) -> bool:
                return (include is None or mime in include) and (exclude is None or mime not in exclude)

            bundle = {}
            if wanted("image/png"):  # subtle: binary data goes base64-encoded, as into the notebook
                bundle["image/png"] = base64.b64encode(self._repr_png_()).decode("ascii")
            if wanted("text/plain"):
                bundle["text/plain"] = _plain_text(self)
            return bundle

        def __repr__(self) -> str:
            return _plain_text(self).split("\n", 1)[0]

    DescribedFigure.__module__, DescribedFigure.__qualname__ = __name__, "DescribedFigure"  # for pickle
    return DescribedFigure


def __getattr__(name: str) -> Any:
    if name == "DescribedFigure":  # the class, built (and matplotlib imported) on first use
        return _described_figure()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _plain_text(figure: Figure) -> str:
    """The text alternative: its first sentence on a line of its own, the rest wrapped at 100."""
    width, height = (round(v) for v in figure.get_size_inches() * figure.dpi)
    text = getattr(figure, "description", "") or f"A {width}x{height}-pixel figure with no text alternative."
    first, _, rest = text.partition(". ")
    return "\n".join([first + ("." if rest else ""), *textwrap.wrap(rest, 100)])


def new_figure(description: str, *, figsize: tuple[float, float] = SIZE, dpi: float = DPI,
               **kwargs: Any) -> DescribedFigure:
    """A blank matplotlib Figure, not pyplot's, that displays as a PNG with `description` as its text.

    Every `plot_...` function of the kit starts here; `kwargs` go to `Figure` (`layout=...`).

    >>> fig = new_figure("Nothing yet. An empty canvas.", figsize=(4, 3))
    >>> fig
    Nothing yet.
    >>> sorted(fig._repr_mimebundle_()), fig._repr_png_()[:4]
    (['image/png', 'text/plain'], b'\x89PNG')
    """
    fig = cast("DescribedFigure", _described_figure()(figsize=figsize, dpi=dpi, **kwargs))
    fig.description = description
    return fig
