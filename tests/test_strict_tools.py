"""Strict tools: a schema OpenAI's strict mode accepts, `strict: true` on the wire, defaults kept."""

from __future__ import annotations

from typing import Literal

import pytest

from schemas import anthropic_request_errors, openapi_errors
from toolcall_lab import Message, Tool, ToolCall, Transcript, tool
from toolcall_lab.errors import ToolDefinitionError
from toolcall_lab.tool import execute, tool_map
from toolcall_lab.tools import get_weather
from toolcall_lab.wire import anthropic, chat, check, ollama, responses

ASK = Transcript(messages=[Message.user("Forecast for Paris?")])


@tool(strict=True)
def forecast(city: str, days: int = 3, unit: Literal["C", "F"] = "C", region: str | None = None) -> str:
    """The forecast for a city.

    Args:
        city: the city's name
        unit: the temperature unit
    """
    return f"{city}: {days} days in °{unit}" + (f" ({region})" if region else "")


def test_every_parameter_is_required_and_a_defaulted_one_is_nullable():
    schema = forecast.input_schema
    assert schema["required"] == ["city", "days", "unit", "region"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["days"] == {"anyOf": [{"type": "integer"}, {"type": "null"}],
                                            "description": "null means the default, 3"}
    assert schema["properties"]["unit"]["description"] == 'the temperature unit; null means the default, "C"'
    assert schema["properties"]["region"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert not any("default" in part for part in schema["properties"].values())  # the keyword, not the word


def test_a_null_for_a_defaulted_parameter_gives_the_function_its_default():
    args = {"city": "Paris", "days": None, "unit": None, "region": None}
    assert execute(ToolCall("c1", "forecast", args), tool_map([forecast])).content == "Paris: 3 days in °C"
    args = {"city": "Paris", "days": 5, "unit": "F", "region": "IDF"}
    result = execute(ToolCall("c2", "forecast", args), tool_map([forecast]))
    assert result.content == "Paris: 5 days in °F (IDF)"
    missing = execute(ToolCall("c3", "forecast", {"city": "Paris"}), tool_map([forecast]))
    assert missing.is_error and "args.days is missing (it is required)" in missing.content


def test_a_dict_parameter_cannot_be_strict():
    def tag(labels: dict[str, str]) -> str:
        """Tag a thing."""
        return ""

    with pytest.raises(ToolDefinitionError, match="'labels' is a dict whose keys are open"):
        tool(strict=True)(tag)
    assert not tool(tag).strict


def test_strict_goes_out_on_both_openai_apis_and_their_definitions_accept_it():
    sent = responses.encode_request(ASK, [forecast, get_weather], model="gpt-6-luna")
    assert [t["strict"] for t in sent["tools"]] == [True, False]
    assert openapi_errors(sent, "CreateResponse") == [] and responses.check_request(sent) == []
    sent = chat.encode_request(ASK, [forecast, get_weather], model="gpt-6-luna", reasoning_effort="none")
    assert [t["function"].get("strict") for t in sent["tools"]] == [True, None]
    assert openapi_errors(sent, "CreateChatCompletionRequest") == [] and chat.check_request(sent) == []
    # Anthropic's own strict tool use and Ollama are left out: the flag is not sent there
    sent = anthropic.encode_request(ASK, [forecast], model="claude-haiku-5-5")
    assert "strict" not in sent["tools"][0] and anthropic_request_errors(sent) == []
    assert "strict" not in str(ollama.encode_request(ASK, [forecast], model="qwen3:4b")["tools"])


def test_a_strict_tool_with_an_open_schema_is_refused_in_openais_words_and_closing_it_fixes_it():
    open_schema = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                   "required": ["city"]}
    loose = Tool("forecast", "The forecast.", open_schema, lambda city, days=3: city, strict=True)
    for api in ("responses", "chat"):
        assert [p.text for p in check(ASK, api=api, tools=[loose])] == [
            "Invalid schema for function 'forecast': In context=(), 'additionalProperties' is required to be "
            "supplied and to be false."]
    closed = Tool("forecast", "The forecast.", {**open_schema, "additionalProperties": False},
                  lambda city, days=3: city, strict=True)
    assert [p.text.rpartition(", ")[2] for p in check(ASK, api="chat", tools=[closed])] == [
        "'required' is required to be supplied and to be an array including every key in properties. "
        "Missing 'days'."]
    assert check(ASK, api="chat", tools=[forecast]) == []
    assert check(ASK, api="responses", tools=[forecast]) == []


def test_the_flags_must_be_booleans():
    with pytest.raises(ToolDefinitionError, match="strict must be True or False"):
        Tool("f", "d", {"type": "object"}, print, strict="yes")
    with pytest.raises(ToolDefinitionError, match="needs_approval must be True or False"):
        Tool("f", "d", {"type": "object"}, print, needs_approval=1)
