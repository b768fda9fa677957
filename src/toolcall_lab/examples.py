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

from .messages import ToolCall, Transcript
from .providers.scripted import Reply, call
from .tool import Tool
from .tools.weather import WEATHER

__all__ = ["PARIS_QUESTION", "SYSTEM_PROMPT", "weather_policy"]

PARIS_QUESTION = "What's the weather in Paris?"

#: The system prompt of the lessons' Paris run (lesson 1's loop, lesson 3's bill, the figures
#: and the demo), so that "the same run" has the same token counts everywhere.
SYSTEM_PROMPT = "You are a helpful assistant."


def _cities_in(text: str) -> list[str]:
    folded = text.casefold()
    found = [(folded.find(city.casefold()), city) for city in WEATHER]
    return [city for position, city in sorted(found) if position >= 0]


def weather_policy(transcript: Transcript, tools: tuple[Tool, ...]) -> Reply:
    """Ask for the weather of every city in the question, then answer from the results."""
    start = max((i for i, m in enumerate(transcript.messages) if m.role == "user" and not m.tool_results),
                default=None)
    cities = _cities_in(transcript[start].text) if start is not None else []
    if start is None or not cities:
        return "Which city would you like the weather for?"
    since = transcript.messages[start + 1:]
    asked = {str(c.args.get("city", "")).casefold() for m in since for c in m.tool_calls
             if c.name == "get_weather"}
    missing = [city for city in cities if city.casefold() not in asked]
    if missing:
        if "get_weather" not in {t.name for t in tools}:
            return "I have no way to look up the weather right now."
        return [call("get_weather", city=city) for city in missing]

    calls: dict[str, ToolCall] = {c.id: c for m in since for c in m.tool_calls if c.name == "get_weather"}
    latest = {str(calls[r.call_id].args.get("city", "")).casefold(): r   # a retried city: its last answer
              for m in since for r in m.tool_results if r.call_id in calls}
    sentences = []
    for city in cities:
        result = latest.get(city.casefold())
        if result is None or result.is_error:
            sentences.append(f"I couldn't get the weather for {city}.")
        else:
            temperature, _, conditions = result.content.partition(", ")
            sentences.append(f"It's {temperature} and {conditions} in {city}.")
    return " ".join(sentences)
