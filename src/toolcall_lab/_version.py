"""The kit's version, at the bottom of the package so that any layer can read it.

`toolcall_lab.__version__` is this one; `pyproject.toml` states the same
(`tests/test_packaging.py`), and the kit names itself with it where it introduces itself to
another program (an MCP server's `clientInfo`) or stamps a file it writes
(`data/lesson_usage.json`).
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
