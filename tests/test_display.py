"""HTML views: every block a card in its lane, pairs and errors marked in words, text escaped."""

from __future__ import annotations

import re

import pytest

from toolcall_lab import (
    Message,
    ReasoningBlock,
    ScriptedProvider,
    StopReason,
    ToolCall,
    ToolResult,
    Transcript,
    Turn,
    Usage,
    run_agent,
)
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tokens import blocks_text, estimate_tokens
from toolcall_lab.tools import get_weather
from toolcall_lab.views.display import message_html, pair_numbers, run_html, transcript_html, turn_html

SIGNATURE = "EqQBCkYIARgCKkBsignature-bytes-that-must-not-show"


@pytest.fixture
def paris_run():
    return run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])


def tricky() -> Transcript:
    """Every kind of block, an error, a malformed call, reasoning with a signature, hostile text."""
    return Transcript(system="Be brief & <polite>.", messages=[
        Message.user("Paris and Oslo? <script>alert(1)</script>"),
        Message.assistant(ReasoningBlock("Two lookups.", "anthropic", "claude-x", {"signature": SIGNATURE}),
                          ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
                          ToolCall("toolu_02", "get_weather", raw_args='{"city": "Os')),
        Message.results([ToolResult("toolu_01", "18°C, sunny"),
                         ToolResult("toolu_02", "arguments were not valid JSON", is_error=True)]),
        Message.assistant("It's 18°C in Paris; Oslo failed."),
    ])


def test_same_transcript_gives_byte_identical_html(paris_run):
    again = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    assert transcript_html(paris_run.transcript) == transcript_html(paris_run.transcript)
    # fresh message ids and times do not leak into the view
    assert run_html(paris_run) == run_html(again)
    assert transcript_html(tricky()) == transcript_html(tricky())


def test_one_self_contained_div_without_scripts_ids_or_external_resources(paris_run):
    html = run_html(paris_run)
    assert html.startswith('<div class="tcl-view" style="') and html.endswith("</div>")
    # styles are inline: JupyterLab strips <style> from an untrusted notebook's outputs
    for forbidden in ("<script", "<style", " id=", "http://", "https://", "url(", "@import", "msg_"):
        assert forbidden not in html
    classes = set(re.findall(r'class="([^"]+)"', html))
    assert all(name.startswith("tcl-") for c in classes for name in c.split())


def test_paris_run_pairs_the_call_with_its_result_and_labels_producers(paris_run):
    html = transcript_html(paris_run.transcript)
    assert html.count("toolu_01 ↔") == 2  # the same badge on the call and on its result
    cards = re.findall(r'<div class="tcl-card (tcl-pair-\d+)" style="([^"]*)"><span class="tcl-label" '
                       r'[^>]*>tool (call|result)', html)
    assert [kind for _, _, kind in cards] == ["call", "result"]
    (call_class, call_style, _), (result_class, result_style, _) = cards
    assert call_class == result_class and call_style == result_style  # the same border pattern
    assert "border-style:dashed" in call_style
    heads = re.findall(r'<div class="tcl-head" style="[^"]*">(.*?) <span', html)
    assert heads == ["#1 user · the user", "#2 assistant · the model, call 1",
                     "#3 user · your code", "#4 assistant · the model, call 2"]
    for message in paris_run.transcript:
        assert f"≈{estimate_tokens(blocks_text(message.blocks))} tokens (estimated)" in html
    assert '"city": "Paris"' in html.replace("&quot;", '"')  # arguments as indented JSON
    assert "system prompt</span> (none)" in html


def test_lanes_put_user_role_left_and_the_model_right(paris_run):
    html = transcript_html(paris_run.transcript)
    lanes = re.findall(r'<div class="tcl-msg tcl-(\w+)" style="[^"]*align-self:(flex-\w+)', html)
    assert lanes == [("user", "flex-start"), ("assistant", "flex-end"), ("user", "flex-start"),
                     ("assistant", "flex-end")]


def test_an_error_result_carries_the_word_error_and_a_malformed_call_its_raw_text():
    html = transcript_html(tricky())
    assert html.count(">ERROR</span>") == 1
    assert ">MALFORMED</span>" in html
    assert "{&quot;city&quot;: &quot;Os" in html  # the raw text exactly as it arrived, escaped


def test_reasoning_is_folded_and_opaque_parts_are_named_but_never_shown():
    html = transcript_html(tricky())
    assert re.search(r'<details><summary class="tcl-summary" style="[^"]*">'
                     r"reasoning \(anthropic\)</summary>", html)
    details = html[html.index("<details>"):html.index("</details>")]
    assert "Two lookups." in details and "signature" in details
    assert SIGNATURE not in html


def test_conversation_text_is_escaped():
    html = transcript_html(tricky())
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Be brief &amp; &lt;polite&gt;." in html


def test_message_html_alone_keeps_the_pair_style_it_has_in_the_transcript():
    t = tricky()
    pairs = pair_numbers(t)
    assert pairs == {"toolu_01": 0, "toolu_02": 1}
    alone = message_html(t[2], pair=pairs)
    assert "tcl-pair-0" in alone and "tcl-pair-1" in alone and "your code" in alone
    assert re.search(r"tcl-pair-\d", message_html(t[2], pair={})) is None  # no pairs, no pattern
    assert "the model, call 1" in message_html(t[1], producer="the model, call 1")


def test_turn_view_shows_stop_reason_usage_and_model(paris_run):
    html = turn_html(paris_run.steps[0].turn)
    assert "stop reason:</b> tool_use" in html
    assert "104 input, 21 output tokens (estimated)" in html
    assert "model:</b> scripted-1" in html
    reported = Turn(Message.assistant("Hi."), StopReason.END_TURN,
                    Usage(100, 20, cache_read_tokens=80, reasoning_tokens=5), "real-model")
    assert "100 input, 20 output, 80 cache read, 5 reasoning tokens (reported by the provider)" in turn_html(
        reported)


def test_run_view_has_one_line_per_call_and_the_note(paris_run):
    html = run_html(paris_run)
    assert "call 1: sent 1 message · 104 input, 21 output tokens (estimated) · stop reason tool_use" in html
    assert "call 2: sent 3 messages · 161 input, 14 output tokens (estimated) · stop reason end_turn" in html
    assert "end_turn: the model answered." in html


def test_repr_html_delegates_to_the_views(paris_run):
    t = paris_run.transcript
    assert t._repr_html_() == transcript_html(t)
    assert t[1]._repr_html_() == message_html(t[1])
    assert paris_run.steps[0].turn._repr_html_() == turn_html(paris_run.steps[0].turn)
    assert paris_run._repr_html_() == run_html(paris_run)


@pytest.mark.slow  # a fresh interpreter: nothing of the kit imported yet
def test_a_lesson_shows_html_without_importing_a_view_and_the_vocabulary_names_none():
    """The views register the HTML display from above (`_display.py`, issue 30): importing the
    vocabulary loads no view, and the first display loads them, as a lesson's first cell does."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from toolcall_lab.messages import Message\n"
            "from toolcall_lab.transcript import Transcript\n"
            "before = [m for m in sys.modules if '.views' in m]\n"
            "html = Transcript(messages=[Message.user('Hi')])._repr_html_()\n"
            "print(before, html.startswith('<div class=\"tcl-view\"'),\n"
            "      'toolcall_lab.views.display.html' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["[]", "True", "True"]


def test_text_reprs_are_unchanged(paris_run):
    assert repr(paris_run.transcript) == "Transcript(4 messages)"
    assert repr(paris_run.transcript[2]) == "Message.user(ToolResult('toolu_01', '18°C, sunny'))"


def test_empty_transcript_says_so():
    assert "(no messages yet)" in transcript_html(Transcript())


def test_a_key_in_the_environment_never_shows(monkeypatch, paris_run):
    from conftest import SECRET

    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    shown = [run_html(paris_run), transcript_html(tricky()), turn_html(paris_run.steps[0].turn)]
    assert not [html for html in shown if SECRET in html]


# -- colours follow JupyterLab's theme -------------------------------------------------------
FIXED_BACKGROUNDS = {"#D55E00"}  # the ERROR / MALFORMED badge: black on vermillion in either theme
OKABE_ITO_BORDERS = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"}


def theme_problems(html: str) -> list[str]:
    """Every colour in `html` that would not follow JupyterLab's light and dark themes.

    A text colour or a background must be a `var(--jp-…, fallback)` (a theme variable with
    a light fallback for VS Code and Colab), a see-through tint (rgba with alpha below 1),
    or the error badge's fixed pair (black text on vermillion).
    """
    problems = []
    for style in re.findall(r"""style=(?:"([^"]*)"|'([^']*)')""", html):
        style = "".join(style)
        fixed_badge = "background:#D55E00" in style
        for prop, value in re.findall(r"(?:^|;)\s*(color|background(?:-color)?)\s*:\s*([^;]+)", style):
            value = value.strip()
            themed = re.fullmatch(r"var\(--jp-[\w-]+,\s*#[0-9a-fA-F]{3,6}\)", value)
            tint = re.fullmatch(r"rgba\(\d+,\d+,\d+,(0?\.\d+)\)", value)
            fixed = (prop != "color" and value in FIXED_BACKGROUNDS) or (
                prop == "color" and value == "#000" and fixed_badge)
            if not (themed or tint or fixed):
                problems.append(f"{prop}:{value} in {style[:80]}")
        # borders: theme variables, or the Okabe-Ito colours of a call and its result (readable
        # on white and on near-black; the pattern and the id badge carry the pairing too)
        bare = re.sub(r"var\([^)]*\)", "", ";".join(re.findall(r"border[\w-]*\s*:\s*[^;]+", style)))
        for colour in re.findall(r"#[0-9a-fA-F]{3,6}\b|\b(?:white|black)\b", bare):
            if colour not in OKABE_ITO_BORDERS and not (colour == "#000" and fixed_badge):
                problems.append(f"border colour {colour} in {style[:80]}")
        if re.search(r"var\(--jp-[\w-]+\)", style):
            problems.append(f"a theme variable without a fallback in {style[:80]}")
    return problems


def test_theme_problems_flags_hard_coded_colours():
    assert theme_problems("<div style='color:var(--jp-content-font-color0, #000)'></div>") == []
    assert theme_problems('<div style="background:rgba(0,114,178,.12)"></div>') == []
    assert len(theme_problems("<div style='background:#fff;color:#000'></div>")) == 2
    assert theme_problems("<div style='background:white'></div>") != []
    assert theme_problems("<div style='color:var(--jp-ui-font-color1)'></div>") != []  # no fallback
    assert theme_problems("<div style='border:1px solid #000'></div>") != []
    assert theme_problems("<div style='border:2px solid var(--jp-content-font-color2, #555)'></div>") == []


def test_every_view_takes_its_colours_from_the_jupyterlab_theme(paris_run):
    views = [transcript_html(tricky()), run_html(paris_run), turn_html(paris_run.steps[0].turn),
             message_html(tricky()[2], pair=pair_numbers(tricky()))]
    for html in views:
        assert "var(--jp-content-font-color0, #000)" in html and "var(--jp-layout-color0, #fff)" in html
        assert theme_problems(html) == []
    # the error badge keeps its word: colour is never the only cue
    assert ">ERROR</span>" in views[0] and "background:#D55E00" in views[0]


def test_the_outer_view_sets_text_and_background_together():
    # a host without the variables gets dark on white, never white text on its own dark page
    outer = re.match(r'<div class="tcl-view" style="([^"]*)"', transcript_html(tricky())).group(1)
    assert "color:var(--jp-content-font-color0, #000)" in outer
    assert "background:var(--jp-layout-color0, #fff)" in outer
