"""The worked examples the lessons and the classroom demo share.

`weather_policy` plays a model that knows when to ask for `get_weather`: it looks for
known city names in the newest question, asks for the weather of each (several cities
means several calls in one reply), and once the results are back it answers from them.
With no city in the question it asks which city, rather than inventing one. Held to one
call per reply (`parallel_tool_calls=False`), it asks for the cities still missing on
its next reply, until it has them all.

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> from toolcall_lab.tools import get_weather
    >>> run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    >>> run.answer
    "It's 18°C and sunny in Paris."
"""

from __future__ import annotations

from typing import Any

from .blocks import ToolCall, ToolResult
from .errors import UsageError
from .messages import Message
from .providers.scripted import Reply, call
from .tool import Tool
from .tools.weather import WEATHER
from .transcript import Transcript

__all__ = ["PARIS_QUESTION", "SYSTEM_PROMPT", "many_tools", "weather_policy"]

PARIS_QUESTION = "What's the weather in Paris?"

#: The system prompt of the lessons' Paris run (lesson 1's loop, lesson 5's bill, the figures
#: and the demo), so that "the same run" has the same token counts everywhere.
SYSTEM_PROMPT = "You are a helpful assistant."


def weather_policy(transcript: Transcript, tools: tuple[Tool, ...]) -> Reply:
    """Ask for the weather of every city in the question, then answer from the results.

    A model decides one thing per reply. Here: find the cities in the newest question
    (`_newest_question`, `_cities_in`); ask which city if there are none; call
    `get_weather` for each city not asked about yet (`_not_asked_yet`), or say it cannot
    when no such tool was offered; once every city has a result, answer from the latest
    result of each (`_answer_from`).

    >>> from toolcall_lab.tools import get_weather
    >>> question = Transcript(messages=[Message.user("Weather in Tokyo and Paris?")])
    >>> weather_policy(question, (get_weather,))
    [ToolCall('', 'get_weather', {'city': 'Tokyo'}), ToolCall('', 'get_weather', {'city': 'Paris'})]
    >>> weather_policy(question, tools=())
    'I have no way to look up the weather right now.'
    """
    question, since = _newest_question(transcript)
    cities = _cities_in(question)
    if not cities:
        return "Which city would you like the weather for?"
    missing = _not_asked_yet(cities, since)
    if missing and "get_weather" not in {t.name for t in tools}:
        return "I have no way to look up the weather right now."
    if missing:
        return [call("get_weather", city=city) for city in missing]
    return _answer_from(cities, since)


def _newest_question(transcript: Transcript) -> tuple[str, list[Message]]:
    """The text of the newest user message that is not tool results, and the messages after it.

    ("", []) when there is no such message: no question, so no city in it.
    """
    asked = [i for i, m in enumerate(transcript.messages) if m.role == "user" and not m.tool_results]
    if not asked:
        return "", []
    return transcript[asked[-1]].text, transcript.messages[asked[-1] + 1:]


def _cities_in(text: str) -> list[str]:
    """The known cities named in `text`, in the order they are named: "Tokyo or Paris?" -> Tokyo, Paris."""
    folded = text.casefold()
    found = [(folded.find(city.casefold()), city) for city in WEATHER]
    return [city for position, city in sorted(found) if position >= 0]


def _weather_calls(since: list[Message]) -> list[ToolCall]:
    return [c for m in since for c in m.tool_calls if c.name == "get_weather"]


def _city_of(weather_call: ToolCall) -> str:
    return str(weather_call.args.get("city", "")).casefold()


def _not_asked_yet(cities: list[str], since: list[Message]) -> list[str]:
    """The cities no `get_weather` call since the question has asked about (in any case)."""
    asked = {_city_of(c) for c in _weather_calls(since)}
    return [city for city in cities if city.casefold() not in asked]


def _answer_from(cities: list[str], since: list[Message]) -> str:
    """One sentence per city, from its latest result: "It's 18°C and sunny in Paris." or a failure."""
    latest = _latest_results(since)
    return " ".join(_sentence(city, latest.get(city.casefold())) for city in cities)


def _latest_results(since: list[Message]) -> dict[str, ToolResult]:
    """Each city asked about (casefolded) -> the result of its `get_weather` call."""
    calls = {c.id: c for c in _weather_calls(since)}
    return {_city_of(calls[r.call_id]): r   # a retried city: its last answer
            for m in since for r in m.tool_results if r.call_id in calls}


def _sentence(city: str, result: ToolResult | None) -> str:
    if result is None or result.is_error:
        return f"I couldn't get the weather for {city}."
    temperature, _, conditions = result.content.partition(", ")  # "18°C, sunny"
    return f"It's {temperature} and {conditions} in {city}."


#: `many_tools`' services, each with the things its tools work on: ten MCP-like servers.
_SERVICES = (("github", "GitHub", "issue"), ("jira", "Jira", "ticket"), ("slack", "Slack", "message"),
             ("gmail", "Gmail", "email"), ("calendar", "Calendar", "event"), ("drive", "Drive", "file"),
             ("notion", "Notion", "page"), ("linear", "Linear", "task"), ("postgres", "Postgres", "row"),
             ("zendesk", "Zendesk", "case"))

#: `many_tools`' actions, each with its description and its own parameters.
_ACTIONS: tuple[tuple[str, str, dict[str, dict[str, Any]]], ...] = (
    ("search", "Search the {thing}s of the connected {service} workspace by keyword and return "
               "the best matches, newest first, with their ids, titles and a short preview. Use "
               "this when the user describes what they want in words but gives no id.",
     {"query": {"type": "string", "description": "Words to look for in the {thing}'s title and text."},
      "limit": {"type": "integer", "minimum": 1, "maximum": 100,
                "description": "How many {thing}s to return at most (default 20)."}}),
    ("get", "Fetch one {thing} from {service} by its id, with every field, its history and the "
            "people who follow it. Use this after a search, once you know the id and need the "
            "whole {thing} rather than the short preview a search returns.",
     {"id": {"type": "string", "description": "The {thing}'s id, exactly as a search returned it."},
      "include_history": {"type": "boolean",
                          "description": "Also return every earlier version of the {thing}."}}),
    ("list", "List the {thing}s of the connected {service} workspace, page by page, in the order "
             "asked for. Use this to browse or to count {thing}s; to find one {thing} by the "
             "words in it, search instead, which is faster.",
     {"sort": {"type": "string", "enum": ["newest", "oldest", "updated"],
               "description": "The order of the {thing}s (default newest)."},
      "page": {"type": "integer", "minimum": 1, "description": "Which page of 50 {thing}s to return."}}),
    ("create", "Create a new {thing} in {service} and return its id and its address. This "
               "changes the workspace: other people see the new {thing} at once, so confirm "
               "its title and text with the user before you call it.",
     {"title": {"type": "string", "description": "A short title for the new {thing}."},
      "body": {"type": "string", "description": "The {thing}'s text, in Markdown."}}),
    ("update", "Change fields of an existing {thing} in {service} and return the {thing} as it "
               "now is. Only the fields given change; the others keep their values. Other people "
               "see the change at once, so confirm it with the user first.",
     {"id": {"type": "string", "description": "The id of the {thing} to change."},
      "changes": {"type": "object", "description": "The fields to change, by name, with new values."}}),
)

#: Parameters every tool of `many_tools` has, as most MCP servers' tools do.
_COMMON: dict[str, dict[str, Any]] = {
    "workspace": {"type": "string",
                  "description": "The {service} workspace to use, as its settings page names it; "
                                 "leave it out to use the workspace the server was started with."},
    "return_fields": {"type": "array", "items": {"type": "string"},
                      "description": "Which fields of each {thing} to return (default: all of "
                                     "them); naming fewer makes a shorter answer."},
    "timeout_s": {"type": "number", "minimum": 1, "maximum": 120,
                  "description": "Seconds to wait for {service} before giving up (default 30)."},
}


def _pretend(**args: Any) -> str:
    """Every example tool's function: nothing behind it, it only has to be offered."""
    return "This example tool is only offered, never run."


def many_tools(n: int = 50) -> list[Tool]:
    """`n` MCP-like tool definitions (at most 50), the same ones on every call, to price offering many.

    Ten services (GitHub, Jira, Slack, ...) with five tools each (search, get, list, create,
    update), named like an MCP server's (`github_search`), with a description of two or three
    sentences and a schema whose every property is described, as a well-written server has them.
    The first tools are every service's `search`, then every `get`, and so on. Their functions
    run nothing: the definitions are what is priced, and they are sent whether a tool runs or not.

    >>> tools = many_tools(12)
    >>> [t.name for t in tools[:3]], tools[10].name
    (['github_search', 'jira_search', 'slack_search'], 'github_get')
    >>> many_tools() == many_tools(50) and len(many_tools()) == 50
    True
    >>> many_tools(51)
    Traceback (most recent call last):
    ...
    toolcall_lab.errors.UsageError: many_tools(n) makes 1 to 50 tools, got 51
    """
    most = len(_SERVICES) * len(_ACTIONS)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= most:
        raise UsageError(f"many_tools(n) makes 1 to {most} tools, got {n!r}")
    tools = []
    for action, description, properties in _ACTIONS:
        for service, shown, thing in _SERVICES:
            names = {"service": shown, "thing": thing}
            schema = {"type": "object",
                      "properties": {name: {key: value.format(**names) if isinstance(value, str) else value
                                            for key, value in spec.items()}
                                     for name, spec in {**properties, **_COMMON}.items()},
                      "required": [next(iter(properties))]}
            tools.append(Tool(f"{service}_{action}", description.format(**names), schema, _pretend))
    return tools[:n]
