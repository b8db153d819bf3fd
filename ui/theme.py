"""Colours and fonts: readable across a table, and chains told apart without colour alone.

A chain is drawn in its marker's colour, which its rule file names (``colour =
"#rrggbb"``); a rule file without colours gets a palette chosen to stay apart
for the common kinds of colour blindness (Okabe-Ito's eight, then darker and
lighter steps of them). Every chain also shows its initials on the board
mirror, and words reach WCAG's 4.5:1 against their background (:func:`readable`).
"""

from __future__ import annotations

import colorsys
import contextlib
import functools
import logging
import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

log = logging.getLogger(__name__)

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
#: Red light enough for words on BACKGROUND and PANEL (4.5:1; the old 0.86,0.22,0.18 was 3:1).
WARNING = (1.0, 0.42, 0.38, 1)
#: Red to fill behind TEXT (a fault banner): TEXT on it reaches 5.8:1.
WARNING_FILL = (0.72, 0.12, 0.10, 1)
HIGHLIGHT = (1.0, 1.0, 1.0, 1)
#: The player whose turn it is, and the answer chosen: a warm yellow (12:1 on the background).
TURN = (1.0, 0.85, 0.3, 1)

Colour = tuple[float, float, float, float]


def chain_colour(index: int, rules: Any = None) -> Colour:
    """Chain ``index``'s colour: its marker's, from the rule file, when ``rules`` is given.

    Without rules (or for a rule file that names no colour) the palette by index.
    """
    chains = getattr(rules, "chains", None)
    if chains and 0 <= index < len(chains):
        named = getattr(chains[index], "colour", "")
        if named:
            return from_hex(named)
    red, green, blue = PALETTE[index % len(PALETTE)]
    return red, green, blue, 1.0


def from_hex(colour: str) -> Colour:
    """``"#rrggbb"`` -> RGBA in 0..1."""
    digits = colour.lstrip("#")
    red, green, blue = (int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return red, green, blue, 1.0


def to_hex(colour: Sequence[float]) -> str:
    """RGBA in 0..1 -> ``"rrggbb"`` (as Kivy markup's ``[color=...]`` takes it)."""
    return "".join(f"{round(max(0.0, min(1.0, c)) * 255):02x}" for c in colour[:3])


def luminance(colour: Sequence[float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0 black .. 1 white)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    red, green, blue = (linear(c) for c in colour[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(a: Sequence[float], b: Sequence[float]) -> float:
    """WCAG 2 contrast ratio between two colours, 1 (same) .. 21 (black on white)."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def ink_on(colour: Sequence[float]) -> Colour:
    """Black or white text, whichever has the higher contrast on ``colour``."""
    black, white = (0.0, 0.0, 0.0, 1.0), (1.0, 1.0, 1.0, 1.0)
    return black if contrast(black, colour) >= contrast(white, colour) else white


#: WCAG 2 AA for normal text: what every word on the screen reaches against its background.
READABLE = 4.5


def readable(colour: Sequence[float], background: Sequence[float] = BACKGROUND,
             ratio: float = READABLE) -> Colour:
    """``colour`` made lighter or darker, hue kept, until text in it reaches ``ratio`` on
    ``background`` (a chain's name written in the chain's colour)."""
    if contrast(colour, background) >= ratio:
        return (*colour[:3], 1.0)
    hue, lightness, saturation = colorsys.rgb_to_hls(*colour[:3])
    # Away from the background's luminance: lighter on a dark panel, darker on a light one.
    step = 0.01 if luminance(background) < 0.18 else -0.01
    for _ in range(100):
        lightness = max(0.0, min(1.0, lightness + step))
        red, green, blue = colorsys.hls_to_rgb(hue, lightness, saturation)
        if contrast((red, green, blue), background) >= ratio or lightness in (0.0, 1.0):
            return red, green, blue, 1.0
    return red, green, blue, 1.0


def initials(name: str) -> str:
    """"Tower" -> "To", "Solon Clan" -> "SC": short enough for a cell, unique enough to read."""
    words = name.split()
    return "".join(word[0] for word in words[:2]).upper() if len(words) > 1 else name[:2]


#: Fonts drawn as Traditional Chinese: a standalone TC face (as a system may install one),
#: else the TC face of a CJK collection (package fonts-noto-cjk), else a font that at least
#: has the characters. ``$TABLETOP_FONT`` names another, first.
TC_FONTS = ("/usr/share/fonts/opentype/noto/NotoSansCJKtc-Regular.otf",
            "/usr/share/fonts/opentype/noto/NotoSansTC-Regular.otf")
CJK_COLLECTIONS = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",)
FALLBACK_FONTS = ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",)


def font_path() -> str | None:
    """A font whose glyphs are the Traditional Chinese forms, or None (then Chinese cannot be shown).

    Kivy opens only a collection's first face (Noto CJK's is Japanese, whose 直 骨 角 differ
    from Taiwan's), so the TC face is copied out of the collection once, into the cache.
    """
    return _font_path(os.environ.get("TABLETOP_FONT", ""), str(cache_dir()))


def cache_dir() -> Path:
    """Where the extracted face is kept: ``$XDG_CACHE_HOME/tabletop`` (``~/.cache/tabletop``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tabletop"


@functools.lru_cache(maxsize=8)
def _font_path(chosen: str, cache: str) -> str | None:
    # Once per setting: the screens ask for the font at every label.
    if chosen and Path(chosen).is_file():
        return chosen
    if chosen:
        log.warning("TABLETOP_FONT=%s is not a font file; looking for one", chosen)
    standalone = next((place for place in TC_FONTS if Path(place).is_file()), None)
    if standalone:
        return standalone
    for collection in CJK_COLLECTIONS:
        if Path(collection).is_file():
            extracted = extract_face(Path(collection), Path(cache))
            if extracted:
                return str(extracted)
    return next((place for place in (*CJK_COLLECTIONS, *FALLBACK_FONTS) if Path(place).is_file()),
                None)


def extract_face(collection: Path, cache: Path, region: str = "TC") -> Path | None:
    """The ``region`` face of ``collection`` as a font file of its own in ``cache``, or None
    (logged) when it cannot be had. Reused while it is newer than the collection."""
    target = cache / f"{collection.stem.replace('-', region.lower() + '-', 1)}.otf"
    try:
        if target.is_file() and target.stat().st_mtime >= collection.stat().st_mtime:
            return target
        from fontTools.ttLib import TTCollection
        faces = TTCollection(str(collection), lazy=True).fonts
        index = face_index(faces, region)
        if index is None:
            log.warning("%s has no %s face; Chinese is drawn with its first face", collection, region)
            return None
        cache.mkdir(parents=True, exist_ok=True)
        # Written beside the target and renamed: a reader never sees half a font.
        with tempfile.NamedTemporaryFile(dir=cache, suffix=".part", delete=False) as part:
            faces[index].save(part)
        os.chmod(part.name, 0o644)   # readable by the table's service user too
        os.replace(part.name, target)
        return target
    except ImportError:
        log.warning("fontTools is not installed: Chinese is drawn with %s's first face", collection)
    except Exception as error:   # a font library's failures are many; any one means "fall back"
        log.warning("cannot extract the %s face of %s into %s (%s); Chinese is drawn with its "
                    "first face", region, collection, cache, error)
        with contextlib.suppress(NameError, OSError):
            os.unlink(part.name)
    return None


def face_index(faces: Sequence[Any], region: str) -> int | None:
    """The index of the proportional face whose family names ``region`` ("TC": Noto Sans CJK TC)."""
    for index, face in enumerate(faces):
        families = {record.toUnicode() for record in face["name"].names if record.nameID in (1, 16)}
        if any(region in family.split() and "Mono" not in family for family in families):
            return index
    return None
