"""The Parts API's rules: the first thing wrong with a request body, named by its JSON path.

`first_problem(body)` walks the body in order (the top-level fields, then each content,
then each part) and returns the first rule broken as a `wire.Problem` whose `path` is the
JSON path (`contents[2].parts[0].functionResponse.id`) and whose `text` starts with it.
The server answers it with a 400; real APIs, too, usually report one problem at a time.

    >>> first_problem({"contents": [{"parts": [{"text": "Hi"}]}]}).text
    'contents[0].role is missing; expected "user" or "model".'
    >>> first_problem({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}) is None
    True

Every rule is one `if` and one sentence, so the module reads as the API's rule book. The
rules are the kit's own (see `DOC`): the Parts API is made up.

Left out: JSON Schema checks of `parameters` beyond `"type": "object"`, and limits on
sizes and counts.
"""

from __future__ import annotations

import json
from typing import Any

from ..tool import TOOL_NAME_PATTERN
from ..wire.problem import Problem

__all__ = ["FIELDS", "PART_KINDS", "first_problem"]

#: The request's top-level fields; any other is refused (a `messages` sent by habit, say).
FIELDS = ("contents", "systemInstruction", "tools", "generationConfig")
#: What a part may hold (exactly one of them), and the role whose contents may hold it.
PART_KINDS = {"text": ("user", "model"), "functionCall": ("model",), "functionResponse": ("user",)}


class _Broken(Exception):
    """A rule broken at `path`; the walk stops at the first one."""

    def __init__(self, path: str, text: str) -> None:
        super().__init__(f"{path} {text}")
        self.path = path


def first_problem(body: Any) -> Problem | None:
    """The first rule `body` breaks, as a `Problem` naming its JSON path; None if it keeps them all."""
    try:
        _request(body)
    except _Broken as broken:
        return Problem("parts", broken.path, str(broken))
    return None


# -- what a value must be -----------------------------------------------------------------------
_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "true or false", int: "a number",
          float: "a number", type(None): "null"}


def _q(text: str) -> str:
    """`text` quoted as JSON quotes it: "fc_01"."""
    return json.dumps(text, ensure_ascii=False)


def _shown(value: Any) -> str:
    """`a string: "{\\"city\\": 1}"`: the JSON type of `value`, and the value, cut short."""
    text = json.dumps(value, ensure_ascii=False)
    return f"{_NAMES.get(type(value), type(value).__name__)}: {text if len(text) <= 40 else text[:39] + '…'}"


def _need(value: Any, kind: type, path: str, what: str) -> Any:
    # subtle: True is an int in Python, never a number in JSON
    if isinstance(value, kind) and not (isinstance(value, bool) and kind is int):
        return value
    raise _Broken(path, f"must be {what}, got {_shown(value)}.")


def _field(data: dict[str, Any], key: str, kind: type, path: str, what: str) -> Any:
    where = f"{path}.{key}" if path else key
    if key not in data:
        raise _Broken(where, f"is missing; expected {what}.")
    return _need(data[key], kind, where, what)


def _name(data: dict[str, Any], path: str) -> str:
    name: str = _field(data, "name", str, path, "a function name")
    if not TOOL_NAME_PATTERN.fullmatch(name):
        raise _Broken(f"{path}.name", f"must be 1 to 64 letters, digits, _ or -, got {_shown(name)}.")
    return name


# -- the walk, top to bottom --------------------------------------------------------------------
def _request(body: Any) -> None:
    _need(body, dict, "the body", "a JSON object")
    for key in body:
        if key not in FIELDS:
            raise _Broken(key, "is not a field of the Parts API; the request's fields are "
                          f"{', '.join(FIELDS)}.")
    if "systemInstruction" in body:
        system = _need(body["systemInstruction"], dict, "systemInstruction", 'an object {"parts": [...]}')
        for i, part in enumerate(_need(system.get("parts"), list, "systemInstruction.parts", "a list")):
            path = f"systemInstruction.parts[{i}]"
            _field(_need(part, dict, path, 'a text part {"text": "..."}'), "text", str, path, "a string")
    _tools(body.get("tools", []))
    config = _need(body.get("generationConfig", {}), dict, "generationConfig", "an object")
    if "maxOutputTokens" in config:
        limit = _need(config["maxOutputTokens"], int, "generationConfig.maxOutputTokens", "a whole number")
        if limit < 1:
            raise _Broken("generationConfig.maxOutputTokens", f"must be at least 1, got {limit}.")
    contents = _field(body, "contents", list, "", "a list of contents")
    if not contents:
        raise _Broken("contents", "is empty; send at least one user content.")
    calls: dict[str, tuple[str, str]] = {}  # id -> (name, path) of every functionCall so far
    for i, content in enumerate(contents):
        _content(content, f"contents[{i}]", calls)
    for i in range(len(contents) - 1):  # every content is well formed: now the pairs
        _answered(contents[i], contents[i + 1], i)
    if contents[-1]["role"] != "user":
        raise _Broken(f"contents[{len(contents) - 1}].role",
                      'is "model", but the last content must come from the "user": the model answers it.')


def _tools(tools: Any) -> None:
    for i, entry in enumerate(_need(tools, list, "tools", "a list")):
        path = f"tools[{i}]"
        declarations = _field(_need(entry, dict, path, "an object"), "functionDeclarations", list, path,
                              "a list of function declarations")
        for j, declaration in enumerate(declarations):
            where = f"{path}.functionDeclarations[{j}]"
            _name(_need(declaration, dict, where, "an object"), where)
            if "description" in declaration:
                _need(declaration["description"], str, f"{where}.description", "a string")
            if "parameters" in declaration:
                schema = _need(declaration["parameters"], dict, f"{where}.parameters", "a JSON Schema object")
                if schema.get("type") != "object":
                    raise _Broken(f"{where}.parameters.type", 'must be "object": the arguments are one '
                                  f"JSON object, got {_shown(schema.get('type'))}.")


def _content(content: Any, path: str, calls: dict[str, tuple[str, str]]) -> None:
    content = _need(content, dict, path, 'an object {"role": ..., "parts": [...]}')
    if "role" not in content:
        raise _Broken(f"{path}.role", 'is missing; expected "user" or "model".')
    role = content["role"]
    if role not in ("user", "model"):
        raise _Broken(f"{path}.role", f'must be "user" or "model", got {_shown(role)}; the model\'s turns '
                      'are "model", and your function results go in a "user" content.')
    parts = _field(content, "parts", list, path, "a list of parts")
    if not parts:
        raise _Broken(f"{path}.parts", "is empty; a content holds at least one part.")
    for j, part in enumerate(parts):
        _part(part, role, f"{path}.parts[{j}]", calls)


def _part(part: Any, role: str, path: str, calls: dict[str, tuple[str, str]]) -> None:
    part = _need(part, dict, path, "an object (a part)")
    kinds = [key for key in part if key in PART_KINDS]
    if len(part) != 1 or len(kinds) != 1:
        keys = ", ".join(part) or "no keys"
        raise _Broken(path, f"is not a part the Parts API knows: a part holds exactly one of text, "
                      f"functionCall or functionResponse, and this one has {keys}.")
    kind = kinds[0]
    if role not in PART_KINDS[kind]:
        raise _Broken(f"{path}.{kind}", f'cannot be in a "{role}" content; it belongs in a '
                      f'"{PART_KINDS[kind][0]}" content.')
    where = f"{path}.{kind}"
    if kind == "text":
        _need(part["text"], str, where, "a string")
        return
    value = _need(part[kind], dict, where, "an object")
    call_id = _field(value, "id", str, where, "a string (the call's id)")
    if not call_id:
        raise _Broken(f"{where}.id", "is empty; every call has an id, and its response repeats it.")
    if kind == "functionCall":
        name = _name(value, where)
        _field(value, "args", dict, where, 'an object, e.g. {"city": "Paris"} (not a string of JSON)')
        if call_id in calls:
            raise _Broken(f"{where}.id", f"{_q(call_id)} was already used by {calls[call_id][1]}; every call "
                          "has an id of its own.")
        calls[call_id] = (name, where)
        return
    _field(value, "response", dict, where, 'an object, e.g. {"output": "18°C, sunny"}')
    if call_id not in calls:
        raise _Broken(f"{where}.id", f"{_q(call_id)} matches no functionCall before it; answer with the id "
                      "of the call, exactly as the model sent it.")
    name = _field(value, "name", str, where, "the name of the function called")
    if name != calls[call_id][0]:
        raise _Broken(f"{where}.name", f"is {_q(name)}, but the functionCall {_q(call_id)} called "
                      f"{_q(calls[call_id][0])}.")


def _answered(content: dict[str, Any], following: dict[str, Any], index: int) -> None:
    """Every functionCall in `content` (`contents[index]`) is answered in `following`."""
    asked = [(j, p["functionCall"]["id"]) for j, p in enumerate(content["parts"]) if "functionCall" in p]
    answers = {p["functionResponse"]["id"] for p in following["parts"] if "functionResponse" in p}
    for j, call_id in asked:
        if call_id not in answers:
            raise _Broken(f"contents[{index}].parts[{j}].functionCall",
                          f"{_q(call_id)} has no functionResponse in contents[{index + 1}]; answer every "
                          "call in the user content right after it.")
