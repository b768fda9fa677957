"""`jsonschema`, imported on first use without the packages only its format checkers use.

The kit validates with jsonschema in two places: a tool's arguments (`tool.py`, before
the function runs) and the API double's request shapes (`double/shape.py`). Neither
passes a `format_checker`, so "format" stays an annotation and the format checkers never
run. jsonschema still imports their packages when it is imported, and with the ones
JupyterLab brings (through jupyter-events) that costs seconds: `rfc3987_syntax` alone
builds its lark grammars at import, about 1.5 s of CPU on a quiet machine
(python-jsonschema/jsonschema#1428). `import_jsonschema` skips them:

    >>> jsonschema = import_jsonschema()
    >>> jsonschema.Draft202012Validator({"type": "string"}).is_valid(5)
    False

Left out: checking "format" at all (both callers leave it out on purpose).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

__all__ = ["import_jsonschema"]

# The packages only jsonschema's *format checkers* use ("format": "iri", "duration", ...),
# each imported by jsonschema/_format.py inside `suppress(ImportError)`.
_FORMAT_ONLY_PACKAGES = frozenset({"rfc3987", "rfc3987_syntax", "rfc3986_validator", "rfc3339_validator",
                                   "isoduration", "uri_template", "webcolors", "jsonpointer", "fqdn", "idna"})
_LOCK = threading.Lock()


class _Skip:
    """Refuses the format-only packages, in one thread only: the one importing jsonschema.

    A finder on `sys.meta_path` needs only `find_spec`; `importlib.abc`'s base class would cost
    `import toolcall_lab` about 30 ms (it loads `importlib.resources`).
    """

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if threading.get_ident() == self.thread and name.partition(".")[0] in _FORMAT_ONLY_PACKAGES:
            raise ModuleNotFoundError(f"{name} is skipped while the kit imports jsonschema", name=name)
        return None  # every other import is found as usual


def import_jsonschema() -> Any:
    """jsonschema, imported (once) without the packages of its format checkers.

    jsonschema imports each of them inside `suppress(ImportError)`, so one that cannot be
    found is simply a format it leaves out. A package already loaded is used as it is
    (finders are asked only for what is not in `sys.modules`), and once jsonschema is in,
    anyone may import the skipped packages themselves.
    """
    # subtle: a lock, because the double's first request and a tool's first argument check
    # can come from two threads at once; the second must not get a half-imported module.
    with _LOCK:
        if "jsonschema" in sys.modules:
            import jsonschema  # subtle: waits for an import another thread may have under way

            return jsonschema
        # subtle: refused in this thread only, so no other thread's imports fail meanwhile.
        # In this process jsonschema's own FormatChecker then lacks those formats (iri,
        # duration, ...), which the kit never asks for.
        skip = _Skip()
        sys.meta_path.insert(0, skip)
        try:
            import jsonschema
        finally:
            sys.meta_path.remove(skip)
        return jsonschema
