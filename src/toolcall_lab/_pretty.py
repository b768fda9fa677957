"""Reprs that break between fields, not mid-word, when a notebook shows a long one.

IPython calls a class's own `_repr_pretty_(p, cycle)` when it displays an object (it must
be defined on the class itself: IPython takes the first of `_repr_pretty_` or `__repr__`
it meets walking the MRO). Nothing here imports IPython. Short reprs stay on one line; a
long one puts each field on its own line.
"""

from __future__ import annotations

__all__ = ["pretty_lines"]

WIDTH = 79


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
