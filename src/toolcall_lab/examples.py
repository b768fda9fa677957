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

from .blocks import ToolCall, ToolResult
from .messages import Message
from .providers.scripted import Reply, call
from .tool import Tool
from .tools.weather import WEATHER
from .transcript import Transcript

__all__ = ["PARIS_QUESTION", "SYSTEM_PROMPT", "weather_policy"]

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
