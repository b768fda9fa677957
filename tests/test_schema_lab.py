"""The schema lab widget (lesson 25): every control updates the verdicts, nothing prints."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("ipywidgets")

from toolcall_lab.views.widgets import schema_lab

CLOSED = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
          "additionalProperties": False}
OPTIONAL = {**CLOSED, "required": []}


def verdicts(lab):
    return {api: view.value[0] for api, view in lab.verdicts.items()}


def test_each_api_judges_the_chosen_schema_in_its_own_words():
    lab = schema_lab({"closed": CLOSED, "optional": OPTIONAL})
    assert verdicts(lab) == {"anthropic": "✓", "responses": "✓", "chat": "✓", "ollama": "✓"}
    lab.choice.value = "optional"
    assert json.loads(lab.editor.value) == OPTIONAL
    assert verdicts(lab) == {"anthropic": "✓", "responses": "✗", "chat": "✗", "ollama": "✓"}
    assert "Missing &#x27;city&#x27;." in lab.verdicts["chat"].value  # escaped for HTML


def test_unticking_strict_lets_openai_take_any_schema_and_editing_judges_as_you_type():
    lab = schema_lab({"optional": OPTIONAL})
    lab.strict.value = False
    assert verdicts(lab) == {"anthropic": "✓", "responses": "✓", "chat": "✓", "ollama": "✓"}
    lab.editor.value = '{"type": "object", "properties": {}}'
    assert verdicts(lab)["anthropic"] == "✗" and verdicts(lab)["ollama"] == "✓"
    lab.editor.value = '{"type": "object", '  # half typed
    assert all(view.value.startswith("✗ not a schema yet") for view in lab.verdicts.values())


def test_it_reads_as_what_it_is_before_its_cell_runs_and_holds_no_output_widget():
    import ipywidgets

    lab = schema_lab({"closed": CLOSED})
    text = lab._repr_mimebundle_()["text/plain"]
    assert text.startswith("Schema lab") and text.endswith("(run the cell to use it)")
    assert len(repr(lab)) <= 110

    def walk(widget):
        yield widget
        for child in getattr(widget, "children", ()):
            yield from walk(child)

    assert not any(isinstance(w, ipywidgets.Output) for w in walk(lab))
