"""A tool result that is not text: what `execute` sends the model for it (issue 31, lesson 2 §4).

`json.dumps(value, default=str)` turns a date into readable text, but a plain object into its
default repr, `<Room object at 0x7f...>`: nothing the model can read, and an address that
changes every run (so it also breaks a byte-identical prefix). `execute` answers that with an
error result the model, and the tool's author, can act on.
"""

import dataclasses
import datetime
import re

import pytest

from toolcall_lab import ScriptedProvider, ToolCall, ToolResult, call, run_agent, tool
from toolcall_lab.tool import execute, tool_map

WHEN = datetime.datetime(2026, 12, 7, 15, 0)


@dataclasses.dataclass
class Booking:
    guest: str
    when: datetime.datetime


class Room:  # no __repr__, no __str__: its text is the default <Room object at 0x...>
    def __init__(self, number: int) -> None:
        self.number = number


def _give(value: object):
    @tool
    def give() -> object:
        """Return the value."""
        return value

    return execute(ToolCall("toolu_01", "give", {}), tool_map([give]))


@pytest.mark.parametrize("value", [Room(12), [Room(12)], {"room": Room(12)},
                                   Booking("Ada", Room(12))],  # type: ignore[arg-type]
                         ids=["object", "in-a-list", "in-a-dict", "in-a-dataclass"])
def test_a_default_object_repr_is_an_error_result_naming_the_type(value):
    result = _give(value)
    assert result.is_error, result.content
    assert result.content.startswith("give returned an object the model cannot read (a Room")
    assert "return text or a dict (dataclasses.asdict of a dataclass)" in result.content
    assert not re.search(r"0x[0-9a-fA-F]", result.content)  # no address: the same text every run


def test_readable_values_pass_as_before():
    assert _give(WHEN) == ToolResult("toolu_01", '"2026-12-07 15:00:00"')
    booking = _give(Booking("Ada", WHEN))
    assert not booking.is_error and "Ada" in booking.content
    assert _give({"guest": "Ada", "when": WHEN}).content == '{"guest": "Ada", "when": "2026-12-07 15:00:00"}'
    # a str is the author's own text, sent as it is, even one that quotes a repr
    assert _give("saw <Room object at 0x1f> in the log").content == "saw <Room object at 0x1f> in the log"


def test_the_loop_goes_on_and_the_model_reads_the_error():
    @tool
    def find_room() -> object:
        """Find a free room."""
        return Room(12)

    run = run_agent(ScriptedProvider([call("find_room"), "Sorry, I could not read the room."]),
                    "Find a room", tools=[find_room])
    sent = run.transcript.tool_results()[0]
    assert sent.is_error and "cannot read" in sent.content
    assert run.answer == "Sorry, I could not read the room."
