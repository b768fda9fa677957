"""An old address, kept for lesson 17: `toolcall_lab.wire.server.flavours`.

The per-API server halves moved into each API's folder (`wire/<api>/server.py`), and the
local-server flavours to `toolcall_lab.wire.flavours`. Lesson 17 imports the flavours by
their old path (`from toolcall_lab.wire.server.flavours import FLAVOURS`), so that path
still answers, with the same objects; new code imports `toolcall_lab.wire.flavours`.
"""

__all__: list[str] = []
