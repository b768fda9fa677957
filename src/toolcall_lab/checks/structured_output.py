"""Answer keys and worked solutions of lesson 25, "Structured output: a tool call with no return trip".

Every key works its answer out from what the lesson's cell passes in (the schemas it
shows, the wire's own rules) or from the task below, so no answer is written on the page:

    >>> from toolcall_lab.checks.structured_output import q3
    >>> q3("ollama")
    Q3: correct.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..output_format import OutputFormat, problems
from ..selfcheck import check, word
from ..wire import APIS, format_problems

__all__ = ["NOTE", "SOLUTIONS", "exercise_1", "predict_refused", "q1", "q2", "q3", "refused_by"]

#: The exercise's text: a note a hotel's front desk left for the next shift.
NOTE = ("Front desk, 06:40. Ms Ada Lovelace (room 12) checks out this morning "
        "and has asked us to call her a taxi for the station.")

#: Another note of the same kind, not on the page, and what a model should extract from it: a
#: schema is for every such note, not for this one (`const 12` fits NOTE alone).
_OTHER_NOTE = ("Night desk, 23:10. Mr Alan Turing (room 7) walks to the station "
               "tomorrow and needs no taxi.")
_OTHER = {"guest": "Alan Turing", "room": 7, "needs_taxi": False}

#: What a model should extract from each note, and what a schema must refuse (a model that
#: breaks the schema, as one does without constrained decoding).
_RIGHT = {"guest": "Ada Lovelace", "room": 12, "needs_taxi": True}
_RIGHT_ONES = (("the right extraction", _RIGHT), ("another note's right extraction", _OTHER))
_WRONG = (("the room as text", {**_RIGHT, "room": "12"}),
          ("a missing needs_taxi", {"guest": "Ada Lovelace", "room": 12}),
          ("a field you did not ask for", {**_RIGHT, "station": "Paddington"}),
          ("needs_taxi as the word yes", {**_RIGHT, "needs_taxi": "yes"}),
          ("room 12.5, not a whole number", {**_RIGHT, "room": 12.5}),
          ("the guest as the number 42", {**_RIGHT, "guest": 42}),
          ("needs_taxi as null", {**_RIGHT, "needs_taxi": None}),
          ("the room as null", {**_RIGHT, "room": None}),
          ("the guest as null", {**_RIGHT, "guest": None}))


def refused_by(schema: Mapping[str, Any], *, strict: bool = True) -> set[str]:
    """The APIs whose rules refuse `schema` as structured output (strict on OpenAI's two).

    >>> sorted(refused_by({"type": "object"}))
    ['anthropic', 'chat', 'responses']
    """
    return {api for api, problems in format_problems(OutputFormat("answer", schema, strict=strict)).items()
            if problems}


def predict_refused(answer: Any, schemas: Mapping[str, Mapping[str, Any]]) -> None:
    """For each API, the set of the lesson's schemas (by letter) its rules refuse."""
    refusing = {letter: refused_by(schema) for letter, schema in schemas.items()}
    expected = {api: {letter for letter, apis in refusing.items() if api in apis} for api in APIS}

    def wrong(given: Any) -> str | None:
        if not isinstance(given, Mapping):
            return f"expected a dict from API name to a set of letters, got {type(given).__name__}"
        if set(given) != set(APIS):
            return "give one entry for each API: " + ", ".join(repr(api) for api in APIS)
        for api in APIS:
            letters = given[api]
            if isinstance(letters, str) or not isinstance(letters, Iterable):
                return f"{api!r} maps to {letters!r}; write a set of letters, such as {{'A'}} or set()"
            if set(letters) != expected[api]:
                return f"{api!r} is not right"
        return None

    check("Prediction", answer, wrong,
          hint="OpenAI's strict mode has two rules and Anthropic one (section 3 names them); "
               "Ollama hands the schema to its sampler and checks none of them")


def exercise_1(answer: Any, on_page: Iterable[Mapping[str, Any]] = ()) -> None:
    """A schema for NOTE that every API takes and that holds a model to the right extraction."""
    def wrong(schema: Any) -> str | None:
        if not isinstance(schema, Mapping):
            return f"expected a JSON Schema written as a dict, got {type(schema).__name__}"
        if any(dict(schema) == dict(shown) for shown in on_page):
            return "that schema is already on the page; write it yourself for the note's fields"
        try:
            refusing = refused_by(schema)
        except Exception as exc:  # a schema the kit cannot even hold: say why in one line
            return f"the kit cannot use it: {str(exc).splitlines()[0][:90]}"
        if refusing:
            return "refused by " + ", ".join(sorted(refusing)) + " in strict mode"
        try:
            refused = [(said, found[0]) for said, reply in _RIGHT_ONES
                       if (found := problems(reply, schema))]
            lets_through = [said for said, reply in _WRONG if not problems(reply, schema)]
        except Exception as exc:  # jsonschema finds the schema itself broken
            return f"jsonschema cannot use it: {str(exc).splitlines()[0][:90]}"
        if refused:
            return f"it refuses {refused[0][0]} ({refused[0][1]})"
        if lets_through:
            return f"it lets through {lets_through[0]}"
        return None

    check("Exercise 1", answer, wrong,
          hint="three properties (a name, a whole number, yes-or-no), each with its JSON type; "
               "then the two rules strict mode needs for every object")


def q1(answer: Any) -> None:
    """Structured output or a tool call, when the model needs a fact only your code can fetch."""
    check("Q1", answer, word("tool call", choices=("structured output", "tool call")),
          hint="structured output ends the turn: can your code hand the model anything before it answers?")


def q2(answer: Any) -> None:
    """What `read_reply` calls a reply whose finish_reason is "length", even when its text parses."""
    check("Q2", answer, word("cut", choices=("object", "refused", "cut", "not_json", "invalid")),
          hint="read_reply looks at one thing before it tries to parse the text (section 5)")


def q3(answer: Any) -> None:
    """The API on which the weather object cannot be had through a forced tool call."""
    check("Q3", answer, word("ollama", choices=tuple(APIS)),
          hint="which API has no tool_choice at all? Section 4 sent the same schema both ways")


SOLUTIONS: dict[str, str] = {
    "predict_refused": ('{"anthropic": {"C", "D"}, "responses": {"B", "C", "D"}, '
                        '"chat": {"B", "C", "D"}, "ollama": set()}'),
    "exercise_1": ('{"type": "object", "properties": {"guest": {"type": "string"}, '
                   '"room": {"type": "integer"}, "needs_taxi": {"type": "boolean"}}, '
                   '"required": ["guest", "room", "needs_taxi"], "additionalProperties": False}'),
    "q1": '"tool call"',
    "q2": '"cut"',
    "q3": '"ollama"',
}
