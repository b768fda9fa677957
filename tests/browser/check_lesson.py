"""Open a lesson in a real browser, run every cell, and check what a learner would see.

    .venv/bin/python tests/browser/check_lesson.py                        # every lesson
    .venv/bin/python tests/browser/check_lesson.py 03_on_the_wire.ipynb   # another lesson
    .venv/bin/python tests/browser/check_lesson.py /tmp/scratch.ipynb     # any notebook file
    .venv/bin/python tests/browser/check_lesson.py --theme dark --screenshots build/browser/dark

Strict nbval proves that every output a lesson stores is right; it cannot prove that
JupyterLab *shows* it. This script does what a learner does, in Debian's Chromium driven by
Playwright, at the projector size of 1280x720:

1. copies notebooks/ into a temporary folder (a notebook given by path is copied there too),
   so JupyterLab never writes into a committed file: it autosaves, and its Mermaid renderer
   even adds an `image/svg+xml` copy of each diagram to the outputs it holds;
2. starts the venv's JupyterLab there, headless, on a free port with a known token, with its
   own empty settings and workspaces (and JupyterLab Dark with `--theme dark`), and waits
   for /api/status;
3. opens each notebook (the first by its URL, each later one in the same JupyterLab once the
   one before is closed), runs all cells with JupyterLab's own
   `notebook:run-all-cells` command, and waits until the kernel is idle;
4. checks that every code cell ran (has an execution count) and raised nothing, that what
   the committed notebook shows also renders (`expected_outputs`: a visible ipywidgets
   widget, a Mermaid diagram drawn to an SVG image; a scratch notebook with no saved
   outputs must show both), that no Mermaid diagram failed to parse, that every figure
   cell shows a picture (`figure_cells`: at least that many PNG images decoded in the
   outputs, and no output reading `<Figure size ...>`), and that no JavaScript error was
   logged (uncaught errors and console errors);
5. scrolls the first diagram (or else widget) into view, saves a full-page screenshot,
   build/browser/<notebook>.png, and prints its path.

It exits 0 when every check passes, and 1 with one line per problem otherwise. Lesson 1 takes
about 15 seconds (5 to start JupyterLab and Chromium, 5 to open the notebook, 5 to run it),
each further lesson about 10; a missing widget or diagram adds the 30 seconds the check
waits for each.

Left out: Playwright's own browser download (it cannot reach the internet here, and Debian's
Chromium is enough), other browsers, and comparing screenshots pixel by pixel (fonts and
anti-aliasing differ between machines; the screenshot is for a human to look at).

Only the standard library is imported at the top: Playwright is imported inside `check`, so
collecting this file (pytest's --doctest-modules does) needs nothing installed.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CHROMIUM", "DEFAULT_NOTEBOOKS", "EXPECTABLE", "SCREENSHOTS", "THEMES", "Report", "cell_problems",
           "check", "ends_with_a_plot", "expected_outputs", "figure_cells", "harmless", "jupyter_lab", "main"]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")  # Debian's package `chromium`
#: Every lesson, in order: what `check` opens when it is given no notebook.
DEFAULT_NOTEBOOKS = tuple(sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb")))
SCREENSHOTS = ROOT / "build" / "browser"  # build/ is git-ignored
VIEWPORT = {"width": 1280, "height": 720}  # the projector size every lesson is written for
TOKEN = "browser-check"  # the server listens on 127.0.0.1 only, for the length of one check
#: JupyterLab's built-in themes, by the name `--theme` takes.
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}

# What counts as rendered. An ipywidgets 8 view is an element with the class `jupyter-widgets`
# inside an output. subtle: a widget whose model is missing is drawn as the *output itself*
# with that class and the text "Error displaying widget", and a view that failed to load as
# `.widget-error`; neither may count, hence the descendant selector and the :not().
WIDGET = ".jp-OutputArea-output .jupyter-widgets:not(.widget-error)"
# JupyterLab >= 4.1 renders `text/vnd.mermaid` into `.jp-RenderedMermaid` as a <figure> holding
# an <img> whose src is the SVG as a data URL; a diagram that does not parse gets the class
# `jp-mod-warning` and shows the parser's message in a <details> instead.
MERMAID_SVG = ".jp-RenderedMermaid:not(.jp-mod-warning) figure img[src^='data:image/svg+xml']"
MERMAID_WARNING = ".jp-RenderedMermaid.jp-mod-warning"
# True once every Mermaid output has either drawn its image or been marked with a warning.
MERMAID_SETTLED_JS = """
() => [...document.querySelectorAll('.jp-RenderedMermaid')].every(
  el => el.classList.contains('jp-mod-warning') || el.querySelector('figure img'))
"""
# A figure shows as an `image/png` output, which JupyterLab draws as an <img> with a data URL.
# subtle: an <img> is in the page before its data is decoded; only naturalWidth > 0 means pixels.
FIGURE_IMAGE = ".jp-OutputArea-output img[src^='data:image/png']"
FIGURES_DRAWN_JS = """
({selector, count}) => [...document.querySelectorAll(selector)]
  .filter(i => i.complete && i.naturalWidth > 0).length >= count
"""
# What a matplotlib Figure with no image repr shows instead of itself.
FIGURE_AS_TEXT_JS = """
() => [...document.querySelectorAll('.jp-OutputArea-output')]
  .map(el => el.innerText.trim()).filter(text => text.startsWith('<Figure'))
"""

# Console errors that say nothing about the lessons: substring -> why it is harmless. Anything
# else logged at level "error", and every uncaught exception, fails the check. JupyterLab 4.6
# in Debian's Chromium otherwise logs no error while opening and running a lesson (its news and
# update checks, which would need the internet, are off: see dev.py LAB_OVERRIDES).
HARMLESS_CONSOLE_ERRORS: dict[str, str] = {
    "Could not restore the debugger state: Canceled future for debug_request":
        "JupyterLab's debugger asks a newly opened notebook's kernel for its debug state; when "
        "Restart Kernel and Run All restarts that kernel before it answers, JupyterLab cancels "
        "the request and logs this (seen once in a fresh-clone CI run, on the first notebook "
        "opened). No cell, output or widget of the lesson is involved.",
}


def harmless(message: str) -> bool:
    """Whether a console error is well-known noise listed in HARMLESS_CONSOLE_ERRORS.

    >>> harmless("Uncaught TypeError: Cannot read properties of undefined")
    False
    """
    return any(pattern in message for pattern in HARMLESS_CONSOLE_ERRORS)


@dataclass
class Report:
    """What the check saw in one notebook; `problems` is empty when it looks right."""

    notebook: str
    screenshot: Path | None = None
    problems: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # step -> time it took

    @property
    def ok(self) -> bool:
        return not self.problems


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def isolated_environment(home: Path, *, theme: str = "light") -> dict[str, str]:
    """Jupyter's and IPython's folders inside `home`, so the check neither reads nor changes
    the settings, workspaces or kernels of whoever runs it. The venv's own settings (dev.py's
    overrides: no news, no update check) still apply; they live in .venv/share. `theme` is a
    key of THEMES."""
    settings = home / "config" / "lab" / "user-settings" / "@jupyterlab"
    (settings / "notebook-extension").mkdir(parents=True, exist_ok=True)
    # subtle: JupyterLab 4 "windows" long notebooks (cells far off screen are not laid out, or
    # not in the page at all), so a widget near the end could look missing. Render every cell.
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}))
    (settings / "apputils-extension").mkdir(exist_ok=True)
    (settings / "apputils-extension" / "themes.jupyterlab-settings").write_text(
        json.dumps({"theme": THEMES[theme]}))
    return {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"), "IPYTHONDIR": str(home / "ipython")}


@contextlib.contextmanager
def jupyter_lab(root_dir: Path, home: Path, *, timeout: float = 90, theme: str = "light") -> Iterator[str]:
    """Run the venv's JupyterLab on `root_dir` until the block ends; yields its base URL.

    The app object is exposed in the page (`window.jupyterapp`) so the check runs
    JupyterLab's own commands instead of clicking through menus whose labels may change.
    """
    port = free_port()
    jupyter = Path(sys.executable).with_name("jupyter")  # the venv's, as `dev.py lab` starts it
    command = [str(jupyter), "lab", "--no-browser", f"--ServerApp.root_dir={root_dir}",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={TOKEN}", "--LabApp.expose_app_in_browser=True"]
    if is_root():
        command.append("--allow-root")  # containers and CI machines run as root
    env = isolated_environment(home, theme=theme)
    log_path = home / "jupyterlab.log"
    with open(log_path, "w") as log:
        # its own process group, so the kernels it starts can be stopped with it, whatever happens
        server = subprocess.Popen(command, cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/api/status?token={TOKEN}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    why = "it exited" if server.poll() is not None else f"no answer in {timeout:.0f} s"
                    tail = log_path.read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"JupyterLab did not start ({why}); its log ends:\n{tail}") from None
                time.sleep(0.3)
        yield base_url
    finally:
        server.terminate()  # it shuts its kernels down on the way out
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        # subtle: a server that was killed, or that failed to stop a kernel, leaves orphans behind
        # in its group; the group outlives its leader, so end whatever is left of it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(server.pid, signal.SIGKILL)


# Runs in the page once the notebook's tab exists: wait for its kernel, run every cell with
# JupyterLab's own command, wait until the kernel is idle, and describe each code cell. The
# whole of it is bounded by `timeoutMs` (page.evaluate itself never times out).
RUN_ALL_JS = """
async ({path, timeoutMs}) => {
  const deadline = Date.now() + timeoutMs;
  const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
  // subtle: every await is raced against the deadline; a kernel that never starts must not hang.
  const until = promise => Promise.race([promise.then(() => true),
                                         sleep(Math.max(0, deadline - Date.now())).then(() => false)]);
  const app = window.jupyterapp;
  if (!await until(app.restored)) return {kernel: 'not reached (JupyterLab did not load)', cells: []};
  let panel;
  while (!(panel = [...app.shell.widgets('main')].find(w => w.context?.path === path))) {
    if (Date.now() > deadline) return {kernel: 'no tab for ' + path, cells: []};
    await sleep(100);
  }
  if (!await until(Promise.all([panel.context.ready, panel.sessionContext.ready]))) {
    return {kernel: 'not ready in time', cells: []};
  }
  await until(app.commands.execute('notebook:run-all-cells', {}));
  const kernel = () => panel.sessionContext.session?.kernel;
  while (kernel() && kernel().status !== 'idle' && Date.now() < deadline) await sleep(100);
  return {
    kernel: kernel() ? kernel().status : 'gone',
    cells: panel.content.widgets
      .map((cell, index) => ({index, cell}))
      .filter(({cell}) => cell.model.type === 'code')
      .map(({index, cell}) => ({
        index,
        count: cell.model.executionCount,
        errors: cell.model.outputs.toJSON()
          .filter(output => output.output_type === 'error')
          .map(output => `${output.ename}: ${output.evalue}`),
      })),
  };
}
"""


def cell_problems(state: dict) -> list[str]:
    """The problems in what RUN_ALL_JS returned: a busy kernel, cells that did not run or raised.

    Cells are numbered from 0 in notebook order, markdown cells included, as JupyterLab does.

    >>> cell_problems({"kernel": "idle", "cells": [{"index": 0, "count": 1, "errors": []}]})
    []
    >>> for problem in cell_problems({"kernel": "busy", "cells": [
    ...         {"index": 2, "count": 1, "errors": ["ZeroDivisionError: division by zero"]},
    ...         {"index": 3, "count": None, "errors": []}]}):
    ...     print(problem)
    the kernel is busy, not idle
    cell 2 raised ZeroDivisionError: division by zero
    cell 3 did not run (no execution count)
    """
    problems = [] if state["kernel"] == "idle" else [f"the kernel is {state['kernel']}, not idle"]
    for cell in state["cells"]:
        problems += [f"cell {cell['index']} raised {error}" for error in cell["errors"]]
        if cell["count"] is None:
            problems.append(f"cell {cell['index']} did not run (no execution count)")
    if not state["cells"]:
        problems.append("the notebook has no code cell")
    return problems


#: The kinds of rich output the check can expect, by the MIME type a notebook saves for them.
EXPECTABLE = {"widget": "application/vnd.jupyter.widget-view+json", "diagram": "text/vnd.mermaid"}


def expected_outputs(notebook: Path) -> tuple[str, ...]:
    """What must render in the browser: the kinds of rich output the saved notebook shows.

    A lesson is committed executed, so its saved outputs say what a learner should see: a
    widget, a Mermaid diagram, or both. A notebook saved with no outputs at all (a scratch
    notebook) is held to both.

    >>> import json, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "n.ipynb"
    >>> _ = path.write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": [
    ...     {"output_type": "display_data", "data": {"text/vnd.mermaid": "sequenceDiagram"}}]}]}))
    >>> expected_outputs(path)
    ('diagram',)
    """
    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    outputs = [o for c in cells if c.get("cell_type") == "code" for o in c.get("outputs", [])]
    if not outputs:
        return tuple(EXPECTABLE)
    shown = {mime for o in outputs for mime in o.get("data", {})}
    return tuple(kind for kind, mime in EXPECTABLE.items() if mime in shown)


def ends_with_a_plot(source: str) -> bool:
    """Whether a cell's last statement is an expression calling a `plot_...` function.

    Such a cell's value is a figure, which must show as a picture.

    >>> ends_with_a_plot("from toolcall_lab.views.plots import plot_caching\\nplot_caching(model='x')")
    True
    >>> [ends_with_a_plot(s) for s in ("fig = plot_caching()", "plots.plot_caching();", "%time x", "")]
    [False, True, False, False]
    """
    try:
        body = ast.parse(source).body
    except SyntaxError:  # IPython syntax such as a %magic: not a plot call
        return False
    last = body[-1] if body else None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
        return False
    function = last.value.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return name.startswith("plot_")


def figure_cells(notebook: Path) -> list[int]:
    """The figure cells of a notebook (indices from 0, markdown cells counted, as JupyterLab does).

    A figure cell ends with a `plot_...` call (`ends_with_a_plot`; its committed output
    may be stale) or has an `image/png` among its committed outputs. Each must show a picture.

    >>> import json, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "n.ipynb"
    >>> _ = path.write_text(json.dumps({"cells": [
    ...     {"cell_type": "markdown", "source": "# A figure"},
    ...     {"cell_type": "code", "source": "plot_loop_tokens()", "outputs": []},
    ...     {"cell_type": "code", "source": "show()", "outputs": [{"data": {"image/png": "iVBO"}}]},
    ...     {"cell_type": "code", "source": ["fig = plot_loop_tokens()"], "outputs": []}]}))
    >>> figure_cells(path)
    [1, 2]
    """
    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    return [index for index, cell in enumerate(cells) if cell.get("cell_type") == "code" and (
        ends_with_a_plot("".join(cell.get("source", "")))
        or any("image/png" in output.get("data", {}) for output in cell.get("outputs", [])))]


def figure_problems(page, timeout_error: type[Exception], timeout: float, figures: int) -> list[str]:
    """Wait up to `timeout` seconds for `figures` PNG images to decode; name a figure shown as text."""
    problems = [f"a figure shows as text, not as a picture: {text!r}"
                for text in page.evaluate(FIGURE_AS_TEXT_JS)]
    if figures:
        try:
            page.wait_for_function(FIGURES_DRAWN_JS, arg={"selector": FIGURE_IMAGE, "count": figures},
                                   timeout=timeout * 1000)
        except timeout_error:
            drawn = page.locator(FIGURE_IMAGE).evaluate_all(
                "images => images.filter(i => i.complete && i.naturalWidth > 0).length")
            problems.append(f"{drawn} figure(s) drawn as images, expected at least {figures} (one per "
                            f"figure cell): nothing else matches {FIGURE_IMAGE} with pixels")
    return problems


def rendering_problems(page, timeout_error: type[Exception], timeout: float,
                       expect: Sequence[str] = tuple(EXPECTABLE)) -> list[str]:
    """Wait up to `timeout` seconds for each expected kind of output; name the missing."""
    problems = []
    wanted = {"widget": ("ipywidgets widget", WIDGET), "diagram": ("Mermaid diagram", MERMAID_SVG)}
    for what, selector in (wanted[kind] for kind in expect):
        try:
            page.locator(selector).first.wait_for(state="visible", timeout=timeout * 1000)
        except timeout_error:
            problems.append(f"no {what} rendered: nothing visible matches {selector}")
    # subtle: one good diagram is not enough. Every diagram must have drawn: wait until each has
    # drawn or been marked with a warning, then count the warnings (a diagram that does not
    # parse logs no console error, so nothing else would notice it).
    try:
        page.wait_for_function(MERMAID_SETTLED_JS, timeout=timeout * 1000)
    except timeout_error:
        problems.append(f"a Mermaid diagram was still rendering after {timeout:.0f} s")
    for summary in page.locator(MERMAID_WARNING).all_inner_texts():
        problems.append(f"a Mermaid diagram did not parse: {first_line(summary)}")
    # A data-URL image that the browser could not decode is still "visible", with no pixels.
    broken = page.locator(MERMAID_SVG).evaluate_all("images => images.filter(i => !i.naturalWidth).length")
    if broken:
        problems.append(f"{broken} Mermaid diagram image(s) failed to decode")
    return problems


def check(notebooks: Sequence[str | Path] = DEFAULT_NOTEBOOKS, *, screenshots: Path = SCREENSHOTS,
          run_timeout: float = 300, render_timeout: float = 30, theme: str = "light") -> list[Report]:
    """Open each notebook (a name in notebooks/ or a path) in Chromium, run it, and report.

    One JupyterLab and one browser serve them all, each notebook in its own tab and
    workspace. `run_timeout` bounds running all cells of one notebook and `render_timeout`
    the wait for each kind of output to appear, in seconds. `theme` is a key of THEMES.
    """
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    sources = []
    for notebook in notebooks:
        source = Path(notebook) if Path(notebook).is_file() else ROOT / "notebooks" / notebook
        if not source.is_file():
            raise FileNotFoundError(f"no notebook {notebook!r}: give a name in notebooks/ or a path to one")
        sources.append(source)
    reports = []
    with tempfile.TemporaryDirectory(prefix="toolcall-lab-browser-") as scratch:
        root_dir = Path(scratch) / "notebooks"
        shutil.copytree(ROOT / "notebooks", root_dir,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        for source in sources:
            shutil.copy2(source, root_dir / source.name)
        started = time.monotonic()
        with (jupyter_lab(root_dir, Path(scratch) / "home", theme=theme) as base_url,
              sync_playwright() as playwright):
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True,
                # --no-sandbox: Chromium refuses to start as root with its sandbox on, and CI runs
                # as root. No GPU in a container; and /dev/shm there is often too small for a tab.
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            startup = time.monotonic() - started
            page = browser.new_page(viewport=VIEWPORT)
            # Problems go to the report of the notebook being checked at the time.
            current: list[Report] = []
            page.on("pageerror",
                    lambda error: current[-1].problems.append(f"uncaught JavaScript error: {error}"))
            page.on("console", lambda message: message.type == "error" and not harmless(message.text)
                    and current[-1].problems.append(f"console error: {first_line(message.text)}"))
            try:
                for number, source in enumerate(sources):
                    report = Report(notebook=source.name, seconds={"start JupyterLab and Chromium": startup})
                    current.append(report)
                    check_one(page, f"{base_url}/lab/workspaces/check", report, first=number == 0,
                              screenshot=screenshots / f"{source.stem}.png", timeout_error=PlaywrightError,
                              run_timeout=run_timeout, render_timeout=render_timeout,
                              expect=expected_outputs(source), figures=len(figure_cells(source)))
                    reports.append(report)
                    startup = 0.0
            finally:
                browser.close()  # and its page
    return reports


# Opens a notebook in the JupyterLab already loaded in the page, as the file browser does, and
# closes any other tab left in the main area (a launcher JupyterLab opens when it empties).
OPEN_JS = """
async path => {
  const app = window.jupyterapp;
  const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  for (const widget of [...app.shell.widgets('main')]) if (widget !== panel) widget.dispose();
}
"""


def check_one(page, workspace_url: str, report: Report, *, screenshot: Path, first: bool,
              timeout_error: type[Exception], run_timeout: float, render_timeout: float,
              expect: Sequence[str] = tuple(EXPECTABLE), figures: int = 0) -> None:
    """The check of one notebook in `page`; fills `report` in.

    The first notebook loads JupyterLab into the page; each later one opens in the same
    JupyterLab, once the one before it is closed and its kernel shut down (`CLOSE_JS`), so
    nothing of it is left in the page. Loading JupyterLab again for every lesson had cost
    3-5 s each.
    """
    clock = time.monotonic()

    def lap(step: str) -> None:
        nonlocal clock
        report.seconds[step] = time.monotonic() - clock
        clock = time.monotonic()

    if first:
        # ?reset: start from an empty workspace, so no tab of an earlier check is restored.
        page.goto(f"{workspace_url}/tree/{urllib.parse.quote(report.notebook)}?reset&token={TOKEN}")
    else:
        page.evaluate(OPEN_JS, report.notebook)
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=60_000)
    lap("open the notebook")
    state = page.evaluate(RUN_ALL_JS, {"path": report.notebook, "timeoutMs": run_timeout * 1000})
    report.problems += cell_problems(state)
    lap("run all cells")
    report.problems += rendering_problems(page, timeout_error, render_timeout, expect)
    report.problems += figure_problems(page, timeout_error, render_timeout, figures)
    lap("wait for widgets, diagrams and figures")
    # The screenshot shows the first diagram (or widget), not only the top of the lesson.
    for selector in (MERMAID_SVG, WIDGET):
        if page.locator(selector).count():
            page.locator(selector).first.scroll_into_view_if_needed()
            break
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(screenshot), full_page=True)
    report.screenshot = screenshot
    lap("screenshot")
    # So kernels do not pile up over many notebooks, and the next one starts from an empty page.
    # (A check that raised, or was stopped, is not tidied: check() closes the browser, page and all.)
    page.evaluate(CLOSE_JS, report.notebook)


# Shuts the notebook's kernel down and closes its tab without asking to save (the copy is a
# scratch one); disposing the panel removes its outputs, widgets and figures from the page.
CLOSE_JS = """
async path => {
  const panel = [...window.jupyterapp.shell.widgets('main')].find(w => w.context?.path === path);
  if (!panel) return;
  await Promise.race([panel.sessionContext.shutdown(), new Promise(r => setTimeout(r, 10000))]);
  panel.dispose();
}
"""


def first_line(text: str) -> str:
    """A console message without the stack trace that may follow it.

    >>> first_line("Error: widget model not found\\n    at x.get_model (...)")
    'Error: widget model not found'
    """
    return text.strip().splitlines()[0] if text.strip() else "(empty message)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", default=list(DEFAULT_NOTEBOOKS), metavar="NOTEBOOK",
                        help="a name in notebooks/ or a path to a notebook (default: every lesson)")
    parser.add_argument("--screenshots", type=Path, default=SCREENSHOTS,
                        help="folder for the screenshots (default build/browser)")
    parser.add_argument("--theme", choices=sorted(THEMES), default="light",
                        help="JupyterLab's theme for the check (default light)")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"check_lesson: {CHROMIUM} is missing; install Debian's package: apt-get install chromium")
        return 2
    # subtle: a SIGTERM (a test's timeout, CI cancelling a job) becomes SystemExit, so the
    # `finally` blocks still close Chromium and stop JupyterLab and its kernels.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    started = time.monotonic()
    reports = check(args.notebooks, screenshots=args.screenshots, theme=args.theme)
    for report in reports:
        steps = ", ".join(f"{step} {seconds:.1f} s" for step, seconds in report.seconds.items())
        print(f"check_lesson: {report.notebook}: {steps}")
        if report.screenshot:
            print(f"check_lesson: screenshot {report.screenshot}")
        for problem in report.problems:
            print(f"check_lesson: FAIL {report.notebook}: {problem}")
    failed = sum(not report.ok for report in reports)
    print(f"check_lesson: {len(reports) - failed} passed, {failed} failed "
          f"in {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
