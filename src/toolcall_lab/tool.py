"""Tools: what a model may ask for, and the code that checks and runs each request.

A `Tool` is a name, a description, a JSON Schema for its input and a Python function.
The model sees only the first three (the function never leaves your process). The
`@tool` decorator builds all four from an ordinary function: the name from the
function's name, the description from its docstring, the schema from its type hints
(`schema.function_schema` turns a signature into JSON Schema; this module does the rest).

`execute(call, tools)` is the one place a model's request meets your code. It never
raises for a bad request: an unknown tool, arguments that are not a JSON object,
arguments that fail the schema (checked with `jsonschema` *before* the function runs), a
function that raises, one that returns what JSON cannot hold or an object whose only text
is its default repr (`<Room object at 0x...>`: an address, no content), and one that runs
past its `timeout` each become a `ToolResult` with `is_error=True`, worded so the model can fix
its next call. Only what interrupts your program (Ctrl-C, `SystemExit`) passes through.

A hung tool (one that never returns: it waits on a lock, a socket, an `Event` nobody sets)
would block the loop forever ("If a tool's async function stalls ... the agent loop waits
forever with no error", https://github.com/mastra-ai/mastra/issues/18594); `timeout` is
what stops that (`run_agent(..., tool_timeout=...)` gives one to every tool without its
own). Python cannot stop a thread, so the abandoned call goes on in its daemon thread:
`abandoned()` is set for it when `execute` gives up, so a tool that waits with
`abandoned().wait(seconds)` (instead of `time.sleep`), or checks `abandoned().is_set()`
between steps, ends then and leaks nothing; `still_running()` lists the ones that did not.

A tool with side effects (it sends, writes, pays) is marked `side_effects=True`: its
timeout error then says the call may already have had its effect and must be checked
before it is called again, where a lookup's invites a retry with narrower arguments (a
worker that is abandoned is not stopped, so "try again" could send an invoice twice).

Two more flags change how a tool travels and runs. `strict=True` asks OpenAI's APIs to hold
the model to the schema exactly (`@tool(strict=True)` builds a schema strict mode accepts:
every object closed, every parameter required, an optional one as "this type or null").
`needs_approval=True` marks a tool that must never run unless your program's `approve`
function says yes (`approval.py`; `run_agent(..., approve=...)`).

Left out: async tools and tools that return images.
"""

from __future__ import annotations

import contextvars
import enum
import json
import re
import threading
import typing
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ._jsonschema import describe, import_jsonschema
from ._text import shorten
from .blocks import NOT_AN_OBJECT, ToolCall, ToolResult, read_arguments
from .errors import ToolDefinitionError, UsageTypeError
from .schema import function_schema, nullable_defaults, parse_docstring

__all__ = ["TOOL_NAME_PATTERN", "Tool", "abandoned", "execute", "still_running", "tool", "tool_map"]

#: Tool names every API accepts: OpenAI Chat allows at most 64 characters.
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True, repr=False)
class Tool:
    """A tool a model may ask your code to run.

    >>> def shout(text: str) -> str:
    ...     return text.upper()
    >>> Tool("shout", "Upper-case some text.",
    ...      {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ...      shout)
    Tool('shout', 'Upper-case some text.')
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    function: Callable[..., Any] = field(compare=False)
    #: Seconds the function may run before `execute` answers with an error (None: no limit).
    timeout: float | None = field(default=None, kw_only=True)
    #: Send `strict: true` on OpenAI's APIs: the model's arguments must match the schema exactly.
    strict: bool = field(default=False, kw_only=True)
    #: Never run without a yes from `run_agent(..., approve=...)` (see `approval.py`).
    needs_approval: bool = field(default=False, kw_only=True)
    #: It changes something outside (sends, writes, pays): a timed-out call may have done so.
    side_effects: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not TOOL_NAME_PATTERN.fullmatch(self.name):
            suggestion = re.sub(r"[^a-zA-Z0-9_-]", "_", str(self.name))[:64] or "my_tool"
            raise ToolDefinitionError(
                f"tool name {self.name!r} is not accepted by the APIs: names must match "
                f"{TOOL_NAME_PATTERN.pattern} (letters, digits, _ and -, 1 to 64 characters); "
                f"try {suggestion!r}."
            )
        if not isinstance(self.description, str):
            raise ToolDefinitionError(f"tool {self.name!r}: description must be text (\"\" for none), "
                                      f"got {type(self.description).__name__}: {self.description!r}.")
        if not callable(self.function):
            raise ToolDefinitionError(f"tool {self.name!r}: function must be callable, "
                                      f"got {type(self.function).__name__}.")
        if self.timeout is not None and (isinstance(self.timeout, bool)
                                         or not isinstance(self.timeout, int | float)
                                         or not self.timeout > 0):
            raise ToolDefinitionError(f"tool {self.name!r}: timeout must be a positive number "
                                      f"of seconds or None, got {self.timeout!r}.")
        for flag in ("strict", "needs_approval", "side_effects"):
            if not isinstance(getattr(self, flag), bool):
                raise ToolDefinitionError(f"tool {self.name!r}: {flag} must be True or False, "
                                          f"got {getattr(self, flag)!r}.")
        schema = self.input_schema
        if not isinstance(schema, Mapping) or schema.get("type") != "object":
            raise ToolDefinitionError(
                f"tool {self.name!r}: input_schema must be a JSON Schema object with "
                f'"type": "object" (every API sends arguments as one JSON object), got {schema!r}.'
            )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function directly, as your own code would (no validation)."""
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, {self.description.splitlines()[0] if self.description else ''!r})"

    def spec(self) -> dict[str, Any]:
        """What the model is shown: name, description and input schema (never the code)."""
        return {"name": self.name, "description": self.description,
                "input_schema": dict(self.input_schema)}

    def check_schema(self) -> None:
        """Raise `ToolDefinitionError` if `input_schema` is not valid JSON Schema."""
        self._validator  # noqa: B018 - building the validator checks the schema

    @cached_property
    def _validator(self) -> Any:
        jsonschema = import_jsonschema()
        cls = jsonschema.validators.validator_for(self.input_schema)
        try:
            cls.check_schema(self.input_schema)
        except jsonschema.SchemaError as exc:
            raise ToolDefinitionError(
                f"tool {self.name!r}: input_schema is not valid JSON Schema: "
                f"{describe(exc, at='input_schema')}"
            ) from None
        return cls(self.input_schema)  # no format_checker: "format" stays an annotation

    def check_args(self, args: Mapping[str, Any]) -> str | None:
        """None when `args` fit the schema, else one sentence saying what is wrong.

        >>> from toolcall_lab.tools import get_weather
        >>> get_weather.check_args({"town": "Paris"})
        'args.city is missing (it is required)'
        >>> get_weather.check_args({"city": 42})
        'args.city must be a string, got 42'

        The sentence is the kit's (`_jsonschema.describe`), not jsonschema's own message, so
        a release of jsonschema that words its errors otherwise changes nothing a model reads.
        """
        jsonschema = import_jsonschema()
        error = jsonschema.exceptions.best_match(self._validator.iter_errors(dict(args)))
        return None if error is None else describe(error, at="args")


def tool_map(tools: Iterable[Tool]) -> dict[str, Tool]:
    """Tools by name; two tools with one name are an error (the model could not tell them apart)."""
    by_name: dict[str, Tool] = {}
    for t in tools:
        if not isinstance(t, Tool):
            raise UsageTypeError(f"expected Tool objects (use @tool on a function), got {t!r}")
        if t.name in by_name:
            raise ToolDefinitionError(f"two tools are named {t.name!r}; tool names must be unique.")
        by_name[t.name] = t
    return by_name


def execute(call: ToolCall, tools: Mapping[str, Tool]) -> ToolResult:
    """Run one tool call and answer it. Never raises for a bad call: returns an error result.

    >>> from toolcall_lab.tools import get_weather
    >>> execute(ToolCall("toolu_01", "get_weather", {"city": "Paris"}), tool_map([get_weather]))
    ToolResult('toolu_01', '18°C, sunny')
    >>> execute(ToolCall("toolu_02", "get_wether", {"city": "Paris"}), tool_map([get_weather]))
    ToolResult('toolu_02', "Unknown tool 'get_wether'. Available tools: get_weather. Ca…", is_error=True)
    """
    chosen = tools.get(call.name)
    if chosen is None:
        available = ", ".join(sorted(tools)) or "(none)"
        return _error(call, f"Unknown tool {call.name!r}. Available tools: {available}. "
                            "Call one of these by its exact name.")
    if call.malformed or not isinstance(call.args, Mapping):
        sent = call.raw_args if call.malformed else repr(call.args)
        why = read_arguments(call.raw_args)[1] if call.raw_args is not None else None
        # subtle: valid JSON the kit still refuses (NaN, nesting past MAX_NESTING) says why
        because = f" ({why})" if why and why not in NOT_AN_OBJECT else ""
        return _error(call, f"The arguments for {call.name} were not a valid JSON object: "
                            f"{shorten(sent or '', 81)!r}{because}. Send the complete arguments as one "
                            "JSON object that matches the tool's input schema.")
    problem = chosen.check_args(call.args)
    if problem is not None:
        expected = json.dumps(chosen.input_schema.get("properties", {}), ensure_ascii=False)
        required = ", ".join(chosen.input_schema.get("required", [])) or "none"
        return _error(call, f"Invalid arguments for {call.name}: {problem}. Expected properties: "
                            f"{expected} (required: {required}). Fix the arguments and call "
                            f"{call.name} again.")
    try:
        if chosen.timeout is None:
            value = chosen.function(**call.args)
        else:
            value = _call_with_timeout(chosen, call.args)
    except _TimedOut:
        return _error(call, _timed_out(call.name, chosen))
    except Exception as exc:
        return _error(call, f"{call.name} failed: {_describe(exc)}. Check the "
                            "arguments, or answer without this tool.")
    try:
        text = _as_text(value)
    except Exception as exc:  # subtle: any error, since a value's own __str__ may raise anything
        return _error(call, f"{call.name} returned a {type(value).__name__} that cannot be sent "
                            f"as JSON ({_describe(exc)}). Its author should make it return a str, "
                            "or plain dicts, lists, strings and numbers.")
    unreadable = None if isinstance(value, str) else _DEFAULT_REPR.search(text)
    if unreadable:  # a str is the author's own text; anything else showed an object's address
        return _error(call, f"{call.name} returned an object the model cannot read (a "
                            f"{unreadable[1]} object, whose text is only its memory address); "
                            "return text or a dict (dataclasses.asdict of a dataclass).")
    return ToolResult(call.id, text)


#: The default repr of an object (`<shop.Room object at 0x7f...>`), which `default=str` gives
#: anything without a text of its own: no content, and an address that changes every run.
_DEFAULT_REPR = re.compile(r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-fA-F]+>")


class _TimedOut(Exception):
    """A tool ran past its timeout (private: a tool's own TimeoutError is just an error)."""


#: The stop signal of the timed call running in this thread (None outside one).
_STOP: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("toolcall_lab_stop",
                                                                                 default=None)
#: Worker threads of abandoned calls; a thread drops out when it ends.
_ABANDONED: weakref.WeakSet[threading.Thread] = weakref.WeakSet()


def abandoned() -> threading.Event:
    """Inside a tool with a `timeout`: an Event set once `execute` has given up on this call.

    A tool that waits on it, or checks it between steps, can stop when nobody is waiting
    for its answer any more. Outside a timed call it is a new Event, never set.

    >>> abandoned().is_set()
    False
    """
    return _STOP.get() or threading.Event()


def still_running() -> list[threading.Thread]:
    """The worker threads of calls that ran out of time and have not ended yet (by name, "tool ...")."""
    return sorted((t for t in _ABANDONED if t.is_alive()), key=lambda t: t.name)


def _call_with_timeout(chosen: Tool, args: Mapping[str, Any]) -> Any:
    """`chosen.function(**args)`, raising `_TimedOut` if it runs past `chosen.timeout`.

    subtle: Python cannot stop a thread. A tool that runs out of time is left running in
    a daemon thread (it ends when it ends, or when the interpreter exits) and what it
    returns then is thrown away; a tool with side effects may still complete them. Its
    `abandoned()` Event is set, so a tool that watches it can end there.
    """
    outcome: dict[str, Any] = {}
    stop = threading.Event()

    def run() -> None:
        _STOP.set(stop)  # a new thread starts with an empty context: this is its own
        try:
            outcome["value"] = chosen.function(**args)
        except BaseException as exc:  # handed to the caller's thread, which decides
            outcome["error"] = exc

    worker = threading.Thread(target=run, name=f"tool {chosen.name}", daemon=True)
    worker.start()
    worker.join(chosen.timeout)
    if worker.is_alive():
        stop.set()
        _ABANDONED.add(worker)
        raise _TimedOut(chosen.timeout)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _timed_out(name: str, chosen: Tool) -> str:
    """What the model reads when `chosen` ran past its timeout.

    subtle: the worker is abandoned, not stopped, so a tool with side effects (or one that
    needs approval, which is why it does) may still complete them: "try again" would do it twice.
    """
    limit = f"{name} did not finish within its time limit of {chosen.timeout:g} s"
    if chosen.side_effects or chosen.needs_approval:
        return (f"{limit}. It was abandoned, not stopped, so it may still have completed and "
                "had its effect. Do not call it again before checking whether it did; tell the "
                "user the outcome is unknown.")
    return f"{limit}, so it was abandoned. Try simpler arguments, or answer without this tool."


def _describe(exc: BaseException) -> str:
    """"Type: message" for an exception, even one whose own `__str__` fails."""
    try:
        text = str(exc)
    except Exception:
        text = "(its message could not be shown)"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _error(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(call.id, text, is_error=True)


def _as_text(value: Any) -> str:
    """What goes back to the model: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return str.__str__(value)  # a plain str, even from a subclass whose own __str__ fails
    return json.dumps(value, ensure_ascii=False, default=str)


# -- @tool: a Tool from a plain function --------------------------------------------------
def _tool_from_function(function: Callable[..., Any], name: str | None, description: str | None,
                        timeout: float | None = None, strict: bool = False,
                        needs_approval: bool = False, side_effects: bool = False) -> Tool:
    tool_name = name or function.__name__
    where = f"@tool {tool_name}"
    # the hints and the docstring's Args:, strict-ready when asked
    input_schema = function_schema(function, where=where, strict=strict)
    text = description if description is not None else parse_docstring(function.__doc__ or "")[0]
    hints = typing.get_type_hints(function, include_extras=True)
    enums = {param: hint for param, hint in hints.items()
             if isinstance(hint, type) and issubclass(hint, enum.Enum)}
    if not text:
        raise ToolDefinitionError(f"{where}: add a docstring; the model chooses tools by "
                                  "reading their descriptions.")
    if enums:
        function = _with_enum_arguments(function, enums)
    if strict:
        function = _with_defaults_for_null(function, nullable_defaults(function))
    return Tool(tool_name, text, input_schema, function, timeout=timeout, strict=strict,
                needs_approval=needs_approval, side_effects=side_effects)


def _with_defaults_for_null(function: Callable[..., Any], names: frozenset[str]) -> Callable[..., Any]:
    """Wrap `function` so a null sent for a defaulted parameter means "use the default".

    In strict mode every parameter is required, so the model sends `"unit": null` where it
    would have left `unit` out; Python should then see no `unit` at all, not `None`.
    """
    import functools

    if not names:
        return function

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **{k: v for k, v in kwargs.items() if not (v is None and k in names)})

    return wrapper


def _with_enum_arguments(function: Callable[..., Any],
                         enums: dict[str, type[enum.Enum]]) -> Callable[..., Any]:
    """Wrap `function` so Enum-typed parameters get members, not the raw JSON values."""
    import functools

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for name, enum_type in enums.items():
            if name in kwargs:
                kwargs[name] = enum_type(kwargs[name])  # Unit("celsius") -> Unit.CELSIUS
        return function(*args, **kwargs)

    return wrapper


@typing.overload
def tool(function: Callable[..., Any], /) -> Tool: ...
@typing.overload
def tool(
    *, name: str | None = None, description: str | None = None, timeout: float | None = None,
    strict: bool = False, needs_approval: bool = False, side_effects: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(function: Callable[..., Any] | None = None, /, *, name: str | None = None,
         description: str | None = None, timeout: float | None = None, strict: bool = False,
         needs_approval: bool = False,
         side_effects: bool = False) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a typed, documented function into a `Tool`.

    `@tool(timeout=5)` answers a call that runs longer than 5 seconds with an error
    result (the function keeps running in a daemon thread: Python cannot stop a thread).
    `@tool(strict=True)` builds a schema OpenAI's strict mode accepts and sends
    `strict: true` (see `schema.function_schema`); a null the model sends for a parameter
    with a default gives the function that default. `@tool(needs_approval=True)` never
    runs unless `run_agent`'s `approve` function says yes (`approval.py`).
    `@tool(side_effects=True)` marks a tool that changes something outside, so a timeout
    tells the model the call may have had its effect instead of inviting a retry.

    >>> @tool
    ... def add(a: int, b: int = 0) -> int:
    ...     '''Add two whole numbers.
    ...
    ...     Args:
    ...         a: the first number
    ...         b: the second number
    ...     '''
    ...     return a + b
    >>> add.input_schema["properties"]["b"]
    {'type': 'integer', 'description': 'the second number', 'default': 0}
    >>> add.input_schema["required"], add(2, 3)
    (['a'], 5)
    """
    if function is None:
        return lambda f: _tool_from_function(f, name, description, timeout, strict, needs_approval,
                                             side_effects)
    return _tool_from_function(function, name, description, timeout, strict, needs_approval, side_effects)
