"""Colab's custom widget manager, switched on where the kit's widgets need it.

Colab's page draws the widgets of ipywidgets 7 (the version it preinstalls) by itself. The kit's
widgets are ipywidgets 8 (`ipywidgets>=8.1`), and Colab shows those only through its custom
widget manager, which the kernel switches on with `google.colab.output.enable_custom_widget_manager()`
(googlecolab/colabtools issues #3020 and #4525; colabtools' google/colab/output/_widgets.py).
That call registers a hook in the kernel that marks each widget the kernel displays, so a
restarted kernel needs it again, and a second call changes nothing.

Subtle: the hook sees only *displayed* data, not a cell's value. A widget that is the last
expression of a cell goes out as an execute_result, unmarked, and Colab then offers to "enable
third-party widgets" and draws nothing (manzt/anywidget issue #63, fixed there the same way).
So on Colab `for_colab` also gives the widget an `_ipython_display_`, which IPython calls instead
of making it the cell's value: the widget goes out as display data, and is marked.

Every factory of `toolcall_lab.views.widgets` hands the widget it returns to `for_colab`: a widget
works on Colab whichever cell ran first, and anywhere else it is returned untouched.

    >>> on_colab(), enable_on_colab()  # not on Colab here
    (False, False)

Colab is recognised by `google.colab` having been imported: its kernel imports it as it starts.
Left out: other hosts' widget managers (JupyterLab, VS Code, Binder and hubs need no call).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, TypeVar

__all__ = ["enable_on_colab", "for_colab", "on_colab"]

W = TypeVar("W")


def on_colab() -> bool:
    """Whether this kernel is Colab's (its kernel imports `google.colab` as it starts)."""
    return "google.colab" in sys.modules


def enable_on_colab() -> bool:
    """On Colab, switch on its custom widget manager (again, harmlessly) and say True; elsewhere False."""
    if not on_colab():
        return False
    importlib.import_module("google.colab.output").enable_custom_widget_manager()
    return True


def for_colab(widget: W) -> W:
    """`widget`, made to show on Colab (see the module docstring); elsewhere `widget` untouched."""
    if enable_on_colab():
        target: Any = widget

        def show() -> None:
            from IPython.display import display

            display(target._repr_mimebundle_(), raw=True)  # type: ignore[no-untyped-call]  # IPython: unannotated

        target._ipython_display_ = show
    return widget
