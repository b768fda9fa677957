"""A key in the environment never shows up: not in a repr, a body, a log, an error or a file."""

from __future__ import annotations

import json
import logging

import pytest

from conftest import REAL_PROVIDERS, SECRET
from toolcall_lab import ProviderError, get_provider, run_agent
from toolcall_lab.examples import PARIS_QUESTION
from toolcall_lab.tools import get_weather

KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY",
                 "openai-chat": "OPENAI_API_KEY", "ollama": None}


@pytest.mark.parametrize("name", list(REAL_PROVIDERS))
def test_the_key_appears_nowhere(name, double, monkeypatch, caplog, tmp_path):
    if name == "ollama":
        pytest.importorskip("ollama")
    variable = KEY_VARIABLES[name]
    if variable:
        monkeypatch.setenv(variable, SECRET)
    caplog.set_level(logging.DEBUG)  # every logger, the SDKs' and httpx's included
    for logger in ("anthropic", "openai", "httpx", "httpx2", "httpcore", "ollama"):
        logging.getLogger(logger).setLevel(logging.DEBUG)
    options = {} if variable else {"api_key": SECRET}  # subtle: Ollama takes no key; pass one anyway
    provider = get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), **options)

    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    saved = run.transcript.save(tmp_path / "run.json").read_text()

    double.fail_next("unauthorized")
    with pytest.raises(ProviderError) as info:
        run_agent(provider, "And in London?", tools=[get_weather], transcript=run.transcript)

    seen = [repr(provider), str(provider), repr(run), saved, str(info.value), repr(info.value),
            caplog.text, json.dumps([(s.turn.request, s.turn.response) for s in run.steps]),
            repr(double.requests)]
    seen += [repr(step) + repr(step.turn) for step in run.steps]
    for text in seen:
        assert SECRET not in text
    assert "DEBUG" in caplog.text or caplog.records, "the SDKs did log, so the check means something"


def test_no_view_widget_or_figure_shows_a_key_from_the_environment(double, monkeypatch, tmp_path):
    """Keys in the environment, a run through a real SDK, then every view, widget and figure."""
    from toolcall_lab.display import sequence_diagram, transcript_html
    from toolcall_lab.figures import write_figures
    from toolcall_lab.widgets import cost_explorer, pick_provider, step_through, wire_view

    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(variable, SECRET)
    provider = get_provider("anthropic", base_url=double.base_url("anthropic"))
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])

    def texts(widget):
        """Every string a widget tree holds: values, descriptions, options, titles, reprs."""
        yield repr(widget)
        for name in ("value", "description", "placeholder", "tooltip"):
            value = getattr(widget, name, None)
            if isinstance(value, str | bytes):
                yield value if isinstance(value, str) else value.decode("latin-1")
        yield repr(getattr(widget, "options", ""))
        yield repr(getattr(widget, "titles", ""))
        for child in getattr(widget, "children", ()):
            yield from texts(child)

    picker = pick_provider(environ={"ANTHROPIC_API_KEY": SECRET, "OPENAI_API_KEY": SECRET})
    seen = [transcript_html(run.transcript), run._repr_html_(), run.steps[0].turn._repr_html_(),
            sequence_diagram(run.transcript).mermaid]
    for widget in (step_through(run), cost_explorer(), wire_view(run.transcript, [get_weather]), picker):
        seen.extend(texts(widget))
    for choice in ("anthropic", "openai", "double"):
        picker.choice.value = choice
        seen.extend(texts(picker))
    picker.close()
    seen.extend(path.read_bytes().decode("latin-1") for path in write_figures(tmp_path))
    assert all(SECRET not in text for text in seen)
    assert len(seen) > 50, "the walk really visited the widget trees"
