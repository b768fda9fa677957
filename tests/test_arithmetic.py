"""Tests for the safe calculator: agreement with Python, refusals, messages, and no eval."""

import io
import math
import operator
import tokenize
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import examples
from toolcall_lab.tools import arithmetic
from toolcall_lab.tools.arithmetic import (
    MAX_DEPTH,
    MAX_EXPRESSION_CHARS,
    MAX_MAGNITUDE,
    CalculationError,
    evaluate,
)


def test_public_names():
    # sorted as ruff's RUF022 wants every __all__ (95500f9): constants, classes, then functions
    assert arithmetic.__all__ == [
        "MAX_DEPTH",
        "MAX_EXPRESSION_CHARS",
        "MAX_LITERAL_DIGITS",
        "MAX_MAGNITUDE",
        "CalculationError",
        "evaluate",
    ]
    assert issubclass(CalculationError, ValueError)


def test_docstring_worked_example():
    assert evaluate("2 * (3 + 4) ** 2") == 2 * (3 + 4) ** 2 == 98


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2", 1 + 2),
        ("  10 - 3  ", 10 - 3),
        ("6 * 7", 6 * 7),
        ("7/2", 7 / 2),
        ("7//2", 7 // 2),
        ("-7 // 2", -7 // 2),
        ("-7 % 3", -7 % 3),
        ("7 % -3", 7 % -3),
        ("7.5 % 2", 7.5 % 2),
        ("2**-1", 2**-1),
        ("2**3**2", 2**3**2),
        ("-2**2", -(2**2)),
        ("(-2)**2", (-2) ** 2),
        ("(-8)**2.0", (-8) ** 2.0),
        ("+-+3", +-+3),
        ("0.1 + 0.2", 0.1 + 0.2),
        ("1e3 * 2", 1e3 * 2),
        ("1_000 + 0x10", 1_000 + 0x10),
        ("(1 + 2) * (3 - 4) / 5", (1 + 2) * (3 - 4) / 5),
        ("0**0", 0**0),
        ("10**100", 10**100),
        ("-(10**100)", -(10**100)),
        ("2**0.5", 2**0.5),
    ],
)
def test_agrees_with_python(expression, expected):
    result = evaluate(expression)
    assert result == expected
    assert type(result) is type(expected)  # int stays int where Python keeps int


# --- property: random expression trees agree with Python ---------------------------------

OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
}
numbers = st.integers(-20, 20) | st.floats(-100, 100, allow_nan=False, allow_infinity=False)
trees = st.recursive(
    numbers.map(lambda value: ("num", value)),
    lambda children: st.tuples(st.sampled_from(["-", "+"]), children).map(lambda t: ("unary", *t))
    | st.tuples(st.sampled_from(sorted(OPS)), children, children).map(lambda t: ("bin", *t)),
    max_leaves=12,
)


class Refused(Exception):
    """The reference computation says the calculator must refuse this tree."""


def render(tree) -> str:
    match tree:
        case ("num", value):
            text = repr(value)
            return f"({text})" if text.startswith("-") else text
        case ("unary", sign, child):
            return f"({sign}{render(child)})"
        case ("bin", op, left, right):
            return f"({render(left)} {op} {render(right)})"
        case _:
            raise AssertionError(tree)


def depth(tree) -> int:
    match tree:
        case ("num", _):
            return 1
        case ("unary", _, child):
            return 1 + depth(child)
        case ("bin", _, left, right):
            return 1 + max(depth(left), depth(right))
        case _:
            raise AssertionError(tree)


def bounded(value):
    if isinstance(value, complex) or not math.isfinite(value):
        raise Refused
    limit = MAX_MAGNITUDE if isinstance(value, int) else float(MAX_MAGNITUDE)
    if abs(value) > limit:
        raise Refused
    return value


def reference(tree):
    """Python's own arithmetic on the tree, refusing whatever leaves the allowed range."""
    match tree:
        case ("num", value):
            return bounded(value)
        case ("unary", "-", child):
            return bounded(-reference(child))
        case ("unary", "+", child):
            return bounded(+reference(child))
        case ("bin", op, left, right):
            a, b = reference(left), reference(right)
            # Over ~200 digits is far past the bound, and too slow to compute here.
            if op == "**" and a != 0 and b * math.log10(abs(a)) > 200:
                raise Refused
            try:
                return bounded(OPS[op](a, b))
            except (ZeroDivisionError, OverflowError):
                raise Refused from None
        case _:
            raise AssertionError(tree)


@settings(max_examples=examples(400))
@given(trees)
def test_random_trees_agree_with_python(tree):
    text = render(tree)
    # Each tree level is at most two AST levels (a negative leaf is UnaryOp + Constant).
    assume(len(text) <= MAX_EXPRESSION_CHARS and 2 * depth(tree) <= MAX_DEPTH)
    try:
        expected = reference(tree)
    except Refused:
        with pytest.raises(CalculationError):
            evaluate(text)
        return
    result = evaluate(text)
    assert result == expected
    assert type(result) is type(expected)


# --- refusals -------------------------------------------------------------------------------

ESCAPES = [
    "__import__('os').system('echo hi')",
    "().__class__.__mro__",
    "x",
    "abs(-1)",
    "[1,2][0]",
    "[i for i in range(3)]",
    "(i for i in [1])",
    "lambda: 1",
    "1 if 1 else 2",
    "1 < 2",
    "1 and 2",
    "'a' * 3",
    "f'{1}'",
    "(x := 1)",
    "True + 1",
    "1j",
    "9**9**9",
    "2**10**10",
    "10**1000",
    "1" * 40,
    "1/0",
    "1%0",
    "(-8)**0.5",
    "1e308*10",
    "(" * 5000 + "1" + ")" * 5000,
    "-" * 100000 + "1",
    "-" * 300 + "1",
    "",
    "   ",
    "1 +",
    "1 & 2",
    "{1: 2}",
    "...",
]


@pytest.mark.parametrize("expression", ESCAPES, ids=lambda e: e[:30])
def test_refuses(expression):
    with pytest.raises(CalculationError):
        evaluate(expression)


def test_non_string_input_is_a_type_error():
    with pytest.raises(TypeError, match="string"):
        evaluate(5)


@pytest.mark.parametrize(
    ("expression", "fragments"),
    [
        ("x + 1", ["'x'", "not allowed", "Use only"]),
        ("abs(-1)", ["'abs(-1)'", "Function calls", "Use only"]),
        ("1/0", ["zero", "'1/0'"]),
        ("3 % (2 - 2)", ["zero", "'3 % (2 - 2)'"]),
        ("9**9**9", ["too large", "'9**9**9'", "10**100"]),
        ("(-8)**0.5", ["no real result", "'(-8)**0.5'"]),
        ("1 +", ["not a valid arithmetic expression", "'1 +'"]),
        ("", ["empty"]),
        ("1" * 600, ["600", str(MAX_EXPRESSION_CHARS), "smaller steps"]),
    ],
)
def test_messages_are_actionable(expression, fragments):
    with pytest.raises(CalculationError) as caught:
        evaluate(expression)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment.lower() in message.lower()
    assert "\n" not in message


def test_module_never_calls_eval_exec_or_compile():
    source = Path(arithmetic.__file__).read_text(encoding="utf-8")
    tokens = [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type not in (tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE)
    ]
    calls = {
        first.string
        for first, second in zip(tokens, tokens[1:], strict=False)
        if first.type == tokenize.NAME and second.string == "("
    }
    assert calls.isdisjoint({"eval", "exec", "compile", "__import__"})
    assert "ast.parse" in source
