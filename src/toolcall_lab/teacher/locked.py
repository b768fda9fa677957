"""The versions the lessons were checked with: the lock, as the kit ships it.

`python3 dev.py lock` writes `data/locked.json` from uv.lock: every package of the `lab`
extra (the kit itself left out) at its locked version, with a PEP 508 marker where only some
platforms or Pythons need it. One name may have two rows, each with its marker (numpy for
Python before 3.12 and from 3.12 on); a row applies to a machine when its marker holds there.

    >>> pin = Pin("appnope", "1.0.0", "sys_platform == 'darwin'")
    >>> pin.requirement
    "appnope==1.0.0 ; sys_platform == 'darwin'"
    >>> applies(pin, environment={"sys_platform": "linux"}), applies(Pin("anyio", "4.16.0"))
    (False, True)

Markers are read by `packaging.markers`, imported on first use (JupyterLab, matplotlib and pip
itself depend on `packaging`, so it is nearly always there). Where it is not, `applies` says
None for a row with a marker: neither yes nor no, and the doctor counts such rows as not judged.

Left out: the hashes (requirements/lab.txt has them) and the dependency graph (uv.lock has it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

__all__ = ["Pin", "applies", "installed_version", "locked_pins", "same_version"]


@dataclass(frozen=True)
class Pin:
    """One row of the lock: a package, its locked version, and where it applies ("" = everywhere)."""

    name: str
    version: str
    marker: str = ""

    @property
    def requirement(self) -> str:
        """The row as pip reads it: `name==version`, then ` ; marker` if it has one."""
        return f"{self.name}=={self.version}" + (f" ; {self.marker}" if self.marker else "")


@cache
def locked_pins() -> tuple[Pin, ...]:
    """Every row of the shipped lock (`data/locked.json`), in its order (by name)."""
    from importlib.resources import files  # subtle: not at the top, so `import toolcall_lab` stays light

    data = json.loads((files("toolcall_lab") / "data" / "locked.json").read_text(encoding="utf-8"))
    return tuple(Pin(*row) for row in data["packages"])


def applies(pin: Pin, *, environment: Mapping[str, str] | None = None) -> bool | None:
    """Whether `pin` is for this machine: its marker holds here (or in `environment`, which
    overrides this machine's values, e.g. `{"sys_platform": "darwin"}`). None when the row has
    a marker and `packaging` cannot be imported to read it."""
    if not pin.marker:
        return True
    try:
        from packaging.markers import Marker
    except ImportError:
        return None
    return bool(Marker(pin.marker).evaluate(environment))


def installed_version(name: str) -> str | None:
    """The version of `name` installed where this Python looks, or None if it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def same_version(installed: str, locked: str) -> bool:
    """Whether two version strings name one version ("1.0" is "1.0.0" under PEP 440).

    >>> same_version("1.0", "1.0.0"), same_version("2.16.0", "2.17.0")
    (True, False)
    """
    if installed == locked:
        return True
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:
        return False  # without packaging, only the same text counts as the same version
    try:
        return Version(installed) == Version(locked)
    except InvalidVersion:
        return False
