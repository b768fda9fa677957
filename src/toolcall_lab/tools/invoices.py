"""`send_invoice`: a tool whose effect cannot be taken back, seen by more than one process.

Lesson 29 stops a run before this call, saves it, and decides it in another process; then
it stages the crashes that make a resumed run send one invoice twice. So the outbox must
outlive a process: with the environment variable `TOOLCALL_LAB_OUTBOX` naming a file, every
invoice sent adds one JSON line to it (a child process started with the same
environment writes to the same file); without it, the outbox is a list in this process.
Nothing leaves the machine: the file stands for the customer's mailbox.

Also here, the staging the lesson needs:

- `invoice_clerk`, a scripted model's policy: it asks for `send_invoice` with the customer
  and amount of the question, then answers from the result;
- `api_down`, a policy whose every call fails as a 500 would (`ServerError`);
- `crash_after_sending()`, a block inside which `send_invoice` dies just after its invoice
  went out (`ProcessDied`, which no `except Exception` catches, as nothing catches a killed
  process), before it could return its result.

    >>> clear_outbox()
    >>> send_invoice(customer="Acme Ltd", amount=360)
    'Invoice 1 sent to Acme Ltd for 360 EUR.'
    >>> outbox()
    [{'number': 1, 'customer': 'Acme Ltd', 'amount': 360}]
    >>> with crash_after_sending():
    ...     send_invoice(customer="Acme Ltd", amount=360)
    The process died just after invoice 2 went out: nothing after that line ran, and nothing was saved.
    >>> len(outbox())
    2
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._files import save_atomically
from ..blocks import ToolCall
from ..errors import ServerError, UsageError
from ..tool import Tool, tool
from ..transcript import Transcript

__all__ = ["OUTBOX_VARIABLE", "ProcessDied", "api_down", "clear_outbox", "crash_after_sending",
           "invoice_clerk", "outbox", "send_invoice"]

#: The environment variable naming the outbox file that every process shares.
OUTBOX_VARIABLE = "TOOLCALL_LAB_OUTBOX"

#: How the ledger's answer to a call that started and never finished begins (`ledger.Ledger.repeat`).
MAY_HAVE_RUN = "Already run?"

_IN_MEMORY: list[dict[str, Any]] = []  # the outbox when no file is named
_DYING: list[bool] = []  # set inside crash_after_sending()


class ProcessDied(BaseException):
    """Staged: the process died here. A BaseException, so `execute` (which catches Exception) lets it by."""


def _file() -> Path | None:
    named = os.environ.get(OUTBOX_VARIABLE, "").strip()
    return Path(named) if named else None


def outbox() -> list[dict[str, Any]]:
    """Every invoice sent so far, oldest first (from the shared file when one is named)."""
    path = _file()
    if path is None:
        return list(_IN_MEMORY)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def clear_outbox() -> None:
    """Empty the outbox (the file, or the list)."""
    _IN_MEMORY.clear()
    path = _file()
    if path is not None and path.exists():
        path.unlink()


@tool(needs_approval=True, side_effects=True)
def send_invoice(customer: str, amount: int) -> str:
    """Send an invoice to a customer. It cannot be taken back once sent.

    Args:
        customer: the customer's name, e.g. "Acme Ltd"
        amount: the amount in euros, e.g. 360
    """
    sent = outbox()
    invoice = {"number": len(sent) + 1, "customer": customer, "amount": amount}
    path = _file()
    if path is None:
        _IN_MEMORY.append(invoice)
    else:  # the outbox again with one more line, written in one step as every file of the kit is
        lines = "".join(json.dumps(each) + "\n" for each in [*sent, invoice])
        save_atomically(path, lines.encode("utf-8"), what="outbox", error=UsageError)
    if _DYING:
        raise ProcessDied(invoice["number"])  # staged: the effect happened; the result never returns
    return f"Invoice {invoice['number']} sent to {customer} for {amount} EUR."


@contextlib.contextmanager
def crash_after_sending() -> Iterator[None]:
    """Inside this block `send_invoice` dies just after its invoice went out; the block says so."""
    _DYING.append(True)
    try:
        yield
    except ProcessDied as died:
        print(f"The process died just after invoice {died.args[0]} went out: nothing after that line "
              "ran, and nothing was saved.")
    finally:
        _DYING.clear()


_ASKED = re.compile(r"(?:invoice|bill)\s+(?P<customer>[A-Z][\w .&-]*?)\s+(?:for\s+)?(?P<amount>\d+)\s*EUR",
                    re.IGNORECASE)


def invoice_clerk(transcript: Transcript, tools: tuple[Tool, ...]) -> str | list[ToolCall]:
    """A scripted model's policy: ask for `send_invoice` as the question says, then answer from its result.

    >>> from toolcall_lab import Message
    >>> invoice_clerk(Transcript(messages=[Message.user("Invoice Acme Ltd 360 EUR, please.")]), ())
    [ToolCall('', 'send_invoice', {'customer': 'Acme Ltd', 'amount': 360})]
    """
    last = transcript.messages[-1]
    if last.tool_results:
        said = last.tool_results[0]
        if said.is_error and said.content.startswith(MAY_HAVE_RUN):
            return ("I cannot tell whether the invoice went out: please check the outbox before I send "
                    "it again.")
        return (f"The invoice was not sent. {said.content.split('. ')[0]}." if said.is_error
                else f"Done: {said.content}")
    asked = _ASKED.search(last.text or "")
    if asked is None:
        return "Which customer, and how much?"
    return [ToolCall("", "send_invoice", {"customer": asked["customer"], "amount": int(asked["amount"])})]


def api_down(transcript: Transcript, tools: tuple[Tool, ...]) -> str:
    """A scripted model's policy that fails every call, as an API answering 500 does (staged)."""
    raise ServerError("the model API answered 500 (staged), so this process stops here", status=500)
