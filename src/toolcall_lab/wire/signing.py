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
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

__all__ = ["DOUBLE_KEY", "SIGNATURE_PREFIX", "seal_is_ours", "seal_reasoning", "sign_thinking",
           "signature_is_ours", "unseal_reasoning", "verify_thinking"]

#: The key the API double signs and seals its invented reasoning with. It is NOT a secret:
#: it only lets the double notice an edited block, the way the real APIs do with their own.
DOUBLE_KEY = b"toolcall-lab api double"


# -- Anthropic: the thinking block's signature -------------------------------------------------
#: How the double's signatures start, so they are never mistaken for Anthropic's.
SIGNATURE_PREFIX = "tclab-double-v1:"


def sign_thinking(text: str) -> str:
    """The signature the API double gives a thinking block with this text.

    >>> sign_thinking("Paris: call get_weather.")[:24]
    'tclab-double-v1:b6b83365'
    """
    digest = hmac.new(DOUBLE_KEY, text.encode("utf-8"), hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


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
    return signature_is_ours(signature) and hmac.compare_digest(str(signature), sign_thinking(text))


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
