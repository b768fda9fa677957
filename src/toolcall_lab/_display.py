"""How the vocabulary shows as HTML without importing the views: a registry filled from above.

A `Message`, a `Transcript`, a `Turn` and a `Run` show as HTML in a notebook: Jupyter calls
an object's `_repr_html_()` when it is a cell's last value, and uses the string it returns
(None: no HTML, so the plain repr is shown). The code that draws them,
`views/display/html.py`, sits layers below the vocabulary and reads it, so the vocabulary
may not import it, not even inside a function: the import graph would run in a circle.
So each `_repr_html_` asks this registry (`html_of(self)`), and the views fill it from
above:

- `views/display/html.py` registers its views when it is imported (`register(Transcript,
  transcript_html)`, ...);
- the package's `__init__` says how to load them (`load_with`), so the first object that
  is displayed loads them: every module of the kit runs `toolcall_lab/__init__.py` first,
  so a lesson shows its first transcript as HTML without importing any view.

IPython's own formatters allow the same from outside, "you can register methods for third
party types" (`formatter.for_type(int, llm_int)`,
ipython.readthedocs.io/en/latest/api/generated/IPython.core.formatters.html), but only where
IPython runs; this registry also answers a bare `transcript._repr_html_()` in a test.

>>> class Note:
...     def __init__(self, text): self.text = text
...     def _repr_html_(self): return html_of(self)
>>> Note("hi")._repr_html_() is None  # no view registered: the plain repr is shown
True
>>> register(Note, lambda note: f"<b>{note.text}</b>")
>>> Note("hi")._repr_html_()
'<b>hi</b>'

Left out: other MIME types (images: a `Figure` draws its own PNG, `views/_figure.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["html_of", "load_with", "register"]

_VIEWS: dict[type, Callable[[Any], str]] = {}
_LOADERS: list[Callable[[], object]] = []


def register(kind: type, view: Callable[[Any], str]) -> None:
    """Show every `kind` (and its subclasses) as the HTML `view(value)` returns."""
    _VIEWS[kind] = view


def load_with(load: Callable[[], object]) -> None:
    """Call `load()` (which imports the views, so they register) before the first HTML view."""
    _LOADERS.append(load)


def html_of(value: object) -> str | None:
    """`value` drawn by the view registered for its class (or a base class); None if none is."""
    view = _view_for(type(value))
    while view is None and _LOADERS:
        _LOADERS.pop(0)()  # subtle: each loader runs once, the first time anything is displayed
        view = _view_for(type(value))
    return None if view is None else view(value)


def _view_for(kind: type) -> Callable[[Any], str] | None:
    return next((_VIEWS[cls] for cls in kind.__mro__ if cls in _VIEWS), None)
