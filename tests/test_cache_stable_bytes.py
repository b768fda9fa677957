"""What the prompt cache compares stays the same bytes from one process to the next (issue 31 §5 traps 6, 8).

Lesson 19 §5 says the tools gathered from a `set` of names come in another order after a
restart, and that `stable_order` fixes it for every tool, MCP ones too, while a provider's
own tools keep their place after yours. A result cap sits in the prefix of every later call,
so it must cut the same text to the same bytes every time (openclaw/openclaw#104390: a cut
that drifted missed the cache). Each is run here in fresh interpreters with different
string-hash seeds, which is what changes a set's order between processes.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from toolcall_lab import Message, ToolResult, Transcript
from toolcall_lab.result_cap import cap_result
from toolcall_lab.tool_order import stable_order
from toolcall_lab.tools import calculator, get_weather, search_kb
from toolcall_lab.wire import encode_request

_GATHER = """
from toolcall_lab.tool_order import stable_order
from toolcall_lab.tools import calculator, get_weather, search_kb
from toolcall_lab.result_cap import cap_result
from toolcall_lab import ToolResult
known = {t.name: t for t in (calculator, get_weather, search_kb)}
names = {"calculator", "get_weather", "search_kb", "convert", "archive", "draft", "book"}
gathered = [known[n] for n in names if n in known]          # the order a set gives
print([t.name for t in gathered], [t.name for t in stable_order(gathered)])
print(cap_result(ToolResult("toolu_01", "".join(f"line {i}\\n" for i in range(9000))), 500).content[-300:])
"""


def _in_a_fresh_process(seed: int) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run([sys.executable, "-c", _GATHER], capture_output=True, text=True, env=env,
                          check=True, timeout=120)
    return done.stdout.splitlines()


@pytest.mark.slow  # six fresh interpreters
def test_a_set_of_names_changes_order_across_processes_and_stable_order_does_not():
    runs = [_in_a_fresh_process(seed) for seed in range(6)]
    as_gathered = {run[0].split("] [")[0] for run in runs}
    sorted_once = {run[0].split("] [")[1] for run in runs}
    assert len(as_gathered) > 1                                     # the bug: a new order per process
    assert sorted_once == {"'calculator', 'get_weather', 'search_kb']"}
    assert len({"\n".join(run[1:]) for run in runs}) == 1           # the cap cuts to the same bytes


def test_a_cap_gives_the_same_bytes_for_the_same_result_and_limit():
    text = "".join(f"row {i}: {'x' * (i % 17)}\n" for i in range(20_000))
    first, again = (cap_result(ToolResult("toolu_01", text), 800) for _ in range(2))
    assert first.content == again.content and len(first.content) < len(text)


def test_stable_order_leaves_a_providers_own_tools_after_yours_as_given():
    search = {"type": "web_search_20260318", "name": "web_search", "max_uses": 3}
    fetch = {"type": "web_fetch_20250910", "name": "web_fetch"}
    asked = Transcript(None, [Message.user("Weather in Paris?")])
    bodies = [encode_request(asked, stable_order(order), api="anthropic", model="claude-opus-5",
                             server_tools=[search, fetch])
              for order in ([search_kb, get_weather, calculator], [get_weather, calculator, search_kb])]
    assert bodies[0] == bodies[1]
    assert [t["name"] for t in bodies[0]["tools"]] == ["calculator", "get_weather", "search_kb", "web_search",
                                                       "web_fetch"]
