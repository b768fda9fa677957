"""Lesson 22's wrong answers: the predictions' and questions' plausible slips, a retry after a
cut counted as if the cut turn had added something, and a cancelled call answered wrongly."""

from __future__ import annotations

from checkrows import Row
from toolcall_lab import Message, ToolCall, ToolResult, Transcript
from toolcall_lab.checks import when_a_stream_breaks as key
from toolcall_lab.errors import IncompleteStreamError

ONE_QUESTION = Transcript(messages=[Message.user("What's the weather in Paris?")])
SIGNED = [{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hm"}},
          {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "s"}}]


class StagedDouble:
    """What the lesson's double does for the exercise: the next turn cut, once, when asked."""

    def __init__(self) -> None:
        self.cut_next = False

    def fail_next(self, kind: str, *, after: int) -> None:
        self.cut_next = kind == "cut"


DOUBLE = StagedDouble()


WHOLE = [{"type": "message_start"}, {"type": "content_block_start"}, {"type": "content_block_stop"},
         {"type": "message_delta"}, {"type": "message_stop"}]


def take_turn(transcript):
    """A stand-in for the page's take_turn: the events of a whole turn, or of one cut, as told."""
    arrived, DOUBLE.cut_next = (WHOLE[:3] if DOUBLE.cut_next else WHOLE), False
    return arrived


def finish(transcript, arrived):
    """A stand-in for the page's finish: a cut raises; a whole turn adds the reply and its result."""
    if arrived[-1]["type"] != "message_stop":
        raise IncompleteStreamError("the stream ended after 3 events, before message_stop", events=3)
    asked = ToolCall("toolu_01", "get_weather", {"city": "Paris"})
    transcript.append(Message.assistant(asked))
    transcript.append(Message.results([ToolResult(asked.id, "18°C, sunny")]))


#: Section 4's run, stopped after Paris was answered: Tokyo's call is open.
PAIR = [ToolCall("toolu_01", "get_weather", {"city": "Paris"}),
        ToolCall("toolu_02", "get_weather", {"city": "Tokyo"})]
STOPPED = Transcript(messages=[Message.user("Weather in Paris and Tokyo?"), Message.assistant(*PAIR),
                               Message.results([ToolResult("toolu_01", "18°C, sunny")])])
KITS = "Cancelled: get_weather did not run (the run was cancelled). Tell the user it was not done; " \
       "call it again only if they ask."

ROWS = [
    Row("22 predict_cut", key.predict_cut, (ONE_QUESTION,), lambda: 1,
        (lambda: 2, lambda: 3, lambda: "1", lambda: 0)),
    Row("22 predict_signatures", key.predict_signatures, (SIGNED,), lambda: 1,
        (lambda: 0, lambda: 11, lambda: "1", lambda: 2)),
    Row("22 q1", key.q1, (), lambda: "no", (lambda: "yes", lambda: "no!", lambda: False, lambda: "maybe")),
    Row("22 exercise_1", key.exercise_1, (take_turn, finish, DOUBLE),
        lambda: (3, 1),
        (lambda: (5, 2),   # the cut turn counted as a whole one
         lambda: (3, 2),   # the cut call counted as run
         lambda: (1, 0),   # the cut taken to spoil the transcript for good
         lambda: [3, 1],   # the right values, not a pair
         lambda: "(3, 1)", lambda: 3)),
    Row("22 predict_refusing", key.predict_refusing, ({"anthropic", "responses", "chat"},),
        lambda: {"anthropic", "responses", "chat"},
        (lambda: {"anthropic", "responses", "chat", "ollama"},  # the "every API"
         lambda: {"anthropic"},                                  # only the strictest
         lambda: {"anthropic", "openai", "openai-chat"},         # the providers' names
         lambda: "anthropic, responses, chat",                   # one string
         lambda: set())),
    Row("22 cancelled", key.cancelled_result, (STOPPED,),
        lambda: ToolResult("toolu_02", "Cancelled: Tokyo was not looked up.", is_error=True),
        (lambda: ToolResult("TOOLU_02", "Cancelled: Tokyo was not looked up.", is_error=True),
         lambda: ToolResult("toolu_02", "Cancelled: Tokyo was not looked up."),      # not an error
         lambda: "toolu_02 was cancelled",                                        # text, no result
         lambda: ToolResult("toolu_01", "Cancelled: Paris was not looked up.", is_error=True),
         lambda: ToolResult("toolu_02", "", is_error=True),
         lambda: ToolResult("toolu_02", "The user rejected this tool call.", is_error=True),
         lambda: ToolResult("toolu_02", KITS, is_error=True))),                   # the kit's, copied
]
