"""The one way the kit writes a file, and the one way it reads one back.

Everything the kit saves (a transcript, a tape, the lesson figures, a teacher's solved
lessons, the lessons' measured usage) goes through `save_atomically`:

- the bytes go to a temporary file in the target's own folder, which then replaces the
  target in one step (`os.replace`): a save that fails, a Ctrl-C or a full disk leaves
  the file exactly as it was, never empty or half written;
- a new file gets the permissions the umask leaves (`0o666 & ~umask`, what `open(path, "w")`
  gives), and a file that is already there keeps its own;
- a symbolic link is written through: its target gets the new bytes, and the link stays;
- the temporary name is short (`.tcl-1a2b3c4d.tmp`) whatever the target is called, so a
  name as long as the folder allows (255 bytes on most file systems) can be saved.

A file that cannot be written or read raises one of the kit's errors (the class the
caller passes as `error`: `TranscriptFormatError` for transcripts, `TapeError` for tapes,
...) in one sentence: what, where, the system's reason, and what to do about it.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from toolcall_lab.errors import UsageError
    >>> folder = Path(tempfile.mkdtemp())
    >>> path = save_atomically(folder / "note.txt", b"hello\\n", what="note", error=UsageError)
    >>> read_file(path, what="note", error=UsageError), sorted(p.name for p in folder.iterdir())
    (b'hello\\n', ['note.txt'])
    >>> read_file(folder / "gone.txt", what="note", error=UsageError)
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: no note at '.../gone.txt'; check the path.

Left out: an fsync of the folder after the rename (after a power cut the folder may still
hold the old file, never a mix of the two), locks between two programs saving the same
file at once (the last save wins), and Windows, where `os.replace` works but a file's mode
means little.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from .errors import ToolcallLabError

__all__ = ["parse_json", "read_file", "save_atomically"]

#: What to do about a file the system refused, by the reason it gave (`errno`).
_WHAT_TO_DO = {
    errno.ENOSPC: "free some space, or save to another disk",
    errno.EDQUOT: "free some of your quota, or save to another disk",
    errno.EACCES: "save to a folder you may write to",
    errno.EPERM: "save to a folder you may write to",
    errno.EROFS: "save to a folder you may write to",
    errno.ENAMETOOLONG: "pick a shorter name",
    errno.EISDIR: "name a file, not a folder",
    errno.ENOTDIR: "check the path: a part of it is a file, not a folder",
    errno.ENOENT: "create the folder first, or check the path",
    errno.ELOOP: "check the path: its links point in a circle",
}


def _refused(action: str, what: str, path: Path, exc: OSError, error: type[ToolcallLabError],
             *, kept: bool = False) -> ToolcallLabError:
    """The kit's one sentence for an `OSError` met while `action`-ing the `what` at `path`."""
    reason = exc.strerror or type(exc).__name__
    left = "; the file there is as it was before" if kept else ""
    fix = _WHAT_TO_DO.get(exc.errno or 0, "try another path")
    return error(f"cannot {action} the {what} at {str(path)!r} ({reason}){left}; {fix}.")


def _temporary(folder: Path) -> tuple[int, Path]:
    """A new, empty file in `folder` with a short random name, open for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(16):
        candidate = folder / f".tcl-{secrets.token_hex(4)}.tmp"
        try:
            # subtle: 0o666 and not mkstemp's 0o600, so the umask decides, as for open(path, "w")
            return os.open(candidate, flags, 0o666), candidate
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def save_atomically(path: str | os.PathLike[str], data: bytes, *, what: str,
                    error: type[ToolcallLabError]) -> Path:
    """Write `data` to `path` in one step (see the module docstring); returns `path`.

    Nothing is touched until the bytes are ready, and a failure removes the temporary
    file and raises `error` naming `what` and `path`. A Ctrl-C is not caught: it goes on
    up, and the file is as it was.
    """
    path = Path(path)
    target = Path(os.path.realpath(path))  # subtle: through a link to its target; the link stays
    try:
        found = os.stat(target)
        if stat.S_ISDIR(found.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        mode: int | None = stat.S_IMODE(found.st_mode)
    except FileNotFoundError:
        mode = None  # a new file: the umask decides
    except OSError as exc:
        raise _refused("save", what, path, exc, error) from None
    try:
        fd, temporary = _temporary(target.parent)
    except OSError as exc:
        raise _refused("save", what, path, exc, error, kept=mode is not None) from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())  # the bytes are on disk before the name points at them
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise _refused("save", what, path, exc, error, kept=mode is not None) from None
        raise
    return path


def read_file(path: str | os.PathLike[str], *, what: str, error: type[ToolcallLabError],
              missing: str = "check the path") -> bytes:
    """The bytes at `path`; a file that is not there or cannot be read raises `error`.

    `missing` is what to do when there is nothing at `path` ("shipped tapes: ...").
    """
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise error(f"no {what} at {str(path)!r}; {missing.rstrip('.')}.") from None
    except OSError as exc:
        raise _refused("read", what, path, exc, error) from None


def parse_json(raw: str | bytes, *, where: str, what: str, error: type[ToolcallLabError]) -> Any:
    """The JSON document in `raw`; text that is not JSON raises `error` naming `where`.

    >>> from toolcall_lab.errors import UsageError
    >>> parse_json("[" * 100_000, where="t.json", what="tape", error=UsageError)
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: t.json nests lists or objects too deeply to read; it is not a tape.
    """
    try:
        return json.loads(raw)
    except RecursionError:
        raise error(f"{where} nests lists or objects too deeply to read; it is not a {what}.") from None
    except ValueError as exc:  # JSONDecodeError, and bytes that are not UTF-8
        raise error(f"{where} is not valid JSON ({exc}); it is not a {what}.") from None
