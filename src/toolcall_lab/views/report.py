"""Plain-text views of a conversation and its cost, for terminals, projectors and notebooks.

Each function returns a string (it never prints), laid out in fixed-width columns that
stay readable at large font sizes, with no colour carrying meaning. The output depends
only on the data, never on ids of messages, times or the machine, so a notebook that
prints it compares exactly under strict nbval.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, assert_never

from .._text import shorten, table
from ..blocks import Block, ReasoningBlock, ServerToolCall, ServerToolResult, TextBlock, ToolCall, ToolResult
from ..messages import Message
from ..tokens import loop_input_tokens
from ..transcript import Transcript

if TYPE_CHECKING:
    from ..loop import Run

__all__ = ["arguments_text", "calls_table", "hop_rows", "hop_table", "loop_table", "price_table",
           "producer_labels", "rules_table", "stop_table", "trace_table", "wire_json"]


def _describe(block: Block) -> tuple[str, str]:
    """(id, content) of one block for the trace table."""
    match block:
        case TextBlock(text=text):
            return "", text
        case ToolCall() if block.malformed:
            return block.id, f"{block.name} raw_args={block.raw_args!r}"
        case ToolCall(id=id_, name=name, args=args):
            return id_, f"{name} {json.dumps(dict(args), ensure_ascii=False)}"
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            return call_id, f"{'ERROR: ' if is_error else ''}{content}"
        case ReasoningBlock(text=text):
            return "", f"(reasoning) {text}"
        case ServerToolCall(id=id_, name=name, args=args):
            return id_, f"(ran by the provider) {name} {json.dumps(dict(args), ensure_ascii=False)}"
        case ServerToolResult(call_id=call_id, content=content, is_error=is_error):
            return call_id, f"(provider's result) {'ERROR: ' if is_error else ''}{content}"
        case _:
            assert_never(block)


def producer_labels(transcript: Transcript | Sequence[Message]) -> list[str]:
    """Who produced each message: "the user", "the model, call N" or "your code".

    >>> t = Transcript(messages=[Message.user("Hi?"), Message.assistant(ToolCall("toolu_01", "ping", {})),
    ...                          Message.results([ToolResult("toolu_01", "pong")])])
    >>> producer_labels(t)
    ['the user', 'the model, call 1', 'your code']
    """
    labels, calls = [], 0
    for message in transcript:
        if message.role == "assistant":
            calls += 1
            labels.append(f"the model, call {calls}")
        elif message.tool_results or message.synthetic:
            labels.append("your code")
        else:
            labels.append("the user")
    return labels


def trace_table(transcript: Transcript, *, width: int = 40, gap: int = 2) -> str:
    """Every block of every message: who sent it, its id, what it holds, who produced it.

    The id column shows the pairing: a tool result carries its call's id. `width` caps
    the content column; `gap` is the spaces between columns (1 fits the Paris trace in
    80 columns, for a terminal).

    >>> from toolcall_lab import Message, ToolCall, ToolResult, Transcript
    >>> t = Transcript(messages=[Message.user("Hi?"), Message.assistant(ToolCall("toolu_01", "ping", {})),
    ...                          Message.results([ToolResult("toolu_01", "pong")])])
    >>> print(trace_table(t))
    #  role       block        id        content  produced by
    -  ---------  -----------  --------  -------  -----------------
    1  user       text                   Hi?      the user
    2  assistant  tool_call    toolu_01  ping {}  the model, call 1
    3  user       tool_result  toolu_01  pong     your code
    """
    rows: list[list[str]] = []
    for number, (message, producer) in enumerate(zip(transcript, producer_labels(transcript), strict=True),
                                                 start=1):
        for position, block in enumerate(message.blocks):
            first = position == 0
            block_id, content = _describe(block)
            content = shorten(" ".join(content.split()), width)  # one line per block
            rows.append([str(number) if first else "", message.role if first else "",
                         block.kind, block_id, content, producer if first else ""])
    return table(["#", "role", "block", "id", "content", "produced by"], rows, right={0}, gap=gap)


def calls_table(run: Run) -> str:
    """One row per model call: messages sent, input and output tokens, input so far.

    Input grows on every call because every call re-sends the whole history.
    """
    total = run.usage
    rows, so_far = [], 0
    for step in run.steps:
        so_far += step.usage.input_tokens
        rows.append([str(step.index), str(step.messages_sent), f"{step.usage.input_tokens:,}",
                     f"{step.usage.output_tokens:,}", f"{so_far:,}", str(step.stop_reason)])
    rows.append(["total", "", f"{total.input_tokens:,}", f"{total.output_tokens:,}", "", ""])
    header = ["call", "messages sent", "input tokens", "output tokens", "input so far", "stop reason"]
    shown = table(header, rows, right={0, 1, 2, 3, 4})
    if total.estimated:
        shown += "\n(tokens estimated at about 4 characters per token)"
    return shown


def loop_table(n: int, h0: int, t: int) -> str:
    """The input billed on each call of an `n`-call loop of `h0` + steps of `t`, and the running total.

    >>> print(loop_table(3, 2000, 500))
    call  input tokens  running total
    ----  ------------  -------------
       1         2,000          2,000
       2         2,500          4,500
       3         3,000          7,500
    """
    rows, total = [], 0
    for call, tokens in enumerate(loop_input_tokens(n, h0, t), start=1):
        total += tokens
        rows.append([str(call), f"{tokens:,}", f"{total:,}"])
    return table(["call", "input tokens", "running total"], rows, right={0, 1, 2})


def wire_json(body: Mapping[str, Any], *, hide: Sequence[str] = ("tools",)) -> str:
    """A request or response body as indented JSON, with bulky top-level keys summarised.

    Tool definitions repeat in every request and drown the messages, so `tools` is
    hidden by default; pass `hide=()` to see everything.

    >>> print(wire_json({"model": "m", "tools": [{"name": "get_weather"}], "max_tokens": 64}))
    {
      "model": "m",
      "tools": "(1 item hidden)",
      "max_tokens": 64
    }
    """
    shown: dict[str, Any] = {}
    for key, value in body.items():
        if key in hide and isinstance(value, list | dict):
            count = len(value)
            shown[key] = f"({count} item{'' if count == 1 else 's'} hidden)"
        else:
            shown[key] = value
    return json.dumps(shown, ensure_ascii=False, indent=2)


def stop_table(*reasons: str) -> str:
    """How each API says a reply ended for each of `reasons` (the kit's stop reasons).

    One row per API, one column per reason: the word its response body carries, as the
    API double writes it and the API's codec reads it back (`ended_by`, in each
    `wire/<api>/_blocks.py`: a Responses body says `status/incomplete_details.reason`).

    >>> print(stop_table("end_turn", "max_tokens"))
    api        end_turn   max_tokens
    ---------  ---------  ----------------------------
    anthropic  end_turn   max_tokens
    responses  completed  incomplete/max_output_tokens
    chat       stop       length
    ollama     stop       length
    """
    from ..turn import StopReason, Turn
    from ..usage import Usage
    from ..wire import API_SPECS

    rows: list[list[str]] = []
    for api, spec in API_SPECS.items():
        codec: Any = spec.codec  # subtle: `ended_by` is the API's own name, not the `Codec` protocol's
        row: list[str] = [api]
        for reason in reasons:
            turn = Turn(Message.assistant("It's 18°C and sunny in Pa"), StopReason(reason), Usage(), "m")
            row.append(codec.ended_by(spec.server.encode_response(turn, response_id="resp_1")))
        rows.append(row)
    return table(["api", *reasons], rows, right=set())


# -- the dated model table ---------------------------------------------------------------
def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def price_table() -> str:
    """Every row of `models.PRICES`, tiers included, with its evidence and a numbered source.

    >>> print(price_table().splitlines()[0])
    prices checked 2026-11-30, US dollars per million tokens (MTok), standard tier
    """
    from ..models import PRICES, PRICES_CHECKED

    rows: list[list[str]] = []
    sources: list[str] = []
    for price in PRICES.values():
        sources.append(price.source)
        note = f"{price.label} [{len(sources)}]"
        tiers = [(price.model, price)]
        if price.long_context is not None and price.long_context_above is not None:
            tiers.append((f"  prompt > {price.long_context_above:,}", price.long_context))
        for name, tier in tiers:
            rows.append([name, _money(tier.input), _money(tier.cache_write), _money(tier.cache_write_1h),
                         _money(tier.cache_read), _money(tier.output), note])
            note = ""
    header = ["model", "input", "write 5m", "write 1h", "read", "output", "evidence"]
    lines = [f"prices checked {PRICES_CHECKED}, US dollars per million tokens (MTok), standard tier",
             "(OpenAI's cache writes last 30 minutes; '-' means no such price)", "",
             table(header, rows, right={1, 2, 3, 4, 5}), ""]
    lines += [f"[{number}] {source}" for number, source in enumerate(sources, start=1)]
    return "\n".join(lines)


def _top_level(sources: str) -> list[str]:
    """`sources` split at each "; " outside brackets.

    >>> _top_level("a (b; c); d")
    ['a (b; c)', 'd']
    """
    parts, depth, start = [], 0, 0
    for at, char in enumerate(sources):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and sources.startswith("; ", at):
            parts.append(sources[start:at])
            start = at + 2
    return [*parts, sources[start:]]


def rules_table(model: str) -> str:
    """What `model` accepts in a request, from `models.RULES`, with the row's source and date.

    >>> print(rules_table("claude-haiku-4-5").splitlines()[1])
      thinking:          enabled (with budget_tokens), disabled
    """
    from ..models import rules_of

    rules = rules_of(model)
    if not rules.known:
        return f"{model}: not in the kit's table, so no rule is checked for it"
    sampling = {"any": "temperature, top_p, top_k as you like",
                "one": "temperature or top_p, not both",
                "default": "left at their defaults (a non-default value is refused)"}[rules.sampling]
    lines = [f"{model} (checked {rules.checked}, {rules.label}):"]
    if rules.provider == "anthropic":
        modes = {"adaptive": "adaptive", "enabled": "enabled (with budget_tokens)",
                 "disabled": "disabled", "between_tools": "between_tools"}
        accepted = [modes[m] for m in modes if rules.thinking is None or m in rules.thinking]
        lines += [f"  thinking:          {', '.join(accepted)}"]
        if rules.efforts:
            lines += [f"  effort:            {', '.join(rules.efforts)}"]
        forced = "never" if rules.forced_tools == "never" else "only with thinking off"
        lines += [f"  sampling:          {sampling}",
                  f"  assistant prefill: {'accepted' if rules.prefill else 'refused'}",
                  f"  forced tool use:   {forced}"]
        if rules.keeps_thinking is not None:
            kept = "kept, billed as input" if rules.keeps_thinking else "stripped, not billed"
            lines += [f"  earlier thinking:  {kept}"]
        if rules.thinking_bound:
            lines += ["  thinking bound:    to its prefix (an edit before it: 400 or dropped)"]
    elif rules.reasons is not None:
        lines += [f"  reasoning effort:  {'accepted (a reasoning model)' if rules.reasons else 'refused'}"]
        if rules.chat_tools_effort:
            lines += [f"  tools on Chat:     only with reasoning_effort '{rules.chat_tools_effort}'"]
    if rules.min_cache_tokens:
        lines += [f"  caching:           nothing below {rules.min_cache_tokens:,} prompt tokens"]
    lines += ["  sources:"]  # one a line, wrapped to 80 characters (a projector cuts longer lines)
    for source in _top_level(rules.source):
        lines += textwrap.wrap(source, width=80, initial_indent="    ", subsequent_indent="      ",
                               break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)


def arguments_text(args: Mapping[str, Any] | None) -> str:
    """A call's arguments in few characters, strings bare, other values as JSON: city=Paris, days=3.

    >>> arguments_text({"city": "Paris", "days": 3})
    'city=Paris, days=3'
    """
    return ", ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                     for k, v in (args or {}).items())


def _compact(name: object, args: Any) -> str:
    """get_weather(city=Paris): a call in few characters (`arguments_text`)."""
    return f"{name}({arguments_text(args)})"


def hop_table(run: Run, *, produced_by: bool = False, width: int = 23) -> str:
    """A run whose tools were on an MCP server, message by message across both connections.

    The transcript's messages (the "model" rows, one per block as in `trace_table`) and the
    JSON-RPC messages your code exchanged with the server (the "MCP" rows: each request,
    named by its method, with the connection's `id`, then its reply), in the order they were
    sent: the connection's first hops come first, and each `tools/call` just before the tool
    result your code wrote from its reply. `produced_by=True` adds who produced each row
    (80 characters wide with the default `width` of the content column). A run with no hops
    (not an `McpRun`) is its transcript's rows alone.
    """
    rows = hop_rows(run, width=width)
    header = ["#", "on", "message", "id", "content"]
    if not produced_by:
        rows = [row[:-1] for row in rows]
    return table([*header, "produced by"] if produced_by else header, rows, right={0})


def hop_rows(run: Run, *, width: int = 23) -> list[list[str]]:
    """The rows of `hop_table` as data: number, on, message, id, content (cut to `width`), and
    who produced it ("your code", "the MCP server", the model's and your code's labels)."""
    served = list(getattr(run, "hops", None) or [])
    by_call = {hop.call_id: hop for hop in served if hop.call_id is not None}
    rows: list[list[str]] = []

    def add(channel: str, kind: str, ident: object, content: str, producer: str) -> None:
        rows.append([str(len(rows) + 1), channel, kind, "" if ident is None else str(ident),
                     shorten(" ".join(content.split()), width), producer])

    def add_hop(hop: Any) -> None:
        params = hop.request.body.get("params") or {}
        asked = hop.asked.removeprefix(hop.request.method or "").strip()
        if hop.request.method == "tools/call":
            asked = _compact(params.get("name"), params.get("arguments"))
        add("MCP", hop.request.method or hop.request.kind, hop.request.id, asked, "your code")
        if hop.reply is not None:
            add("MCP", hop.reply.kind, hop.reply.id, hop.answered, "the MCP server")

    for hop in served:
        if hop.call_id is None:
            add_hop(hop)
    transcript = run.transcript
    for message, producer in zip(transcript, producer_labels(transcript), strict=True):
        for block in message.blocks:
            hop = by_call.get(block.call_id) if isinstance(block, ToolResult) else None
            if hop is not None:
                add_hop(hop)
            block_id, content = _describe(block)
            if isinstance(block, ToolCall) and not block.malformed:
                content = _compact(block.name, block.args)
            add("model", block.kind, block_id, content, producer)
    return rows
