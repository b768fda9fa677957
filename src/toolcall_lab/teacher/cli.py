"""`python -m toolcall_lab`: the kit's command line.

    python -m toolcall_lab demo     # the Paris trace and the cost of a loop, for a projector
    python -m toolcall_lab serve [--host 127.0.0.1] [--port 8765] [--script weather]
                                 [--keep 100] [--allow-remote] [--tape PATH]
                                    # the API double: a local server speaking all four APIs
                                    # (with --tape, replaying a recorded run: toolcall_lab.tape)
    python -m toolcall_lab figures [--out DIR] [--check]
                                    # regenerate the lesson figures (default: ./figures), or
                                    # with --check compare a fresh set with those in DIR
    python -m toolcall_lab solutions [OUT] [--lessons notebooks] [--no-execute]
                                    # a teacher's solved copy of every lesson (default: ./solutions)
    python -m toolcall_lab handouts [OUT] [--lessons notebooks]
                                    # a one-page printable handout per lesson (default: docs/handouts)
    python -m toolcall_lab links --repo URL [--hub URL] [--branch main] [--lesson 0]
                                    # a lesson's nbgitpuller (JupyterHub), Binder and Colab links
    python -m toolcall_lab budget --students N [--lessons 1-8] [--provider P] [--model M]
                                  [--reruns K] [--caching]
                                    # tokens, dollars and requests per minute for a class,
                                    # from the price table and the lessons' measured requests
    python -m toolcall_lab budget --measure [--notebooks DIR]
                                    # re-measure the lessons (maintainers: after a lesson changes)
    python -m toolcall_lab doctor   # which installed packages differ from the versions the
                                    # lessons were checked with, and the one command that aligns them

The demo runs offline with the scripted provider and prints the same numbers every time.
`serve` prints each API's URL and the provider settings that reach it, then answers
(with the scripted model) until Ctrl-C; see `toolcall_lab.double`.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, TextIO

__all__ = ["main"]

COLUMNS = 80  # every demo line fits a default terminal, so nothing wraps on a projector
RULE = "=" * (COLUMNS - 2)


def _section(title: str) -> str:
    return f"\n{RULE}\n {title}\n{RULE}\n"


def demo(out: TextIO | None = None) -> None:
    """Print the lesson-1 trace and the loop-cost table to `out` (stdout by default)."""
    from ..examples import PARIS_QUESTION, SYSTEM_PROMPT, weather_policy
    from ..loop import run_agent
    from ..providers.scripted import ScriptedProvider
    from ..tokens import loop_input_tokens, loop_input_total
    from ..tools.weather import get_weather
    from ..views.report import calls_table, loop_table, trace_table

    out = out or sys.stdout
    write: Callable[..., None] = lambda text="": print(text, file=out)

    write(_section("1. One tool call, message by message"))
    provider = ScriptedProvider(weather_policy)
    # subtle: an event line names the tool's arguments, so it can run past 80 columns;
    # its continuation is indented under the step number.
    run = run_agent(provider, PARIS_QUESTION, tools=[get_weather], system=SYSTEM_PROMPT,
                    on_event=lambda event: write(textwrap.fill(str(event), COLUMNS,
                                                               subsequent_indent="    ")))
    write()
    write(trace_table(run.transcript, gap=1))  # one space between columns: 80 columns wide
    call = run.transcript[1].tool_calls[0]
    result = run.transcript[2].tool_results[0]
    write()
    write(f"  The model asked for {call.name} (id {call.id}); your code ran it and sent the")
    write(f"  result back in a user message carrying the same id ({result.call_id}).")
    write("  The model executed nothing.")

    write(_section("2. Every call re-sends the whole conversation"))
    write(calls_table(run))
    first, second = (step.usage.input_tokens for step in run.steps)
    write()
    write(f"  Call 2 sent {run.steps[1].messages_sent} messages, not 1: about {second} input tokens "
          f"against {first}.")

    n, h0, t = 10, 2000, 500
    write(_section(f"3. A {n}-call loop: {h0:,} tokens to start, {t:,} more each step"))
    write(loop_table(n, h0, t))
    final_size = loop_input_tokens(n, h0, t)[-1] + t
    total = loop_input_total(n, h0, t)
    write()
    write(f"  Billed input: {total:,} tokens for a conversation that ends {final_size:,} tokens long")
    write(f"  ({total / final_size:.1f}x). Formula: n*h0 + t*n(n-1)/2 = {n}*{h0:,} + "
          f"{t}*{n * (n - 1) // 2} = {total:,}.")


def _figures(out: str, *, check: bool) -> int:
    from .figures import compare_figures, write_figures

    if not check:
        for path in write_figures(out):
            print(f"wrote {path}")
        return 0
    failures = 0
    for name, problem in compare_figures(out).items():
        print(f"{name}: {'same' if problem is None else problem}")
        failures += problem is not None
    return 1 if failures else 0


def _solutions(lessons: str, out: str, *, execute: bool) -> int:
    from ..errors import UsageError
    from .solutions import write_solutions

    try:
        written = write_solutions(lessons, out, execute=execute)
    except UsageError as exc:
        print(f"solutions: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    print(f"Teacher's copies{' (executed)' if execute else ''}: {len(written)} lessons in {out}/. "
          "Keep them out of the learners' folder.")
    return 0


def _handouts(lessons: str, out: str) -> int:
    from ..errors import UsageError
    from .handouts import write_handouts

    try:
        written = write_handouts(lessons, out)
    except UsageError as exc:
        print(f"handouts: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(written) - 1} handouts and their index in {out}/")
    return 0


def _links(repo: str, *, hub: str | None, branch: str, lesson: str) -> int:
    from ..errors import UsageError
    from .classroom import links

    try:
        found = links(repo, hub=hub, branch=branch, lesson=lesson)
    except UsageError as exc:  # an unknown lesson: one sentence, no traceback
        print(f"links: {exc}", file=sys.stderr)
        return 2
    for service, link in found.items():
        print(f"{service + ':':<8}{link}")
    if not hub:
        print("(pass --hub https://your-hub to fill in the hub link)")
    return 0


def _add_budget(commands: Any) -> None:
    budget = commands.add_parser("budget", help="what the lessons cost a class (offline)")
    add = budget.add_argument
    add("--students", type=int, help="learners in the class")
    add("--lessons", help="lesson numbers, e.g. 1-6 or 0,3 (default: every lesson)")
    add("--provider", default="anthropic",
        help="anthropic, openai, openai-chat or ollama (default anthropic)")
    add("--model", help="model id from the price table (default: the provider's default)")
    add("--reruns", type=int, default=0, help="extra runs of each lesson per learner (default 0)")
    add("--caching", action="store_true",
        help="count the burst's input tokens with prompt caching (both costs are always shown)")
    add("--measure", action="store_true",
        help="run every lesson under each provider against the API double and rewrite the measurement "
             "the budget reads (a few minutes)")
    add("--notebooks", default="notebooks", help="lesson folder for --measure (default notebooks)")


def _budget(args: argparse.Namespace) -> int:
    from ..errors import UsageError

    try:
        if args.measure:
            from pathlib import Path

            from .._files import save_atomically
            from .lesson_usage import LESSON_USAGE, measure, usage_text

            save_atomically(LESSON_USAGE, usage_text(measure(Path(args.notebooks))).encode("utf-8"),
                            what="lesson usage", error=UsageError)
            print(f"wrote {LESSON_USAGE}")
            return 0
        from .budget import class_budget

        if args.students is None:
            raise UsageError("budget needs --students N, the number of learners (or --measure).")
        print(class_budget(students=args.students, lessons=args.lessons, provider=args.provider,
                           model=args.model, reruns=args.reruns, caching=args.caching))
    except UsageError as error:  # one line that says what to fix, no traceback
        print(f"budget: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolcall_lab", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("demo", help="print the Paris trace and a per-call token table (offline)")
    serve = commands.add_parser("serve", help="run the API double: a local server for all four APIs")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    serve.add_argument("--script", choices=["weather"], default="weather",
                       help="the scripted model that answers (default: weather)")
    serve.add_argument("--keep", type=int, default=100,
                       help="how many recent requests to keep in memory (default 100)")
    serve.add_argument("--allow-remote", action="store_true",
                       help="allow a non-loopback --host; the double has no authentication")
    serve.add_argument("--tape", metavar="PATH",
                       help="answer from a recorded tape (a file, or a shipped tape's name) instead of "
                            "the script; a request that differs gets a 400 naming where")
    figures = commands.add_parser("figures", help="regenerate the lesson figures as PNG (offline)")
    figures.add_argument("--out", default="figures", help="folder for the PNG files (default: figures)")
    figures.add_argument("--check", action="store_true",
                         help="write nothing; compare a fresh set with the files in --out "
                              "(exit 1 if any differ)")
    solutions = commands.add_parser("solutions", help="write a solved copy of every lesson, for a teacher")
    solutions.add_argument("out", nargs="?", default="solutions",
                           help="folder for the solved notebooks (default: solutions)")
    solutions.add_argument("--lessons", default="notebooks",
                           help="folder that holds the lessons (default: notebooks)")
    solutions.add_argument("--no-execute", action="store_true",
                           help="write the solved cells without running them (no outputs)")
    handouts = commands.add_parser("handouts", help="write a one-page printable handout per lesson")
    handouts.add_argument("out", nargs="?", default="docs/handouts",
                          help="folder for the handouts (default: docs/handouts)")
    handouts.add_argument("--lessons", default="notebooks",
                          help="folder that holds the lessons (default: notebooks)")
    links = commands.add_parser("links",
                                help="print a lesson's JupyterHub (nbgitpuller), Binder and Colab links")
    links.add_argument("--repo", required=True, help="the kit's repository, e.g. https://github.com/OWNER/REPO")
    links.add_argument("--hub", help="your JupyterHub's address, e.g. https://hub.example.edu")
    links.add_argument("--branch", default="main", help="the branch learners get (default main)")
    links.add_argument("--lesson", default="0", help="a lesson's number or file name (default 0, start here)")
    _add_budget(commands)
    commands.add_parser("doctor", help="compare the installed packages with the versions the lessons "
                                       "were checked with (exit 1 if any differ)")
    args = parser.parse_args(argv)
    if args.command == "doctor":
        from .doctor import doctor

        return doctor()
    if args.command == "budget":
        return _budget(args)
    if args.command == "solutions":
        return _solutions(args.lessons, args.out, execute=not args.no_execute)
    if args.command == "handouts":
        return _handouts(args.lessons, args.out)
    if args.command == "links":
        return _links(args.repo, hub=args.hub, branch=args.branch, lesson=args.lesson)
    if args.command == "figures":
        return _figures(args.out, check=args.check)
    if args.command == "serve":
        from ..double.api_double import serve as serve_double
        from ..examples import weather_policy

        try:
            serve_double(host=args.host, port=args.port, keep=args.keep, allow_remote=args.allow_remote,
                         policy=None if args.tape else {"weather": weather_policy}[args.script],
                         tape=args.tape)
        except (ValueError, OSError) as exc:  # a refused or unbindable address: one sentence, no traceback
            print(f"serve: {exc}", file=sys.stderr)
            return 2
        return 0
    if args.command == "demo":
        try:
            demo()
        except BrokenPipeError:  # `... demo | head` closed the pipe early: not an error
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    parser.print_help()
    return 2
