"""`get_weather`: the lessons' first tool, answered from a fixed table so it runs offline.

The table stands in for a weather service. A city it does not know makes the tool raise,
which the loop turns into an error result the model can read: a small, honest failure
to learn from.
"""

from __future__ import annotations

from ..tool import tool

__all__ = ["WEATHER", "get_weather"]

#: The offline "weather service": city -> current conditions.
WEATHER: dict[str, str] = {
    "Paris": "18°C, sunny",
    "London": "14°C, light rain",
    "Tokyo": "22°C, cloudy",
    "New York": "20°C, clear",
    "Cairo": "31°C, sunny",
    "Sydney": "16°C, windy",
}


@tool
def get_weather(city: str) -> str:
    """Current weather for one city. Use it for any question about today's weather.

    Args:
        city: the city's name in English, e.g. "Paris"
    """
    for known, conditions in WEATHER.items():
        if known.casefold() == city.strip().casefold():
            return conditions
    raise ValueError(f"no weather data for {city!r}; this offline table knows "
                     f"{', '.join(WEATHER)}")
