"""Sequence diagrams of a conversation: who sends what to whom, in order.

Four lanes, always in this order: the User, Your code, the Model, the Tool. The
transcript alone decides the arrows:

- a user question: User ->> Your code (your code is what calls the model);
- each assistant message: Your code ->> Model "call N: sends M messages" (the whole
  history so far, M messages), then Model -->> Your code with the reply: the tool calls it
  asks for (name, short arguments, id) and/or its text;
- each tool result: Your code ->> Tool "name(args) id", then Tool -->> Your code with the
  result, or "ERROR: ..." when it failed. The model never runs a tool;
- an answer with no tool calls: Your code ->> User;
- a synthetic message (one your code wrote, such as a summary): a note on Your code.

A run whose tools were on an MCP server (`mcp_loop.McpRun`, which keeps its JSON-RPC
`hops`) gains a fifth lane, the MCP server, between the Model and the Tool: the connection's
first messages (the protocol version, `tools/list`) come first, as Your code ->> MCP
server and back, before the user's question; and each result the server produced is
Your code ->> MCP server "#id tools/call name(args)", MCP server ->> Tool and back (the
server runs it), MCP server -->> Your code "#id result", with the connection's JSON-RPC id,
not the model's call id, which never reaches the server. An `isError` reply draws no
arrow into the Tool lane: the reply does not say whether the tool ran. Without MCP hops
the diagram is the four lanes above, exactly.

Requests are solid arrows (->>), replies dashed (-->>). `sequence_diagram` writes Mermaid
source, which JupyterLab 4.1+ draws natively (mime type text/vnd.mermaid) and which doubles
as the text alternative of the picture; `plot_sequence` draws the same arrows with
matplotlib, for figures/ and for viewers without Mermaid, and `describe_sequence` says them
in words (the figure's text alternative). `highlight=k` marks message k
(0-based) with a shaded box *and* a "message k+1" label, so colour is never the only cue.

Light and dark: JupyterLab draws Mermaid in Mermaid's `default` theme under a light
JupyterLab theme and in its `dark` theme under a dark one (dark text on light, light text on
dark), so the source sets no theme of its own. The one colour it does set, the highlight, is
translucent: it tints whatever is behind it, pale yellow under dark text and dark olive under
light text. (An opaque pale box would hide the dark theme's light labels.)

Left out: timing (arrows are in order, not to scale) and the content of long messages,
which is shortened; `transcript_html` shows every block in full.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from ..._text import shorten
from ...blocks import ToolCall, ToolResult
from ...errors import UsageError
from ...mcp_tools.rpc import Hop
from ...messages import Message
from ...transcript import Transcript
from ..palette import OKABE_ITO, rgb
from ..report import arguments_text, producer_labels

if TYPE_CHECKING:
    from ...loop import Run
    from .._figure import DescribedFigure

__all__ = ["LANES", "MCP_LANES", "Arrow", "SequenceDiagram", "describe_sequence", "lanes", "plot_sequence",
           "sequence_arrows", "sequence_diagram"]

Lane = Literal["U", "C", "M", "S", "T"]
_Messages = Transcript | Sequence[Message]  # what a Run's `.transcript` or the argument itself holds
#: (Mermaid alias, label) of each lane, left to right.
LANES: tuple[tuple[Lane, str], ...] = (("U", "User"), ("C", "Your code"), ("M", "Model"), ("T", "Tool"))
#: ... when the run's tools were on an MCP server: the server's lane before the Tool's.
MCP_LANES: tuple[tuple[Lane, str], ...] = (*LANES[:3], ("S", "MCP server"), LANES[3])
#: The message a connection's first hops belong to: none (they come before the conversation).
SETUP = -1
LABEL = 60  # characters an arrow label keeps before it is shortened
REPLY_LABEL = 90  # a reply may list several calls
# Okabe-Ito yellow at 30% opacity: readable under both Mermaid themes; the note carries the meaning
HIGHLIGHT_RGBA = (*rgb("yellow"), 0.3)


@dataclass(frozen=True)
class Arrow:
    """One arrow of the diagram, and the message (0-based index) it belongs to.

    `reply` arrows are dashed. An arrow whose source is its target is a note on that lane.
    """

    source: Lane
    target: Lane
    label: str
    message: int
    reply: bool = False


def _one_line(text: str, limit: int = LABEL) -> str:
    # subtle: str.split() also splits on \r, \u2028 and friends, which Mermaid reads as line ends.
    printable = "".join(ch if ch.isprintable() else " " for ch in text)
    return shorten(" ".join(printable.split()), limit)


def _call_label(call: ToolCall) -> str:
    """get_weather(city=Paris) toolu_01: strings bare, other values as JSON."""
    if call.malformed:
        args = "raw: " + (call.raw_args or "")
    else:
        args = arguments_text(call.args)
    # subtle: the name (a model may invent one) and the id are untrusted text like any other:
    # a line break in either would end the Mermaid statement, so the whole label is one line.
    return _one_line(f"{call.name}({_one_line(args, 30)}) {call.id}", REPLY_LABEL)


def _reply_label(message: Message) -> str:
    parts = ["(reasoning)"] if message.reasoning else []
    if message.text:
        parts.append(_one_line(message.text))
    if message.tool_calls:
        parts.append(", ".join(_call_label(c) for c in message.tool_calls))
    return _one_line(" + ".join(parts), REPLY_LABEL) if parts else "(no content)"


def _hops(transcript: object) -> list[Hop]:
    """The JSON-RPC hops a run kept (an `McpRun`'s), or none."""
    return list(getattr(transcript, "hops", None) or [])


def lanes(transcript: Transcript | Run | Sequence[Message]) -> tuple[tuple[Lane, str], ...]:
    """The lanes the diagram of `transcript` has: `MCP_LANES` for a run with MCP hops, else `LANES`."""
    return MCP_LANES if _hops(transcript) else LANES


def sequence_arrows(transcript: Transcript | Run | Sequence[Message]) -> list[Arrow]:
    """The arrows of the diagram, top to bottom, each tagged with its message.

    >>> from toolcall_lab import ToolResult
    >>> t = Transcript(messages=[Message.user("Hi?"), Message.assistant(ToolCall("toolu_01", "ping", {})),
    ...                          Message.results([ToolResult("toolu_01", "pong")])])
    >>> for a in sequence_arrows(t):
    ...     print(a.message, a.source, "-->>" if a.reply else "->>", a.target, a.label)
    0 U ->> C Hi?
    1 C ->> M call 1: sends 1 message
    1 M -->> C ping() toolu_01
    2 C ->> T ping() toolu_01
    2 T -->> C pong

    A connection's first hops have the message `SETUP` (-1): they come before the question.
    """
    messages: list[Message] = list(cast(_Messages, getattr(transcript, "transcript", transcript)))
    served = _hops(transcript)
    by_call = {hop.call_id: hop for hop in served if hop.call_id is not None}
    arrows = [arrow for hop in served if hop.call_id is None for arrow in _setup_arrows(hop)]
    calls: dict[str, ToolCall] = {}
    for k, (message, producer) in enumerate(zip(messages, producer_labels(messages), strict=True)):
        if message.role == "assistant":
            plural = "" if k == 1 else "s"
            number = producer.removeprefix("the model, call ")
            arrows.append(Arrow("C", "M", f"call {number}: sends {k} message{plural}", k))
            arrows.append(Arrow("M", "C", _reply_label(message), k, reply=True))
            calls.update((c.id, c) for c in message.tool_calls)
            if message.text and not message.tool_calls:
                arrows.append(Arrow("C", "U", _one_line(message.text), k))
        elif message.tool_results:
            for result in message.tool_results:
                hop = by_call.get(result.call_id)
                arrows += _result_arrows(result, calls.get(result.call_id), k) if hop is None else \
                    _server_arrows(hop, k)
        elif message.synthetic:
            arrows.append(Arrow("C", "C", "your code wrote: " + _one_line(message.text or "(empty)"), k))
        else:
            arrows.append(Arrow("U", "C", _one_line(message.text) or "(empty message)", k))
    return arrows


def _result_arrows(result: ToolResult, call: ToolCall | None, k: int) -> list[Arrow]:
    """Your code runs the tool itself: Your code ->> Tool, and back."""
    asked = _call_label(call) if call else _one_line(f"(no matching call) {result.call_id}")
    said = ("ERROR: " if result.is_error else "") + result.content
    return [Arrow("C", "T", asked, k), Arrow("T", "C", _one_line(said), k, reply=True)]


def _numbered(hop: Hop, text: str) -> str:
    """A hop's words with its JSON-RPC id in front ("#3 ..."); a notification has none."""
    return _one_line(f"#{hop.request.id} {text}" if hop.request.id is not None else text, REPLY_LABEL)


def _setup_arrows(hop: Hop) -> list[Arrow]:
    """A connection's own request (the version, the tool list) and its reply."""
    arrows = [Arrow("C", "S", _numbered(hop, hop.asked), SETUP)]
    if hop.reply is not None:
        arrows.append(Arrow("S", "C", _numbered(hop, hop.answered), SETUP, reply=True))
    return arrows


def _server_arrows(hop: Hop, k: int) -> list[Arrow]:
    """Your code asks the server (tools/call), the server runs the tool, the reply comes back."""
    params = hop.request.body.get("params") or {}
    args = arguments_text(params.get("arguments"))
    ran = _one_line(f"{params.get('name')}({_one_line(args, 30)})", REPLY_LABEL)
    arrows = [Arrow("C", "S", _numbered(hop, f"tools/call {ran}"), k)]
    result = hop.reply.body.get("result") if hop.reply is not None else None
    if isinstance(result, dict) and not result.get("isError"):
        arrows += [Arrow("S", "T", ran, k), Arrow("T", "S", _one_line(hop.answered), k, reply=True)]
    arrows.append(Arrow("S", "C", _numbered(hop, hop.answered), k, reply=True))
    return arrows


# -- Mermaid ----------------------------------------------------------------------------
# subtle: in a Mermaid message, ";" ends the statement and "#" starts an entity code
# (#59; is ";"), so both are written as entity codes, as are <, > and " (HTML in labels).
_MERMAID_ESCAPES = {"#": "#35;", ";": "#59;", "<": "#60;", ">": "#62;", '"': "#34;", "%": "#37;"}


def _mermaid_text(text: str) -> str:
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in text)


def _mermaid_line(arrow: Arrow) -> str:
    if arrow.source == arrow.target:
        return f"Note over {arrow.source}: {_mermaid_text(arrow.label)}"
    return f"{arrow.source}{'-->>' if arrow.reply else '->>'}{arrow.target}: {_mermaid_text(arrow.label)}"


@dataclass(frozen=True)
class SequenceDiagram:
    """Mermaid source that JupyterLab draws as a diagram; `str()` gives the source itself."""

    mermaid: str

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        bundle = {"text/vnd.mermaid": self.mermaid, "text/plain": self.mermaid}
        return {mime: data for mime, data in bundle.items()
                if (include is None or mime in include) and (exclude is None or mime not in exclude)}

    def __str__(self) -> str:
        return self.mermaid


def _check_highlight(highlight: int | None, count: int) -> None:
    if highlight is not None and not 0 <= highlight < count:
        raise UsageError(f"highlight={highlight} is not a message of this transcript; pass a 0-based "
                         f"message index from 0 to {count - 1}, or None.")


def sequence_diagram(transcript: Transcript | Run, *, highlight: int | None = None) -> SequenceDiagram:
    """The conversation as a Mermaid sequence diagram, generated from the transcript.

    >>> from toolcall_lab import ToolResult
    >>> t = Transcript(messages=[Message.user("Hi; #1?"), Message.assistant("Hello.")])
    >>> print(sequence_diagram(t, highlight=1))
    sequenceDiagram
        participant U as User
        participant C as Your code
        participant M as Model
        participant T as Tool
        U->>C: Hi#59; #35;1?
        rect rgba(240, 228, 66, 0.3)
            Note over U,M: message 2 (the model, call 1)
            C->>M: call 1: sends 1 message
            M-->>C: Hello.
            C->>U: Hello.
        end
    """
    messages: list[Message] = list(cast(_Messages, getattr(transcript, "transcript", transcript)))
    _check_highlight(highlight, len(messages))
    arrows = sequence_arrows(transcript)
    shown = lanes(transcript)
    lines = ["sequenceDiagram", *(f"    participant {alias} as {label}" for alias, label in shown)]
    order = [alias for alias, _ in shown]
    group: Iterable[Arrow]
    for message, group in itertools.groupby(arrows, key=lambda a: a.message):
        if message != highlight:
            lines.extend(f"    {_mermaid_line(a)}" for a in group)
            continue
        group = list(group)
        touched = sorted({order.index(x) for a in group for x in (a.source, a.target)})
        span = ",".join(dict.fromkeys((order[touched[0]], order[touched[-1]])))
        lines.append(f"    rect rgba{HIGHLIGHT_RGBA}")
        producer = producer_labels(messages)[message]
        lines.append(f"        Note over {span}: message {message + 1} ({producer})")
        lines.extend(f"        {_mermaid_line(a)}" for a in group)
        lines.append("    end")
    return SequenceDiagram("\n".join(lines))


# -- matplotlib --------------------------------------------------------------------------
def describe_sequence(transcript: Transcript | Run | Sequence[Message], *, highlight: int | None = None,
                      subject: str | None = None) -> str:
    """The sequence diagram in words, arrow by arrow (the text alternative of `plot_sequence`).

    `subject` names the conversation; it defaults to "a conversation of N messages".

    >>> t = Transcript(messages=[Message.user("Hi?"), Message.assistant("Hello.")])
    >>> print(describe_sequence(t, highlight=1))  # doctest: +NORMALIZE_WHITESPACE
    Sequence diagram of a conversation of 2 messages, with four lanes left to right (User, Your
    code, Model, Tool) and one arrow per row, requests solid and replies dashed. Top to bottom:
    User to Your code: Hi?; Your code to Model: call 1: sends 1 message; Model to Your code
    (reply): Hello.; Your code to User: Hello. The arrows of message 2 (the model, call 1) are
    boxed and labelled "message 2".
    """
    messages: list[Message] = list(cast(_Messages, getattr(transcript, "transcript", transcript)))
    _check_highlight(highlight, len(messages))
    shown = lanes(transcript)
    lane = dict(shown)
    steps = [f"note on {lane[a.source]}: {a.label}" if a.source == a.target else
             f"{lane[a.source]} to {lane[a.target]}{' (reply)' if a.reply else ''}: {a.label}"
             for a in sequence_arrows(transcript)]
    subject = subject or f"a conversation of {len(messages)} message{'' if len(messages) == 1 else 's'}"
    count = {4: "four", 5: "five"}[len(shown)]
    text = (f"Sequence diagram of {subject}, with {count} lanes left to right "
            f"({', '.join(label for _, label in shown)}) and one arrow per row, requests solid and "
            "replies dashed. Top to bottom: " + "; ".join(steps))
    text = text if text.endswith(".") else text + "."
    if highlight is not None:
        text += (f" The arrows of message {highlight + 1} ({producer_labels(messages)[highlight]}) "
                 f'are boxed and labelled "message {highlight + 1}".')
    return text


REQUEST_COLOUR, REPLY_COLOUR = OKABE_ITO["blue"], OKABE_ITO["vermillion"]
LANE_X = {"U": 0.15, "C": 0.40, "M": 0.66, "T": 0.90}
#: ... with the MCP server's lane: the same margins, five lanes.
MCP_LANE_X = {"U": 0.10, "C": 0.30, "M": 0.51, "S": 0.71, "T": 0.91}
ROW_INCHES = 0.62
FONT = 14


def plot_sequence(transcript: Transcript | Run, *, highlight: int | None = None,
                  width: float = 12.0) -> DescribedFigure:
    """The same diagram as a static image: four labelled lanes, one arrow per row.

    Requests are solid blue arrows, replies dashed vermillion ones (the dash is the cue,
    colour only adds to it); the highlighted message is boxed and labelled "message k+1".
    The figure is `width` inches wide (12 by default, for a figure of its own; the
    step-through draws it at its column's width) at 100 dpi and 7 inches tall, taller when
    there are more than eight arrows; labels keep as many characters as fit over their
    arrow. Nothing in it depends on the date or the machine. It displays as a PNG with
    `describe_sequence` as its text (`new_figure`, in `_figure.py`).

    >>> from toolcall_lab import ToolResult
    >>> t = Transcript(messages=[Message.user("Hi?"), Message.assistant("Hello.")])
    >>> fig = plot_sequence(t, highlight=1)
    >>> [text.get_text() for text in fig.axes[0].texts][:4]
    ['User', 'Your code', 'Model', 'Tool']
    """
    from .._figure import figure_style

    with figure_style():  # the kit's fonts, whatever the notebook has set
        return _draw_sequence(transcript, highlight, width)


def _draw_sequence(transcript: Transcript | Run, highlight: int | None, width: float) -> DescribedFigure:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    from .._figure import new_figure

    messages: list[Message] = list(cast(_Messages, getattr(transcript, "transcript", transcript)))
    _check_highlight(highlight, len(messages))
    arrows = sequence_arrows(transcript)
    shown = lanes(transcript)
    lane_x = MCP_LANE_X if shown is MCP_LANES else LANE_X
    rows = max(len(arrows), 1)
    # rows of height the lane headers take, where they sit, and the top of the axes (two lines: more)
    head, header_y, top = (1.5, -1.15, -1.9) if shown is MCP_LANES else (1.2, -1.0, -1.6)
    # the axes span rows + `head` rows of height over 92% of the figure
    fig = new_figure(describe_sequence(transcript, highlight=highlight),
                     figsize=(width, max(7.0, round((rows + head) * ROW_INCHES / 0.92, 1))), dpi=100)
    ax = fig.add_axes((0.0, 0.08, 1.0, 0.92))
    ax.set_xlim(0, 1)
    ax.set_ylim(rows - 0.4, top)  # row 0 at the top
    ax.axis("off")
    for alias, label in shown:
        x = lane_x[alias]
        # subtle: five headers side by side do not fit a narrow column on one line each
        label = label.replace(" ", "\n") if shown is MCP_LANES else label
        ax.text(x, header_y, label, ha="center", va="center", fontsize=FONT + 2, fontweight="bold",
                bbox={"boxstyle": "round,pad=0.4", "facecolor": "#f2f2f2", "edgecolor": "#222",
                      "linewidth": 2})
        ax.plot([x, x], [-0.6, rows - 0.5], color="#555", linewidth=1.5, zorder=1)
    if highlight is not None:
        mine = [row for row, a in enumerate(arrows) if a.message == highlight]
        top, bottom = min(mine) - 0.55, max(mine) + 0.35
        red, green, blue, alpha = HIGHLIGHT_RGBA
        ax.add_patch(Rectangle((0.01, top), 0.98, bottom - top, edgecolor="#000", linewidth=3, zorder=0.5,
                               facecolor=(red / 255, green / 255, blue / 255, alpha)))
        ax.text(0.02, (top + bottom) / 2, f"message\n{highlight + 1}", ha="left", va="center",
                fontsize=FONT, fontweight="bold")
    for row, arrow in enumerate(arrows):
        x1, x2 = lane_x[arrow.source], lane_x[arrow.target]
        # characters that fit over the arrow: width in * 72 pt, about 7.7 pt per character at
        # 14 pt; at least 32, running past the arrow, where that stays on the figure
        per_width = width * 72 / 7.7
        room = int(2 * min(x1 + x2, 2 - x1 - x2) / 2 * 0.95 * per_width)  # to the nearer edge
        fits = max(min(32, room), int(abs(x2 - x1) * per_width))
        # subtle: "$" would switch matplotlib into math mode; a model's text may hold one.
        label = shorten(arrow.label, fits).replace("$", r"\$")
        if x1 == x2:
            ax.text(x1, row, label, ha="center", va="center", fontsize=FONT,
                    bbox={"facecolor": "#fff", "edgecolor": "#222", "linestyle": ":"})
            continue
        colour = REPLY_COLOUR if arrow.reply else REQUEST_COLOUR
        ax.annotate("", xy=(x2, row), xytext=(x1, row),
                    arrowprops={"arrowstyle": "-|>,head_width=0.4,head_length=0.8", "color": colour,
                                "linewidth": 2.5, "linestyle": "--" if arrow.reply else "-",
                                "shrinkA": 0, "shrinkB": 0})
        ax.text((x1 + x2) / 2, row - 0.08, label, ha="center", va="bottom", fontsize=FONT,
                bbox={"facecolor": "#fff", "edgecolor": "none", "pad": 1})
    handles = [Line2D([], [], color=REQUEST_COLOUR, linewidth=2.5, label="request (solid)"),
               Line2D([], [], color=REPLY_COLOUR, linewidth=2.5, linestyle="--", label="reply (dashed)")]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=FONT, frameon=False)
    return fig
