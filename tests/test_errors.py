"""The error tree: every way a call can fail becomes one actionable sentence, never a key."""

import ast
import re
from pathlib import Path

import pytest

from conftest import parsed
from toolcall_lab import (
    AnthropicProvider,
    Message,
    ScriptedProvider,
    ToolCall,
    Transcript,
    Turn,
    Usage,
    errors,
    get_provider,
    run_agent,
)
from toolcall_lab._redact import redact
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
    UsageTypeError,
)
from toolcall_lab.providers.sdk import NO_KEY_NEEDED, WireProvider, is_loopback, retry_after
from toolcall_lab.tool import tool_map
from toolcall_lab.views.display import sequence_diagram
from toolcall_lab.views.plots import plot_loop_tokens

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



# -- issue 18 section 5: "nothing answers" says what is true of the address ---------------------
DOUBLE_HINT = ("if it was the API double, it was stopped or never started: run the cell that starts it "
               "again (`with ApiDouble(...) as double:`) or start one with `python -m toolcall_lab serve`.")


def test_a_double_the_lesson_stopped_is_not_the_network():
    from toolcall_lab.double import ApiDouble

    with ApiDouble() as double:  # a lesson's cell: the double stops when the block ends
        provider = get_provider("anthropic", base_url=double.base_url("anthropic"), max_retries=0)
        run_agent(provider, "Hi")
    with pytest.raises(ProviderUnreachableError) as caught:
        run_agent(provider, "Hi again")
    assert str(caught.value) == f"nothing answers at {provider.base_url}: no server runs there; {DOUBLE_HINT}"
    assert "network" not in str(caught.value)


def test_nothing_answering_says_network_for_a_remote_host_and_how_to_start_a_local_server(provider):
    assert str(provider._translate(APIConnectionError("refused"))) == (
        "nothing answers at https://api.example.invalid: check your network connection and the base_url.")
    local = get_provider("vllm", base_url="http://127.0.0.1:9/v1")
    message = str(local._translate(APIConnectionError("refused")))
    assert message.startswith("nothing answers at http://127.0.0.1:9/v1: start the server with `vllm serve ")
    assert message.endswith(f"and try again; {DOUBLE_HINT}")


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


@pytest.mark.slow
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


# -- the tree keeps its promise --------------------------------------------------------------

def drawn_tree() -> dict[str, str | None]:
    """Each class in the tree drawn at the top of errors.py, with the class drawn as its parent."""
    parents: dict[str, str | None] = {}
    ancestors: list[str] = []
    for line in errors.__doc__.splitlines():
        drawn = re.match(r"^ {4}([│├└─ ]*)([A-Z]\w+) ", line)
        if not drawn or (drawn.group(1) == "" and parents):
            continue
        depth = len(drawn.group(1)) // 4  # every level of the drawing is four characters wide
        del ancestors[depth:]
        parents[drawn.group(2)] = ancestors[-1] if ancestors else None
        ancestors.append(drawn.group(2))
    return parents


def test_every_error_class_is_drawn_in_the_tree_under_its_parent():
    classes = {name: value for name, value in vars(errors).items() if isinstance(value, type)
               and issubclass(value, Exception) and value.__module__ == errors.__name__}
    tree = drawn_tree()
    assert set(tree) == set(classes), "draw every class of errors.py in its docstring, and only those"
    for name, cls in classes.items():
        kit_bases = [base.__name__ for base in cls.__bases__ if issubclass(base, ToolcallLabError)]
        assert tree[name] == (kit_bases[0] if kit_bases else None), f"{name} is drawn under the wrong parent"


@pytest.mark.parametrize(("mistake", "cls", "words"), [
    (lambda: run_agent(ScriptedProvider(["Hi."]), 42), UsageTypeError, "prompt must be a str"),
    (lambda: run_agent(ScriptedProvider(["Hi."]), "Hi", max_steps=0), UsageError, "at least 1"),
    (lambda: Usage(input_tokens=-1), UsageError, "Usage.input_tokens must be"),
    (lambda: Message("system", ()), UsageError, "role must be 'user' or 'assistant'"),
    (lambda: Message.user(ToolCall("toolu_01", "get_weather")), UsageError, "cannot hold a tool_call"),
    (lambda: Message.user(42), UsageTypeError, "block 0 of a user message is a int"),
    (lambda: Transcript().append("Hi"), UsageTypeError, "holds Message objects"),
    (lambda: Turn(Message.user("Hi"), "end_turn", Usage(), "m"), UsageError, "an assistant message"),
    (lambda: tool_map(["get_weather"]), UsageTypeError, "expected Tool objects"),
    (lambda: sequence_diagram(Transcript(), highlight=3), UsageError, "highlight=3"),
    (lambda: plot_loop_tokens(0), UsageError, "at least one call"),
    # issue 19, item 20: not a raw "TypeError: 'bool' object is not iterable" (True itself means "auto")
    (lambda: AnthropicProvider(api_key=SECRET, caching=5), UsageTypeError,
     r"caching must be True, False, None, 'off', or one or more of 'auto', 'tools', 'system', 'moving'"),
])
def test_what_the_kit_raises_on_purpose_is_a_toolcall_lab_error(mistake, cls, words):
    with pytest.raises(ToolcallLabError, match=words) as info:
        mistake()
    assert type(info.value) is cls


def test_usage_errors_are_also_pythons_own_errors():
    assert issubclass(UsageTypeError, UsageError) and issubclass(UsageTypeError, TypeError)
    with pytest.raises(TypeError, match="max_steps"):  # an old `except TypeError` still catches it
        raise UsageTypeError("max_steps must be a whole number of model calls, got '3'.")


# Python's plain errors, which `except ToolcallLabError` would not catch.
PLAIN = {"ValueError", "TypeError", "RuntimeError"}
SRC = Path(errors.__file__).parent
#: Files that may still raise them, each with its reason. Protocol methods that return
#: NotImplemented (`Usage.__add__`) raise nothing, so they need no entry.
ALLOWED = {
    "tools/arithmetic.py": "a tool's own check: `execute` turns what a tool raises into an error result",
    "tools/weather.py": "a tool's own error: `execute` turns what a tool raises into an error result",
    "checks/tools_from_another_process.py": "lesson 23's worked adapter, as a learner writes it: `execute` "
                                            "turns what its tool raises into an error result",
}


def plain_raises(root: Path = SRC) -> list[str]:
    """Every `raise ValueError(...)`, `raise TypeError` ... under `root`, as "path:line name"."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(raised, ast.Name) and raised.id in PLAIN:
                    found.append((path.relative_to(root).as_posix(), node.lineno, raised.id))
    return [f"{where}:{line} {name}" for where, line, name in sorted(found)]


def test_the_kit_raises_its_own_errors_not_pythons_plain_ones():
    """`except ToolcallLabError` catches everything the kit raises on purpose."""
    left = [place for place in plain_raises() if place.split(":")[0] not in ALLOWED]
    assert left == [], ("raise the kit's error instead: UsageError for a ValueError, UsageTypeError "
                        "for a TypeError (both keep the plain class as a parent), or add the file "
                        "to ALLOWED with the reason")


def test_the_raise_finder_finds_plain_raises_and_only_those(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(x):\n"
        "    if x:\n"
        "        raise ValueError(f'bad {x}')\n"
        "    raise TypeError\n"
        "def g():\n"
        "    raise UsageError('fine')\n"
        "def __add__(self, other):\n"
        "    return NotImplemented\n")
    assert plain_raises(tmp_path) == ["m.py:3 ValueError", "m.py:4 TypeError"]
