"""The two environment files describe one environment, and the version is stated once.

The `lab` extra (`pip install -e ".[lab]"`) is all a learner installs, so it must bring
every third-party module the lessons and the kit import, the provider SDKs included.
"""

import ast
import importlib.metadata
import json
import re
import sys
import tomllib
from pathlib import Path

import toolcall_lab

ROOT = Path(__file__).parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def requirement_name(spec: str) -> str:
    return re.split(r"[<>=!\[ ;]", spec, maxsplit=1)[0].strip().lower()


def pyproject_requirements(extra: str = "dev") -> set[str]:
    """Every third-party requirement of `extra`, with the extras it includes expanded."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    names = {requirement_name(s) for s in PYPROJECT["project"]["dependencies"]}
    pending = [extra]
    while pending:
        for spec in extras[pending.pop()]:
            if spec.startswith("toolcall-lab["):
                pending += spec[len("toolcall-lab["):-1].split(",")
            else:
                names.add(requirement_name(spec))
    return names


#: Each third-party module the lessons or the kit import -> the requirement that brings it.
MODULE_SOURCE = {
    "anthropic": "anthropic", "openai": "openai", "ollama": "ollama",
    "pydantic": "ollama",          # the ollama client's own dependency, used for its errors
    "ipywidgets": "ipywidgets", "matplotlib": "matplotlib",
    "traitlets": "ipywidgets",     # the trait library ipywidgets is built on
    "PIL": "matplotlib",           # Pillow comes with matplotlib
    "IPython": "ipykernel",        # the kernel is IPython
    "nbclient": "jupyterlab",      # runs a teacher's solved copies (jupyter-server -> nbconvert)
    "nbformat": "jupyterlab",
    "jupyter_core": "jupyterlab",  # the runtime folder a kernel's IPC sockets go in (solutions.kernel_config)
    "jupyter_client": "jupyterlab",
    "jsonschema": "jsonschema",
    "referencing": "jsonschema",   # jsonschema's own $ref resolution (output_format.sample follows $refs)
    "jinja2": "jinja2",            # toolcall_lab.template renders chat templates
    "mcp": "mcp",                  # lesson 23: the official MCP SDK, client and server in-process
    "anyio": "mcp",                # the SDK's async library: the client's own event loop thread
    "packaging": "matplotlib",     # the lock's markers, read by the doctor (JupyterLab needs it too)
}


def top_level_imports(source: str) -> set[str]:
    """Modules imported anywhere in `source`, lazily inside a function too: "import a.b" -> {"a"}."""
    tree = ast.parse(source)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    lines = [line for cell in cells if cell["cell_type"] == "code"
             for line in "".join(cell["source"]).splitlines()]
    return "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))


def third_party_imports() -> dict[str, str]:
    """module -> the first file that imports it, over every lesson and the kit's source."""
    sources = [(p, notebook_code(p)) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    sources += [(p, p.read_text(encoding="utf-8"))
                for p in sorted((ROOT / "src" / "toolcall_lab").rglob("*.py"))]
    found: dict[str, str] = {}
    for path, source in sources:
        for name in top_level_imports(source) - set(sys.stdlib_module_names) - {"toolcall_lab"}:
            found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def test_the_lab_extra_brings_every_module_the_lessons_and_the_kit_import():
    imports = third_party_imports()
    unknown = {name: path for name, path in imports.items() if name not in MODULE_SOURCE}
    assert unknown == {}, "add each to the `lab` extra (and environment.yml) and to MODULE_SOURCE"
    lab = pyproject_requirements("lab")
    missing = {name: MODULE_SOURCE[name] for name in imports if MODULE_SOURCE[name] not in lab}
    assert missing == {}


def test_the_lab_extra_runs_every_lesson_offline():
    # lesson 3 runs all three SDKs against the API double; the lessons need a JupyterLab
    assert {"anthropic", "openai", "ollama", "jupyterlab", "ipykernel", "ipywidgets",
            "matplotlib"} <= pyproject_requirements("lab")


def test_the_providers_keep_their_own_extras_and_pins_are_written_once():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert pyproject_requirements("providers") - pyproject_requirements("lab") == set()
    specs = [s for specs in extras.values() for s in specs if not s.startswith("toolcall-lab[")]
    names = [requirement_name(s) for s in specs]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def environment_requirements() -> set[str]:
    lines = (ROOT / "environment.yml").read_text().splitlines()
    start = lines.index("dependencies:")
    specs = [line.strip()[2:] for line in lines[start + 1:] if line.strip().startswith("- ")]
    # subtle: "- pip:" opens the PyPI-only subsection; it is not a requirement itself.
    return {requirement_name(s) for s in specs if not s.endswith(":")} - {"python", "pip"}


def test_environment_yml_lists_what_a_learner_needs_and_no_test_tool():
    # Binder builds from it: the `lab` extra (every package of it, at its locked version:
    # tests/test_lock.py), not pytest, ruff, mypy, Playwright or JupyterHub
    assert pyproject_requirements("lab") <= environment_requirements()
    assert not environment_requirements() & {"pytest", "playwright", "jupyterhub"}


def test_the_dev_extra_brings_the_jupyterhub_check():
    assert {"jupyterhub", "nbgitpuller", "configurable-http-proxy"} <= pyproject_requirements("dev")


def test_versions_agree():
    assert importlib.metadata.version("toolcall-lab") == toolcall_lab.__version__
    assert PYPROJECT["project"]["version"] == toolcall_lab.__version__


def test_python_floor_is_311_everywhere():
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert "python>=3.11" in (ROOT / "environment.yml").read_text()
    assert "MIN_PYTHON = (3, 11)" in (ROOT / "dev.py").read_text()
