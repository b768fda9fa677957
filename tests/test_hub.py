"""A class on a real JupyterHub: three learners open lesson 1 by nbgitpuller link at the same time.

Runs tests/browser/hub_class.py (JupyterHub with the pure-Python configurable-http-proxy, the
DummyAuthenticator and the SimpleLocalProcessSpawner; headless Debian Chromium driven by
Playwright; one API double per learner, reached through `Spawner.environment`) and holds it
to the issue's promise: every cell of lesson 1 runs without an error output for every
learner, each learner's double answered that learner only, neither the repository's nor
the learners' tracked files changed, and nothing it started is left running.

Its timings (link to first rendered cell, running all cells) and memory (each learner's
server and kernel, the hub and proxy) are printed; `pytest -s` shows them, and
benchmarks/classroom_hub.py prints the same numbers on their own.

Without /usr/bin/chromium, Playwright or JupyterHub the test skips and says what is missing;
under CI (CI=true) it fails instead, because .ci/run and the dev extra install all three.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from background import Job, Step
from test_browser import require_browser

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "tests" / "browser" / "hub_class.py"
LEARNERS = 3
#: The API each learner's provider speaks, in hub_class.APIS_BY_LEARNER's order.
API_OF = {"anthropic": "anthropic", "openai": "responses", "openai-chat": "chat", "ollama": "ollama"}


def require_hub() -> None:
    require_browser()
    missing = [name for name in ("jupyterhub", "nbgitpuller", "configurable_http_proxy")
               if importlib.util.find_spec(name) is None]
    if not (ROOT / ".git").exists():
        why = "the check clones this repository with git, and this copy is not a git checkout"
    elif missing:
        why = f"{', '.join(missing)} missing (the `hub` extra, in the dev extra: rerun python3 dev.py test)"
    else:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the JupyterHub check, but {why}")
    pytest.skip(why)


def tracked_files_digest() -> str:
    """One hash over every tracked file's path and bytes, as they are on disk now."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.split(b"\0")
    digest = hashlib.sha256()
    for name in filter(None, names):
        path = ROOT / os.fsdecode(name)
        digest.update(name + b"\0" + (path.read_bytes() if path.is_file() else b"(missing)"))
    return digest.hexdigest()


def processes_in(folder: str) -> list[str]:
    """Live processes whose working folder is inside `folder` (the hub, proxy, servers, kernels)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cwd = os.readlink(entry / "cwd")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if cwd.startswith(folder) and state != "Z":
            found.append(f"{entry.name} {(entry / 'cmdline').read_bytes()[:300]!r}")
    return found


def a_class(job: Job) -> tuple[subprocess.CompletedProcess, dict | None, str, str]:
    """Three learners at once (what the first test holds), then a class stopped while its kernels
    run (the second): one after the other, in a background job (tests/background.py) started as
    collection ends, beside the other tests. Each took 25-60 s of the foreground before."""
    before = tracked_files_digest()
    report = job.folder / "class.json"
    done = job.run(Step("hub_class", (sys.executable, str(SCRIPT), "--users", str(LEARNERS), "--json",
                                      str(report)), cwd=ROOT, timeout=900))
    session = json.loads(report.read_text()) if report.is_file() else None
    return done, session, before, tracked_files_digest()


def a_stopped_class(job: Job) -> tuple[str, list[str], list[str]]:
    """What a timeout or a cancelled CI job does to a class: SIGTERM while every learner's kernel
    runs. (the folder it worked in, what ran in it just before, what is left a second after)"""
    script = job.spawn(Step("hub_class stopped", (sys.executable, str(SCRIPT), "--users", "2"), cwd=ROOT),
                       stderr=subprocess.DEVNULL)
    try:
        first = script.stdout.readline()  # "hub_class: working in /tmp/toolcall-lab-hub-..."
        assert first.startswith("hub_class: working in "), first
        workdir = first.split(" in ", 1)[1].strip()
        deadline, seen = time.monotonic() + 300, []
        while time.monotonic() < deadline and script.poll() is None:
            seen = processes_in(workdir)
            if sum("ipykernel" in line for line in seen) == 2:  # both learners' kernels run
                break
            time.sleep(1)
        script.terminate()  # SIGTERM to the script alone, as a timeout sends it
        script.wait(timeout=120)
    finally:
        if script.poll() is None:
            script.kill()
        script.stdout.close()
    time.sleep(1)
    return workdir, seen, processes_in(workdir)


def both(job: Job) -> dict[str, object]:
    """Each check's result, or what it raised, so that one's failure fails its own test only."""
    outcome: dict[str, object] = {}
    for check in (a_class, a_stopped_class):
        try:
            outcome[check.__name__] = check(job)
        except Exception as error:
            outcome[check.__name__] = error
    return outcome


HUB = Job("hub", both)


def outcome(name: str):
    """What the check `name` of the hub job returned; what it raised is raised here."""
    got = HUB.value()[name]
    if isinstance(got, Exception):
        raise got
    return got


@pytest.mark.slow
@pytest.mark.background(HUB)
def test_three_learners_run_lesson_1_at_once_on_a_real_jupyterhub():
    require_hub()
    done, session, before, after = outcome("a_class")
    print(done.stdout)  # the timings and memory, for `pytest -s` and the CI log
    assert done.returncode == 0, f"the JupyterHub check failed:\n{done.stdout}{done.stderr}"
    learners = session["learners"]

    assert len(learners) == LEARNERS
    for learner in learners:
        assert learner["problems"] == [], learner  # every cell ran; no error output, no JS error
        assert learner["seconds_to_first_cell"] > 0 and learner["server_mib"] > 0
        # each double was asked, and only in the API of its own learner's provider
        assert learner["double_apis"], f"{learner['name']}'s double was never asked"
        assert set(learner["double_apis"]) == {API_OF[learner["provider"]]}, learner
        assert learner["clone_status"] == "", learner  # the lesson wrote nothing into the clone
    assert len({learner["provider"] for learner in learners}) == LEARNERS  # so a stray request shows
    assert len({learner["double_port"] for learner in learners}) == LEARNERS
    # the repository's tracked files are as they were
    assert session["repo_status_after"] == session["repo_status_before"]
    assert after == before
    # every process it started has stopped
    assert session["left_running"] == []
    assert processes_in(session["workdir"]) == []


@pytest.mark.slow
@pytest.mark.background(HUB)
def test_a_stopped_class_leaves_no_hub_server_kernel_or_proxy_behind():
    require_hub()
    workdir, seen, left = outcome("a_stopped_class")
    assert any("ipykernel" in line for line in seen), f"no kernel started: {seen}"
    assert any("jupyterhub-singleuser" in line for line in seen)
    assert left == [], f"still running in {workdir}: {left}"
