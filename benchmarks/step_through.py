"""How long a Next click takes in `step_through`, on the lesson's 4-message run and a 100-message one.

    python benchmarks/step_through.py [--clicks N]

The diagram is drawn once per widget; a click crops a window around the message and boxes
it, so a click should cost about the same on a long run as on a short one. Goal: the click
on a 100-message run within 2x the click on the 4-message run. Prints the build time, the
median first-visit click time for each, and their ratio; never asserts a timing.
"""

from __future__ import annotations

import argparse
import statistics
import time

from toolcall_lab import ScriptedProvider, call, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather
from toolcall_lab.views.widgets import step_through


def measure(run, clicks: int) -> tuple[float, float]:
    """(seconds to build the widget, median seconds of a first-visit Next click)."""
    start = time.perf_counter()
    widget = step_through(run, tools=[get_weather])
    built = time.perf_counter() - start
    times = []
    for _ in range(min(clicks, len(run.transcript) - 1)):
        start = time.perf_counter()
        widget.next_button.click()
        times.append(time.perf_counter() - start)
    return built, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=20)
    clicks = parser.parse_args().clicks
    short = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    script = [call("get_weather", city="Paris")] * 49 + ["It's 18°C and sunny in Paris."]
    long = run_agent(ScriptedProvider(script), PARIS_QUESTION, tools=[get_weather], max_steps=60)
    measure(short, 1)  # warm up: matplotlib's first import and font cache
    rows = {}
    for name, run in (("4 messages", short), (f"{len(long.transcript)} messages", long)):
        rows[name] = measure(run, clicks)
        print(f"{name:>13}: build {rows[name][0] * 1000:7.1f} ms, Next click (median) "
              f"{rows[name][1] * 1000:6.1f} ms")
    (_, small), (_, large) = rows.values()
    print(f"ratio of a click, long run / lesson run: {large / small:.2f} (goal <= 2)")


if __name__ == "__main__":
    main()
