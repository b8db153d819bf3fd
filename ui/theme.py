"""Colours and fonts: readable across a table, and chains told apart without colour alone.

Chain colours come from a palette chosen to stay apart for the common kinds
of colour blindness (Okabe-Ito's eight, then darker and lighter steps of
them); every chain also shows its initials on the board mirror.
"""

from __future__ import annotations

import os
from pathlib import Path

#: RGBA, 0..1. Okabe-Ito first (distinguishable in protanopia, deuteranopia and
#: tritanopia), then a second ring for MEGAcquire's fourteen companies.
PALETTE = [
    (0.90, 0.62, 0.00), (0.34, 0.71, 0.91), (0.00, 0.62, 0.45), (0.94, 0.89, 0.26),
    (0.00, 0.45, 0.70), (0.84, 0.37, 0.00), (0.80, 0.47, 0.65), (0.55, 0.55, 0.55),
    (0.60, 0.40, 0.00), (0.17, 0.40, 0.55), (0.00, 0.38, 0.27), (0.62, 0.58, 0.10),
    (0.50, 0.20, 0.00), (0.55, 0.27, 0.45),
]
BACKGROUND = (0.11, 0.12, 0.14, 1)
PANEL = (0.17, 0.18, 0.21, 1)
TEXT = (0.95, 0.95, 0.95, 1)
DIM = (0.65, 0.67, 0.70, 1)
EMPTY_CELL = (0.26, 0.28, 0.31, 1)
LONE_CELL = (0.85, 0.80, 0.68, 1)
DEAD_CELL = (0.08, 0.08, 0.08, 1)
WARNING = (0.86, 0.22, 0.18, 1)
HIGHLIGHT = (1.0, 1.0, 1.0, 1)

#: Fonts with the Traditional Chinese glyphs, where Debian and Raspberry Pi OS put them
#: (package fonts-noto-cjk); ``$TABLETOP_FONT`` names another.
FONT_PLACES = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
               "/usr/share/fonts/opentype/noto/NotoSansCJKtc-Regular.otf",
               "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf")


def chain_colour(index: int) -> tuple[float, float, float, float]:
    red, green, blue = PALETTE[index % len(PALETTE)]
    return red, green, blue, 1.0


def ink_on(colour: tuple[float, ...]) -> tuple[float, float, float, float]:
    """Black or white text, whichever reads better on ``colour``."""
    red, green, blue = colour[:3]
    return (0, 0, 0, 1) if 0.299 * red + 0.587 * green + 0.114 * blue > 0.55 else (1, 1, 1, 1)


def initials(name: str) -> str:
    """"Tower" -> "To", "Solon Clan" -> "SC": short enough for a cell, unique enough to read."""
    words = name.split()
    return "".join(word[0] for word in words[:2]).upper() if len(words) > 1 else name[:2]


def font_path() -> str | None:
    """The font that covers Traditional Chinese, or None (then Chinese cannot be shown)."""
    chosen = os.environ.get("TABLETOP_FONT")
    if chosen and Path(chosen).is_file():
        return chosen
    return next((place for place in FONT_PLACES if Path(place).is_file()), None)
