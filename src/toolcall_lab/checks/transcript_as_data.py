# mypy: disable-error-code="no-untyped-def"
# (the worked classes of the lesson's Your-turn cells are written as a learner writes them: unannotated)
"""Answer keys and worked solutions of lesson 4, "The transcript is data, and the model is one method".

Most answers are values, checked as in every lesson. Three are classes the learner writes in
a `your-code` cell; their checks judge them by what they do, one clause at a time, and name
the first clause that fails. A class whose `complete` is still the template's `...` counts as
not answered yet, so **Run All** reaches the end.

**The Parts API adapter.** The lesson asks for a provider for the made-up Parts API
(`toolcall_lab.parts_api`, its documentation in `parts_api.DOC`) that keeps the provider
contract (`toolcall_lab.contract`). `PartsProvider` is the teacher's answer, kept off the
lesson's page:

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

**The other worked classes**, `EchoProvider` and `Traced`, are kept as real code here so that
they are linted and run; `SOLUTIONS` holds their source text, and the lesson's tests put it
in place of the templates.

Left out, as in the lesson: retries, streaming, keys, and reasoning (the Parts API has none).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import re
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, assert_never, cast

from ..errors import (
    InvalidRequestError,
    MalformedResponseError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnreachableError,
)
from ..examples import PARIS_QUESTION, weather_policy
from ..loop import run_agent
from ..messages import (
    Block,
    Message,
    ReasoningBlock,
    ServerToolCall,
    ServerToolResult,
    TextBlock,
    ToolCall,
    ToolResult,
    Transcript,
)
from ..providers.base import Provider, SentRequest
from ..providers.scripted import ScriptedProvider
from ..selfcheck import check, equal, number, word
from ..tokens import estimate_tokens, request_text
from ..tool import Tool
from ..tools.weather import get_weather
from ..turn import StopReason, Turn
from ..usage import Usage
from ..wire import check as api_check
from ..wire import decode_response as decode_wire_response
from ._runs import raised as _raised
from ._runs import unwritten as _unwritten

__all__ = ["SOLUTIONS", "PartsProvider", "decode_response", "echo_provider", "encode_request", "exercise_1",
           "exercise_2", "exercise_3", "parts_provider", "predict_biggest", "predict_last_question",
           "predict_refused_call", "q1", "q2", "q3"]


# -- the worked Parts API adapter ----------------------------------------------------------------
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
        case ReasoningBlock() | ServerToolCall() | ServerToolResult():
            return None  # the Parts API has no reasoning, nor another provider's tools, to send back
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


# -- the lesson's checks ----------------------------------------------------------------------
KINDS = ("text", "tool_call", "tool_result", "reasoning")
REDACTED = "[redacted]"


# -- what the checks share ----------------------------------------------------------------------
def _quietly(action: Callable[[], Any]) -> tuple[Any, str]:
    """Run `action` with its printing captured: (what it returned, what it printed)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        value = action()
    return value, printed.getvalue()


def tokens_in(block: Any) -> int:
    """The lesson's measure of a block (section 2): its words or its call, ~4 characters a token."""
    match block:
        case TextBlock(text=text):
            return estimate_tokens(text)
        case ToolCall(name=name, args=args):
            return estimate_tokens(name + json.dumps(dict(args)))
        case ToolResult(content=content):
            return estimate_tokens(content)
        case _:  # reasoning
            return estimate_tokens(getattr(block, "text", ""))


def input_by_kind(requests: Sequence[Any]) -> Counter[str]:
    """Input tokens per kind of block over `requests` (the lesson's section 3, blocks only)."""
    bill: Counter[str] = Counter()
    for request in requests:
        for message in request.messages:
            for block in message.blocks:
                bill[block.kind] += tokens_in(block)
    return bill


# -- section 1 -------------------------------------------------------------------------------------
def _last_user_holds(messages: Any) -> str:
    """What `last_question` returns for `messages`: "question", "result" or "error"."""
    try:
        content = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    except (StopIteration, KeyError, TypeError):
        return "error"
    if isinstance(content, list) and any(isinstance(b, Mapping) and b.get("type") == "tool_result"
                                         for b in content):
        return "result"
    return "question"


def predict_last_question(answer: Any, messages: Any) -> None:
    """What `last_question` (written for Chat) returns on the Anthropic-shaped list."""
    check("Prediction", answer, word(_last_user_holds(messages), choices=("question", "result", "error")),
          hint="look at the role of every message in the Anthropic list: which is the last 'user' one, "
               "and what does it carry?")


# -- section 3 -------------------------------------------------------------------------------------
def predict_biggest(answer: Any, provider: Any) -> None:
    """Which kind of block cost the most input tokens over `provider`'s calls."""
    bill = input_by_kind(getattr(provider, "requests", []))
    expected = max(KINDS, key=lambda kind: bill[kind])
    check("Prediction", answer, word(expected, choices=KINDS),
          hint="every call re-sends every earlier block: which kind is long, and is there one per step?")


# -- section 7: EchoProvider -----------------------------------------------------------------------
class EchoProvider:
    """A pretend model that answers every conversation with the user's newest words."""

    name = "echo"
    model = "echo-1"

    def complete(self, transcript, *, tools=()):
        """The reply: an assistant message repeating the newest user text, ending the turn."""
        words = transcript.last_user_text()
        usage = Usage(input_tokens=estimate_tokens(request_text(transcript, tools)),
                      output_tokens=estimate_tokens(words), estimated=True)
        return Turn(Message.assistant(words), StopReason.END_TURN, usage, self.model)


def _reply_problem(provider: Any, transcript: Transcript, expected: str) -> str | None:
    """What is wrong with `provider`'s reply to `transcript`, which should echo `expected`."""
    before = list(transcript.messages)
    try:
        turn = provider.complete(transcript, tools=(get_weather,))
    except Exception as exc:
        return f"complete() raised {_raised(exc)}"
    if not isinstance(turn, Turn):
        return f"complete() returned {type(turn).__name__}, not a Turn(message, stop_reason, usage, model)"
    if transcript.messages != before:
        return "complete() changed the transcript it was given; the loop appends the reply, not the provider"
    if turn.text != expected:
        return f"the reply says {turn.text[:40]!r}; it should repeat the newest user text, {expected!r}"
    if turn.stop_reason is not StopReason.END_TURN:
        return f"the stop reason is {turn.stop_reason.value}; an answer ends the turn (end_turn)"
    used = turn.usage
    if not isinstance(used, Usage) or used.input_tokens <= 0 or used.output_tokens <= 0:
        return f"its usage is {used!r}; estimate input and output tokens, both above 0"
    if not used.estimated:
        return "its usage is made up by your code, so it must say estimated=True"
    if turn.model != provider.model:
        return f"the Turn names model {turn.model!r}; it should be the provider's, {provider.model!r}"
    return None


def _wrong_echo(cls: Any) -> str | None:
    if not isinstance(cls, type):
        return f"expected the class itself (EchoProvider, without brackets), got {type(cls).__name__}"
    try:
        provider = cls()
    except Exception as exc:
        return f"EchoProvider() raised {_raised(exc)}; it should need no arguments"
    if not isinstance(provider, Provider):
        return "a provider has a name, a model and a complete() method"
    alone = Transcript("Be brief.", [Message.user("Is anyone there?")])
    found = _reply_problem(provider, alone, "Is anyone there?")
    if found:
        return found
    longer = Transcript(messages=[Message.user("First words"), Message.assistant("First words"),
                                  Message.user("Newest words")])
    found = _reply_problem(provider, longer, "Newest words")
    if found:
        return f"in a longer conversation, {found}"
    try:
        run = run_agent(provider, "Hello?")
    except Exception as exc:
        return f"run_agent with it raised {_raised(exc)}"
    if run.answer != "Hello?" or len(run.transcript) != 2:
        return f"run_agent with it answered {run.answer!r} in {len(run.transcript)} messages"
    return None


def echo_provider(answer: Any) -> None:
    """Your EchoProvider, run alone and inside run_agent."""
    check("EchoProvider", ... if _unwritten(answer) else answer, _wrong_echo,
          hint="read the sentence before the hint: it names what went wrong; the list above the cell "
               "says what a Turn holds, and lesson 1 found the user's newest words")


# -- section 8: your Parts API adapter -------------------------------------------------------------
def _contract_of(cls: Any, server: Any) -> tuple[Any, str | None]:
    """(the contract's report on `cls(server.url)` or None, what is wrong or None)."""
    from ..contract import report

    if not isinstance(cls, type):
        return None, ("expected the class itself (MyPartsProvider, without brackets), "
                      f"got {type(cls).__name__}")
    try:
        provider = cls(server.url)
    except Exception as exc:
        return None, f"MyPartsProvider(server.url) raised {_raised(exc)}"
    found = report(provider)
    if found.failures:
        held = len(found.results) - len(found.failures)
        return found, (f"{held} of {len(found.results)} clauses hold; the first that fails, "
                       f"{str(found.failures[0]).rstrip('.')}")
    return found, None


def parts_provider(answer: Any, server: Any) -> None:
    """Your Parts API adapter, built on `server.url`, held to the provider contract."""
    if _unwritten(answer):
        answer, problem = ..., None
    else:
        found, problem = _contract_of(answer, server)
        if found is not None:
            print(found)
    check("MyPartsProvider", answer, lambda _: problem,
          hint="read the first failing clause, then the documentation's section on what it sent or read; "
               "compare your request body with its examples")


# -- section 9 -------------------------------------------------------------------------------------
def predict_refused_call(answer: Any, double: Any) -> None:
    """Which call of the run the server refused (1-based; 0 for none)."""
    statuses = [request.status for request in getattr(double, "requests", [])]
    expected = next((index for index, status in enumerate(statuses, start=1) if status >= 400), 0)
    check("Prediction", answer, number(expected),
          hint="the bug is in how a call's arguments are written; which request is the first to carry "
               "a call back to the server?")


# -- check yourself --------------------------------------------------------------------------------
def q1(answer: Any) -> None:
    """Is Message.user("Hi") == Message.user("Hi")?"""
    check("Q1", answer, equal(Message.user("Hi") == Message.user("Hi")),
          hint="a dataclass compares every field; what does a message carry besides its role and blocks?")


def q2(answer: Any) -> None:
    """Anthropic: input 40, cache read 3000, output 200 with 150 thinking -> (kit input, non-reasoning)."""
    body = {"type": "message", "id": "msg_q2", "role": "assistant", "model": "claude-haiku-5-5",
            "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 40, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 0,
                      "output_tokens": 200, "output_tokens_details": {"thinking_tokens": 150}}}
    usage = decode_wire_response(body, api="anthropic").usage
    check("Q2", answer, equal((usage.input_tokens, usage.output_tokens - usage.reasoning_tokens)),
          hint="the kit counts cached input inside input_tokens, and reasoning inside output_tokens "
               "(section 6)")


def q3(answer: Any) -> None:
    """The kind of block an assistant message can never hold."""
    samples: list[Block] = [TextBlock("x"), ToolCall("toolu_01", "f", {}), ToolResult("toolu_01", "x")]
    refused = []
    for block in samples:
        try:
            Message.assistant(block)
        except ValueError:
            refused.append(block.kind)
    check("Q3", answer, word(refused[0], choices=KINDS),
          hint="which kind is produced by your code, never by the model?")


# -- exercises -------------------------------------------------------------------------------------
def _wrong_redaction(answer: Any, original: Transcript, saved: list[dict[str, Any]]) -> str | None:
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    if answer is original:
        return "that is the transcript itself; make a new one and leave the original as it is"
    if [m.to_dict() for m in original] != saved:
        return "the original transcript was changed; build the copy from new parts instead"
    if answer.system != original.system or len(answer) != len(original):
        return "the copy should have the original's system prompt and as many messages"
    for index, (mine, theirs) in enumerate(zip(answer, original, strict=True)):
        if not theirs.tool_results:
            if mine is not theirs:
                return f"message {index + 1} should be the very same object as in the original"
            continue
        results = mine.tool_results
        if [r.call_id for r in results] != [r.call_id for r in theirs.tool_results]:
            return f"the results of message {index + 1} must answer the same calls (same call_id)"
        if [r.content for r in results] != [REDACTED] * len(results) or any(r.is_error for r in results):
            return f"the result in message {index + 1} should say {REDACTED!r} and not be an error"
    return None


def exercise_1(answer: Any, transcript: Transcript) -> None:
    """A copy of `transcript` whose tool results say "[redacted]"; the original unchanged."""
    saved = [m.to_dict() for m in transcript]
    check("Exercise 1", answer, lambda a: _wrong_redaction(a, transcript, saved),
          hint="keep the system prompt and every message but the third, which is new: a results "
               "message around section 4's redacted copy")


_TEMPERATURE = re.compile(r"-?\d+°C")


def _wrong_summary(answer: Any, original: Transcript, kept: int = 4) -> str | None:
    if not isinstance(answer, Transcript):
        return f"expected a Transcript, got {type(answer).__name__}"
    if answer is original or len(original) < kept + 1:
        return "build a new Transcript and leave long_talk as it is"
    if answer.system != original.system:
        return "keep long_talk's system prompt"
    if len(answer) != kept + 1:
        return f"expected one summary and the last {kept} messages ({kept + 1} in all), got {len(answer)}"
    summary, rest = answer[0], answer.messages[1:]
    if any(mine is not theirs for mine, theirs in zip(rest, original.messages[-kept:], strict=True)):
        return f"after the summary come the last {kept} messages of long_talk, the same objects"
    if summary.role != "user" or not summary.text:
        return "the summary is a user message with text"
    if not summary.synthetic:
        return "nobody said the summary: mark it synthetic=True"
    replaced = original.messages[: len(original) - kept]
    results = {r.call_id: r for m in replaced for r in m.tool_results}
    for tool_call in (c for m in replaced for c in m.tool_calls):
        city = str(tool_call.args.get("city", ""))
        said = results.get(tool_call.id)
        temperature = _TEMPERATURE.search(said.content) if said else None
        if city.casefold() not in summary.text.casefold():
            return f"the summary does not mention {city}"
        if temperature and temperature.group() not in summary.text:
            return f"the summary does not give {city}'s temperature as the tool reported it"
    refused = api_check(answer, api="anthropic")
    if refused:
        return f"Anthropic would refuse it: {refused[0].text[:80]}"
    return None


def exercise_2(answer: Any, long_talk: Transcript) -> None:
    """long_talk with messages 1-8 replaced by one synthetic summary, the last 4 kept."""
    check("Exercise 2", answer, lambda a: _wrong_summary(a, long_talk),
          hint="a new Transcript: long_talk's system prompt, your synthetic summary, then a slice of "
               "long_talk.messages; read the trace for each city's temperature")


class Traced:
    """A provider around another: one printed line per call, the reply passed on unchanged."""

    def __init__(self, inner):
        """Keep the provider to wrap; take its name and model."""
        self.inner = inner
        self.name, self.model = inner.name, inner.model
        self.calls = 0

    def complete(self, transcript, *, tools=()):
        """Call the inner provider, print the call's number and tokens, return its Turn."""
        turn = self.inner.complete(transcript, tools=tools)
        self.calls += 1
        print(f"call {self.calls}: {turn.usage.input_tokens} in, {turn.usage.output_tokens} out")
        return turn


class _Recording:
    """A provider around another that keeps every Turn it hands out (to compare identities)."""

    def __init__(self, inner: Provider) -> None:
        self.inner, self.name, self.model = inner, inner.name, inner.model
        self.turns: list[Turn] = []

    def complete(self, transcript: Transcript, *, tools: Sequence[Tool] = ()) -> Turn:
        turn = self.inner.complete(transcript, tools=tools)
        self.turns.append(turn)
        return turn


def _shows(line: str, value: int) -> bool:
    return re.search(rf"(?<![\d.,]){value}(?![\d])", line.replace(",", "")) is not None


def _wrong_tracer(cls: Any) -> str | None:
    if not isinstance(cls, type):
        return f"expected the class itself (Traced, without brackets), got {type(cls).__name__}"
    inner = _Recording(ScriptedProvider(weather_policy, model="scripted-traced"))
    try:
        traced = cls(inner)
    except Exception as exc:
        return f"Traced(provider) raised {_raised(exc)}"
    if getattr(traced, "name", None) != inner.name or getattr(traced, "model", None) != inner.model:
        return "a Traced provider takes its name and model from the provider it wraps"
    try:
        run, printed = _quietly(lambda: run_agent(traced, PARIS_QUESTION, tools=[get_weather]))
    except Exception as exc:
        return f"run_agent with it raised {_raised(exc)}"
    if [s.turn for s in run.steps] != inner.turns or any(
            s.turn is not t for s, t in zip(run.steps, inner.turns, strict=False)):
        return "complete() should return the inner provider's Turn itself, unchanged"
    lines = [line for line in printed.splitlines() if line.strip()]
    if len(lines) != len(inner.turns):
        return f"expected one printed line per call ({len(inner.turns)} calls), got {len(lines)}"
    for number_, (line, turn) in enumerate(zip(lines, inner.turns, strict=True), start=1):
        shown = (number_, turn.usage.input_tokens, turn.usage.output_tokens)
        if not all(_shows(line, value) for value in shown):
            return (f"line {number_} ({line.strip()[:40]!r}) should show the call's number and its "
                    f"input and output tokens, {shown}")
    return None


def exercise_3(answer: Any) -> None:
    """Your Traced wrapper, around a scripted Paris run."""
    check("Exercise 3", ... if _unwritten(answer) else answer, _wrong_tracer,
          hint="the inner provider does the work; your complete() only counts, prints what the "
               "Turn's usage says, and hands that same Turn back")


#: The worked adapter is `PartsProvider` above; the lesson's class only has to behave like it.
_PARTS_SOLUTION = '''from toolcall_lab.checks.transcript_as_data import PartsProvider


class MyPartsProvider(PartsProvider):
    """The worked Parts API adapter: PartsProvider, in toolcall_lab.checks.transcript_as_data."""
'''

SOLUTIONS: dict[str, str] = {
    "predict_last_question": '"result"',
    "predict_biggest": '"tool_result"',
    "EchoProvider": inspect.getsource(EchoProvider),
    "MyPartsProvider": _PARTS_SOLUTION,
    "predict_refused_call": "2",
    "q1": "False",
    "q2": "(3040, 50)",
    "q3": '"tool_result"',
    "exercise_1": ("Transcript(transcript.system, [transcript[0], transcript[1], Message.results("
                   "[replace(r, content='[redacted]') for r in transcript[2].tool_results]), "
                   "*transcript.messages[3:]])"),
    "exercise_2": ("Transcript(long_talk.system, [Message.user('Earlier: Paris was 18°C and sunny, "
                   "Tokyo 22°C and cloudy.', synthetic=True), *long_talk.messages[-4:]])"),
    "Traced": inspect.getsource(Traced),
}
