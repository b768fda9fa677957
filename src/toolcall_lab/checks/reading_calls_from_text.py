# mypy: disable-error-code="no-untyped-def"
# (the worked parser of the lesson's Your-turn cell is written as a learner writes it: unannotated)
"""Answer keys and worked solutions of lesson 18, "Reading tool calls from text".

A local model writes its tool calls as raw text, and the server (or your code) has to read
them back out (`toolcall_lab.template.parse_tool_calls`).

**The learner's parser.** The lesson asks for `read_tool_calls(text)`, returning
`(calls, problems)`: the calls as `(name, arguments)` pairs in the order written, and one
sentence per `<tool_call>` tag that could not be read. `your_parser` runs it over the six raw
outputs of `RAW_OUTPUTS` (a clean call, a plain answer, and four drifts a real model makes)
and names the first output it gets wrong. What is right for each output is what the kit's
own `template.parse_tool_calls` reads there, so the key holds no answer of its own; a parser
that hands the text to `template.parse_tool_calls` itself is refused ("write it yourself"),
and so is a problem reported as an empty string, which tells the model nothing:

    >>> your_parser(read_tool_calls)
    read_tool_calls: correct.

Left out, as in the lesson: an unclosed tag (the kit's parser reads it; the lesson only
mentions it), streaming, and tag styles other than `<tool_call>{json}</tool_call>`.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..selfcheck import check
from ..selfcheck import number as a_number
from ..template import parse_tool_calls
from ._runs import raised as _raised
from ._runs import run_watching as _run_watching
from ._runs import template as _template

__all__ = ["EXERCISE_1_CITIES", "RAW_OUTPUTS", "SOLUTIONS", "TWO_TAGS", "exercise_1", "q1", "read_tool_calls",
           "your_parser"]

#: What a model wrote, six times: (what it shows, the raw text). The lesson prints them.
RAW_OUTPUTS: tuple[tuple[str, str], ...] = (
    ("one call", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'),
    ("a plain answer", "It's 18°C and sunny in Paris."),
    ("two calls", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
                  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>'),
    ("prose around the tag", 'Let me look that up.\n<tool_call>\n{"name": "get_weather", "arguments": '
                             '{"city": "Cairo"}}\n</tool_call>\nOne moment.'),
    ("malformed JSON", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>'),
    ("arguments as a string", '<tool_call>\n{"name": "get_weather", '
                              '"arguments": "{\\"city\\": \\"Lima\\"}"}\n</tool_call>'),
)


# -- the worked parser -------------------------------------------------------------------------------
def read_tool_calls(text):
    """The tool calls in a model's raw text: (calls, problems)."""
    calls, problems = [], []
    tags = re.findall(r"<tool_call>(.*?)(?:</tool_call>|$)", text, re.DOTALL)
    for number, inner in enumerate(tags, start=1):
        try:
            call = json.loads(inner)
            name, arguments = call["name"], call["arguments"]
            if isinstance(arguments, str):  # the object written as a string of JSON
                arguments = json.loads(arguments)
        except (ValueError, KeyError, TypeError) as error:
            problems.append(f"tool call {number} cannot be read ({error}): "
                            f"{inner.strip()[:60]}")
            continue
        if isinstance(arguments, dict):
            calls.append((name, arguments))
        else:
            problems.append(f"tool call {number}'s arguments are not a JSON "
                            f"object: {arguments!r}")
    return calls, problems


# -- what the key expects, from the kit's parser -------------------------------------------------------
def _expected(text: str) -> tuple[list[tuple[str, dict[str, Any]]], int]:
    """(the calls that can be read, as pairs; how many tags cannot be read), by the kit's parser."""
    parsed = parse_tool_calls(text)
    return [(c.name, dict(c.args)) for c in parsed.calls if not c.malformed], len(parsed.problems)


def _as_pair(call: Any) -> tuple[Any, Any] | None:
    if isinstance(call, Sequence) and not isinstance(call, str) and len(call) == 2:
        return call[0], call[1]
    return None


def _wrong_on(what: str, got: Any, text: str) -> str | None:
    """What is wrong with the parser's answer `got` for `text` (`what` names the output)."""
    if not (isinstance(got, Sequence) and not isinstance(got, str) and len(got) == 2):
        return (f"on {what}, it returned {type(got).__name__}; return (calls, problems): a list of "
                "(name, arguments) pairs and a list of sentences")
    calls, problems = got
    if isinstance(calls, str) or not isinstance(calls, Sequence) or isinstance(problems, str) \
            or not isinstance(problems, Sequence):
        return f"on {what}, return two lists, (calls, problems)"
    expected, unreadable = _expected(text)
    pairs = [_as_pair(call) for call in calls]
    if len(pairs) != len(expected):
        return (f"on {what}, it found {len(pairs)} call(s) where the text holds {len(expected)} "
                "that can be read")
    for number, (pair, (name, arguments)) in enumerate(zip(pairs, expected, strict=True), start=1):
        if pair is None:
            return f"on {what}, call {number} is {calls[number - 1]!r}; give each call as (name, arguments)"
        if pair[0] != name:
            return f"on {what}, call {number} is named {pair[0]!r}; read the name from its JSON"
        if not isinstance(pair[1], Mapping):
            return (f"on {what}, call {number}'s arguments came back as a {type(pair[1]).__name__}; "
                    "a tool takes a dict, so read a string of JSON into one")
        if dict(pair[1]) != arguments:
            return f"on {what}, call {number}'s arguments are {dict(pair[1])!r}; read the whole object"
    if any(not isinstance(problem, str) for problem in problems):
        return f"on {what}, each problem should be a sentence (a str)"
    if any(not problem.strip() for problem in problems):
        return (f"on {what}, a problem is an empty string; say in a sentence which tag cannot be "
                "read and why, since the model reads it")
    if unreadable and not problems:
        return (f"on {what}, it reported no problem, but a tag there cannot be read; say so, so the "
                "loop can tell the model instead of dropping its call")
    if problems and not unreadable:
        return f"on {what}, it reported a problem where there is none: {str(problems[0])[:60]!r}"
    return None


def _wrong_parser(function: Any) -> str | None:
    if not callable(function) or isinstance(function, type):
        return (f"expected the function itself (read_tool_calls, without brackets), "
                f"got {type(function).__name__}")
    for number, (label, text) in enumerate(RAW_OUTPUTS, start=1):
        what = f"output {number} ({label})"
        try:
            got, leaned = _run_watching(parse_tool_calls, function, text)
        except Exception as exc:
            return (f"on {what}, it raised {_raised(exc)}; a model's text is not to be trusted, so catch "
                    "what cannot be read and report it as a problem")
        if leaned:
            return ("it hands the text to template.parse_tool_calls, the kit's parser: write it "
                    "yourself, with re and json")
        found = _wrong_on(what, got, text)
        if found:
            return found
    return None


def your_parser(answer: Any) -> None:
    """Your read_tool_calls, over the six raw outputs of `RAW_OUTPUTS`."""
    check("read_tool_calls", ... if _template(answer) else answer, _wrong_parser,
          hint="read the sentence before the hint: it names the output; print that output and your "
               "parser's answer for it, and look for every <tool_call> tag, not only the first")


# -- a question and an exercise --------------------------------------------------------------------
#: A model's reply with two tags, the second of which drifted.
TWO_TAGS = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n'
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Bergen"}\n</tool_call>')


def q1(answer: Any) -> None:
    """How many of TWO_TAGS's calls the kit's parser can read (and so run)."""
    expected = sum(not call.malformed for call in parse_tool_calls(TWO_TAGS).calls)
    check("Q1", answer, a_number(expected),
          hint="count the braces of each tag's JSON: a call whose JSON does not close cannot run")


#: The cities of Exercise 1: not those of section 1's outputs, so a copy of one does not pass.
EXERCISE_1_CITIES = ("Rome", "Nairobi")


def _wrong_drift(text: Any) -> str | None:
    if not isinstance(text, str):
        return f"expected the model's raw text (a str), got {type(text).__name__}"
    parsed = parse_tool_calls(text)
    if parsed.problems:
        return f"the kit's parser cannot read it: {parsed.problems[0]}"
    cities = [dict(call.args).get("city") for call in parsed.calls if call.name == "get_weather"]
    wanted = sorted(EXERCISE_1_CITIES)
    if len(parsed.calls) != 2 or sorted(map(str, cities)) != wanted:
        return (f"the parser reads {len(parsed.calls)} call(s) ({', '.join(map(str, cities)) or 'none'}); "
                f"write two get_weather calls, for {' and '.join(EXERCISE_1_CITIES)}")
    before = text[:text.index("<tool_call>")].strip()
    if not before:
        return "it does not start with a sentence: put one before the first <tool_call>"
    # subtle: the parser joins all the prose into one text; any beyond the opening sentence
    # stood between or after the calls, which the task rules out
    if parsed.text.strip() != before:
        return "it has prose after the first call; the reply starts with a sentence, then only the calls"
    return None


def exercise_1(answer: Any) -> None:
    """A raw reply: a sentence, then two get_weather calls (EXERCISE_1_CITIES) the kit's parser reads."""
    check("Exercise 1", answer, _wrong_drift,
          hint="section 1's outputs show the format: output 3 holds two calls in a row, output 4 "
               "has prose around a tag; here the sentence comes first and nothing after the calls")


SOLUTIONS: dict[str, str] = {
    "read_tool_calls": inspect.getsource(read_tool_calls),
    "q1": "1",
    "exercise_1": ("'I will look up both cities.\\n<tool_call>\\n{\"name\": \"get_weather\", \"arguments\": "
                   "{\"city\": \"Rome\"}}\\n</tool_call>\\n<tool_call>\\n{\"name\": \"get_weather\", "
                   "\"arguments\": {\"city\": \"Nairobi\"}}\\n</tool_call>'"),
}
