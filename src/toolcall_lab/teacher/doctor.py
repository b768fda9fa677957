"""`python -m toolcall_lab doctor`: does this environment have the versions the lessons were checked with?

The lessons' committed outputs were made with the packages of the lock (`teacher.locked`). A
learner who installed the kit by hand may have other versions, and a page can then differ
from the one the teacher shows. The doctor compares each locked package that applies to this
machine with what is installed, lists the ones that differ or are missing, and prints the
one command that aligns them:

- in a clone (requirements/lab.txt beside the package's source): `python -m pip install -r
  requirements/lab.txt`, the whole lock with its hashes;
- anywhere else: `python -m pip install "name==version" ...` for exactly the packages listed.

    >>> found = checkup(pins=[Pin("anthropic", "2.17.0"), Pin("mcp", "2.3.0"), Pin("anyio", "4.16.0")],
    ...                 installed={"anthropic": "2.16.0", "anyio": "4.16.0"}.get, clone=None)
    >>> print(found.report())
    2 of the 3 packages the lessons were checked with differ here:
      anthropic  2.16.0 installed, 2.17.0 locked
      mcp        not installed, 2.3.0 locked
    To install the locked versions:
      python -m pip install "anthropic==2.17.0" "mcp==2.3.0"

On Colab the notebook server and the kernel are Colab's own, and a lesson's first cell leaves
them as they are (`teacher.hosted`), so there the doctor checks only the packages that cell
installs. It names nothing of a package but its name and version. Exit status: 0 when
everything matches, 1 otherwise.

Left out: packages installed beyond the lock (they change no lesson), and the kit itself.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..views.widgets._colab import on_colab
from .hosted import HOSTED
from .locked import Pin, applies, installed_version, locked_pins, same_version

__all__ = ["Checkup", "Drift", "check_environment", "checkup", "doctor", "requirements_file"]


@dataclass(frozen=True)
class Drift:
    """A locked package that is not at its locked version here (`installed` None: not installed)."""

    name: str
    locked: str
    installed: str | None

    @property
    def line(self) -> str:
        """What the doctor prints after the name: "2.16.0 installed, 2.17.0 locked"."""
        here = "not installed" if self.installed is None else f"{self.installed} installed"
        return f"{here}, {self.locked} locked"


@dataclass(frozen=True)
class Checkup:
    """What the doctor found: how many locked packages apply here, which of them differ, how many
    rows it could not judge (a marker, and no `packaging` to read it), and the clone's
    requirements file if there is one (a path as the command should spell it)."""

    checked: int
    drifts: tuple[Drift, ...]
    unjudged: int = 0
    clone: str | None = None
    has_pip: bool = True  # an environment made by uv has none until one is put in it

    @property
    def ok(self) -> bool:
        return not self.drifts

    @property
    def command(self) -> str:
        """The one command that installs the locked versions ("" when nothing differs)."""
        if self.ok:
            return ""
        if self.clone:
            return f"python -m pip install -r {self.clone}"
        return "python -m pip install " + " ".join(f'"{d.name}=={d.locked}"' for d in self.drifts)

    def report(self) -> str:
        """The doctor's page: a verdict, one line per package that differs, the command."""
        if self.ok:
            lines = [f"All {self.checked} packages the lessons were checked with are installed "
                     "at their locked versions."]
        else:
            width = max(len(d.name) for d in self.drifts) + 2
            lines = [f"{len(self.drifts)} of the {self.checked} packages the lessons were checked with "
                     "differ here:", *(f"  {d.name:<{width}}{d.line}" for d in self.drifts),
                     "To install the locked versions:", f"  {self.command}"]
            if not self.has_pip:
                lines.append("(This Python has no pip yet: `python -m ensurepip` gives it one.)")
        if self.unjudged:
            lines.append(f"(Not judged, for want of `packaging` to read their markers: {self.unjudged} "
                         "of the lock's rows for some platforms only.)")
        return "\n".join(lines)


def requirements_file(cwd: Path | None = None) -> str | None:
    """requirements/lab.txt of the clone this kit runs from (an editable install of its src/),
    spelled relative to `cwd` when it is below it; None for a kit installed as a package."""
    root = Path(__file__).resolve().parents[3]  # src/toolcall_lab/teacher/doctor.py -> the clone
    found = root / "requirements" / "lab.txt"
    if not (root / "src" / "toolcall_lab").is_dir() or not found.is_file():
        return None
    here = (cwd or Path.cwd()).resolve()
    return found.relative_to(here).as_posix() if found.is_relative_to(here) else str(found)


def checkup(*, pins: Iterable[Pin] | None = None, installed: Callable[[str], str | None] | None = None,
            clone: str | None = "", hosted: bool | None = None) -> Checkup:
    """Compare the locked packages that apply here with `installed` (name -> version or None;
    default `locked.installed_version`, what this Python finds).

    `pins` defaults to the shipped lock, and on Colab (`hosted` None: as detected) to the
    packages a lesson's first cell installs there; `clone` "" finds the requirements file
    (`requirements_file`), None says there is none.
    """
    installed = installed or installed_version
    if hosted is None:
        hosted = on_colab()
    rows = list(locked_pins() if pins is None else pins)
    if hosted:
        rows = [pin for pin in rows if pin.name in HOSTED]
        clone = None  # the clone's file holds the whole lock, the notebook server's packages too
    verdicts = [(pin, applies(pin)) for pin in rows]
    here = [pin for pin, verdict in verdicts if verdict]
    drifts = []
    for pin in here:
        version = installed(pin.name)
        if version is None or not same_version(version, pin.version):
            drifts.append(Drift(pin.name, pin.version, version))
    return Checkup(len(here), tuple(drifts), unjudged=sum(verdict is None for _, verdict in verdicts),
                   clone=requirements_file() if clone == "" else clone,
                   has_pip=importlib.util.find_spec("pip") is not None)


def doctor() -> int:
    """`python -m toolcall_lab doctor`: print the checkup; 0 when everything matches, else 1."""
    found = checkup()
    print(found.report())
    return 0 if found.ok else 1


def check_environment() -> None:
    """Print one line for the start page: does this environment have the lessons' versions?

    It never stops a lesson: whatever goes wrong while checking becomes that one line too.
    """
    try:
        found = checkup()
    except Exception:  # a check on the start page must never be what stops it
        print("Could not compare this environment with the versions the lessons were checked with; "
              "`python -m toolcall_lab doctor` in a terminal says more.")
        return
    if found.ok:
        print(f"This environment has the versions the lessons were checked with ({found.checked} packages).")
    else:
        print(f"{len(found.drifts)} of the {found.checked} packages the lessons were checked with differ "
              "here: `python -m toolcall_lab doctor` in a terminal (or `!python -m toolcall_lab doctor` "
              "in a cell) lists them and the one command that aligns them.")
