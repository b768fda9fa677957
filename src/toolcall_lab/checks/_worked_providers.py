# mypy: disable-error-code="no-untyped-def, no-untyped-call, type-arg"
# (written as a learner writes them in the lesson's `your-code` cells: unannotated, but for a
# bare `dict` and `list` where mypy could not tell a body's or a reply's mixed values apart)
"""The worked classes of lessons 9 and 10, "Your own provider" and "An adapter of your own":
the teacher's answers, as real code.

They live here, as code, so that ruff and mypy read them and the tests run them; the keys
(`checks.your_own_provider`, `checks.an_adapter_of_your_own`) hand out their *source text*
as `SOLUTIONS`, which a teacher's solved copy puts in place of each template. A lesson never imports this
module, and the checks refuse any class built on the kit's own (this module's included),
so the answer to "write it yourself" cannot be one import.

Each one uses only the names its template cell imports, since its source is pasted there:

    EchoProvider     Message, StopReason, Turn, Usage, estimate_tokens, request_text
    MyPartsProvider  Message, StopReason, TextBlock, ToolCall, ToolResult, Turn, Usage, post
    Traced           nothing

`MyPartsProvider` keeps the provider contract on a `PartsServer`:

    >>> from toolcall_lab.contract import check_provider
    >>> from toolcall_lab.parts_api import PartsServer
    >>> with PartsServer() as server:
    ...     check_provider(MyPartsProvider(server.url))
    []

It reads a reply as the documentation promises it (every field present, a part is text or a
functionCall), without `.get` defaults the API never needs.

Left out, as in the lesson: retries, streaming, and reasoning blocks (the Parts API has none,
and a transcript of another provider's thinking is not sent to it).
"""

from __future__ import annotations

from ..blocks import TextBlock, ToolCall, ToolResult
from ..messages import Message
from ..parts_api.client import post
from ..tokens import estimate_tokens, request_text
from ..turn import StopReason, Turn
from ..usage import Usage

__all__ = ["EchoProvider", "MyPartsProvider", "Traced"]


class EchoProvider:
    """A pretend model that answers with the user's newest words."""

    name = "echo"
    model = "echo-1"

    def complete(self, transcript, *, tools=()):
        """The reply: the newest user text, repeated; it ends the turn."""
        words = transcript.last_user_text()
        sent = estimate_tokens(request_text(transcript, tools))
        usage = Usage(input_tokens=sent, output_tokens=estimate_tokens(words),
                      estimated=True)
        reply = Message.assistant(words)
        return Turn(reply, StopReason.END_TURN, usage, self.model)


class MyPartsProvider:
    """A provider for the Parts API served at `url`."""

    name = "parts"
    model = "parts-1"

    def __init__(self, url):
        """Keep the server's address."""
        self.url = url

    def encode(self, transcript, tools):
        """The request body for `transcript` and `tools`."""
        names = {call.id: call.name for call in transcript.tool_calls()}
        contents = []
        for message in transcript:
            role = "model" if message.role == "assistant" else "user"
            parts = [p for b in message.blocks if (p := self.part(b, names))]
            if parts:  # thinking has no part here: a message of it alone is not sent
                contents.append({"role": role, "parts": parts})
        body: dict = {"contents": contents}
        if transcript.system:
            body["systemInstruction"] = {"parts": [{"text": transcript.system}]}
        if tools:
            declared = [{"name": t.name, "description": t.description,
                         "parameters": dict(t.input_schema)} for t in tools]
            body["tools"] = [{"functionDeclarations": declared}]
        return body

    def part(self, block, names):
        """One block as a part."""
        match block:
            case TextBlock(text=text):
                return {"text": text}
            case ToolCall(id=call_id, name=name, args=args):
                return {"functionCall": {"id": call_id, "name": name,
                                         "args": dict(args)}}
            case ToolResult(call_id=call_id, content=content):
                said = {"error" if block.is_error else "output": content}
                return {"functionResponse": {"id": call_id,
                                             "name": names.get(call_id, ""),
                                             "response": said}}

    def decode(self, body):
        """The Turn in a reply body."""
        candidate = body["candidates"][0]
        blocks: list = []
        for part in candidate["content"]["parts"]:
            if "text" in part:
                blocks.append(TextBlock(part["text"]))
            else:
                call = part["functionCall"]
                blocks.append(ToolCall(call["id"], call["name"], call["args"]))
        reason = candidate["finishReason"]
        if reason == "MAX_TOKENS":
            stop = StopReason.MAX_TOKENS
        elif reason == "SAFETY":
            stop = StopReason.REFUSAL
        elif any(isinstance(block, ToolCall) for block in blocks):
            stop = StopReason.TOOL_USE  # STOP for calls too: the parts decide
        else:
            stop = StopReason.END_TURN
        counts = body["usageMetadata"]
        usage = Usage(input_tokens=counts["promptTokenCount"],
                      output_tokens=counts["candidatesTokenCount"])
        return Turn(Message.assistant(*blocks), stop, usage, body["modelVersion"])

    def complete(self, transcript, *, tools=()):
        """Encode, send to the model's endpoint, decode."""
        url = f"{self.url}/v1/models/{self.model}:generateContent"
        return self.decode(post(url, self.encode(transcript, tools)))


class Traced:
    """A provider around another: one log line per call, the reply unchanged."""

    def __init__(self, inner):
        """Keep the provider to wrap; take its name and model."""
        self.inner = inner
        self.name, self.model = inner.name, inner.model
        self.calls = 0

    def complete(self, transcript, *, tools=()):
        """Call the inner provider, print the call's line, return its Turn."""
        turn = self.inner.complete(transcript, tools=tools)
        self.calls += 1
        used = turn.usage
        print(f"{self.name}/{self.model} call {self.calls}: "
              f"{used.input_tokens} in, {used.output_tokens} out")
        return turn
