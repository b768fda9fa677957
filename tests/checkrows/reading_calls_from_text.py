"""Lesson 18's wrong answers: parsers that each break on one way a model drifts from the format,
a drifted tag counted as a call that runs, and raw replies the kit's parser reads differently."""

from __future__ import annotations

import json
import re

from checkrows import Row
from toolcall_lab.checks import reading_calls_from_text as key
from toolcall_lab.checks.reading_calls_from_text import read_tool_calls


def _each_match(pattern, text):
    """(calls, problems): each match of `pattern` read as a call's JSON, its arguments as they are."""
    calls, problems = [], []
    for inner in re.findall(pattern, text, re.DOTALL):
        try:
            call = json.loads(inner)
            calls.append((call["name"], call["arguments"]))
        except ValueError as error:
            problems.append(str(error))
    return calls, problems


def first_brace(text):
    """A regex that stops at the first `}`: the arguments' own brace ends the match."""
    return _each_match(r"<tool_call>\s*(\{.*?\})", text)


def first_call_only(text):
    """Reads the first tag and ignores the rest: a parallel call is lost."""
    found = re.search(r"<tool_call>(.*?)</tool_call>", text, re.DOTALL)
    if not found:
        return [], []
    try:
        call = json.loads(found.group(1))
    except ValueError as error:
        return [], [str(error)]
    arguments = call["arguments"]
    return [(call["name"], json.loads(arguments) if isinstance(arguments, str) else arguments)], []


def whole_text_is_json(text):
    """Strips the tags and reads what is left as JSON: any prose, or a second call, breaks it."""
    if "<tool_call>" not in text:
        return [], []
    call = json.loads(text.replace("<tool_call>", "").replace("</tool_call>", ""))
    return [(call["name"], call["arguments"])], []


def silent_on_bad_json(text):
    """Skips a tag it cannot read without a word: the model's call vanishes."""
    calls = []
    for inner in re.findall(r"<tool_call>(.*?)</tool_call>", text, re.DOTALL):
        try:
            call = json.loads(inner)
        except ValueError:
            continue
        arguments = call["arguments"]
        calls.append((call["name"], json.loads(arguments) if isinstance(arguments, str) else arguments))
    return calls, []


def arguments_left_as_text(text):
    """Keeps arguments written as a string of JSON as that string: the tool gets a str."""
    return _each_match(r"<tool_call>(.*?)</tool_call>", text)


def complains_always(text):
    """Reports a problem for a plain answer, which holds no call and nothing wrong."""
    calls, problems = read_tool_calls(text)
    return calls, problems or ["no tool call found"]


def returns_tool_calls(text):
    """Returns the kit's ParsedOutput instead of the (calls, problems) pair the lesson asks for."""
    from toolcall_lab.template import parse_tool_calls

    return parse_tool_calls(text)


def empty_problems(text):
    """Reports a tag it cannot read with an empty string: the count is right, the model learns nothing."""
    calls, problems = read_tool_calls(text)
    return calls, ["" for _ in problems]


def wraps_the_kit(text):
    """Hands the work to the kit's parser and reshapes its answer: right, and not written."""
    from toolcall_lab import template

    parsed = template.parse_tool_calls(text)
    return [(c.name, dict(c.args)) for c in parsed.calls if not c.malformed], list(parsed.problems)


def wraps_the_kit_by_another_name(text):
    """The same wrapper, with the kit's parser imported under another name."""
    from toolcall_lab.template import parse_tool_calls as parse

    parsed = parse(text)
    return [(c.name, dict(c.args)) for c in parsed.calls if not c.malformed], list(parsed.problems)


def tagged(*cities):
    call = '<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{}"}}}}\n</tool_call>'
    return "\n".join(call.format(city) for city in cities)


ROWS = [
    Row("18 your_parser", key.your_parser, (), lambda: read_tool_calls,
        (lambda: first_brace, lambda: first_call_only, lambda: whole_text_is_json,
         lambda: silent_on_bad_json, lambda: arguments_left_as_text, lambda: complains_always,
         lambda: returns_tool_calls, lambda: "read_tool_calls", lambda: empty_problems,
         lambda: wraps_the_kit, lambda: wraps_the_kit_by_another_name)),
    Row("18 q1", key.q1, (), lambda: 1, (lambda: 2, lambda: 0, lambda: "1", lambda: 1.5)),
    Row("18 exercise_1", key.exercise_1, (), lambda: "I will look up both.\n" + tagged("Rome", "Nairobi"),
        (lambda: tagged("Rome", "Nairobi") + "\nI will look up both.",  # the sentence after the calls
         lambda: tagged("Rome") + "\nAnd now the other one.\n" + tagged("Nairobi"),
         lambda: tagged("Rome", "Nairobi"),  # no sentence at all
         lambda: "Both cities:\n" + key.RAW_OUTPUTS[2][1],  # section 1's output 3: Paris and Tokyo
         lambda: "Rome:\n" + tagged("Rome"),
         lambda: 'Both:\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}\n</tool_call>',
         lambda: ["<tool_call>...</tool_call>"],
         lambda: "Rome and Nairobi, please.")),
]
