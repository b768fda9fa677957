'''`DOC`: the Parts API's documentation, as markdown that shows formatted in a notebook.

`DOC` is a `str` (search it, print it, slice it) that a notebook shows as a formatted page
when it is a cell's last value; its plain-text view is the page's title, in the kit's
words, not the repr of IPython's `Markdown` object (IPython's wording, which a release of
IPython may change, and a strict nbval run compares).

Nothing in it can drift from the server: every error message is computed from the rules
(`rules.first_problem` on the example body beside it), and tests/test_parts_api.py sends
each example request to a fresh `PartsServer` and compares the reply with the one shown.
Tables are written as rows of cells (`_table`), since a markdown row cannot wrap.
'''

from __future__ import annotations

import json
from typing import Any

from .rules import first_problem

__all__ = ["DOC", "ERROR_EXAMPLES"]


class _Page(str):
    r"""Markdown text that shows formatted as a cell's last value, and as its title in plain text.

    >>> page = _Page("# Notes\n\nSome *words*.")
    >>> page.upper().startswith("# NOTES"), page._repr_markdown_() == page
    (True, True)
    """

    def _repr_markdown_(self) -> str:
        return str(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        # subtle: IPython walks the MRO and takes this before str's own printer
        p.text(f"{self.splitlines()[0].lstrip('# ')} (a page of markdown; print() it for the source)")


def _table(header: tuple[str, ...], *rows: tuple[str, ...]) -> str:
    """A markdown table.

    >>> print(_table(("a", "b"), ("1", "2")))
    | a | b |
    | --- | --- |
    | 1 | 2 |
    """
    lines = [header, tuple("---" for _ in header), *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


_QUESTION = {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]}
_CALL = {"role": "model", "parts": [{"functionCall": {"id": "fc_01", "name": "get_weather",
                                                      "args": {"city": "Paris"}}}]}
_TOKYO = {"functionCall": {"id": "fc_02", "name": "get_weather", "args": {"city": "Tokyo"}}}


def _answer(call_id: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"functionResponse": {"id": call_id, "name": "get_weather",
                                                            "response": {"output": "18°C, sunny"}}}]}


#: (what is wrong, a body that has just that wrong): the rows of the errors table.
ERROR_EXAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("a field that is not one of the four", {"messages": [], "contents": [_QUESTION]}),
    ("a content without a role", {"contents": [{"parts": [{"text": "Hi"}]}]}),
    ("a role other than the two", {"contents": [_QUESTION, {**_CALL, "role": "assistant"},
                                                _answer("fc_01")]}),
    ("a part that is none of the three", {"contents": [{"role": "user", "parts": [{"text": "Hi"},
                                                                                  {"image": {}}]}]}),
    ("arguments sent as a string", {"contents": [_QUESTION, {"role": "model", "parts": [{"functionCall": {
        "id": "fc_01", "name": "get_weather", "args": '{"city": "Paris"}'}}]}, _answer("fc_01")]}),
    ("a response to no call", {"contents": [_QUESTION, _CALL, _answer("fc_1")]}),
    ("a call left unanswered", {"contents": [_QUESTION, {"role": "model", "parts": [*_CALL["parts"], _TOKYO]},
                                             _answer("fc_01")]}),
    ("the model speaking last", {"contents": [_QUESTION, {"role": "model", "parts": [{"text": "Hello"}]}]}),
]


def _message(body: dict[str, Any]) -> str:
    problem = first_problem(body)
    assert problem is not None, body  # every example breaks a rule
    return problem.text


_MISTYPED = {"contents": [_QUESTION, _CALL, _answer("fc_1")]}
_REFUSAL = {"error": {"code": 400, "message": _message(_MISTYPED), "status": "INVALID_ARGUMENT"}}

DOC = r'''# The Parts API

> **Made up for this lesson.** The Parts API exists only inside toolcall-lab: `PartsServer` serves it
> on your own machine. Its shape follows the family of APIs that build a conversation from
> *contents* made of *parts* (Google's Gemini API is the best-known one), but it is not any
> vendor's API. The rules, ids and error messages below are toolcall-lab's own. To call a real
> API, read that API's own documentation.

## Endpoint

```
POST {url}/v1/models/{model}:generateContent
content-type: application/json
```

The model's name goes in the URL, not in the body: any name of letters, digits, `.`, `_` and
`-` (try `parts-1`). No key is needed. Every other path or method gets a `404`.

## Request

''' + _table(
    ("field", "required", "what it holds"),
    ("`contents`", "yes", "the conversation, oldest first: a list of **Content**; the last one comes "
                          'from `"user"`'),
    ("`systemInstruction`", "no", 'the system prompt, kept apart: `{"parts": [{"text": "..."}]}`'),
    ("`tools`", "no", 'the functions the model may call: `[{"functionDeclarations": [FunctionDeclaration, '
                      '...]}]`'),
    ("`generationConfig`", "no", '`{"maxOutputTokens": 1024}`: the output limit (accepted, not enforced)'),
) + r'''

Any other field is refused: there is no `messages`, `model` or `system` field.

A **Content** is `{"role": "user" | "model", "parts": [Part, ...]}` with at least one part. There
are two roles only: the model's turns are `"model"`, and everything else, your function results
included, is `"user"`.

A **Part** holds exactly one of these keys:

''' + _table(
    ("part", "in a content of", "what it is"),
    ('`{"text": "..."}`', '`"user"` or `"model"`', "words"),
    ('`{"functionCall": {"id", "name", "args"}}`', '`"model"`',
     "the model asks for a function; `args` is a JSON object, not a string"),
    ('`{"functionResponse": {"id", "name", "response"}}`', '`"user"`',
     "your answer to the call with that `id`; `name` repeats the call's name"),
) + r'''

`response` is an object: `{"output": ...}` for a result, `{"error": "..."}` for a failure (an
object with neither key is read, whole, as the output). Every `functionCall` is answered in the
`"user"` content right after it, one `functionResponse` per call, matched by `id`.

A **FunctionDeclaration** is `{"name", "description", "parameters"}`: a name of 1 to 64
letters, digits, `_` or `-`, and a JSON Schema whose `type` is `"object"`.

### Example: a question, with one function on offer

```json
{"contents": [{"role": "user", "parts": [{"text": "What's the weather in Paris?"}]}],
 "systemInstruction": {"parts": [{"text": "You are a helpful assistant."}]},
 "tools": [{"functionDeclarations": [{
   "name": "get_weather",
   "description": "Current weather for one city. Use it for any question about today's weather.",
   "parameters": {"type": "object",
                  "properties": {"city": {"type": "string",
                                          "description": "the city's name in English, e.g. \"Paris\""}},
                  "required": ["city"], "additionalProperties": false}}]}],
 "generationConfig": {"maxOutputTokens": 1024}}
```

## Reply

```json
{"candidates": [{"content": {"role": "model",
                             "parts": [{"functionCall": {"id": "fc_01", "name": "get_weather",
                                                         "args": {"city": "Paris"}}}]},
                 "finishReason": "STOP", "index": 0}],
 "usageMetadata": {"promptTokenCount": 111, "candidatesTokenCount": 21, "totalTokenCount": 132},
 "modelVersion": "parts-1", "responseId": "resp_0001"}
```

''' + _table(
    ("field", "what it holds"),
    ("`candidates[0].content`", 'the model\'s turn: a Content with role `"model"`'),
    ("`candidates[0].finishReason`", "why the reply ended (below)"),
    ("`usageMetadata`", "`promptTokenCount` (input), `candidatesTokenCount` (output), "
                        "`totalTokenCount` (both)"),
    ("`modelVersion`", "the model that answered"),
    ("`responseId`", "this reply's id (`resp_0001`, `resp_0002`, ...)"),
) + "\n\n" + _table(
    ("finishReason", "meaning"),
    ("`STOP`", "the model finished: an answer, **or function calls**. `STOP` does not say which: "
               "look at the parts"),
    ("`MAX_TOKENS`", "cut off at the output limit; a function call in it may be incomplete"),
    ("`SAFETY`", "the model declined to answer"),
    ("`OTHER`", "anything else"),
) + r'''

Function-call ids are the server's: `fc_01`, `fc_02`, ... counting up while it runs. Token
counts are estimated (about 4 characters a token), never zero.

### Example: sending the result back

Your code ran `get_weather` and answers the call `fc_01` in a `"user"` content (here without
`tools` and `systemInstruction`, which a real client sends every time):

```json
{"contents": [
  {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]},
  {"role": "model", "parts": [{"functionCall": {"id": "fc_01", "name": "get_weather",
                                                "args": {"city": "Paris"}}}]},
  {"role": "user", "parts": [{"functionResponse": {"id": "fc_01", "name": "get_weather",
                                                   "response": {"output": "18°C, sunny"}}}]}]}
```

```json
{"candidates": [{"content": {"role": "model", "parts": [{"text": "It's 18°C and sunny in Paris."}]},
                 "finishReason": "STOP", "index": 0}],
 "usageMetadata": {"promptTokenCount": 86, "candidatesTokenCount": 14, "totalTokenCount": 100},
 "modelVersion": "parts-1", "responseId": "resp_0002"}
```

## Errors

Every error is one JSON object; its `message` begins with the JSON path of the first problem
found (one at a time, like most real APIs):

''' + _table(
    ("code", "status", "when"),
    ("400", "`INVALID_ARGUMENT`", "the body is not JSON, or breaks a rule"),
    ("404", "`NOT_FOUND`", "any path or method but `POST /v1/models/{model}:generateContent`"),
    ("500", "`INTERNAL`", "the server's scripted model failed"),
) + '''

Some of the rules, with the message each gets:

''' + _table(
    ("what is wrong", "message"),
    *((what, f"`{_message(body)}`") for what, body in ERROR_EXAMPLES),
) + r'''

### Example: answering a call that was never made

The request above with the response's id mistyped as `"fc_1"`:

```json
{"contents": [
  {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]},
  {"role": "model", "parts": [{"functionCall": {"id": "fc_01", "name": "get_weather",
                                                "args": {"city": "Paris"}}}]},
  {"role": "user", "parts": [{"functionResponse": {"id": "fc_1", "name": "get_weather",
                                                   "response": {"output": "18°C, sunny"}}}]}]}
```

```json
''' + json.dumps(_REFUSAL, ensure_ascii=False, indent=1) + '''
```

## Next to the APIs you know

''' + _table(
    ("", "Anthropic Messages", "OpenAI Chat Completions", "Parts API"),
    ("the model's role", "`assistant`", "`assistant`", "`model`"),
    ("where results go", "a `tool_result` block in a `user` message", "a message with role `tool`",
     "a `functionResponse` part in a `user` content"),
    ("arguments", "an object (`input`)", "a string of JSON (`arguments`)", "an object (`args`)"),
    ("a failed tool", '`"is_error": true`', "no field: say so in the text", '`"response": {"error": "..."}`'),
    ("a reply of calls ends with", '`stop_reason: "tool_use"`', '`finish_reason: "tool_calls"`',
     '`finishReason: "STOP"`, the same as an answer'),
    ("the model is named", "in the body", "in the body", "in the URL"),
) + "\n"
DOC = _Page(DOC)  # subtle: shows as the formatted page in a notebook, and is still a str
