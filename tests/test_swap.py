"""The one-line swap, proven: every lesson runs top to bottom with each real provider.

Lesson 1 promises that changing one line (`provider = ...`) runs the same cells against a
real model. Here every notebook in notebooks/ is executed in a fresh kernel whose
environment picks the provider, the way a learner would:

    TOOLCALL_LAB_PROVIDER=anthropic  TOOLCALL_LAB_BASE_URL=<an ApiDouble's Anthropic URL>

once with no provider set (scripted, the default), then once for each of the four real
providers, whose official SDKs talk to an API double started here (one per provider and
lesson, a `lesson_usage.MeterDouble`) playing the lessons' weather model.

The scripted run is the one strict nbval makes of the lesson, when this session ran nbval on
every cell of it: the same lesson in a fresh kernel of its own, in the same environment (no
provider, key or tape: tests/conftest.py clears them for the whole suite), with every output
compared as well, so a cell that raised fails there. tests/conftest.py runs the lessons before
this file and keeps what nbval saw (`NBVAL`); a scripted run fails with nbval's own lines.
When nbval did not run the lesson (`pytest tests/test_swap.py`), the run is made here. No API key is
set: a loopback URL needs none. Outputs are not compared (strict nbval does that for the
committed, scripted run); a run passes when no cell produced an error. What each lesson
sent is compared with the measurement `python -m toolcall_lab budget` prices
(src/toolcall_lab/data/lesson_usage.json), so a lesson that changes its requests says
to re-measure.

Every run gets a fresh kernel, as a learner's "Restart Kernel and Run All Cells" does.
Kernels run one per core, at least two at a time (the suite's one kernel pool,
tests/background.py; each kernel is its own process), with a per-cell timeout. The real
providers' runs (`MATRIX`) start as soon as collection ends, in the background, so they run
beside the in-process tests and fill the gaps the browser and hub checks leave; the tests
here wait for them. Most of a run is starting its kernel and the imports (the SDKs,
jsonschema, matplotlib): 3-7 s of CPU a lesson, which made the matrix nearly half of the suite.

So a lesson runs under a real provider only where the swap can change what it does (`PLAN`):
- A lesson that sends a request under any provider, by the committed measurement, runs under
  all four: that is lesson 1's promise.
- A lesson that takes its provider (`provider_from_env`) but sends nothing under any of them
  runs under one, the providers taken in turn over those lessons: it shows the cells take a
  real provider and still send nothing. If one starts sending, its measurement goes stale
  here and says to re-measure, and the new measurement puts it under all four.
- A lesson that never takes its provider runs under none: the swap is an environment
  variable only `provider_from_env` reads (a test below holds the package to that), so it
  runs as its scripted run does.
A lesson the committed measurement does not list runs under one provider, so the stale
measurement shows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from background import Job, kernels
from conftest import NBVAL, REAL_PROVIDERS
from toolcall_lab.teacher.lesson_usage import kernel_environment, load_usage, run_notebook

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(path.name for path in NOTEBOOK_DIR.glob("*.ipynb"))
#: What in a lesson's code reads the swap: the provider cell, or the environment variables it reads.
READS_THE_SWAP = ("provider_from_env", "TOOLCALL_LAB_PROVIDER", "TOOLCALL_LAB_MODEL", "TOOLCALL_LAB_BASE_URL")


def reads_the_swap(notebook: Path) -> bool:
    """Whether some code cell of the lesson takes its provider from the environment."""
    return any(cell.cell_type == "code" and any(word in cell.source for word in READS_THE_SWAP)
               for cell in nbformat.read(notebook, as_version=4).cells)


def swap_plan(notebooks: list[Path], measured: dict) -> dict[str, tuple[str, ...]]:
    """lesson file name -> the real providers it runs under (the rules in the docstring above).

    `measured` is lesson_usage.json's "providers": provider -> {"lessons": {stem: [requests]}}.
    """
    providers = list(REAL_PROVIDERS)
    plan, turn = {}, 0
    for path in notebooks:
        said = [measured.get(name, {}).get("lessons", {}).get(path.stem) for name in providers]
        if any(said):
            plan[path.name] = tuple(providers)
        elif reads_the_swap(path) or None in said:
            plan[path.name] = (providers[turn % len(providers)],)
            turn += 1
        else:
            plan[path.name] = ()
    return plan


PLAN = swap_plan([NOTEBOOK_DIR / name for name in NOTEBOOKS], load_usage()["providers"])
#: Every (provider, lesson) run the matrix makes: the scripted run of each, and `PLAN`'s.
RUNS = [(None, name) for name in NOTEBOOKS] + [(p, name) for name in NOTEBOOKS for p in PLAN[name]]
#: The kernels' environment, taken while the test modules are imported, before any test runs:
#: the real providers' runs start then, in the background, while tests change os.environ.
KERNEL_ENV = kernel_environment(None, None)


def cell_errors(notebook_name: str, env: dict[str, str]) -> list[str]:
    """Run one lesson top to bottom; one line per cell that failed (`lesson_usage.run_notebook`)."""
    return run_notebook(NOTEBOOK_DIR / notebook_name, env)


@dataclass(repr=False)
class SwapRuns:
    """What the matrix found: each run's failing cells, and what reached each provider's doubles."""

    failures: dict[tuple[str | None, str], list[str]]
    reached: dict[str, list[str]]  # provider -> the API of each request its doubles received
    metered: dict[tuple[str, str], list[dict]]  # (provider, lesson stem) -> its metered requests

    def __repr__(self) -> str:  # pytest prints fixtures beside a failure: keep it one line
        return f"SwapRuns({len(self.failures)} lesson runs)"


def real_provider_runs(job: Job) -> SwapRuns:
    """Each lesson under the real providers `PLAN` gives it, in the shared kernel pool (tests/background.py).

    Each (provider, lesson) run gets a `MeterDouble` of its own, so what one lesson sends is
    told apart from the others': the lesson budget's measurement, re-done for free.
    """
    from toolcall_lab.teacher.lesson_usage import MeterDouble

    doubles = {(name, notebook): MeterDouble().start() for name, notebook in RUNS if name}
    try:
        runs = {(name, notebook): kernels().submit(cell_errors, notebook, {
                    **KERNEL_ENV, "TOOLCALL_LAB_PROVIDER": name,
                    "TOOLCALL_LAB_BASE_URL": double.base_url(REAL_PROVIDERS[name])})
                for (name, notebook), double in doubles.items()}
        return SwapRuns({key: run.result() for key, run in runs.items()},
                        {name: [r.api for (p, _), d in doubles.items() if p == name for r in d.requests]
                         for name in REAL_PROVIDERS},
                        {(p, Path(n).stem): [asdict(r) for r in d.metered] for (p, n), d in doubles.items()})
    finally:
        for double in doubles.values():
            double.stop()


MATRIX = Job("swap", real_provider_runs)
# every test here waits for the kernels of the whole matrix, which start as collection ends
pytestmark = [pytest.mark.slow, pytest.mark.background(MATRIX)]


@pytest.fixture(scope="module")
def swap_runs() -> SwapRuns:
    """The whole matrix: the real providers' runs (`MATRIX`), and the scripted run of each lesson,
    strict nbval's or, where nbval did not run the lesson in this session, one made here."""
    real = MATRIX.value()
    scripted = {}
    for notebook in NOTEBOOKS:
        seen = NBVAL.verdict(NOTEBOOK_DIR / notebook)
        scripted[None, notebook] = (kernels().submit(cell_errors, notebook, KERNEL_ENV) if seen is None else
                                    [f"under strict nbval: {line}" for line in seen])
    failures = {key: run if isinstance(run, list) else run.result() for key, run in scripted.items()}
    return SwapRuns({**failures, **real.failures}, real.reached, real.metered)


@pytest.mark.parametrize(("provider", "notebook"), RUNS, ids=[f"{p or 'scripted'}-{n}" for p, n in RUNS])
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


@pytest.mark.parametrize("provider", REAL_PROVIDERS)
def test_the_committed_lesson_measurement_is_current(swap_runs, provider):
    """`python -m toolcall_lab budget` prices data/lesson_usage.json: it must be what the lessons send."""
    committed = load_usage()["providers"].get(provider, {}).get("lessons", {})
    stale = [f"{stem}: the file says {len(committed.get(stem, []))} requests, "
             f"{sum(r['input'] for r in committed.get(stem, []))} input tokens; the lessons now send "
             f"{len(sent)}, {sum(r['input'] for r in sent)}"
             for (p, stem), sent in sorted(swap_runs.metered.items())
             if p == provider and committed.get(stem) != sent]
    lessons = {Path(name).stem for name in NOTEBOOKS}
    stale += [f"{stem}: measured, but no such notebook any more" for stem in committed if stem not in lessons]
    assert not stale, (f"src/toolcall_lab/data/lesson_usage.json is stale for {provider}:\n  "
                       + "\n  ".join(stale)
                       + "\nre-run `python -m toolcall_lab budget --measure` to refresh lesson_usage.json.")
