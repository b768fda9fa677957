"""The names learners type are a contract: adding one is a decision, losing one is a bug."""

import toolcall_lab
import toolcall_lab.tools

EXPECTED = {
    "MaxStepsExceeded", "Message", "Provider", "ReasoningBlock", "Run", "ScriptExhaustedError",
    "ScriptedProvider", "Step", "StopReason", "TextBlock", "Tool", "ToolCall",
    "ToolDefinitionError", "ToolResult", "ToolcallLabError", "Transcript", "Turn", "Usage",
    "call", "estimate_tokens", "loop_input_tokens", "loop_input_total", "run_agent", "stage",
    "tool",
    # issue 3: real providers
    "AnthropicProvider", "ApiDouble", "InvalidRequestError", "MissingKeyError", "OllamaProvider",
    "OpenAIChatProvider", "OpenAIResponsesProvider", "ProviderError", "get_provider",
    "provider_from_env",
    # the one-line swap: what every provider records of each call
    "SentRequest",
    # issue 9: a transcript that cannot be loaded or saved says where and why
    "TranscriptFormatError",
    # issue 10: an unknown name or value (provider, preset, model with no price) is the kit's error
    "UsageError",
    # ... and a value of the wrong type is one too, and still a TypeError
    "UsageTypeError",
    # issue 21: streaming, one family of events for all four APIs, and the error for a cut stream
    "ArgumentsDelta", "BlockFinished", "IncompleteStreamError", "ReasoningDelta", "StreamEvent",
    "StreamFinished", "TextDelta", "ToolCallStarted",
}

# The list of what a learner must be able to type.
REQUIRED = {
    "Transcript", "Message", "TextBlock", "ToolCall", "ToolResult", "ReasoningBlock", "Usage",
    "Turn", "StopReason", "ScriptedProvider", "Tool", "tool", "run_agent", "estimate_tokens",
    "loop_input_tokens",
}


def test_package_exports_exactly_the_pinned_names():
    assert set(toolcall_lab.__all__) == EXPECTED


def test_required_names_are_exported_and_resolve():
    assert REQUIRED <= set(toolcall_lab.__all__)
    for name in toolcall_lab.__all__:
        assert getattr(toolcall_lab, name) is not None


def test_example_tools_are_tools():
    # lesson 13: a pretend folder for the prompt injection (`tools.files`), not among EXAMPLE_TOOLS
    assert set(toolcall_lab.tools.__all__) == {"EXAMPLE_TOOLS", "calculator", "delete_files", "get_weather",
                                               "read_file", "search_kb"}
    for t in toolcall_lab.tools.EXAMPLE_TOOLS:
        assert isinstance(t, toolcall_lab.Tool)
    assert [t.name for t in toolcall_lab.tools.EXAMPLE_TOOLS] == ["get_weather", "calculator", "search_kb"]


def test_every_public_module_declares_all():
    import importlib
    import pkgutil

    for module_info in pkgutil.walk_packages(toolcall_lab.__path__, "toolcall_lab."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        assert hasattr(module, "__all__"), f"{module_info.name} has no __all__"
        for name in module.__all__:
            assert hasattr(module, name), f"{module_info.name}.__all__ names missing {name}"


def test_all_is_sorted_so_a_reader_finds_a_name():
    # ruff's RUF022 order (classes, then functions, each alphabetical); ruff also checks it.
    assert toolcall_lab.__all__ == sorted(toolcall_lab.__all__, key=lambda name: (name[0].islower(), name))


def test_completion_lists_the_lazily_imported_names():
    # JupyterLab's Tab completion asks dir(); the lazy names must be there before first use.
    listed = set(dir(toolcall_lab))
    assert set(toolcall_lab.__all__) <= listed
    assert {"AnthropicProvider", "ApiDouble", "contract", "tools", "views"} <= listed
