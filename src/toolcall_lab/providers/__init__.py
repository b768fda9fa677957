"""Providers: the offline `ScriptedProvider`, the `Provider` protocol every provider follows
(and `StreamingProvider`, one that can also stream), `BaseProvider`, the kit's providers'
one base with `complete` and `stream`, and `SentRequest`, the record of one call that every
provider keeps in `provider.requests`."""

from .base import BaseProvider, Provider, SentRequest, StreamingProvider
from .scripted import ScriptedProvider, call, stage

__all__ = ["BaseProvider", "Provider", "ScriptedProvider", "SentRequest", "StreamingProvider", "call",
           "stage"]
