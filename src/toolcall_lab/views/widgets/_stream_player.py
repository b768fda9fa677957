"""Play a recorded stream: one wire event at a time, and what the kit makes of each.

For event k of the chosen recording the widget shows the event as the wire carried it,
the kit's events it gave (`toolcall_lab.stream`), every call's arguments so far (partial
JSON, and whether it parses yet), when the first token came, and whether a program may
run the call yet. A Play button steps through at a fixed pace; the slider goes anywhere.
Every callback only sets other widgets' `.value`, so a test drives it with the slider:

    >>> w = stream_player()
    >>> w.position.value
    'event 1 of 16 · Anthropic Messages'
    >>> w.slider.value = w.slider.max
    >>> "Yes" in w.verdict.value
    True

Time: the recordings keep the events, not when each came, so the player spaces them
evenly (`pace_ms`) and states the time to first token at that pace, counted in events.

Left out: text longer than the panes (long text scrolls inside its box) and choices other
than the first on Chat.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import UsageError
from ...recorded import RECORDINGS, Step, timeline
from ...wire import APIS
from ._common import API_TITLES, FONT, described, pre

__all__ = ["stream_player"]

_RAW_SHOWN = 300  # characters of a wire event shown


def _first_of_each_api() -> tuple[str, ...]:
    """Each API's first recording (`recorded.RECORDINGS`), in the APIs' order.

    >>> _first_of_each_api()
    ('anthropic', 'responses', 'chat', 'ollama')
    """
    first: dict[str, str] = {}
    for name, recording in RECORDINGS.items():
        first.setdefault(recording.api, name)
    return tuple(first[api] for api in APIS if api in first)


#: The recordings the player offers unless told: one tool call on each wire.
ONE_PER_API = _first_of_each_api()


def _is_token(event: Any) -> bool:
    """True for the kit events that carry what the model wrote (text, a call's name, arguments)."""
    kind = getattr(event, "kind", "")
    if kind == "arguments_delta":
        return bool(event.json)
    return kind in ("text_delta", "tool_call_started", "reasoning_delta")


class _Player:
    def __init__(self, choices: Mapping[str, Any], pace_ms: int) -> None:
        import ipywidgets as widgets

        self.choices = dict(choices)
        self.pace_ms = pace_ms
        self.wire = widgets.Dropdown(
            options=[(f"{API_TITLES[r.api]}: {r.shows}", key) for key, r in self.choices.items()],
            description="Stream", layout=widgets.Layout(width="520px"))
        self.play = widgets.Play(interval=pace_ms, min=1, max=1, value=1, description="Play")
        self.slider = widgets.IntSlider(min=1, max=1, value=1, description="Event",
                                        layout=widgets.Layout(width="480px"))
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.position = widgets.Label()
        self.raw, self.said, self.arguments = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.first_token, self.verdict = widgets.HTML(), widgets.HTML()
        self.steps: list[Step] = []
        self.wire.observe(lambda _: self._load(), names="value")
        self.slider.observe(lambda _: self._show(), names="value")
        self._load()

    def _load(self) -> None:
        recording = self.choices[self.wire.value]
        self.steps = timeline(recording.events(), recording.api)
        last = len(self.steps)
        # subtle: widen before moving the value, or a shorter stream's max clamps the value first
        self.slider.max = self.play.max = max(last, 1)
        self.slider.value = self.play.value = 1
        self._show()

    def _show(self) -> None:
        recording = self.choices[self.wire.value]
        k = self.slider.value
        step = self.steps[k - 1]
        raw, said, problem = step.event, step.said, step.problem
        self.position.value = f"event {k} of {len(self.steps)} · {API_TITLES[recording.api]}"
        text = json.dumps(raw, ensure_ascii=False)
        if len(text) > _RAW_SHOWN:
            text = text[:_RAW_SHOWN - 1] + "…"
        self.raw.value = _titled("On the wire", pre(text, max_height="110px"))
        lines = [str(event) for event in said] or ["(nothing new: this event carries no content)"]
        if problem:
            lines.append(f"IncompleteStreamError: {problem}")
        self.said.value = _titled("The kit's events", pre("\n".join(lines), max_height="110px"))
        self.arguments.value = _titled("Arguments so far", pre(self._arguments(k), max_height="90px"))
        self.first_token.value = f"<div style='{FONT}'>{html.escape(self._first_token())}</div>"
        self.verdict.value = f"<div style='{FONT}'>{html.escape(self._verdict(k))}</div>"

    def _arguments(self, k: int) -> str:
        names: dict[int, str] = {}
        pieces: dict[int, list[str]] = {}
        for step in self.steps[:k]:
            for event in step.said:
                if event.kind == "tool_call_started":
                    names[event.index] = event.name
                    pieces.setdefault(event.index, [])
                elif event.kind == "arguments_delta":
                    pieces.setdefault(event.index, []).append(event.json)
        if not pieces:
            return "(no tool call yet)"
        lines = []
        for index, parts in pieces.items():
            so_far = "".join(parts)
            try:
                json.loads(so_far)
                state = "parses as JSON"
            except ValueError:
                state = "not JSON yet"
            lines.append(f"[{index}] {names.get(index, '?')}: {so_far}   ({state})")
        return "\n".join(lines)

    def _first_token(self) -> str:
        first = next((n for n, step in enumerate(self.steps, start=1)
                      if any(_is_token(event) for event in step.said)), None)
        if first is None:
            return "Time to first token: no token in this stream."
        seconds = (first - 1) * self.pace_ms / 1000
        return (f"Time to first token: event {first} of {len(self.steps)}, {seconds:.1f} s at "
                f"{self.pace_ms} ms an event (the recording keeps no timing).")

    def _verdict(self, k: int) -> str:
        done = [event for step in self.steps[:k] for event in step.said if event.kind == "stream_finished"]
        if done:
            turn = done[0].turn
            calls = ", ".join(f"{c.name}({json.dumps(dict(c.args))})" for c in turn.tool_calls
                              if not c.malformed) or "none"
            return f"Run the tool now? Yes: the reply is complete ({turn.stop_reason}). Calls: {calls}."
        if self.steps[k - 1].problem:
            return "Run the tool now? Never: the stream broke off; nothing is added, nothing runs."
        return "Run the tool now? Not yet: the reply is not finished, so show it, don't run it."


def _titled(title: str, body: str) -> str:
    return f"<div style='{FONT}'><b>{html.escape(title)}</b></div>{body}"


def stream_player(recordings: Sequence[str] = ONE_PER_API, *, pace_ms: int = 400) -> Any:
    """Play recorded streams (`toolcall_lab.recorded.RECORDINGS` keys) event by event.

    Laid out for a 1280x720 screen: the stream picker and the position on top, Play and
    the slider under them; then the wire event beside the kit's events, then the arguments so far,
    the time to first token and the verdict (may the call run yet?).

    Parts: `wire` (Dropdown), `play` (Play), `slider` (IntSlider, 1-based event number),
    `position` (Label), `raw`, `said`, `arguments`, `first_token`, `verdict` (HTML).
    """
    import ipywidgets as widgets

    unknown = [name for name in recordings if name not in RECORDINGS]
    if unknown or not recordings:
        raise UsageError(f"no recorded stream named {unknown or recordings!r}; choose from "
                         f"{', '.join(RECORDINGS)}.")
    player = _Player({name: RECORDINGS[name] for name in recordings}, pace_ms)
    half = widgets.Layout(width="50%")
    # subtle: two rows of controls; on one, at 1280x720 with the file browser open, the
    # slider shrank to a dot and the position was cut
    top = widgets.HBox([player.wire, player.position])
    controls = widgets.HBox([player.play, player.slider])
    middle = widgets.HBox([widgets.Box([player.raw], layout=half), widgets.Box([player.said], layout=half)])
    box = described(widgets.VBox, f"Stream player over {len(recordings)} recorded streams",
                    [top, controls, middle, player.arguments, player.first_token, player.verdict])
    for name in ("wire", "play", "slider", "position", "raw", "said", "arguments", "first_token",
                 "verdict"):
        setattr(box, name, getattr(player, name))
    return box
