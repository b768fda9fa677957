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
    a message thread's field          platform.claude.com/docs/en/build-with-claude/message-threads
                                      (threads.py; its words for a continue are written here)
    a 1h breakpoint after a 5m one    cnighswonger/claude-code-cache-fix#44

Texts from elsewhere carry their source beside them, and the few written here in the
API's style say so.

Some rules depend on the model (`models.rules_of(body["model"])`): which `thinking`
modes it takes (Claude Haiku 5.5 refuses a manual `budget_tokens`; Haiku 4.5 knows
nothing else), whether it takes non-default `temperature`/`top_p`/`top_k`, an assistant
prefill, forced `tool_choice`, `output_config.effort`. A model not in the table is
checked by the model-independent rules only.

Thinking the API double invented carries its signature (`wire.signing`), so an edited
block is caught. Real signatures are Anthropic's secret: they cannot be verified
offline, and pass unexamined (the real API will judge them).

The rules about the thinking a request sends back (its budget, its signatures, thinking
first in a tool loop, preserved thinking's prefix binding) are kept with the rest of
thinking, in `thinking.py`; the rules about breakpoints with prompt caching, in
`caching.py`. `check_request` here runs them all, in the API's order.
"""


from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...models import Rules, rules_of
from ..problem import Problem
from ._blocks import API_NAME, Merged, merge
from .caching import breakpoint_problems
from .thinking import binding_problems, block_problems, budget_problems
from .threads import is_continue, thread_problems

__all__ = ["check_request"]

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")


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

    A request that continues a message thread (`threads.py`) sends only the new messages:
    its `thread` field is checked, and the conversation's rules wait for the conversation the
    API rebuilds (the API double checks that one).
    """
    if is_continue(body):
        return thread_problems(body) + _check_output_format(body) + budget_problems(body)
    merged = merge(body.get("messages") or [])
    problems = thread_problems(body) + _check_tools(body) + _check_output_format(body)
    problems += breakpoint_problems(body) + budget_problems(body)
    problems += _check_model_rules(body, merged)
    problems += _check_content(merged)
    for index, message in enumerate(merged):
        if message.role == "user":
            problems += _check_results(merged, index)
        elif message.role == "assistant":
            problems += _check_calls(merged, index)
    problems += block_problems(body, merged)
    problems += binding_problems(body)
    return problems


def _problem(path: str, text: str) -> Problem:
    return Problem(API_NAME, path, text)


def _check_output_format(body: Mapping[str, Any]) -> list[Problem]:
    """Structured output's one recorded rule: every object in the schema closed.

    Anthropic's structured outputs page lists `additionalProperties` as supported only when
    "set to `false` for objects" and anything else as not supported
    (https://platform.claude.com/docs/en/build-with-claude/structured-outputs). Unlike OpenAI's
    strict mode, properties may be optional: `required` may leave some out. The text is the
    one reported from live traffic (Claude through Amazon Bedrock, future-agi/future-agi#411):
    "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly
    set to false". The page's JSON Schema limitations also list numerical constraints
    (minimum, maximum, multipleOf, ...), string constraints (minLength, maxLength) and array
    constraints beyond minItems 0 or 1 as not supported, and the API refuses them in the words
    of live traffic: "output_format.schema: For 'integer' type, property 'minimum' is not
    supported" (agentjido/req_llm#302, a 400 `invalid_request_error`; the same words under
    `output_config.format.schema` today), `_unsupported_constraint`; the words for the other
    keys follow that one's pattern (written here). Recursive schemas are not checked. The `anthropic` SDK's
    `transform_schema` (used by `messages.parse` with a Pydantic model) moves such keys into
    the description instead; a schema sent as a dict goes as it is, and is refused.

    >>> spec = {"type": "json_schema", "schema": {"type": "object", "properties": {
    ...         "city": {"type": "object"}}, "additionalProperties": False}}
    >>> [p.path for p in _check_output_format({"output_config": {"format": spec}})]
    ['output_config.format.schema']
    """
    spec = (body.get("output_config") or {}).get("format")
    if not isinstance(spec, Mapping):
        return []
    path = "output_config.format.schema"
    if _has_open_object(spec.get("schema")):
        return [_problem(path, f"{path}: For 'object' type, 'additionalProperties' must be explicitly set "
                               "to false")]
    found = _unsupported_constraint(spec.get("schema"))
    if found is None:
        return []
    kind, key = found
    return [_problem(path, f"{path}: For '{kind}' type, property '{key}' is not supported")]


#: Per JSON type, the constraints Anthropic's structured outputs refuse (the page's "Not
#: supported" list); `minItems` is refused only above 1 ("beyond minItems of 0 or 1").
UNSUPPORTED_CONSTRAINTS = {
    "integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems", "uniqueItems"),
    "object": ("minProperties", "maxProperties"),
}


def _unsupported_constraint(schema: object) -> tuple[str, str] | None:
    """(type, keyword) of the first constraint in `schema` Anthropic refuses, or None.

    >>> _unsupported_constraint({"type": "object", "properties": {"room": {"type": "integer", "minimum": 1}}})
    ('integer', 'minimum')
    >>> _unsupported_constraint({"type": "array", "items": {"type": "string"}, "minItems": 1}) is None
    True
    """
    if isinstance(schema, list):
        return next((found for item in schema if (found := _unsupported_constraint(item))), None)
    if not isinstance(schema, Mapping):
        return None
    kinds = schema.get("type")
    for kind in kinds if isinstance(kinds, list) else [kinds]:
        if not isinstance(kind, str):
            continue
        for key in UNSUPPORTED_CONSTRAINTS.get(kind, ()):
            if key in schema and not (key == "minItems" and schema[key] in (0, 1)):
                return kind, key
    nested = [*(schema.get("properties") or {}).values(), schema.get("items"),
              *(schema.get("anyOf") or []), *(schema.get("allOf") or []),
              *(schema.get("$defs") or {}).values()]
    return _unsupported_constraint(nested)


def _has_open_object(schema: object) -> bool:
    """Whether any object in `schema` (nested properties, items, anyOf, $defs too) is left open."""
    if isinstance(schema, list):
        return any(_has_open_object(item) for item in schema)
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if (kind == "object" or isinstance(kind, list) and "object" in kind) and \
            schema.get("additionalProperties") is not False:
        return True
    nested = [*(schema.get("properties") or {}).values(), schema.get("items"),
              *(schema.get("anyOf") or []), *(schema.get("$defs") or {}).values()]
    return any(_has_open_object(item) for item in nested)


def _check_tools(body: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for index, tool in enumerate(body.get("tools") or []):
        name = tool.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            path = f"tools.{index}.custom.name"
            problems.append(_problem(path, f"{path}: String should match pattern '{_TOOL_NAME.pattern}'"))
    return problems


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

def _check_model_rules(body: Mapping[str, Any], merged: Sequence[Merged]) -> list[Problem]:
    """What this model refuses that other models take: thinking modes, sampling, prefill, forcing.

    e.g. {"model": "claude-haiku-5-5", "thinking": {"type": "enabled", "budget_tokens": 2048}}
    -> thinking.type: '"thinking.type.enabled" is not supported for this model. Use ...'.
    """
    rules = rules_of(str(body.get("model", "")))
    thinking = body.get("thinking") or {}
    mode = thinking.get("type") if isinstance(thinking, Mapping) else None
    effort = (body.get("output_config") or {}).get("effort")
    thinking_on = mode in ("enabled", "adaptive")
    return (_mode_problems(rules, mode, effort) + _effort_problems(rules, effort)
            + _sampling_problems(rules, body, thinking_on=thinking_on) + _prefill_problems(rules, merged)
            + _forcing_problems(rules, body, thinking_on=thinking_on))


def _mode_problems(rules: Rules, mode: object, effort: object) -> list[Problem]:
    """A `thinking.type` the model does not take, or "disabled" at an effort that needs thinking."""
    if mode and rules.thinking is not None and mode not in rules.thinking:
        if mode in ("enabled", "disabled"):
            text = f'"thinking.type.{mode}" is not supported for this model. {_USE_ADAPTIVE}'
        else:  # paraphrased in the API's style: no recorded text for these two
            fix = ('Use "thinking.type.enabled" with "thinking.budget_tokens".' if "enabled" in rules.thinking
                   else _USE_ADAPTIVE)
            text = f'"thinking.type.{mode}" is not supported for this model. {fix}'
        return [_problem("thinking.type", text)]
    if mode == "disabled" and effort in rules.no_disable_at:
        # Paraphrased: the docs say such requests "return a 400 error" but give no text.
        return [_problem("thinking.type", f'"thinking.type.disabled" is not supported with '
                         f'"output_config.effort" "{effort}" for this model. {_USE_ADAPTIVE}')]
    return []


def _effort_problems(rules: Rules, effort: object) -> list[Problem]:
    """An `output_config.effort` the model does not take (or any, on a model without effort)."""
    if effort is None or rules.efforts is None or effort in rules.efforts:
        return []
    # Paraphrased in the API's style: no recorded text.
    return [_problem("output_config.effort",
                     "output_config.effort: this model does not support the effort parameter."
                     if not rules.efforts else
                     f'output_config.effort: "{effort}" is not supported for this model.')]


def _sampling_problems(rules: Rules, body: Mapping[str, Any], *, thinking_on: bool) -> list[Problem]:
    """Sampling the model refuses: any but the default, both `temperature` and `top_p`, or a
    `temperature` other than 1 beside thinking."""
    sampled = [name for name in ("temperature", "top_p", "top_k")
               if body.get(name) is not None and body.get(name) != _DEFAULTS.get(name)]
    problems = []
    if rules.sampling == "default" and sampled:
        problems.append(_problem(sampled[0], f"`{sampled[0]}` is deprecated for this model."))
    elif rules.sampling == "one" and body.get("temperature") is not None and body.get("top_p") is not None:
        # bedrock-chat#979 quotes the words; the second sentence is the API's usual advice, paraphrased.
        problems.append(_problem("temperature", "`temperature` and `top_p` cannot both be specified for "
                                 "this model. Please use only one."))
    if thinking_on and "temperature" in sampled and rules.sampling != "default":
        problems.append(_problem("temperature", (
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation "
            "at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking"
            "#important-considerations-when-using-extended-thinking")))
    return problems


def _prefill_problems(rules: Rules, merged: Sequence[Merged]) -> list[Problem]:
    """A conversation that ends with the assistant's words, on a model that takes no prefill."""
    if rules.prefill or not merged or merged[-1].role != "assistant" or _paused(merged[-1]):
        return []
    return [_problem(f"messages.{len(merged) - 1}", "This model does not support assistant "
                     "message prefill. The conversation must end with a user message.")]


def _forcing_problems(rules: Rules, body: Mapping[str, Any], *, thinking_on: bool) -> list[Problem]:
    """A `tool_choice` that forces a call beside thinking, or on a model that never takes one."""
    choice = body.get("tool_choice") or {}
    forced = isinstance(choice, Mapping) and choice.get("type") in ("any", "tool")
    # subtle: only thinking the request turns on counts; the newest models think by default,
    # but whether a forced tool_choice then fails is not settled by the sources (the models
    # overview, https://platform.claude.com/docs/en/about-claude/models/overview, and the
    # tool-use table of https://platform.claude.com/docs/en/about-claude/pricing).
    if forced and (thinking_on or rules.forced_tools == "never"):
        return [_problem("tool_choice", "Thinking may not be enabled when tool_choice forces tool use.")]
    return []


def _paused(last: Merged) -> bool:
    """Whether a conversation's last, assistant turn is a paused one sent back to go on.

    subtle: `pause_turn` ends a reply whose server-tool loop hit its limit, and the way on
    is to send that reply back as the last message ("Send the assistant content back to
    continue", https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons).
    That is not a prefill, so a model that refuses prefill takes it. The reply is known by
    the provider's own tool blocks in it (`server_tool_use`), which no prefill holds.
    """
    return any(b.get("type") == "server_tool_use" for b in last.blocks)


def _check_content(merged: Sequence[Merged]) -> list[Problem]:
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


def _check_results(merged: Sequence[Merged], index: int) -> list[Problem]:
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


def _check_calls(merged: Sequence[Merged], index: int) -> list[Problem]:
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
