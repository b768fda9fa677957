"""toolcall-lab: how programs talk to language models, one message at a time.

The names a learner types live here::

    from toolcall_lab import Transcript, Message, ToolCall, ToolResult, ScriptedProvider, run_agent
    from toolcall_lab.tools import get_weather, calculator, search_kb

Importing the package is cheap on purpose: it loads no provider SDK, no plotting or
widget library and not even jsonschema (that loads on the first argument check).
"""

from .errors import MaxStepsExceeded, ScriptExhaustedError, ToolcallLabError, ToolDefinitionError
from .loop import Run, Step, run_agent
from .messages import Message, ReasoningBlock, TextBlock, ToolCall, ToolResult, Transcript
from .providers import Provider, ScriptedProvider, call, stage
from .tokens import estimate_tokens, loop_input_tokens, loop_input_total
from .tool import Tool, tool
from .turn import StopReason, Turn
from .usage import Usage

__version__ = "0.1.0"

__all__ = [
    "MaxStepsExceeded",
    "Message",
    "Provider",
    "ReasoningBlock",
    "Run",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "Step",
    "StopReason",
    "TextBlock",
    "Tool",
    "ToolCall",
    "ToolDefinitionError",
    "ToolResult",
    "ToolcallLabError",
    "Transcript",
    "Turn",
    "Usage",
    "call",
    "estimate_tokens",
    "loop_input_tokens",
    "loop_input_total",
    "run_agent",
    "stage",
    "tool",
]

_LAZY_SUBMODULES = {"examples", "report", "tools"}


def __getattr__(name: str) -> object:
    # `toolcall_lab.tools.get_weather` works after a bare `import toolcall_lab`, without
    # paying for the example tools (or anything else) until they are used.
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
