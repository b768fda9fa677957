"""How the API double vouches for the reasoning it invents, as the real APIs do for theirs.

Both reasoning APIs hand their reasoning to the client in a form only they can check,
and refuse it back when it was edited: Anthropic signs each thinking block (`signature`),
OpenAI encrypts each reasoning item (`encrypted_content`). The loopback API double
cannot hold their secrets, so it stands in with an HMAC under one fixed, public key,
`DOUBLE_KEY`, and the codecs' `check_request` catch an edited block the same way:

    API         the double fills               with              checked by
    Anthropic   thinking `signature`           `sign_thinking`   `verify_thinking`
    Responses   reasoning `encrypted_content`  `seal_reasoning`  `unseal_reasoning`

Both stamps start with a mark of the double's own, so they are never mistaken for the
provider's: a real signature or encrypted value cannot be verified offline, and is
passed through untouched.

On models with *preserved thinking* (`models.Rules.thinking_bound`) a thinking block is
also bound to its prefix: the top-level `system`, the `tools` and every message and block
before it. The double's signature records a digest of that prefix after a "."
(`sign_thinking(text, bound_to=...)`), and `prefix_mismatches` finds the blocks of a later
request whose prefix is no longer the one they were made after:

    messages 0 user "Paris?"   1 assistant [thinking*, tool_use]   2 user [tool_result]
    edit message 2  ->  the thinking of message 1 stays valid (its prefix is message 0);
                        every thinking block after message 2 is bound to the old text.

What counts as the prefix is the kit's reading of the prefix-checks page: the content of
each block, not `cache_control` marks (which move as a conversation grows) nor fields that
only responses carry.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = ["DOUBLE_KEY", "SIGNATURE_PREFIX", "binding_of", "prefix_digests", "prefix_mismatches",
           "seal_is_ours", "seal_reasoning", "sign_thinking", "signature_is_ours", "unseal_reasoning",
           "verify_thinking"]

#: The key the API double signs and seals its invented reasoning with. It is NOT a secret:
#: it only lets the double notice an edited block, the way the real APIs do with their own.
DOUBLE_KEY = b"toolcall-lab api double"


# -- Anthropic: the thinking block's signature -------------------------------------------------
#: How the double's signatures start, so they are never mistaken for Anthropic's.
SIGNATURE_PREFIX = "tclab-double-v1:"


def sign_thinking(text: str, *, bound_to: str | None = None) -> str:
    """The signature the API double gives a thinking block with this text.

    `bound_to`, a digest from `prefix_digests`, binds the block to what came before it:
    it follows the text's signature after a ".".

    >>> sign_thinking("Paris: call get_weather.")[:24]
    'tclab-double-v1:b6b83365'
    >>> sign_thinking("Paris: call get_weather.", bound_to="0123456789abcdef")[-17:]
    '.0123456789abcdef'
    """
    digest = hmac.new(DOUBLE_KEY, text.encode("utf-8"), hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest + (f".{bound_to}" if bound_to else "")


def binding_of(signature: object) -> str | None:
    """The prefix digest a double's signature is bound to, or None (unbound, or not the double's)."""
    if not signature_is_ours(signature):
        return None
    bound = str(signature).partition(".")[2]
    return bound or None


def signature_is_ours(signature: object) -> bool:
    """Whether `signature` was made by the API double (rather than by Anthropic)."""
    return isinstance(signature, str) and signature.startswith(SIGNATURE_PREFIX)


def verify_thinking(text: str, signature: object) -> bool:
    """Whether `signature` is the double's signature of exactly this `text`.

    A real Anthropic signature is never verifiable here (only Anthropic holds its key),
    so this is False for it; use `signature_is_ours` first.

    >>> sig = sign_thinking("I should check the weather.")
    >>> verify_thinking("I should check the weather.", sig), verify_thinking("I should not.", sig)
    (True, False)
    """
    text_part = str(signature).partition(".")[0]
    return signature_is_ours(signature) and hmac.compare_digest(text_part, sign_thinking(text))


# -- Anthropic: the prefix a thinking block is bound to ---------------------------------------
#: The keys of each block kind that are its content, for the prefix; other kinds keep all
#: their keys but `cache_control`.
_CONTENT_KEYS = {"text": ("text",), "thinking": ("thinking", "signature"), "redacted_thinking": ("data",),
                 "tool_use": ("id", "name", "input"), "tool_result": ("tool_use_id", "content", "is_error")}


def _canonical(value: Any) -> Any:
    """`value` as the prefix sees it: blocks by their content keys, `cache_control` left out."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    if not isinstance(value, Sequence):
        return []
    blocks = []
    for block in value:
        if not isinstance(block, Mapping):
            continue
        keys = _CONTENT_KEYS.get(str(block.get("type")))
        kept = {k: v for k, v in block.items() if (k in keys if keys else k != "cache_control")}
        if "content" in kept and block.get("type") == "tool_result":
            kept["content"] = _canonical(kept["content"])
        kept = {k: v for k, v in kept.items() if v is not None and v is not False}  # unset = absent
        blocks.append({"type": block.get("type"), **kept})
    return blocks


def _dump(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def prefix_digests(body: Mapping[str, Any]) -> Iterator[tuple[int, int, str]]:
    """(message, block, digest) for every thinking block of an Anthropic request body.

    The digest covers `system`, `tools`, the messages before the block and the blocks
    before it in its own message, each as its content (`cache_control` left out), so the
    same conversation gives the same digests whichever request carries it.

    >>> body = {"system": "Be brief.", "messages": [{"role": "user", "content": "Paris?"},
    ...     {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]}]}
    >>> [(i, j) for i, j, _ in prefix_digests(body)]
    [(1, 0)]
    """
    running = hmac.new(DOUBLE_KEY, digestmod=hashlib.sha256)
    tools = [{k: v for k, v in t.items() if k != "cache_control"}
             for t in body.get("tools") or [] if isinstance(t, Mapping)]
    running.update(_dump({"system": _canonical(body.get("system") or []), "tools": tools}))
    for i, message in enumerate(body.get("messages") or []):
        if not isinstance(message, Mapping):
            continue
        running.update(_dump(message.get("role")))
        for j, block in enumerate(_canonical(message.get("content"))):
            if block["type"] in ("thinking", "redacted_thinking"):
                yield i, j, running.copy().hexdigest()[:16]
            running.update(_dump(block))


def prefix_mismatches(body: Mapping[str, Any]) -> list[tuple[int, int]]:
    """(message, block) of each thinking block bound to a prefix this request no longer has.

    Only the double's bound signatures can be checked; a real one (Anthropic's secret) or
    an unbound one passes. The API's rule is "that block and every later thinking block":
    each later block made before the edit fails its own check, and one made after it does
    not, so each block is checked against its own prefix.
    """
    content = {(i, j): block for i, message in enumerate(body.get("messages") or [])
               if isinstance(message, Mapping)
               for j, block in enumerate(_canonical(message.get("content")))}
    found = []
    for i, j, digest in prefix_digests(body):
        bound = binding_of(content[i, j].get("signature"))
        if bound is not None and not hmac.compare_digest(bound, digest):
            found.append((i, j))
    return found


# -- OpenAI Responses: the reasoning item's encrypted_content --------------------------------
_MARK = b"tcl"  # subtle: 3 bytes encode to exactly 4 base64 characters, "dGNs"
_SEALED = "gAAAA" + base64.urlsafe_b64encode(_MARK).decode("ascii")  # OpenAI's values start gAAAA


def seal_reasoning(text: str) -> str:
    """`text` sealed the way the API double fills `encrypted_content`.

    "gAAAA" (the start of OpenAI's own values), then URL-safe base64 of b"tcl", an
    HMAC-SHA256 of the text under `DOUBLE_KEY`, and the text itself. It is signed, not
    secret: anyone can read it, but changing it breaks the signature.

    >>> sealed = seal_reasoning("Paris: call get_weather.")
    >>> sealed[:9], unseal_reasoning(sealed)
    ('gAAAAdGNs', 'Paris: call get_weather.')
    >>> unseal_reasoning(sealed[:-4] + "AAAA") is None
    True
    """
    payload = text.encode("utf-8")
    mac = hmac.new(DOUBLE_KEY, payload, hashlib.sha256).digest()
    return "gAAAA" + base64.urlsafe_b64encode(_MARK + mac + payload).decode("ascii")


def seal_is_ours(content: object) -> bool:
    """Whether `content` was sealed by the API double (rather than encrypted by OpenAI)."""
    return isinstance(content, str) and content.startswith(_SEALED)


def unseal_reasoning(content: object) -> str | None:
    """The text `seal_reasoning` sealed, or None when `content` was altered or is not ours."""
    if not isinstance(content, str) or not content.startswith(_SEALED):
        return None
    try:
        raw = base64.urlsafe_b64decode(content[len("gAAAA"):].encode("ascii"))
    except (binascii.Error, ValueError):
        return None
    mac, payload = raw[len(_MARK):len(_MARK) + 32], raw[len(_MARK) + 32:]
    expected = hmac.new(DOUBLE_KEY, payload, hashlib.sha256).digest()
    if not raw.startswith(_MARK) or not hmac.compare_digest(mac, expected):
        return None
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return None
