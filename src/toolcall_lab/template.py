"""What the model actually reads: a conversation rendered through an open model's chat template.

An API takes structured messages and tools; the model behind it reads one string. A local
server (vLLM, llama.cpp, Ollama, LM Studio) builds that string with the *chat template*
shipped beside the model's weights, a Jinja program, and after the model has written its
reply it parses tool calls back out of the raw text. This module does both halves, offline:

    render(transcript, tools)   -> the prompt the model reads (str)
    view(transcript, tools)     -> the same prompt, each part marked with where it came from
    parse_tool_calls(raw_text)  -> ParsedOutput(text, calls, problems)

    >>> from toolcall_lab import Message, Transcript
    >>> print(render(Transcript("Be brief.", [Message.user("Hi")])), end="")
    <|im_start|>system
    Be brief.<|im_end|>
    <|im_start|>user
    Hi<|im_end|>
    <|im_start|>assistant

The template shipped is Qwen2.5-7B-Instruct's, exactly as its tokenizer_config.json holds it
(Apache-2.0; `TEMPLATES` records where it comes from). It is rendered the way Hugging Face's
`apply_chat_template` renders it: jinja2's immutable sandbox, `trim_blocks` and
`lstrip_blocks`, a `tojson` that keeps non-ASCII text as it is, a `raise_exception` global,
and the context `messages` (OpenAI-chat dicts, a call's `arguments` as a dict), `tools`
(JSON-schema function dicts) and `add_generation_prompt`.

What the rendering shows: the tool schemas are JSON lines in the system prompt; a call is
JSON between `<tool_call>` tags; a result is plain text between `<tool_response>` tags in a
*user* turn, with no id (the order pairs it with its call) and no error flag (a failed tool's
text says "Error: ", and a success that begins with those words says "Output: Error: ", as on
Chat's wire). Reasoning blocks are left out, as Chat leaves them.

Parsing is the other direction, in the same tagged-JSON style (Qwen, Hermes and many
fine-tunes use it): each `<tool_call>...</tool_call>` holds `{"name": ..., "arguments": {...}}`.
A tag that cannot be read becomes a *malformed* `ToolCall` (its `raw_args` keep the text) and
a sentence in `problems`, so the kit's loop answers it with an error result the model can act
on, instead of crashing or dropping it. Left out: streaming (a half-written tag), a
`</tool_call>` inside a JSON string, and other models' tag styles.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, Literal

from ._text import shorten
from .blocks import (
    NOT_AN_OBJECT,
    ToolCall,
    arguments_problem,
    clean_text,
    read_arguments,
)
from .errors import UsageError, UsageTypeError
from .messages import Message
from .tool import Tool
from .transcript import Transcript
from .views.palette import OKABE_ITO
from .wire._shared import parse_arguments

__all__ = ["TEMPLATES", "ChatTemplate", "ParsedOutput", "PromptView", "Span", "chat_messages",
           "parse_tool_calls", "render", "tool_schemas", "view"]


@dataclass(frozen=True)
class ChatTemplate:
    """One model's chat template, shipped as package data, with where it comes from."""

    name: str
    model: str
    file: str  # in toolcall_lab/data/chat_templates/
    source: str  # the model's own file that holds the template
    copied_from: str  # the public copy this file was taken from, at a fixed commit
    licence: str  # the model's licence, which covers its template; its text ships beside the file

    @property
    def text(self) -> str:
        """The template's Jinja source, exactly as the model ships it."""
        return _read(self.file)

    def __repr__(self) -> str:
        return f"ChatTemplate({self.name!r}, model={self.model!r}, licence={self.licence!r})"


#: name -> template. Each row is one template: its file, its model, its source and licence.
TEMPLATES = {t.name: t for t in [
    ChatTemplate(
        "qwen2.5", "Qwen/Qwen2.5-7B-Instruct", "qwen2.5.jinja",
        source="https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/tokenizer_config.json",
        copied_from="https://github.com/ggerganov/llama.cpp/blob/eaca756ecca033e6fdd241dad091974a2c0354ff/"
                    "tests/chat/templates/Qwen-Qwen2.5-7B-Instruct.jinja",
        licence="Apache-2.0"),
]}


@cache
def _read(file: str) -> str:
    return (resources.files("toolcall_lab") / "data" / "chat_templates" / file).read_text(encoding="utf-8")


# -- the context a template is rendered with ------------------------------------------------------
def tool_schemas(tools: Iterable[Tool]) -> list[dict[str, Any]]:
    """The tools as a chat template receives them: JSON-schema function dicts.

    >>> from toolcall_lab.tools import calculator
    >>> tool_schemas([calculator])[0]["function"]["name"]
    'calculator'
    """
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": dict(t.input_schema)}} for t in tools]


def chat_messages(transcript: Transcript) -> list[dict[str, Any]]:
    """The conversation as a chat template receives it: OpenAI-chat message dicts.

    Chat Completions' own messages (`wire.chat.client.encode_messages`), with a call's
    `arguments` a dict (not Chat's JSON string), as `apply_chat_template` expects them; each
    result is a `tool` message.

    >>> from toolcall_lab import Message, ToolCall, Transcript
    >>> chat_messages(Transcript(messages=[Message.assistant(ToolCall("call_1", "f", {"x": 1}))]))
    [{'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', \
'function': {'name': 'f', 'arguments': {'x': 1}}}]}]
    """
    if not isinstance(transcript, Transcript):
        raise UsageTypeError(f"expected a Transcript, got {type(transcript).__name__}; "
                             "pass run.transcript, or Transcript(system, messages).")
    from .wire.chat.client import encode_messages  # subtle: on first use, so no API folder loads on import

    return [_as_the_template_reads_it(message) for message in encode_messages(transcript)]


def _as_the_template_reads_it(message: dict[str, Any]) -> dict[str, Any]:
    """A Chat message as `apply_chat_template` takes it: several text parts joined by a blank line,
    a call's arguments a dict (a malformed call's raw text as it is, which tojson quotes)."""
    if isinstance(message.get("content"), list):
        message["content"] = "\n\n".join(part["text"] for part in message["content"])
    for call in message.get("tool_calls", ()):
        text = call["function"]["arguments"]
        arguments = parse_arguments(text)
        call["function"]["arguments"] = text if arguments is None else arguments
    return message


# -- rendering ------------------------------------------------------------------------------------
def _chosen(template: str | ChatTemplate) -> ChatTemplate:
    if isinstance(template, ChatTemplate):
        return template
    if template not in TEMPLATES:
        raise UsageError(f"no chat template named {template!r}; the kit ships {sorted(TEMPLATES)}.")
    return TEMPLATES[template]


@cache
def _compiled(source: str) -> Any:
    """`source` compiled as `apply_chat_template` compiles a template (transformers'
    chat_template_utils.py): sandboxed, blocks trimmed, its own `tojson`, `raise_exception`."""
    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise jinja2.TemplateError(message)

    def tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
               separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
        # subtle: jinja2's own tojson escapes <, >, & and ' for HTML; a prompt is not HTML.
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def strftime_now(format: str) -> str:  # some templates date their system prompt
        return datetime.now().strftime(format)

    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                                extensions=[jinja2.ext.loopcontrols])
    environment.filters["tojson"] = tojson
    environment.globals["raise_exception"] = raise_exception
    environment.globals["strftime_now"] = strftime_now
    return environment.from_string(source)


def _render(messages: list[dict[str, Any]], schemas: list[dict[str, Any]] | None, chosen: ChatTemplate,
            add_generation_prompt: bool) -> str:
    import jinja2

    try:
        return str(_compiled(chosen.text).render(messages=messages, tools=schemas, documents=None,
                                                 add_generation_prompt=add_generation_prompt))
    except jinja2.TemplateError as error:  # raise_exception(...), or what the sandbox forbids
        raise UsageError(f"the {chosen.name} chat template refused this conversation: {error}") from None
    except Exception as error:
        # subtle: a template is a program; it can divide by zero, overflow, {% include %} with
        # no loader (TypeError) or recurse forever, and none of those is a TemplateError.
        raise UsageError(f"the {chosen.name} chat template failed while rendering this conversation "
                         f"({_failure(error)}); the template itself is at fault, so fix it or choose "
                         f"another ({', '.join(sorted(TEMPLATES))}).") from None


def _failure(error: BaseException) -> str:
    """"Type: message" for what went wrong inside a template, even when its text cannot be shown."""
    try:
        said = shorten(str(error), 200)
    except Exception:
        said = ""
    return f"{type(error).__name__}: {said}" if said else type(error).__name__


def render(transcript: Transcript, tools: Sequence[Tool] = (), *, template: str | ChatTemplate = "qwen2.5",
           add_generation_prompt: bool = True) -> str:
    """The one string the model reads for `transcript` and `tools`, through `template`.

    `add_generation_prompt=True` ends it with the opening of the assistant's turn, where the
    model starts writing; no tools renders no tool section (`tools=None`, as transformers passes).
    """
    return _render(chat_messages(transcript), tool_schemas(tools) or None, _chosen(template),
                   add_generation_prompt)


# -- where each part came from --------------------------------------------------------------------
Source = Literal["template", "system", "tools", "user", "assistant", "call", "result"]

#: Each part's colour in the HTML view (Okabe & Ito's, by name); the template's own words are plain.
_COLOURS = {"system": "reddish purple", "tools": "orange", "user": "sky blue", "assistant": "bluish green",
            "call": "blue", "result": "vermillion"}


@dataclass(frozen=True)
class Span:
    """A stretch of the rendered prompt and where it came from."""

    source: Source
    text: str


@dataclass(frozen=True)
class PromptView:
    """A rendered prompt cut into spans: your system prompt, your tools, the user's words, the
    model's replies and calls, your results, and the template's own words between them.

    Printed, each line shows what is on it in a gutter; in a notebook it shows in colour.
    """

    spans: tuple[Span, ...]
    template: str

    @property
    def text(self) -> str:
        """The whole prompt, exactly as `render` returns it."""
        return "".join(span.text for span in self.spans)

    def characters(self) -> dict[str, int]:
        """How many characters of the prompt came from each source, largest first."""
        counts: dict[str, int] = {}
        for span in self.spans:
            counts[span.source] = counts.get(span.source, 0) + len(span.text)
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def __str__(self) -> str:
        lines: list[tuple[list[str], str]] = [([], "")]
        for span in self.spans:
            for index, piece in enumerate(span.text.split("\n")):
                if index:
                    lines.append(([], ""))
                sources, text = lines[-1]
                if piece and span.source != "template" and span.source not in sources:
                    sources.append(span.source)
                lines[-1] = (sources, text + piece)
        if lines[-1] == ([], ""):
            lines.pop()  # the newline that ends the prompt opens no line of its own
        return "\n".join(f"{'+'.join(sources) or 'template':<9} │ {text}".rstrip() for sources, text in lines)

    def __repr__(self) -> str:
        return f"PromptView({self.template!r}, {len(self.text)} characters)"

    def _repr_html_(self) -> str:
        parts = []
        for span in self.spans:
            text = html.escape(span.text)
            if span.source == "template":
                parts.append(f'<span style="opacity:0.7">{text}</span>')
            else:
                colour = OKABE_ITO[_COLOURS[span.source]]
                parts.append(f'<span title="{span.source}" style="background:{colour}33;'
                             f'border-bottom:2px solid {colour}">{text}</span>')
        legend = " ".join(f'<span style="border-bottom:2px solid {OKABE_ITO[c]}">{s}</span>'
                          for s, c in _COLOURS.items())
        return (f'<div><div style="font-size:90%">{html.escape(self.template)} template: {legend}</div>'
                f'<pre style="white-space:pre-wrap">{"".join(parts)}</pre></div>')


#: A stand-in for the n-th string put into the template: private-use characters no text holds.
_MARK = re.compile("\ue000(\\d+)\ue001")


def _marked(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[tuple[Source, str]]]:
    """`messages` with each string the caller wrote replaced by a numbered mark; what each mark stands for."""
    stands: list[tuple[Source, str]] = []

    def mark(source: Source, text: Any) -> Any:
        if not isinstance(text, str) or not text:  # subtle: "" must stay falsy for the template's tests
            return text
        stands.append((source, text))
        return f"\ue000{len(stands) - 1}\ue001"

    marked = []
    for index, message in enumerate(messages):
        role = message["role"]
        source: Source = ("system" if role == "system" and index == 0 else "result" if role == "tool"
                          else "assistant" if role == "assistant" else "user")
        copy = {**message, "content": mark(source, message.get("content"))}
        if "tool_calls" in message:
            copy["tool_calls"] = [{**call, "function": {**call["function"],
                                                        "name": mark("call", call["function"]["name"])}}
                                  for call in message["tool_calls"]]
        marked.append(copy)
    return marked, stands


def _in_order(messages: list[dict[str, Any]], schemas: list[dict[str, Any]] | None,
              tojson: Any) -> list[tuple[Source, str]]:
    """Every part the caller put in, in the order the template writes it: (source, text)."""
    parts: list[tuple[Source, str]] = []
    rest = messages
    if messages and messages[0]["role"] == "system":
        parts.append(("system", messages[0]["content"]))
        rest = messages[1:]
    parts += [("tools", tojson(schema)) for schema in schemas or []]
    for message in rest:
        role = message["role"]
        if message.get("content"):
            parts.append(("result" if role == "tool" else "assistant" if role == "assistant" else "user",
                          message["content"]))
        for call in message.get("tool_calls", []):
            parts += [("call", call["function"]["name"]), ("call", tojson(call["function"]["arguments"]))]
    return parts


def _cut(text: str, needles: list[tuple[Source, str]], *,
         skip_missing: bool) -> tuple[list[Span], list[tuple[Source, str]]]:
    """`text` cut at each needle, found in order (what lies between is the template's), and the
    needles left: none when a missing one is skipped, else the first not found and those after."""
    spans: list[Span] = []
    cursor = 0
    for index, (source, needle) in enumerate(needles):
        found = text.find(needle, cursor)
        if found < 0:
            if skip_missing:
                continue  # this template does not write that part as given (or at all)
            needles = needles[index:]
            break
        spans += [Span("template", text[cursor:found])] if found > cursor else []
        spans.append(Span(source, needle))
        cursor = found + len(needle)
    else:
        needles = []
    return spans + ([Span("template", text[cursor:])] if cursor < len(text) else []), needles


def view(transcript: Transcript, tools: Sequence[Tool] = (), *, template: str | ChatTemplate = "qwen2.5",
         add_generation_prompt: bool = True) -> PromptView:
    """`render`'s prompt, each part marked with where it came from (`PromptView`).

    Each string you put in (system prompt, words, a call's name, a result) is rendered once more
    as a numbered mark, so the marks show where the template wrote it; the tool schemas and a
    call's arguments are found as the JSON `tojson` writes. What is left is the template's own:
    its special tokens, tags and instructions.

    >>> from toolcall_lab import Message, Transcript
    >>> print(view(Transcript("Be brief.", [Message.user("Hi")])))
    template  │ <|im_start|>system
    system    │ Be brief.<|im_end|>
    template  │ <|im_start|>user
    user      │ Hi<|im_end|>
    template  │ <|im_start|>assistant
    """
    chosen = _chosen(template)
    messages, schemas = chat_messages(transcript), tool_schemas(tools) or None
    text = _render(messages, schemas, chosen, add_generation_prompt)
    tojson = _compiled(chosen.text).environment.filters["tojson"]
    marked, stands = _marked(messages)
    # the marked prompt split at its marks: the template's text, a mark's number, its text, ...
    pieces = _MARK.split(_render(marked, schemas, chosen, add_generation_prompt))
    if "".join(stands[int(p)][1] if i % 2 else p for i, p in enumerate(pieces)) != text:
        # subtle: a template that looks inside a string renders a mark differently; search instead
        spans, _ = _cut(text, _in_order(messages, schemas, tojson), skip_missing=True)
        return PromptView(tuple(spans), chosen.name)
    json_parts: list[tuple[Source, str]] = [("tools", tojson(schema)) for schema in schemas or []]
    json_parts += [("call", tojson(call["function"]["arguments"]))
                   for message in messages for call in message.get("tool_calls", [])]
    spans = []
    for index, piece in enumerate(pieces):
        if index % 2:
            spans.append(Span(*stands[int(piece)]))
        elif piece:
            found, json_parts = _cut(piece, json_parts, skip_missing=False)
            spans += found
    return PromptView(tuple(spans), chosen.name)


# -- parsing tool calls back out of raw text ------------------------------------------------------
_OPEN, _CLOSE = "<tool_call>", "</tool_call>"


@dataclass(frozen=True)
class ParsedOutput:
    """What a model's raw text holds: its prose, its tool calls, and what could not be read.

    `calls` are in the order written; one that could not be read is a malformed `ToolCall`
    (empty `args`, the tag's text in `raw_args`) and has a sentence in `problems`.
    """

    text: str
    calls: tuple[ToolCall, ...] = ()
    problems: tuple[str, ...] = ()

    def message(self) -> Message:
        """The reply as the kit's assistant message: the prose, then the calls."""
        return Message.assistant(*([self.text] if self.text else []), *self.calls)


def _tags(text: str) -> tuple[list[str], list[tuple[str, bool]]]:
    """(the prose between tags, each tag's inner text with whether it was closed)."""
    prose, tags = [], []
    cursor = 0
    while (start := text.find(_OPEN, cursor)) >= 0:
        prose.append(text[cursor:start])
        end = text.find(_CLOSE, start)
        if end < 0:  # subtle: a stop token often eats the closing tag; read the rest as the call
            tags.append((text[start + len(_OPEN):], False))
            cursor = len(text)
            break
        tags.append((text[start + len(_OPEN):end], True))
        cursor = end + len(_CLOSE)
    prose.append(text[cursor:])
    return prose, tags


def _read_call(inner: str) -> tuple[str, dict[str, Any] | None, str | None]:
    """(name, arguments, problem) for one tag's text; arguments None when they cannot be read.

    The arguments are held to the rule every API's arguments are (`blocks.read_arguments`):
    nested more than `MAX_NESTING` levels deep, or holding NaN or Infinity, they make a
    malformed call, whose problem says so.
    """
    try:
        body = json.loads(inner.strip())
    except (ValueError, RecursionError):  # subtle: '[' * 5000 raises RecursionError
        body = None
    if not isinstance(body, dict):
        named = re.search(r'"name"\s*:\s*"([^"]*)"', inner)
        return (named.group(1) if named else ""), None, "its text is not a JSON object"
    name, arguments = body.get("name"), body.get("arguments", body.get("parameters", {}))
    if not isinstance(name, str) or not name:
        return "", None, 'it has no "name"'
    if isinstance(arguments, str):  # some models write the arguments as a string of JSON
        arguments, problem = read_arguments(arguments)
    else:
        problem = arguments_problem(arguments)
    if problem is None and isinstance(arguments, dict):
        return name, arguments, None
    if problem is None or problem in NOT_AN_OBJECT:
        return name, None, '"arguments" is not a JSON object'
    return name, None, f"its arguments {problem.removeprefix('they ')}"  # too deep, or NaN


def parse_tool_calls(text: str, *, id_prefix: str = "call_") -> ParsedOutput:
    """The prose and tool calls in a model's raw `text`, in the `<tool_call>{json}</tool_call>` style.

    The calls get ids `call_1`, `call_2`, ... in order (the text carries none; a server makes
    them up). Arguments written as a string of JSON are read as the object they hold.

    >>> parse_tool_calls('Let me check.\\n<tool_call>\\n{"name": "get_weather", '
    ...                  '"arguments": {"city": "Paris"}}\\n</tool_call>')
    ParsedOutput(text='Let me check.', calls=(ToolCall('call_1', 'get_weather', {'city': 'Paris'}),), \
problems=())
    >>> parse_tool_calls('<tool_call>{"name": "get_weather", "arguments": {"city": "Par</tool_call>').problems
    ('tool call 1 (get_weather) cannot be read: its text is not a JSON object.',)
    """
    if not isinstance(text, str):
        raise UsageTypeError(f"expected the model's raw text (a str), got {type(text).__name__}.")
    # subtle: text from a server enters here, so a lone surrogate becomes U+FFFD here too
    # (in a call's name it would survive into the transcript and fail every later save).
    prose, tags = _tags(clean_text(text))
    calls, problems = [], []
    for number, (inner, closed) in enumerate(tags, start=1):
        name, arguments, problem = _read_call(inner)
        call_id = f"{id_prefix}{number}"
        if arguments is None:
            calls.append(ToolCall(call_id, name, {}, raw_args=inner.strip()))
            unclosed = ", and its tag was never closed" if not closed else ""
            problems.append(f"tool call {number}{f' ({name})' if name else ''} cannot be read: "
                            f"{problem}{unclosed}.")
        else:
            calls.append(ToolCall(call_id, name, arguments))
    said = "\n".join(piece.strip() for piece in prose if piece.strip())
    return ParsedOutput(said, tuple(calls), tuple(problems))
