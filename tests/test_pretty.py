"""Long reprs break between fields in a notebook; repr() itself stays on one line."""

from toolcall_lab import ScriptedProvider, run_agent
from toolcall_lab.examples import PARIS_QUESTION, weather_policy
from toolcall_lab.tools import get_weather


class Printer:
    """The one method of IPython's pretty printer that `_repr_pretty_` uses."""

    def __init__(self):
        self.out = ""

    def text(self, value):
        self.out += value


def shown(obj) -> str:
    printer = Printer()
    obj._repr_pretty_(printer, False)
    return printer.out


def test_a_long_turn_breaks_between_fields():
    run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    turn = run.steps[0].turn
    assert "\n" not in repr(turn)
    assert shown(turn).splitlines() == [
        "Turn(Message.assistant(ToolCall('toolu_01', 'get_weather', {'city': 'Paris'})),",
        "     stop_reason=StopReason.TOOL_USE,",
        "     usage=Usage(input_tokens=104, output_tokens=21, estimated=True),",
        "     model='scripted-1')",
    ]
    assert shown(turn).replace(",\n     ", ", ") == repr(turn)


def test_a_long_run_breaks_between_fields_and_lines_fit():
    run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    lines = shown(run).splitlines()
    assert lines[0] == "Run(2 calls,"
    assert all(len(line) <= 79 for line in lines)
