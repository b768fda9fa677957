"""Read the wire: the same conversation as each API's request body, one tab per API.

    >>> from toolcall_lab import Message, Transcript
    >>> tabs = wire_view(Transcript(messages=[Message.user("Hi")]))
    >>> "&quot;role&quot;: &quot;user&quot;" in tabs.views["chat"].value  # escaped for HTML
    True

Left out: responses (the request is the lesson) and editing a body to send it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._common import API_TITLES, described, pre, wire_body

if TYPE_CHECKING:
    from ...tool import Tool
    from ...transcript import Transcript

__all__ = ["wire_view"]

#: The tallest a request body is drawn (CSS): a longer one scrolls inside its box, so the tabs
#: and the top of the body stay on a 1280x720 screen together.
BODY_MAX_HEIGHT = "30em"


def wire_view(transcript: Transcript, tools: Sequence[Tool] = (), *, model: str | None = None) -> Any:
    """The same conversation as each API's request body, one tab per API.

    Each tab holds `report.wire_json` of `wire.encode_request(transcript, tools, api=...)`
    (tool definitions summarised), escaped for HTML, in a box at most `BODY_MAX_HEIGHT`
    tall that scrolls. `model` defaults to each API's provider default. Parts: `views`
    (API -> HTML widget).

    >>> from toolcall_lab import Message, Transcript
    >>> tabs = wire_view(Transcript(messages=[Message.user("Hi")]))
    >>> tabs.titles
    ('Anthropic Messages', 'OpenAI Responses', 'OpenAI Chat', 'Ollama')
    """
    import ipywidgets as widgets

    from ...wire import APIS
    from ..report import wire_json

    views = {api: widgets.HTML(pre(wire_json(wire_body(transcript, tools, api, model)),
                                   max_height=BODY_MAX_HEIGHT))
             for api in APIS}
    tab = described(widgets.Tab, "Wire view: this conversation as the request body of each API, one tab each",
                    children=list(views.values()))
    tab.titles = tuple(API_TITLES[api] for api in APIS)
    tab.views = views
    return tab
