"""`sum()` for the kit's values that add up with `+`: `Usage` (tokens) and `Cost` (dollars).

`sum(values)` starts from the int 0, so its first step is `0 + values[0]`. An int does not
know how to add a `Usage`, so Python asks the `Usage` instead, through `__radd__`:

    sum([a, b]) = (0 + a) + b  ->  a.__radd__(0) + b  ->  a + b

`Summable.__radd__` answers that first step (0 + value is the value) and refuses every
other left operand, so `3 + usage` still fails as it should. Each class writes its own
`__add__`, since only it knows what adding two of it means.

Left out: subtraction, multiplication by a number, and adding a `Usage` to a `Cost`.

>>> from toolcall_lab import Usage
>>> sum([Usage(input_tokens=120), Usage(input_tokens=160)])
Usage(input_tokens=280, output_tokens=0)
"""

from __future__ import annotations

from typing import Self

__all__ = ["Summable"]


class Summable:
    """A mixin that lets `sum(values)` start from its int 0; the class defines `__add__`."""

    def __radd__(self, other: object) -> Self:
        # subtle: sum() starts from the int 0; let it through so sum(values) works.
        if other == 0:
            return self
        return NotImplemented
