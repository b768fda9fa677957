"""The kit's exceptions: one base class, and a subclass for each thing that can go wrong.

    ToolcallLabError                 every error the kit raises on purpose
    ├── ToolDefinitionError          a tool is defined wrongly (bad name, unusable type hint)
    ├── ScriptExhaustedError         a scripted provider was asked for more replies than its script has
    └── MaxStepsExceeded             run_agent made max_steps model calls and the model still wanted tools

Errors that come from a *tool* while it runs are not raised at all: the loop turns them
into `ToolResult(is_error=True)` so the model can read them and try again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .loop import Run

__all__ = ["MaxStepsExceeded", "ScriptExhaustedError", "ToolDefinitionError", "ToolcallLabError"]


class ToolcallLabError(Exception):
    """Base class: `except ToolcallLabError` catches everything the kit raises on purpose."""


class ToolDefinitionError(ToolcallLabError, ValueError):
    """Raised when a `Tool` is defined: its name or its input schema cannot work."""


class ScriptExhaustedError(ToolcallLabError):
    """Raised when a `ScriptedProvider` built from a list runs out of replies."""


class MaxStepsExceeded(ToolcallLabError):
    """Raised when `run_agent` reaches `max_steps` model calls without a final answer.

    Nothing is lost: `error.run` holds the transcript and every call made so far.
    """

    def __init__(self, message: str, run: Run) -> None:
        super().__init__(message)
        self.run = run
