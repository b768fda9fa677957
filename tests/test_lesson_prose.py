"""Where a lesson's prose states what an output shows, the committed output must show it.

Each test reads a committed notebook, finds the sentence and the output it speaks of, and
fails when they disagree: a changed constant or a changed codec changes the output, and
strict nbval accepts the new output once the notebook is re-run, but only this test sees
that the sentence beside it is now false. One test per fact, named for its lesson.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"


def _cells(lesson: str) -> list[dict]:
    return json.loads((NOTEBOOKS / f"{lesson}.ipynb").read_text(encoding="utf-8"))["cells"]


def _prose(lesson: str) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(lesson) if c["cell_type"] == "markdown")


def _output(lesson: str, code: str) -> str:
    """The printed output of the one code cell whose source holds `code`."""
    found = [c for c in _cells(lesson) if c["cell_type"] == "code" and code in "".join(c["source"])]
    assert len(found) == 1, f"{lesson}: {len(found)} code cells hold {code!r}"
    return "".join("".join(o.get("text", "")) for o in found[0]["outputs"])


# -- 06_when_the_model_misbehaves ----------------------------------------------------------------
L06 = "06_when_the_model_misbehaves"


def test_06_ollama_alone_takes_the_dropped_reply_and_three_apis_name_the_unanswered_call():
    assert "Ollama takes it without a word" in _prose(L06)
    dropped = dict(line.split(None, 1) for line in _output(L06, "what_the_apis_say(dropped)").splitlines())
    assert [api for api, said in dropped.items() if said == "accepted"] == ["ollama"]
    assert "Three APIs name the call left unanswered" in _prose(L06)
    wrong = dict(line.split(None, 1) for line in _output(L06, "what_the_apis_say(wrong_ids)").splitlines())
    second = re.search(r"toolu_\d+", wrong["anthropic"])[0]
    assert sorted(api for api, said in wrong.items() if second in said) == ["anthropic", "chat", "responses"]


def test_06_the_first_call_goes_through_and_the_second_is_refused():
    assert "the server refused the second request" in _prose(L06)
    assert "status of each request: [200, 400]" in _output(L06, "hand_loop(inventive")


def test_06_the_paused_reply_goes_back_with_no_user_message():
    assert "The second request is the first plus the paused reply" in _prose(L06)
    printed = _output(L06, "pauses_a_search")
    assert "[pause_turn]" in printed
    assert "roles sent: [['user'], ['user', 'assistant']]" in printed


def test_06_only_anthropic_tells_the_two_cuts_apart():
    assert "Only Anthropic tells the two cuts apart" in _prose(L06)
    rows = [line.split() for line in _output(L06, "stop_table(").splitlines()[2:]]
    apart = [api for api, cut, full in rows if cut != full]
    assert apart == ["anthropic"]
    assert {api for api, *_ in rows} == {"anthropic", "responses", "chat", "ollama"}


def test_06_telling_the_looping_model_takes_one_more_call():
    assert "(1 more model call)" in _output(L06, "You have the weather already")


# -- 07_steering_and_guarding ------------------------------------------------------------------
L07 = "07_steering_and_guarding"


def test_07_one_call_per_reply_takes_three_model_calls():
    assert "Three model calls where two would do" in _prose(L07)
    trace = _output(L07, "parallel_tool_calls=False)\n    print")
    assert "the model, call 3" in trace and "the model, call 4" not in trace


def test_07_at_once_the_results_come_back_in_the_calls_order_and_finish_in_another():
    assert "`pool.map` returns the results in the calls' order" in _prose(L07)
    assert "the same results, in the same order: True" in _output(L07, "pool.map(")
    printed = _output(L07, "as_completed(futures)")
    assert "asked:    ['Paris', 'Tokyo', 'Cairo']" in printed
    assert "finished: ['Tokyo', 'Cairo', 'Paris']" in printed


def test_07_only_the_description_changed_the_choice():
    assert "Only the words changed, and the choice with them" in _prose(L07)
    vague, precise = _output(L07, "picks_by_description)").split("\n  -> ")[1:]
    assert vague.startswith("None of my tools") and precise.startswith("It's 18°C")


def test_07_message_4_asks_and_message_5_refuses():
    assert "asked for `delete_files` in message 4; message 5 is your code saying no" in _prose(L07)
    rows = {line.split()[0]: line for line in _output(L07, "needs_approval=True").splitlines()[2:]
            if line[:1].isdigit()}
    assert "delete_files" in rows["4"] and "the model" in rows["4"]
    assert "ERROR: Refused" in rows["5"] and "your code" in rows["5"]
