"""Long commands the suite starts as soon as collection ends, for the tests that wait for them.

mypy over the package (about 3 minutes with an empty cache) and the offline wheelhouse (build it,
then install the kit from it into a fresh environment: 1-7 minutes) each keep one core busy and
need nothing but the checkout. Started before the first test, they run beside the in-process
tests, which use the other core; the test that needs one then only waits for its result. A test
names its job with the marker, e.g.

    MYPY = Job("mypy", lambda folder: [Step("mypy", (sys.executable, "-m", "mypy"), cwd=ROOT)])

    @pytest.mark.background(MYPY)
    def test_mypy_strict_finds_nothing():
        done = MYPY.result("mypy")        # a subprocess.CompletedProcess
        assert done.returncode == 0, done.stdout

and `tests/conftest.py` starts the jobs of the selected tests only (so `-k`, `--quick` or one
file start nothing they do not run) and stops whatever still runs when the session ends. A
job's steps run one after another in a thread of their own, each in a process of its own with
the environment and folder it names, so nothing a running test changes (its monkeypatched
`os.environ`, `subprocess.run` or working folder) reaches them. A step that fails ends the
job: the steps after it are not run, and `result` of one of them says which step failed.

Left out: more than one job at a time beyond what the tests select (each is one thread), and
jobs that need a test's fixtures (a job sees only the checkout and its own folder).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: The real Popen, taken before any test could monkeypatch the module's name.
_Popen = subprocess.Popen
#: The prefix of a job's thread name: conftest's guard on unmarked tests ignores these threads.
THREAD_PREFIX = "background-job-"


@dataclass(frozen=True)
class Step:
    """One command of a job: its argv, folder, environment (None: the suite's) and time limit."""

    name: str
    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str] | None = None
    timeout: float = 900


@dataclass
class Job:
    """Steps made by `plan(folder)` (a fresh temporary folder the job owns), run in order."""

    name: str
    plan: Callable[[Path], list[Step]]
    folder: Path | None = None
    results: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    _steps: list[Step] = field(default_factory=list)
    _thread: threading.Thread | None = None
    _running: subprocess.Popen[str] | None = None
    _stopped: bool = False

    def start(self) -> None:
        """Plan the steps and start running them in the background (once; later calls do nothing)."""
        if self._thread is not None:
            return
        self.folder = Path(tempfile.mkdtemp(prefix=f"toolcall-lab-{self.name}-"))
        self._steps = self.plan(self.folder)
        self._thread = threading.Thread(target=self._run, name=THREAD_PREFIX + self.name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for step in self._steps:
            if self._stopped:
                return
            # its own process group, so that stopping it stops what it started too (pip below dev.py)
            with _Popen(list(step.argv), cwd=step.cwd, env=None if step.env is None else dict(step.env),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        start_new_session=True) as process:
                self._running = process
                try:
                    out, err = process.communicate(timeout=step.timeout)
                except subprocess.TimeoutExpired:
                    _kill_group(process)
                    out, err = process.communicate()
                    err += f"\n(background job {self.name}: step {step.name} took over {step.timeout:.0f} s)"
            self.results[step.name] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
            if process.returncode != 0:
                return

    def result(self, step: str) -> subprocess.CompletedProcess[str]:
        """Wait for `step` and return what it did; start the job first if no one has."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        if step in self.results:
            return self.results[step]
        failed = next((name for name in self.results if self.results[name].returncode != 0), None)
        raise AssertionError(f"background job {self.name}: step {step} never ran because step "
                             f"{failed} failed: {self.results[failed].stderr[-3000:] if failed else '?'}")

    def stop(self) -> None:
        """End the running step (the session is over) and remove the job's folder."""
        self._stopped = True
        if self._running is not None:
            _kill_group(self._running)
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _kill_group(process: subprocess.Popen[str]) -> None:
    """SIGKILL a running step and every process in its group (a step leads a group of its own).

    subtle: only while it runs; once it has been waited for, its pid may belong to someone else.
    """
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
