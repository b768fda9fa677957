"""Tests for tools: @tool's schemas, Tool's checks, execute's error results, the example tools."""

import enum
import json
from typing import Annotated, Literal

import pytest

from toolcall_lab import Tool, ToolCall, ToolDefinitionError, ToolResult, tool
from toolcall_lab.tool import TOOL_NAME_PATTERN, execute, tool_map
from toolcall_lab.tools import EXAMPLE_TOOLS, calculator, get_weather, search_kb


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@tool
def everything(
    text: str,
    count: int,
    ratio: float,
    flag: bool,
    numbers: list[int],
    scores: dict[str, int],
    mode: Literal["fast", "slow"],
    unit: Unit,
    maybe: int | None,
    noted: Annotated[str, "described by Annotated"] = "hi",
    limit: int = 3,
    unit_default: Unit = Unit.CELSIUS,
) -> str:
    """Exercise every supported type hint.

    A second paragraph of description.

    Args:
        text: some text
            that goes on over two lines
        count (int): how many
        noted: the docstring loses to Annotated
    Returns:
        nothing useful
    """
    return "ok"


def _schema(name):
    return everything.input_schema["properties"][name]


# -- @tool: the schema from hints and docstring ---------------------------------------

def test_tool_name_and_description_come_from_function_and_docstring():
    assert everything.name == "everything"
    assert everything.description == ("Exercise every supported type hint.\n\n"
                                       "A second paragraph of description.")


@pytest.mark.parametrize(
    ("param", "schema"),
    [
        ("text", {"type": "string", "description": "some text that goes on over two lines"}),
        ("count", {"type": "integer", "description": "how many"}),
        ("ratio", {"type": "number"}),
        ("flag", {"type": "boolean"}),
        ("numbers", {"type": "array", "items": {"type": "integer"}}),
        ("scores", {"type": "object", "additionalProperties": {"type": "integer"}}),
        ("mode", {"enum": ["fast", "slow"]}),
        ("unit", {"enum": ["celsius", "fahrenheit"]}),
        ("maybe", {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        ("noted", {"type": "string", "description": "described by Annotated", "default": "hi"}),
        ("limit", {"type": "integer", "default": 3}),
        ("unit_default", {"enum": ["celsius", "fahrenheit"], "default": "celsius"}),
    ],
)
def test_each_hint_becomes_its_schema(param, schema):
    assert _schema(param) == schema


def test_parameters_with_defaults_are_not_required():
    assert everything.input_schema["required"] == [
        "text", "count", "ratio", "flag", "numbers", "scores", "mode", "unit", "maybe"]


def test_schema_is_a_closed_object():
    assert everything.input_schema["type"] == "object"
    assert everything.input_schema["additionalProperties"] is False


def test_pipe_none_is_like_optional():
    @tool
    def f(x: int | None) -> str:
        """F."""
        return ""

    assert f.input_schema["properties"]["x"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}


def test_none_default_is_shown_as_null_default():
    @tool
    def f(x: int | None = None) -> str:
        """F."""
        return ""

    assert f.input_schema["properties"]["x"]["default"] is None


def test_default_without_json_form_is_not_shown():
    @tool
    def f(x: int = object()) -> str:
        """F."""
        return ""

    assert "default" not in f.input_schema["properties"]["x"]
    assert f.input_schema["required"] == []


def test_missing_type_hint_is_a_definition_error():
    def f(city):
        """F."""

    with pytest.raises(ToolDefinitionError, match="parameter 'city' needs a type hint"):
        tool(f)


@pytest.mark.parametrize("source", ["def f(*args: int):\n '''F.'''",
                                    "def f(**kwargs: int):\n '''F.'''",
                                    "def f(x: int, /):\n '''F.'''"])
def test_variadic_or_positional_only_parameters_are_definition_errors(source):
    namespace: dict = {}
    exec(source, namespace)
    with pytest.raises(ToolDefinitionError, match="must be an ordinary named parameter"):
        tool(namespace["f"])


def test_missing_docstring_is_a_definition_error():
    def f(city: str) -> str:
        return city

    with pytest.raises(ToolDefinitionError, match="add a docstring"):
        tool(f)


def test_docstring_with_only_args_section_is_a_definition_error():
    def f(city: str) -> str:
        """
        Args:
            city: a city
        """
        return city

    with pytest.raises(ToolDefinitionError, match="add a docstring"):
        tool(f)


@pytest.mark.parametrize("hint", [complex, bytes, object])
def test_unsupported_hint_is_a_definition_error_naming_alternatives(hint):
    def f(x) -> str:
        """F."""
        return ""

    f.__annotations__ = {"x": hint}
    with pytest.raises(ToolDefinitionError, match="cannot turn the type hint") as info:
        tool(f)
    assert "parameter 'x'" in str(info.value)
    assert "input_schema=" in str(info.value)


def test_definition_error_is_a_value_error():
    assert issubclass(ToolDefinitionError, ValueError)


def test_tool_with_name_and_description():
    @tool(name="weather_now", description="Weather, now.")
    def f(city: str) -> str:
        return city.upper()

    assert isinstance(f, Tool)
    assert (f.name, f.description) == ("weather_now", "Weather, now.")
    assert f("paris") == "PARIS"


def test_tool_with_bad_name_in_decorator_is_rejected():
    with pytest.raises(ToolDefinitionError, match="try 'my_weather'"):
        @tool(name="my weather")
        def f(city: str) -> str:
            """F."""
            return city


# -- Tool: name, schema ------------------------------------------------------------------

def _noop(**kwargs):
    return ""


OBJECT = {"type": "object", "properties": {}}


@pytest.mark.parametrize("name", ["a", "get_weather", "get-weather", "Tool_2", "a" * 64, "_-_"])
def test_good_tool_names_are_accepted(name):
    assert Tool(name, "d", OBJECT, _noop).name == name
    assert TOOL_NAME_PATTERN.fullmatch(name)


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("a" * 65, "a" * 64),
        ("get weather", "get_weather"),
        ("weather.get", "weather_get"),
        ("météo", "m_t_o"),
        ("東京", "__"),
        ("", "my_tool"),
        ("get_weather\n", "get_weather_"),
    ],
    ids=["65-chars", "space", "dot", "accents", "cjk", "empty", "trailing-newline"],
)
def test_bad_tool_names_are_rejected_with_a_suggestion(name, suggestion):
    with pytest.raises(ToolDefinitionError) as info:
        Tool(name, "d", OBJECT, _noop)
    message = str(info.value)
    assert TOOL_NAME_PATTERN.pattern in message
    assert f"try {suggestion!r}" in message


@pytest.mark.parametrize("schema", [{"type": "array"}, {}, {"properties": {}}, "object"])
def test_input_schema_must_be_type_object(schema):
    with pytest.raises(ToolDefinitionError, match='"type": "object"'):
        Tool("t", "d", schema, _noop)


def test_function_must_be_callable():
    with pytest.raises(ToolDefinitionError, match="must be callable"):
        Tool("t", "d", OBJECT, "not a function")


def test_invalid_json_schema_is_reported_on_first_validation():
    broken = Tool("t", "d", {"type": "object", "properties": {"x": {"type": 12}}}, _noop)
    with pytest.raises(ToolDefinitionError, match="input_schema is not valid JSON Schema"):
        broken.check_args({"x": 1})


def test_spec_shows_name_description_schema_and_never_the_function():
    spec = get_weather.spec()
    assert set(spec) == {"name", "description", "input_schema"}
    assert spec["name"] == "get_weather"
    assert json.loads(json.dumps(spec)) == spec  # plain JSON, nothing else
    assert get_weather.function not in spec.values()


def test_tool_repr_is_name_and_first_line():
    expected = "Tool('calculator', 'Evaluate an arithmetic expression exactly, e.g. \"17 * 23 - 100\".')"
    assert repr(calculator) == expected


def test_tool_map_indexes_by_name():
    assert tool_map(EXAMPLE_TOOLS) == {"get_weather": get_weather, "calculator": calculator,
                                       "search_kb": search_kb}


def test_tool_map_rejects_duplicate_names():
    twin = Tool("get_weather", "another", OBJECT, _noop)
    with pytest.raises(ToolDefinitionError, match="two tools are named 'get_weather'"):
        tool_map([get_weather, twin])


def test_tool_map_rejects_non_tools():
    with pytest.raises(TypeError, match="use @tool"):
        tool_map([len])


# -- execute: every bad call becomes an error result -------------------------------------

TOOLS = tool_map(EXAMPLE_TOOLS)


def test_execute_runs_a_good_call():
    result = execute(ToolCall("toolu_01", "get_weather", {"city": "Paris"}), TOOLS)
    assert result == ToolResult("toolu_01", "18°C, sunny")


def test_unknown_tool_is_an_error_listing_available_tools():
    result = execute(ToolCall("toolu_01", "get_wether", {"city": "Paris"}), TOOLS)
    assert result.is_error
    assert result.call_id == "toolu_01"
    assert "Unknown tool 'get_wether'" in result.content
    assert "Available tools: calculator, get_weather, search_kb." in result.content


def test_unknown_tool_with_no_tools_says_none():
    result = execute(ToolCall("toolu_01", "anything", {}), {})
    assert result.is_error
    assert "Available tools: (none)." in result.content


def test_malformed_call_is_an_error_quoting_raw_args():
    result = execute(ToolCall("toolu_01", "get_weather", raw_args='{"city": "Par'), TOOLS)
    assert result.is_error
    assert "were not a valid JSON object" in result.content
    assert '{"city": "Par' in result.content


def test_schema_failure_names_the_problem_and_expected_properties():
    result = execute(ToolCall("toolu_01", "get_weather", {"town": "Paris"}), TOOLS)
    assert result.is_error
    assert "Invalid arguments for get_weather" in result.content
    assert "args.city is missing (it is required)" in result.content
    assert 'Expected properties: {"city": {"type": "string"' in result.content
    assert "(required: city)" in result.content


def test_schema_failure_shows_where_in_the_args():
    @tool
    def total(numbers: list[int]) -> int:
        """Add numbers."""
        return sum(numbers)

    result = execute(ToolCall("toolu_01", "total", {"numbers": [1, "two"]}), tool_map([total]))
    assert result.is_error
    assert "args.numbers[1] must be an integer, got \"two\"" in result.content


def test_schema_failure_means_the_function_is_not_called():
    calls = []

    @tool
    def record(n: int) -> str:
        """Record n."""
        calls.append(n)
        return "ok"

    result = execute(ToolCall("toolu_01", "record", {"n": "five"}), tool_map([record]))
    assert result.is_error
    assert calls == []


def test_extra_arguments_fail_the_schema():
    result = execute(ToolCall("toolu_01", "get_weather", {"city": "Paris", "units": "C"}), TOOLS)
    assert result.is_error
    assert "args has a field the schema does not allow: 'units'" in result.content


def test_function_raising_is_an_error_with_type_and_text():
    @tool
    def explode(n: int) -> str:
        """Always fails."""
        raise KeyError(f"no entry {n}")

    result = execute(ToolCall("toolu_09", "explode", {"n": 7}), tool_map([explode]))
    assert result.is_error
    assert result.call_id == "toolu_09"
    assert "explode failed: KeyError: 'no entry 7'" in result.content


@pytest.mark.parametrize(
    ("value", "content"),
    [({"n": 2, "city": "東京"}, '{"n": 2, "city": "東京"}'), (42, "42"), (None, "null"),
     ([1, 2.5, True], "[1, 2.5, true]"), ("as is", "as is")],
)
def test_return_values_become_text(value, content):
    @tool
    def give() -> object:
        """Return a fixed value."""
        return value

    assert execute(ToolCall("toolu_01", "give", {}), tool_map([give])).content == content


class Unshowable:
    """A value whose own text fails (issue 19, item 14: it escaped execute and run_agent)."""

    def __str__(self):
        raise RuntimeError("no text for you")


class UnshowableText(str):
    def __str__(self):
        raise RuntimeError("no text for you")


@pytest.mark.parametrize("value", [Unshowable(), {"reading": Unshowable()}, UnshowableText("18°C")],
                         ids=["object", "inside-a-dict", "str-subclass"])
def test_a_value_whose_str_raises_is_an_error_result_not_an_escape(value):
    from toolcall_lab import ScriptedProvider, call, run_agent

    @tool
    def give() -> object:
        """Return a value that cannot be shown."""
        return value

    result = execute(ToolCall("toolu_01", "give", {}), tool_map([give]))
    if isinstance(value, str):  # a str is sent as the text it holds, never through its own __str__
        assert result == ToolResult("toolu_01", "18°C") and type(result.content) is str
        return
    assert result.is_error and "give returned a" in result.content
    assert "RuntimeError: no text for you" in result.content
    run = run_agent(ScriptedProvider([call("give"), "Done."]), "Go", tools=[give])
    assert run.answer == "Done." and run.transcript.tool_results()[0].is_error


def test_decorated_tool_is_still_callable():
    assert get_weather("Paris") == "18°C, sunny"
    assert everything(text="a", count=1, ratio=1.0, flag=True, numbers=[], scores={},
                      mode="fast", unit=Unit.CELSIUS, maybe=None) == "ok"


def test_enum_parameter_receives_an_enum_member():
    seen = []

    @tool
    def temperature(unit: Unit) -> str:
        """Temperature in a unit."""
        seen.append(unit)
        return "20"

    execute(ToolCall("toolu_01", "temperature", {"unit": "celsius"}), tool_map([temperature]))
    assert seen == [Unit.CELSIUS]


# -- the example tools -----------------------------------------------------------------

@pytest.mark.parametrize("city", ["Paris", "paris", "  PARIS  "])
def test_get_weather_for_paris_ignores_case_and_spaces(city):
    result = execute(ToolCall("toolu_01", "get_weather", {"city": city}), TOOLS)
    assert result == ToolResult("toolu_01", "18°C, sunny")


def test_get_weather_for_unknown_city_is_an_error_result():
    result = execute(ToolCall("toolu_01", "get_weather", {"city": "Atlantis"}), TOOLS)
    assert result.is_error
    assert "get_weather failed: ValueError: no weather data for 'Atlantis'" in result.content
    assert "Paris, London" in result.content


def test_search_kb_finds_time_off():
    result = execute(ToolCall("toolu_01", "search_kb", {"query": "time off"}), TOOLS)
    assert not result.is_error
    assert result.content.startswith("hr-001: Paid time off.")


@pytest.mark.parametrize(("limit", "lines"), [(1, 1), (2, 2), (3, 3)])
def test_search_kb_respects_limit(limit, lines):
    # "days" appears in hr-001, hr-002 and fin-001.
    assert len(search_kb("days", limit=limit).splitlines()) == lines


def test_search_kb_default_limit_is_two():
    assert len(search_kb("days").splitlines()) == 2


def test_search_kb_no_match_is_a_sentence():
    assert search_kb("quantum zebra") == "No handbook entry matches 'quantum zebra'. Try other words."


def test_calculator_computes_through_execute():
    result = execute(ToolCall("toolu_01", "calculator", {"expression": "17 * 23 - 100"}), TOOLS)
    assert result == ToolResult("toolu_01", "291")


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("x + 1", "Names are not allowed"),
        ("__import__('os')", "Function calls are not allowed"),
        ("().__class__", "Attribute lookups are not allowed"),
        ("().__class__.__mro__[1].__subclasses__()", "not allowed"),
        ("[1, 2][0]", "not allowed"),
        ("[i for i in (1, 2)]", "Comprehensions and generators are not allowed"),
        ("(i for i in (1, 2))", "Comprehensions and generators are not allowed"),
        ("lambda: 1", "Lambdas are not allowed"),
        ("9**9**9", "too large"),
        ("2**10**10", "too large"),
        ("1" * 40, "more than 30 digits"),
        ("1e308 * 10", "too large"),
    ],
)
def test_calculator_refuses_escapes_as_error_results(expression, reason):
    result = execute(ToolCall("toolu_01", "calculator", {"expression": expression}), TOOLS)
    assert result.is_error
    assert "calculator failed: CalculationError" in result.content
    assert reason in result.content


def test_calculator_escape_in_a_run_comes_back_to_the_model_as_an_error():
    from toolcall_lab import ScriptedProvider, call, run_agent

    provider = ScriptedProvider([call("calculator", expression="__import__('os').getcwd()"),
                                 call("calculator", expression="2 + 2"), "4"])
    run = run_agent(provider, "What is 2 + 2?", tools=[calculator])
    first, second = run.transcript[2].tool_results[0], run.transcript[4].tool_results[0]
    assert first.is_error and "Use only numbers" in first.content
    assert second == ToolResult("toolu_02", "4")
