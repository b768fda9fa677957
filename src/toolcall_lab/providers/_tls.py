"""One TLS context per process for the SDK clients the kit builds, instead of one per client.

Every `get_provider(...)` builds an SDK client, and every SDK client builds an HTTP
client whose transport loads the system's certificate authorities into a new
`ssl.SSLContext`: about 35 ms of CPU each time, even for a client that only ever speaks
plain HTTP to the API double on loopback (a lesson builds a few dozen). The context is
the HTTP library's own default (`httpx2.create_ssl_context()` for the Anthropic and
OpenAI SDKs, `httpx.create_ssl_context()` for Ollama's), built once per set of
`SSL_CERT_FILE` / `SSL_CERT_DIR` values and handed to each client, so every connection
verifies exactly as before. One context serves any number of connections and threads.

    >>> tls_context("httpx2") is tls_context("httpx2")
    True

`sdk_http_client` is the HTTP client the Anthropic and OpenAI SDKs build for themselves
(their `DefaultHttpxClient`: the SDK's timeouts, connection limits and redirects, closed
when it is dropped), with that context, or with the API double's transport
(`double/transport.py`), which needs none. Left out: client certificates and `verify=False`,
which the kit never asks for.
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import Any

__all__ = ["sdk_http_client", "tls_context"]


def tls_context(library: str) -> Any:
    """The default `ssl.SSLContext` of `library` ("httpx2" or "httpx"), built once per environment."""
    return _context(library, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _context(library: str, cafile: str | None, capath: str | None) -> Any:
    # subtle: `cafile` and `capath` are only the cache's key: the library reads the same two
    # variables itself, so a notebook that sets SSL_CERT_FILE gets a context that trusts it.
    return importlib.import_module(library).create_ssl_context()


def sdk_http_client(sdk: str, *, base_url: str, timeout: float, transport: Any = None) -> Any:
    """The HTTP client the `sdk` ("anthropic" or "openai") would build itself, with the shared
    context; with a `transport` (the API double's in-process one), with it instead."""
    reach = {"verify": tls_context("httpx2")} if transport is None else {"transport": transport}
    return _closing_client(sdk)(base_url=base_url, timeout=timeout, **reach)


@functools.cache
def _closing_client(sdk: str) -> type:
    default: type = importlib.import_module(sdk).DefaultHttpxClient

    class Client(default):  # type: ignore[misc]
        """The SDK's `DefaultHttpxClient`, closed when it is dropped, as the SDK's own client is."""

        def __del__(self) -> None:
            # subtle: what the SDK's `SyncHttpxClientWrapper` does, so a provider nobody keeps
            # leaves no socket open behind it
            try:
                if not self.is_closed:
                    self.close()
            except Exception:  # nothing to tell anyone while an object is collected
                pass

    Client.__qualname__ = Client.__name__ = "SharedTLSClient"
    return Client
