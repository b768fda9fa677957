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

Each but reset-lessons makes sure `.venv/` exists and holds this project installed with the extra
it needs, reinstalling when `pyproject.toml` changes: `lab` (what the lessons need) for lab, demo,
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
#: JupyterLab, the SDKs: measured 504 MB, 121 packages), a contributor's take `dev`, which adds
#: the test and lint tools and a JupyterHub (908 MB, 156 packages).
EXTRA_FOR = {"lab": "lab", "demo": "lab", "notebooks": "lab", "solutions": "lab", "wheelhouse": "lab",
             "test": "dev", "lint": "dev"}
#: Which extras an installed extra already covers (`dev` includes `lab`).
COVERS = {"lab": {"lab"}, "dev": {"lab", "dev"}}


def wanted_stamp() -> str:
    """What the environment was built from: the project's metadata and this Python."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    return f"{digest} python{sys.version_info.major}.{sys.version_info.minor}"


def installed_extra() -> str | None:
    """The extra .venv/ holds (`lab` or `dev`) if it was built from this pyproject and Python.

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
    if not venv_bin("python").exists() or venv_python_version() != sys.version_info[:2]:
        print(f"dev.py: creating {VENV.name}/ with Python {sys.version.split()[0]} ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    # measured on a 2-core machine with pip's cache empty: `lab` 138 s, `dev` 469 s
    print(f"dev.py: installing toolcall-lab[{extra}] into .venv/ "
          f"(a few minutes the first time) ...", flush=True)
    pip = [str(venv_bin("python")), "-m", "pip", "--disable-pip-version-check"]
    installed = subprocess.run([*pip, "install", "--quiet", "--editable", f"{ROOT}[{extra}]"])
    if installed.returncode != 0:
        sys.exit("dev.py: installing the project into .venv/ failed (pip's message is above). "
                 "Check that this machine can reach the Python package index, then run the "
                 "same command again; nothing else needs cleaning up.")
    write_lab_overrides()
    STAMP.write_text(f"{wanted_stamp()} extra={extra}\n")


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
    CI runs everything."""
    if "--quick" in args:
        args = [a for a in args if a != "--quick"] + ["-m", "not slow"]
    return subprocess.call([str(venv_bin("python")), "-m", "pytest", *args], cwd=ROOT)


def demo(args: list[str]) -> int:
    return subprocess.call([str(venv_bin("python")), "-m", "toolcall_lab", "demo", *args], cwd=ROOT)


LINTED = ["src", "tests", "benchmarks", "dev.py"]


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

    pick_lessons(["1", "02_on_the_wire"], ["01_one_tool_call.ipynb", "02_on_the_wire.ipynb"])
    -> (["01_one_tool_call.ipynb", "02_on_the_wire.ipynb"], [])
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


#: Dependencies pip cannot see when it downloads for another platform: it evaluates
#: `sys_platform`/`os_name` markers against the machine it runs on, not `--platform`
#: (https://github.com/pypa/pip/issues/6117), so a Windows or macOS wheelhouse built on Linux
#: would miss them. tests/test_wheelhouse.py derives this table from the installed metadata.
PLATFORM_ONLY = {"win": ["colorama", "pywin32", "pywinpty"], "macosx": ["appnope"]}  # pywin32: mcp's


def wheelhouse_command(args: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 dev.py wheelhouse",
        description="Download every wheel the lessons need (the `lab` extra) into one folder, "
                    "for installing in a room with no network.")
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

    With no --platform, `pip wheel` builds for this machine (a package with no wheel is built
    here); with --platform, `pip download --only-binary=:all:` fetches ready-made wheels for
    each platform and Python named. The folder then installs with no index at all.
    """
    options = wheelhouse_command(args)
    folder = Path(options.folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    pip = [str(python or venv_bin("python")), "-m", "pip", "--disable-pip-version-check"]
    started = time.monotonic()
    # the kit itself, as a wheel: its name stays the same in every wheelhouse
    if subprocess.call([*pip, "wheel", "--quiet", "--no-deps", "--wheel-dir", str(folder), str(ROOT)]):
        sys.exit("dev.py: building the kit's own wheel failed (pip's message is above).")
    # subtle: the wheel's own path, not `toolcall-lab[lab]`, so no same-named project on an index
    # could be taken instead of this one
    kit = f"{folder / f'toolcall_lab-{project_version()}-py3-none-any.whl'}[lab]"
    find = ["--find-links", str(folder)]
    if not options.platform:
        status = subprocess.call([*pip, "wheel", "--quiet", "--wheel-dir", str(folder), *find, kit])
        built_for = ["this machine"]
    else:
        status, built_for = 0, []
        versions = options.python_version or [".".join(map(str, venv_python_version() or
                                                          sys.version_info[:2]))]
        for platform in options.platform:
            extra = [name for prefix, names in PLATFORM_ONLY.items() if platform.startswith(prefix)
                     for name in names]
            for version in versions:
                status = status or subprocess.call([
                    *pip, "download", "--quiet", "--dest", str(folder), *find, "--only-binary=:all:",
                    "--platform", platform, "--python-version", version, "--implementation", "cp",
                    kit, *extra])
                built_for.append(f"{platform}, Python {version}")
    if status:
        print("dev.py: pip could not fetch every wheel (its message is above); check the network, "
              "or name a platform and Python that every package publishes wheels for.")
        return status
    wheels = sorted(folder.glob("*.whl"))
    megabytes = sum(w.stat().st_size for w in wheels) / 1e6
    (folder / "INSTALL.txt").write_text(install_text(folder.name, built_for), encoding="utf-8")
    print(f"dev.py: {len(wheels)} wheels, {megabytes:.0f} MB, in {folder} "
          f"({time.monotonic() - started:.0f} s). Install with no network:\n"
          f"  python -m pip install --no-index --find-links {options.folder} \"toolcall-lab[lab]\"\n"
          f"(also in {options.folder}/INSTALL.txt)")
    return 0


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
  .venv/bin/python -m pip install --no-index --find-links {folder} "toolcall-lab[lab]"
  .venv/bin/jupyter lab notebooks/

On Windows: `py -m venv .venv`, then `.venv\\Scripts\\python` and `.venv\\Scripts\\jupyter`.
`--no-index` keeps pip off the network; it finds everything in `{folder}/`.
"""


COMMANDS = {"lab": lab, "test": test, "demo": demo, "lint": lint, "notebooks": notebooks,
            "solutions": solutions, "reset-lessons": reset_lessons, "wheelhouse": wheelhouse}
NO_ENV = {"reset-lessons"}  # commands that need git, not the .venv/


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
