"""Did-you-mean for names a person typed: commands, options, rule sets, camera sources.

Standard library only, so that every room may use it.

>>> close_match("acquir", ["acquire", "acquisitions", "megacquire-gold"])
'acquire'
>>> close_match("monopoly", ["acquire", "acquisitions"]) is None
True
>>> did_you_mean("--sped", ["--speed", "--seed", "--rules"])
'did you mean --speed?'
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: How alike a typo must be to its name to be offered (difflib's ratio): "acquir" and
#: "acquire" are 0.92, "--sped" and "--speed" 0.92, "webcam" and "picamera2" 0.4.
CUTOFF = 0.6


def close_match(word: str, names: Iterable[str]) -> str | None:
    """The name ``word`` was most likely meant to be, or None when none is close."""
    found = difflib.get_close_matches(word, list(names), n=1, cutoff=CUTOFF)
    return found[0] if found else None


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """``"did you mean NAME?"`` for the closest name, or ``""`` when none is close."""
    match = close_match(word, names)
    return "" if match is None else f"did you mean {match}?"
