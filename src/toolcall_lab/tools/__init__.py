"""The example tools the lessons use: `get_weather`, `calculator` and `search_kb`, and lesson 14's
pretend folder, `read_file` and `delete_files`.

Each is an ordinary function turned into a `Tool` by `@tool`, and each is safe to offer
a model: no network, no file access, and no `eval` of anything the model sends. (The folder
lives in a dict, and `delete_files` only writes down what it was asked: `tools.files`.)
"""

from .calculator import calculator
from .files import delete_files, read_file
from .knowledge_base import search_kb
from .weather import get_weather

__all__ = ["EXAMPLE_TOOLS", "calculator", "delete_files", "get_weather", "read_file", "search_kb"]

EXAMPLE_TOOLS = (get_weather, calculator, search_kb)
