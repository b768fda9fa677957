"""Sequence diagrams: generated from the transcript, valid Mermaid for any text, readable in light
and dark themes, and a static figure that displays as a picture."""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolcall_lab import Message, ScriptedProvider, ToolCall, ToolResult, Transcript, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
from toolcall_lab.views.display.diagram import (
    SequenceDiagram,
    describe_sequence,
    plot_sequence,
    sequence_arrows,
    sequence_diagram,
)

# The Paris run, arrow by arrow: the user asks your code; your code calls the model with the
# one message; the model ASKS for get_weather; your code (not the model) runs it; your code
# calls the model again with all three messages; the model answers; your code shows the user.
PARIS_MERMAID = """\
sequenceDiagram
    participant U as User
    participant C as Your code
    participant M as Model
    participant T as Tool
    U->>C: What's the weather in Paris?
    C->>M: call 1: sends 1 message
    M-->>C: get_weather(city=Paris) toolu_01
    C->>T: get_weather(city=Paris) toolu_01
    T-->>C: 18°C, sunny
    C->>M: call 2: sends 3 messages
    M-->>C: It's 18°C and sunny in Paris.
    C->>U: It's 18°C and sunny in Paris."""


@pytest.fixture
def paris_run():
    return run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])


def tricky() -> Transcript:
    return Transcript(messages=[
        Message.user('Paris; Oslo #1?\n"quoted" <br> 100%%\r\nend\u2028next'),
        Message.assistant("Let me look.", ToolCall("toolu_01", "get_weather", {"city": "Os;lo\n#"}),
                          ToolCall("toolu_02", "get_weather", raw_args='{"city": "Pa')),
        Message.results([ToolResult("toolu_01", "line one;\nline two"),
                         ToolResult("toolu_02", "arguments were not valid JSON", is_error=True)]),
        Message.user("summary of the above; #2", synthetic=True),
        Message.assistant("Done -->> end; %%{init: {}}%%"),
    ])


def test_paris_run_gives_the_expected_mermaid(paris_run):
    diagram = sequence_diagram(paris_run.transcript)
    assert isinstance(diagram, SequenceDiagram)
    assert diagram.mermaid == PARIS_MERMAID
    assert str(diagram) == PARIS_MERMAID
    assert sequence_diagram(paris_run).mermaid == PARIS_MERMAID  # a Run works too


def test_mime_bundle_offers_mermaid_and_plain_text(paris_run):
    diagram = sequence_diagram(paris_run.transcript)
    assert diagram._repr_mimebundle_() == {"text/vnd.mermaid": PARIS_MERMAID, "text/plain": PARIS_MERMAID}
    assert diagram._repr_mimebundle_(include={"text/plain"}) == {"text/plain": PARIS_MERMAID}
    assert diagram._repr_mimebundle_(exclude={"text/plain"}) == {"text/vnd.mermaid": PARIS_MERMAID}


def test_same_transcript_gives_identical_source():
    assert sequence_diagram(tricky()).mermaid == sequence_diagram(tricky()).mermaid


def test_tricky_text_stays_one_valid_statement_per_line():
    source = sequence_diagram(tricky()).mermaid
    lines = source.splitlines()
    assert len(lines) == len(source.split("\n"))  # no \r or \u2028 hiding inside a line
    for line in lines[5:]:
        text = line.split(": ", 1)[1] if ": " in line else ""
        # ";" ends a Mermaid statement; "#" may only start an entity code; no raw HTML or quotes
        assert ";" not in text.replace("#59;", "").replace("#35;", "").replace("#34;", "").replace(
            "#60;", "").replace("#62;", "").replace("#37;", "")
        for raw in ('"', "<", ">", "%"):
            assert raw not in text
    assert "    U->>C: Paris#59; Oslo #35;1? #34;quoted#34; #60;br#62; 100#37;#37; end next" in lines
    assert "    C->>T: get_weather(city=Os#59;lo #35;) toolu_01" in lines
    assert "    T-->>C: ERROR: arguments were not valid JSON" in lines
    assert "    Note over C: your code wrote: summary of the above#59; #35;2" in lines


def test_a_tool_name_or_id_with_a_line_break_stays_on_its_arrow():
    # the model invents tool names and the provider mints ids: both are untrusted text
    call = ToolCall("call\n_7\u2028x", "get\nweather\r\nnow", {"city": "Paris"})
    transcript = Transcript(messages=[
        Message.user("Hi?"), Message.assistant(call),
        Message.results([ToolResult(call.id, "18°C"), ToolResult("lost\nid", "?")])])
    lines = sequence_diagram(transcript).mermaid.splitlines()
    assert "    C->>T: get weather now(city=Paris) call _7 x" in lines
    assert "    C->>T: (no matching call) lost id" in lines
    assert len(lines) == 5 + 7  # the header, then one line per arrow


def test_arrows_follow_the_transcript():
    arrows = sequence_arrows(tricky())
    assert [(a.source, a.target, a.message) for a in arrows] == [
        ("U", "C", 0), ("C", "M", 1), ("M", "C", 1),
        ("C", "T", 2), ("T", "C", 2), ("C", "T", 2), ("T", "C", 2),
        ("C", "C", 3), ("C", "M", 4), ("M", "C", 4), ("C", "U", 4)]
    assert arrows[2].label == ("Let me look. + get_weather(city=Os;lo #) toolu_01, "
                               'get_weather(raw: {"city": "Pa) toolu_02')
    assert arrows[8].label == "call 2: sends 4 messages"
    replies = [a.reply for a in arrows]
    assert replies == [False, False, True, False, True, False, True, False, False, True, False]


def test_highlight_wraps_the_message_in_a_box_with_a_note(paris_run):
    source = sequence_diagram(paris_run.transcript, highlight=2).mermaid
    assert "\n    rect rgba(240, 228, 66, 0.3)\n        Note over C,T: message 3 (your code)\n" \
           "        C->>T: get_weather(city=Paris) toolu_01\n        T-->>C: 18°C, sunny\n    end\n" in source
    # the rest is unchanged
    unboxed = [line.strip() for line in source.splitlines()
               if not line.strip().startswith(("rect", "Note", "end"))]
    assert unboxed == [line.strip() for line in PARIS_MERMAID.splitlines()]
    first = sequence_diagram(paris_run.transcript, highlight=0).mermaid
    assert "Note over U,C: message 1 (the user)" in first


def test_highlight_out_of_range_says_what_to_pass(paris_run):
    with pytest.raises(ValueError, match="from 0 to 3"):
        sequence_diagram(paris_run.transcript, highlight=4)


def test_plot_sequence_draws_four_labelled_lanes_and_the_highlight(paris_run):
    from matplotlib.figure import Figure
    from matplotlib.text import Annotation

    fig = plot_sequence(paris_run.transcript, highlight=2)
    assert isinstance(fig, Figure)
    assert tuple(fig.get_size_inches()) == (12.0, 7.0) and fig.dpi == 100
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts[:4] == ["User", "Your code", "Model", "Tool"]
    assert "message\n3" in texts
    assert "get_weather(city=Paris) toolu_01" in texts and "call 2: sends 3 messages" in texts
    styles = [t.arrow_patch.get_linestyle() for t in fig.axes[0].texts if isinstance(t, Annotation)]
    assert styles == ["-", "-", "--", "-", "--", "-", "--", "-"]  # replies dashed: model, tool, model


def test_plot_sequence_takes_dollar_signs_literally():
    fig = plot_sequence(Transcript(messages=[Message.user("It costs $5 or $6"), Message.assistant("ok")]))
    fig.canvas.draw()  # would raise on broken math text
    assert r"It costs \$5 or \$6" in [t.get_text() for t in fig.axes[0].texts]


@pytest.mark.slow
def test_importing_display_loads_no_matplotlib():
    code = "import toolcall_lab.views.display, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "False"


def test_plot_sequence_displays_as_a_png_with_its_description(paris_run):
    import base64
    import struct

    from IPython.core.formatters import DisplayFormatter

    fig = plot_sequence(paris_run, highlight=2)
    data, _ = DisplayFormatter().format(fig)  # what the kernel sends for a cell's last value
    png = base64.b64decode(data["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1200, 700)
    assert data["text/plain"].split() == describe_sequence(paris_run, highlight=2).split()
    assert not data["text/plain"].startswith("<Figure") and not repr(fig).startswith("<Figure")
    assert repr(fig) == ("Sequence diagram of a conversation of 4 messages, with four lanes left to "
                         "right (User, Your code, Model, Tool) and one arrow per row, requests solid and "
                         "replies dashed.")


def test_describe_sequence_says_each_arrow_and_the_highlight(paris_run):
    text = describe_sequence(paris_run, subject="the Paris run", highlight=2)
    assert text.startswith("Sequence diagram of the Paris run, with four lanes")
    assert "Model to Your code (reply): get_weather(city=Paris) toolu_01; Your code to Tool:" in text
    assert text.endswith('The arrows of message 3 (your code) are boxed and labelled "message 3".')
    assert "note on Your code: your code wrote: summary of the above; #2" in describe_sequence(tricky())


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour given as 0-255 channels."""
    linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG contrast ratio: white on black is 21, and body text needs at least 4.5."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_highlight_keeps_labels_readable_in_jupyterlabs_light_and_dark_themes(paris_run):
    # JupyterLab draws Mermaid with Mermaid's "default" theme (text #333) on its light page (#fff)
    # and with its "dark" theme (text #ccc) on its dark page (#111). The highlight box lies between
    # the page and the labels, so it must leave 4.5:1 under both; an opaque pale box would not.
    source = sequence_diagram(paris_run, highlight=2).mermaid
    rgba = source.split("rect rgba(", 1)[1].split(")", 1)[0]
    *rgb, alpha = (float(v) for v in rgba.split(","))
    for page, text in (((255, 255, 255), (0x33,) * 3), ((0x11,) * 3, (0xCC,) * 3)):
        box = tuple(alpha * c + (1 - alpha) * p for c, p in zip(rgb, page, strict=True))
        assert contrast(box, text) >= 4.5, (page, box)
    assert contrast((255, 236, 170), (0xCC,) * 3) < 1.5  # the old opaque box: labels all but vanished
    assert "%%{" not in source  # no theme of its own: JupyterLab's light/dark choice applies
