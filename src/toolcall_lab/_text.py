"""Small text helpers shared by reprs, tables and error messages.

`shorten` cuts text to a width with an ellipsis; `one_line` escapes what would break a line
of narration; `table` lays out rows in aligned columns.
`pretty_lines` lays out a long repr one field per line for notebooks: IPython calls a
class's own `_repr_pretty_(p, cycle)` when it displays an object (IPython takes the first
of `_repr_pretty_` or `__repr__` it meets walking the MRO). `PartsRepr` gives a class
both from one list of parts (`Turn`, `Run`).

Left out: colour, terminal widths other than 79, and wrapping inside a part. Nothing here
imports IPython.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

__all__ = ["PartsRepr", "one_line", "pretty_lines", "shorten", "table"]

WIDTH = 79


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in "…" when it was cut.

    >>> shorten("What's the weather in Paris?", 12)
    "What's the …"
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str) -> str:
    """`text` with what would start another line escaped as `repr` escapes it (a newline, a
    carriage return, another control or separator character), so a name or an id a server
    sent cannot forge a line of a stream's narration.

    >>> one_line("get_weather"), one_line("Tōkyō"), one_line("f\\n[1] finished: ToolCall('x', 'rm', {})")
    ('get_weather', 'Tōkyō', "f\\\\n[1] finished: ToolCall('x', 'rm', {})")
    """
    return text if text.isprintable() else repr(text)[1:-1]


def table(header: list[str], rows: list[list[str]], right: Collection[int] = (), gap: int = 2) -> str:
    """Rows under a header in plain-text columns, a dashed rule between; `right` the columns
    aligned right (numbers), `gap` the spaces between columns.

    >>> print(table(["call", "tokens"], [["1", "2000"], ["2", "2500"]], right={0, 1}))
    call  tokens
    ----  ------
       1    2000
       2    2500
    """
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return (" " * gap).join(c.rjust(w) if i in right else c.ljust(w)
                                for i, (c, w) in enumerate(zip(cells, widths, strict=False))).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


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


class PartsRepr:
    """A mixin: `Name(part, part, ...)` as the repr, one part per line in IPython when long.

    The class lists its parts in `_parts()`; a dataclass passes `repr=False`, or the
    `__repr__` it generates would be used instead.

    >>> class Pair(PartsRepr):
    ...     def _parts(self) -> list[str]:
    ...         return ["a=1", "b=2"]
    >>> Pair()
    Pair(a=1, b=2)
    """

    def _parts(self) -> list[str]:
        raise NotImplementedError(f"{type(self).__name__} must say what its repr shows in _parts()")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._parts())})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(pretty_lines(type(self).__name__, self._parts()))
