"""Anthropic's message threads (beta): the conversation the API keeps under a reply's id.

"A message thread keeps a conversation on the server for a short time. You send the full
conversation once, with your system prompt and tools. On each later turn, you send only the
new messages and the id of the previous response."
(https://platform.claude.com/docs/en/build-with-claude/message-threads, beta header
`message-threads-2026-08-12`). Three moves:

    create     the whole conversation, `system` and `tools`, and `"thread": {"type": "create"}`:
               the API keeps it all, the reply included, under the reply's `id`
    continue   only the messages since that reply, `"thread": {"type": "continue",
               "previous_message_id": "<the id>"}`, and no `system` or `tools` ("Leave
               system and tools out of the request. The thread keeps the values from the
               create request.")
    replay     "A thread is best-effort. It expires 5 minutes after its last request": a
               continue the API cannot serve is a 404 whose `error.details.error_code` is
               `thread_not_found`, and the client sends the whole conversation again with
               a create

What a client reads (anthropic SDK 2.17, `lib/threads/_thread_state.py`): the code in
`error.details.error_code`, and three codes that it answers with a replay under a new
thread: `thread_not_found` (a 404: `types/thread_not_found_error.py`),
`thread_already_continued` and `thread_continue_in_flight` (400s, `_error_classes.py`).
Their words here are the SDK's descriptions of them.

The kit's side, pure like the rest of the folder:

- `created(body)`: a whole-conversation request that starts a thread (its `betas` too:
  the kit's request carries the beta as the SDK's `beta.messages.create` takes it, and the
  SDK sends it as the `anthropic-beta` header; the API double reads that header back into
  `betas`, `with_betas`);
- `continued(body, at)`: the same request as a continue from `at` (a `ThreadAt`, made by
  `after`: the reply's id, the messages the server holds and the system and tools it keeps),
  or None when the request does not extend what the server holds;
- `thread_problems(body)`: the rules of a request's `thread` field (`check_request` runs them);
- the double's half: `refusal` (no such thread, or one already continued), `with_thread` (the
  conversation the model reads: the thread's, then the new messages) and `keep`.

    >>> full = created({"model": "m", "max_tokens": 8, "system": "Be brief.",
    ...                 "messages": [{"role": "user", "content": "Hi"}]})
    >>> full["thread"], full["betas"]
    ({'type': 'create'}, ['message-threads-2026-08-12'])
    >>> more = {**full, "messages": [*full["messages"], {"role": "assistant", "content": "Hello!"},
    ...                              {"role": "user", "content": "Bye"}]}
    >>> sent = continued(more, after(full, "msg_01", [more["messages"][1]]))
    >>> sent["thread"], sent["messages"], "system" in sent
    ({'type': 'continue', 'previous_message_id': 'msg_01'}, [{'role': 'user', 'content': 'Bye'}], False)

Billing: a continued request is billed for the conversation the model reads, the thread's
messages, system prompt and tools as well as the new ones: the thread shrinks the upload,
not the prompt ("The API rebuilds the conversation before it calls the model").

Left out: `thread_fingerprint_mismatch` and `thread_unsupported_request`, fallbacks, and
the 1-hour deletion (a thread here is gone when it expires).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..problem import Problem
from ._blocks import API_NAME

__all__ = ["BETA", "CREATE_ONLY", "LIFETIME", "REPLAY_CODES", "ThreadAt", "after", "continued", "created",
           "is_continue", "keep", "refusal", "thread_problems", "with_betas", "with_thread"]

#: The beta every request of a thread names (the page's `betaHeader`).
BETA = "message-threads-2026-08-12"
#: Seconds a thread lives after its last request: "It expires 5 minutes after its last request".
LIFETIME = 5 * 60
#: What a continue leaves out: the thread keeps the create request's values.
CREATE_ONLY = ("system", "tools")
#: The codes a client answers by replaying the whole conversation with a create (the SDK's
#: `_REPLAY_ERROR_CODES`), each with its status and its words (the SDK's descriptions).
REPLAY_CODES: dict[str, tuple[int, str]] = {
    "thread_not_found": (404, "No usable Thread state was found for `previous_message_id`. Replay "
                              "the full conversation with `thread: {\"type\": \"create\"}` to start a "
                              "new Thread."),
    "thread_already_continued": (400, "The response that `previous_message_id` names has already been "
                                      "continued, and each response can be continued only once. Continue "
                                      "from the Thread's most recent response id."),
    "thread_continue_in_flight": (400, "Another request is still continuing from the same "
                                       "`previous_message_id`. Wait for it to complete and continue from "
                                       "its response id, or replay the full conversation with "
                                       "`thread: {\"type\": \"create\"}`."),
}
_LOCK = threading.Lock()  # a continue claims its thread under it (requests come on many threads)


@dataclass(frozen=True)
class ThreadAt:
    """Where a thread stands on the server: the reply it continues from (`message_id`), the
    messages the server holds up to that reply, as they were sent (`messages`), and the create
    request's `system` and `tools`, which the thread keeps (`kept`)."""

    message_id: str
    messages: Sequence[Any]
    kept: Mapping[str, Any]


# -- the client's half ------------------------------------------------------------------------
def created(body: Mapping[str, Any]) -> dict[str, Any]:
    """`body` (a whole conversation) as the request that starts a thread."""
    return {**body, "thread": {"type": "create"}, "betas": _betas(body)}


def after(body: Mapping[str, Any], message_id: str, reply: Sequence[Any]) -> ThreadAt:
    """Where the thread stands once the request `body` (a whole conversation) was answered by
    the reply `message_id`, whose messages as the next request sends them are `reply`."""
    return ThreadAt(message_id, [*(body.get("messages") or []), *reply], _kept(body))


def _kept(body: Mapping[str, Any]) -> dict[str, Any]:
    return {field: body[field] for field in CREATE_ONLY if field in body}


def continued(body: Mapping[str, Any], at: ThreadAt | None) -> dict[str, Any] | None:
    """`body` (a whole conversation) as a continue from `at`: only the messages after those the
    server holds, without `system` and `tools`; None when there is no thread, the body does not
    start with what the server holds (an edited history needs a create), or its system or tools
    are not the ones the thread keeps."""
    if at is None or _kept(body) != dict(at.kept):
        return None
    messages = list(body.get("messages") or [])
    held = len(at.messages)
    # subtle: a breakpoint moves on with the conversation (caching="moving"), so the messages are
    # compared without their `cache_control`, as the SDK's thread helper compares them
    if _plain(messages[:held]) != _plain(list(at.messages)) or len(messages) <= held:
        return None
    sent = {key: value for key, value in body.items() if key not in CREATE_ONLY}
    return {**sent, "messages": messages[held:], "betas": _betas(body),
            "thread": {"type": "continue", "previous_message_id": at.message_id}}


def _plain(value: Any) -> Any:
    """`value` without any `cache_control`, however deep."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _betas(body: Mapping[str, Any]) -> list[str]:
    betas = [str(beta) for beta in body.get("betas") or []]
    return betas if BETA in betas else [*betas, BETA]


def is_continue(body: Mapping[str, Any]) -> bool:
    """Whether `body` continues a thread."""
    thread = body.get("thread")
    return isinstance(thread, Mapping) and thread.get("type") == "continue"


# -- the rules ------------------------------------------------------------------------------
def thread_problems(body: Mapping[str, Any]) -> list[Problem]:
    """What the API refuses in a request's `thread` field.

    >>> [p.text for p in thread_problems({"thread": {"type": "create"}})]
    ['thread: Extra inputs are not permitted']
    >>> [p.path for p in thread_problems({"betas": [BETA], "system": "Be brief.",
    ...     "thread": {"type": "continue", "previous_message_id": "toolu_01"}})]
    ['thread.previous_message_id', 'system']
    """
    thread = body.get("thread")
    if thread is None:
        return []
    if BETA not in (body.get("betas") or []):
        # Without the beta the API does not know the field, and refuses it as it refuses any
        # unknown key ("Extra inputs are not permitted", wire/_schema.py)
        return [Problem(API_NAME, "thread", "thread: Extra inputs are not permitted")]
    if not is_continue(body):
        return []
    problems = []
    previous = thread.get("previous_message_id")
    if not (isinstance(previous, str) and previous.startswith("msg_")):
        # written here in the API's style: the page says the id is "the previous response's id"
        problems.append(Problem(API_NAME, "thread.previous_message_id",
                                "thread.previous_message_id: must be the `id` of a message the API "
                                f"returned (msg_...), got {previous!r}"))
    for field in CREATE_ONLY:
        if field in body:
            # written here in the API's style, from the page: "Leave system and tools out of the
            # request. The thread keeps the values from the create request."
            problems.append(Problem(API_NAME, field, f"{field}: must be left out of a request that "
                                    "continues a thread; the thread keeps the values from the create "
                                    "request"))
    return problems


# -- the double's half ----------------------------------------------------------------------
def with_betas(body: Mapping[str, Any], header: str | None) -> Mapping[str, Any]:
    """`body` as the rules read it: the betas its `anthropic-beta` header named, as `betas`.

    >>> with_betas({"model": "m"}, "a-beta, message-threads-2026-08-12")["betas"]
    ['a-beta', 'message-threads-2026-08-12']
    """
    named = [beta.strip() for beta in (header or "").split(",") if beta.strip()]
    return {**body, "betas": named} if named else body


def refusal(body: Mapping[str, Any], stored: Mapping[str, Any], now: float
            ) -> tuple[int, Problem] | None:
    """(status, problem) for a continue the double cannot serve, else None: a thread it does not
    hold or that expired (404 `thread_not_found`), one continued before (400), or one another
    request is continuing now (400). A continue it serves claims the thread at once."""
    if not is_continue(body):
        return None
    previous = str(body["thread"].get("previous_message_id"))
    with _LOCK:
        kept = stored.get(previous)
        if not isinstance(kept, dict) or now - kept["at"] > LIFETIME:
            code = "thread_not_found"
        elif kept["state"] == "continuing":
            code = "thread_continue_in_flight"
        elif kept["state"] == "continued":
            code = "thread_already_continued"
        else:
            kept["state"] = "continuing"
            return None
    status, words = REPLAY_CODES[code]
    return status, Problem(API_NAME, "thread.previous_message_id", words, code=code)


def with_thread(body: Mapping[str, Any], stored: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request as the model reads it: a continue with the thread's system, tools and messages
    put back, the new messages after them (a thread `refusal` let through); any other as it is."""
    if not is_continue(body):
        return body
    kept = stored[str(body["thread"]["previous_message_id"])]
    read = {key: value for key, value in body.items() if key != "thread"}
    read.update({field: kept[field] for field in CREATE_ONLY if field in kept})
    read["messages"] = [*kept["messages"], *(body.get("messages") or [])]
    return read


def keep(stored: MutableMapping[str, Any], response_id: str, request: Mapping[str, Any],
         reply: Mapping[str, Any], now: float) -> None:
    """Keep the conversation `request` read (`with_thread`), the `reply` appended, under the reply's
    id, for `LIFETIME` seconds from `now`; the thread it continued is continued."""
    if "thread" not in request:
        return
    read = with_thread(request, stored)
    kept = {field: read[field] for field in CREATE_ONLY if field in read}
    reply_message = {"role": "assistant", "content": reply["content"]}
    kept["messages"] = [*(read.get("messages") or []), reply_message]
    with _LOCK:
        if is_continue(request):
            stored[str(request["thread"]["previous_message_id"])]["state"] = "continued"
        stored[response_id] = {**kept, "at": now, "state": "open"}
