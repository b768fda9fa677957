"""The cost figures: the quadratic loop, what caching saves, and estimated vs billed tokens.

Every `plot_...` function returns a matplotlib `Figure` and never calls `savefig` or
`show`: a notebook displays the figure it gets back, and `toolcall_lab.teacher.figures` saves
the committed PNGs. matplotlib is imported inside the functions, so importing this
module costs nothing.

Each figure displays as a picture, with its text alternative as `text/plain`: it is made
by `new_figure`, whose `DescribedFigure` knows how to show itself (`_figure.py`, which
also holds `figure_style` and `to_png`).

Made for a projector and for every reader: 1280x720 pixels, DejaVu Sans at 16 pt and up,
the Okabe-Ito colour-blind-safe palette (`palette.OKABE_ITO`), and never colour alone:
every series also has its own hatch, marker or line style, and a label written on the plot.

Text alternatives: each figure has a `describe_...` function next to it that says in
words, with the same numbers, what the figure shows (the figures registry stores it,
writes it into the PNG's Description field and into figures/README.md).

Left out: interactivity (the cost explorer widget redraws these figures as its sliders
move) and saving files (`figures` does that).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

from ..errors import UsageError
from ..models import PRICES_CHECKED, default_model, tool_prompt_tokens
from ..tokens import blocks_text, estimate_tokens, loop_input_tokens, request_text
from ..transcript import Transcript
from ._figure import figure_style, new_figure
from .cost import dollars, loop_bill
from .palette import OKABE_ITO

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure

    from ..loop import Run
    from ..models import Price
    from ..tool import Tool

__all__ = [
    "CallTokens", "Upload", "describe_caching", "describe_estimated_vs_billed", "describe_loop_tokens",
    "describe_upload_vs_bill", "estimated_vs_billed", "plot_caching", "plot_estimated_vs_billed",
    "plot_loop_tokens", "plot_upload_vs_bill",
]


def _subplots(ncols: int = 1, *, description: str) -> tuple[Figure, list[Axes]]:
    fig = new_figure(description, layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, list(axes)


def _thousands(axis: Axis) -> None:
    from matplotlib.ticker import StrMethodFormatter

    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


# -- the quadratic loop ------------------------------------------------------------------
def describe_loop_tokens(n: int = 10, h0: int = 2000, t: int = 500) -> str:
    """The loop-tokens figure in words (its text alternative).

    >>> print(describe_loop_tokens())  # doctest: +ELLIPSIS
    Input tokens billed by a 10-call loop that starts at 2,000 tokens and adds 500 per step. ...
    >>> "x)" in describe_loop_tokens(1) or "x)" in describe_loop_tokens(2, 2000, 5000)
    False
    """
    sent = loop_input_tokens(n, h0, t)
    total, final = sum(sent), h0 + t * n
    start = (f"Input tokens billed by a {n}-call loop that starts at {h0:,} tokens and adds {t:,} "
             "per step.")
    if n == 1:
        # subtle: one call re-sends nothing, and its own step comes after it, so the bill is
        # below the final size; a ratio under 1 would read as a discount, so none is given.
        return (f"{start} Left: a single bar of {total:,} tokens for call 1. Right: the total, "
                f"{total:,}, below the dashed line at {final:,} (the conversation after the step): "
                "with one call nothing is re-sent yet; re-sending starts at call 2.")
    rises = "curves upward" if t > 0 and n > 2 else "rises"
    where = ("far above" if total >= 2 * final else "above" if total > final else "not above")
    ratio = f" ({total / final:.1f}x)" if total >= final else ""
    return (f"{start} Left: one bar per call, growing by {t:,} each time, from {sent[0]:,} on call 1 "
            f"to {sent[-1]:,} on call {n}. Right: the running total {rises} to {total:,}, "
            f"{where} the dashed line at {final:,}, the final conversation billed once: "
            f"{total:,} billed for a {final:,}-token conversation{ratio}.")


def plot_loop_tokens(n: int = 10, h0: int = 2000, t: int = 500) -> Figure:
    """Why a loop's bill grows with the square of its length, for `n` calls of `h0` + steps of `t`.

    Left panel: the input tokens billed on each call, one hatched bar per call, labelled;
    every call re-sends the whole history, so the bars climb by `t` each call. Right
    panel: the running total (a line with markers) curving upward, against a dashed
    horizontal line at the final size of the conversation (h0 + t*n), which is what you
    would pay if it were billed once. The annotation says how far apart they end:
    for 10, 2,000, 500, "42,500 billed for a 7,000-token conversation".

    >>> fig = plot_loop_tokens()
    >>> [ax.get_title() for ax in fig.axes]
    ['Input tokens billed on each call', 'Running total vs the final conversation']
    """
    if n < 1:
        raise UsageError(f"plot_loop_tokens needs at least one call, got n={n}")
    sent = loop_input_tokens(n, h0, t)
    running = [sum(sent[: i + 1]) for i in range(n)]
    final = h0 + t * n
    calls = list(range(1, n + 1))
    with figure_style():
        fig, (bars_ax, total_ax) = _subplots(2, description=describe_loop_tokens(n, h0, t))
        bars = bars_ax.bar(calls, sent, color=OKABE_ITO["sky blue"], edgecolor=OKABE_ITO["black"],
                           hatch="//", label="input tokens of this call")
        bars_ax.bar_label(bars, labels=[f"{v:,}" for v in sent] if n <= 12 else None,
                          fontsize=14, padding=3, rotation=90 if n > 6 else 0)
        bars_ax.set(title="Input tokens billed on each call", xlabel="call", ylabel="input tokens")
        bars_ax.set_ylim(0, max(sent) * 1.25)

        total_ax.plot(calls, running, color=OKABE_ITO["vermillion"], marker="o",
                      label="running total billed")
        total_ax.axhline(final, color=OKABE_ITO["black"], linestyle="--", linewidth=2.5,
                         label="final conversation, billed once")
        total_ax.set(title="Running total vs the final conversation", xlabel="call",
                     ylabel="input tokens, cumulative")
        total_ax.set_ylim(0, running[-1] * 1.3)
        total_ax.annotate(f"{running[-1]:,} billed for a\n{final:,}-token conversation",
                          xy=(n, running[-1]), xytext=(0.04, 0.93), textcoords="axes fraction",
                          va="top", fontsize=17, fontweight="bold",
                          arrowprops={"arrowstyle": "->", "color": OKABE_ITO["black"], "lw": 2})
        total_ax.text(n, final, f"final size {final:,}", va="bottom", ha="right", fontsize=15)
        total_ax.legend(loc="center left", frameon=False)
        for ax in (bars_ax, total_ax):
            ax.set_xticks(calls if n <= 12 else ax.get_xticks())
            _thousands(ax.yaxis)
        fig.suptitle(f"{n} calls, {h0:,} tokens to start, {t:,} more per step: "
                     "every call re-sends the whole history")
    return fig


# -- caching -----------------------------------------------------------------------------
def describe_caching(n: int = 10, h0: int = 2000, t: int = 500, *, model: str | Price | None = None,
                     output_per_call: int = 0) -> str:
    """The caching figure in words (its text alternative)."""
    model = model or default_model("anthropic")
    plain = loop_bill(n, h0, t, model=model, output_per_call=output_per_call)
    cached = loop_bill(n, h0, t, model=model, caching=True, output_per_call=output_per_call)
    change = 1 - cached.total_dollars / plain.total_dollars if plain.total_dollars else 0.0
    compared = (f"{change:.0%} less" if change > 0.005 else f"{-change:.0%} more" if change < -0.005
                else "about the same")
    first = cached.dollars[0] - plain.dollars[0]
    call_1 = ("Call 1 costs more with caching (the write is dearer than plain input)" if first > 0
              else "Call 1 costs the same with caching (this model charges nothing extra to write)")
    later = ("; every later call costs less, because it reads the earlier history at the cache-read "
             "price." if n > 1 else ", and a single call never reads the cache back.")
    return (f"Cumulative dollars of a {n}-call loop ({h0:,} tokens to start, {t:,} per step) on "
            f"{plain.model} at list prices as of {PRICES_CHECKED}. Without caching (circles, solid "
            f"line) the total reaches {dollars(plain.total_dollars)}; with the history cached "
            f"(squares, dashed line) it reaches {dollars(cached.total_dollars)}, {compared}. "
            f"{call_1}{later}")


def plot_caching(n: int = 10, h0: int = 2000, t: int = 500, *, model: str | Price | None = None,
                 output_per_call: int = 0) -> Figure:
    """Cumulative dollars of the loop with and without prompt caching, on `model`.

    Two lines over the calls: without caching (solid, circles) and with the history
    cached (dashed, squares), each labelled at its end with its total. With caching the
    first call costs a little more (a cache write is 1.25x input on Anthropic) and every
    later call much less (a read is 0.1x), so the lines cross after call 1 and the gap
    widens. `model` defaults to the kit's Anthropic model (`models.default_model`); the
    prices come from `models.PRICES`. See `cost.loop_bill` for the simplifications.

    >>> fig = plot_caching()
    >>> sorted(text.get_text() for text in fig.axes[0].get_legend().get_texts())
    ['no caching', 'prompt caching']
    """
    if n < 1:
        raise UsageError(f"plot_caching needs at least one call, got n={n}")
    model = model or default_model("anthropic")
    plain = loop_bill(n, h0, t, model=model, output_per_call=output_per_call)
    cached = loop_bill(n, h0, t, model=model, caching=True, output_per_call=output_per_call)
    calls = list(range(1, n + 1))
    with figure_style():
        from matplotlib.ticker import FuncFormatter

        fig, (ax,) = _subplots(description=describe_caching(
            n, h0, t, model=model, output_per_call=output_per_call))
        ax.plot(calls, plain.cumulative_dollars, color=OKABE_ITO["vermillion"], marker="o",
                linestyle="-", label="no caching")
        ax.plot(calls, cached.cumulative_dollars, color=OKABE_ITO["blue"], marker="s",
                linestyle="--", label="prompt caching")
        saved = 1 - cached.total_dollars / plain.total_dollars if plain.total_dollars else 0.0
        for bill, name, offset in ((plain, "no caching", 6), (cached, f"caching ({saved:.0%} less)", -6)):
            ax.annotate(f"{name}:\n{dollars(bill.total_dollars)}", xy=(n, bill.total_dollars),
                        xytext=(12, offset), textcoords="offset points", va="center",
                        fontsize=16, fontweight="bold")
        ax.set_xlim(0.5, n + n * 0.35)  # room for the direct labels at the right
        ax.set_ylim(0, plain.total_dollars * 1.1)
        ax.set_xticks(calls if n <= 20 else ax.get_xticks())
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: dollars(value)))
        ax.set(xlabel="call", ylabel="dollars so far (input + output)",
               title=f"{plain.model}, list prices as of {PRICES_CHECKED}")
        ax.legend(loc="upper left", frameon=False)
        fig.suptitle(f"Caching the history of a {n}-call loop ({h0:,} tokens to start, {t:,} per step)")
    return fig


# -- estimated vs billed -----------------------------------------------------------------
class CallTokens(NamedTuple):
    """One call of a run: the kit's 4-characters-per-token estimate and the reported usage."""

    call: int
    estimated_input: int
    billed_input: int
    estimated_output: int
    billed_output: int


def estimated_vs_billed(run: Run, *, tools: Sequence[Tool] = ()) -> list[CallTokens]:
    """Per call of `run`, the kit's estimate next to the tokens the provider reported.

    The estimate is `estimate_tokens` of what the call sent (`request_text`: the system
    prompt, the messages so far and the definitions of `tools`, which the run does not
    keep, so pass the same tools) and of the reply. A real provider counts with its own
    tokenizer and adds its own tokens (a tool-use system prompt, message framing), so the
    two differ. The scripted provider uses the kit's own rule; so does the API double,
    which adds Anthropic's hidden tool-use system prompt on its Anthropic side.

    >>> from toolcall_lab import ScriptedProvider, run_agent
    >>> from toolcall_lab.examples import PARIS_QUESTION, weather_policy
    >>> from toolcall_lab.tools import get_weather
    >>> run = run_agent(ScriptedProvider(weather_policy), PARIS_QUESTION, tools=[get_weather])
    >>> estimated_vs_billed(run, tools=[get_weather])[0]
    CallTokens(call=1, estimated_input=104, billed_input=104, estimated_output=21, billed_output=21)
    """
    rows = []
    for step in run.steps:
        sent = Transcript(run.transcript.system, list(run.transcript.messages[: step.messages_sent]))
        rows.append(CallTokens(
            call=step.index,
            estimated_input=estimate_tokens(request_text(sent, tools)),
            billed_input=step.usage.input_tokens,
            estimated_output=estimate_tokens(blocks_text(step.turn.message.blocks)),
            billed_output=step.usage.output_tokens,
        ))
    return rows


def _pairs_match(rows: Sequence[CallTokens]) -> bool:
    return all(r.estimated_input == r.billed_input and r.estimated_output == r.billed_output for r in rows)


def _source(run: Run) -> tuple[str, str]:
    """A word and a legend label for the usage a run's provider reported."""
    if any(step.usage.estimated for step in run.steps):
        return "reported", "reported (itself an estimate: scripted provider)"
    return "billed", "billed (the provider's usage)"


def _verdict(run: Run, rows: Sequence[CallTokens]) -> str:
    """Why the pairs match or differ, in one clause."""
    if not _pairs_match(rows):
        model = run.steps[0].turn.model if run.steps else ""
        hidden = tool_prompt_tokens(model)
        outputs_match = all(r.estimated_output == r.billed_output for r in rows)
        if hidden and outputs_match and {r.billed_input - r.estimated_input for r in rows} == {hidden}:
            return f"each call's input includes a hidden {hidden:,}-token tool-use system prompt"
        return "a real tokenizer and the provider's own added tokens make the pairs differ"
    if _source(run)[0] == "reported":
        return "the scripted provider's usage is this same estimate, so every pair matches"
    return "the server counts with the kit's own rule, so every pair matches"


def describe_estimated_vs_billed(run: Run, *, tools: Sequence[Tool] = ()) -> str:
    """The estimated-vs-billed figure in words (its text alternative)."""
    rows = estimated_vs_billed(run, tools=tools)
    model = run.steps[0].turn.model if run.steps else "no model"
    word = _source(run)[0]
    parts = [f"call {r.call}: input {r.estimated_input:,} estimated vs {r.billed_input:,} {word}, "
             f"output {r.estimated_output:,} vs {r.billed_output:,}" for r in rows]
    return (f"Paired bars per call of a {len(rows)}-call run on {model}: the kit's estimate (hatched) "
            f"next to the tokens {word} (solid), input on the left and output on the right. "
            + "; ".join(parts) + f". {_verdict(run, rows).capitalize()}.")


def plot_estimated_vs_billed(run: Run, *, tools: Sequence[Tool] = ()) -> Figure:
    """Per call of `run`, the kit's token estimate next to what the provider billed.

    Two panels, input tokens on the left and output tokens on the right. For each call a
    pair of bars: the estimate (4 characters per token, light and hatched) and the usage
    the provider reported (dark and solid), each labelled with its number. Pass the same
    `tools` the run used, since their definitions are part of every request. Works with
    any run: a real provider's, the API double's (which counts with the kit's rule and,
    on the Anthropic side, adds the hidden tool-use system prompt Anthropic bills) or the
    scripted provider's (whose usage is itself the estimate).
    """
    rows = estimated_vs_billed(run, tools=tools)
    if not rows:
        raise UsageError("this run made no model calls, so there is nothing to compare.")
    calls = [r.call for r in rows]
    width = 0.38
    billed_name = _source(run)[1]
    model = run.steps[0].turn.model
    with figure_style():
        fig, axes = _subplots(2, description=describe_estimated_vs_billed(run, tools=tools))
        for ax, kind in zip(axes, ("input", "output"), strict=True):
            estimated = [getattr(r, f"estimated_{kind}") for r in rows]
            billed = [getattr(r, f"billed_{kind}") for r in rows]
            left = ax.bar([c - width / 2 for c in calls], estimated, width, color=OKABE_ITO["sky blue"],
                          edgecolor=OKABE_ITO["black"], hatch="//", label="kit's estimate (4 chars/token)")
            right = ax.bar([c + width / 2 for c in calls], billed, width, color=OKABE_ITO["blue"],
                           edgecolor=OKABE_ITO["black"], label=billed_name)
            for group in (left, right):
                # bar() always fills datavalues with the heights (ints here); the stub allows None
                ax.bar_label(group, labels=[f"{v:,}" for v in cast(Iterable[int], group.datavalues)],
                             fontsize=15, padding=3)
            ax.set_xticks(calls)
            ax.set(title=f"{kind.capitalize()} tokens per call", xlabel="call", ylabel=f"{kind} tokens")
            ax.set_ylim(0, max(estimated + billed + [1]) * 1.35)
            _thousands(ax.yaxis)
        axes[0].legend(loc="upper left", frameon=False)
        fig.suptitle(f"Estimated vs {_source(run)[0]} tokens, {len(rows)}-call run on {model}\n"
                     f"({_verdict(run, rows)})")
    return fig


# -- a conversation the server holds: what is uploaded, what is billed -------------------
class Upload(NamedTuple):
    """One way of sending a conversation, measured call by call: `sent` the bytes of each
    request's JSON body, `billed` the input tokens its reply reported."""

    label: str
    sent: Sequence[int]
    billed: Sequence[int]


def describe_upload_vs_bill(ways: Sequence[Upload]) -> str:
    """The figure in words: each way's bytes on its first and last call, and the tokens billed.

    >>> said = describe_upload_vs_bill([Upload("thread", [900, 300, 310], [100, 150, 200])])
    >>> said.split(". ", 1)[1]
    'thread: 900 bytes on call 1, 310 on call 3; 100 input tokens billed on call 1, 200 on call 3.'
    """
    if not ways or not all(way.sent and len(way.sent) == len(way.billed) for way in ways):
        raise UsageError("describe_upload_vs_bill needs at least one way, each with as many "
                         "sizes as bills (one per call)")
    calls = len(ways[0].sent)
    parts = [f"{way.label}: {way.sent[0]:,} bytes on call 1, {way.sent[-1]:,} on call {len(way.sent)}; "
             f"{way.billed[0]:,} input tokens billed on call 1, {way.billed[-1]:,} on call {len(way.billed)}."
             for way in ways]
    return f"Bytes uploaded and input tokens billed on each of {calls} calls. " + " ".join(parts)


def plot_upload_vs_bill(ways: Sequence[Upload]) -> Figure:
    """Two panels over the calls: the bytes each request uploaded (left) and the input tokens
    billed for it (right), one line per way of sending the conversation (a marker and a line
    style each, labelled at its end).

    >>> fig = plot_upload_vs_bill([Upload("whole", [100, 200], [10, 20]),
    ...                            Upload("thread", [100, 50], [10, 20])])
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['bytes uploaded', 'input tokens billed']
    """
    description = describe_upload_vs_bill(ways)
    styles = [("vermillion", "o", "-"), ("blue", "s", "--"), ("orange", "^", "-."),
              ("bluish green", "D", ":")]
    with figure_style():
        fig, (sent_ax, billed_ax) = _subplots(2, description=description)
        for way, (colour, marker, line) in zip(ways, styles * len(ways), strict=False):
            calls = list(range(1, len(way.sent) + 1))
            for ax, values in ((sent_ax, way.sent), (billed_ax, way.billed)):
                ax.plot(calls, list(values), color=OKABE_ITO[colour], marker=marker, linestyle=line,
                        markersize=9, linewidth=2.5, label=way.label)
        for ax, label, title in ((sent_ax, "bytes uploaded", "What each call uploads"),
                                 (billed_ax, "input tokens billed", "What each call is billed")):
            ax.set(xlabel="call", ylabel=label, title=title)
            ax.set_ylim(bottom=0)
            ax.set_xticks(list(range(1, len(ways[0].sent) + 1)))
            _thousands(ax.yaxis)
        sent_ax.legend(loc="upper left", frameon=False, fontsize=14)
        if len(ways) > 1 and all(list(way.billed) == list(ways[0].billed) for way in ways):
            # subtle: the lines lie on one another, which a reader could take for one line
            billed_ax.text(0.04, 0.95, f"all {len(ways)} lines lie on one another:\nthe same tokens billed",
                           transform=billed_ax.transAxes, va="top", fontsize=15, fontweight="bold")
        fig.suptitle("A thread on the server shrinks the upload, not the bill")
    return fig
