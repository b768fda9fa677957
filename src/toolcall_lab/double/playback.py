"""Playing a tape: each request answered with its recorded response, or a 400 saying where it differs.

`Playback(tape).answer(api, path, body)` is what `ApiDouble(tape=...)` does with a chat
request instead of playing a scripted model. It answers in order, and forgives what a
classroom does:

- a request equal to the next recorded one gets that exchange's status and body, so
  a run that met a 429 and retried replays its retry too;
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

The check is exact (see `toolcall_lab.tape.first_difference`): what the API itself would
accept or refuse is not asked, since the recorded answer already says.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..wire import API_SPECS

if TYPE_CHECKING:
    from ..tape import Difference, Tape

__all__ = ["Playback"]

#: The `code` OpenAI-shaped refusals carry, so a program can tell the tape's 400 from the API's.
CODE = "tape_mismatch"


class Playback:
    """A tape and where it is up to: `cursor` is the exchange a request is expected to match next."""

    def __init__(self, tape: Tape) -> None:
        self.tape = tape
        self.cursor = 0
        self._lock = threading.Lock()

    def answer(self, api: str, path: str, body: Any) -> tuple[int, Any]:
        """(status, response body) for a request `body` sent to `path` (the API `api`)."""
        from ..tape import first_difference

        here = [(number, exchange) for number, exchange in enumerate(self.tape.exchanges)
                if exchange.path == path]
        if not here:
            return self._refuse(api, "path", f"This tape has {len(self.tape.exchanges)} exchanges with "
                                f"{_paths(self.tape)} and none with {path}; point a "
                                f"{API_SPECS[self.tape.api].title} provider at it "
                                "(toolcall_lab.tape.replay builds one).")
        equal = [number for number, exchange in here if first_difference(exchange.request, body) is None]
        with self._lock:
            if equal:
                number = next((n for n in equal if n >= self.cursor), equal[0])  # in order, else again
                self.cursor = number + 1
                exchange = self.tape.exchanges[number]
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
