#!/usr/bin/env python3
"""The kit's two commands, with nothing installed by hand first.

    python3 dev.py lab     # JupyterLab on notebooks/ (creates .venv on first use)
    python3 dev.py test    # every test, strict nbval of every notebook included
    python3 dev.py demo    # the classroom demo in the terminal (offline)
    python3 dev.py notebooks [PATH ...]   # re-execute lessons in place, for maintainers

Both make sure `.venv/` exists and holds this project installed with its `dev`
extra; they reinstall when `pyproject.toml` changes. Anything after the command
goes to JupyterLab or pytest, e.g. `python3 dev.py test -k loop` or
`python3 dev.py lab --port 8899`.

Standard library only, so it runs on any Python >= 3.11 before anything is installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / "toolcall-lab.stamp"
MIN_PYTHON = (3, 11)


def venv_bin(name: str) -> Path:
    folder = "Scripts" if os.name == "nt" else "bin"
    suffix = ".exe" if os.name == "nt" else ""
    return VENV / folder / f"{name}{suffix}"


def venv_python_version() -> tuple[int, int] | None:
    """The (major, minor) Python that built .venv/, read from its pyvenv.cfg."""
    try:
        for line in (VENV / "pyvenv.cfg").read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info"):
                major, minor = value.strip().split(".")[:2]
                return int(major), int(minor)
    except (OSError, ValueError):
        pass
    return None


def wanted_stamp() -> str:
    """What the environment was built from: the project's metadata and this Python."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    return f"{digest} python{sys.version_info.major}.{sys.version_info.minor}"


def ensure_env() -> None:
    if sys.version_info < MIN_PYTHON:
        sys.exit(
            f"toolcall-lab needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; "
            f"this is {sys.version.split()[0]}. Run dev.py with a newer python3."
        )
    if STAMP.exists() and STAMP.read_text().strip() == wanted_stamp():
        return
    if not venv_bin("python").exists() or venv_python_version() != sys.version_info[:2]:
        print(f"dev.py: creating {VENV.name}/ with Python {sys.version.split()[0]} ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    print("dev.py: installing toolcall-lab[dev] into .venv/ (a minute or two the first time) ...",
          flush=True)
    pip = [str(venv_bin("python")), "-m", "pip", "--disable-pip-version-check"]
    installed = subprocess.run([*pip, "install", "--quiet", "--editable", f"{ROOT}[dev]"])
    if installed.returncode != 0:
        sys.exit("dev.py: installing the project into .venv/ failed (pip's message is above). "
                 "Check that this machine can reach the Python package index, then run the "
                 "same command again; nothing else needs cleaning up.")
    write_lab_overrides()
    STAMP.write_text(wanted_stamp() + "\n")


# JupyterLab defaults that suit a classroom: never fetch news or check for updates (both
# reach the internet, and the kit promises to run offline), so no prompt pops up on a
# projector. Stored inside .venv/, so nothing outside the project changes.
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def write_lab_overrides() -> None:
    settings = VENV / "share" / "jupyter" / "lab" / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "overrides.json").write_text(json.dumps(LAB_OVERRIDES, indent=2) + "\n")


def lab(args: list[str]) -> int:
    command = [str(venv_bin("jupyter")), "lab", f"--notebook-dir={ROOT / 'notebooks'}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI machines run as root
    if os.name == "posix":
        # subtle: replace this process, so Ctrl-C and kill reach JupyterLab itself
        # instead of leaving an orphaned server behind.
        os.chdir(ROOT)
        os.execv(command[0], command + args)
    return subprocess.call(command + args, cwd=ROOT)


def test(args: list[str]) -> int:
    return subprocess.call([str(venv_bin("python")), "-m", "pytest", *args], cwd=ROOT)


def demo(args: list[str]) -> int:
    return subprocess.call([str(venv_bin("python")), "-m", "toolcall_lab", "demo", *args], cwd=ROOT)


def notebooks(args: list[str]) -> int:
    """Re-execute lessons top to bottom with a fresh kernel and save them with outputs.

    Per-cell execution timestamps are dropped (they would change every line of the diff),
    consecutive stream outputs are merged (how the kernel splits them depends on timing),
    and the timeout stops a stalled widget cell from hanging the command.
    """
    paths = [Path(a) for a in args] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            cell.get("metadata", {}).pop("execution", None)
        path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    return subprocess.call([
        str(venv_bin("jupyter")), "nbconvert", "--to", "notebook", "--execute", "--inplace",
        "--ExecutePreprocessor.timeout=120", "--ExecutePreprocessor.record_timing=False",
        "--CoalesceStreamsPreprocessor.enabled=True", *map(str, paths)], cwd=ROOT)


COMMANDS = {"lab": lab, "test": test, "demo": demo, "notebooks": notebooks}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__.strip())
        return 2
    ensure_env()
    try:
        return COMMANDS[argv[0]](argv[1:])
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
