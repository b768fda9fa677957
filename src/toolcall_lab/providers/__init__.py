"""Providers: the offline `ScriptedProvider` and the `Provider` protocol every provider follows."""

from .base import Provider
from .scripted import ScriptedProvider, ScriptedRequest, call, stage

__all__ = ["Provider", "ScriptedProvider", "ScriptedRequest", "call", "stage"]
