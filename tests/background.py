"""Long work the suite starts as soon as collection ends, for the tests that wait for it.

mypy over the package (about 3 minutes with an empty cache), the offline wheelhouse (build it,
then install the kit from it into a fresh environment: 1-7 minutes) and the lessons' runs in
fresh kernels (the swap matrix, every answer wrong: 4-13 s a run, 55 runs) need nothing but the
checkout. Started before the first test, they keep the second core busy while the in-process
tests use one, and fill the gaps the browser and hub checks leave; the test that needs one
then only waits for its result. A test names its job with the marker, e.g.

    MYPY = Job("mypy", lambda job: job.run(Step("mypy", (sys.executable, "-m", "mypy"), cwd=ROOT)))

    @pytest.mark.background(MYPY)
    def test_mypy_strict_finds_nothing():
        done = MYPY.value()                # what the work returned: a subprocess.CompletedProcess
        assert done.returncode == 0, done.stdout

and `tests/conftest.py` starts the jobs of the selected tests only (so `-k`, `--quick` or one
file start nothing they do not run) and stops whatever still runs when the session ends.

A job's work runs in a thread of its own. A command (`Job.run`) runs in a process of its own
with the environment and folder its `Step` names, so nothing a running test changes (its
monkeypatched `os.environ`, `subprocess.run` or working folder) reaches it. Kernels run in the
one shared pool `kernels()`, at most one per core at a time whoever asks, each with the
environment it is given.

Left out: jobs that need a test's fixtures (a job sees only the checkout and its own folder).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The real Popen, taken before any test could monkeypatch the module's name.
_Popen = subprocess.Popen
#: The prefix of every thread here: conftest's guard on unmarked tests ignores these threads.
THREAD_PREFIX = "background-"
#: Kernels at once: one per core, at least two (each kernel is a process; its thread only waits).
WORKERS = max(2, os.cpu_count() or 1)
_kernels: ThreadPoolExecutor | None = None


def kernels() -> ThreadPoolExecutor:
    """The one pool every lesson run in a fresh kernel goes through (test_swap.py, test_run_all_wrong.py)."""
    global _kernels
    if _kernels is None:
        _kernels = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix=THREAD_PREFIX + "kernel")
    return _kernels


@dataclass(frozen=True)
class Step:
    """One command: its argv, folder, environment (None: the suite's) and time limit in seconds."""

    name: str
    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str] | None = None
    timeout: float = 900


@dataclass(eq=False)
class Job:
    """`work(job)` run once in a thread of its own; `value()` waits for what it returned."""

    name: str
    work: Callable[[Job], Any]
    folder: Path | None = None  # a fresh temporary folder the job owns, made when it starts
    #: the selected tests that wait for it (tests/conftest.py sets them before it starts the job),
    #: so that `work` can do only what they need
    items: list[Any] = field(default_factory=list)
    _thread: threading.Thread | None = None
    _outcome: list[Any] = field(default_factory=list)  # [value] or [value, exception]
    _running: subprocess.Popen[str] | None = None
    _stopped: bool = False
    #: time.monotonic() as the work started and ended (None: not yet), for the session's summary
    started_at: float | None = None
    ended_at: float | None = None

    def start(self) -> None:
        """Start the work in the background (once; later calls do nothing)."""
        if self._thread is not None:
            return
        self.folder = Path(tempfile.mkdtemp(prefix=f"toolcall-lab-{self.name}-"))
        self._thread = threading.Thread(target=self._work, name=THREAD_PREFIX + self.name, daemon=True)
        self._thread.start()

    def _work(self) -> None:
        self.started_at = time.monotonic()
        try:
            self._outcome[:] = [self.work(self)]
        except BaseException as error:  # handed to the test that waits, as the test's own failure
            self._outcome[:] = [None, error]
        finally:
            self.ended_at = time.monotonic()

    def value(self) -> Any:
        """Wait for the work and return what it returned (raise what it raised); start it if need be."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        if len(self._outcome) == 2:
            raise self._outcome[1]
        return self._outcome[0]

    def spawn(self, step: Step, *, stderr: int = subprocess.PIPE) -> subprocess.Popen[str]:
        """Start one command (from `work`) and return it running, its output piped; the job
        stops it if the session ends first. For work that talks to a command while it runs."""
        if self._stopped:
            raise RuntimeError(f"background job {self.name} was stopped before step {step.name}")
        # its own process group, so that stopping it stops what it started too (pip below dev.py)
        env = None if step.env is None else dict(step.env)
        self._running = _Popen(list(step.argv), cwd=step.cwd, env=env, stdout=subprocess.PIPE, stderr=stderr,
                               text=True, start_new_session=True)
        return self._running

    def run(self, step: Step) -> subprocess.CompletedProcess[str]:
        """Run one command (from `work`, in the job's thread) and return what it did."""
        with self.spawn(step) as process:
            try:
                out, err = process.communicate(timeout=step.timeout)
            except subprocess.TimeoutExpired:
                out, err = _end_group(process)
                err += f"\n(background job {self.name}: step {step.name} took over {step.timeout:.0f} s)"
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    def run_all(self, steps: Sequence[Step]) -> dict[str, subprocess.CompletedProcess[str]]:
        """Run `steps` in order until one fails; step name -> what it did (the failed one last)."""
        done = {}
        for step in steps:
            done[step.name] = self.run(step)
            if done[step.name].returncode != 0:
                break
        return done

    def stop(self) -> None:
        """End the running command (the session is over) and remove the job's folder."""
        self._stopped = True
        if self._running is not None:
            _signal_group(self._running, signal.SIGTERM)  # the job's thread reads what it says last
        if self._thread is not None:
            self._thread.join(timeout=GRACE)
        if self._running is not None:
            _signal_group(self._running, signal.SIGKILL)
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def stop_kernels() -> None:
    """Drop the lesson runs not started yet; the ones running end with their cell timeouts."""
    if _kernels is not None:
        _kernels.shutdown(wait=False, cancel_futures=True)


#: Seconds a stopped command has to close what it started before its group is killed.
GRACE = 60


def _end_group(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Stop a running command and its group, and read what it printed: SIGTERM first, so that a
    command that starts servers of its own (tests/browser/check_lesson.py runs JupyterLab in a
    session of its own, and Chromium) stops them in its `finally` blocks; SIGKILL after GRACE."""
    _signal_group(process, signal.SIGTERM)
    try:
        return process.communicate(timeout=GRACE)
    except subprocess.TimeoutExpired:
        _signal_group(process, signal.SIGKILL)
        return process.communicate()


def _signal_group(process: subprocess.Popen[str], number: int) -> None:
    """Send `number` to a running command and every process in its group (a step leads a group of
    its own).

    subtle: only while it runs; once it has been waited for, its pid may belong to someone else.
    """
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, number)
