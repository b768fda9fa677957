"""Worked solution of lesson 4, "The transcript is data, and the model is one method".

The lesson's exercise: write a provider for the made-up Parts API (`toolcall_lab.parts_api`,
its documentation in `parts_api.DOC`) and make it keep the provider contract
(`toolcall_lab.contract`). This module is the teacher's answer, kept off the lesson's page:

    >>> from toolcall_lab import contract
    >>> from toolcall_lab.parts_api import PartsServer
    >>> with PartsServer() as server:
    ...     contract.check_provider(PartsProvider(server.url))
    []

It is built the way every adapter of the kit is: two pure translators, `encode_request`
(transcript -> request body) and `decode_response` (reply body -> Turn), and a thin
`complete()` that sends the body with the standard library's `urllib.request`, so a
learner's version needs nothing installed. The quirks of the Parts API are handled where
they arise, each with a comment: the model's role is "model", results travel in a "user"
content with the call's name repeated, an error is `{"error": ...}`, and finishReason is
"STOP" for a reply of function calls too.

Left out, as in the lesson: retries, streaming, keys, and reasoning (the Parts API has none).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, assert_never, cast

from ..errors import (
    InvalidRequestError,
    MalformedResponseError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnreachableError,
)
from ..messages import Block, Message, ReasoningBlock, TextBlock, ToolCall, ToolResult, Transcript
from ..providers.base import SentRequest
from ..tool import Tool
from ..turn import StopReason, Turn
from ..usage import Usage

__all__ = ["PartsProvider", "decode_response", "encode_request"]

#: finishReason -> the kit's stop reason; STOP is decided by the parts (see decode_response).
STOP_REASONS = {"MAX_TOKENS": StopReason.MAX_TOKENS, "SAFETY": StopReason.REFUSAL}


def encode_request(transcript: Transcript, tools: Sequence[Tool] = (), *,
                   max_tokens: int = 1024) -> dict[str, Any]:
    """The Parts API request body for `transcript` and `tools`.

    >>> encode_request(Transcript("Be brief.", [Message.user("Hi")]))
    {'contents': [{'role': 'user', 'parts': [{'text': 'Hi'}]}], 'systemInstruction': {'parts': \
[{'text': 'Be brief.'}]}, 'generationConfig': {'maxOutputTokens': 1024}}
    """
    names = {call.id: call.name for call in transcript.tool_calls()}  # a response repeats its call's name
    contents = []
    for message in transcript:
        parts = [part for block in message.blocks if (part := _part(block, names)) is not None]
        if parts:  # subtle: a content with no parts is refused; a message of foreign reasoning has none
            contents.append({"role": "model" if message.role == "assistant" else "user", "parts": parts})
    body: dict[str, Any] = {"contents": contents}
    if transcript.system:
        body["systemInstruction"] = {"parts": [{"text": transcript.system}]}
    if tools:
        declarations = [{"name": t.name, "description": t.description, "parameters": dict(t.input_schema)}
                        for t in tools]
        body["tools"] = [{"functionDeclarations": declarations}]
    body["generationConfig"] = {"maxOutputTokens": max_tokens}
    return body


def _part(block: Block, names: Mapping[str, str]) -> dict[str, Any] | None:
    match block:
        case TextBlock(text=text):
            return {"text": text}
        case ToolCall(id=call_id, name=name, args=args):
            return {"functionCall": {"id": call_id, "name": name, "args": dict(args)}}
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            # the API wants an object; "error" is how it tells a failure from a result
            response = {"error": content} if is_error else {"output": content}
            return {"functionResponse": {"id": call_id, "name": names.get(call_id, ""), "response": response}}
        case ReasoningBlock():
            return None  # the Parts API has no reasoning to send back
        case _:
            assert_never(block)


def decode_response(body: Mapping[str, Any]) -> Turn:
    """The `Turn` in a Parts API reply.

    >>> reply = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {
    ...     "id": "fc_01", "name": "get_weather", "args": {"city": "Paris"}}}]}, "finishReason": "STOP"}],
    ...     "usageMetadata": {"promptTokenCount": 104, "candidatesTokenCount": 9}, "modelVersion": "parts-1"}
    >>> turn = decode_response(reply)
    >>> turn.message, turn.stop_reason, turn.usage
    (Message.assistant(ToolCall('fc_01', 'get_weather', {'city': 'Paris'})), StopReason.TOOL_USE, \
Usage(input_tokens=104, output_tokens=9))
    """
    candidate = body["candidates"][0]
    blocks: list[Block] = []
    for part in candidate["content"].get("parts", []):
        if "text" in part:
            blocks.append(TextBlock(part["text"]))
        elif "functionCall" in part:
            call = part["functionCall"]
            blocks.append(ToolCall(call["id"], call["name"], call.get("args") or {}))
    # subtle: finishReason is "STOP" for calls and answers alike; the parts tell them apart
    has_calls = any(isinstance(b, ToolCall) for b in blocks)
    stop = STOP_REASONS.get(candidate.get("finishReason", "STOP"),
                            StopReason.TOOL_USE if has_calls else StopReason.END_TURN)
    usage = body.get("usageMetadata", {})
    return Turn(Message("assistant", tuple(blocks)), stop,
                Usage(input_tokens=usage.get("promptTokenCount", 0),
                      output_tokens=usage.get("candidatesTokenCount", 0)),
                body.get("modelVersion", ""))


class PartsProvider:
    """A provider for the Parts API at `base_url` (a `PartsServer`'s `url`).

    `requests` keeps a `SentRequest` per call that succeeded, as every provider of the kit does.
    """

    name = "parts"

    def __init__(self, base_url: str, *, model: str = "parts-1", max_tokens: int = 1024,
                 timeout: float = 30.0) -> None:
        self.base_url, self.model = base_url.rstrip("/"), model
        self.max_tokens, self.timeout = max_tokens, timeout
        self.requests: list[SentRequest] = []

    def __repr__(self) -> str:
        return f"PartsProvider(model={self.model!r})"

    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = ()) -> Turn:
        """Send the conversation and the tools; return the reply with both wire bodies."""
        tools = tuple(tools)
        request = encode_request(transcript, tools, max_tokens=self.max_tokens)
        started = time.perf_counter()
        body = self._post(request)
        try:
            turn = decode_response(body)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise MalformedResponseError(f"the Parts API answered with a body it does not document "
                                         f"({type(exc).__name__}: {exc}).", provider=self.name) from None
        self.requests.append(SentRequest.of(transcript, tools, body=request,
                                            previous=self.requests[-1] if self.requests else None))
        return replace(turn, latency_s=time.perf_counter() - started, request=request, response=body)

    def _post(self, request: dict[str, Any]) -> dict[str, Any]:
        """POST `request` to the model's endpoint; the reply's JSON, or the kit's error."""
        url = f"{self.base_url}/v1/models/{self.model}:generateContent"  # the model goes in the URL
        sent = urllib.request.Request(url, data=json.dumps(request).encode(), method="POST",
                                      headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(sent, timeout=self.timeout) as response:
                return cast(dict[str, Any], json.load(response))
        except urllib.error.HTTPError as error:  # a status the API chose: its body says why
            with error:
                said = _error_message(error.read()) or error.reason
            kind = InvalidRequestError if error.code == 400 else ProviderError
            raise kind(f"the Parts API refused the request ({error.code}: {said})", provider=self.name,
                       status=error.code) from None
        except TimeoutError:
            raise ProviderTimeoutError(f"the Parts API did not answer within {self.timeout:g} s.",
                                       provider=self.name) from None
        except (urllib.error.URLError, ConnectionError) as error:
            raise ProviderUnreachableError(f"nothing answers at {self.base_url} ({error}); start a "
                                           "PartsServer and pass its url.", provider=self.name) from None
        except ValueError as error:
            raise MalformedResponseError(f"the Parts API's reply is not JSON ({error}).",
                                         provider=self.name) from None


def _error_message(raw: bytes) -> str | None:
    """The message of a Parts API error body, or None when it is not one."""
    try:
        return cast(str, json.loads(raw)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return None
