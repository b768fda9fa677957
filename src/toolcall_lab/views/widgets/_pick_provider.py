"""Pick where the model calls go: scripted, the API double, a hosted API or a local server.

`pick_provider()` returns a picker whose `.provider` later cells use. The key box shows
only when the environment has no key for the choice; a key typed there goes straight to
the SDK client and the box is cleared, so no widget value ever holds it for long, and
every status line is passed through `_redact.redact` first. The box never sends a typed
key back to the browser (ipywidgets 8 echoes every value it receives unless the trait
says `echo_update=False`), and the picker keeps the environment it was given sealed
(`providers.sdk.SealedKeys`), so `vars(picker)` shows no key either.

    >>> picker = pick_provider(environ={})
    >>> picker.choice.value, picker.key.layout.display
    ('scripted', 'none')

The widget class is built on first use (`_picker_class`), because subclassing
`ipywidgets.VBox` at import time would load ipywidgets with `import toolcall_lab.views.widgets`;
what it does is written at module level, one step a method (`_PickerSteps`).

Left out: remembering a choice between sessions, and listing a server's models.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from ..._redact import redact
from ...providers.sdk import SealedKeys
from ._colab import for_colab
from ._common import API_TITLES, FONT, RUN_TO_USE

__all__ = ["pick_provider"]

_DOUBLE_LABEL = "API double (loopback)"  # the one choice that is not a provider of the registry
_TEST_TRANSCRIPT_TEXT = "Reply with the single word OK."
#: Seconds "Test connection" waits for an answer. The test call makes one try, no retries, so
#: a server that is down or stuck answers in seconds; the provider later cells use keeps the
#: SDK's defaults (60 s, 2 retries with backoff), which would freeze the notebook for minutes.
_TEST_TIMEOUT = 10.0


def _key_env(name: str) -> str | None:
    """The variable that holds `name`'s key, None for providers that need none."""
    from ...providers.registry import PROVIDERS

    return None if name == "double" else PROVIDERS[name].key_env


def _local_url(name: str) -> str | None:
    """The default base URL of a local server, None for hosted APIs and offline choices."""
    from ...providers.registry import PROVIDERS

    return None if name == "double" else PROVIDERS[name].local_url


def _test_limits() -> dict[str, Any]:
    """What "Test connection" changes: one cheap try that gives up after `_TEST_TIMEOUT` s."""
    return {"timeout": _TEST_TIMEOUT, "max_retries": 0, "max_tokens": 16}


def _failure(exc: BaseException) -> str:
    """One line for a status: the kit's errors are written to be read; others get their type."""
    from ...errors import ToolcallLabError

    if isinstance(exc, ToolcallLabError | ValueError | ImportError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _choice_status(name: str, env_var: str | None, needs_key: bool, url: str | None) -> str:
    """The status line a new choice shows: what it is, and what the learner does next.

    >>> _choice_status("anthropic", "ANTHROPIC_API_KEY", False, None)
    'using the key in ANTHROPIC_API_KEY (it is never shown).'
    """
    if name == "scripted":
        return "scripted: your own Python plays the model, offline and free."
    if name == "double":
        return "API double: a pretend server on 127.0.0.1 answers through the real SDK."
    if needs_key:
        return (f"{env_var} is not set: paste a key above and press Enter "
                "(it is handed to the SDK client and never shown or kept here).")
    if env_var:
        return f"using the key in {env_var} (it is never shown)."
    return f"a local server at {url}; start it, then press Test connection."


class _SealedEnviron(SealedKeys):
    """The environment the picker was given, readable by name but shown by no repr or vars()."""

    __slots__ = ("_environ",)

    def __init__(self, environ: Mapping[str, str]) -> None:
        super().__init__(list(environ.values()))
        self._environ = environ

    def get(self, name: str) -> str | None:
        return self._environ.get(name)


class _PickerSteps:
    """What the picker does, step by step; `_picker_class` sets it on an `ipywidgets.VBox`.

    Written here, at module level, so each step reads as a method of its own; the VBox
    it needs is only imported on first use.
    """

    # the parts, made by `_make_parts` (ipywidgets is untyped, so Any)
    choice: Any
    double_api: Any
    model: Any
    base_url: Any
    key: Any
    test_button: Any
    status: Any

    def __repr__(self) -> str:  # the page's text until the cell runs (see _common.described)
        return ("Provider picker: scripted, the API double or a real provider, with a key box "
                + RUN_TO_USE)

    # -- made once ------------------------------------------------------------------------
    def _keep(self, environ: Mapping[str, str] | None, script: Any) -> None:
        """What the picker holds besides its parts: the sealed environment, the script, the built."""
        self._environ = None if environ is None else _SealedEnviron(dict(environ))
        self._script = script
        self._built: Any = None
        self._typed_key = False  # whether the built provider holds a key typed into the box
        self._tester: Any = None  # with a typed key: the same provider with the test's limits
        self.double: Any = None  # the ApiDouble, started on first use of that choice

    def _make_parts(self, *, password: type) -> None:
        """The dropdowns, text boxes, key box (`password`), button and status line."""
        import ipywidgets as widgets

        from ...providers.registry import PROVIDERS

        options = [(PROVIDERS["scripted"].label, "scripted"), (_DOUBLE_LABEL, "double"),
                   *((spec.label, name) for name, spec in PROVIDERS.items() if name != "scripted")]
        self.choice = widgets.Dropdown(options=options,
                                       value="scripted", description="provider")
        self.double_api = widgets.Dropdown(options=[(API_TITLES[a], a) for a in API_TITLES],
                                           value="anthropic", description="speaks")
        self.model = widgets.Text(description="model")
        self.base_url = widgets.Text(description="base URL", continuous_update=False)
        # subtle: continuous_update=False, or the value would arrive one keystroke at a time
        self.key = password(description="API key", placeholder="paste your key, press Enter",
                            continuous_update=False)
        self.test_button = widgets.Button(description="Test connection")
        self.status = widgets.HTML()

    def _connect(self) -> None:
        """Each part's callback, then the first choice shown."""
        self.choice.observe(self._on_choice, names="value")
        for part in (self.double_api, self.model, self.base_url):
            part.observe(self._forget, names="value")
        self.key.observe(self._on_key, names="value")
        self.test_button.on_click(self._test)
        self._on_choice()

    # -- what the learner sees ------------------------------------------------------------
    def _env(self) -> Any:
        """Where keys are looked up: `os.environ`, or the sealed `environ=` given."""
        return os.environ if self._environ is None else self._environ

    def _say(self, text: str) -> None:
        secrets = [self._env().get(v) for v in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")]
        self.status.value = f"<div style='{FONT}'>{html.escape(redact(text, secrets))}</div>"

    def _on_choice(self, change: object = None) -> None:
        from ...providers.registry import PROVIDERS

        name = self.choice.value
        self._built, self._typed_key, self._tester = None, False, None
        if name != "double":
            self._stop_double()  # its thread and port are not left behind a new choice
        env_var, url = _key_env(name), _local_url(name)
        needs_key = env_var is not None and not self._env().get(env_var)
        self.key.layout.display = None if needs_key else "none"
        self.base_url.layout.display = None if url else "none"
        self.double_api.layout.display = None if name == "double" else "none"
        self.model.layout.display = "none" if name in ("scripted", "double") else None
        self.base_url.value = url or ""
        self.model.value = ("" if name == "double" else PROVIDERS[name].default_model) or ""
        self._say(_choice_status(name, env_var, needs_key, url))

    def _forget(self, change: object = None) -> None:
        if self._built is not None and self._typed_key:
            self._say("the settings changed, so the provider holding your key was dropped: "
                      "paste the key again (it is never kept here).")
        self._built, self._typed_key, self._tester = None, False, None

    def _on_key(self, change: Any) -> None:
        typed = change["new"]
        if not typed:
            return  # our own clearing below
        # subtle: a pasted key often brings a space or a newline; httpx refuses such a header,
        # and the SDK reports that as a connection error ("nothing answers"), not a bad key
        key = typed.strip()
        try:
            self._built = self._build(api_key=key)
            # the test's one-try twin, built now: the key is not kept anywhere to build it later
            self._tester = self._build(api_key=key, **_test_limits())
            self._typed_key = True
            self._say(f"key received and handed to {type(self._built).__name__}; the box is cleared.")
        except Exception as exc:  # a callback must report, not raise into the browser console
            self._built, self._tester = None, None
            self._say(redact(_failure(exc), [typed, key]))
        finally:
            self.key.value = ""  # the key lives only inside the SDK clients

    # -- building ---------------------------------------------------------------------------
    def _build(self, *, api_key: str | None = None, **limits: Any) -> Any:
        """The provider for the current settings; `limits`: timeout=, max_retries=, max_tokens=."""
        from ...providers.registry import get_provider

        name = self.choice.value
        if name == "scripted":
            return get_provider("scripted", script=self._script)
        if name == "double":
            return self._build_double(**limits)
        return get_provider(name, **self._settings(name, api_key), **limits)

    def _build_double(self, **limits: Any) -> Any:
        """A provider of the API the double speaks, at the double (started on first use)."""
        from ...providers.registry import get_provider
        from ...wire import API_SPECS

        if self.double is None:
            from ...double.api_double import ApiDouble

            self.double = ApiDouble(self._script).start()
        api = self.double_api.value
        # subtle: a placeholder key, so a real key from the environment never leaves for the double
        return get_provider(API_SPECS[api].provider, base_url=self.double.base_url(api),
                            api_key="no-key-needed", **limits)

    def _settings(self, name: str, api_key: str | None) -> dict[str, Any]:
        """The model, base URL and key the boxes or the environment give (only those set)."""
        options: dict[str, Any] = {}
        if self.model.value.strip():
            options["model"] = self.model.value.strip()
        if self.base_url.value.strip():
            options["base_url"] = self.base_url.value.strip()
        env_var = _key_env(name)
        key = api_key or (self._env().get(env_var) if env_var else None)
        if key:
            options["api_key"] = key
        return options

    @property
    def provider(self) -> Any:
        """The provider for the current choice (built once, then reused by later cells)."""
        if self._built is None:
            self._built = self._build()
        return self._built

    # -- testing the connection -------------------------------------------------------------
    def _test(self, button: object = None) -> None:
        if self.choice.value == "scripted":
            self._say("scripted: nothing to connect to; it runs in this process.")
            return
        try:
            turn = self._test_call()
        except Exception as exc:  # a callback must report, not raise into the browser console
            self._say(f"test failed: {_failure(exc)}")
            return
        self._say(f"connected: {turn.model} answered ({turn.stop_reason}, "
                  f"{turn.usage.output_tokens} output tokens).")

    def _test_call(self) -> Any:
        """The test's one cheap call; the double answers it "OK", keeping the learner's script unspent."""
        from ...messages import Message
        from ...transcript import Transcript

        saved_policy = None
        try:
            self.provider  # noqa: B018 (builds it: a missing key is reported here)
            # subtle: a twin with one try and a short timeout, not `self.provider` itself: the
            # SDK client holds its own timeout and retries, fixed when the client was built
            tester = self._tester if self._typed_key else self._build(**_test_limits())
            if self.choice.value == "double":
                saved_policy = self.double.policy
                self.double.policy = lambda transcript, tools: "OK"  # keep the learner's script unspent
            return tester.complete(Transcript(messages=[Message.user(_TEST_TRANSCRIPT_TEXT)]))
        finally:
            if saved_policy is not None and self.double is not None:
                self.double.policy = saved_policy

    def _stop_double(self) -> None:
        if self.double is not None:
            self.double.stop()
            self.double = None


@cache
def _picker_class() -> type:
    """The picker widget class, defined on first use so importing the kit loads no ipywidgets.

    Its steps are `_PickerSteps`; here they are set on a VBox, with the key box it shows.
    """
    import ipywidgets as widgets
    from traitlets import Unicode

    class Password(widgets.Password):  # type: ignore[misc]  # ipywidgets is untyped, so Any
        """ipywidgets' password box, minus the echo: a typed key is never sent back to the browser."""

        # subtle: the name stays `Password`, so the picker's text repr is what it always was
        value = Unicode(help="String value").tag(sync=True, echo_update=False)

    class ProviderPicker(_PickerSteps, widgets.VBox):  # type: ignore[misc]  # ipywidgets is untyped
        """A provider chooser; `.provider` is the provider built from the current choice."""

        def __init__(self, *, environ: Mapping[str, str] | None, script: Any) -> None:
            self._keep(environ, script)
            self._make_parts(password=Password)
            super().__init__([self.choice, self.double_api, self.model, self.base_url, self.key,
                              self.test_button, self.status])
            self._connect()

        def close(self) -> None:
            """Stop the API double, if one was started, and close the widget."""
            self._stop_double()
            super().close()

    return ProviderPicker


def pick_provider(*, environ: Mapping[str, str] | None = None, script: Any = None) -> Any:
    """Choose where the model calls go; `picker.provider` is the provider to use next.

    Choices: scripted (your Python plays the model), the API double (a loopback server,
    started on first use and kept on `picker.double`, speaking the API you pick; stopped
    when the choice moves away from it or by `close()`), the hosted APIs and every
    local-server preset of `providers.registry.PROVIDERS`. The key box shows only when
    `environ` (default `os.environ`) has no key for the choice; a key typed there
    (surrounding spaces dropped) is handed to the provider's SDK client at once and the
    box is cleared. "Test connection" makes one cheap call with one try and a
    short timeout (`_TEST_TIMEOUT`, 10 s), so a server that is down or stuck is reported in
    seconds; `picker.provider` keeps the SDK's own timeout and retries. Every failure
    becomes one line in `status`, never an exception lost in the browser console.
    `script` drives the scripted provider and the double (default: `weather_policy`).

    Parts: `choice`, `double_api` (Dropdowns), `model`, `base_url` (Text), `key`
    (Password), `test_button`, `status` (HTML), `double`; call `picker.close()` to stop
    the double.

    >>> picker = pick_provider(environ={})
    >>> picker.provider
    ScriptedProvider(model='scripted-1', calls=0)
    """
    if script is None:
        from ...examples import weather_policy

        script = weather_policy  # the widget's own default, for the double as for scripted
    return for_colab(_picker_class()(environ=environ, script=script))
