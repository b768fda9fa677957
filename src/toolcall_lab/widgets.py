"""Widgets for the lessons: step through a run, drag the bill, pick a provider, read the wire.

Four factories, each returning an ipywidgets container whose parts are attributes, so a
test (or a curious learner) can drive it without a browser:

    step_through(run)      Previous / Next over the messages: the message, where it sits in
                           the sequence diagram, what it looks like on the chosen wire, and
                           the input tokens billed so far
    cost_explorer()        sliders for calls, first-request tokens and tokens added per step,
                           a model and prompt caching: the per-call bill, the totals, the
                           "billed vs conversation size" sentence and the loop-tokens figure
    pick_provider()        scripted / API double / Anthropic / OpenAI / a local server, a
                           key box that appears only when the environment has no key, a
                           "Test connection" button; `picker.provider` is what later cells use
    wire_view(transcript)  one tab per API with the request body its codec would send

Every callback only sets the `.value` of other widgets (HTML, Image, Label, button
states). Nothing prints, there is no `Output` widget, no `interact`, no `clear_output`,
so strict nbval compares the notebook exactly and plain pytest can drive each callback:

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> from toolcall_lab.examples import PARIS_QUESTION, weather_policy
    >>> from toolcall_lab.tools import get_weather
    >>> run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    >>> w = step_through(run, tools=[get_weather])
    >>> w.position.value
    'message 1 of 4 · the user'
    >>> w.next_button.click(); w.position.value
    'message 2 of 4 · the model, call 1'

Conversation text is untrusted (a model wrote it), so everything that reaches an HTML
value is escaped. No widget ever shows an API key: the key box is a `Password` whose
value is cleared as soon as the provider holding the key is built.

Left out: streaming views, editing a transcript in place, and saving widget state (the
widgets are rebuilt by running the cell).
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loop import Run
    from .messages import Transcript
    from .tool import Tool

__all__ = ["API_TITLES", "cost_explorer", "figure_png", "pick_provider", "step_through", "wire_view"]

#: The tab and dropdown title of each API (`wire.APIS`).
API_TITLES: dict[str, str] = {"anthropic": "Anthropic Messages", "responses": "OpenAI Responses",
                              "chat": "OpenAI Chat", "ollama": "Ollama"}
_DEFAULT_MODEL_FOR = {"anthropic": "anthropic", "responses": "openai", "chat": "openai-chat",
                      "ollama": "ollama"}  # API -> the DEFAULT_MODELS entry of its provider
_ITEMS_KEY = {"anthropic": "messages", "responses": "input", "chat": "messages", "ollama": "messages"}

_FONT = "font-size:16px;line-height:1.4;color:#000;background:#fff"
_PRE = f"<pre style='{_FONT};white-space:pre-wrap;margin:0;padding:8px;border:1px solid #000'>"


def _pre(text: str) -> str:
    return f"{_PRE}{html.escape(text)}</pre>"


def figure_png(figure: Any, *, dpi: float | None = None) -> bytes:
    """A matplotlib Figure as PNG bytes, for an `Image` widget; the figure is cleared after.

    One Agg draw, encoded by Pillow at a light compression level: `savefig` would draw
    a figure with a layout engine twice, and a widget redraws on every slider move. The
    bytes depend only on the figure (no date or "Software" text in the file). `dpi`
    defaults to the figure's own.
    """
    from io import BytesIO

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    if dpi is not None:
        figure.set_dpi(dpi)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()  # subtle: the layout engine (constrained layout) runs inside this one draw
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = BytesIO()
    image.save(buffer, format="png", compress_level=3)
    figure.clear()  # Figure objects hold no pyplot state; clearing frees the artists now
    return buffer.getvalue()


def _api_model(api: str, model: str | None) -> str:
    from .models import default_model

    return model or default_model(_DEFAULT_MODEL_FOR[api])


def _wire_body(transcript: Transcript, tools: Sequence[Tool], api: str, model: str | None) -> dict[str, Any]:
    from .wire import encode_request

    return encode_request(transcript, tuple(tools), api=api, model=_api_model(api, model))


# -- step_through ------------------------------------------------------------------------------
def _input_so_far(transcript: Transcript, run: Run | None,
                  tools: Sequence[Tool]) -> list[tuple[int, int, bool]]:
    """(calls made, input tokens billed, estimated?) once message k is on the table.

    Call j sent every message before the model's j-th reply; with a `Run` its input is
    what the provider reported (`step.usage`), otherwise the kit's estimate of the
    request (about 4 characters per token).
    """
    from .messages import Transcript
    from .tokens import estimate_tokens, request_text

    sent: list[tuple[int, int, bool]] = []  # (messages sent, input tokens, estimated) per call
    if run is not None:
        sent = [(s.messages_sent, s.usage.input_tokens, s.usage.estimated) for s in run.steps]
    else:
        for index, message in enumerate(transcript):
            if message.role == "assistant":
                prefix = Transcript(transcript.system, transcript.messages[:index])
                sent.append((index, estimate_tokens(request_text(prefix, tools)), True))
    rows, last = [], len(transcript) - 1
    for k in range(len(transcript)):
        # subtle: the call that produced message k sent messages[:k], so it counts once k is shown;
        # a call whose reply stayed out of the transcript (a refusal) counts at the last message.
        made = [call for call in sent if call[0] <= k or k == last]
        rows.append((len(made), sum(c[1] for c in made), any(c[2] for c in made)))
    return rows


def _wire_part(transcript: Transcript, k: int, tools: Sequence[Tool], api: str,
               model: str | None) -> str:
    """HTML: the items of `api`'s request body that message k becomes, as pretty JSON."""
    from .messages import Transcript

    key = _ITEMS_KEY[api]
    before = _wire_body(Transcript(transcript.system, transcript.messages[:k]), tools, api, model)[key]
    after = _wire_body(Transcript(transcript.system, transcript.messages[: k + 1]), tools, api, model)[key]
    start = len(before) if after[: len(before)] == before else len(after) - 1
    part = after[start:]
    title = API_TITLES[api]
    if not part:
        where = f"nothing: the {title} request leaves message {k + 1} out"
        return f"<div style='{_FONT}'><b>{html.escape(where)}</b></div>"
    span = f"{key}[{start}]" if len(part) == 1 else f"{key}[{start}:{start + len(part)}]"
    shown = part[0] if len(part) == 1 else part
    heading = f"message {k + 1} in the {title} request body: {span}"
    return (f"<div style='{_FONT}'><b>{html.escape(heading)}</b></div>"
            + _pre(json.dumps(shown, ensure_ascii=False, indent=2)))


def _diagram_png(transcript: Transcript, k: int) -> bytes:
    from .display.diagram import plot_sequence

    return figure_png(plot_sequence(transcript, highlight=k))


def step_through(run_or_transcript: Run | Transcript, *, api: str = "anthropic", tools: Sequence[Tool] = (),
                 model: str | None = None) -> Any:
    """Previous / Next over a conversation, one message at a time.

    Shows, for message k: the message itself (`display.html.message_html`), where it sits
    in the sequence diagram (`display.diagram.plot_sequence(..., highlight=k)` as a PNG,
    rendered on first visit and cached, so stepping back is instant), the part of the
    chosen API's request body that message k becomes, and the input tokens the model
    calls so far were billed (reported usage for a `Run`, estimated for a transcript).

    Parts: `previous_button`, `next_button`, `slider` (1-based message number),
    `position` (Label), `message` (HTML), `diagram` (Image), `api` (Dropdown), `wire`
    (HTML), `tokens` (HTML).

    >>> from toolcall_lab import Message, Transcript
    >>> w = step_through(Transcript(messages=[Message.user("Hi"), Message.assistant("Hello!")]))
    >>> w.previous_button.disabled, w.next_button.disabled
    (True, False)
    """
    import ipywidgets as widgets

    from .display.html import message_html, pair_numbers, producer_labels
    from .loop import Run
    from .wire import APIS

    run = run_or_transcript if isinstance(run_or_transcript, Run) else None
    transcript = run.transcript if run is not None else run_or_transcript
    if len(transcript) == 0:
        raise ValueError("step_through needs at least one message; run the agent first, or append "
                         "a Message to the transcript.")
    if api not in APIS:
        raise ValueError(f"unknown API {api!r}; choose one of: {', '.join(APIS)}.")
    tools, total = tuple(tools), len(transcript)
    producers, pairs = producer_labels(transcript), pair_numbers(transcript)
    so_far = _input_so_far(transcript, run, tools)
    pngs: dict[int, bytes] = {}

    previous_button = widgets.Button(description="◀ Previous", tooltip="previous message")
    next_button = widgets.Button(description="Next ▶", tooltip="next message")
    slider = widgets.IntSlider(value=1, min=1, max=total, description="message", readout=True)
    position = widgets.Label()
    message = widgets.HTML()
    diagram = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
    api_box = widgets.Dropdown(options=[(API_TITLES[a], a) for a in APIS], value=api, description="wire")
    wire = widgets.HTML()
    tokens = widgets.HTML()

    def show_wire(change: object = None) -> None:
        wire.value = _wire_part(transcript, slider.value - 1, tools, api_box.value, model)

    def show(change: object = None) -> None:
        k = slider.value - 1
        position.value = f"message {k + 1} of {total} · {producers[k]}"
        # the whole transcript's pair numbers, so a call and its result wear the same badge style
        message.value = message_html(transcript[k], pair=pairs, producer=producers[k])
        if k not in pngs:
            pngs[k] = _diagram_png(transcript, k)
        diagram.value = pngs[k]
        calls, billed, estimated = so_far[k]
        how = " (estimated at about 4 characters per token)" if estimated else ""
        plural = "" if calls == 1 else "s"
        tokens.value = (f"<div style='{_FONT}'>input tokens billed so far: <b>{billed:,}</b> "
                        f"over {calls} model call{plural}{how}</div>")
        previous_button.disabled = k == 0
        next_button.disabled = k == total - 1
        show_wire()

    def step(by: int) -> None:
        slider.value = min(max(slider.value + by, 1), total)

    previous_button.on_click(lambda button: step(-1))
    next_button.on_click(lambda button: step(+1))
    slider.observe(show, names="value")
    api_box.observe(show_wire, names="value")
    show()

    box = widgets.VBox([widgets.HBox([previous_button, next_button, slider]), position, message,
                        diagram, tokens, api_box, wire])
    for name, part in dict(previous_button=previous_button, next_button=next_button, slider=slider,
                           position=position, message=message, diagram=diagram, api=api_box,
                           wire=wire, tokens=tokens).items():
        setattr(box, name, part)
    return box


# -- cost_explorer -----------------------------------------------------------------------------
def _price_label(price: Any) -> str:
    return f"{price.model} (${price.input:g} in / ${price.output:g} out per MTok)"


_TABLE = "border-collapse:collapse;" + _FONT
_CELL = "border:1px solid #000;padding:2px 10px;text-align:right"


def _bill_table(bill: Any) -> str:
    """HTML table: per-call and cumulative input tokens and dollars (middle rows elided)."""
    from .cost import dollars

    n = len(bill.input_tokens)
    shown = list(range(n)) if n <= 12 else [*range(5), -1, *range(n - 5, n)]
    header = ["call", "input tokens", "tokens so far", "dollars", "dollars so far"]
    rows = ["<tr>" + "".join(f"<th style='{_CELL}'>{h}</th>" for h in header) + "</tr>"]
    for i in shown:
        if i < 0:
            rows.append(f"<tr><td style='{_CELL};text-align:center' colspan='5'>"
                        f"… calls 6 to {n - 5} …</td></tr>")
            continue
        cells = [str(i + 1), f"{bill.input_tokens[i]:,}", f"{bill.cumulative[i]:,}",
                 dollars(bill.dollars[i]), dollars(bill.cumulative_dollars[i])]
        rows.append("<tr>" + "".join(f"<td style='{_CELL}'>{c}</td>" for c in cells) + "</tr>")
    return f"<table style='{_TABLE}'>{''.join(rows)}</table>"


COMPACT_SIZE, COMPACT_DPI = (9.6, 4.8), 80  # inches and dots per inch: 768x384 pixels


def _compact_figure(plain: Any, cached: Any | None) -> Any:
    """The explorer's quick figure: one panel, few ticks, drawn in about a quarter of the time.

    Without caching: the running total of input tokens (solid line, circles) against
    the final conversation billed once (dashed line); with caching: cumulative dollars
    without (solid, circles) and with caching (dashed, squares). Each line is labelled
    at its end, so colour is never the only cue. The lesson figures, with per-call bars,
    are `plots.plot_loop_tokens` and `plots.plot_caching` (`cost_explorer(figure="full")`).
    """
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    from .cost import dollars
    from .plots import OKABE_ITO

    style = {"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"], "font.size": 16,
             "axes.spines.top": False, "axes.spines.right": False, "lines.linewidth": 3,
             "lines.markersize": 8}
    calls = range(1, plain.calls + 1)
    with matplotlib.rc_context(style):
        fig = Figure(figsize=COMPACT_SIZE, dpi=COMPACT_DPI)
        ax = fig.add_axes((0.14, 0.16, 0.62, 0.74))
        labels = []  # (y, text, bold): written in the right margin, level with their line's end
        if cached is None:
            ax.plot(calls, plain.cumulative, color=OKABE_ITO["vermillion"], marker="o")
            ax.axhline(plain.final_size, color=OKABE_ITO["black"], linestyle="--", linewidth=2.5)
            labels += [(plain.cumulative[-1], f"running total\n{plain.total_tokens:,}", True),
                       (plain.final_size, f"final size\n{plain.final_size:,}", False)]
            ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
            ax.set_ylabel("input tokens so far")
        else:
            ax.plot(calls, plain.cumulative_dollars, color=OKABE_ITO["vermillion"], marker="o")
            ax.plot(calls, cached.cumulative_dollars, color=OKABE_ITO["blue"], marker="s", linestyle="--")
            labels += [(plain.total_dollars, f"no caching\n{dollars(plain.total_dollars)}", True),
                       (cached.total_dollars, f"caching\n{dollars(cached.total_dollars)}", True)]
            ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: dollars(value)))
            ax.set_ylabel("dollars so far")
        top = max(y for y, _, _ in labels) * 1.1 or 1.0
        ax.set_ylim(0, top)
        ax.set_xlim(0.5, plain.calls + 0.5)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("call")
        # subtle: two labels whose lines end close together would overprint; keep them 15% apart
        previous = None
        for y, text, bold in sorted(labels):
            y = y if previous is None else max(y, previous + 0.15 * top)
            ax.annotate(text, (1, y), xycoords=("axes fraction", "data"), xytext=(10, 0),
                        textcoords="offset points", va="center", fontweight="bold" if bold else "normal",
                        annotation_clip=False)
            previous = y
    return fig


def cost_explorer(*, n: int = 10, h0: int = 2000, t: int = 500, model: str | None = None,
                  caching: bool = False, figure: str = "compact") -> Any:
    """Drag the size of a tool loop and watch the input bill grow with the square of the calls.

    Sliders set the number of model calls (`n`), the first request's tokens (`h0`:
    system prompt, tools, question) and the tokens each step adds (`t`: a call and its
    result); a dropdown picks the model from `models.PRICES`, a checkbox turns prompt
    caching on. Every change recomputes `cost.loop_bill` and redraws the figure.

    `figure="compact"` (the default) draws one quick panel, the running total against
    the final size (or, with caching, dollars with and without), so a change updates in
    well under 100 ms; `figure="full"` shows the lesson figures, `plots.plot_loop_tokens`
    and `plots.plot_caching`, which take two to three times as long to draw.

    Parts: `calls`, `first`, `per_step` (IntSliders), `model` (Dropdown), `caching`
    (Checkbox), `table`, `comparison`, `totals` (HTML), `figure` (Image),
    `figure_caption` (HTML, the figure in words).

    >>> w = cost_explorer()
    >>> "42,500 tokens billed for a 7,000-token conversation" in w.comparison.value
    True
    """
    import ipywidgets as widgets

    from .cost import dollars, loop_bill
    from .models import PRICES, default_model

    if figure not in ("compact", "full"):
        raise ValueError(f'figure must be "compact" or "full", not {figure!r}.')
    model = model or default_model("anthropic")
    if model not in PRICES:
        raise ValueError(f"no price for model {model!r}; choose one of: {', '.join(PRICES)} "
                         "(or add a row to models.PRICES).")
    wide = {"description_width": "14em"}
    slider_layout = widgets.Layout(width="40em")
    calls = widgets.IntSlider(value=n, min=1, max=max(50, n), description="model calls",
                              style=wide, layout=slider_layout)
    first = widgets.IntSlider(value=h0, min=min(100, h0), max=max(20_000, h0), step=100,
                              description="first request (tokens)", style=wide, layout=slider_layout)
    per_step = widgets.IntSlider(value=t, min=0, max=max(5_000, t), step=50,
                                 description="added per step (tokens)", style=wide, layout=slider_layout)
    model_box = widgets.Dropdown(options=[(_price_label(p), p.model) for p in PRICES.values()],
                                 value=model, description="model", style=wide,
                                 layout=widgets.Layout(width="40em"))
    caching_box = widgets.Checkbox(value=caching, description="prompt caching", style=wide)
    table, comparison, totals = widgets.HTML(), widgets.HTML(), widgets.HTML()
    image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
    figure_caption = widgets.HTML()
    drawn: dict[str, tuple] = {}  # what the figure shows now

    def update(change: object = None) -> None:
        from .plots import describe_caching, describe_loop_tokens, plot_caching, plot_loop_tokens

        n_, h0_, t_ = calls.value, first.value, per_step.value
        bill = loop_bill(n_, h0_, t_, model=model_box.value, caching=caching_box.value)
        table.value = _bill_table(bill)
        comparison.value = (f"<div style='{_FONT};font-size:20px'><b>{bill.total_tokens:,} tokens billed "
                            f"for a {bill.final_size:,}-token conversation ({bill.ratio:.1f}x)</b></div>")
        cached = " with prompt caching" if caching_box.value else ""
        totals.value = (f"<div style='{_FONT}'>total over {n_} call{'' if n_ == 1 else 's'}: "
                        f"<b>{bill.total_tokens:,}</b> input tokens, <b>{dollars(bill.total_dollars)}</b> "
                        f"on {html.escape(model_box.value)}{cached}; the final {bill.final_size:,}-token "
                        f"conversation billed once would cost {dollars(bill.naive_dollars)}</div>")
        # subtle: the loop figure does not depend on the model; skip a render that would not change it
        key = (n_, h0_, t_, model_box.value if caching_box.value else None)
        if key == drawn.get("key"):
            return
        if figure == "compact":
            plain = loop_bill(n_, h0_, t_, model=model_box.value)
            picture = _compact_figure(plain, bill if caching_box.value else None)
        elif caching_box.value:
            picture = plot_caching(n_, h0_, t_, model=model_box.value)
        else:
            picture = plot_loop_tokens(n_, h0_, t_)
        if caching_box.value:
            described = describe_caching(n_, h0_, t_, model=model_box.value)
        elif figure == "full":
            described = describe_loop_tokens(n_, h0_, t_)
        else:
            described = (f"input tokens billed so far over {n_} calls (solid line, circles) curve up to "
                         f"{bill.total_tokens:,}; the dashed line is the final {bill.final_size:,}-token "
                         "conversation, billed once.")
        image.value = figure_png(picture)
        figure_caption.value = f"<div style='{_FONT}'>Figure: {html.escape(described)}</div>"
        drawn["key"] = key

    for control in (calls, first, per_step, model_box, caching_box):
        control.observe(update, names="value")
    update()

    box = widgets.VBox([calls, first, per_step, model_box, caching_box, comparison, totals, table,
                        image, figure_caption])
    for name, part in dict(calls=calls, first=first, per_step=per_step, model=model_box,
                           caching=caching_box, table=table, comparison=comparison, totals=totals,
                           figure=image, figure_caption=figure_caption).items():
        setattr(box, name, part)
    return box


# -- pick_provider -----------------------------------------------------------------------------
_LABELS = {"scripted": "scripted (offline)", "double": "API double (loopback)", "anthropic": "Anthropic",
           "openai": "OpenAI (Responses)", "openai-chat": "OpenAI (Chat Completions)",
           "ollama": "Ollama (local)", "ollama-openai": "Ollama /v1 (local)", "vllm": "vLLM (local)",
           "llamacpp": "llama.cpp (local)", "lmstudio": "LM Studio (local)"}
_TEST_TRANSCRIPT_TEXT = "Reply with the single word OK."


def _provider_class(name: str) -> tuple[type, str | None]:
    import importlib

    from .providers.registry import PROVIDERS

    module_name, class_name, preset = PROVIDERS[name]
    module = importlib.import_module(f"toolcall_lab.providers.{module_name}")
    return getattr(module, class_name), preset


def _key_env(name: str) -> str | None:
    """The variable that holds `name`'s key, None for providers that need none."""
    if name in ("scripted", "double"):
        return None
    cls, preset = _provider_class(name)
    return None if preset is not None else getattr(cls, "key_env", None)


def _local_url(name: str) -> str | None:
    """The default base URL of a local server, None for hosted APIs and offline choices."""
    if name in ("scripted", "double"):
        return None
    cls, preset = _provider_class(name)
    if preset is not None:
        from .providers.openai_chat import LOCAL_SERVERS

        return LOCAL_SERVERS[preset].base_url
    return None if getattr(cls, "key_env", None) else getattr(cls, "default_base_url", None)


@cache
def _picker_class() -> type:
    """The picker widget class, defined on first use so importing the kit loads no ipywidgets."""
    import ipywidgets as widgets

    from .errors import ProviderError, redact
    from .providers.registry import PROVIDERS, get_provider

    class ProviderPicker(widgets.VBox):
        """A provider chooser; `.provider` is the provider built from the current choice."""

        def __init__(self, *, environ: Mapping[str, str] | None, script: Any) -> None:
            self._environ = environ
            self._script = script
            self._built: Any = None
            self._typed_key = False  # whether the built provider holds a key typed into the box
            self.double: Any = None  # the ApiDouble, started on first use of that choice
            names = ["scripted", "double", *(n for n in PROVIDERS if n != "scripted")]
            self.choice = widgets.Dropdown(options=[(_LABELS.get(n, n), n) for n in names],
                                           value="scripted", description="provider")
            self.double_api = widgets.Dropdown(options=[(API_TITLES[a], a) for a in API_TITLES],
                                               value="anthropic", description="speaks")
            self.model = widgets.Text(description="model")
            self.base_url = widgets.Text(description="base URL", continuous_update=False)
            # subtle: continuous_update=False, or the value would arrive one keystroke at a time
            self.key = widgets.Password(description="API key", placeholder="paste your key, press Enter",
                                        continuous_update=False)
            self.test_button = widgets.Button(description="Test connection")
            self.status = widgets.HTML()
            super().__init__([self.choice, self.double_api, self.model, self.base_url, self.key,
                              self.test_button, self.status])
            self.choice.observe(self._on_choice, names="value")
            for part in (self.double_api, self.model, self.base_url):
                part.observe(self._forget, names="value")
            self.key.observe(self._on_key, names="value")
            self.test_button.on_click(self._test)
            self._on_choice()

        # -- what the learner sees ----------------------------------------------------------
        def _env(self) -> Mapping[str, str]:
            return os.environ if self._environ is None else self._environ

        def _say(self, text: str) -> None:
            secrets = [self._env().get(v) for v in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")]
            self.status.value = f"<div style='{_FONT}'>{html.escape(redact(text, secrets))}</div>"

        def _on_choice(self, change: object = None) -> None:
            from .models import DEFAULT_MODELS

            name = self.choice.value
            self._built, self._typed_key = None, False
            env_var, url = _key_env(name), _local_url(name)
            needs_key = env_var is not None and not self._env().get(env_var)
            self.key.layout.display = None if needs_key else "none"
            self.base_url.layout.display = None if url else "none"
            self.double_api.layout.display = None if name == "double" else "none"
            self.model.layout.display = "none" if name in ("scripted", "double") else None
            self.base_url.value = url or ""
            self.model.value = DEFAULT_MODELS.get(name, "")
            if name == "scripted":
                self._say("scripted: your own Python plays the model, offline and free.")
            elif name == "double":
                self._say("API double: a pretend server on 127.0.0.1 answers through the real SDK.")
            elif needs_key:
                self._say(f"{env_var} is not set: paste a key above and press Enter "
                          "(it is handed to the SDK client and never shown or kept here).")
            elif env_var:
                self._say(f"using the key in {env_var} (it is never shown).")
            else:
                self._say(f"a local server at {url}; start it, then press Test connection.")

        def _forget(self, change: object = None) -> None:
            if self._built is not None and self._typed_key:
                self._say("the settings changed, so the provider holding your key was dropped: "
                          "paste the key again (it is never kept here).")
            self._built, self._typed_key = None, False

        def _on_key(self, change: Any) -> None:
            if not change["new"]:
                return  # our own clearing below
            try:
                self._built = self._build(api_key=change["new"])
                self._typed_key = True
                self._say(f"key received and handed to {type(self._built).__name__}; the box is cleared.")
            except (ProviderError, ValueError, ImportError) as exc:
                self._built = None
                self._say(str(exc).replace(change["new"], "[redacted]"))
            finally:
                self.key.value = ""  # the key lives only inside the SDK client

        # -- building -------------------------------------------------------------------------
        def _build(self, *, api_key: str | None = None) -> Any:
            name = self.choice.value
            if name == "scripted":
                return get_provider("scripted", script=self._script)
            if name == "double":
                if self.double is None:
                    from .double import ApiDouble

                    self.double = ApiDouble(self._script).start()
                api = self.double_api.value
                from .double import PROVIDER_FOR

                # subtle: a placeholder key, so a real key from the environment never leaves for the double
                return get_provider(PROVIDER_FOR[api], base_url=self.double.base_url(api),
                                    api_key="no-key-needed")
            options: dict[str, Any] = {}
            if self.model.value.strip():
                options["model"] = self.model.value.strip()
            if self.base_url.value.strip():
                options["base_url"] = self.base_url.value.strip()
            env_var = _key_env(name)
            key = api_key or (self._env().get(env_var) if env_var else None)
            if key:
                options["api_key"] = key
            return get_provider(name, **options)

        @property
        def provider(self) -> Any:
            """The provider for the current choice (built once, then reused by later cells)."""
            if self._built is None:
                self._built = self._build()
            return self._built

        def _test(self, button: object = None) -> None:
            from .messages import Message, Transcript

            name = self.choice.value
            if name == "scripted":
                self._say("scripted: nothing to connect to; it runs in this process.")
                return
            try:
                provider = self.provider
            except (ProviderError, ValueError, ImportError) as exc:
                self._say(str(exc))
                return
            transcript = Transcript(messages=[Message.user(_TEST_TRANSCRIPT_TEXT)])
            saved_policy = self.double.policy if name == "double" else None
            saved_limit = getattr(provider, "max_tokens", None)
            try:
                if name == "double":
                    self.double.policy = lambda transcript, tools: "OK"  # keep the learner's script unspent
                if saved_limit is not None:
                    provider.max_tokens = 16  # one cheap call
                turn = provider.complete(transcript)
            except ProviderError as exc:
                self._say(f"test failed: {exc}")
                return
            finally:
                if saved_limit is not None:
                    provider.max_tokens = saved_limit
                if saved_policy is not None:
                    self.double.policy = saved_policy
            self._say(f"connected: {turn.model} answered ({turn.stop_reason}, "
                      f"{turn.usage.output_tokens} output tokens).")

        def close(self) -> None:
            """Stop the API double, if one was started, and close the widget."""
            if self.double is not None:
                self.double.stop()
                self.double = None
            super().close()

    return ProviderPicker


def pick_provider(*, environ: Mapping[str, str] | None = None, script: Any = None) -> Any:
    """Choose where the model calls go; `picker.provider` is the provider to use next.

    Choices: scripted (your Python plays the model), the API double (a loopback server,
    started on first use and kept on `picker.double`, speaking the API you pick), the
    hosted APIs and every local-server preset of `providers.registry.PROVIDERS`. The key
    box shows only when `environ` (default `os.environ`) has no key for the choice; a key
    typed there is handed to the provider's SDK client at once and the box is cleared.
    `script` drives the scripted provider and the double (default: `weather_policy`).

    Parts: `choice`, `double_api` (Dropdowns), `model`, `base_url` (Text), `key`
    (Password), `test_button`, `status` (HTML), `double`; call `picker.close()` to stop
    the double.

    >>> picker = pick_provider(environ={})
    >>> picker.provider
    ScriptedProvider(model='scripted-1', calls=0)
    """
    return _picker_class()(environ=environ, script=script)


# -- wire_view ---------------------------------------------------------------------------------
def wire_view(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str | None = None) -> Any:
    """The same conversation as each API's request body, one tab per API.

    Each tab holds `report.wire_json` of `wire.encode_request(transcript, tools, api=...)`
    (tool definitions summarised), escaped for HTML. `model` defaults to each API's
    provider default. Parts: `views` (API -> HTML widget).

    >>> from toolcall_lab import Message, Transcript
    >>> tabs = wire_view(Transcript(messages=[Message.user("Hi")]))
    >>> tabs.titles
    ('Anthropic Messages', 'OpenAI Responses', 'OpenAI Chat', 'Ollama')
    """
    import ipywidgets as widgets

    from .report import wire_json
    from .wire import APIS

    views = {api: widgets.HTML(_pre(wire_json(_wire_body(transcript, tools, api, model)))) for api in APIS}
    tab = widgets.Tab(children=list(views.values()))
    tab.titles = tuple(API_TITLES[api] for api in APIS)
    tab.views = views
    return tab
