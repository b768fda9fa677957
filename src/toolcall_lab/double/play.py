"""Playing the model: a valid request body in, the API's response body out.

`Player.answer(api, body)` reads the body with the API's codec, asks the scripted
provider for the next turn (held to the request's `tool_choice` and
`parallel_tool_calls`, as the API holds a real model), and writes the reply the API's
way: tool-call ids spelled as that API spells them, the hidden tool prompt Anthropic
bills, and reasoning where the real model would reason:

- Anthropic when `thinking` is "enabled" (a budget) or "adaptive", but not right after
  tool results (Anthropic sends no new thinking until the next question), and not when
  the model *skips* it. Adaptive thinking lets the model decide whether to think: "A
  simple factual question may get a direct response with no thinking block at all", and
  "Don't build application logic that assumes every assistant turn starts with one"
  (platform.claude.com/docs/en/build-with-claude/thinking-steering-and-cost; the
  adaptive-thinking page: at lower efforts "Claude may skip thinking for simpler
  problems"). The double's rule for it, fixed so a lesson can show it: at adaptive
  thinking with `output_config.effort` "low", a reply that calls no tool (the question
  needs none) comes without thinking. "Hello!" at effort low: text only; at high, or
  asking for the weather: thinking first;
- Responses only for a model that reasons (`models.rules_of(model).reasons`), unless
  `reasoning.effort` is "none"; a model the table does not know reasons only when the
  request sets an effort. The reply echoes the effort as the live API does: the one
  sent, else the model's default ("medium") for a reasoning model, else null;
- Ollama when `think` is set; Chat Completions never shows reasoning.

The Responses side also keeps what it answered with `store: true` (the API's default),
the last `keep` of them, so a later request can continue with `previous_response_id`.

What the model sees of the thinking sent back follows the model's row of `models.RULES`:
on a model with `keeps_thinking` False the thinking of earlier, closed turns is stripped
before the model reads the request (so it is not billed as input), and on a model whose
thinking is bound to its prefix (`thinking_bound`) a request that set
`thinking.block_binding.prefix_mismatch_behavior` to "drop_block" has the blocks whose
prefix changed dropped, each listed in the reply's `input_transformations` (without that
setting `check_request` refuses the request first, with the API's 400).

Left out: `conversation` objects, `GET /v1/responses/{id}`, and reasoning summaries
worth reading (the trace is "Thinking about: <the question>").
"""

from __future__ import annotations

import collections
import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast

from .._text import shorten
from ..errors import ToolcallLabError, UsageError
from ..messages import ReasoningBlock, ToolCall, Transcript
from ..models import rules_of, tool_prompt_tokens
from ..providers.scripted import Policy, Reply, ScriptedProvider, as_policy
from ..tokens import estimate_tokens
from ..tool import Tool
from ..tool_choice import check_tool_choice
from ..turn import Turn
from ..wire import API_SPECS, Problem
from .cache import PromptCache

__all__ = ["PROVIDER_FOR", "Player", "Unplayable", "responses_effort"]

#: The provider (registry name) that speaks each API: what `serve` tells you to use.
PROVIDER_FOR = {spec.name: spec.provider for spec in API_SPECS.values()}
#: OpenAI's reasoning models think at medium effort when the request names none: the live
#: API echoes {"effort": "medium"} (tests/fixtures/openai_responses_reasoning_encrypted_response
#: .dotnet_recorded.json, gpt-5-mini) and gpt-6-luna's model page gives medium as its default.
DEFAULT_EFFORT = "medium"


class Unplayable(UsageError):
    """Raised by `Player.answer` when the kit cannot read a well-shaped body into a
    transcript: a tool whose name or schema the kit's `Tool` refuses, a `tool_choice` naming
    no tool on offer, an input item or part the kit does not model. The double answers it
    with a 400 in the API's shape and these words, which are the double's own: the real API
    may refuse such a request in other words, or (for what the kit does not model) accept it.
    """


class Player:
    """Plays the model for every API of one double: one `ScriptedProvider` per API.

    Each provider lives as long as the double, so tool-call ids count up across
    requests; `play` is called with the lock held (a script is not thread-safe).
    """

    def __init__(self, play: Callable[[Transcript, tuple[Tool, ...]], Reply], *, keep: int = 1000,
                 cache: PromptCache | None = None) -> None:
        self.cache = cache
        self._providers = {api: ScriptedProvider(play) for api in PROVIDER_FOR}
        self._ids = {api: itertools.count(1) for api in PROVIDER_FOR}
        self._lock = threading.Lock()
        #: response id -> the whole Responses input it answered, its output appended
        self.stored: collections.OrderedDict[str, list[Any]] = collections.OrderedDict()
        self.keep = keep

    def problem(self, api: str, body: dict[str, Any]) -> tuple[int, Problem] | None:
        """(status, problem) when a Responses `previous_response_id` names nothing kept."""
        previous = body.get("previous_response_id")
        if api != "responses" or previous is None or previous in self.stored:
            return None
        # The live API's words (a 400; seen in maximhq/bifrost#2441, bigduu/Bamboo-agent#513).
        return 400, Problem("responses", "previous_response_id",
                            f"Previous response with id '{previous}' not found.",
                            param="previous_response_id", code="previous_response_not_found")

    def answer(self, api: str, body: dict[str, Any], *, held_to: tuple[str | None, bool | None] | None = None,
               adjust: Callable[[Turn], Turn] | None = None) -> dict[str, Any]:
        """The response body for a valid request `body` to `api`: the model's next reply.

        Raises `Unplayable` when the body cannot be read into a transcript; anything else
        it raises comes from the script (the policy, or a reply it cannot hold).

        A server flavour (`wire.flavours`) passes `held_to`, the (tool_choice,
        parallel_tool_calls) the server really holds the model to, and `adjust`, what the
        server does to the reply (cut it at its limit, spell its ids) before it is written.
        """
        wire = API_SPECS[api].codec
        full = self._with_history(body) if api == "responses" else body
        dropped: list[dict[str, str]] = []
        try:
            if api == "anthropic":
                full, dropped = _as_the_model_reads_it(body)
            transcript, tools = wire.decode_request(full)
            tool_choice, parallel_tool_calls = held_to or wire.decode_tool_choice(full)
            check_tool_choice(tool_choice, tools, parallel_tool_calls)
        except ToolcallLabError as exc:  # the kit cannot hold what the body says: not the script's fault
            raise Unplayable(f"The API double cannot play this request: {exc}") from None
        with self._lock:
            turn = self._providers[api].complete(transcript, tools=tools, tool_choice=tool_choice,
                                                 parallel_tool_calls=parallel_tool_calls)
            number = next(self._ids[api])
        turn = _spell_ids(replace(turn, model=body.get("model") or turn.model), api)
        if adjust is not None:
            turn = adjust(turn)
        if api == "anthropic" and tools:
            # Like the real API, bill the hidden tool-use system prompt the kit cannot see.
            hidden = tool_prompt_tokens(turn.model)
            turn = replace(turn, usage=replace(turn.usage, input_tokens=turn.usage.input_tokens + hidden))
        if self.cache is not None:
            turn = replace(turn, usage=self.cache.usage(api, full, transcript, tools, turn.usage))
        if _wants_reasoning(api, body, transcript, turn) and not turn.message.reasoning:
            turn = _with_reasoning(turn, api, transcript)
        response_id = f"{API_SPECS[api].response_id}{number:04d}"
        if api == "anthropic":
            written = _with_cache_creation(wire.encode_response(turn, response_id=response_id,
                                                                request=body), body)
            if dropped:
                written["input_transformations"] = dropped
            return written
        if api != "responses":
            return cast(dict[str, Any], wire.encode_response(turn, response_id=response_id))
        reasoning = {**(body.get("reasoning") or {}), "effort": responses_effort(body)}
        reply: dict[str, Any]  # the codec module is Any (ApiSpec.codec): say what comes back
        reply = wire.encode_response(turn, response_id=response_id, request={**body, "reasoning": reasoning})
        reply["previous_response_id"] = body.get("previous_response_id")  # subtle: the codec always says None
        if body.get("store", True):
            self._store(response_id, full, reply)
        return reply

    def _with_history(self, body: dict[str, Any]) -> dict[str, Any]:
        """`body` with the stored conversation of `previous_response_id` put before its input."""
        previous = body.get("previous_response_id")
        if previous is None:
            return body
        items = body.get("input") or []
        items = [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else items
        # subtle: `instructions` are not carried over from the earlier response; only the body's count.
        return {**body, "input": [*self.stored[previous], *items]}

    def _store(self, response_id: str, full: dict[str, Any], reply: dict[str, Any]) -> None:
        items = full.get("input") or []
        items = [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else items
        with self._lock:
            self.stored[response_id] = [*items, *reply["output"]]
            while len(self.stored) > self.keep:
                self.stored.popitem(last=False)  # the oldest goes first


def _as_the_model_reads_it(body: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """An Anthropic request as the model reads it, and the `input_transformations` that says so.

    Two rules of the model's row take thinking out: blocks whose prefix changed, when the
    request asked for "drop_block" (each listed, with the API's reason), and, on a model
    that does not keep earlier turns' thinking, the thinking of every turn before the
    current one (stripped silently, as the API does: it is simply not counted). The
    current turn starts at the last user message that is not only tool results: its tool
    loop's thinking always counts.
    """
    from ..wire.anthropic.thinking import prefix_mismatch_behavior
    from ..wire.signing import prefix_mismatches

    rules = rules_of(str(body.get("model", "")))
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if len(messages) != len(body.get("messages") or []):
        return body, []  # not a body the codec wrote; the rules have refused it already
    gone: set[tuple[int, int]] = set()
    dropped = []
    if rules.thinking_bound and prefix_mismatch_behavior(body) == "drop_block":
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
    if rules.keeps_thinking is False:
        questions = [i for i, m in enumerate(messages) if m.get("role") == "user" and not _only_results(m)]
        current = questions[-1] if questions else 0
        gone |= {(i, k) for i, m in enumerate(messages[:current]) if m.get("role") == "assistant"
                 for k in range(len(m.get("content") or [])) if _is_thinking(m.get("content"), k)}
    if not gone:
        return body, dropped
    kept = [{**m, "content": [b for k, b in enumerate(m["content"]) if (i, k) not in gone]}
            if isinstance(m.get("content"), list) else m for i, m in enumerate(messages)]
    return {**body, "messages": kept}, dropped


def _is_thinking(content: object, k: int) -> bool:
    return (isinstance(content, list) and k < len(content) and isinstance(content[k], dict)
            and content[k].get("type") in ("thinking", "redacted_thinking"))


def _only_results(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and bool(content) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _with_cache_creation(reply: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic reply to a request with breakpoints says how much it wrote, even when nothing.

    (The codec writes `cache_creation` only when the cache was used; a request below the
    minimum asked for caching all the same, and the API answers it with zeros.)
    """
    from ..wire.anthropic.caching import breakpoints

    if breakpoints(body) and "cache_creation" not in reply["usage"]:
        reply["usage"]["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
    return reply


def responses_effort(body: dict[str, Any]) -> str | None:
    """The reasoning effort a Responses request runs at, as the live API echoes it.

    >>> responses_effort({"model": "gpt-6-luna"}), responses_effort({"model": "gpt-4o-mini"})
    ('medium', None)
    >>> responses_effort({"model": "gpt-6-luna", "reasoning": {"effort": "low"}})
    'low'
    """
    sent: str | None = (body.get("reasoning") or {}).get("effort")
    if sent is not None:
        return sent
    return DEFAULT_EFFORT if rules_of(str(body.get("model", ""))).reasons else None


def _spell_ids(turn: Turn, api: str) -> Turn:
    """Tool-call ids the OpenAI way ("call_01") for OpenAI's APIs; Anthropic's stay "toolu_01"."""
    if api not in ("responses", "chat"):
        return turn
    blocks = tuple(replace(b, id="call_" + b.id.removeprefix("toolu_"))
                   if isinstance(b, ToolCall) and b.id.startswith("toolu_") else b
                   for b in turn.message.blocks)
    return replace(turn, message=replace(turn.message, blocks=blocks))


#: The effort at which the double's Claude skips thinking on a reply that calls no tool.
SKIPS_THINKING_AT = "low"


def _wants_reasoning(api: str, body: dict[str, Any], transcript: Transcript, turn: Turn) -> bool:
    match api:
        case "anthropic":
            mode = (body.get("thinking") or {}).get("type")
            # subtle: after a tool_result Anthropic sends no new thinking until the next question.
            last = transcript.messages[-1] if transcript.messages else None
            after_results = last is not None and last.role == "user" and all(
                b.kind == "tool_result" for b in last.blocks)
            effort = (body.get("output_config") or {}).get("effort")
            skipped = mode == "adaptive" and effort == SKIPS_THINKING_AT and not turn.tool_calls
            return mode in ("enabled", "adaptive") and not after_results and not skipped
        case "responses":
            return responses_effort(body) not in ("none", None)
        case "ollama":
            return bool(body.get("think"))
        case _:
            return False  # Chat Completions returns no reasoning, only its token count


def _with_reasoning(turn: Turn, api: str, transcript: Transcript) -> Turn:
    """`turn` with a short deterministic reasoning block first.

    The block has no opaque part, so the codec seals it the API's way when it encodes
    the reply: Anthropic's thinking gets a `signature` (`wire.anthropic.sign_thinking`),
    a Responses reasoning item an `encrypted_content` (`wire.responses.seal_reasoning`),
    so the codec's `check_request` can tell later whether it came back unchanged.
    """
    text = "Thinking about: " + shorten(transcript.last_user_text(), 60)
    block = ReasoningBlock(text, provider=PROVIDER_FOR[api], model=turn.model)
    spent = estimate_tokens(text)  # reasoning tokens are part of output tokens
    usage = replace(turn.usage, output_tokens=turn.usage.output_tokens + spent,
                    reasoning_tokens=turn.usage.reasoning_tokens + spent)
    message = replace(turn.message, blocks=(block, *turn.message.blocks))
    return replace(turn, message=message, usage=usage)


def policy_of(policy: Policy | Sequence[Reply] | None) -> Policy:
    """`policy` as a function: the lessons' `weather_policy` for None, a script for a list."""
    if policy is None:
        from ..examples import weather_policy

        return weather_policy
    return as_policy(policy, who="the double's script")
