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
    from toolcall_lab.teacher.figures import write_figures
    from toolcall_lab.views.display import sequence_diagram, transcript_html
    from toolcall_lab.views.widgets import cost_explorer, pick_provider, step_through, wire_view

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


# -- a key read from a file (issue 9, item 6) ---------------------------------------------------
@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat"])
@pytest.mark.parametrize("how", ["env", "api_key"])
def test_a_key_with_a_trailing_newline_works(name, how, double, monkeypatch):
    """`open("key").read()` brings a newline; the key is stripped where it enters."""
    variable = KEY_VARIABLES[name]
    options = {"api_key": SECRET + "\r\n"} if how == "api_key" else {}
    if how == "env":
        monkeypatch.setenv(variable, " " + SECRET + "\n")
    provider = get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), **options)
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert run.answer
    assert provider._client.api_key == SECRET


@pytest.mark.parametrize("bad", [SECRET[:6] + "\n" + SECRET[6:], SECRET[:6] + "\x1b" + SECRET[6:],
                                 SECRET + "é", "“" + SECRET + "”"])
def test_a_malformed_key_is_refused_in_one_sentence_that_names_the_variable(bad, monkeypatch):
    from toolcall_lab import MissingKeyError

    monkeypatch.setenv("ANTHROPIC_API_KEY", bad)
    with pytest.raises(MissingKeyError) as info:
        get_provider("anthropic")
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message and "malformed" in message
    assert SECRET not in message and bad.strip() not in message and SECRET[6:] not in message
    with pytest.raises(MissingKeyError, match=r"api_key= is malformed"):
        get_provider("openai", api_key=bad)


# -- vars(), __dict__ and the picker's comm (issue 9, item 7) -----------------------------------
def _every_dict(obj, seen=None):
    """`vars()` of `obj` and of every object it holds (widgets, providers, lists, dicts), as text."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, str | bytes | int | float | bool | type(None)):
        return
    seen.add(id(obj))
    if isinstance(obj, dict):
        values = list(obj.values())
    elif isinstance(obj, list | tuple | set | frozenset):
        values = list(obj)
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith(("toolcall_lab", "ipywidgets")):
        yield repr(vars(obj))
        values = list(vars(obj).values())
    else:
        return  # subtle: an SDK client may hold the key; that is where it is meant to live
    for value in values:
        yield from _every_dict(value, seen)


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat", "ollama"])
def test_vars_of_a_provider_never_shows_the_key(name, double, monkeypatch):
    if name == "ollama":
        pytest.importorskip("ollama")
    provider = get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), api_key=SECRET)
    run_agent(provider, PARIS_QUESTION, tools=[get_weather])
    assert SECRET not in repr(vars(provider)) and SECRET not in repr(provider.__dict__)
    assert all(SECRET not in text for text in _every_dict(provider))
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    hosted = get_provider("anthropic")
    assert SECRET not in repr(vars(hosted))
    assert hosted._client.api_key == SECRET, "the key lives in the SDK client"


def test_a_key_the_first_sentence_cuts_in_two_still_does_not_show():
    """An error quotes the API's first sentence, cut at 240 characters; the key is hidden first."""
    provider = get_provider("anthropic", base_url="http://127.0.0.1:9", api_key=SECRET)
    message = "x" * 232 + f" key {SECRET} is rate limited. Wait."  # the cut falls inside the key
    error = provider._status_error(429, message, {})
    assert "key [r…)" in str(error), "hidden, then cut"
    assert "key sk" not in str(error), "not cut, then left with a piece too short to hide"


def _fake_front_end(widget, value):
    """What the browser sends when a learner types `value` into a text box and presses Enter."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": {"value": value}}},
                        "buffers": []})


def test_the_picker_never_holds_or_echoes_a_typed_key(double, monkeypatch):
    import ipywidgets
    from ipywidgets.embed import dependency_state

    from toolcall_lab.views.widgets import cost_explorer, pick_provider, step_through, wire_view

    sent = []
    monkeypatch.setattr(ipywidgets.Widget, "_send",
                        lambda self, msg, buffers=None: sent.append(json.dumps(msg)))
    picker = pick_provider(environ={"PATH": "/bin"})
    picker.choice.value = "anthropic"
    assert picker.key.layout.display is None, "the key box shows"
    _fake_front_end(picker.key, SECRET + "\n")
    assert "key received" in picker.status.value
    assert picker.provider._client.api_key == SECRET
    assert picker.key.value == ""
    assert sent, "the widgets did talk to the front end"
    assert all(SECRET not in message for message in sent), "no comm message carries the key"
    assert SECRET not in json.dumps(picker.key.get_state())
    assert SECRET not in json.dumps(dependency_state([picker]))
    assert SECRET not in json.dumps(ipywidgets.Widget.get_manager_state())
    assert all(SECRET not in text for text in _every_dict(picker))
    picker.close()

    picker = pick_provider(environ={"ANTHROPIC_API_KEY": SECRET})
    picker.choice.value = "anthropic"
    picker.provider  # noqa: B018 (built from the environ given)
    assert all(SECRET not in text for text in _every_dict(picker))
    picker.close()

    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    run = run_agent(get_provider("anthropic", base_url=double.base_url("anthropic")), PARIS_QUESTION,
                    tools=[get_weather])
    for widget in (step_through(run), cost_explorer(), wire_view(run.transcript, [get_weather])):
        assert all(SECRET not in text for text in _every_dict(widget))


# -- issue 19, item 5: a password in a base_url is never shown -------------------------------------
PASSWORD = "hunter2-PASSWORD"


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat", "ollama", "vllm"])
@pytest.mark.parametrize("how", ["base_url", "TOOLCALL_LAB_BASE_URL"])
def test_a_password_in_a_base_url_shows_in_no_repr_and_no_error(name, how, monkeypatch):
    from stub_server import free_port
    from toolcall_lab import provider_from_env

    if name == "ollama":
        pytest.importorskip("ollama")
    root = f"http://teacher:{PASSWORD}@127.0.0.1:{free_port()}"
    url = root if name in ("anthropic", "ollama") else f"{root}/v1"
    options = {"api_key": SECRET, "max_retries": 0, "timeout": 5}
    if how == "base_url":
        provider = get_provider(name, base_url=url, **options)
    else:
        provider = provider_from_env(environ={"TOOLCALL_LAB_PROVIDER": name, "TOOLCALL_LAB_BASE_URL": url},
                                     **options)
    assert PASSWORD in provider.base_url, "the URL itself is kept: the SDK needs it"
    with pytest.raises(ProviderError) as unreachable:
        run_agent(provider, PARIS_QUESTION)
    refused = provider._status_error(401, f"bad password {PASSWORD}", {})
    seen = [repr(provider), str(unreachable.value), str(refused), provider._where()]
    assert [text for text in seen if PASSWORD in text or "teacher" in text] == []
    assert "[redacted]@127.0.0.1:" in repr(provider) and "[redacted]@127.0.0.1:" in str(unreachable.value)


def test_a_remote_base_url_with_a_password_is_hidden_in_every_message(monkeypatch):
    from toolcall_lab import MissingKeyError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingKeyError) as missing:
        get_provider("anthropic", base_url=f"https://me:{PASSWORD}@llm.example.edu")
    provider = get_provider("anthropic", base_url=f"https://me:{PASSWORD}@llm.example.edu", api_key=SECRET)
    seen = [str(missing.value), repr(provider), str(provider._status_error(500, "boom", {})),
            str(provider._translate(TimeoutError("slow")))]
    assert all(PASSWORD not in text for text in seen) and "https://[redacted]@llm.example.edu" in seen[1]


# -- issue 19, item 11: the common token shapes, one table with its sources ----------------------
def test_each_token_shape_has_a_public_source_and_hides_its_example():
    from toolcall_lab._redact import TOKEN_SHAPES, redact_tokens
    from toolcall_lab.tape import KEYLIKE

    examples = ["sk-" + "ant-api03-abcDEF123", "sk-" + "proj-****Ab12", "gh" + "o_" + "a1B2" * 9,
                "github" + "_pat_" + "11ABCDEFG" * 3, "AS" + "IA" + "ABCDEFGHIJKLMNOP", "hf" + "_" + "x" * 34,
                "AI" + "za" + "b" * 35, "xo" + "xp-" + "1234567890-abc", "xa" + "pp-" + "1-A0123456789-abc"]
    assert all(shape.source and "." in shape.source for shape in TOKEN_SHAPES)
    for example in examples:
        assert redact_tokens(f"token: {example}!") == "token: [redacted]!", example
        assert KEYLIKE.search(example), example
    for harmless in ("task-force", "sk-12", "the hf_ prefix", "AKIA", "xoxo", "github_pat_", "ghp_short"):
        assert redact_tokens(harmless) == harmless, harmless
