"""The code is read by learners: ruff keeps it to the house style (config in pyproject.toml)."""

import importlib.util
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
_spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)
LINTED = dev.LINTED  # what `python3 dev.py lint` checks, and this test


@pytest.mark.slow
def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it comes with the dev extra: python3 dev.py test)")
    result = subprocess.run([ruff, "check", *LINTED], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_reads_the_lessons_with_the_code():
    # issue 30 §1: the lessons' code cells are linted with the rest (python3 dev.py lint too);
    # a notebook is let off only what a lesson's page needs, each rule with its reason in pyproject
    assert "notebooks" in LINTED
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert set(lint["per-file-ignores"]["notebooks/*.ipynb"]) <= {"F401", "I001"}


def test_ruff_holds_every_function_to_a_complexity_ceiling():
    # issue 20 §3: a learner reads a function top to bottom, so ruff's C901 caps its branches;
    # the ceiling only comes down (13: checks' _wrong_run_call and _wrong_on, the highest today)
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "C901" in lint["select"] and "C901" not in lint.get("ignore", [])
    assert lint["mccabe"]["max-complexity"] <= 13
    ignored = {path for path, rules in lint["per-file-ignores"].items() if "C901" in rules}
    assert ignored == set()  # no file is let off
