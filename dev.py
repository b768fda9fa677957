#!/usr/bin/env python3
"""The kit's commands, with nothing installed by hand first.

    python3 dev.py lab     # JupyterLab on notebooks/ (creates .venv on first use)
    python3 dev.py test    # every test, strict nbval of every notebook included
                           # (`--quick` skips the slow ones: each test that starts a process)
    python3 dev.py demo    # the classroom demo in the terminal (offline)
    python3 dev.py lint    # ruff and mypy --strict, the two checks tests/ also run
    python3 dev.py notebooks [PATH ...]   # re-execute lessons in place, for maintainers
    python3 dev.py solutions [OUT]        # a teacher's solved, executed copy of every lesson
                                          # (default: solutions/, git-ignored)
    python3 dev.py reset-lessons [LESSON ...]   # restore lessons as committed, keeping a
                                          # learner's changed copy in notebooks/my-copies/
    python3 dev.py wheelhouse [DIR] [--platform TAG ...] [--python-version X.Y ...]
                                          # every wheel the lessons need, for a room with no
                                          # network (default: wheelhouse/; see DIR/INSTALL.txt)
    python3 dev.py lock [--keep]          # make uv.lock again (newest allowed versions) and
                                          # its copies; says what changed (maintainers)
    python3 dev.py drift [--lowest]       # test the newest (or lowest) allowed versions in a
                                          # throwaway environment; a table of what breaks

Each of lab, demo, notebooks, solutions, wheelhouse, test and lint makes sure `.venv/` holds
exactly the versions in `uv.lock` with the extra it needs, installed by uv (which dev.py fetches
into .tools/ the first time; `TOOLCALL_LAB_INSTALLER=pip` uses pip instead, the same versions),
again whenever pyproject.toml or uv.lock changes: `lab` (what the lessons need) for lab, demo,
notebooks, solutions and wheelhouse; `dev` (adds the test and lint tools) for test and lint.
With `TOOLCALL_LAB_VENV=DIR` set, the environment in DIR is used as it is: nothing is installed.
Anything after the command goes to JupyterLab or pytest, e.g. `python3 dev.py test -k loop` or
`python3 dev.py lab --port 8899`.

Standard library only, so it runs on any Python >= 3.11 before anything is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
#: An environment to use as it is instead of .venv/: its folder, e.g. `TOOLCALL_LAB_VENV=$CONDA_PREFIX`.
#: dev.py then creates nothing and installs nothing (it only writes its JupyterLab settings
#: there); the environment must already hold what the command needs. The test suite points
#: `dev.py lab` and `dev.py wheelhouse` at the environment it runs in this way, so no test
#: builds an environment (tests/test_readme.py).
EXISTING_VENV = "TOOLCALL_LAB_VENV"
USE_AS_IS = bool(os.environ.get(EXISTING_VENV))
VENV = Path(os.environ[EXISTING_VENV]).resolve() if USE_AS_IS else ROOT / ".venv"
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


#: What each command needs installed: a learner's commands take the `lab` extra (the lessons,
#: JupyterLab, the SDKs), a contributor's take `dev`, which adds the test and lint tools and a
#: JupyterHub; `drift` and `lock` build their own environments.
EXTRA_FOR = {"lab": "lab", "demo": "lab", "notebooks": "lab", "solutions": "lab", "wheelhouse": "lab",
             "test": "dev", "lint": "dev"}
#: Which extras an installed extra already covers (`dev` includes `lab`).
COVERS = {"lab": {"lab"}, "dev": {"lab", "dev"}}

#: The lock: the exact version of every package each extra needs, for every platform and
#: Python 3.11 and newer, with hashes; made by uv from pyproject.toml (`python3 dev.py lock`),
#: never written by hand. Every install path takes its versions from it: `.venv/` (uv sync),
#: and, through the pip-readable copies `dev.py lock` writes beside it (LOCK_COPIES), the
#: README's own-environment route, environment.yml (conda, Binder), the hubs and the wheelhouse;
#: tests/test_lock.py holds each to it.
LOCK = ROOT / "uv.lock"
REQUIREMENTS = ROOT / "requirements"  # lab.txt, dev.txt: the lock as pip reads it, hashes included
#: What `python -m toolcall_lab doctor` compares an environment with (the `lab` extra's versions).
LOCKED_VERSIONS = ROOT / "src" / "toolcall_lab" / "data" / "locked.json"
#: uv, the installer that reads the lock: a PyPI package that dev.py installs into .tools/ itself
#: the first time (a 20 MB wheel, about 3 s), so the only prerequisite stays Python 3.11+.
UV_VERSION = "0.13.9"
TOOLS = ROOT / ".tools"
#: `pip` installs from requirements/EXTRA.txt with pip instead of uv (hash-checked, the same
#: versions): the route for a machine where uv will not run, and the one the README's timings
#: compare against.
INSTALLER = "TOOLCALL_LAB_INSTALLER"


def wanted_stamp() -> str:
    """What the environment was built from: the project's metadata, the lock and this Python."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()
                            + (LOCK.read_bytes() if LOCK.exists() else b"")).hexdigest()[:16]
    return f"{digest} python{sys.version_info.major}.{sys.version_info.minor}"


def installed_extra() -> str | None:
    """The extra .venv/ holds (`lab` or `dev`) if it was built from this pyproject, lock and Python.

    A stamp from before extras were recorded holds `dev`, which is what those built.
    """
    try:
        built, _, extra = STAMP.read_text().strip().partition(" extra=")
    except OSError:
        return None
    return (extra or "dev") if built == wanted_stamp() else None


def ensure_env(extra: str = "dev") -> None:
    if sys.version_info < MIN_PYTHON:
        sys.exit(
            f"toolcall-lab needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; "
            f"this is {sys.version.split()[0]}. Run dev.py with a newer python3."
        )
    if USE_AS_IS:
        if not venv_bin("python").exists():
            sys.exit(f"dev.py: {EXISTING_VENV}={VENV} holds no {venv_bin('python').relative_to(VENV)}; "
                     f"point it at an environment's folder (its sys.prefix), or unset it to use .venv/.")
        write_lab_overrides()
        return
    have = installed_extra()
    if have is not None and extra in COVERS[have]:
        return
    started = time.monotonic()
    installer = os.environ.get(INSTALLER, "uv")
    uv_exe = find_uv() if installer == "uv" else None
    if uv_exe is not None:
        print(f"dev.py: installing toolcall-lab[{extra}] into {VENV.name}/ from uv.lock ...", flush=True)
        installed = uv_sync(uv_exe, extra)
    else:
        if installer == "uv":
            print("dev.py: uv could not be installed here; using pip (slower, the same versions).")
        installed = pip_install(extra)
    if installed != 0:
        sys.exit("dev.py: installing the project into .venv/ failed (the installer's message is above). "
                 "Check that this machine can reach the Python package index, then run the "
                 "same command again; nothing else needs cleaning up.")
    write_lab_overrides()
    STAMP.write_text(f"{wanted_stamp()} extra={extra}\n")
    print(f"dev.py: {VENV.name}/ ready ({time.monotonic() - started:.0f} s).", flush=True)


def uv_env() -> dict[str, str]:
    """The environment uv runs in: .venv/ as the project's, this Python only (uv never downloads one)."""
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(VENV), "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)  # an activated environment elsewhere is not the one to sync
    return env


def uv_sync(uv_exe: Path, extra: str) -> int:
    """Make .venv/ hold exactly the lock's packages for `extra`, and the kit, editable.

    `--frozen`: the lock as committed, never re-resolved (tests/test_lock.py fails when
    pyproject.toml changes and uv.lock was not made again). No bytecode is compiled at install
    (Python writes it at first import), which halves a first install.
    """
    if not (VENV / "pyvenv.cfg").exists() or venv_python_version() != sys.version_info[:2] or not has_pip():
        # subtle: uv's own environments hold no pip; `--seed` gives .venv/ one, which sync keeps,
        # so `python -m pip` (doctor's advice, a learner's `%pip install`) works in it as usual
        made = subprocess.call([str(uv_exe), "venv", "--quiet", "--seed", "--clear", "--python",
                                sys.executable, str(VENV)], cwd=ROOT, env=uv_env())
        if made:
            return made
    return subprocess.call([str(uv_exe), "sync", "--frozen", "--quiet", "--extra", extra,
                            "--python", sys.executable], cwd=ROOT, env=uv_env())


def has_pip() -> bool:
    """Whether .venv/ holds pip (site-packages is lib/pythonX.Y/ on POSIX, Lib/ on Windows)."""
    return any(VENV.glob("lib/python3*/site-packages/pip")) or (VENV / "Lib/site-packages/pip").exists()


def pip_install(extra: str) -> int:
    """The same environment with pip alone: requirements/EXTRA.txt (hash-checked), then the kit."""
    if not venv_bin("python").exists() or venv_python_version() != sys.version_info[:2]:
        print(f"dev.py: creating {VENV.name}/ with Python {sys.version.split()[0]} ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    print(f"dev.py: installing toolcall-lab[{extra}] into {VENV.name}/ with pip from "
          f"requirements/{extra}.txt ...", flush=True)
    pip = [str(venv_bin("python")), "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    return (subprocess.run([*pip, "--require-hashes", "-r", str(REQUIREMENTS / f"{extra}.txt")]).returncode
            or subprocess.run([*pip, "--no-deps", "--editable", str(ROOT)]).returncode)


def find_uv() -> Path | None:
    """uv at UV_VERSION: in .tools/ (installed there by pip the first time), else None."""
    folder = TOOLS / f"uv-{UV_VERSION}"
    found = _uv_in(folder)
    if found is not None:
        return found
    print(f"dev.py: installing uv {UV_VERSION} into {folder.relative_to(ROOT)}/ ...", flush=True)
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    got = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "install",
                          "--quiet", "--no-deps", "--root-user-action=ignore", "--target", str(partial),
                          f"uv=={UV_VERSION}"])
    if got.returncode != 0 or _uv_in(partial) is None:
        shutil.rmtree(partial, ignore_errors=True)
        return None
    shutil.rmtree(folder, ignore_errors=True)
    partial.replace(folder)  # whole or not at all: a broken download is never taken for uv
    return _uv_in(folder)


def _uv_in(folder: Path) -> Path | None:
    """The uv executable a `pip install --target folder uv` left (bin/ or Scripts/)."""
    for sub in ("bin", "Scripts"):
        for name in ("uv", "uv.exe"):
            if (folder / sub / name).is_file():
                return folder / sub / name
    return None


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


#: The lesson JupyterLab opens on: the first of these that exists in notebooks/.
FIRST_LESSONS = ("00_start_here.ipynb", "01_one_tool_call.ipynb")
LAB_PORT = 8888  # JupyterLab's own default; the next free port is taken when it is busy
LAB_START_TIMEOUT = 120  # seconds; a first start on a slow laptop takes well under this


def first_lesson(notebook_dir: Path) -> str | None:
    """The lesson to open first: `00_start_here.ipynb` when it exists, else lesson 1."""
    return next((name for name in FIRST_LESSONS if (notebook_dir / name).is_file()), None)


def lab_url(port: int, token: str, lesson: str | None) -> str:
    """The one URL a learner opens, e.g.

    lab_url(8888, "abc", "01_one_tool_call.ipynb")
    -> "http://localhost:8888/lab/tree/01_one_tool_call.ipynb?token=abc"
    """
    path = f"/lab/tree/{urllib.parse.quote(lesson)}" if lesson else "/lab"
    query = f"?{urllib.parse.urlencode({'token': token})}" if token else ""
    return f"http://localhost:{port}{path}{query}"


def option_value(args: list[str], *names: str) -> str | None:
    """The last value given to any of `names` in `args`, as `--name=value` or `--name value`.

    option_value(["--port", "8899"], "--port", "--ServerApp.port") -> "8899"
    """
    value = None
    for i, arg in enumerate(args):
        name, equals, rest = arg.partition("=")
        if name in names:
            value = rest if equals else (args[i + 1] if i + 1 < len(args) else None)
    return value


def free_port(start: int = LAB_PORT, tries: int = 50) -> int:
    """The first port from `start` up that nothing on this machine listens on."""
    for port in range(start, start + tries):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return start  # all busy: JupyterLab will say the port is in use


def wait_for_server(url: str, *, timeout: float, alive=lambda: True, interval: float = 0.2) -> bool:
    """Poll `url` until it answers over HTTP (True), `alive()` turns false or time runs out."""
    deadline = time.monotonic() + timeout
    while alive() and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except urllib.error.HTTPError:
            return True  # an error status is still a server answering
        except OSError:  # refused, reset or timed out: not up yet
            time.sleep(interval)
    return False


#: Kernels talk to JupyterLab over IPC (files only this user can open) where the system has it:
#: over TCP, every kernel warns "running over TCP without encryption ... susceptible to
#: eavesdropping" into the terminal, which on a shared machine is true. Windows has no IPC
#: transport, so there kernels keep TCP on 127.0.0.1 and the warning with it.
KERNEL_TRANSPORT = ["--KernelManager.transport=ipc"] if os.name == "posix" else []


def lab(args: list[str]) -> int:
    """Start JupyterLab on the first lesson, print the one URL to open, and wait for Ctrl-C.

    JupyterLab's own start-up messages are held to warnings and errors, so the URL is the
    line to look for. `--port` and `--IdentityProvider.token` given by you are respected.
    """
    notebook_dir = ROOT / "notebooks"
    lesson = first_lesson(notebook_dir)
    port_arg = option_value(args, "--port", "--ServerApp.port")
    token = option_value(args, "--IdentityProvider.token", "--ServerApp.token")
    ours = [f"--notebook-dir={notebook_dir}", "--log-level=WARN", "--LabApp.log_level=WARN",
            "--ServerApp.port_retries=0"]  # the port printed is the port served
    if port_arg is None:
        port_arg = str(free_port())
        ours.append(f"--port={port_arg}")
    if token is None:
        token = secrets.token_hex(24)
        ours.append(f"--IdentityProvider.token={token}")
    if lesson:
        ours.append(f"--ServerApp.default_url=/lab/tree/{lesson}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        ours.append("--allow-root")  # containers and CI machines run as root
    ours += KERNEL_TRANSPORT
    # subtle: JupyterLab runs in its own session, so Ctrl-C reaches only this script, which
    # stops the server (and its kernels) itself instead of leaving an orphan behind.
    server = subprocess.Popen([str(venv_bin("jupyter")), "lab", *ours, *args], cwd=ROOT,
                              start_new_session=os.name == "posix")
    previous = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    try:
        status = f"http://127.0.0.1:{port_arg}/api/status?{urllib.parse.urlencode({'token': token})}"
        if wait_for_server(status, timeout=LAB_START_TIMEOUT, alive=lambda: server.poll() is None):
            print(f"\nOpen this in your browser: {lab_url(int(port_arg), token, lesson)}\n"
                  "(Ctrl-C here stops JupyterLab.)", flush=True)
        elif server.poll() is None:
            print(f"dev.py: JupyterLab has not answered on port {port_arg} after "
                  f"{LAB_START_TIMEOUT} s; its messages are above. Ctrl-C stops it.", flush=True)
        return server.wait()
    except KeyboardInterrupt:
        print("\ndev.py: stopping JupyterLab ...", flush=True)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        _stop(server)


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt  # `kill` stops JupyterLab the same way Ctrl-C does


def _stop(server: subprocess.Popen) -> None:
    if server.poll() is not None:
        return
    server.terminate()  # JupyterLab shuts its kernels down on SIGTERM
    try:
        server.wait(timeout=20)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):  # stuck, or a second Ctrl-C
        server.kill()
        server.wait()


def test(args: list[str]) -> int:
    """pytest with the project's settings; `--quick` skips the tests marked slow (each that starts
    a process: a whole command, a kernel, a browser, a hub, mypy, ruff, pip or another Python;
    tests/conftest.py fails one that does and is not marked), for a fast loop while working.
    CI runs everything.

    `--quick` also searches less: each Hypothesis test runs a tenth of its examples (at least 10;
    `TOOLCALL_LAB_HYPOTHESIS=quick`, read by tests/conftest.py); the full run runs them all.
    And it leaves nbval out (`quick_options`): it runs no lesson cell, every one being slow,
    and spreads the tests over the cores (`parallel_options`).

    Bytecode is cached (`test_environment`), even where PYTHONDONTWRITEBYTECODE is set."""
    env = test_environment()
    env.pop("TOOLCALL_LAB_HYPOTHESIS", None)  # the full run searches in full, whoever started it
    if "--quick" in args:
        args = [*parallel_options(args), *(a for a in args if a != "--quick"), "-m", "not slow",
                *quick_options()]
        env["TOOLCALL_LAB_HYPOTHESIS"] = "quick"
    return subprocess.call([str(venv_bin("python")), "-m", "pytest", *args], cwd=ROOT, env=env)


def test_environment() -> dict[str, str]:
    """The environment pytest runs in: this one, with bytecode written.

    With PYTHONDONTWRITEBYTECODE set (some shells and images set it, to keep __pycache__/ out of
    a checkout), every kernel and Python the suite starts compiled the kit and its dependencies
    again, and pytest rewrote every test module's asserts again. Then the bytecode goes to a
    cache in the environment's folder instead (PYTHONPYCACHEPREFIX; sys.pycache_prefix, at
    https://docs.python.org/3/library/sys.html: Python writes ".pyc files to (and read them
    from) a parallel directory tree rooted at this directory, rather than from __pycache__
    directories in the source code tree"), so the checkout stays as clean as the variable kept
    it: one quick run 76.9 -> 68.5 s."""
    env = dict(os.environ)
    if env.get("PYTHONDONTWRITEBYTECODE") and not env.get("PYTHONPYCACHEPREFIX"):
        del env["PYTHONDONTWRITEBYTECODE"]
        env["PYTHONPYCACHEPREFIX"] = str(VENV / "pycache")
    return env


#: pytest options after which a run is left in one process: it chose how to spread itself, or
#: it needs the terminal (a worker's output and debugger are not the terminal's).
OWN_CHOICES = ("-n", "--numprocesses", "--dist", "-s", "--capture=no", "--pdb", "--trace")


def parallel_options(args: list[str]) -> list[str]:
    """pytest-xdist options for `test --quick`: one worker process per core (at most four), each
    test file whole on one worker (`--dist loadfile`: a module's fixtures are made once).

    The quick tests run in one process, on one core: two workers halve them here. Left in one
    process: a machine with one core, an environment without pytest-xdist (TOOLCALL_LAB_VENV),
    and a run given one of OWN_CHOICES or `-p no:xdist`. The full run stays in one process: its
    lessons' kernels and background jobs (tests/background.py) already keep both cores busy, and
    test_swap.py reads the lessons' runs that strict nbval made in the same process.
    """
    workers = min(4, os.cpu_count() or 1)
    chosen = any(arg in OWN_CHOICES or arg.split("=")[0] in OWN_CHOICES or arg.startswith("-n")
                 for arg in args) or "no:xdist" in args or "-pno:xdist" in args
    if workers < 2 or chosen or not has_xdist():
        return []
    return ["-n", str(workers), "--dist", "loadfile"]


def has_xdist() -> bool:
    """Whether the environment holds pytest-xdist (the dev extra has it)."""
    return any(VENV.glob("lib/python3*/site-packages/xdist/__init__.py")) or (
        VENV / "Lib" / "site-packages" / "xdist" / "__init__.py").exists()


def quick_options() -> list[str]:
    """pytest options for `test --quick`: no nbval plugin, and pyproject's addopts without its
    options. Every lesson cell is marked slow (tests/conftest.py), so `-m "not slow"` ran none
    anyway; loading nbval (nbformat, jsonschema's format checkers) and collecting 28 lessons
    only to deselect them took about 2 s of each quick run."""
    import shlex
    import tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["pytest"]["ini_options"]["addopts"]
    return ["-p", "no:nbval", "-o", "addopts=" + shlex.join(
        option for option in addopts if not option.startswith("--nbval"))]


def demo(args: list[str]) -> int:
    return subprocess.call([str(venv_bin("python")), "-m", "toolcall_lab", "demo", *args], cwd=ROOT)


LINTED = ["src", "tests", "benchmarks", "notebooks", "dev.py"]  # ruff reads the lessons' code cells


def lint(args: list[str]) -> int:
    """ruff over the code, then mypy --strict over the package (configured in pyproject.toml).

    Both also run as tests (tests/test_lint.py, tests/test_typing.py); this is the quick way
    to see every finding at once. `dev.py lint --fix` lets ruff fix what it safely can.
    """
    ruff = subprocess.call([str(venv_bin("ruff")), "check", *args, *LINTED], cwd=ROOT)
    mypy = subprocess.call([str(venv_bin("python")), "-m", "mypy"], cwd=ROOT)
    return ruff or mypy


def notebooks(args: list[str]) -> int:
    """Re-execute lessons top to bottom with a fresh kernel and save them with outputs.

    Per-cell execution timestamps are dropped (they would change every line of the diff),
    consecutive stream outputs are merged (how the kernel splits them depends on timing),
    and the timeout stops a stalled widget cell from hanging the command.
    """
    paths = [Path(a) for a in args] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        rewrite(path, lambda cell: cell.get("metadata", {}).pop("execution", None))
    kernel = list(KERNEL_TRANSPORT)
    sockets = tempfile.mkdtemp(prefix="toolcall-lab-kernel-")  # only this user can open it
    if kernel:
        # subtle: over IPC the sockets are files named after the connection file; nbconvert's
        # default is a bare name, which nbconvert (in the kit's root) and the kernel (in the
        # lesson's folder) read in two places, so the kernel never answers. An absolute one.
        kernel.append(f"--KernelManager.connection_file={Path(sockets) / 'kernel.json'}")
    try:
        status = subprocess.call([
            str(venv_bin("jupyter")), "nbconvert", "--to", "notebook", "--execute", "--inplace",
            "--ExecutePreprocessor.timeout=120", "--ExecutePreprocessor.record_timing=False",
            *kernel, *map(str, paths)], cwd=ROOT)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    for path in paths:
        # subtle: nbconvert's CoalesceStreamsPreprocessor runs before execution, so the
        # streams the kernel splits by timing are merged here, after it.
        rewrite(path, merge_streams)
    return status


def rewrite(path: Path, change) -> None:
    """Apply `change` to every cell of the notebook at `path` and save it the way git keeps it."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        change(cell)
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def merge_streams(cell: dict) -> None:
    """Join consecutive stdout (or stderr) outputs of a code cell into one."""
    merged: list[dict] = []
    for output in cell.get("outputs", []):
        last = merged[-1] if merged else None
        if (last and output["output_type"] == last["output_type"] == "stream"
                and output["name"] == last["name"]):
            text = "".join(last["text"]) + "".join(output["text"])
            last["text"] = text.splitlines(keepends=True)
        else:
            merged.append(output)
    if "outputs" in cell:
        cell["outputs"] = merged


def solutions(args: list[str]) -> int:
    """A teacher's solved copy of every lesson, executed, in solutions/ (git-ignored) or the folder named.

    Made on demand, never committed: a learner who clones or pulls the kit does not get it.
    """
    out = [str(Path(a).resolve()) if not a.startswith("-") else a for a in args]  # from your folder
    return subprocess.call([str(venv_bin("python")), "-m", "toolcall_lab", "solutions",
                            "--lessons", str(ROOT / "notebooks"), *out], cwd=ROOT)


#: Where reset-lessons keeps a learner's edited lesson before restoring it: inside notebooks/,
#: so it shows in JupyterLab's file browser, and git-ignored, so it never shows in `git status`.
MY_COPIES = "my-copies"


def git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def pick_lessons(names: list[str], lessons: list[str]) -> tuple[list[str], list[str]]:
    """(the lessons `names` point at, the names that match none), e.g.

    pick_lessons(["1", "03_on_the_wire"], ["01_one_tool_call.ipynb", "03_on_the_wire.ipynb"])
    -> (["01_one_tool_call.ipynb", "03_on_the_wire.ipynb"], [])
    """
    if not names:
        return list(lessons), []
    picked, unknown = [], []
    for name in names:
        stem = Path(name).name.removesuffix(".ipynb")
        found = [lesson for lesson in lessons if lesson.removesuffix(".ipynb") == stem
                 or stem.isdigit() and lesson.split("_", 1)[0].isdigit()
                 and int(lesson.split("_", 1)[0]) == int(stem)]
        picked += [lesson for lesson in found if lesson not in picked]
        if not found:
            unknown.append(name)
    return picked, unknown


def reset_lessons(args: list[str], *, root: Path = ROOT, stamp: str | None = None) -> int:
    """Put lessons back as committed (all, or those named: `01`, `01_one_tool_call`, ...).

    A lesson the learner changed is first copied to notebooks/my-copies/<lesson>-<time>.ipynb,
    so nothing is lost; an unchanged lesson is left alone, and so is every other file.
    Needs a git clone of the kit (nbgitpuller and Binder make one); no .venv/.
    """
    try:
        inside = git(root, "rev-parse", "--is-inside-work-tree")
    except FileNotFoundError:
        print("dev.py: reset-lessons needs git, which is not installed here. Download the lesson "
              "again from where you got the kit instead.")
        return 2
    if inside.returncode != 0:
        print(f"dev.py: {root} is not a git clone, so there is no committed copy to restore. "
              "Download the lesson again from where you got the kit instead.")
        return 2
    listed = git(root, "ls-tree", "--name-only", "HEAD", "notebooks/").stdout.split()
    lessons = sorted(Path(p).name for p in listed if p.endswith(".ipynb"))
    picked, unknown = pick_lessons(args, lessons)
    if unknown:
        print(f"dev.py: no lesson called {', '.join(unknown)}; the lessons are: {', '.join(lessons)}")
        return 2
    stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
    restored = 0
    for lesson in picked:
        path = root / "notebooks" / lesson
        if git(root, "diff", "--quiet", "HEAD", "--", f"notebooks/{lesson}").returncode == 0:
            continue  # as committed already
        if path.exists():
            backup = root / "notebooks" / MY_COPIES / f"{path.stem}-{stamp}.ipynb"
            backup.parent.mkdir(exist_ok=True)
            backup.write_bytes(path.read_bytes())
            print(f"dev.py: kept your version of {lesson} as notebooks/{MY_COPIES}/{backup.name}")
        git(root, "checkout", "HEAD", "--", f"notebooks/{lesson}")
        print(f"dev.py: restored {lesson} as committed")
        restored += 1
    if not restored:
        print(f"dev.py: {'every lesson is' if not args else 'the lessons named are'} as committed; "
              "nothing to restore")
    return 0


#: The markers of each platform a wheelhouse can be built for, by the start of its pip tag:
#: pip evaluates a requirement's `sys_platform`/`os_name` marker against the machine it runs on,
#: not `--platform` (https://github.com/pypa/pip/issues/6117), so dev.py picks the lock's lines
#: for the target itself (tests/test_wheelhouse.py checks the picks against the packages' metadata).
PLATFORM_MARKERS = {
    "win": {"sys_platform": "win32", "os_name": "nt", "platform_system": "Windows"},
    "macosx": {"sys_platform": "darwin", "os_name": "posix", "platform_system": "Darwin"},
    "manylinux": {"sys_platform": "linux", "os_name": "posix", "platform_system": "Linux"},
    "musllinux": {"sys_platform": "linux", "os_name": "posix", "platform_system": "Linux"},
}


def wheelhouse_command(args: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 dev.py wheelhouse",
        description="Download every wheel the lessons need (the `lab` extra, at the locked versions) "
                    "into one folder, for installing in a room with no network.")
    parser.add_argument("folder", nargs="?", default="wheelhouse", help="where (default: wheelhouse)")
    parser.add_argument("--platform", action="append", default=[], metavar="TAG",
                        help="a platform to download for, e.g. win_amd64, macosx_11_0_arm64, "
                             "macosx_10_12_x86_64, manylinux_2_28_x86_64 (repeat for several; "
                             "default: this machine)")
    parser.add_argument("--python-version", action="append", default=[], metavar="X.Y",
                        help="the learners' Python, e.g. 3.12 (repeat for several; default: "
                             "the Python of .venv/)")
    return parser.parse_args(args)


def wheelhouse(args: list[str], *, python: Path | None = None) -> int:
    """Fill a folder with the kit's wheel and every wheel of its `lab` extra, and INSTALL.txt.

    The versions and hashes are the lock's (requirements/lab.txt): with no --platform,
    `pip wheel` fetches (or builds) them for this machine; with --platform, `pip download
    --only-binary=:all:` fetches the lines that apply to each platform and Python named. The
    folder's requirements.txt is the lock's file plus the kit's wheel and its hash, so the
    install needs no index and takes exactly the locked versions.
    """
    options = wheelhouse_command(args)
    folder = Path(options.folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    python = python or venv_bin("python")
    pip = [str(python), "-m", "pip", "--disable-pip-version-check"]
    started = time.monotonic()
    if subprocess.call([*pip, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(folder), str(ROOT)]):
        sys.exit("dev.py: building the kit's own wheel failed (pip's message is above).")
    kit = folder / f"toolcall_lab-{project_version()}-py3-none-any.whl"
    locked = REQUIREMENTS / "lab.txt"
    if not options.platform:
        status = subprocess.call([*pip, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(folder),
                                  "-r", str(locked)])
        built_for = ["this machine"]
    else:
        status, built_for = 0, []
        versions = options.python_version or [".".join(map(str, venv_python_version() or
                                                          sys.version_info[:2]))]
        for platform in options.platform:
            for version in versions:
                picked = folder / f".requirements-{platform}-{version}.txt"
                picked.write_text(lines_for(python, locked.read_text(), platform, version))
                status = status or subprocess.call([
                    *pip, "download", "--quiet", "--no-deps", "--dest", str(folder), "--only-binary=:all:",
                    "--platform", platform, "--python-version", version, "--implementation", "cp",
                    "-r", str(picked)])
                picked.unlink()
                built_for.append(f"{platform}, Python {version}")
    if status:
        print("dev.py: pip could not fetch every wheel (its message is above); check the network, "
              "or name a platform and Python that every package publishes wheels for.")
        return status
    digest = hashlib.sha256(kit.read_bytes()).hexdigest()
    (folder / "requirements.txt").write_text(
        f"{locked.read_text()}toolcall-lab=={project_version()} \\\n    --hash=sha256:{digest}\n")
    wheels = sorted(folder.glob("*.whl"))
    megabytes = sum(w.stat().st_size for w in wheels) / 1e6
    (folder / "INSTALL.txt").write_text(install_text(folder.name, built_for), encoding="utf-8")
    print(f"dev.py: {len(wheels)} wheels, {megabytes:.0f} MB, in {folder} "
          f"({time.monotonic() - started:.0f} s). Install with no network:\n"
          f"  {wheelhouse_install(options.folder)}\n"
          f"(also in {options.folder}/INSTALL.txt)")
    return 0


def wheelhouse_install(folder: str) -> str:
    """The one install from a wheelhouse: no index, the locked versions, every hash checked."""
    return f"python -m pip install --no-index --find-links {folder} -r {folder}/requirements.txt"


#: Run in .venv/'s Python, which has `packaging` (JupyterLab's dependency): the lines of a
#: requirements file whose markers hold on the platform and Python given, markers dropped.
_PICK_LINES = """
import json, sys
from packaging.markers import Marker
text, env = sys.stdin.read(), json.loads(sys.argv[1])
kept, keep = [], False
for line in text.splitlines():
    if line and not line.startswith((" ", "#")):
        spec, _, marker = line.rstrip(" \\\\").partition(" ; ")
        keep = not marker or any(Marker(marker).evaluate({**env, "python_full_version": f})
                                 for f in (env["python_version"] + ".0", env["python_version"] + ".99"))
        line = spec + (" \\\\" if line.endswith("\\\\") else "")
    if keep and not line.startswith("#"):
        kept.append(line)
print("\\n".join(kept))
"""


def lines_for(python: Path, requirements: str, platform: str, version: str) -> str:
    """The lines of `requirements` that a `platform` (a pip tag) with Python `version` installs.

    Markers on the full Python version (`python_full_version < '3.11.5'`) hold for some patch
    release of X.Y, so both sides of such a fork are kept: a learner's pip takes the one it needs.
    """
    prefix = next((p for p in PLATFORM_MARKERS if platform.startswith(p)), None)
    if prefix is None:
        sys.exit(f"dev.py: no markers known for platform {platform!r}; the known starts are "
                 f"{', '.join(PLATFORM_MARKERS)} (add one to PLATFORM_MARKERS).")
    env = {**PLATFORM_MARKERS[prefix], "python_version": version, "implementation_name": "cpython",
           "platform_python_implementation": "CPython", "platform_machine": "",
           "platform_release": "", "platform_version": "", "extra": ""}
    return subprocess.run([str(python), "-c", _PICK_LINES, json.dumps(env)], input=requirements,
                          capture_output=True, text=True, check=True).stdout


def project_version() -> str:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def install_text(folder: str, built_for: list[str]) -> str:
    """INSTALL.txt: how a learner installs from the wheelhouse `folder`, with no network."""
    platforms = "\n".join(f"  {line}" for line in built_for)
    return f"""\
toolcall-lab {project_version()}: every wheel the lessons need, built for
{platforms}

Install with no network, from the folder that holds `{folder}/` and the kit's `notebooks/`:

  python3 -m venv .venv
  .venv/bin/{wheelhouse_install(folder)}
  .venv/bin/jupyter lab notebooks/

On Windows: `py -m venv .venv`, then `.venv\\Scripts\\python` and `.venv\\Scripts\\jupyter`.
`--no-index` keeps pip off the network; it finds everything in `{folder}/`, at the versions
the lessons were checked with (`{folder}/requirements.txt`, from the kit's lock), each wheel's
hash checked.
"""


def lock(args: list[str]) -> int:
    """Make uv.lock again from pyproject.toml, write its pip-readable copies, say what changed.

    `python3 dev.py lock` takes the newest versions pyproject.toml allows (`uv lock --upgrade`);
    `--keep` keeps every locked version that still fits (after an edit of pyproject.toml);
    anything else is handed to `uv lock` (e.g. `--upgrade-package anthropic`).
    """
    uv_exe = find_uv()
    if uv_exe is None:
        sys.exit("dev.py: lock needs uv, and pip could not install it (its message is above).")
    before = versions_in_lock(LOCK)
    options = [] if args == ["--keep"] else (args or ["--upgrade"])
    if subprocess.call([str(uv_exe), "lock", "--quiet", "--python", sys.executable, *options],
                       cwd=ROOT, env=uv_env()):
        return 1
    write_lock_copies(uv_exe)
    changes = changed_pins(before, versions_in_lock(LOCK))
    for name, (old, new) in changes.items():
        print(f"  {name:<28} {old or '(new)':<12} -> {new or '(gone)'}")
    print(f"dev.py: uv.lock holds {len(versions_in_lock(LOCK))} packages; {len(changes) or 'none'} changed. "
          "Next: `python3 dev.py test`, then commit uv.lock and the files listed in LOCK_COPIES.")
    return 0


def drift_command(args: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 dev.py drift",
        description="Build a throwaway environment with the newest versions pyproject.toml allows "
                    "(or the lowest, --lowest), run the quick tests and strict nbval of every lesson "
                    "in it, and print each package that differs from the lock with the first test or "
                    "cell it breaks. Exits 1 when anything fails.")
    parser.add_argument("--lowest", action="store_true",
                        help="the lowest versions pyproject.toml allows for the kit's own dependencies "
                             "(uv's lowest-direct resolution): are the lower bounds true?")
    parser.add_argument("--keep", action="store_true", help="keep the throwaway folder (its path is printed)")
    return parser.parse_args(args)


#: Tests that hold an environment to the lock: in a drift environment they fail by design.
LOCK_HOLDERS = ("tests/test_lock.py::test_this_environment_holds_the_locked_versions",
                "tests/test_doctor.py::test_this_environment_has_the_locked_versions")


def drift(args: list[str]) -> int:
    """See drift_command: the lock against what an install on another day would take."""
    options = drift_command(args)
    uv_exe = find_uv()
    if uv_exe is None:
        sys.exit("dev.py: drift needs uv, and pip could not install it (its message is above).")
    work = Path(tempfile.mkdtemp(prefix="toolcall-lab-drift-"))
    try:
        return _drift(uv_exe, work, lowest=options.lowest)
    finally:
        if options.keep:
            print(f"dev.py: the drift environments are kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _drift(uv_exe: Path, work: Path, *, lowest: bool) -> int:
    which = "lowest" if lowest else "newest"
    wanted = work / f"{which}.txt"
    resolved = subprocess.run(
        [str(uv_exe), "pip", "compile", "--quiet", "--no-header", "--extra", "dev", "--python",
         sys.executable, "--resolution", "lowest-direct" if lowest else "highest", "--output-file",
         str(wanted), "pyproject.toml"], cwd=ROOT, env=uv_env())
    if resolved.returncode:
        return 1
    locked = work / "locked.txt"
    locked.write_text(exported(uv_exe, "dev", hashes=False))
    versions = {name: version for name, version, _ in pins_of(wanted.read_text())}
    lock = versions_in_lock(LOCK)
    changed = {name: version for name, version in versions.items() if version not in lock.get(name, ())}
    print(f"dev.py drift: {len(changed)} of {len(versions)} packages at their {which} allowed versions "
          "differ from uv.lock; testing them ...", flush=True)
    python = _drift_env(uv_exe, work / "env", wanted)
    failures = _failures(python, work / "all.log")
    firsts: dict[str, str] = {}
    if failures and changed:
        for name, version in changed.items():
            print(f"dev.py drift: {name} {version} alone ...", flush=True)
            # the lock with this one package upgraded, in a fresh environment (from uv's cache)
            try:
                alone = _drift_env(uv_exe, work / "alone", locked, also=[f"{name}=={version}"])
            except subprocess.CalledProcessError:
                firsts[name] = "does not install beside the lock alone (it needs others upgraded)"
                continue
            broke = _failures(alone, work / f"{name}.log", only=failures)
            firsts[name] = broke[0] if broke else "passes alone"
    print(drift_table(changed, lock, firsts, which=which, failed=failures))
    return 1 if failures else 0


def _drift_env(uv_exe: Path, folder: Path, requirements: Path, *, also: list[str] = ()) -> Path:
    """A fresh environment (with pip) holding `requirements`, overridden by the pins in `also`,
    and the kit, editable, so the tests see this tree."""
    subprocess.run([str(uv_exe), "venv", "--quiet", "--seed", "--clear", "--python", sys.executable,
                    str(folder)], env=uv_env(), check=True)
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    override = folder / "override.txt"
    override.write_text("".join(f"{pin}\n" for pin in also))
    for what in (["-r", str(requirements), "--override", str(override)],
                 ["--no-deps", "--editable", str(ROOT)]):
        subprocess.run([str(uv_exe), "pip", "install", "--quiet", "--python", str(python), *what],
                       env=uv_env(), check=True)
    return python


def _failures(python: Path, log: Path, *, only: list[str] | None = None) -> list[str]:
    """The tests and lesson cells that fail under `python`: the quick tests and strict nbval of every
    lesson, or the tests `only` names (a lesson is run whole: its cells need the ones before)."""
    deselect = [f"--deselect={holder}" for holder in LOCK_HOLDERS]
    if only is None:
        runs = [["-m", "not slow", *deselect], ["notebooks"]]
    else:
        lessons = sorted({item.split("::")[0] for item in only if ".ipynb" in item})
        tests = [item for item in only if ".ipynb" not in item]
        runs = [run for run in ([*tests, *deselect] if tests else [], lessons) if run]
    found: list[str] = []
    with log.open("w") as out:
        for run in runs:
            subprocess.run([str(python), "-m", "pytest", "-q", "-rfE", *run],
                           cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            found.append(line.split(" ", 1)[1].split(" - ")[0].strip())
    return found


def drift_table(changed: dict[str, str], lock: dict[str, set[str]], firsts: dict[str, str], *,
                which: str, failed: list[str]) -> str:
    """One table: each package that differs from the lock, and the first test or cell it breaks."""
    rows = [("package", "locked", which, "first failing test or cell")]
    for name, version in sorted(changed.items()):
        first = firsts.get(name, "-" if failed else "passes")
        rows.append((name, ", ".join(sorted(lock.get(name, ()))) or "(not locked)", version, first))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}" for a, b, c, d in rows]
    if not changed:
        lines.append("(none: every package is at its locked version)")
    verdict = (f"{len(failed)} tests or cells fail at the {which} versions; first: {failed[0]}"
               if failed else f"every quick test and lesson cell passes at the {which} versions")
    return "\n".join([*lines, "", verdict])


#: The files made from uv.lock, each for an install path that cannot read the lock itself.
LOCK_COPIES = ("requirements/lab.txt", "requirements/dev.txt", "environment.yml",
               "src/toolcall_lab/data/locked.json")


def exported(uv_exe: Path, extra: str, *, hashes: bool = True) -> str:
    """The lock's packages for `extra` as a pip requirements file (without the kit itself)."""
    command = [str(uv_exe), "export", "--frozen", "--quiet", "--format", "requirements-txt",
               "--extra", extra, "--no-emit-project", *([] if hashes else ["--no-hashes"])]
    return subprocess.run(command, cwd=ROOT, env=uv_env(), check=True, capture_output=True,
                          text=True).stdout


def lock_copies(uv_exe: Path) -> dict[str, str]:
    """Each file of LOCK_COPIES (its path from the root) -> its text, made from uv.lock."""
    copies = {f"requirements/{extra}.txt":
              f"{REQUIREMENTS_HEADER.format(extra=extra)}{_drop_uv_header(exported(uv_exe, extra))}"
              for extra in ("lab", "dev")}
    lab = pins_of(exported(uv_exe, "lab", hashes=False))
    copies["environment.yml"] = environment_yml(lab)
    rows = ",\n".join(f"  {json.dumps(list(pin))}" for pin in lab)  # one package a line: readable diffs
    copies["src/toolcall_lab/data/locked.json"] = (
        f'{{"source": "uv.lock, written by `python3 dev.py lock`", "extra": "lab",\n'
        f' "columns": ["name", "version", "marker"],\n "packages": [\n{rows}\n ]}}\n')
    assert set(copies) == set(LOCK_COPIES)
    return copies


def write_lock_copies(uv_exe: Path) -> None:
    REQUIREMENTS.mkdir(exist_ok=True)
    for path, text in lock_copies(uv_exe).items():
        (ROOT / path).write_text(text, encoding="utf-8")


REQUIREMENTS_HEADER = """\
# The `{extra}` extra's packages at the versions in uv.lock, with their hashes, for pip:
#   python -m pip install -r requirements/{extra}.txt && python -m pip install --no-deps -e .
# Written by `python3 dev.py lock` from uv.lock; never edit it by hand.
"""


def _drop_uv_header(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(("# This file was autogenerated", "#    uv ")))


def pins_of(requirements: str) -> list[tuple[str, str, str]]:
    """(name, version, marker) of each `name==version ; marker` line of a requirements file."""
    pins = []
    for line in requirements.splitlines():
        if "==" in line and not line.startswith((" ", "#", "-")):
            spec, _, marker = line.rstrip(" \\").partition(" ; ")
            name, _, version = spec.partition("==")
            pins.append((name.strip(), version.strip(), marker.strip()))
    return pins


def environment_yml(pins: list[tuple[str, str, str]]) -> str:
    """environment.yml for conda and Binder: Python and pip from conda-forge, the lab extra's
    packages from PyPI at the locked versions (markers kept, so one file fits every platform)."""
    lines = "".join(f"      - {name}=={version}{f' ; {marker}' if marker else ''}\n"
                    for name, version, marker in pins)
    return f"""\
# conda / mamba environment for learners (also read by Binder and repo2docker): exactly what a
# learner needs, the `lab` extra at the versions in uv.lock (written by `python3 dev.py lock`;
# never edit it by hand). postBuild installs the kit itself.
#   conda env create -f environment.yml && conda activate toolcall-lab && pip install --no-deps -e .
name: toolcall-lab
channels:
  - conda-forge
dependencies:
  - python>=3.11,<3.15
  - pip
  - pip:
{lines}"""


def versions_in_lock(path: Path) -> dict[str, set[str]]:
    """name -> the versions a uv.lock holds of it (two where Pythons need different ones)."""
    import tomllib

    if not path.exists():
        return {}
    pins: dict[str, set[str]] = {}
    for package in tomllib.loads(path.read_text(encoding="utf-8")).get("package", []):
        if "version" in package and package.get("source", {}).get("editable") is None:
            pins.setdefault(package["name"], set()).add(package["version"])
    return pins


def changed_pins(before: dict[str, set[str]], after: dict[str, set[str]]) -> dict[str, tuple[str, str]]:
    """name -> (old, new) for each package whose versions differ; '' where there was none."""
    return {name: (", ".join(sorted(before.get(name, ()))), ", ".join(sorted(after.get(name, ()))))
            for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)}


COMMANDS = {"lab": lab, "test": test, "demo": demo, "lint": lint, "notebooks": notebooks,
            "solutions": solutions, "reset-lessons": reset_lessons, "wheelhouse": wheelhouse,
            "lock": lock, "drift": drift}
NO_ENV = {"reset-lessons", "lock", "drift"}  # commands that need git, not the .venv/


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__.strip())
        return 2
    if argv[0] not in NO_ENV:
        ensure_env(EXTRA_FOR[argv[0]])
    try:
        return COMMANDS[argv[0]](argv[1:])
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
