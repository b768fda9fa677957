"""The one-line swap, proven: every lesson runs top to bottom with each real provider.

Lesson 1 promises that changing one line (`provider = ...`) runs the same cells against a
real model. Here every notebook in notebooks/ is executed in a fresh kernel whose
environment picks the provider, the way a learner would:

    TOOLCALL_LAB_PROVIDER=anthropic  TOOLCALL_LAB_BASE_URL=<an ApiDouble's Anthropic URL>

once with no provider set (scripted, the default), then once for each of the four real
providers, whose official SDKs talk to an `ApiDouble` started here (one per provider,
shared by the notebooks) playing the lessons' weather model. No API key is set: a
loopback URL needs none. Outputs are not compared (strict nbval does that for the
committed, scripted run); a run passes when no cell produced an error.

Every run gets a fresh kernel, as a learner's "Restart Kernel and Run All Cells" does.
Kernels run one per core, at least two at a time (a small thread pool; each kernel is its
own process), with a per-cell timeout. Most of the time is imports in each new kernel
(the SDKs, jsonschema, matplotlib): about 15 s a lesson, so 2-3 minutes on two cores.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REAL_PROVIDERS

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(path.name for path in NOTEBOOK_DIR.glob("*.ipynb"))
#: None: TOOLCALL_LAB_PROVIDER unset, so every lesson takes the scripted provider.
SWAPS = [None, *REAL_PROVIDERS]
CELL_TIMEOUT = 120  # seconds, as for `dev.py notebooks` and nbval; a stalled cell fails, not hangs
WORKERS = max(2, os.cpu_count() or 1)
#: Variables a learner's shell might hold that would change which provider runs, or prove
#: nothing (a key): the kernels start without them.
CLEARED = ("TOOLCALL_LAB_PROVIDER", "TOOLCALL_LAB_MODEL", "TOOLCALL_LAB_BASE_URL",
           "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST")


def kernel_environment(provider: str | None, base_url: str | None) -> dict[str, str]:
    """This process's environment without keys or choices, plus the swap under test."""
    env = {name: value for name, value in os.environ.items() if name not in CLEARED}
    if provider is not None:
        env["TOOLCALL_LAB_PROVIDER"] = provider
        env["TOOLCALL_LAB_BASE_URL"] = base_url
    return env


def cell_errors(notebook_name: str, env: dict[str, str]) -> list[str]:
    """Run one lesson top to bottom; one line per cell that failed.

    A line reads "cell 46 `first source line` -> InvalidRequestError: its first line", with
    the cell's index in the notebook (from 0, markdown cells counted), as nbformat numbers it.
    """
    notebook = nbformat.read(NOTEBOOK_DIR / notebook_name, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=CELL_TIMEOUT, allow_errors=True, kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
    failures = []
    try:
        client.execute(env=env)
    except Exception as exc:  # a timeout or a dead kernel stops the run: say where
        failures.append(f"the run stopped: {type(exc).__name__}: {str(exc).strip().splitlines()[0]}")
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                head = next((line for line in cell.source.splitlines() if line.strip()), "")
                said = (output.evalue.splitlines() or [""])[0]
                failures.append(f"cell {index} `{head[:70]}` -> {output.ename}: {said[:300]}")
    return failures


@dataclass(repr=False)
class SwapRuns:
    """What the matrix found: each run's failing cells, and what reached each double."""

    failures: dict[tuple[str | None, str], list[str]]
    reached: dict[str, list[str]]  # provider -> the API of each request its double received

    def __repr__(self) -> str:  # pytest prints fixtures beside a failure: keep it one line
        return f"SwapRuns({len(self.failures)} lesson runs)"


@pytest.fixture(scope="module")
def swap_runs() -> SwapRuns:
    """Run the whole matrix (every lesson under every swap), a few kernels at a time."""
    from toolcall_lab.double import ApiDouble

    doubles = {name: ApiDouble().start() for name in REAL_PROVIDERS}  # the weather model
    try:
        jobs = {}
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for provider in SWAPS:
                url = doubles[provider].base_url(REAL_PROVIDERS[provider]) if provider else None
                env = kernel_environment(provider, url)
                for notebook in NOTEBOOKS:
                    jobs[provider, notebook] = pool.submit(cell_errors, notebook, env)
        return SwapRuns({key: job.result() for key, job in jobs.items()},
                        {name: [r.api for r in double.requests] for name, double in doubles.items()})
    finally:
        for double in doubles.values():
            double.stop()


@pytest.mark.parametrize("notebook", NOTEBOOKS)
@pytest.mark.parametrize("provider", SWAPS, ids=lambda p: p or "scripted")
def test_every_cell_runs_after_the_swap(swap_runs, provider, notebook):
    failures = swap_runs.failures[provider, notebook]
    chosen = f"TOOLCALL_LAB_PROVIDER={provider}" if provider else "TOOLCALL_LAB_PROVIDER unset"
    assert not failures, f"{notebook} with {chosen}:\n  " + "\n  ".join(failures)


@pytest.mark.parametrize("provider", REAL_PROVIDERS)
def test_the_swap_reaches_the_real_providers_api(swap_runs, provider):
    """Some lesson took its provider from the environment: its SDK called the double."""
    assert REAL_PROVIDERS[provider] in swap_runs.reached[provider], (
        f"no lesson sent anything to the {provider} API with TOOLCALL_LAB_PROVIDER={provider}: "
        "take the provider from provider_from_env(...)")
