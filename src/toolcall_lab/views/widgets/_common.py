"""What the widgets share: API titles, the HTML styles, request bodies and figures as PNG.

Private to `toolcall_lab.views.widgets` (hence the underscore in the module name), so the names
here carry none: `FONT`, `pre`, `wire_body`. The one name learners meet, `figure_png`, is
re-exported by the package.

    >>> pre("<b>hi</b>").endswith(">&lt;b&gt;hi&lt;/b&gt;</pre>")
    True

Left out: anything one widget alone uses; that lives in the widget's own module.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...wire import API_SPECS
from ..display.html import THEME
from ._colab import for_colab

if TYPE_CHECKING:
    from ...tool import Tool
    from ...transcript import Transcript

__all__ = ["API_TITLES", "FONT", "RUN_TO_USE", "described", "figure_png", "pre", "render_png",
           "wire_body"]

#: The tab and dropdown title of each API (`wire.API_SPECS`).
API_TITLES: dict[str, str] = {spec.name: spec.title for spec in API_SPECS.values()}

#: Inline CSS for every HTML value: projector-sized, in the colours of JupyterLab's theme
#: (`display.html.THEME`: dark in the dark theme, dark on white where there is no theme).
_TEXT = f"font-size:16px;line-height:1.4;color:{THEME['ink']}"
FONT = f"{_TEXT};background:{THEME['paper']}"
_PRE = (f"{_TEXT};background:{THEME['shade']};white-space:pre-wrap;word-break:normal;"
        f"overflow-wrap:break-word;margin:0;padding:8px;border:1px solid {THEME['rule']};border-radius:4px")


#: The end of every widget's text: what a page shows in its place until the cell is run.
RUN_TO_USE = "(run the cell to use it)"
_DESCRIBED: dict[type, type] = {}  # an ipywidgets class -> its subclass with a readable repr


def described(cls: type, text: str, *args: Any, **kwargs: Any) -> Any:
    """A `cls` widget (VBox, Tab, ...) whose plain text is `text` and "run the cell to use it".

    A notebook keeps that text beside the widget (ipywidgets writes `repr(widget)` as its
    `text/plain`, cut at 110 characters), and a page opened before its cells are run shows
    the text in the widget's place: "Step-through of 4 messages ... (run the cell to use
    it)" instead of "VBox(children=(HBox(children=(Button(...". The text must fit those 110.
    """
    if cls not in _DESCRIBED:
        # subtle: a subclass, since Python looks __repr__ up on the class; ipywidgets syncs it
        # to the browser under the base class's model name, so nothing else changes
        _DESCRIBED[cls] = type(cls.__name__, (cls,), {"__repr__": lambda self: self._plain_text,
                                                      "__module__": cls.__module__})
    widget = _DESCRIBED[cls](*args, **kwargs)
    widget._plain_text = f"{text} {RUN_TO_USE}"  # tests/test_widgets.py: within the 110
    return for_colab(widget)  # every widget a factory returns is made here, but the picker


def pre(text: str, *, max_height: str | None = None) -> str:
    """`text` escaped and wrapped in a bordered <pre>: conversation text is untrusted.

    Lines wrap at spaces (JupyterLab's own `pre` style would break them inside words).

    `max_height` (a CSS length) caps the box; longer text scrolls inside it, so the tabs or
    buttons around it stay on screen.
    """
    extra = f";max-height:{max_height};overflow:auto" if max_height else ""
    return f"<pre style='{_PRE}{extra}'>{html.escape(text)}</pre>"


def render_png(figure: Any) -> bytes:
    """A matplotlib Figure drawn once by Agg and encoded as PNG; the figure is left as it was.

    Pillow encodes at a light compression level, and the bytes depend only on the figure
    (no date or "Software" text in the file). A widget that redraws one figure on every
    change calls this; `figure_png` calls it and then clears the figure.
    """
    from io import BytesIO

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    # subtle: keep a figure's Agg canvas; its renderer is reused, and matplotlib's cache of text
    # sizes is per renderer, so a figure redrawn in place measures its tick labels only once
    canvas = figure.canvas if isinstance(figure.canvas, FigureCanvasAgg) else FigureCanvasAgg(figure)
    canvas.draw()  # subtle: the layout engine (constrained layout) runs inside this one draw
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = BytesIO()
    image.save(buffer, format="png", compress_level=3)
    return buffer.getvalue()


def figure_png(figure: Any, *, dpi: float | None = None) -> bytes:
    """A matplotlib Figure as PNG bytes, for an `Image` widget; the figure is cleared after.

    One Agg draw, encoded by Pillow at a light compression level: `savefig` would draw
    a figure with a layout engine twice, and a widget redraws on every slider move. The
    bytes depend only on the figure (no date or "Software" text in the file). `dpi`
    defaults to the figure's own.
    """
    if dpi is not None:
        figure.set_dpi(dpi)
    png = render_png(figure)
    figure.clear()  # Figure objects hold no pyplot state; clearing frees the artists now
    return png


def _api_model(api: str, model: str | None) -> str:
    from ...models import default_model

    return model or default_model(API_SPECS[api].provider)


def wire_body(transcript: Transcript, tools: Sequence[Tool], api: str, model: str | None) -> dict[str, Any]:
    """The request body `api`'s codec would send for `transcript` (`model`: the provider's default)."""
    from ...wire import encode_request

    return encode_request(transcript, tuple(tools), api=api, model=_api_model(api, model))
