"""Thinking, Anthropic's way: the request's `thinking` object, and the rules about what comes back.

Extended thinking is asked for with `thinking` (a budget in tokens: "enabled"; or
"adaptive", where Claude decides how much to think; or "disabled") and tuned with
`output_config.effort`. The client half writes the object (`thinking_config`,
`check_effort`); `check_request` (`rules.py`) runs the rules here on the thinking a request
sends back:

- a budget of at least 1024 tokens (`MIN_BUDGET`) and below `max_tokens`;
- every thinking block signed, and the latest turn's blocks unmodified (only the double's
  own signatures can be checked, `wire.signing`; a real one is Anthropic's secret and passes
  unexamined);
- with thinking on in a tool loop, the turn's first message starts with its thinking;
- on a model whose thinking is bound to its prefix (`models.Rules.thinking_bound`), no block
  whose prefix changed, unless the request says "drop_block" (preserved thinking).

Which thinking *modes* and efforts a model takes are model rules, in `rules.py`.

The API double thinks the way Claude does (`thinks`): when `thinking` is "enabled" (a
budget) or "adaptive", but not right after tool results (Anthropic sends no new thinking
until the next question), and not when the model *skips* it. Adaptive thinking lets the
model decide whether to think: "A simple factual question may get a direct response with
no thinking block at all", and "Don't build application logic that assumes every
assistant turn starts with one"
(platform.claude.com/docs/en/build-with-claude/thinking-steering-and-cost; the
adaptive-thinking page: at lower efforts "Claude may skip thinking for simpler
problems"). The double's rule for it, fixed so a lesson can show it: at adaptive thinking
with `output_config.effort` "low" (`SKIPS_THINKING_AT`), a reply that calls no tool (the
question needs none) comes without thinking. "Hello!" at effort low: text only; at high,
or asking for the weather: thinking first. The newest Claude models think when `thinking`
is left out; the double only when it is sent (so a run without it shows no thinking
blocks), and "between_tools" gets no thinking.

What the model reads of the thinking sent back follows the model's row of `models.RULES`
(`as_the_model_reads_it`): on a model with `keeps_thinking` False the thinking of
earlier, closed turns is stripped before the model reads the request (so it is not
billed as input), and on a model whose thinking is bound to its prefix (`thinking_bound`)
a request that set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block" has
the blocks whose prefix changed dropped, each listed in the reply's
`input_transformations` (without that setting `check_request` refuses the request first,
with the API's 400).

Left out: `display` ("summarized" or "omitted" thinking) beyond its type, interleaved
thinking's beta header, and thoughts worth reading (the double's trace is "Thinking
about: <the question>").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import UsageError
from ...models import EFFORTS, rules_of
from ...transcript import Transcript
from ...turn import Turn
from ..problem import Problem
from ..signing import prefix_mismatches, signature_is_ours, verify_thinking
from ._blocks import API_NAME, MIN_BUDGET, Merged

__all__ = ["SKIPS_THINKING_AT", "as_the_model_reads_it", "binding_problems", "block_problems",
           "budget_problems", "check_effort", "prefix_mismatch_behavior", "thinking_config", "thinks"]


# -- the request's `thinking` object -------------------------------------------------------------
def thinking_config(thinking: int | str) -> dict[str, Any]:
    """The request's `thinking` object for a budget, "adaptive" or "disabled".

    >>> thinking_config(2048), thinking_config("adaptive")
    ({'type': 'enabled', 'budget_tokens': 2048}, {'type': 'adaptive'})
    """
    # subtle: bool is an int; thinking=True would become a budget of 1 token.
    if isinstance(thinking, int) and not isinstance(thinking, bool):
        # Faithful, not repairing: a budget below 1024 is sent, and check_request flags it.
        return {"type": "enabled", "budget_tokens": thinking}
    if thinking in ("adaptive", "disabled"):
        return {"type": thinking}
    raise UsageError(f"thinking must be None, 'adaptive', 'disabled' or a token budget (an int of at "
                     f"least {MIN_BUDGET}, for models with manual extended thinking), got {thinking!r}.")


def check_effort(effort: str) -> str:
    """`effort` if it is one of the API's effort levels; a ValueError naming them if not."""
    if effort not in EFFORTS:
        raise UsageError(f"effort must be one of {', '.join(EFFORTS)}, got {effort!r}.")
    return effort


# -- the rules: budget, signatures, thinking first in a tool loop -------------------------------
def _problem(path: str, text: str) -> Problem:
    return Problem(API_NAME, path, text)


def budget_problems(body: Mapping[str, Any]) -> list[Problem]:
    thinking = body.get("thinking") or {}
    budget = thinking.get("budget_tokens")
    if thinking.get("type") != "enabled" or not isinstance(budget, int):
        return []
    if budget < MIN_BUDGET:
        path = "thinking.enabled.budget_tokens"
        return [_problem(path, f"{path}: Input should be greater than or equal to {MIN_BUDGET}")]
    if body.get("max_tokens", 0) <= budget:
        # The API's words as reported in mirrorange/clove#39 (a call to api.anthropic.com)
        # and liuw1535/antigravity2api-nodejs#149. It has no path prefix.
        return [_problem("max_tokens", "`max_tokens` must be greater than `thinking.budget_tokens`. "
                         "Please consult our documentation at https://docs.claude.com/en/docs/"
                         "build-with-claude/extended-thinking#max-tokens-and-context-window-size")]
    return []


def _turn_start(merged: Sequence[Merged]) -> int | None:
    """Where the final assistant *turn* starts: a tool loop is one turn, however many messages.

    e.g. user "q", assistant [thinking, tool_use], user [tool_result], assistant [tool_use],
    user [tool_result] -> 1 (the second call carries no thinking of its own).
    """
    start = next((i for i in range(len(merged) - 1, -1, -1) if merged[i].role == "assistant"), None)
    while (start is not None and start >= 2 and merged[start - 2].role == "assistant"
           and _only_results(merged[start - 1])):
        start -= 2
    return start


def _only_results(message: Merged) -> bool:
    return bool(message.blocks) and all(b.get("type") == "tool_result" for b in message.blocks)


def block_problems(body: Mapping[str, Any], merged: Sequence[Merged]) -> list[Problem]:
    """Thinking in a tool loop: present, first, signed, and unmodified."""
    problems = []
    assistants = [i for i, m in enumerate(merged) if m.role == "assistant"]
    for index in assistants:
        for position, block in enumerate(merged[index].blocks):
            if block.get("type") == "thinking" and not block.get("signature"):
                path = f"messages.{index}.content.{position}"
                problems.append(_problem(path, f"{path}: Invalid `signature` in `thinking` block"))
    start = _turn_start(merged)
    for index in [i for i in assistants if start is not None and i >= start]:
        for position, block in enumerate(merged[index].blocks):
            signature = block.get("signature")
            # subtle: only the double's own signatures can be checked; a real one is
            # Anthropic's secret and passes unexamined (the real API will judge it).
            if (block.get("type") == "thinking" and signature_is_ours(signature)
                    and not verify_thinking(block.get("thinking", ""), signature)):
                path = f"messages.{index}.content.{position}"
                problems.append(_problem(path, f"{path}: `thinking` or `redacted_thinking` blocks in the "
                                         "latest assistant message cannot be modified. These blocks must "
                                         "remain as they were in the original response."))
    thinking_on = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
    in_tool_loop = (len(merged) >= 2 and merged[-1].role == "user" and merged[-2].role == "assistant"
                    and any(b.get("type") == "tool_result" for b in merged[-1].blocks))
    # subtle: the thinking sits in the turn's *first* message; after a tool_result Claude
    # thinks no more until the next question, so later steps of the loop start with tool_use.
    if thinking_on and in_tool_loop and start is not None and merged[start].blocks:
        first = merged[start].blocks[0].get("type")
        if first not in ("thinking", "redacted_thinking"):
            path = f"messages.{start}.content.0.type"
            problems.append(_problem(path, (
                f"{path}: Expected `thinking` or `redacted_thinking`, but found `{first}`. When "
                "`thinking` is enabled, a final `assistant` message must start with a thinking block "
                "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you "
                "include thinking blocks from previous turns. To avoid this requirement, disable "
                "`thinking`. Please consult our documentation at "
                "https://docs.claude.com/en/docs/build-with-claude/extended-thinking")))
    return problems


# -- preserved thinking: a thinking block is bound to what came before it --------------------------
def prefix_mismatch_behavior(body: Mapping[str, Any]) -> str:
    """What the request asks the API to do with a thinking block whose prefix changed.

    `thinking.block_binding.prefix_mismatch_behavior`: "error" (the default) or "drop_block"
    (anthropic 2.15, `BetaThinkingBlockBindingParam`).

    >>> prefix_mismatch_behavior({"thinking": {"type": "adaptive",
    ...     "block_binding": {"prefix_mismatch_behavior": "drop_block"}}})
    'drop_block'
    >>> prefix_mismatch_behavior({"thinking": {"type": "adaptive"}})
    'error'
    """
    thinking = body.get("thinking")
    binding = thinking.get("block_binding") if isinstance(thinking, Mapping) else None
    chosen = binding.get("prefix_mismatch_behavior") if isinstance(binding, Mapping) else None
    return str(chosen or "error")


def binding_problems(body: Mapping[str, Any]) -> list[Problem]:
    """On a model with preserved thinking, a thinking block whose prefix changed is refused.

    The rule and the texts: Anthropic's preserved-thinking pages. An edit of anything
    before a returned thinking block (a redacted tool result, a compaction, a rebuilt
    system prompt) makes "that block and every later thinking block" invalid, and "the API
    rejects the request with a 400 error or drops the invalid blocks, whichever you
    choose": with "drop_block" the request goes through (the API double drops the blocks
    and lists them in `input_transformations`). The path counts the messages as sent,
    like the API's `input_transformations` paths. Only the double's own signatures carry
    a prefix the kit can check (`wire.signing`); a real one passes, for the API to judge.
    """
    if not rules_of(str(body.get("model", ""))).thinking_bound or prefix_mismatch_behavior(body) != "error":
        return []
    found = prefix_mismatches(body)
    if not found:
        return []
    path = "messages.{}.content.{}".format(*found[0])
    return [_problem(path, f"{path}: Invalid `signature` in `thinking` block. The block is bound to a "
                     "different conversation. Remove the block, or set "
                     '`thinking.block_binding.prefix_mismatch_behavior` to "drop_block".')]


# -- the API double: when its Claude thinks, and what it reads of the thinking sent back ----------
#: The effort at which the double's Claude skips thinking on a reply that calls no tool.
SKIPS_THINKING_AT = "low"


def thinks(body: Mapping[str, Any], transcript: Transcript, turn: Turn) -> bool:
    """Whether the double's Claude thinks before `turn`, the reply to `body` (see the module docstring).

    >>> from toolcall_lab import Message, StopReason, Transcript, Turn, Usage
    >>> hello = Turn(Message.assistant("Hello!"), StopReason.END_TURN, Usage(5, 2), "claude-haiku-5-5")
    >>> asked = Transcript(messages=[Message.user("Hi")])
    >>> [thinks({"thinking": {"type": "adaptive"}, "output_config": {"effort": effort}}, asked, hello)
    ...  for effort in ("low", "high")]
    [False, True]
    """
    mode = (body.get("thinking") or {}).get("type")
    # subtle: after a tool_result Anthropic sends no new thinking until the next question.
    last = transcript.messages[-1] if transcript.messages else None
    after_results = last is not None and last.role == "user" and all(
        b.kind == "tool_result" for b in last.blocks)
    effort = (body.get("output_config") or {}).get("effort")
    skipped = mode == "adaptive" and effort == SKIPS_THINKING_AT and not turn.tool_calls
    return mode in ("enabled", "adaptive") and not after_results and not skipped


def as_the_model_reads_it(body: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[dict[str, str]]]:
    """A request as the model reads it, and the `input_transformations` that say so.

    Two rules of the model's row take thinking out: blocks whose prefix changed, when the
    request asked for "drop_block" (each listed, with the API's reason), and, on a model
    that does not keep earlier turns' thinking, the thinking of every turn before the
    current one (stripped silently, as the API does: it is simply not counted). The
    current turn starts at the last user message that is not only tool results: its tool
    loop's thinking always counts.
    """
    rules = rules_of(str(body.get("model", "")))
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if len(messages) != len(body.get("messages") or []):
        return body, []  # not a body the codec wrote; the rules have refused it already
    gone: set[tuple[int, int]] = set()
    dropped = _dropped_for_binding(body, messages, gone) if rules.thinking_bound else []
    if rules.keeps_thinking is False:
        questions = [i for i, m in enumerate(messages) if m.get("role") == "user" and not _answers_only(m)]
        current = questions[-1] if questions else 0
        gone |= {(i, k) for i, m in enumerate(messages[:current]) if m.get("role") == "assistant"
                 for k in range(len(m.get("content") or [])) if _is_thinking(m.get("content"), k)}
    if not gone:
        return body, dropped
    kept = [{**m, "content": [b for k, b in enumerate(m["content"]) if (i, k) not in gone]}
            if isinstance(m.get("content"), list) else m for i, m in enumerate(messages)]
    return {**body, "messages": kept}, dropped


def _dropped_for_binding(body: Mapping[str, Any], messages: Sequence[dict[str, Any]],
                         gone: set[tuple[int, int]]) -> list[dict[str, str]]:
    """With "drop_block", the thinking whose prefix changed: added to `gone`, and listed."""
    dropped: list[dict[str, str]] = []
    if prefix_mismatch_behavior(body) != "drop_block":
        return dropped
    for i, j in prefix_mismatches(body):
        # subtle: "the rest of that turn's consecutive thinking blocks are removed with it"
        # (anthropic 2.15, BetaThinkingDroppedInputTransformation.reason).
        content = messages[i].get("content")
        run = range(j, len(content)) if isinstance(content, list) else range(j, j + 1)
        for k in run:
            if (i, k) in gone or not _is_thinking(content, k):
                break
            gone.add((i, k))
            dropped.append({"type": "thinking_dropped", "path": f"messages.{i}.content.{k}",
                            "reason": "prefix_binding_mismatch"})
    return dropped


def _is_thinking(content: object, k: int) -> bool:
    return (isinstance(content, list) and k < len(content) and isinstance(content[k], dict)
            and content[k].get("type") in ("thinking", "redacted_thinking"))


def _answers_only(message: Mapping[str, Any]) -> bool:
    """Whether a user message holds only tool results (it continues a turn, asks nothing new)."""
    content = message.get("content")
    return isinstance(content, list) and bool(content) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
