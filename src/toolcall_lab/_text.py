"""Small text helpers shared by reprs, tables and error messages.

`shorten` cuts text to a width with an ellipsis. `pretty_lines` lays out a long repr one
field per line for notebooks: IPython calls a class's own `_repr_pretty_(p, cycle)` when it
displays an object (defined on the class itself: IPython takes the first of
`_repr_pretty_` or `__repr__` it meets walking the MRO). Nothing here imports IPython.
"""

from __future__ import annotations

__all__ = ["pretty_lines", "shorten"]

WIDTH = 79


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in "…" when it was cut.

    >>> shorten("What's the weather in Paris?", 12)
    "What's the …"
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def pretty_lines(name: str, parts: list[str]) -> str:
    """`name(part, part, ...)` on one line if it fits, else one part per line.

    >>> print(pretty_lines("Turn", ["a" * 40, "b" * 40]))
    Turn(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,
         bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb)
    """
    one_line = f"{name}({', '.join(parts)})"
    if len(one_line) <= WIDTH:
        return one_line
    indent = ",\n" + " " * (len(name) + 1)
    return f"{name}({indent.join(parts)})"
