"""The package ships `py.typed`, so its annotations are a promise: mypy --strict must agree.

The configuration (strict, Python 3.11, ipywidgets untyped) is `[tool.mypy]` in pyproject.toml,
so this test, `python3 dev.py lint` and a plain `mypy` in the project folder check the same.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def test_mypy_strict_finds_nothing():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with the dev extra: python3 dev.py test)")
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
