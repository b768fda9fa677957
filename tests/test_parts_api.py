"""The made-up Parts API: its documentation is true, and its server refuses what it says it
refuses (naming the JSON path) and stops cleanly. Its reference adapter: test_parts_adapter.py."""

from __future__ import annotations

import contextlib
import copy
import json
import re
import socket
import subprocess
import sys
import threading

import pytest

from stub_server import post_json
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.parts_api import DOC, PartsServer, first_problem

PATH = "/v1/models/parts-1:generateContent"


def post(server, body, path=PATH, method="POST"):
    """(status, JSON reply) of one request over HTTP."""
    return post_json(server.url + path, body, method=method)


def doc_examples():
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.S)]


QUESTION = {"role": "user", "parts": [{"text": PARIS_QUESTION}]}
CALL = {"role": "model", "parts": [{"functionCall": {"id": "fc_01", "name": "get_weather",
                                                     "args": {"city": "Paris"}}}]}
ANSWER = {"role": "user", "parts": [{"functionResponse": {"id": "fc_01", "name": "get_weather",
                                                          "response": {"output": "18°C, sunny"}}}]}


def edited(change, contents=(QUESTION, CALL, ANSWER)):
    body = {"contents": copy.deepcopy(list(contents))}
    change(body)
    return body


def set_in(path, value):
    def change(body):
        *keys, last = path
        target = body
        for key in keys:
            target = target[key]
        target[last] = value
    return change


# every malformed case: (body, the message the server answers it with)
MALFORMED = {
    "unknown field": ({"messages": [], "contents": [QUESTION]},
                      "messages is not a field of the Parts API; the request's fields are contents, "
                      "systemInstruction, tools, generationConfig."),
    "no contents": ({}, "contents is missing; expected a list of contents."),
    "empty contents": ({"contents": []}, "contents is empty; send at least one user content."),
    "missing role": ({"contents": [{"parts": [{"text": "Hi"}]}]},
                     'contents[0].role is missing; expected "user" or "model".'),
    "assistant role": (edited(set_in(["contents", 1, "role"], "assistant")),
                       'contents[1].role must be "user" or "model", got a string: "assistant"; the model\'s '
                       'turns are "model", and your function results go in a "user" content.'),
    "unknown part": (edited(set_in(["contents", 0, "parts"], [{"text": "Hi"}, {"image": {}}])),
                     "contents[0].parts[1] is not a part the Parts API knows: a part holds exactly one of "
                     "text, functionCall or functionResponse, and this one has image."),
    "two kinds in one part": (edited(set_in(["contents", 0, "parts", 0, "functionCall"], {})),
                              "contents[0].parts[0] is not a part the Parts API knows: a part holds exactly "
                              "one of text, functionCall or functionResponse, and this one has text, "
                              "functionCall."),
    "args a string": (edited(set_in(["contents", 1, "parts", 0, "functionCall", "args"],
                                    '{"city": "Paris"}')),
                      'contents[1].parts[0].functionCall.args must be an object, e.g. {"city": "Paris"} '
                      '(not a string of JSON), got a string: "{\\"city\\": \\"Paris\\"}".'),
    "response to no call": (edited(set_in(["contents", 2, "parts", 0, "functionResponse", "id"], "fc_1")),
                            'contents[2].parts[0].functionResponse.id "fc_1" matches no functionCall before '
                            "it; answer with the id of the call, exactly as the model sent it."),
    "response names another function": (
        edited(set_in(["contents", 2, "parts", 0, "functionResponse", "name"], "weather")),
        'contents[2].parts[0].functionResponse.name is "weather", but the functionCall "fc_01" called '
        '"get_weather".'),
    "response not an object": (
        edited(set_in(["contents", 2, "parts", 0, "functionResponse", "response"], "18°C, sunny")),
        'contents[2].parts[0].functionResponse.response must be an object, e.g. {"output": "18°C, sunny"}, '
        'got a string: "18°C, sunny".'),
    "call in a user content": (edited(set_in(["contents", 1, "role"], "user")),
                               'contents[1].parts[0].functionCall cannot be in a "user" content; it belongs '
                               'in a "model" content.'),
    "call without id": (edited(set_in(["contents", 1, "parts", 0, "functionCall", "id"], "")),
                        "contents[1].parts[0].functionCall.id is empty; every call has an id, and its "
                        "response repeats it."),
    "a call left unanswered": (
        edited(lambda b: b["contents"][1]["parts"].append(
            {"functionCall": {"id": "fc_02", "name": "get_weather", "args": {"city": "Tokyo"}}})),
        'contents[1].parts[1].functionCall "fc_02" has no functionResponse in contents[2]; answer every '
        "call in the user content right after it."),
    "model last": ({"contents": [QUESTION, {"role": "model", "parts": [{"text": "Hello"}]}]},
                   'contents[1].role is "model", but the last content must come from the "user": the model '
                   "answers it."),
    "parameters not an object schema": (
        {"contents": [QUESTION], "tools": [{"functionDeclarations": [
            {"name": "get_weather", "parameters": {"type": "string"}}]}]},
        'tools[0].functionDeclarations[0].parameters.type must be "object": the arguments are one JSON '
        'object, got a string: "string".'),
    "bad function name": ({"contents": [QUESTION],
                           "tools": [{"functionDeclarations": [{"name": "get weather"}]}]},
                          "tools[0].functionDeclarations[0].name must be 1 to 64 letters, digits, _ or -, "
                          'got a string: "get weather".'),
    "system as a string": ({"contents": [QUESTION], "systemInstruction": "Be brief."},
                           'systemInstruction must be an object {"parts": [...]}, got a string: '
                           '"Be brief.".'),
    "max tokens zero": ({"contents": [QUESTION], "generationConfig": {"maxOutputTokens": 0}},
                        "generationConfig.maxOutputTokens must be at least 1, got 0."),
    "max tokens true": ({"contents": [QUESTION], "generationConfig": {"maxOutputTokens": True}},
                        "generationConfig.maxOutputTokens must be a whole number, got true or false: true."),
}


@pytest.fixture
def server():
    with PartsServer() as running:
        yield running


# -- the documentation is true ----------------------------------------------------------------

def test_the_documented_examples_are_what_the_server_answers():
    first, first_reply, second, second_reply, mistyped, refusal = doc_examples()
    fresh = PartsServer()  # handle() needs no socket: ids and response ids count from 1
    assert fresh.handle("POST", PATH, json.dumps(first).encode()) == (200, first_reply)
    assert fresh.handle("POST", PATH, json.dumps(second).encode()) == (200, second_reply)
    assert fresh.handle("POST", PATH, json.dumps(mistyped).encode()) == (400, refusal)


def test_the_documented_error_messages_are_the_servers_own():
    quoted = re.findall(r"^\| [^|`]+ \| `([^`]+)` \|$", DOC, re.M)
    answered = {message for _, message in MALFORMED.values()}
    assert len(quoted) == 8 and set(quoted) <= answered


def test_the_doc_says_it_is_made_up_and_claims_nothing_for_a_vendor():
    assert DOC.startswith("# The Parts API\n\n> **Made up for this lesson.**")
    assert "it is not any\n> vendor's API" in DOC


# -- malformed requests get a 400 naming the JSON path ------------------------------------------

@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_request_gets_the_rule_it_breaks(case):
    body, message = MALFORMED[case]
    assert first_problem(body).text == message
    assert PartsServer().handle("POST", PATH, json.dumps(body).encode()) == (
        400, {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}})


@pytest.mark.parametrize("case", ["missing role", "unknown part", "args a string", "response to no call"])
def test_the_400_crosses_the_wire_in_the_apis_error_shape(server, case):
    body, message = MALFORMED[case]
    refusal = {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    assert post(server, body) == (400, refusal)
    assert server.requests[-1].status == 400 and server.requests[-1].body == body


def test_every_problem_names_its_path_first():
    for body, message in MALFORMED.values():
        problem = first_problem(body)
        assert message.startswith(problem.path + " ") and problem.api == "parts"


def test_a_well_formed_conversation_keeps_every_rule():
    assert first_problem({"contents": [QUESTION, CALL, ANSWER]}) is None
    first = doc_examples()[0]
    assert first_problem(first) is None
    assert first_problem({**first, "contents": [QUESTION, CALL, ANSWER]}) is None


def test_not_json_wrong_path_and_wrong_method(server):
    assert post(server, b"{not json") == (400, {"error": {
        "code": 400, "message": "the body is not JSON; send one JSON object.", "status": "INVALID_ARGUMENT"}})
    assert post(server, b"[1, 2]")[1]["error"]["message"] == (
        "the body must be a JSON object, got a list: [1, 2].")
    status, reply = post(server, {"contents": [QUESTION]}, path="/v1/chat/completions")
    assert status == 404 and reply["error"] == {
        "code": 404, "status": "NOT_FOUND",
        "message": "nothing answers POST /v1/chat/completions; the Parts API answers POST "
                   "/v1/models/{model}:generateContent."}
    assert post(server, b"", method="GET")[0] == 404


def test_a_policy_that_fails_is_a_500_in_the_same_shape():
    def broken(transcript, tools):
        raise KeyError("city")

    with PartsServer(broken) as failing:
        assert post(failing, {"contents": [QUESTION]}) == (500, {"error": {
            "code": 500, "message": "the scripted model failed: KeyError: 'city'", "status": "INTERNAL"}})


def test_the_model_named_in_the_url_answers_and_ids_count_up(server):
    status, reply = post(server, {"contents": [{"role": "user", "parts": [{"text": "Tokyo and Paris?"}]}],
                                  "tools": [{"functionDeclarations": [{"name": "get_weather"}]}]},
                         path="/v1/models/my-model.2:generateContent")
    assert status == 200 and reply["modelVersion"] == "my-model.2"
    assert [p["functionCall"]["id"] for p in reply["candidates"][0]["content"]["parts"]] == ["fc_01", "fc_02"]


# -- the server starts and stops cleanly -------------------------------------------------------

def test_the_server_stops_cleanly():
    before = set(threading.enumerate())
    with PartsServer() as server:
        assert post(server, {"contents": [QUESTION]})[0] == 200
        port = server.port
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=2)  # a handler thread finishing its last reply
    assert set(threading.enumerate()) - before == set()
    with pytest.raises(ConnectionRefusedError), contextlib.closing(socket.socket()) as probe:
        probe.connect(("127.0.0.1", port))
    server.stop()  # stopping twice is harmless
    assert repr(server) == "PartsServer(running=False, requests=1)"


def test_the_server_listens_on_loopback_only(server):
    assert server.url.startswith("http://127.0.0.1:") and server.port > 0


@pytest.mark.slow
def test_importing_the_kit_loads_neither_the_contract_nor_the_parts_api():
    out = subprocess.run([sys.executable, "-c", "import toolcall_lab, sys; print(' '.join(sys.modules))"],
                         check=True, capture_output=True, text=True).stdout.split()
    assert [m for m in out if m.startswith(("toolcall_lab.contract", "toolcall_lab.parts_api",
                                            "toolcall_lab.checks"))] == []
