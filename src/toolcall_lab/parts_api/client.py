"""`post(url, body)`: send one request body to the Parts API and hand back its reply.

An adapter's own work is translation: a transcript into a request body, a reply body into
a `Turn`. Sending the body is the same for every adapter of this API, so lesson 10 gives
it here and keeps the learner's class to the two translators and the endpoint:

    >>> from toolcall_lab.parts_api import PartsServer
    >>> with PartsServer() as server:
    ...     reply = post(server.url + "/v1/models/parts-1:generateContent",
    ...                  {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
    >>> reply["candidates"][0]["content"]["parts"]
    [{'text': 'Which city would you like the weather for?'}]

A refusal becomes the kit's error in the API's own words, so a failing contract clause
quotes the server: a 400 is an `InvalidRequestError` whose message holds the API's
`message` (its JSON path first), any other status a `ProviderError`; no server at `url` is
a `ProviderUnreachableError`, no answer in time a `ProviderTimeoutError`, a reply that is
not JSON a `MalformedResponseError`. It uses only the standard library's `urllib.request`.

Left out: retries, keys (the API has none) and streaming.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, cast

from ..errors import (
    InvalidRequestError,
    MalformedResponseError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnreachableError,
)

__all__ = ["post"]

_NAME = "parts"  # the provider name the errors carry


def post(url: str, body: dict[str, Any], *, timeout: float = 30.0) -> dict[str, Any]:
    """POST `body` as JSON to `url` (the endpoint, model included); the reply's JSON."""
    sent = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                  headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(sent, timeout=timeout) as response:
            return cast(dict[str, Any], json.load(response))
    except urllib.error.HTTPError as error:  # a status the API chose: its body says why
        with error:
            said = _error_message(error.read()) or error.reason
        kind = InvalidRequestError if error.code == 400 else ProviderError
        raise kind(f"the Parts API refused the request ({error.code}: {said})", provider=_NAME,
                   status=error.code) from None
    except TimeoutError:
        raise ProviderTimeoutError(f"the Parts API did not answer within {timeout:g} s.",
                                   provider=_NAME) from None
    except (urllib.error.URLError, ConnectionError) as error:
        raise ProviderUnreachableError(f"nothing answers at {url} ({error}); start a PartsServer "
                                       "and pass its url.", provider=_NAME) from None
    except ValueError as error:
        raise MalformedResponseError(f"the Parts API's reply is not JSON ({error}).",
                                     provider=_NAME) from None


def _error_message(raw: bytes) -> str | None:
    """The message of a Parts API error body, or None when it is not one."""
    try:
        return cast(str, json.loads(raw)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return None
