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
