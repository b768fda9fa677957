"""Providers: the offline `ScriptedProvider`, the `Provider` protocol every provider follows
(and `StreamingProvider`, one that can also stream), and `SentRequest`, the record of one
call that every provider keeps in `provider.requests`."""

from .base import Provider, SentRequest, StreamingProvider
from .scripted import ScriptedProvider, call, stage

__all__ = ["Provider", "ScriptedProvider", "SentRequest", "StreamingProvider", "call", "stage"]
