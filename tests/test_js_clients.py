"""JavaScript clients nobody here wrote complete the tool round trip against the API double.

Each setup in tests/js/clients.mjs is one client's documented way of running a tool: openai-node
(Chat Completions by hand, streamed, `runTools`, `stream`; Responses by hand, `stream`,
`previous_response_id`), `@anthropic-ai/sdk` (`messages.create`, `messages.stream`,
`beta.messages.toolRunner` with its defaults, plain and streamed), the Vercel AI SDK
(`generateText` and `streamText` on `@ai-sdk/openai` Responses and Chat, `@ai-sdk/anthropic`,
`@ai-sdk/openai-compatible` and `ollama-ai-provider-v2`) and ollama-js (`chat`, plain and
streamed). The script reads the ids off the wire, through a recording `fetch`: the round trip is
done when the model asked for one call, the client's code ran it once, the client answered that
very id, and the model's answer came from the result. The clients' versions are pinned in
tests/js/package.json and its package-lock.json; `npm ci --prefix tests/js` installs them
(`.ci/run` does, where Node is installed). Without `node` or tests/js/node_modules this test is
skipped, saying which.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

JS = Path(__file__).parent / "js"
ANSWER = "It's 18°C and sunny in Paris."

#: Every setup the script runs, so that one dropped from it fails here.
SETUPS = [
    "openai chat.completions.create", "openai chat.completions.create stream",
    "openai chat.completions.runTools", "openai chat.completions.runTools stream",
    "openai chat.completions.stream",
    "openai responses.create", "openai responses.stream", "openai responses.create previous_response_id",
    "anthropic messages.create", "anthropic messages.stream",
    "anthropic beta.messages.toolRunner", "anthropic beta.messages.toolRunner stream",
    *(f"ai {call} {provider}" for provider in ("openai-responses", "openai-chat", "anthropic",
                                               "openai-compatible", "ollama")
      for call in ("generateText", "streamText")),
    "ollama chat", "ollama chat stream",
]


def missing() -> str | None:
    """Why the clients cannot run here, in one line; None when they can."""
    if shutil.which("node") is None:
        return "node is not installed, so the JavaScript client table (tests/js) is skipped"
    if not (JS / "node_modules").is_dir():
        return ("tests/js/node_modules is missing, so the JavaScript client table is skipped: "
                "run `npm ci --prefix tests/js`")
    return None


def table(rows: list[dict]) -> str:
    """The rows as a plain-text table: setup, client and version, result."""
    lines = [f"{'setup':<46} {'client':<46} result"]
    for row in rows:
        # "ai + @ai-sdk/openai", "6.0.333 + 3.0.141" -> "ai 6.0.333 + @ai-sdk/openai 3.0.141"
        client = " + ".join(f"{name} {version}" for name, version in
                            zip(row["client"].split(" + "), row["version"].split(" + "), strict=True))
        result = f"ok ({row['called'][0]})" if row["ok"] else f"FAILED: {row['failed']}"
        lines.append(f"{row['name']:<46} {client:<46} {result}")
    return "\n".join(lines)


@pytest.mark.slow
def test_every_js_client_completes_the_tool_round_trip(double):
    reason = missing()
    if reason:
        pytest.skip(reason)
    env = {**os.environ, "TOOLCALL_LAB_DOUBLE_URL": double.url, "NO_PROXY": "127.0.0.1,localhost"}
    done = subprocess.run(["node", "clients.mjs"], cwd=JS, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    print("\n" + table(rows))
    assert [row["name"] for row in rows] == SETUPS, table(rows)
    assert [row["name"] for row in rows if not row["ok"]] == [], table(rows)
    for row in rows:
        assert len(row["called"]) == 1 and row["answered"] == row["called"], row
        assert row["runs"] == ["Paris"] and row["answer"] == ANSWER, row
        if row["api"] != "ollama":  # Ollama's calls carry no id: the script names them by function
            assert row["called"][0].startswith("toolu_" if row["api"] == "anthropic" else "call_"), row
    # toolRunner's default runs over a message thread: only the new messages go up after the first
    runners = [row for row in rows if "toolRunner" in row["name"]]
    assert [row["thread"] for row in runners] == [["create", "continue"]] * 2, table(runners)


def test_without_node_the_table_is_skipped_with_one_line_saying_why(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert missing() == "node is not installed, so the JavaScript client table (tests/js) is skipped"
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/node")
    monkeypatch.setattr(sys.modules[__name__], "JS", tmp_path)
    assert missing() == ("tests/js/node_modules is missing, so the JavaScript client table is "
                         "skipped: run `npm ci --prefix tests/js`")
