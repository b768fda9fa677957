"""`python3 dev.py lab` prints one URL to open, on the first lesson, once the server answers.

dev.py is a script (standard library only, run before anything is installed), so it is
loaded here from its file; nothing in it runs on import.
"""

import http.server
import importlib.util
import json
import threading
import time
from pathlib import Path

import pytest

from stub_server import free_port

ROOT = Path(__file__).parents[1]
_spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
dev = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dev)


def test_the_url_opens_the_lesson_with_its_token():
    url = dev.lab_url(8888, "abc123", "00_start_here.ipynb")
    assert url == "http://localhost:8888/lab/tree/00_start_here.ipynb?token=abc123"


def test_without_a_lesson_or_a_token_the_url_is_the_lab_itself():
    assert dev.lab_url(8899, "", None) == "http://localhost:8899/lab"


def test_start_here_comes_first_when_it_exists(tmp_path):
    (tmp_path / "01_one_tool_call.ipynb").write_text("{}")
    assert dev.first_lesson(tmp_path) == "01_one_tool_call.ipynb"
    (tmp_path / "00_start_here.ipynb").write_text("{}")
    assert dev.first_lesson(tmp_path) == "00_start_here.ipynb"


def test_no_lesson_at_all_opens_the_folder(tmp_path):
    assert dev.first_lesson(tmp_path) is None


def test_the_real_notebooks_folder_has_a_first_lesson():
    assert dev.first_lesson(ROOT / "notebooks") in dev.FIRST_LESSONS


@pytest.mark.parametrize("args, value", [
    (["--port", "8899"], "8899"),
    (["--port=8899"], "8899"),
    (["--ServerApp.port=8899", "--no-browser"], "8899"),
    (["--port=1", "--ServerApp.port", "8899"], "8899"),  # the last one wins, as in JupyterLab
    (["--no-browser"], None),
    (["--port"], None),
])
def test_option_value_reads_both_spellings(args, value):
    assert dev.option_value(args, "--port", "--ServerApp.port") == value


def test_free_port_skips_a_port_in_use():
    port = free_port()
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), http.server.BaseHTTPRequestHandler):
        assert dev.free_port(port, tries=5) != port


class _Quiet(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path.startswith("/api/status") else 403)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_wait_for_server_returns_once_it_answers():
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Quiet)

    def start_late():
        time.sleep(0.3)  # the first polls are refused, as while JupyterLab starts
        server.serve_forever(0.01)  # subtle: shutdown() waits for its next look (0.5 s by default)

    # subtle: bound already, so early polls queue; serve_forever starts answering later.
    thread = threading.Thread(target=start_late, daemon=True)
    thread.start()
    try:
        assert dev.wait_for_server(f"http://127.0.0.1:{port}/api/status", timeout=10, interval=0.05)
        # an error status (JupyterLab's 403 without a token) is still a server that is up
        assert dev.wait_for_server(f"http://127.0.0.1:{port}/other", timeout=10, interval=0.05)
    finally:
        server.shutdown()
        server.server_close()


def test_wait_for_server_gives_up_when_nothing_listens():
    started = time.monotonic()
    assert not dev.wait_for_server(f"http://127.0.0.1:{free_port()}/", timeout=0.2, interval=0.05)
    assert time.monotonic() - started < 5


def test_wait_for_server_stops_when_the_server_process_has_died():
    started = time.monotonic()
    assert not dev.wait_for_server(f"http://127.0.0.1:{free_port()}/", timeout=60,
                                   alive=lambda: False)
    assert time.monotonic() - started < 1


def test_a_learners_commands_install_the_lab_extra_and_a_contributors_the_dev_extra():
    # issue 18 §5: `dev.py lab` installed the contributor toolchain (908 MB) where a learner
    # needs the lessons' 504 MB; only test and lint need pytest, nbval, ruff, mypy, Playwright
    assert {command: dev.EXTRA_FOR[command] for command in ("lab", "demo", "solutions")} == {
        "lab": "lab", "demo": "lab", "solutions": "lab"}
    assert dev.EXTRA_FOR["test"] == dev.EXTRA_FOR["lint"] == "dev"
    assert set(dev.EXTRA_FOR) | dev.NO_ENV == set(dev.COMMANDS)


@pytest.mark.parametrize(("stamp", "have"), [
    ("{built} extra=lab", "lab"),
    ("{built} extra=dev", "dev"),
    ("{built}", "dev"),  # written before extras were recorded: those environments held dev
    ("0123456789abcdef python3.11 extra=dev", None),  # another pyproject: reinstall
])
def test_the_stamp_says_which_extra_is_installed(tmp_path, monkeypatch, stamp, have):
    monkeypatch.setattr(dev, "STAMP", tmp_path / "stamp")
    (tmp_path / "stamp").write_text(stamp.format(built=dev.wanted_stamp()) + "\n")
    assert dev.installed_extra() == have


def test_dev_covers_lab_so_a_contributor_never_reinstalls_for_lab(tmp_path, monkeypatch):
    monkeypatch.setattr(dev, "STAMP", tmp_path / "stamp")
    (tmp_path / "stamp").write_text(f"{dev.wanted_stamp()} extra=dev\n")
    monkeypatch.setattr(dev.subprocess, "run", lambda *a, **k: pytest.fail("pip ran"))
    dev.ensure_env("lab")
    dev.ensure_env("dev")


def load_dev():
    """A fresh copy of dev.py, so it reads the environment variables set now."""
    spec = importlib.util.spec_from_file_location("dev_again", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_environment_named_by_toolcall_lab_venv_is_used_as_it_is(tmp_path, monkeypatch):
    # a test never builds an environment: tests/test_readme.py starts `dev.py lab` this way
    monkeypatch.setenv("TOOLCALL_LAB_VENV", str(tmp_path))
    fresh = load_dev()
    assert fresh.VENV == tmp_path.resolve() and fresh.venv_bin("jupyter").parent.parent == tmp_path.resolve()
    fresh.venv_bin("python").parent.mkdir()
    fresh.venv_bin("python").touch()
    monkeypatch.setattr(fresh.subprocess, "run", lambda *a, **k: pytest.fail(f"pip ran: {a}"))
    monkeypatch.setattr(fresh.venv, "EnvBuilder", lambda *a, **k: pytest.fail("an environment was made"))
    fresh.ensure_env("dev")  # no stamp there, none written: the environment is not dev.py's
    assert not fresh.STAMP.exists()
    overrides = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert json.loads(overrides.read_text()) == fresh.LAB_OVERRIDES  # still offline, no news


def test_toolcall_lab_venv_naming_a_folder_with_no_python_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLCALL_LAB_VENV", str(tmp_path))
    with pytest.raises(SystemExit) as stopped:
        load_dev().ensure_env("lab")
    assert f"TOOLCALL_LAB_VENV={tmp_path.resolve()} holds no bin/python" in str(stopped.value)
    assert "unset it to use .venv/" in str(stopped.value)


def test_without_toolcall_lab_venv_the_environment_is_dot_venv(monkeypatch):
    monkeypatch.delenv("TOOLCALL_LAB_VENV", raising=False)
    fresh = load_dev()
    assert not fresh.USE_AS_IS and fresh.VENV == ROOT.resolve() / ".venv"


def test_quick_skips_the_slow_tests(monkeypatch):
    calls = []
    monkeypatch.setattr(dev.subprocess, "call", lambda argv, **kw: calls.append(argv) or 0)
    dev.test(["--quick", "-k", "loop"])
    assert calls[0][-8:-4] == ["-k", "loop", "-m", "not slow"]


def test_quick_loads_no_nbval_and_keeps_every_other_addopt(monkeypatch):
    # every lesson cell is slow: -m "not slow" ran none, nbval only cost its import and collection
    calls = []
    monkeypatch.setattr(dev.subprocess, "call", lambda argv, **kw: calls.append(argv) or 0)
    dev.test(["--quick"])
    dev.test([])
    assert calls[0][-4:-2] == ["-p", "no:nbval"]
    import shlex
    import tomllib

    pytest_ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    configured = pytest_ini["ini_options"]["addopts"]
    assert "--nbval" in configured and "--doctest-modules" in configured
    assert calls[0][-2] == "-o" and calls[0][-1].startswith("addopts=")
    assert shlex.split(calls[0][-1].removeprefix("addopts=")) == [
        option for option in configured if not option.startswith("--nbval")]
    assert "no:nbval" not in calls[1]  # the full run compares every lesson under strict nbval


def test_quick_searches_less_and_the_full_run_searches_as_much_as_each_test_asks(monkeypatch):
    runs = []
    monkeypatch.setattr(dev.subprocess, "call", lambda argv, **kw: runs.append(kw.get("env")) or 0)
    dev.test(["--quick"])
    dev.test([])
    assert runs[0]["TOOLCALL_LAB_HYPOTHESIS"] == "quick"  # read by tests/conftest.py
    assert runs[1] is None or "TOOLCALL_LAB_HYPOTHESIS" not in runs[1]
    monkeypatch.setenv("TOOLCALL_LAB_HYPOTHESIS", "quick")  # e.g. started from a quick run's test
    dev.test([])
    assert "TOOLCALL_LAB_HYPOTHESIS" not in runs[2]


def test_quick_spreads_the_tests_over_the_cores_and_the_full_run_stays_in_one_process(monkeypatch):
    calls = []
    monkeypatch.setattr(dev.subprocess, "call", lambda argv, **kw: calls.append(argv) or 0)
    monkeypatch.setattr(dev, "has_xdist", lambda: True)
    monkeypatch.setattr(dev.os, "cpu_count", lambda: 2)
    dev.test(["--quick", "-k", "loop"])
    dev.test([])
    assert calls[0][1:7] == ["-m", "pytest", "-n", "2", "--dist", "loadfile"]  # each file on one worker
    assert calls[0][7:9] == ["-k", "loop"]
    assert "-n" not in calls[1]  # the full run: nbval's lesson runs are read by test_swap.py
    monkeypatch.setattr(dev.os, "cpu_count", lambda: 8)
    assert dev.parallel_options([]) == ["-n", "4", "--dist", "loadfile"]


@pytest.mark.parametrize("given", [["-n", "0"], ["-n0"], ["--numprocesses=3"], ["--dist", "load"], ["-s"],
                                   ["--pdb"], ["-p", "no:xdist"], ["--capture=no"]])
def test_a_quick_run_that_chooses_its_processes_or_needs_the_terminal_is_left_as_given(monkeypatch, given):
    monkeypatch.setattr(dev, "has_xdist", lambda: True)
    monkeypatch.setattr(dev.os, "cpu_count", lambda: 2)
    assert dev.parallel_options(given) == []
    assert dev.parallel_options(["-k", "not network"]) != []


def test_without_xdist_or_a_second_core_the_quick_run_stays_in_one_process(monkeypatch):
    monkeypatch.setattr(dev.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(dev, "has_xdist", lambda: False)  # TOOLCALL_LAB_VENV without the dev extra
    assert dev.parallel_options([]) == []
    monkeypatch.setattr(dev, "has_xdist", lambda: True)
    monkeypatch.setattr(dev.os, "cpu_count", lambda: 1)
    assert dev.parallel_options([]) == []


def test_has_xdist_looks_in_the_environment_dev_py_runs_tests_in(monkeypatch, tmp_path):
    monkeypatch.setattr(dev, "VENV", tmp_path)
    assert not dev.has_xdist()
    package = tmp_path / "lib" / "python3.11" / "site-packages" / "xdist"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    assert dev.has_xdist()


def test_tests_write_bytecode_to_a_cache_in_the_environment_where_the_shell_forbids_it(monkeypatch):
    # with PYTHONDONTWRITEBYTECODE every kernel compiled the kit and its SDKs again: kept out of
    # the checkout, as the variable wanted, but cached
    envs = []
    monkeypatch.setattr(dev.subprocess, "call", lambda argv, **kw: envs.append(kw["env"]) or 0)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    dev.test([])
    dev.test(["--quick"])
    for env in envs:
        assert "PYTHONDONTWRITEBYTECODE" not in env
        assert env["PYTHONPYCACHEPREFIX"] == str(dev.VENV / "pycache")
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", "/somewhere/mine")  # a cache of one's own is kept
    assert dev.test_environment()["PYTHONDONTWRITEBYTECODE"] == "1"
    assert dev.test_environment()["PYTHONPYCACHEPREFIX"] == "/somewhere/mine"
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX")
    assert dev.test_environment() == dict(dev.os.environ)  # bytecode already goes to __pycache__/


def test_kernels_run_over_ipc_where_the_system_has_it():
    # over TCP every kernel prints "... susceptible to eavesdropping" into the terminal
    if dev.os.name == "posix":
        assert dev.KERNEL_TRANSPORT == ["--KernelManager.transport=ipc"]


def test_notebooks_names_the_kernel_s_ipc_sockets_by_an_absolute_path(monkeypatch, tmp_path):
    # Over IPC the sockets are files named after the connection file. A bare name is read in
    # two folders (nbconvert runs in the kit's root, the kernel in notebooks/), so the kernel
    # never answered: "Kernel didn't respond in 60 seconds".
    calls = []
    monkeypatch.setattr(dev.subprocess, "call", lambda argv, **kw: calls.append(argv) or 0)
    lesson = tmp_path / "01_x.ipynb"
    lesson.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    dev.notebooks([str(lesson)])
    if dev.KERNEL_TRANSPORT:
        named = [a.split("=", 1)[1] for a in calls[0] if a.startswith("--KernelManager.connection_file=")]
        assert len(named) == 1 and Path(named[0]).is_absolute()
