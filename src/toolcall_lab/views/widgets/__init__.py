"""Widgets for the lessons: step through a run, drag the bill, pick a provider, read the wire.

Seven factories, each returning an ipywidgets container whose parts are attributes, so a
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
    stream_player()        Play / a slider over a recorded stream's events: each event as the
                           wire carried it, the kit's events it gave, the arguments so far,
                           the time to first token, and whether the call may run yet
    schema_lab(schemas)    a structured-output schema, picked or edited, beside each API's
                           verdict on it in that API's words
    interval_explorer()    sliders for the runs of an eval and a model's true pass rate, and a
                           button for new draws: forty evals' Wilson intervals, how many hold
                           the true rate, and their figure (lesson 26)

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

Left out: editing a transcript in place, and saving widget state (the
widgets are rebuilt by running the cell).

Layout: one module per widget, named for its factory with a leading underscore
(`_step_through.py`, `_cost_explorer.py`, `_pick_provider.py`, `_wire_view.py`,
`_stream_player.py`, `_schema_lab.py`, `_interval_explorer.py`), and
`_common.py` for what they share (API titles, HTML styles, request bodies, `figure_png`), and
`_colab.py`, which switches on Colab's custom widget manager (ipywidgets 8 needs it there).
This file only re-exports.
"""

from __future__ import annotations

# subtle: a module named like its factory would be shadowed by it once this package is
# imported (`toolcall_lab.views.widgets.step_through` could not be both); the underscore keeps the
# function the only public name, and the module reachable as `toolcall_lab.views.widgets._step_through`.
from ._common import API_TITLES, figure_png
from ._cost_explorer import cost_explorer
from ._interval_explorer import interval_explorer
from ._pick_provider import pick_provider
from ._schema_lab import schema_lab
from ._step_through import step_through
from ._stream_player import stream_player
from ._wire_view import wire_view

__all__ = ["API_TITLES", "cost_explorer", "figure_png", "interval_explorer", "pick_provider", "schema_lab",
           "step_through", "stream_player", "wire_view"]
