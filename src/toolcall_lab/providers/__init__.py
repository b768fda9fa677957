"""Providers: the offline `ScriptedProvider`, the `Provider` protocol every provider follows,
and `SentRequest`, the record of one call that every provider keeps in `provider.requests`."""

from .base import Provider, SentRequest
from .scripted import ScriptedProvider, call, stage

__all__ = ["Provider", "ScriptedProvider", "SentRequest", "call", "stage"]
