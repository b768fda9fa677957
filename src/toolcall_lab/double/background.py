"""Serving HTTP from a background thread: the part the API double and the Parts server share.

A subclass builds its `http.server` server in `start()` and hands it to `_serve`; `stop()`
(also what leaving a `with` block does) stops it accepting, calls `_hang_up` for anything
the subclass must close first, closes the socket and waits for the thread.

The thread waits on the listening socket and on a wake-up socket at once, so `stop()` is
over at once and an idle server costs no CPU; `serve_forever` instead wakes every
`poll_interval` to look for a shutdown, which left each `stop()` waiting for the next
look (25 ms on average at 20 looks a second, a lesson starts and stops a double two
dozen times) and an idle server waking 20 times a second. Left out: building the server,
which differs (the double binds any loopback address and port and keeps its connections;
the Parts server takes a free port on 127.0.0.1).
"""

from __future__ import annotations

import selectors
import socket
import threading
from typing import Any, Self

__all__ = ["BackgroundServer"]


class BackgroundServer:
    """A server running in a daemon thread, stopped by `stop()` or the end of a `with` block."""

    port: int
    _server: Any = None
    _thread: threading.Thread | None = None
    _wake: socket.socket | None = None  # one end of the pair the accepting thread also waits on

    def start(self) -> Self:
        raise NotImplementedError  # each server binds its own way, then calls _serve

    def _serve(self, server: Any, name: str) -> Self:
        """Serve `server` from a daemon thread called `name`; the port it bound becomes `port`."""
        self._server = server
        self.port = server.server_address[1]
        self._wake, wake = socket.socketpair()
        self._thread = threading.Thread(target=_accept, args=(server, wake), name=name, daemon=True)
        self._thread.start()
        return self

    def _hang_up(self) -> None:
        """Called after the server stops accepting and before its socket closes; nothing here."""

    def stop(self) -> None:
        """Stop serving, close the socket and wait for the server's thread."""
        if self._server is not None:
            assert self._thread is not None and self._wake is not None
            self._wake.send(b"x")  # the accepting thread returns at once
            self._thread.join()
            self._wake.close()
            self._hang_up()
            self._server.server_close()
            self._server = self._thread = self._wake = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _accept(server: Any, wake: socket.socket) -> None:
    """Hand each new connection to `server` until `wake` has something to read, then return.

    What `serve_forever` does, without its polling: `handle_request` accepts the connection
    the selector saw and hands it to the server's own thread for it (ThreadingHTTPServer).
    """
    with wake, selectors.DefaultSelector() as selector:
        selector.register(server, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        while True:
            ready = {key.fileobj for key, _ in selector.select()}
            if wake in ready:
                return
            server.handle_request()
