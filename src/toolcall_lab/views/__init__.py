"""Seeing it: every way the kit shows a run, a transcript, a bill or a request.

    report.py      plain-text tables (trace_table, calls_table, price_table, wire_json, ...)
    cost.py        what a run cost, in tokens and dollars (cost_of, loop_bill, compaction_effect)
    plots.py       the lessons' charts (plot_loop_tokens, plot_caching, ...), each with a
                   `describe_...` twin in words
    _figure.py     `Figure`: a matplotlib figure that shows itself as a PNG in a notebook
    palette.py     the colours every picture uses (Okabe-Ito)
    display/       HTML for notebooks (html.py) and the sequence diagram (diagram.py)
    widgets/       the lessons' ipywidgets: pick_provider, wire_view, step_through, cost_explorer

Nothing here changes a run: the views read what the layers above them made. Lessons import
them from here (`from toolcall_lab.views.report import trace_table`).
"""

__all__: list[str] = []
