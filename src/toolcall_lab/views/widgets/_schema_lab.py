"""Try a schema on every wire: which API takes it for structured output, in each API's words.

    >>> lab = schema_lab({"closed": {"type": "object", "properties": {}, "additionalProperties": False}})
    >>> [lab.verdicts[api].value for api in ("anthropic", "ollama")]
    ['✓ accepted', '✓ accepted']
    >>> lab.editor.value = '{"type": "object"}'
    >>> print(lab.verdicts["anthropic"].value[:30])
    ✗ output_config.format.schema:

Left out: sending the request (the lesson does that through each SDK) and schemas' formats.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

from ._common import API_TITLES, FONT, described

__all__ = ["schema_lab"]


def schema_lab(schemas: Mapping[str, Mapping[str, Any]], *, name: str = "answer") -> Any:
    """A schema picker and editor beside one verdict per API, updated as you type.

    Pick one of `schemas` (or edit the JSON in the box) and tick or untick OpenAI's
    `strict`: each API's row says "✓ accepted" or "✗" and the first thing its
    `check_request` says, in the API's words (`wire.<api>.rules`), for a request asking
    for structured output with that schema. Parts: `choice` (Dropdown), `strict`
    (Checkbox), `editor` (Textarea), `verdicts` (API -> HTML).
    """
    import ipywidgets as widgets

    from ...output_format import OutputFormat
    from ...wire import APIS, format_problems

    def show(schema: Mapping[str, Any]) -> str:
        return json.dumps(schema, indent=1)

    first = next(iter(schemas))
    choice = widgets.Dropdown(options=list(schemas), value=first, description="schema",
                              layout=widgets.Layout(width="290px"))
    strict = widgets.Checkbox(value=True, description="strict (OpenAI)", indent=False)
    editor = widgets.Textarea(value=show(schemas[first]),
                              layout=widgets.Layout(width="290px", height="260px"))
    # subtle: the verdicts wrap in what is left of the row; at 1280x720 with JupyterLab's file
    # browser open a notebook is about 850 px wide, so the two columns share that
    verdicts = {api: widgets.HTML(layout=widgets.Layout(flex="1 1 auto", width="auto")) for api in APIS}

    def judge(*_: Any) -> None:
        try:
            schema = json.loads(editor.value)
            fmt = OutputFormat(name, schema, strict=strict.value)
        except (ValueError, TypeError) as exc:  # UsageError is a ValueError too
            for view in verdicts.values():
                view.value = html.escape(f"✗ not a schema yet: {str(exc).splitlines()[0][:80]}")
            return
        said = format_problems(fmt)
        for api, view in verdicts.items():
            view.value = html.escape(f"✗ {said[api][0].text}" if said[api] else "✓ accepted")

    def pick(change: Any) -> None:
        editor.value = show(schemas[change["new"]])  # subtle: this sets off `judge` by itself

    choice.observe(pick, names="value")
    editor.observe(judge, names="value")
    strict.observe(judge, names="value")
    judge()
    rows = [widgets.HBox([widgets.HTML(f"<b style='{FONT}'>{html.escape(API_TITLES[api])}</b>",
                                       layout=widgets.Layout(width="150px", flex="0 0 auto")),
                          verdicts[api]], layout=widgets.Layout(width="100%"))
            for api in APIS]
    right = widgets.VBox(rows, layout=widgets.Layout(flex="1 1 auto", width="auto", min_width="0"))
    left = widgets.VBox([choice, strict, editor], layout=widgets.Layout(flex="0 0 300px"))
    lab = described(widgets.HBox, "Schema lab: a structured-output schema judged by each API's rules",
                    [left, right])
    lab.choice, lab.strict, lab.editor, lab.verdicts = choice, strict, editor, verdicts
    return lab
