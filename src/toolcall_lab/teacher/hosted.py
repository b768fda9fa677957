"""A lesson opened on its own, on Colab or in any kernel without the kit: its first code cell.

Colab opens one notebook from GitHub, in a kernel that has never heard of the kit. So every
lesson's first code cell (`first_cell`, the same text in each) asks whether `toolcall_lab` can
be imported. Where it can (a clone, a class hub, Binder, a kernel dev.py made) the cell does
nothing and prints nothing, so strict nbval compares it like any other. Where it cannot:

1. the cell installs the kit alone (`pip install --no-deps`; if that fails it stops with pip's
   words) from the git tag of the version that made the lesson, `v` + the version (0.1.0 ->
   `v0.1.0`): the tag fixes the kit's code and its lock together, so the lesson, the kit and
   the versions below are of one commit. The variable TOOLCALL_LAB_KIT, when set, replaces that
   source (any pip requirement: a wheel built from a checkout, another ref);
2. it calls `install_lessons_packages()`, which installs what the lessons run on at the
   versions of the kit's own lock (`teacher.locked`): the packages in `HOSTED`, nothing else.

Which packages, and why not the whole `lab` extra: a hosted notebook brings its own notebook
server and kernel, and its page talks to them. Colab's `google-colab` package pins ipykernel,
ipython, notebook, tornado and requests to exact versions (colabtools' setup.py), and Colab's
pip warns that upgrading ipython, ipykernel, tornado, prompt-toolkit or pyzmq "can cause your
runtime to repeatedly crash" (as quoted in bowang-lab/MedSAM#214). The kernel has also imported
them (with traitlets, numpy and pillow) before the first cell runs, so a new version on disk
would only be read after a restart. So `HOSTED` is what the kit's code and the lessons call
into, taken from uv.lock: the packages the `lab` extra needs without JupyterLab and ipykernel,
less everything ipykernel needs (the kernel's world: IPython, traitlets, comm, pyzmq, tornado,
...), and less three compiled packages the host's own libraries are built on: numpy and pillow
(here they only draw the figures, whose pixels nbval does not compare) and cryptography
(reached only through mcp's OAuth signing, which no lesson uses). tests/test_hosted.py holds
the set to uv.lock.

If the install replaced a package the kernel had already imported, the cell says to restart
the kernel and run the lesson again (the second run finds the kit and does nothing); on Colab
it also switches on the custom widget manager the kit's widgets need (`views.widgets._colab`).

    >>> print(first_cell(version="0.1.0", repository="https://github.com/me/toolcall-lab").splitlines()[3])
        kit = "git+https://github.com/me/toolcall-lab@v0.1.0"

Left out: hashes for the hosted install (the lock's hashes are in requirements/lab.txt, which
would install the notebook server's packages too), and hosts other than Colab for the widgets.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

from ..errors import ToolcallLabError
from .locked import Pin, installed_version, locked_pins

__all__ = ["HOSTED", "KIT_VARIABLE", "first_cell", "hosted_pins", "install_lessons_packages"]

#: The variable that replaces where a lesson's first cell installs the kit from.
KIT_VARIABLE = "TOOLCALL_LAB_KIT"

#: What a lesson's first cell installs at the locked versions where the kit is missing (see the
#: module docstring for why exactly these): uv.lock's `lab` packages that the lessons' own code
#: runs on, without the notebook server, the kernel and what it runs on, numpy, pillow and cryptography.
HOSTED = frozenset({
    # the kit's core, and the provider SDKs of lessons 3 to 24 with what they are built on
    "jsonschema", "jsonschema-specifications", "referencing", "rpds-py", "attrs",
    "anthropic", "openai", "ollama", "mcp", "mcp-types",
    "annotated-types", "anyio", "certifi", "click", "docstring-parser", "h11", "httpcore", "httpcore2",
    "httpx", "httpx2", "httpx2-jsfetch", "idna", "jiter", "opentelemetry-api", "pydantic",
    "pydantic-core", "pyjwt", "python-multipart", "pywin32", "sniffio", "sse-starlette", "starlette",
    "truststore", "typing-inspection", "uvicorn",
    # the widgets, the figures and the chat templates
    "ipywidgets", "jupyterlab-widgets", "widgetsnbextension",
    "matplotlib", "contourpy", "cycler", "fonttools", "kiwisolver", "pyparsing",
    "jinja2", "markupsafe",
})

# subtle: one import line, so that the cell fits a projector (tests/test_hosted.py: 13 lines);
# `ruff check notebooks` would split it into four (E401), hence its noqa
_FIRST_CELL = """\
# Opened on its own (on Colab, say)? This installs the kit; elsewhere: nothing.
import importlib.util, os, subprocess, sys  # noqa: E401
if importlib.util.find_spec("toolcall_lab") is None:
    kit = "git+{repository}@v{version}"
    kit = os.environ.get("{variable}", kit)
    print("No toolcall-lab in this kernel: installing it (about a minute) ...")
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", kit]
    done = subprocess.run(pip, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"pip could not install {{kit}}:\\n{{done.stderr}}")
    importlib.invalidate_caches()
    from toolcall_lab.teacher.hosted import install_lessons_packages
    install_lessons_packages()"""


def first_cell(*, version: str, repository: str) -> str:
    """The first code cell of every lesson, for the kit at `version` from `repository` (pyproject's
    `version` and `Source`); tests/test_hosted.py holds each lesson to it."""
    return _FIRST_CELL.format(version=version, repository=repository.removesuffix(".git"),
                              variable=KIT_VARIABLE)


def hosted_pins() -> list[Pin]:
    """The rows of the kit's lock that a lesson's first cell installs (markers kept: pip reads them)."""
    return [pin for pin in locked_pins() if pin.name in HOSTED]


def install_lessons_packages() -> None:
    """Install `hosted_pins()` with pip into this kernel's Python, then say whether to restart.

    Raises `ToolcallLabError` (one sentence; the end of pip's own message is printed above it)
    if pip fails.
    """
    pins = hosted_pins()
    before = {pin.name: installed_version(pin.name) for pin in pins}
    command = [sys.executable, "-m", "pip", "install", "-q", *(pin.requirement for pin in pins)]
    # subtle: pip's output is captured, not left to the kernel: a kernel may not pass a child
    # process's output on to the page (ipykernel 6.17, Colab's, did not here), and pip's reason
    # for failing is the one thing the learner needs to see
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        print("\n".join((done.stderr or done.stdout or "").strip().splitlines()[-20:]))
        raise ToolcallLabError("pip could not install the lessons' packages (its message is above); "
                               "check the network, then run this cell again.")
    importlib.invalidate_caches()
    replaced = {name for name, old in before.items() if old is not None and old != installed_version(name)}
    stale = _imported(replaced)
    from ..views.widgets._colab import enable_on_colab

    enable_on_colab()
    if stale:
        print(f"Installed. This kernel had already imported {', '.join(stale)}: restart it (on Colab: "
              "Runtime > Restart session), then run the lesson again from the top.")
    else:
        print("Installed: the kit and the packages the lessons were checked with. Carry on.")


def _imported(names: set[str]) -> list[str]:
    """Which of the distributions `names` this process has imported a module of, sorted."""
    from importlib.metadata import packages_distributions

    def key(name: str) -> str:  # PEP 503: "Pydantic_Core" and "pydantic-core" are one name
        return re.sub(r"[-_.]+", "-", name).lower()

    wanted = {key(name) for name in names}
    return sorted({key(dist) for module, dists in packages_distributions().items() if module in sys.modules
                   for dist in dists if key(dist) in wanted})
