"""`python3 dev.py wheelhouse`, then an install that uses only that folder: a room with no network.

The wheelhouse is built for this machine (that step needs the package index, as CI has), then
a fresh virtual environment installs the kit from it with the index disabled, every pip
setting of this machine ignored and any web request sent to a closed port. The installed kit
then imports what the lessons use and runs the classroom demo.

Measured here (2 cores shared with other jobs, a local package index): building 33-136 s,
117 wheels, 101 MB (dev.py prints the count, size and time each run); the offline install of
117 wheels into a fresh environment 57 s to 5 min under load. Both are one background job
(tests/background.py, `ROOM`), started as soon as collection ends; the tests wait for its steps.
`dev.py wheelhouse` runs with `TOOLCALL_LAB_VENV` set to the environment this suite runs in, so
it builds from that environment and installs nothing into it.
"""

import importlib.metadata
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from background import Job, Step
from stub_server import free_port

ROOT = Path(__file__).parents[1]
_spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)


def offline_env() -> dict[str, str]:
    """This environment with no pip settings, no PYTHONPATH, and the web at a closed port."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "PYTHONPATH"}
    closed = f"http://127.0.0.1:{free_port()}"
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", HTTP_PROXY=closed,
               HTTPS_PROXY=closed, http_proxy=closed, https_proxy=closed, NO_PROXY="", no_proxy="")
    return env


def room_steps(folder: Path) -> list[Step]:
    """Build the wheelhouse, make a fresh environment, install the kit offline, import, run the demo."""
    house, python = folder / "wheelhouse", folder / "v" / ("Scripts" if os.name == "nt" else "bin") / "python"
    offline = offline_env()
    return [
        Step("build", (sys.executable, str(ROOT / "dev.py"), "wheelhouse", str(house)), cwd=ROOT,
             env={**os.environ, dev.EXISTING_VENV: sys.prefix}),
        Step("venv", (sys.executable, "-m", "venv", str(folder / "v")), cwd=folder),
        Step("install", (str(python), "-m", "pip", "install", "--no-index", "--no-cache-dir", "--find-links",
                         str(house), "-r", str(house / "requirements.txt")), cwd=folder, env=offline),
        Step("imports", (str(python), "-c", "import toolcall_lab, ipywidgets, matplotlib, jupyterlab, "
                         "ipykernel, anthropic, openai, ollama; print(toolcall_lab.__file__)"), cwd=folder,
             env=offline, timeout=300),
        Step("demo", (str(python), "-m", "toolcall_lab", "demo"), cwd=folder, env=offline, timeout=300),
    ]


ROOM = Job("wheelhouse", lambda job: job.run_all(room_steps(job.folder)))


def step(name: str) -> subprocess.CompletedProcess:
    """What the step of the room did; if it never ran, the step that failed before it says why."""
    done = ROOM.value()
    if name not in done:
        failed, what = list(done.items())[-1]
        pytest.fail(f"the wheelhouse step {name} never ran: step {failed} failed first:\n"
                    f"{what.stdout[-3000:]}{what.stderr[-3000:]}")
    return done[name]


@pytest.mark.slow
@pytest.mark.background(ROOM)
def test_the_wheelhouse_holds_the_kit_and_says_how_to_install():
    build = step("build")
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert "installing toolcall-lab" not in build.stdout  # the suite's environment, used as it is
    house = ROOM.folder / "wheelhouse"
    wheels = sorted(p.name for p in house.glob("*.whl"))
    assert f"toolcall_lab-{dev.project_version()}-py3-none-any.whl" in wheels
    for name in ("jupyterlab", "ipywidgets", "matplotlib", "anthropic", "openai", "ollama", "jsonschema"):
        assert any(w.lower().startswith(f"{name}-") for w in wheels), name
    assert not any(w.startswith(("pytest-", "mypy-", "ruff-", "playwright-")) for w in wheels)  # not `dev`
    text = (house / "INSTALL.txt").read_text(encoding="utf-8")
    assert f"pip install --no-index --find-links {house.name} -r {house.name}/requirements.txt" in text
    # the lock's versions, nothing newer: each wheel is the version uv.lock holds
    locked = dev.versions_in_lock(ROOT / "uv.lock")
    versions = {canonicalize_name(name): str(version) for name, version, _, _ in
                (parse_wheel_filename(w) for w in wheels if not w.startswith("toolcall_lab-"))}
    assert {n: v for n, v in versions.items() if v not in locked.get(n, ())} == {}


@pytest.mark.slow
@pytest.mark.background(ROOM)
def test_the_kit_installs_from_the_wheelhouse_with_the_index_disabled():
    assert step("venv").returncode == 0, step("venv").stderr
    install = step("install")
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    imports = step("imports")
    assert imports.returncode == 0, imports.stderr
    assert str(ROOM.folder / "v") in imports.stdout  # the installed kit, not this checkout's
    demo = step("demo")
    assert demo.returncode == 0, demo.stderr
    assert "get_weather (id toolu_01)" in demo.stdout


def _needed(environment: dict[str, str]) -> set[str]:
    """Every project the `lab` extra pulls in (as installed here) under `environment`'s markers."""
    names, pending = set(), [("toolcall-lab", ("lab",))]
    while pending:
        name, extras = pending.pop()
        key = name.lower().replace("_", "-")
        if (key, extras) in names:
            continue
        names.add((key, extras))
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed on this platform: its own needs are not known here
        for spec in map(Requirement, requires):
            if spec.marker is None or any(spec.marker.evaluate({**environment, "extra": e})
                                          for e in extras or ("",)):
                pending.append((spec.name, tuple(sorted(spec.extras))))
    return {key for key, _ in names}


@pytest.mark.slow  # dev.py reads the markers in .venv/'s Python, which has `packaging`
@pytest.mark.parametrize("platform, markers", [
    ("win_amd64", {"sys_platform": "win32", "os_name": "nt", "platform_system": "Windows"}),
    ("macosx_11_0_arm64", {"sys_platform": "darwin", "os_name": "posix", "platform_system": "Darwin"}),
    ("manylinux_2_28_x86_64", {"sys_platform": "linux", "os_name": "posix", "platform_system": "Linux"}),
])
def test_a_wheelhouse_for_another_platform_takes_every_package_that_platform_needs(platform, markers):
    # pip evaluates markers against this machine, not --platform: dev.py picks the lock's lines
    # for the target itself; what the packages' own metadata says that platform needs is there
    picked = dev.lines_for(Path(sys.executable), (ROOT / "requirements" / "lab.txt").read_text(),
                           platform, "3.12")
    names = {canonicalize_name(name) for name, _, _ in dev.pins_of(picked)}
    there = _needed({**default_environment(), **markers, "python_version": "3.12",
                     "python_full_version": "3.12.9"}) - {"toolcall-lab"}
    assert there - names == set()
    assert picked.count("--hash=sha256:") >= len(names)  # each pin keeps its hashes
    assert " ; " not in picked  # markers evaluated here, so pip on this machine skips none
