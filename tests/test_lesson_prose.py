"""Where a lesson's text states what an output shows, the committed output agrees.

LESSONS.md asks for every number in prose to come from a cell; where a sentence still
says what an output holds ("Anthropic and Chat name both ids"), it can drift from the
output when a codec, a rule or a model changes, and strict nbval compares outputs only.
Each test here reads the committed notebook, takes the sentence and the output it
describes (found by cell id), and fails when they disagree. One test per fact, named for
its lesson.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
NOTEBOOKS = ROOT / "notebooks"


def _cells(lesson: str) -> dict[str, dict]:
    nb = json.loads((NOTEBOOKS / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    return {cell["id"]: cell for cell in nb["cells"]}


def prose(lesson: str, cell_id: str) -> str:
    """The text of a markdown cell, its lines joined (a sentence may span a line break)."""
    cell = _cells(lesson)[cell_id]
    assert cell["cell_type"] == "markdown", cell_id
    return " ".join("".join(cell["source"]).split())


def output(lesson: str, cell_id: str) -> str:
    """What a code cell printed or showed as text, as committed."""
    cell = _cells(lesson)[cell_id]
    assert cell["cell_type"] == "code", cell_id
    parts = []
    for out in cell["outputs"]:
        parts.append("".join(out.get("text", "")))
        parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "".join(parts)


# lesson 1 ------------------------------------------------------------------------------------

def test_one_tool_call_says_how_many_messages_each_call_carried():
    said = prose("01_one_tool_call", "c30")
    shown = dict(re.findall(r"call (\d+): (\d+) message", output("01_one_tool_call", "c29")))
    assert f"call 1 carried {shown['1']} message and call 2 carried {shown['2']}" in said


def test_one_tool_call_states_the_doubling_factors_its_cell_prints():
    said = prose("01_one_tool_call", "c45")
    shown = output("01_one_tool_call", "c44")
    factors = re.findall(r"×(\d+\.\d\d)", said)
    assert len(factors) == 3
    for factor in factors:
        assert f"x{factor}" in shown, f"the text says ×{factor}; the cell prints {shown!r}"


def test_one_tool_call_says_how_often_the_parser_found_an_action():
    lines = [line for line in output("01_one_tool_call", "c53b").splitlines() if line.startswith("parsed")]
    found = [line for line in lines if not line.endswith("no action found")]
    words = {1: "one", 2: "two", 3: "three"}
    assert f"found an action in {words[len(found)]} reply of {words[len(lines)]}" in prose(
        "01_one_tool_call", "c53c")


def test_one_tool_call_says_nothing_ran_for_a_model_that_only_wrote_text():
    shown = output("01_one_tool_call", "c53e")
    assert "tool_call" not in shown and "tool_result" not in shown
    assert "no call: nothing ran" in prose("01_one_tool_call", "c53f")


# lesson 2 ------------------------------------------------------------------------------------

API_TITLES = {"anthropic": "Anthropic", "responses": "Responses", "chat": "Chat"}


def test_on_the_wire_says_which_ids_each_api_names_for_unanswered_calls():
    """Issue 18 §2: the text said Chat names one id; its output named both."""
    named = {api: (int(count), int(total)) for api, count, total in re.findall(
        r"^(\w+): .*\n  names (\d) of the (\d) ids", output("02_on_the_wire", "c46"), re.M)}
    assert set(named) == set(API_TITLES)
    every = [API_TITLES[api] for api, (count, total) in named.items() if count == total]
    first = [API_TITLES[api] for api, (count, _) in named.items() if count == 1]
    said = prose("02_on_the_wire", "c47")
    assert f"{' and '.join(every)} name both unanswered calls" in said
    assert f"{' and '.join(first)} only the first" in said


def test_on_the_wire_says_where_anthropic_points_and_that_chat_accepts():
    shown = output("02_on_the_wire", "c49")
    path = shown.split(" | ", 1)[0]
    assert f"Anthropic points at `{path}`" in prose("02_on_the_wire", "c50")
    assert "chat: accepted" in shown and "Chat accepts" in prose("02_on_the_wire", "c50")


def test_on_the_wire_names_the_id_spellings_its_sdk_runs_show():
    ids = dict(re.findall(r"^(\S+)\s+(\S+)\s", output("02_on_the_wire", "c28"), re.M))
    said = prose("02_on_the_wire", "c29")
    assert ids["anthropic"].startswith("toolu_") and "Anthropic's `toolu_…`" in said
    assert ids["openai"].startswith("call_") and "OpenAI's `call_…`" in said


def test_on_the_wire_states_the_stop_reasons_of_its_sdk_loop():
    shown = dict(re.findall(r"^call (\d+): stop_reason=(\w+)", output("02_on_the_wire", "c57a"), re.M))
    said = prose("02_on_the_wire", "c57b")
    assert shown == {"1": "tool_use", "2": "end_turn"}
    for call, reason in shown.items():
        assert f"`{reason}` on call {call}" in said


def test_on_the_wire_says_the_chat_helper_finds_nothing_in_anthropic_s_body():
    shown = output("02_on_the_wire", "c72b")
    assert "anthropic: []" in shown and "chat:      ['get_weather']" in shown
    assert "the helper finds nothing" in prose("02_on_the_wire", "c72c")


def test_on_the_wire_says_anthropic_s_second_user_entry_is_a_tool_result():
    entries = [line for line in output("02_on_the_wire", "c72g").splitlines() if line.startswith("anthropic")]
    assert len(entries) == 2 and "'tool_result'" in entries[1] and "'tool_result'" not in entries[0]
    assert "its second entry is not the user's at all: it is your code's tool result" in prose(
        "02_on_the_wire", "c72h")


def test_on_the_wire_no_longer_teaches_thinking():
    """Issue 18 §4: lesson 2's section on reasoning moved to lesson 8, which has what it needs."""
    text = " ".join(prose("02_on_the_wire", cid) for cid, cell in _cells("02_on_the_wire").items()
                    if cell["cell_type"] == "markdown")
    assert "Reasoning goes back only to its maker" not in text
    assert not re.search(r"\bsections? 10 and 11\b", text)


# start page ----------------------------------------------------------------------------------

def test_start_here_names_the_reset_command_dev_py_has():
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec and spec.loader
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    said = prose("00_start_here", "c05a")
    command = re.search(r"`python3 dev\.py ([\w-]+) 01`", said)
    assert command and command[1] == dev.reset_lessons.__name__.replace("_", "-")
    assert f"`notebooks/{dev.MY_COPIES}/`" in said
