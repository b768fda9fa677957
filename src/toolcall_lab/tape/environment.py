"""The lessons' one provider cell: `provider = provider_from_env(script=weather_policy)`.

The environment picks what answers, so one lesson runs unchanged offline, against a real
model, or from a tape:

    TOOLCALL_LAB_PROVIDER   a registry name (`providers.registry.PROVIDERS`); default scripted
    TOOLCALL_LAB_MODEL      its model, TOOLCALL_LAB_BASE_URL its server (not for scripted)
    TOOLCALL_LAB_TAPE       replay this tape (a path or a shipped tape's name), whatever else is set
    TOOLCALL_LAB_RECORD     record the named real provider's exchanges onto the tape at this path

It lives beside the tapes, not in the registry, because it wires tapes: the registry knows
only providers (`get_provider`), and this module asks it for one.

Left out: reading a `.env` file (set the variables in the shell, or pass `environ=`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..errors import UsageError
from ..providers.base import Provider
from ..providers.registry import get_provider
from .recorder import recording, replay

__all__ = ["provider_from_env"]


def provider_from_env(*, script: Any = None, environ: Mapping[str, str] | None = None,
                      **options: Any) -> Provider:
    """The provider `TOOLCALL_LAB_PROVIDER` names (default `scripted`, with `script`).

    `TOOLCALL_LAB_MODEL` and `TOOLCALL_LAB_BASE_URL` set its model and server. For a class
    (`toolcall_lab.tape`, the recorder): `TOOLCALL_LAB_RECORD=PATH` records what a real provider exchanges
    onto the tape at PATH, and `TOOLCALL_LAB_TAPE=PATH` (or a shipped tape's name) replays one
    through the recording's own SDK, with no key, whatever else is set.

    >>> provider_from_env(environ={})
    ScriptedProvider(model='scripted-1', calls=0)
    """
    env = os.environ if environ is None else environ
    name = env.get("TOOLCALL_LAB_PROVIDER", "").strip() or "scripted"
    if tape := env.get("TOOLCALL_LAB_TAPE", "").strip():
        return replay(tape)  # a recorded run, for a class: its own provider, model and settings
    if name != "scripted":
        if env.get("TOOLCALL_LAB_MODEL"):
            options.setdefault("model", env["TOOLCALL_LAB_MODEL"])
        if env.get("TOOLCALL_LAB_BASE_URL"):
            options.setdefault("base_url", env["TOOLCALL_LAB_BASE_URL"])
    if script is not None:
        options["script"] = script
    provider = get_provider(name, **options)
    if record := env.get("TOOLCALL_LAB_RECORD", "").strip():
        if name == "scripted":
            raise UsageError("TOOLCALL_LAB_RECORD records a real model's run; set TOOLCALL_LAB_PROVIDER "
                             "(and its key) too, or unset TOOLCALL_LAB_RECORD.")
        provider = recording(provider, record)
    return provider
