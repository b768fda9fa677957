"""What is never shown: keys, tokens and the password in a URL, each replaced by "[redacted]".

Three tools, for three kinds of secret:

- `redact(text, secrets)` hides secrets the kit *knows* (the provider's own key);
- `redact_tokens(text)` hides anything *shaped* like a common token (`TOKEN_SHAPES`: the
  vendors' keys, GitHub, AWS, Hugging Face, Google and Slack tokens, a bearer token after
  `Bearer `), wherever it came from: pasted into a prompt, returned by a tool, quoted in an
  API's error; a token counts where it starts a word, after a line break or a tab too,
  written out (`\\n`) as JSON text writes it (a call's arguments);
- `redact_url(url)` hides the user name and password a URL may carry
  (`http://user:PASSWORD@host/v1`), for every place a URL is shown.

    >>> redact_tokens("my token is ghp_" + "a1B2" * 9 + ", keep it safe")
    'my token is [redacted], keep it safe'
    >>> redact_url("http://teacher:hunter2@10.0.0.5:8000/v1")
    'http://[redacted]@10.0.0.5:8000/v1'

Each is also said as *where* (`token_spans`, `secret_spans`: (start, end) pairs) and
`cut_out(text, spans)`, so text that arrives in pieces (a stream) can be redacted as a
whole and cut back at the same places (`tape.redaction`).

Left out: secrets with no shape of their own (an AWS *secret* access key is 40 characters
of base64 with no prefix; a password is anything), which only `redact` can hide, and only
when the kit was given them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

__all__ = ["REDACTED", "TOKENLIKE", "TOKEN_SHAPES", "TokenShape", "cut_out", "merged", "redact",
           "redact_tokens", "redact_url", "secret_spans", "token_spans", "url_secrets"]

REDACTED = "[redacted]"


@dataclass(frozen=True)
class TokenShape:
    """How one kind of token is spelled (`pattern`, a regular expression) and who says so."""

    name: str
    pattern: str
    source: str


#: The common token shapes, each with the public page its format comes from.
TOKEN_SHAPES = (
    TokenShape("Anthropic and OpenAI API keys (sk-ant-..., sk-proj-..., masked sk-proj-****abcd too)",
               r"sk-[A-Za-z0-9*_-]{6,}",
               "docs.anthropic.com/en/api/overview; platform.openai.com/docs/api-reference/authentication"),
    TokenShape("GitHub tokens: personal (ghp_), OAuth (gho_), app user (ghu_), app server (ghs_), "
               "refresh (ghr_)", r"gh[pousr]_[A-Za-z0-9]{30,255}",
               "github.blog/changelog/2021-03-31-authentication-token-format-updates-are-generally-available"),
    TokenShape("GitHub fine-grained personal access tokens", r"github_pat_[A-Za-z0-9_]{22,255}",
               "docs.github.com/en/authentication/keeping-your-account-and-data-secure/"
               "about-authentication-to-github#githubs-token-formats"),
    TokenShape("AWS access key ids: long-term (AKIA), temporary STS (ASIA), bearer (ABIA), "
               "context-specific (ACCA)", r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
               "docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids"),
    TokenShape("Hugging Face user access tokens", r"hf_[A-Za-z0-9]{30,}",
               "huggingface.co/docs/hub/security-tokens"),
    # subtle: Google states no format, but its API keys page shows a key ("AIzaSyDaGmWKa4JsXZ-
    # HjGw7...": AIza and 35 more of [0-9A-Za-z_-], 39 in all), the shape the secret scanners
    # match too (GitGuardian's and TruffleHog's Google API key detectors).
    TokenShape("Google API keys", r"AIza[0-9A-Za-z_-]{35}", "cloud.google.com/docs/authentication/api-keys"),
    TokenShape("Slack tokens: bot (xoxb-), user (xoxp-), app-level (xapp-), refresh (xoxe-) and the others",
               r"xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}",
               "docs.slack.dev/authentication/tokens"),
    # subtle: the token only, so "Authorization: Bearer [redacted]" still says what it was; 16
    # characters at least, so prose ("a Bearer token") is left alone
    TokenShape("Bearer tokens, as an Authorization header carries them (RFC 6750's b64token)",
               r"(?:(?<=Bearer )|(?<=bearer )|(?<=BEARER ))[A-Za-z0-9][A-Za-z0-9._~+/-]{15,}=*",
               "datatracker.ietf.org/doc/html/rfc6750#section-2.1"),
)
#: Where a token may start: not inside a word (so "task-force" is not a key), and after a line
#: break, a tab or another character written out as JSON text writes it ("...:\nAIza...",
#: "\u0001AIza...": `\b` sees the "n" or the "1" as a letter of the word, and the key would stay).
_STARTS = r"(?:(?<!\w)|(?<=\\[nrtbf])|(?<=\\u[0-9A-Fa-f]{4}))"
#: Any one of `TOKEN_SHAPES`, where a token may start.
TOKENLIKE = re.compile(_STARTS + "(?:" + "|".join(f"(?:{shape.pattern})" for shape in TOKEN_SHAPES) + ")")


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every secret in it replaced, so a message can be shown or logged.

    >>> redact("key sk-test-123 was refused", ["sk-test-123"])
    'key [redacted] was refused'
    """
    for secret in secrets:
        if secret and len(secret) >= 4:  # subtle: never "redact" every 'a' of a one-letter key
            text = text.replace(secret, REDACTED)
    return text


def redact_tokens(text: str) -> str:
    """`text` with everything shaped like a token (`TOKEN_SHAPES`) replaced.

    >>> redact_tokens("AWS key AKIAIOSFODNN7EXAMPLE and Slack xoxb-1234567890-abcdef")
    'AWS key [redacted] and Slack [redacted]'
    """
    return TOKENLIKE.sub(REDACTED, text)


def token_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` holds something shaped like a token: (start, end) of each, in order.

    >>> token_spans("keys: AKIAIOSFODNN7EXAMPLE, hf_" + "a1b2c3" * 6)
    [(6, 26), (28, 67)]
    """
    return [match.span() for match in TOKENLIKE.finditer(text)]


def secret_spans(text: str, secrets: Iterable[str | None]) -> list[tuple[int, int]]:
    """Where `text` holds one of `secrets` (4 characters or more, as `redact` hides): (start, end).

    >>> secret_spans("pw hunter2, again hunter2", ["hunter2", "x"])
    [(3, 10), (18, 25)]
    """
    found: list[tuple[int, int]] = []
    for secret in secrets:
        if secret and len(secret) >= 4:
            start = text.find(secret)
            while start != -1:
                found.append((start, start + len(secret)))
                start = text.find(secret, start + len(secret))
    return sorted(found)


def cut_out(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with each span replaced by "[redacted]"; spans that overlap are hidden as one.

    >>> cut_out("a secret and a token", [(2, 8), (15, 20), (17, 19)])
    'a [redacted] and a [redacted]'
    """
    kept, at = [], 0
    for start, end in merged(spans):
        kept += [text[at:start], REDACTED]
        at = end
    return "".join([*kept, text[at:]])


def merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` in order, those that overlap joined: [(0, 4), (2, 6), (8, 9)] -> [(0, 6), (8, 9)]."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start < joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


def url_secrets(url: str | None) -> list[str]:
    """The secrets a URL carries: its password, or a user name that stands alone (a token).

    >>> url_secrets("https://user:hunter2@host/v1"), url_secrets("https://ghp_abc123@host")
    (['hunter2'], ['ghp_abc123'])
    """
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return []
    # subtle: a user name next to a password is not secret, and hiding "user" everywhere in a
    # message would garble it; a user name alone is how a token travels (https://TOKEN@host).
    found = parts.password if parts.password else parts.username
    return [found] if found else []


def redact_url(url: str) -> str:
    """`url` as it may be shown: any user name and password in it replaced by "[redacted]".

    >>> redact_url("https://api.anthropic.com"), redact_url("http://me:pw@localhost:8765/v1")
    ('https://api.anthropic.com', 'http://[redacted]@localhost:8765/v1')
    """
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL that parses (an unclosed "[" of an IPv6 host): hide what may be one
        return re.sub(r"//[^/@]*@", f"//{REDACTED}@", url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{REDACTED}@{host}"))
