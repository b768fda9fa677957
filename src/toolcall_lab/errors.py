"""The kit's exceptions: one base class, and a subclass for each thing that can go wrong.

    ToolcallLabError                  every error the kit raises on purpose
    ├── ToolDefinitionError           a tool is defined wrongly: a bad name, an unusable type hint
    ├── ScriptError                   a scripted provider's script cannot give the reply a call asks for
    │   └── ScriptExhaustedError      ... it has no replies left
    ├── MaxStepsExceeded              run_agent made max_steps calls and the model still wanted tools
    ├── McpToolError                  an MCP server answered a tools/call with isError or a JSON-RPC error
    ├── McpServerGoneError            an MCP server went away; a run it broke leaves the transcript as it was
    ├── TranscriptFormatError         a transcript cannot be loaded or saved: names the wrong JSON path
    ├── UsageError                    the kit was called with a value it cannot use: says which would work
    │   ├── UsageTypeError            ... with a value of the wrong type (a str where a Message belongs)
    │   └── TapeError                 ... a tape that cannot be loaded or saved: the JSON path, or why
    └── ProviderError                 a call to a model failed; the transcript is exactly as it was
        ├── MissingKeyError           no API key: names the variable to set (when the provider is built)
        ├── AuthenticationError       401 / 403: the key was refused
        ├── ModelNotFoundError        404: this server does not know the model id
        ├── InvalidRequestError       400: the request breaks the API's rules, listed in `.problems`
        ├── MalformedResponseError    a reply that is not the API's JSON
        └── TransientError            the same request, unchanged, may succeed later: wait and retry
            ├── RateLimitError        429: too many requests; `.retry_after` in seconds when the API says
            ├── OverloadedError       529 / 503: the provider is busy; retry later
            ├── ServerError           another 5xx: the provider failed
            ├── ProviderTimeoutError  no reply within the timeout
            ├── IncompleteStreamError a streamed reply broke off: says what had arrived; nothing ran
            └── ProviderUnreachableError  nothing answers at the URL: says which, and how to start it

Five of them are also Python's own error for the same mistake, so code written against
Python's errors keeps working: `ToolDefinitionError`, `TranscriptFormatError`, `UsageError`
and `TapeError` are `ValueError`s, and `UsageTypeError` is a `TypeError` (and, as a
`UsageError`, a `ValueError` too).

`except TransientError` is the one clause a retry loop needs. An error is transient when
nothing in the request is wrong, so sending it again unchanged can work: the provider was
busy or failing (429, 529/503, other 5xx), the reply was slow, or the connection failed
(a network blip, a local server not started yet). The others are not: a refused key, an
unknown model, a request the API rejects or a reply it garbled fail the same way every
time until you change something.

Errors that come from a *tool* while it runs are not raised at all: the loop turns them
into `ToolResult(is_error=True)` so the model can read them and try again.

Every `ProviderError` message is one sentence a learner can act on, and never contains
an API key: providers pass their key to `_redact.redact` before a message is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

__all__ = [
    "AuthenticationError",
    "IncompleteStreamError",
    "InvalidRequestError",
    "MalformedResponseError",
    "MaxStepsExceeded",
    "McpServerGoneError",
    "McpToolError",
    "MissingKeyError",
    "ModelNotFoundError",
    "OverloadedError",
    "ProviderError",
    "ProviderTimeoutError",
    "ProviderUnreachableError",
    "RateLimitError",
    "RunSoFar",
    "ScriptError",
    "ScriptExhaustedError",
    "ServerError",
    "TapeError",
    "ToolDefinitionError",
    "ToolcallLabError",
    "TranscriptFormatError",
    "TransientError",
    "UsageError",
    "UsageTypeError",
]


class ToolcallLabError(Exception):
    """Base class: `except ToolcallLabError` catches everything the kit raises on purpose.

    In a notebook it shows as one line, its class and its sentence, not a traceback
    through the kit's files (`%debug` still walks the full traceback when you want it):

    >>> MissingKeyError("set ANTHROPIC_API_KEY")._render_traceback_()
    ['MissingKeyError: set ANTHROPIC_API_KEY']
    """

    def _render_traceback_(self) -> list[str]:
        # IPython shows the lines this returns instead of the traceback of an exception
        # that has this method (ipykernel sends them as the error output's traceback).
        return [f"{type(self).__name__}: {self}"]


class ToolDefinitionError(ToolcallLabError, ValueError):
    """Raised when a `Tool` is defined: its name or its input schema cannot work."""


class ScriptError(ToolcallLabError):
    """Raised when a `ScriptedProvider`'s script gives a reply the request forbids: a tool
    call under `tool_choice="none"`, a text answer when a call was forced, another tool
    than the one named. A real API would have held the model to it; a script must be
    written to, and the message says which reply to change.
    """


class ScriptExhaustedError(ScriptError):
    """Raised when a `ScriptedProvider` built from a list runs out of replies."""


class RunSoFar(Protocol):
    """What `MaxStepsExceeded.run` holds: the loop's `Run` so far, named here by what it has,
    so these errors, at the bottom of the kit, import nothing above them."""

    transcript: Any  # the Transcript, every message so far
    steps: Any       # one loop.Step per model call


class MaxStepsExceeded(ToolcallLabError):
    """Raised when `run_agent` reaches `max_steps` model calls without a final answer.

    Nothing is lost: `error.run` holds the transcript and every call made so far (the
    loop's `Run`, a `RunSoFar`).
    """

    def __init__(self, message: str, run: RunSoFar) -> None:
        super().__init__(message)
        self.run = run


class McpToolError(ToolcallLabError):
    """An MCP server's tool failed (`isError`) or the server refused the request (a JSON-RPC error).

    Raised inside a tool's function, so `execute` turns it into an error result the model reads.
    """


class McpServerGoneError(ToolcallLabError):
    """An MCP server went away: its end of the connection closed. Says which, and what was being sent."""


class TranscriptFormatError(ToolcallLabError, ValueError):
    """Raised when a transcript cannot be loaded or saved as it is.

    The message names the JSON path that is wrong and what belongs there, e.g.
    "messages[3].blocks[0].args must be a JSON object, got a string ('city=Paris')".
    A failed save leaves the file on disk exactly as it was.
    """


class UsageError(ToolcallLabError, ValueError):
    """Raised when the kit is called with a value it cannot use: an unknown provider or
    preset, a model with no price, `max_steps=0`, a tool call in a user message, ...

    The message shows the value and says what would work. It is also a `ValueError`, so
    code that caught the bare `ValueError` keeps working.
    """


class UsageTypeError(UsageError, TypeError):
    """Raised when the kit is called with a value of the wrong type: a prompt that is not
    text, something other than a `Message` appended to a `Transcript`, ...

    It is also a `TypeError`, what Python raises for a wrong type, so code that caught the
    bare `TypeError` keeps working (and, as a `UsageError`, it is a `ValueError` too).
    """


class TapeError(UsageError):
    """Raised when a tape (`toolcall_lab.tape`) cannot be loaded, read or saved.

    Loading names the JSON path that is wrong and what belongs there
    ("exchanges[1].status must be a whole number from 200 to 599, got a string: '200'");
    a save that fails says why and leaves the file on disk exactly as it was, so nothing
    recorded before is lost. It is a `UsageError` (and a `ValueError`), as every tape
    problem was before it had a class of its own.
    """


class ProviderError(ToolcallLabError):
    """Raised when a call to a model provider fails. Nothing was added to the transcript.

    `provider` names the provider ("anthropic", "openai", ...), `status` is the HTTP status
    when there was one, and `retry_after` the seconds the API asked you to wait, if any.
    """

    def __init__(self, message: str, *, provider: str = "", status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Whether the same request may succeed later, unchanged: it is a `TransientError`."""
        return isinstance(self, TransientError)


class MissingKeyError(ProviderError):
    """Raised when a provider for a hosted API is built without a key to call it with."""


class AuthenticationError(ProviderError):
    """Raised on 401 / 403: the API refused the key."""


class ModelNotFoundError(ProviderError):
    """Raised on 404: the server does not know the model id (or the URL has no such API)."""


class InvalidRequestError(ProviderError):
    """Raised on 400, or before sending when `wire.check` finds what the API would reject.

    `problems` lists each rule broken, with its path in the request body and the API's
    own wording (`wire.Problem`); it is empty when only the API's message is known.
    """

    def __init__(self, message: str, *, problems: Sequence[Any] = (), **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.problems = tuple(problems)


class TransientError(ProviderError):
    """Parent of the errors where the same request may succeed later, unchanged.

    Nothing in the request is wrong: the provider was busy or failing, the reply was slow,
    or nothing answered. Wait (`retry_after` seconds, when the API said) and send it again;
    `error.retryable` is True exactly for these.
    """


class RateLimitError(TransientError):
    """Raised on 429 after the SDK's own retries: too many requests or tokens per minute."""


class OverloadedError(TransientError):
    """Raised on 529 (Anthropic's "overloaded") or 503: the provider is busy right now."""


class ServerError(TransientError):
    """Raised on any other 5xx after the SDK's retries: the provider failed, not your request."""


class ProviderTimeoutError(TransientError):
    """Raised when no reply arrived within the provider's timeout."""


class IncompleteStreamError(TransientError):
    """Raised when a streamed reply ends before the API's end of reply: the connection
    dropped, or the server sent an error event mid-stream.

    The message says what had arrived and what had not, e.g. "the stream ended after 7
    events, before message_stop: text 'It is 18°C…' had arrived and get_weather's
    arguments were cut at '{"ci'; nothing was added to the transcript and no tool ran:
    call again." Transient: the request was accepted, so the same one may well finish
    next time. `events` counts the wire events that did arrive, and `arrived` says in words
    what they carried ("text 'It is 18°C…' had arrived"). A reply cut at the *output limit*
    is not this error: it is a finished reply with stop reason max_tokens.
    """

    def __init__(self, message: str, *, events: int = 0, arrived: str = "", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.events = events
        self.arrived = arrived


class MalformedResponseError(ProviderError):
    """Raised when a reply is not the JSON the API documents (a proxy page, a cut-off body)."""


class ProviderUnreachableError(TransientError):
    """Raised when nothing answers at the provider's URL (a local server that is not running).

    Transient: a connection that failed is the network blip SDKs retry on their own; for a
    local server, the retry succeeds once the server is started (the message says how).
    """


