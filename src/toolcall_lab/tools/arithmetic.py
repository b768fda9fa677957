"""A safe calculator for arithmetic that a language model sends to a tool.

Why not ``eval``? The text comes from a model, so treat it like input from a stranger:

- ``eval(text)`` runs any Python: ``__import__('os').system('rm -rf ~')``.
- ``eval(text, {"__builtins__": {}})`` is no fence either: attribute chains such as
  ``().__class__.__mro__[1].__subclasses__()`` walk from a harmless tuple to every class
  in the process, and from there to ``os``.
- Even pure arithmetic can hurt: ``9**9**9`` has about 370 million digits, so computing it
  freezes the process for minutes and eats gigabytes.

So we parse with ``ast.parse(text, mode="eval")``, which only builds a tree and runs nothing,
and walk that tree ourselves, computing only the node kinds we allow and checking sizes
before any expensive step.

Covered: int and float literals, unary ``+ -``, binary ``+ - * / // % **`` and parentheses,
with exactly Python's results (``7 // 2 == 3``, ``-7 % 3 == 2``, ``2**3**2 == 512``).
Every refusal and every arithmetic failure raises ``CalculationError`` with one sentence a
model can act on.

Left out: variables, functions (no ``sqrt``, ``sin``, ``abs``), constants like ``pi``,
comparisons, bitwise operators, complex numbers, and results beyond ``MAX_MAGNITUDE``.
"""

import ast
import math
import operator
from collections.abc import Callable

__all__ = [
    "MAX_DEPTH",
    "MAX_EXPRESSION_CHARS",
    "MAX_LITERAL_DIGITS",
    "MAX_MAGNITUDE",
    "CalculationError",
    "evaluate",
]

MAX_EXPRESSION_CHARS = 500  # longer text is refused before parsing
MAX_DEPTH = 50  # levels of the syntax tree: "-(-1)" is minus, minus, 1 = depth 3
MAX_LITERAL_DIGITS = 30  # an int literal may have at most this many digits
MAX_MAGNITUDE = 10**100  # every intermediate and final |value| must stay <= this

_ALLOWED = "Use only numbers and + - * / // % ** and parentheses."
_BINARY: dict[type[ast.operator], Callable[[int | float, int | float], int | float | complex]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[int | float], int | float]]
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class CalculationError(ValueError):
    """Raised when an expression is refused or its arithmetic fails (one actionable sentence)."""


def evaluate(expression: str) -> int | float:
    """Compute an arithmetic expression without running any code from it.

    Example: ``evaluate("2 * (3 + 4) ** 2")`` walks Mult(2, Pow(Add(3, 4), 2)) -> 2 * 49 -> ``98``,
    while ``evaluate("x + 1")`` raises ``CalculationError("Names are not allowed: 'x'. ...")``.
    """
    if not isinstance(expression, str):
        raise TypeError(
            f"evaluate() takes a string, got {type(expression).__name__}: {expression!r}. "
            "Pass the expression as text, e.g. '2 + 3'."
        )
    # subtle: ast.parse(" 1", mode="eval") raises IndentationError, so strip first.
    text = expression.strip()
    if not text:
        raise CalculationError(
            f"The expression is empty: {expression!r}. Send an expression such as '2 * (3 + 4)'."
        )
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalculationError(
            f"The expression is {len(text)} characters long ({_short(text)}), over the limit "
            f"of {MAX_EXPRESSION_CHARS}. Split the calculation into smaller steps."
        )
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as error:  # ValueError: null bytes on some versions
        reason = getattr(error, "msg", str(error))
        raise CalculationError(
            f"Not a valid arithmetic expression: {_short(text)} ({reason}). {_ALLOWED}"
        ) from None
    except (RecursionError, MemoryError):  # subtle: the parser itself can run out of stack
        raise CalculationError(
            f"The expression is too deeply nested to parse: {_short(text)}. "
            "Split the calculation into smaller steps."
        ) from None
    return _eval(tree.body, text, depth=1)


def _eval(node: ast.expr, text: str, *, depth: int) -> int | float:
    """Evaluate one allowed node (a number, a sign, a binary operator), refusing everything else.

    Example: Pow(Add(3, 4), 2) evaluates 3 and 4 one level deeper, adds them (7), and raises
    that to 2 (49); every value is checked (`_checked`) before the next step uses it.
    """
    if depth > MAX_DEPTH:
        raise CalculationError(
            f"The expression nests deeper than {MAX_DEPTH} levels at {_segment(node, text)}. "
            "Remove redundant signs or parentheses, or split the calculation."
        )
    match node:
        case ast.Constant():
            return _number(node, text)
        case ast.UnaryOp(op=op, operand=operand) if type(op) in _UNARY:
            return _checked(_UNARY[type(op)](_eval(operand, text, depth=depth + 1)), node, text)
        case ast.BinOp(left=left, op=op, right=right) if type(op) in _BINARY:
            a, b = _eval(left, text, depth=depth + 1), _eval(right, text, depth=depth + 1)
            return _binary(type(op), a, b, node, text)
        case ast.UnaryOp(op=op) | ast.BinOp(op=op):
            raise _refused(f"{type(op).__name__} operators", node, text)
        case _:
            raise _refused(_kind_of(node), node, text)


def _number(node: ast.Constant, text: str) -> int | float:
    """An int or float literal, checked; any other constant is refused by what it is."""
    match node.value:
        # subtle: bool is a subclass of int, so True must be refused before the int case.
        case bool():
            raise _refused("Booleans", node, text)
        case int() as value:
            if abs(value) >= 10**MAX_LITERAL_DIGITS:
                raise CalculationError(
                    f"Numbers with more than {MAX_LITERAL_DIGITS} digits are not allowed: "
                    f"{_segment(node, text)}. Use a smaller number or a float such as 1.5e40."
                )
            return _checked(value, node, text)
        case float() as value:
            return _checked(value, node, text)
        case complex():
            raise _refused("Complex numbers", node, text)
        case str() | bytes():
            raise _refused("Strings", node, text)
        case _:
            raise _refused("Constants other than numbers", node, text)


#: What a refusal calls each kind of expression the calculator does not compute.
_REFUSED_KINDS: tuple[tuple[type[ast.expr] | tuple[type[ast.expr], ...], str], ...] = (
    (ast.Name, "Names"),
    (ast.Attribute, "Attribute lookups"),
    (ast.Call, "Function calls"),
    (ast.Subscript, "Subscripts"),
    ((ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp), "Comprehensions and generators"),
    (ast.Lambda, "Lambdas"),
    (ast.Compare, "Comparisons"),
    (ast.BoolOp, "Boolean operators (and, or)"),
    (ast.IfExp, "Conditional expressions"),
    ((ast.JoinedStr, ast.FormattedValue), "F-strings"),
    ((ast.List, ast.Tuple, ast.Dict, ast.Set), "Containers (list, tuple, dict, set)"),
    (ast.NamedExpr, "Assignments (:=)"),
    (ast.Starred, "Starred expressions"),
)


def _kind_of(node: ast.expr) -> str:
    """What a refusal calls `node`: "Names" for `x`, "Await expressions" for a kind not listed."""
    for kinds, name in _REFUSED_KINDS:
        if isinstance(node, kinds):
            return name
    return f"{type(node).__name__} expressions"


def _binary(op: type[ast.operator], a: int | float, b: int | float, node: ast.expr,
            text: str) -> int | float:
    """Apply one allowed binary operator, guarding powers before they are computed."""
    if op is ast.Pow and a != 0:
        # digits of a**b ~= b * log10(|a|); one spare digit, the exact check follows below.
        # This stops 9**9**9 before Python starts on its ~370 million digits.
        if b * math.log10(abs(a)) > math.log10(MAX_MAGNITUDE) + 1:
            raise _too_large(node, text)
    try:
        result = _BINARY[op](a, b)
    except ZeroDivisionError:
        raise CalculationError(
            f"Division by zero in {_segment(node, text)}. Change the divisor so it is not zero."
        ) from None
    except OverflowError:
        raise _too_large(node, text) from None
    return _checked(result, node, text)


def _checked(value: int | float | complex, node: ast.expr, text: str) -> int | float:
    """Return value if it is a real, finite number within MAX_MAGNITUDE, else refuse."""
    if isinstance(value, complex):  # e.g. (-8)**0.5 in Python is a complex number
        raise CalculationError(
            f"{_segment(node, text)} has no real result (a negative number to a fractional "
            "power). Use a positive base or a whole-number exponent."
        )
    # subtle: the float 1e100 is a little above the int 10**100, so floats get a float limit.
    limit = MAX_MAGNITUDE if isinstance(value, int) else float(MAX_MAGNITUDE)
    if not math.isfinite(value) or abs(value) > limit:
        raise _too_large(node, text)
    return value


def _too_large(node: ast.expr, text: str) -> CalculationError:
    return CalculationError(
        f"The value of {_segment(node, text)} is too large: every step must stay within "
        f"±10**{round(math.log10(MAX_MAGNITUDE))}. Use smaller numbers or exponents."
    )


def _refused(what: str, node: ast.expr, text: str) -> CalculationError:
    return CalculationError(f"{what} are not allowed: {_segment(node, text)}. {_ALLOWED}")


def _segment(node: ast.expr, text: str) -> str:
    """The node's own source text, quoted and shortened, e.g. "'9**9**9'"."""
    return _short(ast.get_source_segment(text, node) or type(node).__name__)


def _short(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
