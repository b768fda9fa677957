"""The example tools the lessons use: `get_weather`, `calculator` and `search_kb`.

Each is an ordinary function turned into a `Tool` by `@tool`, and each is safe to offer
a model: no network, no file access, and no `eval` of anything the model sends.
"""

from .calculator import calculator
from .knowledge_base import search_kb
from .weather import get_weather

__all__ = ["EXAMPLE_TOOLS", "calculator", "get_weather", "search_kb"]

EXAMPLE_TOOLS = (get_weather, calculator, search_kb)
