"""The package ships `py.typed`, so its annotations are a promise: mypy --strict must agree.

The configuration (strict, Python 3.11, ipywidgets untyped) is `[tool.mypy]` in pyproject.toml,
so this test, `python3 dev.py lint` and a plain `mypy` in the project folder check the same.
mypy takes about 3 minutes with an empty cache (a fresh clone, CI), so it runs as a background
job (tests/background.py) from the moment collection ends; the test waits for its verdict.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

from background import Job, Step

ROOT = Path(__file__).parents[1]
MYPY = Job("mypy", lambda job: job.run(Step("mypy", (sys.executable, "-m", "mypy", "--no-error-summary"),
                                             cwd=ROOT)))


@pytest.mark.slow
@pytest.mark.background(MYPY)
def test_mypy_strict_finds_nothing():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with the dev extra: python3 dev.py test)")
    result = MYPY.value()
    assert result.returncode == 0, result.stdout + result.stderr
