"""`calculator`: arithmetic for a model, without `eval`.

Models are poor at exact arithmetic and good at asking for it. This tool hands the
expression to `arithmetic.evaluate`, which walks the syntax tree itself and refuses
anything that is not plain arithmetic; a refusal becomes an error result that tells the
model what it may send instead.
"""

from __future__ import annotations

from ..tool import tool
from .arithmetic import evaluate

__all__ = ["calculator"]


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression exactly, e.g. "17 * 23 - 100".

    Supports numbers, + - * / // % ** and parentheses; no names or functions.

    Args:
        expression: the arithmetic to evaluate, e.g. "(2 + 3) ** 2"
    """
    return str(evaluate(expression))
