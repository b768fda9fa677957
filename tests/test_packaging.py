"""The two environment files describe one environment, and the version is stated once."""

import importlib.metadata
import re
import tomllib
from pathlib import Path

import toolcall_lab

ROOT = Path(__file__).parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def requirement_name(spec: str) -> str:
    return re.split(r"[<>=!\[ ;]", spec, maxsplit=1)[0].strip().lower()


def pyproject_requirements() -> set[str]:
    """Every third-party requirement of the dev extra, with the extras it includes expanded."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    names = {requirement_name(s) for s in PYPROJECT["project"]["dependencies"]}
    pending = ["dev"]
    while pending:
        for spec in extras[pending.pop()]:
            if spec.startswith("toolcall-lab["):
                pending += spec[len("toolcall-lab["):-1].split(",")
            else:
                names.add(requirement_name(spec))
    return names


def environment_requirements() -> set[str]:
    lines = (ROOT / "environment.yml").read_text().splitlines()
    start = lines.index("dependencies:")
    specs = [line.strip()[2:] for line in lines[start + 1:] if line.strip().startswith("- ")]
    # subtle: "- pip:" opens the PyPI-only subsection; it is not a requirement itself.
    return {requirement_name(s) for s in specs if not s.endswith(":")} - {"python", "pip"}


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    assert environment_requirements() == pyproject_requirements()


def test_versions_agree():
    assert importlib.metadata.version("toolcall-lab") == toolcall_lab.__version__
    assert PYPROJECT["project"]["version"] == toolcall_lab.__version__


def test_python_floor_is_311_everywhere():
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert "python>=3.11" in (ROOT / "environment.yml").read_text()
    assert "MIN_PYTHON = (3, 11)" in (ROOT / "dev.py").read_text()
