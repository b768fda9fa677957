"""A class on a real JupyterHub: several learners open lesson 1 by its nbgitpuller link at once.

    .venv/bin/python tests/browser/hub_class.py            # three learners
    .venv/bin/python tests/browser/hub_class.py --users 5

What a teacher's hub does, on this machine and offline, in a temporary folder:

1. a bare repository holding this repository's HEAD (so commit what you want tested) stands in
   for GitHub (a `file://` URL, no network);
2. JupyterHub (the `jupyterhub` package) starts on a free loopback port, behind the pure-Python
   `configurable-http-proxy`, with the `DummyAuthenticator` (one shared password) and the
   `SimpleLocalProcessSpawner` (each learner's home is a folder under the temporary folder;
   it is only for tests: it gives no isolation between learners);
3. each learner gets an API double of their own (an `ApiDouble` on a free loopback port,
   speaking a different API to each learner) and reaches it the way a class does, through
   `Spawner.environment`: `TOOLCALL_LAB_PROVIDER` and `TOOLCALL_LAB_BASE_URL`;
4. headless Chromium (Debian's, driven by Playwright as in check_lesson.py) logs every
   learner in through the hub's login form, each in a browser context of their own, then
   opens each learner's nbgitpuller link to lesson 1 (made by `toolcall_lab.teacher.classroom`) at
   the same time: the hub starts the learner's server, nbgitpuller clones the lesson, and
   JupyterLab opens it; then every cell runs (JupyterLab's `notebook:run-all-cells`);
5. it reports, per learner: the seconds from opening the link to the first rendered cell,
   the resident memory of the learner's server and kernel, the problems (cells that raised
   or did not run, JavaScript errors), which APIs that learner's double was asked, and
   `git status` of the learner's clone; and for the hub, its own and the proxy's memory;
6. it stops everything it started, and says if anything it started is still running.

JupyterLab's autosave is off in each learner's settings, so a change in a clone can only come
from a lesson writing into a tracked file.

Only the standard library is imported at the top (pytest collects this file for doctests);
Playwright and the kit are imported where they are used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["APIS_BY_LEARNER", "HUB_HARMLESS", "Hub", "Learner", "Session", "descendants", "jupyterhub",
           "main", "report_lines", "rss_mib", "run_class"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BIN = Path(sys.executable).parent  # the venv's jupyterhub, jupyterhub-singleuser, configurable-http-proxy
PASSWORD = "classroom-check"  # the DummyAuthenticator's one password, for a hub on 127.0.0.1 only
LESSON = "01_one_tool_call.ipynb"
#: The provider each learner's lesson talks to, in turn: a different API per learner, so a request
#: that reached another learner's double would show up there as the wrong API.
APIS_BY_LEARNER = ("anthropic", "openai", "openai-chat", "ollama")


#: Console errors seen only behind this check's proxy: substring -> why it is harmless. The pure-Python
#: configurable-http-proxy (0.4.0) does not pass the kernel websocket's subprotocol back, so Chromium
#: drops JupyterLab's first kernel connection, and JupyterLab reconnects with the legacy protocol (the
#: cells then run, which the check proves). Real hubs use the npm proxy (Zero to JupyterHub) or
#: Traefik (The Littlest JupyterHub), which pass it on.
HUB_HARMLESS = {"Sent non-empty 'Sec-WebSocket-Protocol' header but no response was received":
                "the Python proxy drops the websocket subprotocol; JupyterLab reconnects without it"}


def _load_check_lesson():
    """check_lesson.py, the single-browser check, whose launch flags and in-page scripts are reused."""
    spec = importlib.util.spec_from_file_location("browser_check_lesson", HERE / "check_lesson.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # subtle: dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


check_lesson = sys.modules.get("browser_check_lesson") or _load_check_lesson()


@dataclass
class Learner:
    """What one learner saw, and what their server cost."""

    name: str
    provider: str
    link: str = ""
    seconds_to_first_cell: float | None = None
    seconds_to_start_server: float | None = None  # what the hub's log says its server took
    #: seconds from opening the link to the first page of each step: "git-pull" (the server is up,
    #: nbgitpuller clones) and "lab" (JupyterLab loads, then opens the lesson)
    arrived: dict[str, float] = field(default_factory=dict)
    seconds_to_run_all: float | None = None
    server_mib: float | None = None  # resident memory of the learner's server and its kernel
    server_cpu_s: float | None = None  # CPU seconds their server and kernel used up to the measure
    problems: list[str] = field(default_factory=list)
    double_apis: list[str] = field(default_factory=list)  # the API of each request their double got
    double_port: int = 0
    clone_status: str | None = None  # `git status --porcelain` of their clone; "" is clean


@dataclass
class Hub:
    """A running JupyterHub: its public URL, its process, and every process seen below it."""

    url: str
    process: subprocess.Popen
    log: Path
    started: dict[int, str] = field(default_factory=dict)  # pid -> its start time (see _birth)

    def remember(self, pids: set[int]) -> None:
        self.started.update({pid: _birth(pid) for pid in pids if pid not in self.started})

    def still_running(self) -> list[int]:
        """The remembered processes still running: the same pid *and* the same start time, so a pid
        the system has since given to someone else's process is never counted, or stopped."""
        return sorted(pid for pid, birth in self.started.items() if birth and _birth(pid) == birth)


@dataclass
class Session:
    """One class: its learners, the hub's own memory, and what was left running at the end."""

    learners: list[Learner]
    hub_mib: float = 0.0  # the hub and the proxy together
    left_running: list[str] = field(default_factory=list)
    repo_status_before: str = ""
    repo_status_after: str = ""
    workdir: str = ""  # the temporary folder everything ran in (removed at the end)


def descendants(pid: int) -> set[int]:
    """Every live process below `pid`, read from /proc (Linux).

    >>> descendants(os.getpid()) >= set()
    True
    """
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def rss_mib(pids: Sequence[int] | set[int]) -> float:
    """The resident memory of `pids` together, in MiB (VmRSS from /proc; an ended process counts 0).

    >>> rss_mib([os.getpid()]) > 1
    True
    """
    total_kib = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kib += int(line.split()[1])  # "VmRSS:   123456 kB"
    return total_kib / 1024


def cpu_seconds(pids: Sequence[int] | set[int]) -> float:
    """The CPU time `pids` have used, user and system, in seconds (from /proc; an ended process 0).

    >>> cpu_seconds([os.getpid()]) > 0
    True
    """
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of proc(5))
    return ticks / os.sysconf("SC_CLK_TCK")


def _environ_of(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _birth(pid: int) -> str:
    """When `pid` started (clock ticks since boot, /proc/PID/stat field 22); "" if it is gone or a zombie.

    >>> _birth(os.getpid()) != ""
    True
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return ""
    return "" if fields[0] == "Z" else fields[19]  # fields[0] is field 3, the state


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, text=True, capture_output=True).stdout


def _learner_settings(home: Path) -> None:
    """JupyterLab settings in a learner's home: no autosave, every cell laid out, no news."""
    settings = home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab"
    for plugin, values in {
        # subtle: an autosave would write the opened lesson back into the clone; the check must
        # see only what a lesson writes, so the learner's editor saves nothing by itself.
        "docmanager-extension/plugin": {"autosave": False},
        "notebook-extension/tracker": {"windowingMode": "none"},  # see check_lesson.isolated_environment
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


HUB_CONFIG = """\
# Written by tests/browser/hub_class.py for one check; see classroom/ for a real hub's settings.
import json
c = get_config()  # noqa: F821
ENV = json.loads({learner_env!r})
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
# subtle: the Python proxy answers a plain request only once the target has sent all of it, and
# gives up after 20 s unless told otherwise; the spawn page's progress stream lasts as long as the
# server takes to start, so it gets ten minutes (milliseconds here).
c.ConfigurableHTTPProxy.command = [{proxy!r}, "--proxy-timeout", "600000"]
c.ConfigurableHTTPProxy.pid_file = {proxy_pid!r}
c.JupyterHub.db_url = "sqlite:///{workdir}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = {cookie!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.authenticator_class = "jupyterhub.auth.DummyAuthenticator"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = {args!r}
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
# What classroom/ sets for every learner, here one double per learner (a callable gets the spawner).
c.Spawner.environment = {{
    "TOOLCALL_LAB_PROVIDER": lambda spawner: ENV[spawner.user.name]["TOOLCALL_LAB_PROVIDER"],
    "TOOLCALL_LAB_BASE_URL": lambda spawner: ENV[spawner.user.name]["TOOLCALL_LAB_BASE_URL"],
}}
"""


@contextlib.contextmanager
def jupyterhub(workdir: Path, learner_env: dict[str, dict[str, str]], *,
               timeout: float = 120) -> Iterator[Hub]:
    """Run JupyterHub in `workdir` until the block ends; yields it as a `Hub`.

    On the way out it stops the hub (which stops the learners' servers and the proxy), then
    ends whatever it started that is still running: servers and kernels run in sessions of
    their own, so they are remembered while the hub runs, not looked up afterwards.
    """
    free_port = check_lesson.free_port
    port, hub_port, api_port = free_port(), free_port(), free_port()
    args = ["--LabApp.expose_app_in_browser=True"]
    if check_lesson.is_root():
        args.append("--allow-root")  # containers and CI machines run as root
    config = workdir / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        learner_env=json.dumps(learner_env), port=port, hub_port=hub_port, api_port=api_port,
        proxy=str(BIN / "configurable-http-proxy"), proxy_pid=str(workdir / "proxy.pid"),
        workdir=workdir, cookie=str(workdir / "cookie_secret"), password=PASSWORD,
        homes=str(workdir / "home"), singleuser=str(BIN / "jupyterhub-singleuser"), args=args))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    for name in ("TOOLCALL_LAB_PROVIDER", "TOOLCALL_LAB_MODEL", "TOOLCALL_LAB_BASE_URL",
                 "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST"):
        env.pop(name, None)  # the learners' choices come from Spawner.environment only
    log_path = workdir / "jupyterhub.log"
    with open(log_path, "w") as log:
        hub = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(config)], cwd=workdir, env=env,
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base_url = f"http://127.0.0.1:{port}"
    running = Hub(base_url, hub, log_path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/hub/api/", timeout=2):
                    break
            except OSError:
                if hub.poll() is not None or time.monotonic() > deadline:
                    why = "it exited" if hub.poll() is not None else f"no answer in {timeout:.0f} s"
                    tail = log_path.read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"JupyterHub did not start ({why}); its log ends:\n{tail}") from None
                time.sleep(0.3)
        yield running
    finally:
        running.remember(descendants(hub.pid))
        hub.terminate()  # cleanup_servers: it stops every learner's server, then the proxy
        try:
            hub.wait(timeout=60)
        except subprocess.TimeoutExpired:
            hub.kill()
            hub.wait()
        deadline = time.monotonic() + 20
        while running.still_running() and time.monotonic() < deadline:
            time.sleep(0.3)
        for pid in running.still_running():  # subtle: a server or kernel the hub failed to stop, in a
            with contextlib.suppress(ProcessLookupError, PermissionError):  # session of its own
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(hub.pid, signal.SIGKILL)


def learner_pids(hub_pid: int) -> dict[str, set[int]]:
    """user name -> the pids of their single-user server and everything below it (the kernel)."""
    found: dict[str, set[int]] = {}
    for pid in descendants(hub_pid):
        if "jupyterhub-singleuser" in _cmdline(pid):
            user = _environ_of(pid).get("JUPYTERHUB_USER")
            if user:
                found[user] = {pid} | descendants(pid)
    return found


async def _one_learner(browser, base_url: str, learner: Learner, *, run_timeout: float,
                       lesson_path: str) -> None:
    """Log one learner in, open their link, run every cell; fills `learner` in."""
    context = await browser.new_context(viewport=check_lesson.VIEWPORT)
    page = await context.new_page()
    page.on("pageerror", lambda error: learner.problems.append(f"uncaught JavaScript error: {error}"))
    page.on("console", lambda message: message.type == "error" and not _harmless(message.text)
            and learner.problems.append(f"console error: {check_lesson.first_line(message.text)}"))
    try:
        # What a learner does: open the link, log in on the page it leads to, and land in the lesson.
        started = time.monotonic()
        page.on("framenavigated", lambda frame: _arrive(learner, frame.url, time.monotonic() - started))
        await page.goto(learner.link)
        await page.fill("input[name=username]", learner.name)
        await page.fill("input[name=password]", PASSWORD)
        await page.click("[type=submit]")
        # the hub spawns the server, nbgitpuller clones the lesson, then JupyterLab opens it
        await page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=run_timeout * 1000)
        learner.seconds_to_first_cell = time.monotonic() - started
        started = time.monotonic()
        state = await page.evaluate(check_lesson.RUN_ALL_JS,
                                    {"path": lesson_path, "timeoutMs": run_timeout * 1000})
        learner.seconds_to_run_all = time.monotonic() - started
        learner.problems += check_lesson.cell_problems(state)
    finally:
        await context.close()


def _arrive(learner: Learner, url: str, seconds: float) -> None:
    """Note when the learner's tab first reached nbgitpuller's page, then JupyterLab."""
    path = urllib.parse.urlsplit(url).path
    for step, marker in (("git-pull", "/git-pull"), ("lab", "/lab")):
        if f"/user/{learner.name}{marker}" in path:
            learner.arrived.setdefault(step, seconds)


def _harmless(message: str) -> bool:
    return check_lesson.harmless(message) or any(known in message for known in HUB_HARMLESS)


async def _open_all(base_url: str, learners: list[Learner], *, run_timeout: float,
                    lesson_path: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(check_lesson.CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])  # as check_lesson.check
        try:
            outcomes = await asyncio.gather(
                *(_one_learner(browser, base_url, learner, run_timeout=run_timeout, lesson_path=lesson_path)
                  for learner in learners), return_exceptions=True)
        finally:
            await browser.close()
    for learner, outcome in zip(learners, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            learner.problems.append(f"the browser stopped: {type(outcome).__name__}: "
                                    f"{check_lesson.first_line(str(outcome))}")


def run_class(users: int = 3, *, run_timeout: float = 300, keep: Path | None = None,
              on_start: Callable[[Path], object] = lambda workdir: None) -> Session:
    """Run a class of `users` learners on lesson 1 through a real JupyterHub; see the module docstring.

    `keep`: a folder to copy the hub's log and the learners' homes into, for a human to read.
    `on_start` is called with the temporary folder everything runs in, before anything starts.
    """
    from toolcall_lab import ApiDouble
    from toolcall_lab.examples import weather_policy
    from toolcall_lab.teacher.classroom import nbgitpuller_link

    names = [f"learner{number}" for number in range(1, users + 1)]
    learners = [Learner(name, APIS_BY_LEARNER[i % len(APIS_BY_LEARNER)]) for i, name in enumerate(names)]
    session = Session(learners, repo_status_before=_git("status", "--porcelain", cwd=ROOT))
    api_of = _api_of_provider()
    doubles = {learner.name: ApiDouble(weather_policy).start() for learner in learners}
    try:
        with tempfile.TemporaryDirectory(prefix="toolcall-lab-hub-") as scratch:
            workdir = Path(scratch)
            session.workdir = str(workdir)
            on_start(workdir)
            repo = workdir / "toolcall-lab"  # nbgitpuller names the learner's folder after the URL's end
            branch = "main"
            # This repository's HEAD (a branch or a detached commit, as CI checks out) becomes the
            # class's `main`. Pushing only reads this repository; nothing in it changes.
            _git("init", "--quiet", "--bare", str(repo), cwd=workdir)
            _git("symbolic-ref", "HEAD", f"refs/heads/{branch}", cwd=repo)
            _git("push", "--quiet", str(repo), f"HEAD:refs/heads/{branch}", cwd=ROOT)
            for learner in learners:
                _learner_settings(workdir / "home" / learner.name)
                learner.double_port = doubles[learner.name].port
            learner_env = {learner.name: {
                "TOOLCALL_LAB_PROVIDER": learner.provider,
                "TOOLCALL_LAB_BASE_URL": doubles[learner.name].base_url(api_of[learner.provider])}
                for learner in learners}
            with jupyterhub(workdir, learner_env) as hub:
                for learner in learners:
                    learner.link = nbgitpuller_link(hub.url, repo.as_uri(), branch=branch, lesson=LESSON)
                asyncio.run(_open_all(hub.url, learners, run_timeout=run_timeout,
                                      lesson_path=f"{repo.name}/notebooks/{LESSON}"))
                _measure(hub, session)
            for learner in learners:
                clone = workdir / "home" / learner.name / repo.name
                learner.clone_status = (_git("status", "--porcelain", "--untracked-files=all", cwd=clone)
                                        if (clone / ".git").exists() else None)
            if keep is not None:
                shutil.copytree(workdir, keep, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.git"))
        session.left_running = [f"{pid} {_cmdline(pid)[:80]}" for pid in hub.still_running()]
    finally:
        for learner in learners:
            double = doubles[learner.name]
            learner.double_apis = [request.api for request in double.requests]
            double.stop()
    session.repo_status_after = _git("status", "--porcelain", cwd=ROOT)
    return session


def _measure(hub: Hub, session: Session) -> None:
    """Each learner's server memory and start time, and the memory of the hub and its proxy."""
    servers = learner_pids(hub.process.pid)
    in_servers = set().union(*servers.values())
    hub.remember(in_servers)
    for learner in session.learners:
        learner.server_mib = rss_mib(servers.get(learner.name, set())) or None
        learner.server_cpu_s = cpu_seconds(servers.get(learner.name, set())) or None
    # the hub's own log line, e.g. "User learner1 took 32.550 seconds to start"
    took = dict(re.findall(r"User (\S+) took ([\d.]+) seconds to start", hub.log.read_text(errors="replace")))
    for learner in session.learners:
        learner.seconds_to_start_server = float(took[learner.name]) if learner.name in took else None
    helpers = descendants(hub.process.pid) - in_servers  # the proxy
    session.hub_mib = rss_mib({hub.process.pid} | helpers)


def _api_of_provider() -> dict[str, str]:
    """provider name -> the API its double URL is for (one ApiSpec each, in toolcall_lab.wire)."""
    from toolcall_lab.wire import API_SPECS

    return {spec.provider: spec.name for spec in API_SPECS.values()}


def report_lines(session: Session) -> list[str]:
    """What `main` prints: two lines per learner, then the hub's memory.

    >>> learner = Learner("learner1", "anthropic", seconds_to_first_cell=9.5, seconds_to_start_server=6.0,
    ...                   seconds_to_run_all=20.0, server_mib=180.0, server_cpu_s=12.0,
    ...                   double_apis=["anthropic"], clone_status="")
    >>> print("\\n".join(report_lines(Session([learner], hub_mib=90.0))))
    learner1: link -> first cell 9.5 s (server start 6.0 s), run all 20.0 s, server+kernel 180 MiB, 12.0 CPU s
    learner1: its double answered 1 anthropic request(s); its clone is clean
    hub+proxy: 90 MiB for 1 learner(s), 90 MiB per learner; servers 180 MiB per learner on average
    """
    lines = []
    for learner in session.learners:
        apis = "/".join(sorted(set(learner.double_apis))) or "no"
        clone = "clean" if learner.clone_status == "" else f"changed: {learner.clone_status!r}"
        steps = "".join(f", at {step} {_s(seconds)}" for step, seconds in learner.arrived.items())
        lines += [f"{learner.name}: link -> first cell {_s(learner.seconds_to_first_cell)} (server start "
                  f"{_s(learner.seconds_to_start_server)}{steps}), run all {_s(learner.seconds_to_run_all)}, "
                  f"server+kernel {_mib(learner.server_mib)}, {_cpu(learner.server_cpu_s)}",
                  f"{learner.name}: its double answered {len(learner.double_apis)} {apis} request(s); "
                  f"its clone is {clone}"]
        lines += [f"{learner.name}: FAIL {problem}" for problem in learner.problems]
    served = [learner.server_mib for learner in session.learners if learner.server_mib]
    count = len(session.learners)
    lines.append(f"hub+proxy: {_mib(session.hub_mib)} for {count} learner(s), "
                 f"{_mib(session.hub_mib / count)} per learner; servers "
                 f"{_mib(sum(served) / len(served) if served else None)} per learner on average")
    lines += [f"still running: {line}" for line in session.left_running]
    return lines


def _s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.1f} s"


def _cpu(seconds: float | None) -> str:
    return "- CPU s" if seconds is None else f"{seconds:.1f} CPU s"


def _mib(mib: float | None) -> str:
    return "-" if mib is None else f"{mib:.0f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=3, help="how many learners (default 3)")
    parser.add_argument("--keep", type=Path, help="copy the hub's log and the learners' homes here")
    parser.add_argument("--json", type=Path, help="also write what it saw to this file, as JSON")
    args = parser.parse_args(argv)
    if not check_lesson.CHROMIUM.exists():
        print(f"hub_class: {check_lesson.CHROMIUM} is missing; "
              "install Debian's package: apt-get install chromium")
        return 2
    # subtle: a SIGTERM (a test's timeout, CI cancelling a job) becomes SystemExit, so the
    # `finally` blocks still stop the hub, the learners' servers, their kernels and Chromium.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    session = run_class(args.users, keep=args.keep,
                        on_start=lambda workdir: print(f"hub_class: working in {workdir}", flush=True))
    for line in report_lines(session):
        print(f"hub_class: {line}")
    if args.json:
        args.json.write_text(json.dumps(dataclasses.asdict(session), indent=1))
    failed = any(learner.problems for learner in session.learners) or session.left_running
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
