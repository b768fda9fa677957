"""Shared test helpers: the loopback API double, and real providers pointed at it; and the
suite's rules about time: one Hypothesis profile (searching a tenth as much under
`dev.py test --quick`), the `slow` marker kept honest, the order tests run in, what lives all
session frozen out of the garbage collector's way, and the background jobs of tests/background.py."""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import os
import shlex
import subprocess
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from background import THREAD_PREFIX, Job, stop_kernels
from toolcall_lab.teacher.lesson_usage import CLEARED
from toolcall_lab.wire import API_SPECS

# The one Hypothesis profile of the suite: no deadline (two cores shared by several runs make
# any example's time noise) and no too-slow health check. A test may set only its own number of
# examples, `@settings(max_examples=examples(N))`, which inherits the rest from here
# (tests/test_suite_rules.py holds every test file to that).
#
# `python3 dev.py test --quick` searches less: it sets TOOLCALL_LAB_HYPOTHESIS=quick, and every
# Hypothesis test then runs a tenth of its examples (at least 10; 10 for a test that sets no
# number, Hypothesis' default being 100). Without it (`python3 dev.py test`, CI, a plain
# `pytest`) every test runs exactly the examples it asks for.
HYPOTHESIS_RUN = "TOOLCALL_LAB_HYPOTHESIS"
QUICK_SEARCH = os.environ.get(HYPOTHESIS_RUN) == "quick"
settings.register_profile("toolcall-lab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("toolcall-lab-quick", parent=settings.get_profile("toolcall-lab"),
                          max_examples=10)
settings.load_profile("toolcall-lab-quick" if QUICK_SEARCH else "toolcall-lab")


def examples(wanted: int) -> int:
    """A test's number of Hypothesis examples: `wanted` in the full run; in `dev.py test --quick`
    a tenth of it, at least 10 (e.g. 800 -> 80, 60 -> 10)."""
    return max(10, wanted // 10) if QUICK_SEARCH else wanted

# What a learner's fresh shell has: no provider chosen, no key, no tape. The tests and every
# kernel they start (nbval's included) see none of the variables a developer's shell may set,
# so the suite passes or fails the same on any machine.
for _name in CLEARED:
    os.environ.pop(_name, None)

#: provider name -> the API its codec speaks: the provider that speaks each API by default
REAL_PROVIDERS = {spec.provider: spec.name for spec in API_SPECS.values()}
#: What a test puts in the environment or passes as a key: it must never show up anywhere.
SECRET = "sk-test-SECRET-123"


@pytest.fixture(autouse=True)
def strict_checks():
    """In tests a wrong answer raises `WrongAnswer` (in a notebook it prints its line and
    returns): the wrong-answer table asserts each rejection with `pytest.raises`."""
    from toolcall_lab.selfcheck import strict

    with strict():
        yield


@pytest.fixture
def make_double():
    """Start API doubles on loopback (`make_double(policy)`); all are stopped when the test ends.

    A test that only points an SDK at the double needs no socket: `real_provider` reaches
    any double through its transport, and a file whose doubles never serve says so by taking
    `make_in_process_double` for its `make_double` (as tests/test_provider_stream.py does)."""
    from toolcall_lab.double import ApiDouble

    with contextlib.ExitStack() as stack:
        yield lambda policy=None, **kw: stack.enter_context(ApiDouble(policy, **kw))


@pytest.fixture
def make_in_process_double():
    """Make API doubles that never serve (`make_in_process_double(policy)`): an SDK reaches them
    only through their transport, in-process (`real_provider`, `get_provider(..., double=)`)."""
    from toolcall_lab.double import ApiDouble

    return lambda policy=None, **kw: ApiDouble(policy, **kw)


@pytest.fixture
def double(make_double):
    """An API double playing the lessons' weather model."""
    return make_double()


def real_provider(name: str, double, *, socket: bool = False, **options):
    """A real provider (its SDK, its codec) talking to the API double: in-process, through the
    double's transport (`get_provider(..., double=double)`: no socket, a served double's
    included), or with `socket=True` at the served double's `base_url`, as a learner's is."""
    from toolcall_lab import get_provider

    if name == "ollama":
        pytest.importorskip("ollama")
    options.setdefault("api_key", SECRET)
    if socket:
        return get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), **options)
    return get_provider(name, double=double, **options)


# -- slow tests, and the order tests run in ----------------------------------------------------
# `python3 dev.py test --quick` runs `-m "not slow"`. A test is slow when it starts a process:
# a whole command, a kernel (every nbval cell), a browser, a hub, mypy, ruff, pip or another
# Python. The marker is kept honest here: each process a test under tests/ starts is written
# down (by the one `subprocess.Popen` every such start goes through), and a test not marked
# slow that started one fails, naming the command.
#: What a quick test may still start, each answering in milliseconds: git (a repository in
#: tmp_path), and the probes the standard library runs once for a library and then caches
#: (`platform` runs `uname -p` for an SDK's headers, `ctypes.util.find_library` `ldconfig -p`),
#: which would otherwise fall on whichever test happens to come first.
QUICK_COMMANDS = frozenset({"git", "uname", "ldconfig"})
_started: list[str] = []  # commands started since the last test ended, its fixtures' included
_popen_init = subprocess.Popen.__init__


def _noting_popen_init(self, args, *rest, **options):
    # subtle: a background job's thread (tests/background.py) starts its commands while some
    # other test runs; they belong to no test.
    if not threading.current_thread().name.startswith(THREAD_PREFIX):
        _started.append(os.fsdecode(args) if isinstance(args, (str, bytes)) else
                        shlex.join(os.fsdecode(arg) for arg in args))
    _popen_init(self, args, *rest, **options)


subprocess.Popen.__init__ = _noting_popen_init  # type: ignore[method-assign]


def command_name(command: str) -> str:
    """The program a command line starts, e.g. `command_name("/usr/bin/git -C x status") == "git"`."""
    words = command.split(maxsplit=1) or [""]
    return Path(words[0]).name


@pytest.fixture(autouse=True)
def quick_tests_start_no_process(request):
    """Fail a test not marked slow that started a process (see above)."""
    yield
    started = [command for command in _started if command_name(command) not in QUICK_COMMANDS]
    _started.clear()
    if started and request.node.get_closest_marker("slow") is None:
        pytest.fail(f"this test started `{started[0][:300]}`: mark it @pytest.mark.slow, so that "
                    "`python3 dev.py test --quick` skips it", pytrace=False)


def is_notebook_cell(item: pytest.Item) -> bool:
    """Whether `item` is one cell of a lesson under strict nbval."""
    return type(item).__module__.startswith("nbval")


def pytest_collection_modifyitems(config, items):
    """Mark every nbval cell slow (each notebook runs in a kernel of its own), then run the quick
    tests first, the lessons under nbval next, and the other slow tests last.

    Quick tests first: a mistake shows within a minute or two, and the in-process tests (one
    core) run beside the background jobs (the other core). The lessons before test_swap.py, which
    takes the scripted run of each lesson from nbval's (`nbval_runs`). The tests that wait for a
    background job come last, so the foreground does its own slow work while the jobs finish
    (one waiting early left a core idle for minutes). Within each group the collected order stays.
    """
    for item in items:
        if is_notebook_cell(item):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: 0 if item.get_closest_marker("slow") is None else
               1 if is_notebook_cell(item) else 3 if item.get_closest_marker("background") else 2)


# -- garbage collection ------------------------------------------------------------------------
# Collecting imports every test module and with them the SDKs, matplotlib and Hypothesis, and
# the tests import more as they go: a million objects and more that live until the session
# ends. Python's cycle collector walks all of them again at each full collection, for nothing:
# about 9 s of a quick run, a tenth of it. So collection runs with a roomy first generation, and
# what is alive once it ends, and again as each test file starts (its module's fixtures, and the
# last file's garbage, gone), is frozen: moved to the permanent generation, which the collector
# never walks (https://docs.python.org/3/library/gc.html: gc.freeze() moves every tracked object
# "to a permanent generation and ignore them in all the future collections"). The tests' own
# garbage is collected as before, at the usual thresholds.
NORMAL_GC_THRESHOLD = gc.get_threshold()
gc.set_threshold(100_000, *NORMAL_GC_THRESHOLD[1:])
_frozen_for: list[Path] = []  # the test file whose start last froze what was alive


def freeze_what_lives() -> None:
    gc.collect()  # garbage is freed, not frozen
    gc.freeze()
    gc.set_threshold(*NORMAL_GC_THRESHOLD)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the first test of each file, freeze what is alive (above)."""
    if _frozen_for[-1:] != [item.path]:
        _frozen_for[:] = [item.path]
        freeze_what_lives()


# -- background jobs (tests/background.py) -------------------------------------------------------
_jobs: list[Job] = []


def pytest_collection_finish(session):
    """Freeze what collection built (above), then start the background job of each selected test
    (marker `background(job)`)."""
    freeze_what_lives()
    _started.clear()  # what importing the test modules started is no test's (matplotlib's probes)
    if session.config.option.collectonly:
        return
    for item in session.items:
        for mark in item.iter_markers("background"):
            for job in mark.args:
                if job not in _jobs:
                    _jobs.append(job)
                job.items.append(item)
    for job in _jobs:
        job.start()


def pytest_sessionfinish(session):
    stop_kernels()
    for job in _jobs:
        job.stop()


_session_started = time.monotonic()


def pytest_terminal_summary(terminalreporter):
    """One line saying when each background job ran, in seconds from the session's start: what a
    maintainer reads to see which of them, if any, the suite's last tests waited for."""
    spans = [f"{job.name} {job.started_at - _session_started:.0f}-"
             + (f"{job.ended_at - _session_started:.0f} s" if job.ended_at else "(stopped)")
             for job in _jobs if job.started_at is not None]
    if spans:
        terminalreporter.write_line("background jobs: " + ", ".join(spans)
                                    + f"; the session took {time.monotonic() - _session_started:.0f} s")


# -- what strict nbval saw of each lesson, for test_swap.py ------------------------------------
class NbvalRecord:
    """What strict nbval saw of each lesson in this session, for test_swap.py's scripted runs.

    A registered plugin, not conftest hooks: pytest calls a conftest's report hooks only for the
    tests below its folder, and the lessons are in notebooks/.
    """

    def __init__(self) -> None:
        self.selected: dict[str, int] = {}  # notebook file name -> its cells nbval was to run
        self.ran: dict[str, int] = {}  # -> the cells it ran
        self.failures: dict[str, list[str]] = {}  # -> the first line of each failure

    def pytest_collection_finish(self, session):
        for item in session.items:
            if is_notebook_cell(item):
                self.selected[item.path.name] = self.selected.get(item.path.name, 0) + 1

    def pytest_runtest_logreport(self, report):
        path, _, cell = report.nodeid.partition("::")
        if not path.endswith(".ipynb"):
            return
        name = Path(path).name
        if report.when == "call" and not report.skipped:
            self.ran[name] = self.ran.get(name, 0) + 1
        if report.failed:
            line = next((text for text in report.longreprtext.splitlines() if text.strip()), "")
            self.failures.setdefault(name, []).append(f"{cell} ({report.when}): {line.strip()[:300]}")

    def verdict(self, notebook: Path) -> list[str] | None:
        """The failures strict nbval found in `notebook` ([] when it passed), or None when this
        session did not run every code cell of it under nbval (then test_swap.py runs it itself)."""
        import json

        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        code = sum(cell["cell_type"] == "code" for cell in cells)
        name = notebook.name
        if not code or self.selected.get(name) != code or self.ran.get(name, 0) < code:
            return None
        return list(self.failures.get(name, []))


NBVAL = NbvalRecord()


def pytest_configure(config):
    config.pluginmanager.register(NBVAL, "toolcall-lab-nbval-record")
    if config.pluginmanager.has_plugin("nbval"):
        nbval_kernels_over_ipc()


def nbval_kernels_over_ipc() -> None:
    """Start nbval's kernels as the kit starts every other (`solutions.kernel_config`): over IPC.

    subtle: over TCP, jupyter_client picks a kernel's five ports by binding each to port 0 and
    letting it go, and the kernel binds them a moment later. Meanwhile the suite's doubles and
    the SDKs' connections to them take loopback ports from the same range, and a kernel that
    finds one of its ports taken dies at start: nbval then fails every cell of that lesson
    with "Kernel died before replying to kernel_info" (seen in two fresh-clone runs, lessons 00
    and 22, once the background jobs overlapped more). IPC sockets are files; no port is chosen.
    """
    import nbval.kernel

    from toolcall_lab.teacher.solutions import kernel_config

    class IpcKernelManager(nbval.kernel.KernelManager):
        def __init__(self, **kwargs):
            super().__init__(config=kernel_config(), **kwargs)

    nbval.kernel.KernelManager = IpcKernelManager


@functools.cache
def _parsed(path: Path, changed: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def parsed(path: Path) -> ast.Module:
    """The Python file at `path` parsed once per session, again only if it changed. Several tests
    read every module of the package (six of them parsed all of src/ again, about 0.5 s each).
    The tree is shared: read it, never change it."""
    return _parsed(path.resolve(), path.stat().st_mtime_ns)


def post_to(port: int, api: str, body: object, *, timeout: float = 60) -> tuple[int, dict[str, str], bytes]:
    """POST `body` as JSON to `api`'s endpoint on a double at `port`, on a fresh connection, and
    read the answer to its end: (status, headers with lower-case names, the raw body)."""
    import http.client
    import json

    from toolcall_lab.wire import ENDPOINTS

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", ENDPOINTS[api], json.dumps(body), {"content-type": "application/json"})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def json_paths(value, at=()):
    """Every path into a JSON document (a key or a list index at each step), the root `()` first."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_paths(item, (*at, index))


def same_turn(got, expected) -> bool:
    """Two turns equal as replies: blocks, stop reason, usage, model (a Message's own id and
    creation time differ by design)."""
    return (got.message.blocks, got.stop_reason, got.usage, got.model) == (
        expected.message.blocks, expected.stop_reason, expected.usage, expected.model)
