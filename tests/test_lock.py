"""One lock, and every install path agreeing with it (issue 28 §1).

`uv.lock` is made by `python3 dev.py lock` from pyproject.toml; `requirements/lab.txt`,
`requirements/dev.txt`, `environment.yml` and the package's `data/locked.json` are its copies
for pip, conda and `doctor`. These tests hold the lock to pyproject.toml, each copy and each
install path (dev.py, the README's own-environment route, Binder's postBuild, both hubs, the
wheelhouse) to the lock, the lock to every platform and Python the kit supports, and the
environment the tests run in to the lock.
"""

import importlib.metadata
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker, default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import compatible_tags, cpython_tags, mac_platforms
from packaging.utils import canonicalize_name, parse_wheel_filename

from toolcall_lab.teacher.doctor import checkup
from toolcall_lab.teacher.locked import Pin

ROOT = Path(__file__).parents[1]
_spec = importlib.util.spec_from_file_location("dev_for_lock", ROOT / "dev.py")
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)

LOCK = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PACKAGES = [p for p in LOCK["package"] if p.get("source", {}).get("editable") is None]
KIT = next(p for p in LOCK["package"] if p["name"] == "toolcall-lab")


def locked() -> dict[str, set[str]]:
    return dev.versions_in_lock(ROOT / "uv.lock")


def pins(path: str) -> list[tuple[str, str, str]]:
    return dev.pins_of((ROOT / path).read_text(encoding="utf-8"))


def _requirement_key(name: str, specifier: str, marker: str, extras) -> tuple:
    return canonicalize_name(name), SpecifierSet(specifier), marker, frozenset(extras)


def test_the_lock_was_made_from_this_pyproject():
    # pyproject.toml's requirements, each with its extra, as uv.lock recorded them when it was
    # made: an edit of pyproject.toml without `python3 dev.py lock` fails here
    project = PYPROJECT["project"]
    wanted = [(spec, "") for spec in project["dependencies"]]
    wanted += [(spec, f"extra == '{extra}'") for extra, specs in project["optional-dependencies"].items()
               for spec in specs]
    ours = sorted((_requirement_key(r.name, str(r.specifier), m, r.extras)
                   for r, m in ((Requirement(s), m) for s, m in wanted)), key=repr)
    recorded = KIT["metadata"]["requires-dist"]
    theirs = sorted((_requirement_key(d["name"], d.get("specifier", ""), d.get("marker", ""),
                                      d.get("extras", ())) for d in recorded), key=repr)
    assert ours == theirs, "pyproject.toml changed since uv.lock was made: run `python3 dev.py lock --keep`"
    assert KIT["metadata"]["provides-extras"] == list(project["optional-dependencies"])
    assert LOCK["requires-python"] == project["requires-python"]


def test_every_copy_of_the_lock_names_the_locked_versions():
    versions = locked()
    lab_txt, dev_txt = pins("requirements/lab.txt"), pins("requirements/dev.txt")
    environment = pins_in_environment_yml()
    doctor = [tuple(row) for row in json.loads(
        (ROOT / "src/toolcall_lab/data/locked.json").read_text(encoding="utf-8"))["packages"]]
    for copy in (lab_txt, dev_txt, environment, doctor):
        assert [(n, v) for n, v, _ in copy if v not in versions.get(n, ())] == []
    assert lab_txt == environment == doctor  # the same lab set, markers and all
    assert {(n, v) for n, v, _ in lab_txt} < {(n, v) for n, v, _ in dev_txt}  # dev: lab and the test tools
    assert {"anthropic", "openai", "ollama", "mcp", "jupyterlab", "matplotlib"} <= {n for n, _, _ in lab_txt}
    assert not {"pytest", "nbval", "ruff", "mypy", "playwright"} & {n for n, _, _ in lab_txt}


def test_the_pip_copies_carry_a_hash_for_every_pin():
    for path in ("requirements/lab.txt", "requirements/dev.txt"):
        blocks = re.split(r"\n(?=\S)", (ROOT / path).read_text(encoding="utf-8"))
        pinned = [b for b in blocks if "==" in b.split("\n")[0] and not b.startswith("#")]
        assert pinned and all("--hash=sha256:" in b for b in pinned), path


def pins_in_environment_yml() -> list[tuple[str, str, str]]:
    lines = (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines()
    pip_lines = lines[lines.index("  - pip:") + 1:]
    return dev.pins_of("\n".join(line.strip().removeprefix("- ") for line in pip_lines))


def test_environment_yml_is_what_dev_py_lock_writes():
    written = dev.environment_yml(pins("requirements/lab.txt"))
    assert (ROOT / "environment.yml").read_text(encoding="utf-8") == written


@pytest.mark.slow
def test_the_copies_are_what_uv_exports_from_the_lock():
    uv = dev._uv_in(dev.TOOLS / f"uv-{dev.UV_VERSION}") or shutil.which("uv")
    if uv is None:
        pytest.skip("no uv here: `python3 dev.py lock --keep` installs it into .tools/")
    for path, text in dev.lock_copies(Path(uv)).items():
        assert (ROOT / path).read_text(encoding="utf-8") == text, f"{path}: run `python3 dev.py lock --keep`"


def test_dev_py_installs_the_lock_as_committed(monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr(dev, "USE_AS_IS", False)  # as without TOOLCALL_LAB_VENV, whatever runs the suite
    monkeypatch.setattr(dev, "STAMP", tmp_path / "stamp")
    monkeypatch.setattr(dev, "find_uv", lambda: Path("/uv"))
    monkeypatch.setattr(dev, "write_lab_overrides", lambda: None)
    monkeypatch.setattr(dev.subprocess, "call", lambda command, **kw: ran.append(command) or 0)
    monkeypatch.setattr(dev, "VENV", tmp_path / "venv")
    dev.ensure_env("lab")
    assert ran == [  # a fresh environment with pip in it, then exactly the lock's packages
        ["/uv", "venv", "--quiet", "--seed", "--clear", "--python", sys.executable, str(tmp_path / "venv")],
        ["/uv", "sync", "--frozen", "--quiet", "--extra", "lab", "--python", sys.executable]]
    assert dev.installed_extra() == "lab"  # and the stamp names the lock it was built from


def test_the_pip_route_of_dev_py_installs_the_same_versions_hash_checked(monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr(dev, "USE_AS_IS", False)
    monkeypatch.setattr(dev, "STAMP", tmp_path / "stamp")
    monkeypatch.setattr(dev, "VENV", tmp_path / "venv")
    monkeypatch.setenv(dev.INSTALLER, "pip")
    monkeypatch.setattr(dev, "write_lab_overrides", lambda: None)
    builder = type("Builder", (), {"create": lambda self, folder: None})
    monkeypatch.setattr(dev.venv, "EnvBuilder", lambda **kw: builder())
    monkeypatch.setattr(dev.subprocess, "run",
                        lambda command, **kw: ran.append(command) or subprocess.CompletedProcess(command, 0))
    dev.ensure_env("dev")
    assert ran[0][-4:] == ["--quiet", "--require-hashes", "-r", str(dev.REQUIREMENTS / "dev.txt")]
    assert ran[1][-3:] == ["--no-deps", "--editable", str(dev.ROOT)]


def test_a_stamp_from_another_lock_reinstalls(monkeypatch, tmp_path):
    monkeypatch.setattr(dev, "STAMP", tmp_path / "stamp")
    (tmp_path / "stamp").write_text(f"{dev.wanted_stamp()} extra=dev\n")
    assert dev.installed_extra() == "dev"
    monkeypatch.setattr(dev, "LOCK", tmp_path / "uv.lock")
    (tmp_path / "uv.lock").write_text("version = 1\n")
    assert dev.installed_extra() is None


def test_every_other_install_path_takes_the_lock():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -r requirements/lab.txt && pip install --no-deps -e ." in readme
    assert "pip install -r requirements/dev.txt && pip install --no-deps -e . && pytest" in readme
    # Binder installs environment.yml (the lock's lab set), then postBuild the kit alone
    assert "pip install --no-deps --editable ." in (ROOT / "postBuild").read_text()
    for hub, lock in (("classroom/z2jh/Dockerfile", "COPY requirements/lab.txt"),
                      ("classroom/tljh/install.sh", '-r "$here/../../requirements/lab.txt"')):
        text = (ROOT / hub).read_text()
        assert lock in text, hub
        installs = [line for line in text.splitlines() if " install " in line and "toolcall-lab @" in line]
        assert installs and all("--no-deps" in line for line in installs), hub  # the kit brings nothing else
    wheelhouse = "python -m pip install --no-index --find-links w -r w/requirements.txt"
    assert dev.wheelhouse_install("w") == wheelhouse


#: The platforms and Pythons the kit supports, as pip tags: every locked package that applies
#: to one must have a wheel for it, or an sdist to build.
PLATFORMS = {
    "linux": ([f"manylinux_2_{minor}_x86_64" for minor in range(40, 16, -1)]
              + ["manylinux2014_x86_64", "linux_x86_64"], {"sys_platform": "linux", "os_name": "posix",
                                                           "platform_system": "Linux"}),
    "macos": (list(mac_platforms((14, 0), "arm64")), {"sys_platform": "darwin", "os_name": "posix",
                                                        "platform_system": "Darwin"}),
    "windows": (["win_amd64"], {"sys_platform": "win32", "os_name": "nt", "platform_system": "Windows"}),
}


@pytest.mark.parametrize("python", ["3.11", "3.12", "3.13", "3.14"])
@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_the_lock_installs_on_every_supported_platform_and_python(platform, python):
    platforms, markers = PLATFORMS[platform]
    version = tuple(map(int, python.split(".")))
    tags = {*cpython_tags(version, platforms=platforms), *compatible_tags(version, platforms=platforms)}
    env = {**default_environment(), **markers, "python_version": python, "python_full_version": f"{python}.9",
           "implementation_name": "cpython", "platform_python_implementation": "CPython"}
    needed = [(n, v) for n, v, m in pins("requirements/dev.txt") if not m or Marker(m).evaluate(env)]
    by_version = {(p["name"], p["version"]): p for p in PACKAGES}
    missing = []
    for name, version_ in needed:
        package = by_version[(name, version_)]
        wheels = [parse_wheel_filename(w["url"].rsplit("/", 1)[1])[3] for w in package.get("wheels", [])]
        if "sdist" not in package and not any(tag in tags for tag_set in wheels for tag in tag_set):
            missing.append(f"{name}=={version_}")
    assert missing == []


def test_this_environment_holds_the_locked_versions():
    # `python3 dev.py test` and `.ci/run` run in the lock's environment: every package the dev
    # extra needs here is at its locked version (`python -m toolcall_lab doctor` says the same
    # to a learner). dev.py drift deselects this test (LOCK_HOLDERS): there it fails by design.
    assert "tests/test_lock.py::test_this_environment_holds_the_locked_versions" in dev.LOCK_HOLDERS
    # the doctor's own comparison, over the dev extra's pins instead of the lab extra's
    found = checkup(pins=[Pin(*pin) for pin in pins("requirements/dev.txt")], hosted=False, clone=None)
    assert found.ok, found.report()


def test_drift_tries_each_changed_package_alone_when_the_whole_upgrade_fails(monkeypatch, tmp_path):
    # dev.py drift: the newest versions fail somewhere; each package that differs from the lock is
    # then installed alone over the lock and the failing tests run again, so the table names
    # which package broke which test (here anthropic breaks lesson 21; openai breaks nothing)
    wanted = "anthropic==9.0.0\nopenai==9.1.0\njsonschema==4.26.0\n"
    monkeypatch.setattr(dev, "exported", lambda uv, extra, hashes=True: "anthropic==2.17.0\n")
    monkeypatch.setattr(dev, "versions_in_lock", lambda path: {"anthropic": {"2.17.0"}, "openai": {"3.63.0"},
                                                          "jsonschema": {"4.26.0"}})

    def uv_pip_compile(command, **kw):
        Path(command[command.index("--output-file") + 1]).write_text(wanted)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(dev.subprocess, "run", uv_pip_compile)
    built = []
    monkeypatch.setattr(dev, "_drift_env", lambda uv, folder, req, also=(): built.append([*also]) or folder)
    lesson = "notebooks/21_streaming_on_the_wire.ipynb::Cell 14"
    broken_by = {"anthropic==9.0.0": [lesson]}
    monkeypatch.setattr(dev, "_failures", lambda python, log, only=None: (
        [lesson] if only is None else broken_by.get((built[-1] or [""])[0], [])))
    assert dev._drift(Path("/uv"), tmp_path, lowest=False) == 1
    assert built == [[], ["anthropic==9.0.0"], ["openai==9.1.0"]]  # the whole upgrade, then one by one
    table = dev.drift_table({"anthropic": "9.0.0", "openai": "9.1.0"},
                            {"anthropic": {"2.17.0"}, "openai": {"3.63.0"}},
                            {"anthropic": lesson, "openai": "passes alone"}, which="newest", failed=[lesson])
    assert table.splitlines() == [
        "package    locked  newest  first failing test or cell",
        f"anthropic  2.17.0  9.0.0   {lesson}",
        "openai     3.63.0  9.1.0   passes alone",
        "",
        f"1 tests or cells fail at the newest versions; first: {lesson}",
    ]
