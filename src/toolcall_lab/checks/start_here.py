"""Answer key of the start page: one warm-up question, to meet a check cell before lesson 1."""

from __future__ import annotations

from typing import Any

from ..selfcheck import check, number

__all__ = ["SOLUTIONS", "warm_up"]


def warm_up(answer: Any) -> None:
    """Six times seven, as a number."""
    check("Warm-up", answer, number(6 * 7), hint="multiply; write the number without quotes",
          why="That is how every check in the lessons works.")


SOLUTIONS: dict[str, str] = {"warm_up": "6 * 7"}
