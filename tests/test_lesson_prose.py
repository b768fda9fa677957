"""Where a lesson's prose states what an output shows, the committed output must show it.

Each test reads one committed notebook, takes the sentence and the output it describes by
their cell ids, and fails when the two disagree: re-executing a lesson after a change in the
kit updates its outputs, and a sentence that no longer matches them is caught here rather
than by a learner. One test per fact, named for its lesson.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"


def _cells(lesson: str) -> dict[str, dict]:
    nb = json.loads((NOTEBOOKS / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    return {cell["id"]: cell for cell in nb["cells"]}


def prose(lesson: str, cell_id: str) -> str:
    return "".join(_cells(lesson)[cell_id]["source"])


def printed(lesson: str, cell_id: str) -> str:
    """What the cell printed or showed as text, its outputs joined."""
    outputs = _cells(lesson)[cell_id]["outputs"]
    return "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                   for o in outputs)


# -- lesson 4 ---------------------------------------------------------------------------------------
def test_04_the_first_search_result_went_out_six_times_and_the_last_once():
    said = prose("04_transcript_as_data", "c39")
    shown = printed("04_transcript_as_data", "c38")
    words = {"one": 1, "six": 6}
    first, last = (words[w] for w in re.search(r"billed with (\w+) calls, the last one's with (\w+)",
                                                said).groups())
    assert f"the first search's result went out with {first} of the" in shown
    assert f"the last search's result went out with {last} of the" in shown


def test_04_tool_results_cost_the_most_in_the_search_loop():
    assert "tool results, re-sent on every later call, cost more than any other kind" in prose(
        "04_transcript_as_data", "c95")
    rows = [line.split()[0] for line in printed("04_transcript_as_data", "c38").splitlines()[:4]]
    assert rows[0] == "tool_result"


def test_04_the_tool_definitions_outweigh_the_paris_blocks():
    assert "the tool's definition, sent with both calls, outweighs them all" in prose(
        "04_transcript_as_data", "c34")
    assert printed("04_transcript_as_data", "c33").startswith("[('(tool definitions)'")


def test_04_anthropic_puts_its_cached_tokens_beside_12_input_tokens():
    assert "Anthropic reports 12 input tokens and puts the 2,000 cached ones *beside* them" in prose(
        "04_transcript_as_data", "c67")
    anthropic = printed("04_transcript_as_data", "c66").split("responses:")[0]
    assert '"input_tokens": 12,' in anthropic and '"cache_read_input_tokens": 2000' in anthropic


# -- lesson 5 ---------------------------------------------------------------------------------------
def test_05_the_server_refused_call_2_and_not_call_1():
    said = prose("05_your_own_provider", "p24")
    assert said.startswith("Call 1 carried no tool call yet")
    assert "Call 2 carried the model's call back" in said
    assert "status of each request: [200, 400]" in printed("05_your_own_provider", "p23")


def test_05_every_clause_fails_for_the_forgetful_translator():
    assert prose("05_your_own_provider", "p26").startswith("Every clause fails")
    count = re.search(r"(\d+) of (\d+) clauses fail", printed("05_your_own_provider", "p25"))
    assert count and count[1] == count[2]


def test_05_keyed_by_model_alone_the_ollama_and_vllm_runs_share_a_row():
    assert "the Ollama and vLLM runs would share a row" in prose("05_your_own_provider", "p28")
    shown = printed("05_your_own_provider", "p27").splitlines()
    rows = [line.split()[:2] for line in shown if line.startswith(("ollama", "vllm"))]
    assert [name for name, _ in rows] == ["ollama", "vllm"] and rows[0][1] == rows[1][1]
    assert len({line.split()[1] for line in shown[:-1]}) == int(shown[-1].rsplit(" ", 1)[1])
