"""`python -m toolcall_lab demo`: the classroom trace, offline and identical every run."""

import io
import subprocess
import sys

from toolcall_lab.cli import demo, main


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


def test_module_entry_point_runs_offline():
    result = subprocess.run([sys.executable, "-m", "toolcall_lab", "demo"],
                            capture_output=True, text=True, check=True)
    assert "42,500" in result.stdout


def test_a_closed_pipe_is_not_an_error():
    shell = subprocess.run(f"{sys.executable} -m toolcall_lab demo | head -n 3", shell=True,
                           capture_output=True, text=True)
    assert "Traceback" not in shell.stderr


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out
