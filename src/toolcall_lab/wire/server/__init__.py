"""The server half of each codec: what the loopback API double reads and answers.

A provider only ever encodes requests and decodes responses; the API double
(`toolcall_lab.double`) does the opposite, so each API has a second, inverse pair:

    decode_request(body) -> tuple[Transcript, tuple[Tool, ...]]   what a server reads
    encode_response(turn, *, response_id) -> dict                  what a server answers
    error_body(message, *, status, param=None, code=None) -> dict  the API's error JSON

One module per API (`anthropic.py`, `responses.py`, `chat.py`, `ollama.py`), built on
the block translators of that API's codec module (`wire/<api>.py`) and re-exported by
it, so `wire.codec(api)` hands the double everything it needs. Like the client half,
it does no I/O: the double's HTTP server (`double/server.py`) is the only part that
listens on a socket.
"""

__all__: list[str] = []
