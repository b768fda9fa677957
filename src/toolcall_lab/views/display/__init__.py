"""Seeing a conversation: HTML views for JupyterLab and sequence diagrams.

- `transcript_html`, `message_html`, `turn_html`, `run_html`: one self-contained HTML
  string each (JupyterLab shows `Message`, `Transcript`, `Turn` and `Run` with them);
- `sequence_diagram`: the flow as Mermaid source, drawn natively by JupyterLab 4.1+;
- `plot_sequence`: the same diagram as a matplotlib Figure (it displays as a PNG), for
  figures/ and for viewers without Mermaid; `describe_sequence` says it in words.

Importing this package loads no plotting library: matplotlib loads inside `plot_sequence`.
"""

from ..report import producer_labels
from .diagram import SequenceDiagram, describe_sequence, plot_sequence, sequence_arrows, sequence_diagram
from .html import message_html, pair_numbers, run_html, transcript_html, turn_html

__all__ = [
    "SequenceDiagram",
    "describe_sequence",
    "message_html",
    "pair_numbers",
    "plot_sequence",
    "producer_labels",
    "run_html",
    "sequence_arrows",
    "sequence_diagram",
    "transcript_html",
    "turn_html",
]
