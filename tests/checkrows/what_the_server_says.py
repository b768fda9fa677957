"""Lesson 24's wrong answers: allow-lists and renamed tool lists that each get one thing wrong.

The data are the lesson's own, made here through the real `mcp` client and server, in this
process: two servers that both list get_weather.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from checkrows import Row
from toolcall_lab.checks import what_the_server_says as key
from toolcall_lab.checks.tools_from_another_process import to_kit_tool
from toolcall_lab.checks.what_the_server_says import offer
from toolcall_lab.mcp_tools import connect, screen
from toolcall_lab.mcp_tools.servers import weather_server

HOME = connect(weather_server())
SECOND = connect(weather_server("weather-eu"))


# -- allow-lists, wrong one way each -------------------------------------------------------------
def names_only(tools, allowed):
    return [t for t in tools if t.name in allowed]


def starts_with_the_words(tools, allowed):
    return [t for t in tools if t.name in allowed and t.description.startswith(allowed[t.name])]


def any_case(tools, allowed):
    return [t for t in tools if t.name in allowed and t.description.lower() == allowed[t.name].lower()]


def words_anywhere(tools, allowed):
    return [t for t in tools if t.name in allowed and allowed[t.name][:29] in t.description]


def names_not_tools(tools, allowed):
    return [t.name for t in tools if t.name in allowed and t.description == allowed[t.name]]


def the_kits_screen(tools, allowed):
    return screen(tools, allowed)[0]


def renamed(prefix, connection, using=None):
    return [replace(t, name=f"{prefix}_{t.name}") for t in (using or connection).tools]


def asks_by_the_new_name(prefix, connection):
    """Renamed before the adapter: its function asks the server for a name the server never listed."""
    return [to_kit_tool(t.model_copy(update={"name": f"{prefix}_{t.name}"}), connection)
            for t in connection.server_tools]


def blanked(prefix, connection):
    """Renamed, and the server's words dropped: the model is told nothing of what the tool does."""
    return [replace(t, name=f"{prefix}_{t.name}", description="") for t in connection.tools]


ROWS = [
    Row("24 offer", key.your_allow_list, (), lambda: offer,
        (lambda: "offer", lambda: names_only, lambda: starts_with_the_words, lambda: any_case,
         lambda: words_anywhere, lambda: names_not_tools, lambda: the_kits_screen)),
    Row("24 q1", key.q1, (), lambda: False, (lambda: True, lambda: "False", lambda: 0, lambda: None)),
    Row("24 exercise_1", key.exercise_1, (HOME, SECOND),
        lambda: renamed("home", HOME) + renamed("second", SECOND),
        (lambda: [*HOME.tools, *SECOND.tools],
         lambda: list(HOME.tools),
         lambda: renamed("home", HOME) + renamed("second", HOME),
         lambda: renamed("home", HOME) + renamed("home", SECOND),
         lambda: ["home_get_weather", "second_get_weather"],
         lambda: asks_by_the_new_name("home", HOME) + asks_by_the_new_name("second", SECOND),
         lambda: blanked("home", HOME) + blanked("second", SECOND),
         lambda: renamed("home", HOME) + blanked("second", SECOND))),
    Row("24 server_log", key.server_log, (), lambda: sys.stderr,
        (lambda: sys.stdout,        # where print() goes by default
         lambda: "stderr",          # the stream's name, as text
         lambda: sys.__stdout__,    # stdout as the process started
         lambda: None,              # logs switched off
         lambda: sys.stdin)),
    Row("24 predict_print", key.predict_print, ("answered",), lambda: "answered",
        (lambda: "error",           # the stray line taken to reach the client
         lambda: "no answer",       # the reply taken to be lost
         lambda: "answered, with a warning",
         lambda: True)),
]
