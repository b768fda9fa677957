"""Lesson 1 in a real browser: JupyterLab shows its widget, its diagram and its figures as pictures,
with no JavaScript error.

Runs tests/browser/check_lesson.py (headless Debian Chromium driven by Playwright), first as a
maintainer would, on every lesson, then on notebooks written here, to show that the check
recognises a widget, a Mermaid diagram and a figure, and that it fails when something is broken.
The check of every lesson (seven minutes under load, the longest of the suite) needs nothing but
the checkout, so it runs as a background job (tests/background.py) from the moment collection
ends, beside the quick tests and the lessons under nbval; its test waits for the verdict.

Without /usr/bin/chromium or the `playwright` package the tests skip and say what is missing;
under CI (CI=true) they fail instead, because .ci/run installs both.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from background import Job, Step

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "tests" / "browser" / "check_lesson.py"
LESSONS = ROOT / "notebooks"


def require_browser() -> None:
    """Skip when Chromium or Playwright is missing; under CI, fail, since CI must run the check."""
    if not Path("/usr/bin/chromium").exists():
        why = "/usr/bin/chromium is missing (Debian: apt-get install chromium)"
    elif importlib.util.find_spec("playwright") is None:
        why = "the Python package playwright is missing (it is in the dev extra: rerun python3 dev.py test)"
    else:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the browser check, but {why} "
                    "(.ci/run installs Chromium, dev.py installs Playwright)")
    pytest.skip(why)


def load_checker(script: Path = SCRIPT, name: str = "browser_check_lesson"):
    spec = importlib.util.spec_from_file_location(name, script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # subtle: dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's header: the IHDR chunk follows the 8-byte signature."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def notebook(path: Path, *sources: str) -> Path:
    """Write a notebook of code cells, unexecuted, to `path`."""
    cells = [{"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {},
              "outputs": [], "source": source} for i, source in enumerate(sources)]
    kernel = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    path.write_text(json.dumps({"cells": cells, "metadata": {"kernelspec": kernel},
                                "nbformat": 4, "nbformat_minor": 5}))
    return path


#: Every live process below a pid, read from /proc (Linux): the hub class's own reader.
descendants = load_checker(SCRIPT.parent / "hub_class.py", "browser_hub_class").descendants


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def every_lesson_in_the_browser(job: Job) -> tuple[dict[Path, bytes], subprocess.CompletedProcess]:
    """The lessons as they were when the check started, and what the check of all of them did.

    subtle: a timeout, or the session's end, stops the script with SIGTERM first (Job.run), so
    its `finally` blocks stop JupyterLab, its kernels and Chromium. The time limit is generous:
    beside the rest of the suite and three other test runs (load 10-17), 30 lessons took over
    900 s; each lesson's own run is bounded by the check (300 s)."""
    committed = {path: path.read_bytes() for path in sorted(LESSONS.glob("*.ipynb"))}
    return committed, job.run(Step("check_lesson", (sys.executable, str(SCRIPT)), cwd=ROOT, timeout=2400))


EVERY_LESSON = Job("browser", every_lesson_in_the_browser)


@pytest.mark.slow
@pytest.mark.background(EVERY_LESSON)
def test_every_lesson_runs_in_a_browser_with_its_widgets_and_diagrams():
    require_browser()
    committed, done = EVERY_LESSON.value()
    lessons = list(committed)
    assert done.returncode == 0, f"the browser check failed:\n{done.stdout}{done.stderr}"
    assert f"{len(lessons)} passed, 0 failed" in done.stdout
    for path in lessons:
        screenshot = ROOT / "build" / "browser" / f"{path.stem}.png"
        assert f"screenshot {screenshot}" in done.stdout
        assert png_size(screenshot) == (1280, 720)  # the projector size
        assert path.read_bytes() == committed[path]  # never saved


def test_each_lesson_is_held_to_what_its_committed_outputs_show():
    checker = load_checker()
    expected = {path.name: checker.expected_outputs(path)
                for path in sorted((ROOT / "notebooks").glob("*.ipynb"))}
    assert expected["01_one_tool_call.ipynb"] == ("widget", "diagram")  # the lesson 1 check
    # every lesson shows a widget; the start page is text and one warm-up question
    assert all("widget" in kinds for name, kinds in expected.items() if not name.startswith("00_"))
    assert expected["00_start_here.ipynb"] == ()
    figures = {path.name: checker.figure_cells(path) for path in sorted((ROOT / "notebooks").glob("*.ipynb"))}
    assert len(figures["02_why_tool_calling.ipynb"]) >= 1  # the loop-tokens figure
    assert len(figures["05_the_bill.ipynb"]) >= 1  # estimated vs billed
    assert len(figures["06_caching_and_threads.ipynb"]) >= 2  # caching, upload vs bill


@pytest.mark.slow
def test_the_check_sees_widgets_and_diagrams_and_catches_what_is_broken(tmp_path):
    require_browser()
    good = notebook(tmp_path / "browser_good.ipynb",
                    "import ipywidgets\nipywidgets.Button(description='Next')",
                    "from IPython.display import display\n"
                    "display({'text/vnd.mermaid': 'sequenceDiagram\\n  A->>B: hi'}, raw=True)",
                    TRICKY_DIAGRAM,
                    "from toolcall_lab.views.plots import plot_loop_tokens\nplot_loop_tokens(3, 100, 10)")
    # a plot function that returns a bare matplotlib Figure: `<Figure size ...>` text, no picture
    figure_as_text = notebook(tmp_path / "browser_figure_as_text.ipynb",
                              "import ipywidgets\nipywidgets.Button(description='Next')",
                              "from IPython.display import display\n"
                              "display({'text/vnd.mermaid': 'sequenceDiagram\\n  A->>B: hi'}, raw=True)",
                              "from matplotlib.figure import Figure\n"
                              "def plot_bare():\n    return Figure().add_subplot().figure",
                              "plot_bare()",
                              "from toolcall_lab.views.plots import plot_caching\nplot_caching(3, 100, 10)")
    # one good diagram must not hide a broken one
    half_broken = notebook(tmp_path / "browser_half_broken.ipynb",
                           "import ipywidgets\nipywidgets.Button(description='Next')",
                           "from IPython.display import display\n"
                           "display({'text/vnd.mermaid': 'sequenceDiagram\\n  A->>B: hi'}, raw=True)",
                           "display({'text/vnd.mermaid': 'sequenceDiagram\\n  A-->>>>: ??'}, raw=True)")
    broken = notebook(
        tmp_path / "browser_broken.ipynb",
        "from IPython.display import Javascript, display",
        # a widget whose model does not exist: drawn as "Error displaying widget"
        "display({'application/vnd.jupyter.widget-view+json':"
        " {'model_id': 'missing', 'version_major': 2, 'version_minor': 0}}, raw=True)",
        "display({'text/vnd.mermaid': 'sequenceDiagram\\n  A-->>>>: ??'}, raw=True)",  # does not parse
        "display(Javascript(\"console.error('logged'); setTimeout(() => { throw new Error('thrown') })\"))",
        "1 / 0",
        "'never runs: Run All stops at the error'",
    )
    checker = load_checker()
    good_report, broken_report, half_report, text_report = checker.check(
        [good, broken, half_broken, figure_as_text], screenshots=tmp_path / "shots", run_timeout=120,
        render_timeout=3)

    assert good_report.problems == []  # the kit's diagram of hostile text parses and draws
    assert len(half_report.problems) == 1 and half_report.problems[0].startswith(
        "a Mermaid diagram did not parse"), half_report.problems
    assert png_size(tmp_path / "shots" / "browser_good.png") == (1280, 720)
    assert [problem.split(":")[0] for problem in text_report.problems] == [
        "a figure shows as text, not as a picture",
        "1 figure(s) drawn as images, expected at least 2 (one per figure cell)"], text_report.problems
    assert "<Figure size 640x480 with 1 Axes>" in text_report.problems[0]
    problems = "\n".join(broken_report.problems)
    for expected in ("console error: logged", "uncaught JavaScript error: thrown",
                     "console error: Error: widget model not found",
                     "cell 4 raised ZeroDivisionError: division by zero",
                     "cell 5 did not run (no execution count)",
                     "no ipywidgets widget rendered", "no Mermaid diagram rendered",
                     "a Mermaid diagram did not parse"):
        assert expected in problems
    assert len(broken_report.problems) == 8, problems


# Text a model or a tool could send, in every place the diagram shows text.
TRICKY_DIAGRAM = """\
from toolcall_lab import Message, ToolCall, ToolResult, Transcript
from toolcall_lab.views.display import sequence_diagram
nasty = 'a;b #1 <b>x</b> & "q" `t` %% end\\nwrap: 100% -->> C'
call = ToolCall('id;<1>\\n', 'get_<w>;eather\\n', {'city': nasty})
sequence_diagram(Transcript(messages=[
    Message.user(nasty), Message.assistant(nasty, call),
    Message.results([ToolResult(call.id, nasty, is_error=True)]), Message.assistant(nasty)]))
"""


@pytest.mark.slow
def test_a_stopped_check_leaves_no_jupyterlab_kernel_or_chromium_behind(tmp_path):
    require_browser()
    # its own screenshot folder: the check of every lesson (above) may be filling build/browser
    script = subprocess.Popen([sys.executable, str(SCRIPT), "--screenshots", str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, seen = time.monotonic() + 120, set()
        # wait until JupyterLab and Chromium both run below the script
        while not any(b"chromium" in cmdline(pid) for pid in seen) and time.monotonic() < deadline:
            time.sleep(0.5)
            seen |= descendants(script.pid)
        assert any(b"jupyter" in cmdline(pid) for pid in seen), "JupyterLab never started"
        time.sleep(3)  # let the notebook open, so a kernel is running too
        seen |= descendants(script.pid)
        script.terminate()  # what a timeout or a cancelled CI job does
        script.wait(timeout=90)
    finally:
        if script.poll() is None:
            script.kill()
    time.sleep(1)
    left = sorted(pid for pid in seen if alive(pid))
    assert not left, f"still running after the check stopped: {[cmdline(pid)[:80] for pid in left]}"


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return b""
