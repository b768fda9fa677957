"""Lesson 25's wrong answers: each check is fed the schemas the lesson shows."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab.checks import structured_output as key

WEATHER = {"type": "object",
           "properties": {"city": {"type": "string"}, "temp_c": {"type": "integer"},
                          "sky": {"enum": ["clear", "cloudy", "rain"]}},
           "required": ["city", "temp_c", "sky"], "additionalProperties": False}
_WIND = {"type": "object", "properties": {"kmh": {"type": "integer"}}}
SCHEMAS = {"A": WEATHER, "B": dict(WEATHER, required=["city", "sky"]),
           "C": {k: v for k, v in WEATHER.items() if k != "additionalProperties"},
           "D": dict(WEATHER, properties={**WEATHER["properties"], "wind": _WIND},
                     required=[*WEATHER["required"], "wind"])}

RIGHT = {"anthropic": {"C", "D"}, "responses": {"B", "C", "D"}, "chat": {"B", "C", "D"}, "ollama": set()}
NOTE_SCHEMA = {"type": "object", "properties": {"guest": {"type": "string"}, "room": {"type": "integer"},
                                                "needs_taxi": {"type": "boolean"}},
               "required": ["guest", "room", "needs_taxi"], "additionalProperties": False}


def _without(name):
    return {**NOTE_SCHEMA, "properties": {k: v for k, v in NOTE_SCHEMA["properties"].items() if k != name},
            "required": [k for k in NOTE_SCHEMA["required"] if k != name]}


def _with(**properties):
    """NOTE_SCHEMA with some properties' schemas changed."""
    return dict(NOTE_SCHEMA, properties={**NOTE_SCHEMA["properties"], **properties})


ROWS = [
    Row("25 predict_refused", lambda answer: key.predict_refused(answer, SCHEMAS), (), lambda: RIGHT,
        (lambda: {**RIGHT, "anthropic": {"B", "C", "D"}},   # Anthropic taken for as strict as OpenAI
         lambda: {**RIGHT, "ollama": {"C", "D"}},           # Ollama taken to check schemas
         lambda: {**RIGHT, "responses": {"C", "D"}},        # forgets the required rule
         lambda: {**RIGHT, "chat": "BCD"},                  # letters as one string
         lambda: {k: v for k, v in RIGHT.items() if k != "ollama"},
         lambda: [RIGHT])),
    Row("25 exercise_1", lambda answer: key.exercise_1(answer, on_page=SCHEMAS.values()), (),
        lambda: NOTE_SCHEMA,
        (lambda: {k: v for k, v in NOTE_SCHEMA.items() if k != "additionalProperties"},  # open
         lambda: dict(NOTE_SCHEMA, required=["guest", "room"]),       # needs_taxi optional
         lambda: dict(NOTE_SCHEMA, properties={**NOTE_SCHEMA["properties"], "room": {"type": "string"}}),
         lambda: dict(NOTE_SCHEMA, properties={**NOTE_SCHEMA["properties"], "room": {"type": "number"},
                                               "needs_taxi": {"type": "string"}}),
         lambda: _without("needs_taxi"),                                # a field forgotten
         lambda: __import__("json").dumps(NOTE_SCHEMA),                 # the right schema as text
         lambda: WEATHER,                                               # a schema already on the page
         lambda: SCHEMAS["C"],
         lambda: _with(room={"type": "number"}),                        # 12.5 is a number too
         lambda: _with(guest={}),                                       # guest untyped
         lambda: _with(guest={"description": "the guest's full name"}),  # described, but untyped
         lambda: _with(needs_taxi={"type": ["boolean", "null"]}),        # nullable, as strict mode allows
         lambda: _with(room={"type": ["integer", "null"]}),
         lambda: _with(room={"type": "integer", "const": 12}),          # fits this note alone
         lambda: _with(guest={"type": "string", "enum": ["Ada Lovelace"]}),
         lambda: _with(needs_taxi={"type": "boolean", "const": True}))),
    Row("25 q1", key.q1, (), lambda: "tool call",
        (lambda: "structured output", lambda: "a tool call, since only the database knows", lambda: 1,
         lambda: "tool")),
    Row("25 q2", key.q2, (), lambda: "cut",
        (lambda: "object", lambda: "it is cut", lambda: "invalid", lambda: ["cut"])),
    Row("25 q3", key.q3, (), lambda: "ollama",
        (lambda: "chat", lambda: "ollama's /api/chat", lambda: "anthropic", lambda: {"ollama"})),
]
