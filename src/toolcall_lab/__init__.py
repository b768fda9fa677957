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

import importlib.machinery
import sys
import types
import warnings

from . import _display
from ._version import __version__ as __version__
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

#: module paths from before issue 20 grouped the package -> where they live now, answered for one
#: more release (with a DeprecationWarning) so that a learner's saved copy of a lesson still runs
_MOVED = {"widgets": "views.widgets", "report": "views.report", "cost": "views.cost", "plots": "views.plots",
          "display": "views.display", "budget": "teacher.budget", "lesson_usage": "teacher.lesson_usage",
          "wire.server": "wire"}  # wire.server.flavours -> wire.flavours


class _OldPaths:
    """Answers an old path with the very module at its new one, and warns.

    A module `__getattr__` cannot: `from toolcall_lab.widgets import x` imports the module
    `toolcall_lab.widgets` through the finders of `sys.meta_path`, never asking the package.
    """

    def find_spec(self, name: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        below = name.removeprefix(f"{__name__}.")
        if below == name:  # not the kit's: every import in the process asks this finder first
            return None
        old = next((old for old in _MOVED if below == old or below.startswith(f"{old}.")), None)
        if old is None:
            return None
        new = f"{__name__}.{_MOVED[old]}{below[len(old):]}"
        warnings.warn(f"{name} is now {new}: import it from there (the old path goes after this release)",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        return importlib.machinery.ModuleSpec(  # a loader is asked only for the two methods below
            name, self, loader_state=module.__spec__, is_package=hasattr(module, "__path__"))  # type: ignore[arg-type]

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return sys.modules[spec.loader_state.name]

    def exec_module(self, module: types.ModuleType) -> None:
        # subtle: the module ran already, under its new name; the import system has just written the
        # old path's spec on it, so it gets its own back (its name, file and path were kept)
        module.__spec__ = module.__spec__.loader_state if module.__spec__ else None


# subtle: first, before the file system: an old package's __path__ is the new folder, where the
# file finder would run `widgets/_common.py` again as a second module, `toolcall_lab.widgets._common`
sys.meta_path.insert(0, _OldPaths())


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

_LAZY_SUBMODULES = {"checks", "contract", "double", "examples", "misbehaving", "models", "parts_api", "tape",
                    "teacher", "template", "tools", "views", "wire"}
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
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    # What JupyterLab's completion and `dir(toolcall_lab)` list: the names imported above and
    # the lazy ones, which `__getattr__` only loads when first used.
    return sorted({*globals(), *_LAZY_SUBMODULES, *_LAZY_NAMES})
