"""The local-server flavours at their old address (lesson 17 imports them from here).

Everything is `toolcall_lab.wire.flavours`, re-exported: the same objects, so
`FLAVOURS is toolcall_lab.wire.flavours.FLAVOURS`.
"""

from ..flavours import (
    FLAVOURS,
    Flavour,
    Refusal,
    call_id,
    cut_to_limit,
    error_body,
    finish,
    flavour_of,
    held_to,
    ignored,
    output_limit,
    refusal,
    spell_ids,
)

__all__ = ["FLAVOURS", "Flavour", "Refusal", "call_id", "cut_to_limit", "error_body", "finish", "flavour_of",
           "held_to", "ignored", "output_limit", "refusal", "spell_ids"]
