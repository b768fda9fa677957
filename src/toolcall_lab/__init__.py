"""toolcall-lab: how programs talk to language models, one message at a time.

The names a learner types live here::

    from toolcall_lab import Transcript, Message, ToolCall, ToolResult, ScriptedProvider, run_agent
    from toolcall_lab.tools import get_weather, calculator, search_kb

Real providers are one line away, and the lessons run unchanged against them::

    provider = get_provider("anthropic")                 # or "openai", "ollama", "vllm", ...
    provider = provider_from_env(script=weather_policy)  # TOOLCALL_LAB_PROVIDER, default scripted

Importing the package is cheap on purpose: it loads no provider SDK, no plotting or
widget library and not even jsonschema (that loads on the first argument check).
"""

from . import _display, _old_paths
from .blocks import ReasoningBlock, TextBlock, ToolCall, ToolResult
from .errors import (
    IncompleteStreamError,
    InvalidRequestError,
    MaxStepsExceeded,
    MissingKeyError,
    ProviderError,
    ScriptExhaustedError,
    ToolcallLabError,
    ToolDefinitionError,
    TranscriptFormatError,
    UsageError,
    UsageTypeError,
)
from .loop import Run, Step, run_agent
from .messages import Message
from .providers.base import Provider, SentRequest
from .providers.registry import get_provider
from .providers.scripted import ScriptedProvider, call, stage
from .stream import (
    ArgumentsDelta,
    BlockFinished,
    ReasoningDelta,
    StreamEvent,
    StreamFinished,
    TextDelta,
    ToolCallStarted,
)
from .tokens import estimate_tokens, loop_input_tokens, loop_input_total
from .tool import Tool, tool
from .transcript import Transcript
from .turn import StopReason, Turn
from .usage import Usage


def _load_html_views() -> None:
    """Import the HTML views, which register themselves (`_display.py`), when something is first shown."""
    from .views.display import html  # noqa: F401


_display.load_with(_load_html_views)

_old_paths.install()  # toolcall_lab.report, .cost, .widgets, .budget, ...: see _old_paths.MOVED

__version__ = "0.1.0"

__all__ = [
    "AnthropicProvider",
    "ApiDouble",
    "ArgumentsDelta",
    "BlockFinished",
    "IncompleteStreamError",
    "InvalidRequestError",
    "MaxStepsExceeded",
    "Message",
    "MissingKeyError",
    "OllamaProvider",
    "OpenAIChatProvider",
    "OpenAIResponsesProvider",
    "Provider",
    "ProviderError",
    "ReasoningBlock",
    "ReasoningDelta",
    "Run",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "SentRequest",
    "Step",
    "StopReason",
    "StreamEvent",
    "StreamFinished",
    "TextBlock",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallStarted",
    "ToolDefinitionError",
    "ToolResult",
    "ToolcallLabError",
    "Transcript",
    "TranscriptFormatError",
    "Turn",
    "Usage",
    "UsageError",
    "UsageTypeError",
    "call",
    "estimate_tokens",
    "get_provider",
    "loop_input_tokens",
    "loop_input_total",
    "provider_from_env",
    "run_agent",
    "stage",
    "tool",
]

_LAZY_SUBMODULES = {"checks", "contract", "cost", "display", "double", "examples", "figures", "misbehaving",
                    "models", "parts_api", "plots", "report", "tape", "teacher", "template", "tools",
                    "views", "widgets", "wire"}
_LAZY_NAMES = {
    "AnthropicProvider": "providers.anthropic",
    "OpenAIResponsesProvider": "providers.openai_responses",
    "OpenAIChatProvider": "providers.openai_chat",
    "OllamaProvider": "providers.ollama",
    "ApiDouble": "double",
    "provider_from_env": "tape.environment",  # the tapes' recorder and format load on first use
}


def __getattr__(name: str) -> object:
    # `toolcall_lab.tools.get_weather` works after a bare `import toolcall_lab`, without
    # paying for the example tools, the adapters or the API double until they are used.
    import importlib

    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    # What JupyterLab's completion and `dir(toolcall_lab)` list: the names imported above and
    # the lazy ones, which `__getattr__` only loads when first used.
    return sorted({*globals(), *_LAZY_SUBMODULES, *_LAZY_NAMES})
