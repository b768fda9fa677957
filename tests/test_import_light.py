"""`import toolcall_lab` stays light: no SDK, plotting, widget or validation library.

Timing is not asserted here (machines are shared and noisy); benchmarks/import_time.py
prints the figure. What is asserted is what gets imported, which is deterministic.
"""

import subprocess
import sys

import pytest

HEAVY = ["anthropic", "openai", "ollama", "httpx", "httpx2", "pydantic", "matplotlib", "ipywidgets",
         "IPython", "jsonschema", "http.server", "jinja2", "mcp", "anyio"]


def modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
                         check=True, capture_output=True, text=True).stdout
    return set(out.split())


@pytest.mark.slow
@pytest.mark.parametrize("code", ["import toolcall_lab", "import toolcall_lab.tools",
                                  "from toolcall_lab import run_agent, ScriptedProvider, tool",
                                  "from toolcall_lab import get_provider, provider_from_env",
                                  "import toolcall_lab.wire.anthropic, toolcall_lab.wire.responses, "
                                  "toolcall_lab.wire.chat, toolcall_lab.wire.ollama",
                                  "from toolcall_lab import AnthropicProvider, OpenAIResponsesProvider, "
                                  "OpenAIChatProvider, OllamaProvider",
                                  "import toolcall_lab.mcp_tools, toolcall_lab.mcp_loop, "
                                  "toolcall_lab.views.display"])
def test_import_pulls_in_no_heavy_module(code):
    loaded = modules_after(code)
    assert [m for m in HEAVY if m in loaded] == []


@pytest.mark.slow
def test_jsonschema_loads_on_first_argument_check_only():
    loaded = modules_after(
        "from toolcall_lab.tools import get_weather\nget_weather.check_args({'city': 'Paris'})")
    assert "jsonschema" in loaded


@pytest.mark.slow
def test_lazy_submodule_attribute_access():
    out = subprocess.run(
        [sys.executable, "-c", "import toolcall_lab; print(toolcall_lab.tools.get_weather.name)"],
        check=True, capture_output=True, text=True).stdout
    assert out.strip() == "get_weather"


@pytest.mark.slow
def test_the_bare_import_leaves_out_the_tapes_and_importlib_abc():
    """Two that crept in with issue 20's tree (about 12 and 30 ms of the bare import, measured):
    the tapes, through `provider_from_env`, and `importlib.abc` (with `importlib.resources`),
    through the old-path finder's base classes."""
    loaded = modules_after("import toolcall_lab")
    assert [m for m in ("toolcall_lab.tape", "importlib.abc", "importlib.resources") if m in loaded] == []


@pytest.mark.slow
@pytest.mark.parametrize("code", ["import toolcall_lab", "from toolcall_lab import get_provider, run_agent"])
def test_the_api_folders_load_on_first_use(code):
    """issue 30: `API_SPECS` imports each API's codec and server half when first asked for, and the
    registry its provider classes (which name their codec) and `wire.flavours` on first use, so the
    bare import loads no API folder (it loaded all four and the flavours, about half of its time)."""
    loaded = modules_after(code)
    folders = [m for m in loaded if m.startswith("toolcall_lab.wire.")
               and m.split(".")[2] in ("anthropic", "responses", "chat", "ollama", "flavours")]
    assert folders == []


@pytest.mark.slow
def test_an_api_folder_loads_when_its_spec_is_first_asked():
    loaded = modules_after("from toolcall_lab.wire import API_SPECS\nAPI_SPECS['chat'].server")
    assert "toolcall_lab.wire.chat.server" in loaded and "toolcall_lab.wire.anthropic" not in loaded
    loaded = modules_after("from toolcall_lab import wire\nassert wire.ollama.API_NAME == 'ollama'")
    assert "toolcall_lab.wire.ollama" in loaded and "toolcall_lab.wire.chat" not in loaded


GUARDS = ["toolcall_lab.cancel", "toolcall_lab.context_budget", "toolcall_lab.ledger", "toolcall_lab.pending",
          "toolcall_lab.result_cap", "toolcall_lab.tool_order"]


@pytest.mark.slow
def test_the_production_guards_load_only_when_a_run_asks_for_one():
    """issue 31's guards (a cap, a ledger, a budget, a pending approval, a cancel) came in with the
    loop's imports, six modules more for every `import toolcall_lab`; now a run loads the one it uses."""
    assert [m for m in GUARDS if m in modules_after("import toolcall_lab")] == []
    plain = ("from toolcall_lab import ScriptedProvider, run_agent, call\nfrom toolcall_lab.tools import "
             "get_weather\nrun_agent(ScriptedProvider([call('get_weather', city='Paris'), 'ok']), 'Hi', "
             "tools=[get_weather])")
    assert [m for m in GUARDS if m in modules_after(plain)] == []
    capped = plain.replace("tools=[get_weather])", "tools=[get_weather], max_result_tokens=100)")
    assert [m for m in GUARDS if m in modules_after(capped)] == ["toolcall_lab.result_cap"]
