"""Record once, replay for the class: a run against a real model, kept as a JSON *tape*.

The learner's façade (`from toolcall_lab.tape import load, replay`, lessons 4 and 27); each name
lives in one module of this folder:

    format.py       the tape as data: `Tape`, `Exchange`, `FORMAT`, `load`, `shipped`
    recorder.py     recording and replay: `record`, `recording`, `Recorder`, `replay`, `KEYLIKE`
    redaction.py    what a tape never keeps: secrets scrubbed, a stream's as its text assembles
    environment.py  `provider_from_env`: the lessons' provider cell, which may replay or record

The shipped tapes are data files, in `toolcall_lab/data/tapes/`.
"""

from .environment import provider_from_env
from .format import FORMAT, Exchange, Tape, load, shipped
from .recorder import KEYLIKE, Recorder, record, recording, replay

__all__ = ["FORMAT", "KEYLIKE", "Exchange", "Recorder", "Tape", "load", "provider_from_env", "record",
           "recording", "replay", "shipped"]
