"""The Anthropic Messages API's rules: what `POST /v1/messages` refuses, in its own words.

`check_request` plays the API's own validator. The API first *merges* consecutive
messages of one role, then checks, so every path it reports ("messages.0.content.1")
counts merged messages.

The texts are the API's, word for word, from recorded 400s; the rules behind them are
in Anthropic's docs (https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls,
https://platform.claude.com/docs/en/build-with-claude/extended-thinking):

    text                              recorded in
    tool_result without tool_use      tests/fixtures/anthropic_error_tool_result_without_tool_use.body.json
    tool_use without tool_result      anthropics/claude-code#5989
    no messages                       langgenius/dify#25953
    empty message, empty/blank text   anthropics/claude-code#6774, #59812, #23440
    thinking edited, bad signature    anthropics/claude-code#25361, #10627
    thinking bound to another prefix  platform.claude.com/docs/en/build-with-claude/preserved-thinking/
                                      fix-bound-to-a-different-conversation (the error it quotes)
    no thinking first in a tool       the outputs of Anthropic's cookbook
    loop, budget below 1024,          (github.com/anthropics/claude-cookbooks, extended_thinking/)
    temperature with thinking
    tool name pattern                 modelcontextprotocol#1345
    more than four cache breakpoints  tghamm/Anthropic.SDK#50, Wei-Shaw/sub2api#176
    a 1h breakpoint after a 5m one    cnighswonger/claude-code-cache-fix#44

Texts from elsewhere carry their source beside them, and the few written here in the
API's style say so.

Some rules depend on the model (`models.rules_of(body["model"])`): which `thinking`
modes it takes (Claude Haiku 5.5 refuses a manual `budget_tokens`; Haiku 4.5 knows
nothing else), whether it takes non-default `temperature`/`top_p`/`top_k`, an assistant
prefill, forced `tool_choice`, `output_config.effort`. A model not in the table is
checked by the model-independent rules only.

Thinking the API double invented carries its signature (`wire.signing`), so an edited
block is caught here. Real signatures are Anthropic's secret: they cannot be verified
offline, and pass unexamined (the real API will judge them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...models import rules_of
from ..anthropic import _MIN_BUDGET, API_NAME
from ..problem import Problem
from ..signing import prefix_mismatches, signature_is_ours, verify_thinking

__all__ = ["MAX_BREAKPOINTS", "breakpoints", "check_request", "prefix_mismatch_behavior"]

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


@dataclass
class _Merged:
    """A message after the API merged same-role neighbours: its blocks, in order."""

    role: str
    blocks: list[Mapping[str, Any]] = field(default_factory=list)

    def ids(self, kind: str, key: str) -> list[str]:
        return [b.get(key, "") for b in self.blocks if b.get("type") == kind]


def _merge(messages: Sequence[object]) -> list[_Merged]:
    """Consecutive messages of one role as one, the way the API reads them.

    e.g. user [text], user [tool_result] -> one user message [text, tool_result].
    """
    merged: list[_Merged] = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue  # the SDK's types reject it; nothing here to check
        content = message.get("content")
        if isinstance(content, str):
            # subtle: "" is no content at all, not an empty text block.
            content = [{"type": "text", "text": content}] if content else []
        blocks = [b for b in content or [] if isinstance(b, Mapping)]
        if merged and merged[-1].role == message.get("role"):
            merged[-1].blocks.extend(blocks)
        else:
            merged.append(_Merged(str(message.get("role")), blocks))
    return merged


def check_request(body: Mapping[str, Any]) -> list[Problem]:
    """What the real API would reject in this request body, in the API's words ([] if nothing).

    Paths count messages the way the API does, after merging same-role neighbours: two
    user messages in a row are one message, `messages.0`, and the second one's first
    block is `messages.0.content.1`.

    >>> body = {"model": "m", "max_tokens": 64, "messages": [
    ...     {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
    ...     {"role": "user", "content": [
    ...         {"type": "tool_result", "tool_use_id": "toolu_9", "content": "18°C"}]}]}
    >>> [p.path for p in check_request(body)]
    ['messages.0.content.1']
    """
    merged = _merge(body.get("messages") or [])
    problems = _check_tools(body) + _check_cache_control(body) + _check_thinking_config(body)
    problems += _check_model_rules(body, merged)
    problems += _check_content(merged)
    for index, message in enumerate(merged):
        if message.role == "user":
            problems += _check_results(merged, index)
        elif message.role == "assistant":
            problems += _check_calls(merged, index)
    problems += _check_thinking_blocks(body, merged)
    problems += _check_prefix_binding(body)
    return problems


def _problem(path: str, text: str) -> Problem:
    return Problem(API_NAME, path, text)


def _check_tools(body: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for index, tool in enumerate(body.get("tools") or []):
        name = tool.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            path = f"tools.{index}.custom.name"
            problems.append(_problem(path, f"{path}: String should match pattern '{_TOOL_NAME.pattern}'"))
    return problems


#: The most `cache_control` breakpoints one request may carry.
MAX_BREAKPOINTS = 4


def _check_cache_control(body: Mapping[str, Any]) -> list[Problem]:
    """At most four breakpoints: on tools, system blocks, message blocks, and the top level.

    The API's words, from a recorded 400 (tghamm/Anthropic.SDK#50, Wei-Shaw/sub2api#176); it
    names no path. Counting the top-level (automatic) `cache_control` as one of the four is
    the kit's reading of the prompt-caching page, which gives automatic caching one slot.
    """
    marks = _marks(body)
    if len(marks) > MAX_BREAKPOINTS:
        return [_problem("cache_control", f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be "
                         f"provided. Found {len(marks)}.")]
    # A 1-hour breakpoint may not follow a 5-minute one (a mark without a ttl is a 5-minute one).
    # The API's words as recorded in cnighswonger/claude-code-cache-fix#44 (the full 400 body)
    # and headroomlabs-ai/headroom#2939.
    seen_5m = False
    for path, control in marks:
        ttl = str(control.get("ttl") or "5m")
        seen_5m = seen_5m or ttl == "5m"
        if ttl == "1h" and seen_5m:
            where = f"{path}.cache_control.ttl" if path != "cache_control" else "cache_control.ttl"
            return [_problem(where, f"{where}: a ttl='1h' cache_control block must not come after a ttl='5m' "
                             "cache_control block. Note that blocks are processed in the following order: "
                             "`tools`, `system`, `messages`.")]
    return []


def breakpoints(body: Mapping[str, Any]) -> list[str]:
    """The paths of every `cache_control` in a request body, in the order of the prompt.

    >>> breakpoints({"tools": [{"name": "t", "cache_control": {"type": "ephemeral"}}],
    ...              "messages": [{"role": "user", "content": [
    ...                  {"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}]})
    ['tools.0', 'messages.0.content.0']
    """
    return [path for path, _ in _marks(body)]


def _marks(body: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(path, its cache_control) for every breakpoint, in the order the API processes them."""
    def marked(blocks: object, path: str) -> list[tuple[str, Mapping[str, Any]]]:
        found: list[tuple[str, Mapping[str, Any]]] = []
        for index, block in enumerate(blocks if isinstance(blocks, list) else []):
            if isinstance(block, Mapping):
                control = block.get("cache_control")
                if control is not None:
                    found.append((f"{path}.{index}", control if isinstance(control, Mapping) else {}))
                found += marked(block.get("content"), f"{path}.{index}.content")  # inside a tool_result
        return found

    marks = marked(body.get("tools"), "tools") + marked(body.get("system"), "system")
    for index, message in enumerate(body.get("messages") or []):
        if isinstance(message, Mapping):
            marks += marked(message.get("content"), f"messages.{index}.content")
    control = body.get("cache_control")
    if control is not None:  # automatic caching: on the last block, so processed last
        marks.append(("cache_control", control if isinstance(control, Mapping) else {}))
    return marks


def _check_thinking_config(body: Mapping[str, Any]) -> list[Problem]:
    thinking = body.get("thinking") or {}
    budget = thinking.get("budget_tokens")
    if thinking.get("type") != "enabled" or not isinstance(budget, int):
        return []
    if budget < _MIN_BUDGET:
        path = "thinking.enabled.budget_tokens"
        return [_problem(path, f"{path}: Input should be greater than or equal to {_MIN_BUDGET}")]
    if body.get("max_tokens", 0) <= budget:
        # The API's words as reported in mirrorange/clove#39 (a call to api.anthropic.com)
        # and liuw1535/antigravity2api-nodejs#149. It has no path prefix.
        return [_problem("max_tokens", "`max_tokens` must be greater than `thinking.budget_tokens`. "
                         "Please consult our documentation at https://docs.claude.com/en/docs/"
                         "build-with-claude/extended-thinking#max-tokens-and-context-window-size")]
    return []


# -- rules that depend on the model ------------------------------------------------------------
# Texts quoted from live 400s, with where they were seen:
#   manual thinking / disabled: memberjunction docs (claude-sonnet-5, observed) and
#     OnesoftQwQ/opencode-go-copilot v1.12.1 (claude-haiku-5-5); dev.to "Claude Opus 5.5 /
#     Sonnet 5.5: 5 settings that return 400" (disabled, Opus 5.5, 2026-10-06).
#   prefill: smallmain/vscode-unify-chat-provider#249 (full body), TunnelVision#5.
#   sampling: RooCodeInc/Roo-Code#12162 (Anthropic's body relayed by Bedrock, Opus 4.7).
#   temperature with thinking: MartialBE/one-hub#529 (with the docs link it names).
#   forced tool use with thinking: mastra-ai/mastra#7507, can1357/oh-my-pi#341.
_USE_ADAPTIVE = 'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
_DEFAULTS = {"temperature": 1.0}  # top_p and top_k have no default a request can repeat


def _check_model_rules(body: Mapping[str, Any], merged: Sequence[_Merged]) -> list[Problem]:
    """What this model refuses that other models take: thinking modes, sampling, prefill, forcing."""
    rules = rules_of(str(body.get("model", "")))
    thinking = body.get("thinking") or {}
    mode = thinking.get("type") if isinstance(thinking, Mapping) else None
    effort = (body.get("output_config") or {}).get("effort")
    problems = []
    if mode and rules.thinking is not None and mode not in rules.thinking:
        if mode in ("enabled", "disabled"):
            text = f'"thinking.type.{mode}" is not supported for this model. {_USE_ADAPTIVE}'
        else:  # paraphrased in the API's style: no recorded text for these two
            fix = ('Use "thinking.type.enabled" with "thinking.budget_tokens".' if "enabled" in rules.thinking
                   else _USE_ADAPTIVE)
            text = f'"thinking.type.{mode}" is not supported for this model. {fix}'
        problems.append(_problem("thinking.type", text))
    elif mode == "disabled" and effort in rules.no_disable_at:
        # Paraphrased: the docs say such requests "return a 400 error" but give no text.
        problems.append(_problem("thinking.type", f'"thinking.type.disabled" is not supported with '
                                 f'"output_config.effort" "{effort}" for this model. {_USE_ADAPTIVE}'))
    if effort is not None and rules.efforts is not None and effort not in rules.efforts:
        # Paraphrased in the API's style: no recorded text.
        problems.append(_problem("output_config.effort",
                                 "output_config.effort: this model does not support the effort parameter."
                                 if not rules.efforts else
                                 f'output_config.effort: "{effort}" is not supported for this model.'))
    sampled = [name for name in ("temperature", "top_p", "top_k")
               if body.get(name) is not None and body.get(name) != _DEFAULTS.get(name)]
    if rules.sampling == "default" and sampled:
        problems.append(_problem(sampled[0], f"`{sampled[0]}` is deprecated for this model."))
    elif rules.sampling == "one" and body.get("temperature") is not None and body.get("top_p") is not None:
        # bedrock-chat#979 quotes the words; the second sentence is the API's usual advice, paraphrased.
        problems.append(_problem("temperature", "`temperature` and `top_p` cannot both be specified for "
                                 "this model. Please use only one."))
    thinking_on = mode in ("enabled", "adaptive")
    if thinking_on and "temperature" in sampled and rules.sampling != "default":
        problems.append(_problem("temperature", (
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation "
            "at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking"
            "#important-considerations-when-using-extended-thinking")))
    if not rules.prefill and merged and merged[-1].role == "assistant" and not _paused(merged[-1]):
        problems.append(_problem(f"messages.{len(merged) - 1}", "This model does not support assistant "
                                 "message prefill. The conversation must end with a user message."))
    choice = body.get("tool_choice") or {}
    forced = isinstance(choice, Mapping) and choice.get("type") in ("any", "tool")
    # subtle: only thinking the request turns on counts; the newest models think by default,
    # but whether a forced tool_choice then fails is not settled by the sources (the models
    # overview, https://platform.claude.com/docs/en/about-claude/models/overview, and the
    # tool-use table of https://platform.claude.com/docs/en/about-claude/pricing).
    if forced and (thinking_on or rules.forced_tools == "never"):
        problems.append(_problem("tool_choice",
                                 "Thinking may not be enabled when tool_choice forces tool use."))
    return problems


def _paused(last: _Merged) -> bool:
    """Whether a conversation's last, assistant turn is a paused one sent back to go on.

    subtle: `pause_turn` ends a reply whose server-tool loop hit its limit, and the way on
    is to send that reply back as the last message ("Send the assistant content back to
    continue", https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons).
    That is not a prefill, so a model that refuses prefill takes it. The reply is known by
    the provider's own tool blocks in it (`server_tool_use`), which no prefill holds.
    """
    return any(b.get("type") == "server_tool_use" for b in last.blocks)


def _check_content(merged: Sequence[_Merged]) -> list[Problem]:
    """No messages, empty messages, then empty or blank text blocks (the API names no block for those)."""
    if not merged:
        # The API's words as recorded in langgenius/dify#25953 and devoxx/DevoxxGenieIDEAPlugin#567.
        return [_problem("messages", "messages: at least one message is required")]
    problems = []
    for index, message in enumerate(merged):
        final_assistant = index == len(merged) - 1 and message.role == "assistant"
        if not message.blocks and not final_assistant:
            problems.append(_problem(f"messages.{index}", f"messages.{index}: all messages must have "
                                     "non-empty content except for the optional final assistant message"))
    texts = [b.get("text") for m in merged for b in m.blocks if b.get("type") == "text"]
    if any(t == "" for t in texts):
        problems.append(_problem("messages", "messages: text content blocks must be non-empty"))
    if any(isinstance(t, str) and t and not t.strip() for t in texts):
        problems.append(_problem("messages",
                                 "messages: text content blocks must contain non-whitespace text"))
    return problems


def _check_results(merged: Sequence[_Merged], index: int) -> list[Problem]:
    """Every tool_result in user message `index` answers a tool_use of the message before."""
    before = merged[index - 1] if index > 0 and merged[index - 1].role == "assistant" else None
    asked = set(before.ids("tool_use", "id")) if before else set()
    stray = [(position, block.get("tool_use_id", "")) for position, block in enumerate(merged[index].blocks)
             if block.get("type") == "tool_result" and block.get("tool_use_id") not in asked]
    if stray:
        path = f"messages.{index}.content.{stray[0][0]}"
        ids = ", ".join(call_id for _, call_id in stray)
        return [_problem(path, f"{path}: unexpected `tool_use_id` found in `tool_result` blocks: {ids}. "
                         "Each `tool_result` block must have a corresponding `tool_use` block in the "
                         "previous message.")]
    seen: set[str] = set()
    for position, block in enumerate(merged[index].blocks):
        call_id = block.get("tool_use_id", "")
        if block.get("type") != "tool_result":
            continue
        if call_id in seen:
            # The API's words as quoted in public code that handles this 400 (e.g. the
            # litellm and LangChain-based repos found by searching the text); the quotes
            # start at "each tool_use", so the path prefix is written the API's usual way.
            path = f"messages.{index}.content.{position}"
            return [_problem(path, f"{path}: each tool_use must have a single result. Found multiple "
                             f"`tool_result` blocks with id: {call_id}")]
        seen.add(call_id)
    return []


def _check_calls(merged: Sequence[_Merged], index: int) -> list[Problem]:
    """Every tool_use in assistant message `index` is answered first thing in the next message."""
    calls = merged[index].ids("tool_use", "id")
    if not calls:
        return []
    after = merged[index + 1] if index + 1 < len(merged) else None
    answered = set(after.ids("tool_result", "tool_use_id")) if after else set()
    missing = [call_id for call_id in calls if call_id not in answered]
    if missing:
        path = f"messages.{index}"
        return [_problem(path, f"{path}: `tool_use` ids were found without `tool_result` blocks "
                         f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                         "corresponding `tool_result` block in the next message.")]
    assert after is not None
    leading = next((n for n, b in enumerate(after.blocks) if b.get("type") != "tool_result"),
                   len(after.blocks))
    if leading >= len(calls):
        return []
    # Every call is answered, but something comes before the answers (the docs: "tool_result
    # blocks must come FIRST", https://platform.claude.com/docs/en/agents-and-tools/tool-use/
    # handle-tool-calls). The API's words as recorded in anthropics/claude-code#37 and
    # apify/tester-mcp-client#12 (2025). Newer API versions may word it differently.
    path = f"messages.{index + 1}"
    return [_problem(path, f"{path}: Did not find {len(calls)} `tool_result` block(s) at the beginning "
                     "of this message. Messages following `tool_use` blocks must begin with a "
                     "matching number of `tool_result` blocks.")]


def _turn_start(merged: Sequence[_Merged]) -> int | None:
    """Where the final assistant *turn* starts: a tool loop is one turn, however many messages.

    e.g. user "q", assistant [thinking, tool_use], user [tool_result], assistant [tool_use],
    user [tool_result] -> 1 (the second call carries no thinking of its own).
    """
    start = next((i for i in range(len(merged) - 1, -1, -1) if merged[i].role == "assistant"), None)
    while (start is not None and start >= 2 and merged[start - 2].role == "assistant"
           and _only_results(merged[start - 1])):
        start -= 2
    return start


def _only_results(message: _Merged) -> bool:
    return bool(message.blocks) and all(b.get("type") == "tool_result" for b in message.blocks)


def _check_thinking_blocks(body: Mapping[str, Any], merged: Sequence[_Merged]) -> list[Problem]:
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


def _check_prefix_binding(body: Mapping[str, Any]) -> list[Problem]:
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
