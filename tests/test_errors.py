"""The error tree: every way a call can fail becomes one actionable sentence, never a key."""

import pytest

from toolcall_lab.errors import (
    AuthenticationError,
    InvalidRequestError,
    MalformedResponseError,
    MissingKeyError,
    ModelNotFoundError,
    OverloadedError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RateLimitError,
    ServerError,
    ToolcallLabError,
    TransientError,
    UsageError,
    redact,
)
from toolcall_lab.providers.sdk import NO_KEY_NEEDED, WireProvider, is_loopback, retry_after

SECRET = "sk-test-SECRET-123"


class FakeProvider(WireProvider):
    """A WireProvider with no SDK: enough to exercise keys and error translation."""

    name = "anthropic"
    api = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    default_base_url = "https://api.example.invalid"

    def _make_client(self, api_key):
        return {"key": api_key}


# Stand-ins named like the SDKs' exceptions (both SDKs share these names).
class APIConnectionError(Exception):
    pass


class APITimeoutError(APIConnectionError):
    pass


class Response:
    def __init__(self, headers):
        self.headers = headers


class APIStatusError(Exception):
    def __init__(self, status, body, headers=None):
        super().__init__(f"Error code: {status} - {body}")
        self.status_code = status
        self.body = body
        self.response = Response(headers or {})


@pytest.fixture
def provider():
    return FakeProvider(api_key=SECRET)


def test_every_provider_error_is_a_toolcall_lab_error():
    for cls in (MissingKeyError, ProviderUnreachableError, AuthenticationError, ModelNotFoundError,
                InvalidRequestError, RateLimitError, OverloadedError, ServerError, ProviderTimeoutError,
                MalformedResponseError):
        assert issubclass(cls, ProviderError) and issubclass(cls, ToolcallLabError)


@pytest.mark.parametrize(("status", "body", "cls", "phrase"), [
    (401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
     AuthenticationError, "check ANTHROPIC_API_KEY"),
    (403, {"error": {"message": "forbidden"}}, AuthenticationError, "refused the key"),
    (404, {"error": {"message": "model: nope"}}, ModelNotFoundError, "does not know model"),
    (400, {"error": {"message": "messages.0: bad"}}, InvalidRequestError, "messages.0: bad"),
    (429, {"error": {"message": "slow down"}}, RateLimitError, "wait 7 s"),
    (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
     OverloadedError, "try again in a minute"),
    (503, {"error": "busy"}, OverloadedError, "busy"),
    (500, {"error": {"message": "boom"}}, ServerError, "500"),
])
def test_status_errors_map_onto_the_tree(provider, status, body, cls, phrase):
    error = provider._translate(APIStatusError(status, body, {"retry-after": "7"}))
    assert type(error) is cls
    assert error.status == status and error.provider == "anthropic"
    assert phrase in str(error)
    assert str(error).count(". ") <= 1, "one sentence, not a wall of text"


def test_rate_limit_carries_retry_after_in_seconds(provider):
    assert provider._translate(APIStatusError(429, {}, {"retry-after-ms": "250"})).retry_after == 0.25
    assert provider._translate(APIStatusError(429, {}, {"retry-after": "2"})).retry_after == 2.0
    assert provider._translate(APIStatusError(429, {}, {})).retry_after is None
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None


def test_connection_timeout_and_garbage_map_onto_the_tree(provider):
    unreachable = provider._translate(APIConnectionError("Connection refused"))
    assert isinstance(unreachable, ProviderUnreachableError)
    assert "https://api.example.invalid" in str(unreachable)
    assert isinstance(provider._translate(APITimeoutError("timed out")), ProviderTimeoutError)
    import json

    try:
        json.loads("{not json")
    except json.JSONDecodeError as exc:
        assert isinstance(provider._translate(exc), MalformedResponseError)


TRANSIENT = (RateLimitError, OverloadedError, ServerError, ProviderTimeoutError, ProviderUnreachableError)
PERMANENT = (MissingKeyError, AuthenticationError, ModelNotFoundError, InvalidRequestError,
             MalformedResponseError)


@pytest.mark.parametrize("cls", TRANSIENT)
def test_each_retryable_error_is_a_transient_provider_error(cls):
    error = cls("try again", provider="anthropic", status=503)
    assert isinstance(error, TransientError) and isinstance(error, ProviderError)
    assert isinstance(error, ToolcallLabError) and error.retryable


@pytest.mark.parametrize("cls", PERMANENT)
def test_the_other_provider_errors_are_not_transient(cls):
    error = cls("fix something first")
    assert not isinstance(error, TransientError) and not error.retryable


def test_usage_error_is_the_kits_error_and_a_value_error():
    error = UsageError("no price for model 'llama3.2'")
    assert isinstance(error, ToolcallLabError) and isinstance(error, ValueError)
    with pytest.raises(ValueError, match="llama3.2"):  # an old `except ValueError` still catches it
        raise error


def test_retryable_errors_say_so(provider):
    assert provider._translate(APIStatusError(429, {})).retryable
    assert provider._translate(APIStatusError(529, {})).retryable
    assert not provider._translate(APIStatusError(401, {})).retryable
    assert not provider._translate(APIStatusError(400, {})).retryable


def test_an_error_that_quotes_the_key_is_redacted(provider):
    body = {"error": {"message": f"Incorrect API key provided: {SECRET}."}}
    error = provider._translate(APIStatusError(401, body))
    assert SECRET not in str(error) and "[redacted]" in str(error)


def test_missing_key_names_the_variable_and_the_offline_alternative(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingKeyError) as info:
        FakeProvider()
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message and "get_provider('scripted')" in message
    assert message.count(". ") == 0 and message.endswith(".")


def test_loopback_servers_need_no_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    provider = FakeProvider(base_url="http://127.0.0.1:9/")
    assert provider._client == {"key": NO_KEY_NEEDED}
    assert provider.base_url == "http://127.0.0.1:9"


def test_key_from_the_environment_never_shows_in_repr(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    provider = FakeProvider(model="claude-x")
    assert provider._client == {"key": SECRET}
    assert SECRET not in repr(provider) and SECRET not in str(vars(provider).get("model"))
    assert repr(provider) == "FakeProvider(model='claude-x')"


def test_redact_and_loopback_helpers():
    assert redact(f"a {SECRET} b {SECRET}", [SECRET, None]) == "a [redacted] b [redacted]"
    assert redact("abc", ["a"]) == "abc"  # a one-letter "secret" is not a key
    assert is_loopback("http://localhost:8000/v1") and is_loopback("http://127.0.0.1:1")
    assert not is_loopback("https://api.openai.com/v1") and not is_loopback(None)


# -- in a notebook: one sentence, not a traceback ------------------------------------------

def test_every_kit_error_renders_as_one_line_in_ipython():
    for error in (MissingKeyError("no key. Set ANTHROPIC_API_KEY.", provider="anthropic"),
                  RateLimitError("slow down", status=429), ToolcallLabError("plain")):
        assert error._render_traceback_() == [f"{type(error).__name__}: {error}"]
        assert len(error._render_traceback_()) == 1


def test_a_missing_key_in_a_real_kernel_shows_one_line_and_no_paths(monkeypatch):
    """Run a one-cell notebook in a real IPython kernel, as a learner's JupyterLab would."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for name in ("ANTHROPIC_API_KEY", "TOOLCALL_LAB_PROVIDER", "TOOLCALL_LAB_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(MissingKeyError) as expected:
        FakeProvider(base_url="https://api.anthropic.com")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        'from toolcall_lab import get_provider\nget_provider("anthropic")')])
    nbclient.NotebookClient(notebook, timeout=60, allow_errors=True, kernel_name="python3").execute()
    (output,) = notebook.cells[0].outputs
    assert output.output_type == "error" and output.ename == "MissingKeyError"
    assert output.evalue == str(expected.value), "the message itself is unchanged"
    assert output.traceback == [f"MissingKeyError: {expected.value}"]
    assert "File " not in output.traceback[0] and ".py" not in output.traceback[0]
