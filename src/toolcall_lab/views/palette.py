"""The kit's colours: Okabe & Ito's palette, written once for every figure and view.

Masataka Okabe and Kei Ito chose these eight colours to stay distinguishable with every
common colour-vision deficiency ("Color Universal Design", 2008). The plots, the
sequence diagram and the HTML views all take their colours from `OKABE_ITO`, by name:

    OKABE_ITO["blue"]        requests, the caching line, the first pair of a call and its result
    OKABE_ITO["vermillion"]  replies, the no-caching line, the ERROR badge

Colour is never the only cue: every series also has a hatch, a marker or a line style,
and every pair a badge and a border pattern, so a figure still reads in grey.

`rgb(name)` gives the same colour as three 0-255 numbers, for the see-through tints of the
HTML views and the highlight of the sequence diagram.

Left out: a dark-theme variant (the HTML views take JupyterLab's theme variables for
their ink and paper; these colours read on both) and any colour for a ninth series.
"""

from __future__ import annotations

__all__ = ["OKABE_ITO", "rgb"]

#: Okabe & Ito's palette, distinguishable with every common colour-vision deficiency.
OKABE_ITO = {"orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00",
             "reddish purple": "#CC79A7", "black": "#000000"}


def rgb(name: str) -> tuple[int, int, int]:
    """The colour `name` of `OKABE_ITO` as (red, green, blue), each 0 to 255.

    >>> rgb("blue"), rgb("yellow")
    ((0, 114, 178), (240, 228, 66))
    """
    code = OKABE_ITO[name].removeprefix("#")
    return int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16)
