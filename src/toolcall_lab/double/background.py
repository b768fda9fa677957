"""Serving HTTP from a background thread: the part the API double and the Parts server share.

A subclass builds its `http.server` server in `start()` and hands it to `_serve`; `stop()`
(also what leaving a `with` block does) shuts it down, calls `_hang_up` for anything the
subclass must close first, closes the socket and waits for the thread. Left out: building
the server, which differs (the double binds any loopback address and port and keeps its
connections; the Parts server takes a free port on 127.0.0.1).
"""

from __future__ import annotations

import threading
from typing import Any, Self

__all__ = ["BackgroundServer"]


class BackgroundServer:
    """A server running in a daemon thread, stopped by `stop()` or the end of a `with` block."""

    port: int
    _server: Any = None
    _thread: threading.Thread | None = None

    def start(self) -> Self:
        raise NotImplementedError  # each server binds its own way, then calls _serve

    def _serve(self, server: Any, name: str) -> Self:
        """Serve `server` from a daemon thread called `name`; the port it bound becomes `port`."""
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=name, daemon=True)  # polls for stop() 20x a second
        self._thread.start()
        return self

    def _hang_up(self) -> None:
        """Called after the server stops accepting and before its socket closes; nothing here."""

    def stop(self) -> None:
        """Stop serving, close the socket and wait for the server's thread."""
        if self._server is not None:
            self._server.shutdown()
            self._hang_up()
            self._server.server_close()
            assert self._thread is not None
            self._thread.join()
            self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
