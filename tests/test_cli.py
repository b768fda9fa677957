"""`python -m toolcall_lab demo`: the classroom trace, offline and identical every run."""

import io
import subprocess
import sys

import pytest

from toolcall_lab.teacher.cli import demo, main


def demo_text() -> str:
    buffer = io.StringIO()
    demo(buffer)
    return buffer.getvalue()


def test_demo_shows_the_four_messages_and_who_produced_them():
    text = demo_text()
    for line in ("What's the weather in Paris?  the user",
                 "tool_call   toolu_01 get_weather {\"city\": \"Paris\"} the model, call 1",
                 "tool_result toolu_01 18°C, sunny                   your code",
                 "The model executed nothing."):
        assert line in text


def test_demo_shows_the_growing_input_and_the_loop_total():
    text = demo_text()
    assert "Call 2 sent 3 messages, not 1" in text
    assert "10         6,500         42,500" in text
    assert "42,500 tokens for a conversation that ends 7,000 tokens long" in text


def test_demo_is_deterministic():
    assert demo_text() == demo_text()


def test_every_demo_line_fits_80_columns():
    too_wide = [line for line in demo_text().splitlines() if len(line) > 80]
    assert too_wide == []


def test_a_wrapped_event_line_keeps_all_its_words():
    text = demo_text()
    assert "asks for get_weather({'city': 'Paris'}) id=toolu_01\n    [tool_use]" in text


@pytest.mark.slow
def test_module_entry_point_runs_offline():
    result = subprocess.run([sys.executable, "-m", "toolcall_lab", "demo"],
                            capture_output=True, text=True, check=True)
    assert "42,500" in result.stdout


@pytest.mark.slow
def test_a_closed_pipe_is_not_an_error():
    shell = subprocess.run(f"{sys.executable} -m toolcall_lab demo | head -n 3", shell=True,
                           capture_output=True, text=True)
    assert "Traceback" not in shell.stderr


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def serve_fails(*options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolcall_lab", "serve", *options],
                          capture_output=True, text=True, timeout=30)


@pytest.mark.slow
def test_serve_refuses_a_non_loopback_host_without_allow_remote():
    for host in ("0.0.0.0", "::"):
        result = serve_fails("--host", host, "--port", "0")
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "no authentication" in result.stderr and "--allow-remote" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_serve_says_in_one_sentence_when_the_port_is_taken():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve_fails("--port", str(port))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_serve_on_ipv6_loopback_and_with_a_small_ring():
    import json
    import re
    import socket
    import urllib.request

    import pytest

    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    process = subprocess.Popen([sys.executable, "-m", "toolcall_lab", "serve", "--host", "::1", "--port", "0",
                                "--keep", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = process.stdout.readline()
        url = re.search(r"http://\[::1\]:\d+", banner).group(0)
        with urllib.request.urlopen(url + "/api/tags", timeout=5) as response:
            assert json.loads(response.read())["models"]
    finally:
        process.terminate()
        process.wait(timeout=5)
    assert "WARNING" not in process.stderr.read()


def test_allow_remote_warns_on_stderr(capsys, monkeypatch):
    # The warning is printed before binding; the bind itself is replaced, so nothing
    # listens beyond loopback during the test.
    from toolcall_lab.double import api_double as server

    monkeypatch.setattr(server.ApiDouble, "__enter__", lambda self: (_ for _ in ()).throw(KeyboardInterrupt))
    with __import__("pytest").raises(KeyboardInterrupt):
        main(["serve", "--host", "0.0.0.0", "--allow-remote", "--port", "0"])
    assert "WARNING: the API double has no authentication" in capsys.readouterr().err


@pytest.mark.slow
def test_links_refuses_a_lesson_like_a_superscript_two_and_bytes_that_are_not_utf8_without_a_traceback():
    """`--lesson ²` (str.isdigit says yes, int says no) and a --repo or --branch holding a byte that
    is not UTF-8 (0xff, from a terminal in Latin-1) each print one line and exit 2."""
    import os

    repo = b"https://github.com/me/toolcall-lab"
    cases = (([b"--lesson", "²".encode()], "links: there is no lesson '²': give".encode()),
             ([b"--repo", repo + b"\xff"], b"links: the repo 'https://github.com/me/toolcall-lab\\udcff'"),
             ([b"--branch", b"ma\xffin"], b"links: the branch 'ma\\udcffin' holds bytes that are not UTF-8"))
    for extra, said in cases:
        command = [os.fsencode(sys.executable), b"-m", b"toolcall_lab", b"links", b"--repo", repo, *extra]
        done = subprocess.run(command, capture_output=True, timeout=60,
                              env={**os.environ, "LC_ALL": "C.UTF-8"})
        assert done.returncode == 2 and done.stdout == b"", done.stderr
        assert done.stderr.startswith(said) and done.stderr.count(b"\n") == 1
        assert b"Traceback" not in done.stderr
