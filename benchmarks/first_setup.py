"""A learner's first `python3 dev.py demo` on a fresh clone with empty caches: uv against pip.

    python3 benchmarks/first_setup.py [--runs 1]

Each run clones this repository's HEAD into a temporary folder twice and times the README's
first command there with every download cache empty (pip's, uv's, and no uv in .tools/ yet):
once by dev.py's own route (uv, fetched by dev.py itself) and once with
`TOOLCALL_LAB_INSTALLER=pip` (pip alone, the same locked versions), then a second start of the
uv clone, which installs nothing. It prints the times, the pip/uv ratio, the size of each
`.venv/` and its package count. The goal: first start at most 20 s on a quiet two-core
machine, the second at most 5 s. Needs the package index (it is what a first setup needs);
no assertion here: shared machines are noisy, so this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed_demo(clone: Path, cache: Path, installer: str) -> float:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("UV_", "TOOLCALL_LAB_")) and key != "VIRTUAL_ENV"}
    env.update(XDG_CACHE_HOME=str(cache), UV_CACHE_DIR=str(cache / "uv"), PIP_CACHE_DIR=str(cache / "pip"),
               TOOLCALL_LAB_INSTALLER=installer)
    started = time.perf_counter()
    subprocess.run([sys.executable, "dev.py", "demo"], cwd=clone, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def venv_size(clone: Path) -> tuple[float, int]:
    """(megabytes, installed distributions) of the clone's .venv/."""
    # subtle: lib64/ is a link to lib/ in a Linux venv, so each path is counted once, resolved
    files = {p.resolve() for p in (clone / ".venv").rglob("*") if p.is_file() and not p.is_symlink()}
    packages = {p.resolve() for p in (clone / ".venv").glob("*/*/site-packages/*.dist-info")}
    packages |= {p.resolve() for p in (clone / ".venv").glob("Lib/site-packages/*.dist-info")}
    return sum(p.stat().st_size for p in files) / 1e6, len(packages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    runs = parser.parse_args().runs
    firsts: dict[str, list[float]] = {"uv": [], "pip": []}
    seconds: list[float] = []
    sizes: dict[str, tuple[float, int]] = {}
    for _ in range(runs):
        for installer in ("uv", "pip"):
            work = Path(tempfile.mkdtemp(prefix="toolcall-lab-setup-"))
            try:
                clone = work / "kit"
                subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
                firsts[installer].append(timed_demo(clone, work / "cache", installer))
                sizes[installer] = venv_size(clone)
                if installer == "uv":
                    seconds.append(timed_demo(clone, work / "cache", installer))
            finally:
                shutil.rmtree(work, ignore_errors=True)
    uv, pip = statistics.median(firsts["uv"]), statistics.median(firsts["pip"])
    print(f"first `python3 dev.py demo`, fresh clone, empty caches ({runs} run{'s' * (runs > 1)}, median):")
    for name, value in (("uv (dev.py's route)", uv), ("pip (TOOLCALL_LAB_INSTALLER=pip)", pip)):
        megabytes, packages = sizes["uv" if name.startswith("uv") else "pip"]
        print(f"  {name:<34} {value:6.1f} s   .venv/ {megabytes:4.0f} MB, {packages} packages")
    print(f"  pip / uv: {pip / uv:.1f}x      goal: uv <= 20 s")
    print(f"second start (nothing to install): {statistics.median(seconds):.1f} s      goal: <= 5 s")


if __name__ == "__main__":
    main()
