"""HTML views of a conversation, for JupyterLab and for a projector.

`transcript_html` lays a conversation out as two lanes: messages in the *user* role on
the left, the model's on the right. A user-role message is labelled with who really
produced it, as `report.trace_table` does: "the user" for a question, "your code" for
tool results (your code ran the tools, the model only asked). Every block is a card:

- text, shown as written;
- a tool call: its name, its id and its arguments as indented JSON (or, when the model
  sent arguments that are not a JSON object, the raw text exactly as it arrived);
- a tool result: the id of the call it answers and the content. A call and its result
  carry the same badge ("toolu_01 ↔") and the same border pattern, so the pair is
  visible without colour; a failed result carries the word badge "ERROR";
- reasoning, folded in a <details> element. Opaque parts (signatures, encrypted items)
  are named, never shown: they are kilobytes of base64 that mean nothing to a reader.

Each message shows its estimated size in tokens (`tokens.estimate_tokens` of the block
JSON, the scripted provider's measure). `turn_html` adds a reply's stop reason, usage
and model; `run_html` adds one line per model call and the run's note.

Every view is one self-contained string: one <div>, styled inline (class names start
with "tcl-"), no script, no external resource, no random id. Every colour is one of
`THEME`: JupyterLab's theme variables, so a view is dark in the dark theme and light in
the light one, with dark-on-white fallbacks for other hosts. The output depends
only on the data (never on message ids or times), so a notebook that shows it compares
exactly under strict nbval. Every piece of conversation text is escaped: a model's text
is untrusted input.

Left out: images and documents (the kit's messages carry none), and any interactivity;
the step-through widget builds on these views.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING, assert_never

from ..._display import register
from ...blocks import Block, ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall, ToolResult
from ...loop import Run
from ...messages import Message
from ...tokens import blocks_text, estimate_tokens
from ...transcript import Transcript
from ...turn import Turn
from ..palette import OKABE_ITO, rgb
from ..report import producer_labels

if TYPE_CHECKING:
    from ...usage import Usage

__all__ = ["THEME", "message_html", "pair_numbers", "run_html", "transcript_html",
           "turn_html"]

# Okabe-Ito colours (safe for colour-blind readers) and border styles: a pair is told
# apart by its id badge first, by its border pattern second, by its colour last.
_COLOURS = [OKABE_ITO[name] for name in
            ("blue", "vermillion", "bluish green", "reddish purple", "orange", "sky blue")]
_BORDERS = ["dashed", "double", "dotted", "solid"]
_PAIR_STYLES = math.lcm(len(_COLOURS), len(_BORDERS))  # 12 distinct (colour, border) combinations

_MONO = "ui-monospace,Menlo,Consolas,monospace"


def _see_through(name: str, alpha: str) -> str:
    """An Okabe-Ito colour as a CSS rgba() with `alpha`, e.g. ("blue", ".12") -> "rgba(0,114,178,.12)"."""
    red, green, blue = rgb(name)
    return f"rgba({red},{green},{blue},{alpha})"


#: Every colour a view (or a widget) uses, as a JupyterLab theme variable, so the view follows
#: the light theme and the dark one; after the comma, the colour for hosts that define no such
#: variable (VS Code, Colab, a saved page): dark on white. Text uses the theme's strongest
#: colours, for a projector. Lane tints are see-through Okabe-Ito colours, so they tint white
#: and near-black alike.
THEME = {
    "ink": "var(--jp-content-font-color0, #000)",        # text
    "ink-soft": "var(--jp-content-font-color1, #222)",   # labels and sizes: quieter, still high contrast
    "paper": "var(--jp-layout-color0, #fff)",            # the background of a view
    "shade": "var(--jp-layout-color2, #eee)",            # code blocks, the system prompt, table heads
    "rule": "var(--jp-content-font-color2, #555)",       # borders that give the view its shape
    "rule-soft": "var(--jp-content-font-color3, #888)",  # borders of the cards inside a message
    "user-tint": _see_through("blue", ".12"),            # rgba(0,114,178,.12)
    "model-tint": _see_through("orange", ".16"),         # rgba(230,159,0,.16)
}
_T = THEME
# subtle: styles are inline, not in a <style> element: JupyterLab's sanitizer removes <style>
# from the outputs of a notebook that is not trusted (every lesson as it is first opened),
# but keeps style attributes. Class names stay as hooks for tests and readers.
_STYLES = {
    "view": ("font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:17px;line-height:1.4;"
             f"color:{_T['ink']};background:{_T['paper']};padding:10px 12px;border:1px solid {_T['rule']};"
             "border-radius:6px;max-width:1200px"),
    # subtle: word-break:normal, or JupyterLab's style for output <pre> breaks lines inside words
    "pre": (f"font-family:{_MONO};font-size:15px;line-height:1.35;margin:3px 0;white-space:pre-wrap;"
            "word-break:normal;overflow-wrap:break-word;"
            f"background:{_T['shade']};color:{_T['ink']};padding:4px 6px;border-radius:4px"),
    "system": (f"border:2px solid {_T['rule']};border-radius:6px;padding:4px 10px;margin-bottom:6px;"
               f"background:{_T['shade']}"),
    "lanes": ("display:flex;justify-content:space-between;font-weight:700;"
              f"border-bottom:2px solid {_T['rule']};margin-bottom:6px;padding-bottom:2px"),
    "chat": "display:flex;flex-direction:column;gap:6px",
    "msg": f"max-width:78%;border:2px solid {_T['rule']};border-radius:8px;padding:4px 10px",
    "user": f"align-self:flex-start;background:{_T['user-tint']}",
    "assistant": f"align-self:flex-end;background:{_T['model-tint']}",
    "head": "font-weight:700;margin-bottom:2px",
    "tokens": f"font-weight:400;color:{_T['ink-soft']}",
    "card": (f"background:{_T['paper']};border:2px solid {_T['rule-soft']};border-radius:6px;"
             "padding:3px 8px;margin:4px 0"),
    "label": ("font-size:15px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;"
              f"color:{_T['ink-soft']}"),
    "text": "white-space:pre-wrap;overflow-wrap:break-word",
    "name": f"font-family:{_MONO};font-size:17px;font-weight:700",
    "badge": (f"display:inline-block;font-family:{_MONO};font-size:15px;font-weight:700;padding:0 6px;"
              f"margin-left:6px;border:2px solid {_T['ink']};border-radius:4px;background:{_T['paper']};"
              f"color:{_T['ink']}"),
    # the one fixed background: black on vermillion reads the same in either theme (contrast 5:1)
    "error-badge": f"background:{OKABE_ITO['vermillion']};color:#000;border-color:#000",
    "summary": "cursor:pointer;font-weight:700",
    "meta": f"margin-top:8px;border-top:2px solid {_T['rule']};padding-top:6px",
}


def _pair_style(number: int) -> str:
    """The border of pair `number`: pattern and colour, e.g. 0 -> dashed Okabe-Ito blue."""
    n = number % _PAIR_STYLES
    return f"border-style:{_BORDERS[n % len(_BORDERS)]};border-color:{_COLOURS[n % len(_COLOURS)]}"


def _el(tag: str, classes: str, body: str, *, style: str = "") -> str:
    """<tag class="tcl-a tcl-b" style="(styles of a and b)">body</tag>; `body` is already HTML."""
    names = classes.split()
    css = ";".join([*(_STYLES[n] for n in names if n in _STYLES), *([style] if style else [])])
    return f'<{tag} class="{" ".join("tcl-" + n for n in names)}" style="{css}">{body}</{tag}>'


def _view(body: str) -> str:
    """Wrap `body` in the one <div> every view is."""
    return _el("div", "view", body)


# -- who is who ---------------------------------------------------------------------------
def pair_numbers(transcript: Transcript | Sequence[Message]) -> dict[str, int]:
    """A number for each tool call id, in order of first appearance: its badge style.

    >>> t = Transcript(messages=[Message.assistant(ToolCall("toolu_01", "ping", {}),
    ...                                            ToolCall("toolu_02", "ping", {}))])
    >>> pair_numbers(t)
    {'toolu_01': 0, 'toolu_02': 1}
    """
    numbers: dict[str, int] = {}
    for message in transcript:
        for block in message.blocks:
            if isinstance(block, ToolCall | ToolResult):
                call_id = block.id if isinstance(block, ToolCall) else block.call_id
                numbers.setdefault(call_id, len(numbers))
    return numbers


# -- blocks and messages -------------------------------------------------------------------
def _pair(call_id: str, pairs: Mapping[str, int], kind: str) -> tuple[str, str, str]:
    """(classes, style, heading) of a call or result card, marked like the other half of its pair."""
    label, text = _el("span", "label", kind), f"{escape(call_id)} ↔"
    number = pairs.get(call_id)
    if number is None:
        return "card", "", label + _el("span", "badge", text)
    pattern = _pair_style(number)
    badge = _el("span", "badge", text, style=pattern)
    return f"card pair-{number % _PAIR_STYLES}", f"{pattern};border-width:4px", label + badge


def _block_html(block: Block, pairs: Mapping[str, int]) -> str:
    match block:
        case TextBlock(text=text):
            return _el("div", "card", _el("div", "label", "text") + _el("div", "text", escape(text)))
        case ToolCall(id=call_id, name=name):
            classes, style, head = _pair(call_id, pairs, "tool call")
            if block.malformed:
                args = (_el("span", "badge error-badge", "MALFORMED") + " arguments as they arrived "
                        "(not a JSON object):" + _el("pre", "pre", escape(block.raw_args or "")))
            else:
                args = _el("pre", "pre", escape(json.dumps(dict(block.args), ensure_ascii=False, indent=2)))
            return _el("div", classes, f'{head} {_el("span", "name", escape(name))}{args}', style=style)
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            classes, style, head = _pair(call_id, pairs, "tool result")
            if is_error:  # the word, not only a colour, says it failed
                head += " " + _el("span", "badge error-badge", "ERROR")
                classes, style = classes + " error", ";".join(filter(None, [style, "border-left-width:10px"]))
            return _el("div", classes, head + _el("pre", "pre", escape(content)), style=style)
        case ReasoningBlock(text=text, provider=provider, opaque=opaque):
            # subtle: opaque parts (a signature, encrypted_content) are named, never shown.
            shown = _el("div", "text", escape(text)) if text else "<div>(no readable text)</div>"
            if opaque:
                names = escape(", ".join(sorted(opaque)))
                shown += f"<div>opaque parts, kept for replay and not shown: {names}</div>"
            summary = _el("summary", "summary", f"reasoning ({escape(provider or 'unknown')})")
            return _el("div", "card", f"<details>{summary}{shown}</details>")
        case ServerToolCall(id=call_id, name=name, args=args, provider=provider):
            classes, style, head = _pair(call_id, pairs, f"run by {provider or 'the provider'}")
            args_html = _el("pre", "pre", escape(json.dumps(dict(args), ensure_ascii=False, indent=2)))
            return _el("div", classes, f'{head} {_el("span", "name", escape(name))}{args_html}',
                       style=style)
        case ServerToolResult(call_id=call_id, content=content, is_error=is_error, provider=provider):
            classes, style, head = _pair(call_id, pairs, f"{provider or 'the provider'}'s result")
            if is_error:
                head += " " + _el("span", "badge error-badge", "ERROR")
            return _el("div", classes, head + _el("pre", "pre", escape(content)), style=style)
        case _:
            assert_never(block)


def _message_html(message: Message, *, number: int | None, producer: str, pairs: Mapping[str, int]) -> str:
    tokens = estimate_tokens(blocks_text(message.blocks))
    place = f"#{number} " if number is not None else ""
    synthetic = " (synthetic: written by your code)" if message.synthetic else ""
    size = _el("span", "tokens", f"· ≈{tokens:,} tokens (estimated)")
    head = _el("div", "head", f"{place}{message.role} · {escape(producer)}{synthetic} {size}")
    blocks = "".join(_block_html(b, pairs) for b in message.blocks) or "<div>(no blocks)</div>"
    return _el("div", f"msg {message.role}", head + blocks)


def _chat_html(transcript: Transcript) -> str:
    system = transcript.system
    label = _el("span", "label", "system prompt")
    if system:
        top = _el("div", "system", f"{label} (≈{estimate_tokens(system):,} tokens, estimated)"
                                   + _el("div", "text", escape(system)))
    else:
        top = _el("div", "system", f"{label} (none)")
    lanes = _el("div", "lanes", "<span>◀ user role: the user and your code</span>"
                                "<span>assistant role: the model ▶</span>")
    pairs = pair_numbers(transcript)
    rows = [_message_html(m, number=i, producer=p, pairs=pairs)
            for i, (m, p) in enumerate(zip(transcript, producer_labels(transcript), strict=True), start=1)]
    return top + lanes + _el("div", "chat", "".join(rows) or "<div>(no messages yet)</div>")


def message_html(message: Message, *, pair: Mapping[str, int] | None = None,
                 producer: str | None = None) -> str:
    """One message as a card in its lane.

    `pair` maps call ids to badge styles; pass `pair_numbers(transcript)` so a message
    shown alone looks as it does in the whole transcript. `producer` overrides the label
    worked out from the message alone ("the model", "your code" or "the user").

    >>> html = message_html(Message.results([ToolResult("toolu_01", "18°C, sunny")]))
    >>> "toolu_01 ↔" in html, "your code" in html
    (True, True)
    """
    if producer is None:
        producer = producer_labels([message])[0].split(",")[0]
    pairs = pair if pair is not None else pair_numbers([message])
    return _view(_el("div", "chat", _message_html(message, number=None, producer=producer, pairs=pairs)))


def transcript_html(transcript: Transcript) -> str:
    """The whole conversation: the system prompt, then every message in its lane.

    >>> t = Transcript(system="Be brief.", messages=[Message.user("Hi <b>there</b>")])
    >>> "Hi &lt;b&gt;there&lt;/b&gt;" in transcript_html(t)
    True
    """
    return _view(_chat_html(transcript))


def _usage_text(usage: Usage) -> str:
    parts = [f"{usage.input_tokens:,} input", f"{usage.output_tokens:,} output"]
    for name in ("cache_read", "cache_write", "reasoning"):
        value = getattr(usage, f"{name}_tokens")
        if value:
            parts.append(f"{value:,} {name.replace('_', ' ')}")
    measured = "estimated" if usage.estimated else "reported by the provider"
    return f"{', '.join(parts)} tokens ({measured})"


def turn_html(turn: Turn) -> str:
    """One reply: the model's message, then why it stopped, what it cost and who answered.

    >>> from toolcall_lab import StopReason, Turn, Usage
    >>> turn = Turn(Message.assistant("Hi."), StopReason.END_TURN, Usage(10, 2, estimated=True), "m-1")
    >>> "<b>stop reason:</b> end_turn" in turn_html(turn)
    True
    """
    card = _message_html(turn.message, number=None, producer="the model",
                         pairs=pair_numbers([turn.message]))
    meta = _el("div", "meta", f"<div><b>stop reason:</b> {escape(str(turn.stop_reason))}</div>"
                              f"<div><b>usage:</b> {_usage_text(turn.usage)}</div>"
                              f"<div><b>model:</b> {escape(turn.model)}</div>")
    return _view(_el("div", "chat", card) + meta)


def run_html(run: Run) -> str:
    """A finished run: the transcript, one line per model call, and why the run stopped.

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> run = run_agent(ScriptedProvider(["Hello."]), "Hi")
    >>> "call 1: sent 1 message" in run_html(run)
    True
    """
    lines = []
    for step in run.steps:
        plural = "" if step.messages_sent == 1 else "s"
        lines.append(f"<div>call {step.index}: sent {step.messages_sent} message{plural} · "
                     f"{_usage_text(step.usage)} · stop reason {escape(str(step.stop_reason))}</div>")
    calls = "".join(lines) or "<div>(no model calls)</div>"
    stop = escape(str(run.stop_reason)) if run.stop_reason is not None else "not finished"
    meta = _el("div", "meta", f"<div><b>model calls</b></div>{calls}"
                              f"<div><b>total:</b> {_usage_text(run.usage)}</div>"
                              f"<div><b>stopped:</b> {stop}: {escape(run.note or '(no note)')}</div>")
    return _view(_chat_html(run.transcript) + meta)


# What a notebook shows for each (the vocabulary's `_repr_html_` asks `_display.html_of`):
register(Message, message_html)
register(Transcript, transcript_html)
register(Turn, turn_html)
register(Run, run_html)
