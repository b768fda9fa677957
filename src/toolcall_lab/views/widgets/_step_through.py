"""Step through a conversation: Previous / Next over its messages, one at a time.

For message k the widget shows the message itself, where it sits in the sequence diagram,
the part of the chosen API's request body that message k becomes, and the input tokens
the model calls so far were billed. Every callback only sets other widgets' `.value`, so
a test drives it by clicking:

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> from toolcall_lab.examples import PARIS_QUESTION, weather_policy
    >>> from toolcall_lab.tools import get_weather
    >>> run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    >>> w = step_through(run, tools=[get_weather])
    >>> w.next_button.click(); w.position.value
    'message 2 of 4 · the model, call 1'

Left out: editing the transcript, and the output tokens (the bill's input side is the lesson).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from ...errors import UsageError
from ._common import API_TITLES, FONT, described, pre, wire_body

if TYPE_CHECKING:
    from ...loop import Run
    from ...tool import Tool
    from ...transcript import Transcript

__all__ = ["step_through"]

#: The tallest the sequence diagram is drawn in the widget (CSS), whatever the column's width.
DIAGRAM_MAX_HEIGHT = "400px"

def _input_so_far(transcript: Transcript, run: Run | None,
                  tools: Sequence[Tool]) -> list[tuple[int, int, bool]]:
    """(calls made, input tokens billed, estimated?) once message k is on the table.

    Call j sent every message before the model's j-th reply; with a `Run` its input is
    what the provider reported (`step.usage`), otherwise the kit's estimate of the
    request (about 4 characters per token).
    """
    from ...tokens import message_chars, request_tokens
    from ...transcript import Transcript

    sent: list[tuple[int, int, bool]] = []  # (messages sent, input tokens, estimated) per call
    if run is not None:
        sent = [(s.messages_sent, s.usage.input_tokens, s.usage.estimated) for s in run.steps]
    else:
        chars = 0  # characters of messages[:index] in the request: a running total, so O(n) in all
        for index, message in enumerate(transcript):
            if message.role == "assistant":
                prefix = Transcript(transcript.system, transcript.messages[:index])
                sent.append((index, request_tokens(prefix, tools, messages_chars=chars), True))
            chars += message_chars(message)
    # subtle: the call that produced message k sent messages[:k], so it counts once k is shown;
    # a call whose reply stayed out of the transcript (a refusal) counts at the last message.
    sent.sort(key=lambda call: call[0])
    rows: list[tuple[int, int, bool]] = []
    made, billed, estimated, last = 0, 0, False, len(transcript) - 1
    for k in range(len(transcript)):
        while made < len(sent) and (sent[made][0] <= k or k == last):
            billed, estimated, made = billed + sent[made][1], estimated or sent[made][2], made + 1
        rows.append((made, billed, estimated))
    return rows


def _wire_part(transcript: Transcript, k: int, tools: Sequence[Tool], api: str,
               model: str | None) -> str:
    """HTML: the items of `api`'s request body that message k becomes, as pretty JSON (the list
    under the API's `ITEMS_KEY`, `wire/<api>/_blocks.py`: "input" for Responses, else "messages")."""
    from ...transcript import Transcript
    from ...wire import API_SPECS

    spec = API_SPECS[api]
    codec: Any = spec.codec  # subtle: ITEMS_KEY is the API's own name, not the `Codec` protocol's
    key = codec.ITEMS_KEY
    before = wire_body(Transcript(transcript.system, transcript.messages[:k]), tools, api, model)[key]
    after = wire_body(Transcript(transcript.system, transcript.messages[: k + 1]), tools, api, model)[key]
    start = len(before) if after[: len(before)] == before else len(after) - 1
    part = after[start:]
    title = spec.title
    if not part:
        where = f"nothing: the {title} request leaves message {k + 1} out"
        return f"<div style='{FONT}'><b>{html.escape(where)}</b></div>"
    span = f"{key}[{start}]" if len(part) == 1 else f"{key}[{start}:{start + len(part)}]"
    shown = part[0] if len(part) == 1 else part
    heading = f"message {k + 1} in the {title} request body: {span}"
    # subtle: one line of JSON, wrapped by the box; indented, a tool call alone is 14 lines and
    # would push the step-through off a 720-pixel screen
    return (f"<div style='{FONT}'><b>{html.escape(heading)}</b></div>"
            + pre(json.dumps(shown, ensure_ascii=False)))


#: The diagram is drawn at the width its column has at 1280x720 (about 470 px beside the
#: message, in JupyterLab with its file browser open) or a little wider, so its 14-point
#: labels show at about 16 px: drawn 12 inches wide and shrunk, they were 7 to 8 px.
DIAGRAM_INCHES = 5.6
#: The tallest window of the diagram one message is shown in (pixels of the drawn figure,
#: under the lane headers); a message taller than this gets a window as tall as it needs.
WINDOW = 380


class _Diagram:
    """The sequence diagram drawn once; message k is shown as a window around its arrows, boxed.

    Redrawing the whole diagram on every click costs a full render (a 1.4 MB PNG at 100
    messages, seconds per click). Instead the figure is rendered to pixels once, at its
    display size (`DIAGRAM_INCHES`); each message gets the lane headers over a crop centred
    on its arrows, `WINDOW` pixels tall or as tall as the message's own box needs (message k
    is never cut), with the highlight box drawn on the pixels, so a click costs the same on a
    long run as on a short one. A diagram no taller than the window is shown whole.
    """

    def __init__(self, transcript: Transcript | Run) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from PIL import Image

        from ..display.diagram import plot_sequence, sequence_arrows

        figure = plot_sequence(transcript, width=DIAGRAM_INCHES)
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        width, height = canvas.get_width_height()
        pixels_drawn = canvas.buffer_rgba()
        self.image = Image.frombuffer("RGBA", (width, height), pixels_drawn, "raw", "RGBA", 0, 1).copy()
        axes = figure.axes[0]

        def pixels(x: float, row: float) -> tuple[float, float]:  # data -> (column, row) from the top
            column, up = axes.transData.transform((x, row))
            return column, height - up

        arrows = sequence_arrows(transcript)
        self.header = int(pixels(0, -0.5)[1])  # the lane headers end half a row above row 0
        self.boxes: dict[int, tuple[float, float, float, float]] = {}
        for index in {arrow.message for arrow in arrows}:
            rows = [row for row, arrow in enumerate(arrows) if arrow.message == index]
            left, top = pixels(0.01, min(rows) - 0.55)
            right, bottom = pixels(0.99, max(rows) + 0.35)
            self.boxes[index] = (left, top, right, bottom)
        figure.clear()

    def png(self, k: int) -> bytes:
        """PNG bytes of the window around message k, its arrows boxed and labelled."""
        from io import BytesIO

        from PIL import Image, ImageDraw, ImageFont

        from ..display.diagram import HIGHLIGHT_RGBA

        image, box = self.image, self.boxes.get(k)
        # subtle: the window grows to hold all of message k (a reply with many calls is tall)
        tall = WINDOW if box is None else max(WINDOW, int(box[3] - box[1]) + 24)
        if image.height - self.header > tall and box is not None:
            middle = (box[1] + box[3]) / 2
            top = int(min(max(middle - tall / 2, self.header), image.height - tall))
            window = Image.new("RGBA", (image.width, self.header + tall))
            window.paste(image.crop((0, 0, image.width, self.header)), (0, 0))
            window.paste(image.crop((0, top, image.width, top + tall)), (0, self.header))
            box = (box[0], box[1] - top + self.header, box[2], box[3] - top + self.header)
            image = window
        else:
            image = image.copy()
        if box is not None:
            red, green, blue, alpha = HIGHLIGHT_RGBA
            overlay = Image.new("RGBA", image.size)
            draw = ImageDraw.Draw(overlay)
            draw.rectangle(box, fill=(red, green, blue, int(alpha * 255)), outline="black", width=3)
            draw.text((box[0] + 6, box[1] + 4), f"message {k + 1}", fill="black", anchor="lt",
                      font=ImageFont.load_default(size=18))
            image = Image.alpha_composite(image, overlay)
        buffer = BytesIO()
        image.save(buffer, format="png", compress_level=3)
        return buffer.getvalue()


def step_through(run_or_transcript: Run | Transcript, *, api: str = "anthropic", tools: Sequence[Tool] = (),
                 model: str | None = None) -> Any:
    """Previous / Next over a conversation, one message at a time.

    Shows, for message k: the message itself (`display.html.message_html`), where it sits
    in the sequence diagram (`display.diagram.plot_sequence`, with the MCP server's lane for a
    run whose tools were on one, `mcp_loop.McpRun`; drawn once; message k is a
    window around its arrows, boxed, made on first visit and cached), the part of the
    chosen API's request body that message k becomes, and the input tokens the model
    calls so far were billed (reported usage for a `Run`, estimated for a transcript).

    Laid out for a 1280x720 screen: the buttons, slider and position on one row; below,
    the diagram (shrunk to its column, at most `DIAGRAM_MAX_HEIGHT` tall) beside the
    message, the tokens so far, the wire dropdown and the part of the body it picks.

    Parts: `previous_button`, `next_button`, `slider` (1-based message number),
    `position` (Label), `message` (HTML), `diagram` (Image), `api` (Dropdown), `wire`
    (HTML), `tokens` (HTML).

    >>> from toolcall_lab import Message, Transcript
    >>> w = step_through(Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!")]))
    >>> w.previous_button.disabled, w.next_button.disabled
    (True, False)
    """
    from ...wire import APIS

    run, transcript = _run_and_transcript(run_or_transcript)
    if api not in APIS:
        raise UsageError(f"unknown API {api!r}; choose one of: {', '.join(APIS)}.")
    parts = _parts(len(transcript), api)
    show, show_wire = _shows(parts, transcript, run, tuple(tools), model)
    _connect(parts, show, show_wire)
    show()
    return _laid_out(parts, len(transcript))


def _run_and_transcript(run_or_transcript: Run | Transcript) -> tuple[Run | None, Transcript]:
    """The run (None for a bare transcript) and its transcript, which must hold a message."""
    from ...loop import Run

    run = run_or_transcript if isinstance(run_or_transcript, Run) else None
    transcript = cast("Transcript", run.transcript if run is not None else run_or_transcript)
    if len(transcript) == 0:
        raise UsageError("step_through needs at least one message; run the agent first, or append "
                         "a Message to the transcript.")
    return run, transcript


def _parts(total: int, api: str) -> dict[str, Any]:
    """The buttons, slider and position line; the message, diagram, wire dropdown, wire and tokens."""
    import ipywidgets as widgets

    from ...wire import APIS

    previous_button = widgets.Button(description="◀ Previous", tooltip="previous message")
    next_button = widgets.Button(description="Next ▶", tooltip="next message")
    slider = widgets.IntSlider(value=1, min=1, max=total, description="message", readout=True,
                               style={"description_width": "initial"}, layout=widgets.Layout(width="15em"))
    position = widgets.Label(style={"font_size": "16px", "font_weight": "bold"})
    message = widgets.HTML()
    # the diagram is drawn at about its column's width (DIAGRAM_INCHES), shrunk only a little
    # to fit it, and capped in height, so the buttons, the diagram and the message fit a
    # 1280x720 screen together
    diagram = widgets.Image(format="png",
                            layout=widgets.Layout(max_width="100%", max_height=DIAGRAM_MAX_HEIGHT))
    api_box = widgets.Dropdown(options=[(API_TITLES[a], a) for a in APIS], value=api, description="wire",
                               style={"description_width": "initial"}, layout=widgets.Layout(width="auto"))
    wire = widgets.HTML()
    tokens = widgets.HTML()
    return dict(previous_button=previous_button, next_button=next_button, slider=slider,
                position=position, message=message, diagram=diagram, api=api_box, wire=wire, tokens=tokens)


def _shows(parts: dict[str, Any], transcript: Transcript, run: Run | None, tools: tuple[Tool, ...],
           model: str | None) -> tuple[Callable[..., None], Callable[..., None]]:
    """The two callbacks: `show` puts message k (the slider's) in every part; `show_wire` the wire."""
    from ..display.html import message_html, pair_numbers
    from ..report import producer_labels

    total = len(transcript)
    producers, pairs = producer_labels(transcript), pair_numbers(transcript)
    so_far = _input_so_far(transcript, run, tools)
    window = _windows(run if run is not None else transcript)  # a run may carry MCP hops

    def show_wire(change: object = None) -> None:
        parts["wire"].value = _wire_part(transcript, parts["slider"].value - 1, tools, parts["api"].value,
                                         model)

    def show(change: object = None) -> None:
        k = parts["slider"].value - 1
        parts["position"].value = f"message {k + 1} of {total} · {producers[k]}"
        # the whole transcript's pair numbers, so a call and its result wear the same badge style
        parts["message"].value = message_html(transcript[k], pair=pairs, producer=producers[k])
        parts["diagram"].value = window(k)
        parts["tokens"].value = _tokens_html(*so_far[k])
        parts["previous_button"].disabled = k == 0
        parts["next_button"].disabled = k == total - 1
        show_wire()

    return show, show_wire


def _windows(drawn_from: Transcript | Run) -> Callable[[int], bytes]:
    """PNG of message k's window: the diagram drawn on the first show, each window made on its first visit.

    A run is drawn as it is, so one whose tools were on an MCP server shows the server's lane.
    """
    pngs: dict[int, bytes] = {}
    drawn: list[_Diagram] = []

    def window(k: int) -> bytes:
        if k not in pngs:
            if not drawn:
                drawn.append(_Diagram(drawn_from))
            pngs[k] = drawn[0].png(k)
        return pngs[k]

    return window


def _tokens_html(calls: int, billed: int, estimated: bool) -> str:
    """The input tokens billed so far: "input tokens billed so far: 1,234 over 2 model calls"."""
    how = " (estimated at about 4 characters per token)" if estimated else ""
    plural = "" if calls == 1 else "s"
    return (f"<div style='{FONT}'>input tokens billed so far: <b>{billed:,}</b> "
            f"over {calls} model call{plural}{how}</div>")


def _connect(parts: dict[str, Any], show: Callable[..., None], show_wire: Callable[..., None]) -> None:
    """Previous and Next move the slider; the slider shows its message; the dropdown its wire."""
    slider = parts["slider"]

    def step(by: int) -> None:
        slider.value = min(max(slider.value + by, 1), slider.max)

    parts["previous_button"].on_click(lambda button: step(-1))
    parts["next_button"].on_click(lambda button: step(+1))
    slider.observe(show, names="value")
    parts["api"].observe(show_wire, names="value")


def _laid_out(parts: dict[str, Any], total: int) -> Any:
    """Buttons on top; below, the diagram beside what message k is, costs and becomes on the wire."""
    import ipywidgets as widgets

    buttons = [parts[name] for name in ("previous_button", "next_button", "slider", "position")]
    controls = widgets.HBox(buttons, layout=widgets.Layout(flex_flow="row wrap", align_items="center",
                                                           grid_gap="4px 12px"))
    left = widgets.VBox([parts["diagram"]], layout=widgets.Layout(flex="3 1 26em", min_width="0"))
    right = widgets.VBox([parts[name] for name in ("message", "tokens", "api", "wire")],
                         layout=widgets.Layout(flex="2 1 20em", min_width="0", grid_gap="6px"))
    below = widgets.HBox([left, right], layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start",
                                                               grid_gap="12px"))
    text = f"Step-through of {total} messages: Previous / Next, the diagram, the wire, the tokens"
    box = described(widgets.VBox, text, [controls, below])
    for name, part in parts.items():
        setattr(box, name, part)
    return box
