"""Playing a tape: each request answered with its recorded response, or a 400 saying where it differs.

`Playback(tape).answer(api, path, body)` is what `ApiDouble(tape=...)` does with a chat
request instead of playing a scripted model. It answers in order, and forgives what a
classroom does:

- a request equal to the next recorded one gets that exchange's status and body, so
  a run that met a 429 and retried replays its retry too; a streamed one gets its
  recorded events (`RecordedStream`), which the double plays as the API frames them;
- a request equal to an earlier one (a cell run again, or another learner on the same
  `serve --tape`) gets that exchange, and the tape goes on from there;
- a request equal to none gets a 400 in the API's own error shape, compared with the
  recorded request it came closest to (the one it matched furthest into), naming the
  first differing path and the exchange:

    >>> from toolcall_lab.tape import load
    >>> playback = Playback(load("anthropic_weather"))
    >>> status, body = playback.answer("anthropic", "/v1/messages", {"model": "claude-haiku-4-5"})
    >>> status, body["error"]["message"][:68]
    (400, 'This request differs from the tape at max_tokens: the tape has 1024,')

The check is exact (`first_difference`: same keys, same values, list items in the same
order; numbers compare as numbers, key order is free): what the API itself would accept
or refuse is not asked, since the recorded answer already says.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._text import shorten
from ..wire import API_SPECS
from .streams import RecordedStream

if TYPE_CHECKING:
    from ..tape.format import Tape

__all__ = ["CODE", "Difference", "Playback", "first_difference"]

#: The `code` OpenAI-shaped refusals carry, so a program can tell the tape's 400 from the API's.
CODE = "tape_mismatch"
_MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()


# -- comparing a request with the recorded one -------------------------------------------------
@dataclass(frozen=True)
class Difference:
    """Where a request first differs from the recorded one, and how.

    `path` names the place (`messages[2].content[0].tool_use_id`; "the body" for the
    whole), `recorded` and `sent` the two values there (`_MISSING` where one has nothing),
    `matched` how many values compared equal before it (how far the request got).
    """

    path: str
    recorded: Any
    sent: Any
    matched: int

    def __str__(self) -> str:
        return f"{self.path}: the tape has {_show(self.recorded)}, this request has {_show(self.sent)}"


def _show(value: Any) -> str:
    return "nothing there" if value is _MISSING else shorten(json.dumps(value, ensure_ascii=False), 60)


def first_difference(recorded: Any, sent: Any) -> Difference | None:
    """The first place, in the recorded body's order, where `sent` differs; None when equal.

    >>> str(first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]}))
    'a[1].b: the tape has "x", this request has "y"'
    >>> first_difference({"n": 1}, {"n": 1.0}) is None, str(first_difference([1], [1, 2]))
    (True, '[1]: the tape has nothing there, this request has 2')
    """
    matched = 0

    def walk(a: Any, b: Any, path: str) -> Difference | None:
        nonlocal matched
        if isinstance(a, dict) and isinstance(b, dict):
            for key in [*a, *(k for k in b if k not in a)]:  # the tape's order, then any new keys
                where = f"{path}.{key}" if path else str(key)
                if key not in a or key not in b:
                    return Difference(where, a.get(key, _MISSING), b.get(key, _MISSING), matched)
                if found := walk(a[key], b[key], where):
                    return found
            return None
        if isinstance(a, list) and isinstance(b, list):
            for index in range(max(len(a), len(b))):
                where = f"{path}[{index}]"
                if index >= len(a) or index >= len(b):
                    return Difference(where, a[index] if index < len(a) else _MISSING,
                                      b[index] if index < len(b) else _MISSING, matched)
                if found := walk(a[index], b[index], where):
                    return found
            return None
        # subtle: True == 1 in Python, never in JSON; 1 == 1.0 in both
        if isinstance(a, bool) != isinstance(b, bool) or type(a) in (dict, list) or a != b:
            return Difference(path or "the body", a, b, matched)
        matched += 1
        return None

    return walk(recorded, sent, "")


class Playback:
    """A tape and where it is up to: `cursor` is the exchange a request is expected to match next."""

    def __init__(self, tape: Tape) -> None:
        self.tape = tape
        self.cursor = 0
        self._lock = threading.Lock()

    def answer(self, api: str, path: str, body: Any) -> tuple[int, Any]:
        """(status, response body) for a request `body` sent to `path` (the API `api`)."""
        here = [(number, exchange) for number, exchange in enumerate(self.tape.exchanges)
                if exchange.path == path]
        if not here:
            return self._refuse(api, "path", f"This tape has {len(self.tape.exchanges)} exchanges with "
                                f"{_paths(self.tape)} and none with {path}; point a "
                                f"{API_SPECS[self.tape.api].title} provider at it "
                                "(toolcall_lab.tape.replay builds one).")
        # subtle: `==` first, in C, to pick the candidates (it takes True for 1); the walk then confirms
        equal = [number for number, exchange in here
                 if exchange.request == body and first_difference(exchange.request, body) is None]
        with self._lock:
            if equal:
                number = next((n for n in equal if n >= self.cursor), equal[0])  # in order, else again
                self.cursor = number + 1
                exchange = self.tape.exchanges[number]
                if exchange.events is not None:
                    return exchange.status, RecordedStream(exchange.events)
                return exchange.status, exchange.response
        number, difference = max(
            ((n, first_difference(exchange.request, body)) for n, exchange in here),
            key=lambda found: (_matched(found[1]), -found[0]))  # furthest in; the earliest of a tie
        return self._refuse(api, _param(difference), (
            f"This request differs from the tape at {difference} (compared with exchange {number + 1} of "
            f"{len(self.tape.exchanges)} on the tape). A replay answers only the requests it recorded: "
            "undo the change to the cell, or record a new tape."))

    def _refuse(self, api: str, param: str, message: str) -> tuple[int, Any]:
        body = API_SPECS[api].codec.error_body(message, status=400, param=param, code=CODE)
        return 400, body


def _matched(difference: Difference | None) -> int:
    return difference.matched if difference is not None else -1


def _param(difference: Difference | None) -> str:
    return difference.path if difference is not None else "the body"


def _paths(tape: Tape) -> str:
    return ", ".join(sorted({exchange.path for exchange in tape.exchanges}))
