"""`search_kb`: keyword search over a small in-memory knowledge base.

The entries are a made-up company handbook, enough to show a model looking something
up, citing an entry id, and coping when nothing matches. Scoring is plain word
overlap; a real system would use a search index or embeddings.
"""

from __future__ import annotations

import re

from ..tool import tool

__all__ = ["KNOWLEDGE_BASE", "search_kb"]

#: entry id -> (title, text)
KNOWLEDGE_BASE: dict[str, tuple[str, str]] = {
    "hr-001": ("Paid time off", "Staff get 25 days of paid time off a year; up to 5 unused "
               "days carry over to the next year."),
    "hr-002": ("Remote work", "Anyone may work remotely up to three days a week; agree the "
               "days with your team lead."),
    "it-001": ("Password resets", "Reset your password at the self-service portal; the help "
               "desk never asks for your password."),
    "it-002": ("Laptop replacement", "Laptops are replaced every four years, or sooner when "
               "repair costs more than half the price of a new one."),
    "fin-001": ("Travel expenses", "Book travel through the travel desk; keep receipts for "
                "claims over 25 euros and file them within 30 days."),
    "fin-002": ("Meal allowance", "On business trips meals are covered up to 40 euros a day."),
}

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) > 2}


@tool
def search_kb(query: str, limit: int = 2) -> str:
    """Search the company handbook and return the best matching entries with their ids.

    Args:
        query: what to look for, in a few words, e.g. "time off"
        limit: the most entries to return
    """
    wanted = _words(query)
    scored = sorted(
        ((len(wanted & _words(title + " " + text)), entry_id)
         for entry_id, (title, text) in KNOWLEDGE_BASE.items()),
        key=lambda pair: (-pair[0], pair[1]),
    )
    hits = [entry_id for score, entry_id in scored if score > 0][: max(1, limit)]
    if not hits:
        return f"No handbook entry matches {query!r}. Try other words."
    return "\n".join(f"{i}: {KNOWLEDGE_BASE[i][0]}. {KNOWLEDGE_BASE[i][1]}" for i in hits)
