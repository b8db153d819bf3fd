"""The renderer's two worlds: *tuning*, which the recognizer was set on, and *held-out*, which it never saw.

The tuning world is what ``make_table(rules, seed)`` has always drawn: six
fixed prints (``PALETTES``), five tile styles (``TILE_STYLES``), moderate
cameras and lenses. Every threshold in ``calibration/`` was chosen on it, and
the tests and figures render it; a seed draws exactly the table it always
drew.

The held-out world (``make_table(rules, seed, world="held-out")``, built
here) is far wider, drawn per table:

* **prints** (:data:`PRINT_FAMILIES`): light (cream, ivory, pale grey or
  blue, white), mid and dark boards with continuous colours, cells printed as
  their own tinted squares or not; the labels in any of OpenCV's Hershey
  families (upright or italic), of any size and boldness; thin to heavy grid
  lines;
* **tile materials** (:data:`MATERIALS`): ivory plastic and ivory card
  carrying the cell's own label, often in the print's own colour and font and
  bold, on any print (on a light print, the ordinary low-contrast case of a
  real Acquire table); glossy plastic with a sheen and sharp specular edges;
  dark plastic; thick wooden blocks with a visible side; tiles printed in the
  board's own colours; each with its thickness, bevel, drop shadow, size and
  corner radius;
* **the room** (:class:`Room`): a colour cast (tungsten, fluorescent,
  daylight), under- or over-exposure with clipping, the camera's tone curve,
  camera shake in some frames;
* **the camera**: higher or lower (the grid fills 45-90 % of the frame),
  tilted up to 32 degrees, turned up to 25 (or looking from the far side),
  wide or long lenses, ``k1`` from -0.3 to 0.12 and an unmodelled ``k2``;
* **people**: a wider range of skin tones and sleeves, beige and white ones
  too (the colour of ivory tiles).

Kept apart by construction: a held-out table is drawn from its own random
stream, ``SeedSequence(seed, spawn_key=(HELD_OUT_KEY,))``, which no tuning
call can reach (tuning seeds are ints below 2**64 or a generator, the
spawn-keyed stream is neither), it only takes int seeds (a generator passed
in could have come from anywhere), and its prints and materials carry names
no tuning table has (``table.world`` says which world a table is from).
Anything that tunes (thresholds, a learned classifier's training set) must
use tuning tables only: :func:`require_tuning` refuses anything else.

The *training* world (``training_table``, built here) is what the learned
cell classifier (``calibration/learned.py``) is trained on: at least as wide
as the held-out world (every print family and material, bolder labels set
as large as a tile's, exposure from 0.4 to 1.8, stronger casts and tone
curves, higher, lower and more tilted cameras, stronger lenses, more shake),
drawn from a third stream, ``SeedSequence(seed, spawn_key=(TRAINING_KEY,))``,
so that no training table is ever a held-out one. :func:`require_training`
accepts tuning and training tables and refuses held-out ones.

>>> table = held_out_table("acquire", 4, size=(320, 240), material="ivory_card", family="light")
>>> table.world, table.tile_style in MATERIALS, table.palette in PRINT_FAMILIES
('held-out', True, True)
>>> require_tuning(table)
Traceback (most recent call last):
ValueError: a held-out table (acquire, ivory_card on a light print) must never be used for tuning
"""

from __future__ import annotations

import colorsys
import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Mapping

import cv2
import numpy as np

from calibration.layout import layout_for
from calibration.synthetic.canvas import SURFACES, BoardPrint, Palette, TileLook
from calibration.synthetic.scenes import SKIN_TONES, SLEEVES
from tabletop.engine.ruleset import load_rules

#: The two worlds the benchmark measures.
WORLDS = ("tuning", "held-out")
#: The held-out world's spawn key: its seeds' stream, apart from every tuning seed's.
HELD_OUT_KEY = 0x4E1D0
#: The training world (a learned classifier's, never measured on) and its spawn key.
TRAINING = "training"
TRAINING_KEY = 0x7A1E5
#: Held-out board prints, by how light the board is (with how often each is drawn).
PRINT_FAMILIES = {"light": 0.45, "mid": 0.3, "dark": 0.25}
#: Held-out tile materials (with how often each is drawn): ivory ones are the real table's.
MATERIALS_DRAWN = {"ivory_plastic": 0.28, "ivory_card": 0.2, "glossy_plastic": 0.14,
                   "matched_print": 0.14, "dark_plastic": 0.12, "wood_block": 0.12}
MATERIALS = tuple(MATERIALS_DRAWN)
#: OpenCV's Hershey families a print or a tile's label is set in.
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_DUPLEX,
         cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL)
#: Skin tones (BGR) beyond the tuning world's: pinker, yellower, darker.
WIDE_SKIN_TONES = SKIN_TONES + ((160, 180, 240), (120, 160, 215), (96, 140, 190),
                                (70, 104, 160), (52, 74, 118), (36, 50, 80), (150, 175, 215))
#: Sleeves (BGR) beyond the tuning world's: white, beige and ivory (a tile's colour), red, bright.
WIDE_SLEEVES = SLEEVES + ((235, 238, 240), (180, 205, 220), (200, 225, 235), (40, 40, 180),
                          (160, 40, 120), (30, 140, 230), (100, 100, 100), (20, 20, 20))


@dataclass(frozen=True)
class Room:
    """The held-out camera's rendering of the light: per channel gains, tone curve, shake.

    ``exposure`` scales everything (above 1 clips the light tiles to white);
    ``cast`` the white balance per BGR channel; ``gamma`` the tone curve;
    ``shake`` the longest motion blur in pixels, in a share ``shake_rate`` of frames.
    """

    exposure: float = 1.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gamma: float = 1.0
    shake: float = 0.0
    shake_rate: float = 0.0


@dataclass(frozen=True)
class Look:
    """Everything the held-out world draws beyond a tuning table's fields."""

    print: BoardPrint
    material: TileLook
    room: Room
    skins: tuple[tuple[int, int, int], ...] = WIDE_SKIN_TONES
    sleeves: tuple[tuple[int, int, int], ...] = WIDE_SLEEVES


def held_out_rng(seed: int) -> np.random.Generator:
    """The held-out world's generator for ``seed`` (see the module docstring)."""
    return _world_rng(seed, HELD_OUT_KEY, "held-out")


def training_rng(seed: int) -> np.random.Generator:
    """The training world's generator for ``seed``: a stream of its own, like the held-out one's."""
    return _world_rng(seed, TRAINING_KEY, "training")


def _world_rng(seed: int, key: int, world: str) -> np.random.Generator:
    """A world's own stream for ``seed``: spawned under its ``key``, never a caller's generator."""
    if isinstance(seed, (bool, np.random.Generator)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{world} tables take an int seed: their stream is the world's own")
    if seed < 0:
        raise ValueError(f"{world} seeds are non-negative ints")
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(key,)))


def require_training(table: Any) -> None:
    """Refuse a held-out table where anything is trained (tuning and training tables pass)."""
    if getattr(table, "world", "tuning") not in ("tuning", TRAINING):
        raise ValueError(f"a held-out table ({table.rules}, {table.tile_style} on a {table.palette} "
                         "print) must never be used for training")


def require_tuning(table: Any) -> None:
    """Refuse a table that is not from the tuning world (call it wherever anything is tuned)."""
    if getattr(table, "world", "tuning") != "tuning":
        raise ValueError(f"a held-out table ({table.rules}, {table.tile_style} on a {table.palette} "
                         "print) must never be used for tuning")


# --- prints ------------------------------------------------------------------------------

def _bgr(hue: float, saturation: float, value: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(hue % 1.0, float(np.clip(saturation, 0, 1)),
                                  float(np.clip(value, 0, 255)) / 255)
    return (int(round(b * 255)), int(round(g * 255)), int(round(r * 255)))


def draw_print(rng: np.random.Generator, family: str) -> BoardPrint:
    """A board print of ``family``: colours, typography, line weights."""
    hue = rng.uniform(0, 1)
    if family == "light":
        # Cream, ivory, pale grey or blue, white; lines and labels in darker inks (each channel
        # darkened on its own: the inks' hues differ a little from the board's).
        board = _bgr(rng.choice([rng.uniform(0.08, 0.16), hue]), rng.uniform(0.02, 0.22),
                     rng.uniform(188, 242))
        line = tuple(int(v * rng.uniform(0.3, 0.65)) for v in board)
        label = tuple(int(v * rng.uniform(0.55, 0.85)) for v in board)
    elif family == "mid":
        board = _bgr(hue, rng.uniform(0.1, 0.6), rng.uniform(105, 185))
        line = tuple(int(v * rng.uniform(0.3, 0.6)) for v in board)
        label = tuple(int(v * rng.uniform(0.6, 0.85)) for v in board)
    elif family == "dark":
        board = _bgr(hue, rng.uniform(0.0, 0.6), rng.uniform(28, 95))
        lift = rng.uniform(1.6, 3.2)
        line = tuple(int(min(255, v * lift + 40)) for v in board)
        label = tuple(int(min(255, v * rng.uniform(1.3, 2.2) + 25)) for v in board)
    else:
        raise ValueError(f"unknown print family {family!r} (families: {', '.join(PRINT_FAMILIES)})")
    font = int(rng.choice(FONTS)) | (cv2.FONT_ITALIC if rng.random() < 0.1 else 0)
    tinted = rng.random() < 0.4
    return BoardPrint(Palette(board, line, label), line_weight=float(rng.uniform(0.01, 0.07)),
                      border_weight=float(rng.uniform(0.02, 0.1)),
                      label_height=float(rng.uniform(0.14, 0.32)),
                      label_width=float(rng.uniform(0.55, 0.8)),
                      label_weight=float(rng.uniform(0.06, 0.22)), font=font,
                      cell_tint=float(rng.uniform(0.9, 1.1)) if tinted else 1.0)


# --- materials ---------------------------------------------------------------------------

def _jitter(rng: np.random.Generator, colour: tuple[float, ...], spread: float) -> tuple[float, ...]:
    return tuple(float(v) for v in np.clip(np.asarray(colour, float) + rng.uniform(-spread, spread, 3),
                                           0, 255))


def draw_material(rng: np.random.Generator, material: str, printed: BoardPrint) -> TileLook:
    """A tile material's look, drawn: colours, label, thickness, bevel, gloss, size."""
    board = np.asarray(printed.palette.board, float)
    # The label: often the print's own ink and font (the same label the board shows), often bold.
    own_ink = rng.random() < 0.5
    font = printed.font if rng.random() < 0.5 else int(rng.choice(FONTS))
    common: dict[str, Any] = dict(font=font, text_height=float(rng.uniform(0.22, 0.36)),
                                  text_width=float(rng.uniform(0.6, 0.8)),
                                  text_weight=float(rng.uniform(0.14, 0.3)),
                                  half=float(rng.uniform(0.38, 0.46)),
                                  corner=float(rng.uniform(0.02, 0.12)),
                                  hex_scale=float(rng.uniform(0.8, 0.92)),
                                  edge=float(rng.uniform(0.015, 0.05)))
    dark_text = _jitter(rng, (40, 40, 40), 25)
    if material == "ivory_plastic":
        body = _jitter(rng, (200, 224, 235), 14)
        text = printed.palette.label if own_ink else dark_text
        return TileLook(body, tuple(float(v) for v in text), float(rng.uniform(8, 24)),
                        float(rng.uniform(0.15, 0.5)), int(rng.integers(80, 170)),
                        thickness=float(rng.uniform(0.02, 0.06)), side=float(rng.uniform(0, 0.03)),
                        specular=float(rng.uniform(0, 15)), grain=float(rng.uniform(1, 3)), **common)
    if material == "ivory_card":
        body = _jitter(rng, (205, 226, 236), 16)
        text = printed.palette.label if own_ink else dark_text
        return TileLook(body, tuple(float(v) for v in text), float(rng.uniform(2, 7)),
                        float(rng.uniform(0.04, 0.2)), int(rng.integers(25, 60)),
                        thickness=float(rng.uniform(0.005, 0.015)), grain=float(rng.uniform(3, 5.5)),
                        sheen=0.0, **common)
    if material == "glossy_plastic":
        body = _jitter(rng, (235, 237, 240), 12)
        return TileLook(body, dark_text, float(rng.uniform(10, 22)), float(rng.uniform(0.3, 0.55)),
                        int(rng.integers(225, 256)), thickness=float(rng.uniform(0.03, 0.06)),
                        sheen=float(rng.uniform(6, 18)), specular=float(rng.uniform(20, 60)),
                        side=float(rng.uniform(0, 0.02)), grain=float(rng.uniform(0.5, 1.5)), **common)
    if material == "dark_plastic":
        body = _jitter(rng, (50, 48, 46), 20)
        return TileLook(body, _jitter(rng, (210, 220, 228), 25), float(rng.uniform(20, 35)),
                        float(rng.uniform(0.4, 0.6)), int(rng.integers(120, 200)),
                        thickness=float(rng.uniform(0.03, 0.06)), specular=float(rng.uniform(0, 25)),
                        **common)
    if material == "wood_block":
        body = _jitter(rng, (110, 160, 200), 25)
        return TileLook(body, _jitter(rng, (30, 48, 80), 20), float(rng.uniform(15, 28)),
                        float(rng.uniform(0.45, 0.65)), int(rng.integers(40, 90)),
                        thickness=float(rng.uniform(0.05, 0.09)), side=float(rng.uniform(0.02, 0.05)),
                        grain=float(rng.uniform(3, 6)), **common)
    if material == "matched_print":
        # Printed in the board's own colours: only a faint edge, a shadow and the label.
        body = tuple(float(v) for v in np.clip(board * rng.uniform(0.97, 1.07) + rng.uniform(-3, 6),
                                               0, 255))
        return TileLook(body, tuple(float(v) for v in printed.palette.label),
                        float(rng.uniform(3, 10)), float(rng.uniform(0.08, 0.25)),
                        int(rng.integers(40, 110)), thickness=float(rng.uniform(0.01, 0.04)),
                        **common)
    raise ValueError(f"unknown tile material {material!r} (materials: {', '.join(MATERIALS)})")


def material_look(material: str, printed: BoardPrint) -> TileLook:
    """A material's look on a print when asked for by name (a fixed draw: tiles of another kind)."""
    return draw_material(np.random.default_rng(sum(map(ord, material))), material, printed)


# --- the room ----------------------------------------------------------------------------

def draw_room(rng: np.random.Generator) -> Room:
    """A room's light as the held-out camera renders it (see :class:`Room`)."""
    kind = rng.choice(["neutral", "tungsten", "fluorescent", "daylight"], p=[0.3, 0.3, 0.2, 0.2])
    cast = {"neutral": (1.0, 1.0, 1.0), "tungsten": (0.72, 0.95, 1.18),
            "fluorescent": (0.98, 1.08, 0.9), "daylight": (1.12, 1.0, 0.9)}[str(kind)]
    cast = tuple(float(v * rng.uniform(0.95, 1.05)) for v in cast)
    exposure = float(rng.choice([rng.uniform(0.5, 0.8), rng.uniform(0.85, 1.15),
                                 rng.uniform(1.2, 1.55)], p=[0.3, 0.4, 0.3]))
    shaky = rng.random() < 0.4
    return Room(exposure=exposure, cast=cast, gamma=float(rng.uniform(0.75, 1.3)),
                shake=float(rng.uniform(3, 11)) if shaky else 0.0,
                shake_rate=float(rng.uniform(0.1, 0.5)) if shaky else 0.0)


def apply_room(image: np.ndarray, room: Room, rng: np.random.Generator) -> np.ndarray:
    """``image`` as the room's camera takes it: gains and tone curve in one table, then shake."""
    levels = np.arange(256, dtype=np.float64)[:, None] / 255
    gains = np.asarray(room.cast)[None, :] * room.exposure
    lut = np.clip(255 * np.clip(levels * gains, 0, 1) ** room.gamma + 0.5, 0, 255)
    image = cv2.LUT(image, lut.astype(np.uint8).reshape(256, 1, 3))
    if room.shake >= 2 and rng.random() < room.shake_rate:
        from calibration.synthetic.render import _motion_kernel  # render builds on this module
        kernel = _motion_kernel(float(rng.uniform(2, room.shake)), float(rng.uniform(0, math.pi)))
        image = cv2.filter2D(image, -1, kernel)
    return image


# --- a held-out table --------------------------------------------------------------------

def held_out_table(rules: str = "acquire", seed: int = 0, *,
                   options: Mapping[str, Any] | None = None,
                   size: tuple[int, int] | None = None, material: str | None = None,
                   family: str | None = None, surface: str | None = None,
                   k1: float | None = None, fill: float | None = None, tilt: float | None = None,
                   yaw: float | None = None, shuffle_markers: bool | None = None) -> Any:
    """A :class:`~calibration.synthetic.render.Table` of the held-out world, deterministic for ``seed``.

    Anything not given is drawn (see the module docstring); ``material`` is
    one of :data:`MATERIALS`, ``family`` one of :data:`PRINT_FAMILIES`.
    """
    from calibration.synthetic import render as r  # render builds on this module
    rng = held_out_rng(seed)
    ruleset = load_rules(rules)
    resolved = ruleset.resolve_options(dict(options or {}))
    layout = layout_for(ruleset.geometry_for(resolved))
    family = family or str(rng.choice(list(PRINT_FAMILIES), p=list(PRINT_FAMILIES.values())))
    material = material or str(rng.choice(MATERIALS, p=list(MATERIALS_DRAWN.values())))
    if family not in PRINT_FAMILIES or material not in MATERIALS:
        raise ValueError(f"unknown held-out print family or material: {family}, {material} "
                         f"(families: {', '.join(PRINT_FAMILIES)}; materials: {', '.join(MATERIALS)})")
    printed = draw_print(rng, family)
    look = Look(printed, draw_material(rng, material, printed), draw_room(rng))
    surface = surface or str(rng.choice(SURFACES))
    surface_colour = r._surface_colour(surface, rng)
    markers = r._place_markers(layout, rng, shuffle_markers)
    outline = layout.outline()
    reach = max(float(np.max(np.abs(m.paper() - outline.mean(axis=0)) - np.ptp(outline, axis=0) / 2))
                for m in markers)
    margin = max(reach + rng.uniform(0.15, 0.6), rng.uniform(0.5, 1.4))
    k1 = float(rng.uniform(-0.3, 0.12)) if k1 is None else float(k1)
    k2 = float(rng.uniform(-0.04, 0.04))
    fill = float(rng.uniform(0.45, 0.9)) if fill is None else float(fill)
    tilt = float(rng.uniform(0, 32)) if tilt is None else float(tilt)
    if yaw is None:
        yaw = float(rng.uniform(-25, 25)) + (180.0 if rng.random() < 0.2 else 0.0)
    size = tuple(size or r.FRAME_SIZE)
    camera = r._camera(layout, markers, size, rng, k1, fill, tilt, yaw,
                       focal_range=(0.6, 1.35), k2=k2)
    return r.Table(rules=ruleset.source or rules, options=tuple(sorted((options or {}).items())),
                   size=size, palette=family, tile_style=material, surface=surface,
                   surface_colour=surface_colour, board_margin=float(margin), markers=markers,
                   texture_seed=int(rng.integers(2 ** 31)), world="held-out", look=look, **camera)



# --- a training table --------------------------------------------------------------------

def _wider_print(rng: np.random.Generator, printed: BoardPrint) -> BoardPrint:
    """A drawn print, in some tables with labels as large and bold as a tile's own."""
    if rng.random() >= 0.35:
        return printed
    return dataclasses.replace(printed, label_height=float(rng.uniform(0.22, 0.38)),
                               label_weight=float(rng.uniform(0.14, 0.32)))


def _wider_room(rng: np.random.Generator) -> Room:
    """A room wider than the held-out world's: deeper exposure, stronger casts and curves."""
    cast = tuple(float(v) for v in rng.uniform([0.65, 0.85, 0.8], [1.2, 1.15, 1.3]))
    exposure = float(rng.choice([rng.uniform(0.4, 0.8), rng.uniform(0.8, 1.2),
                                 rng.uniform(1.2, 1.8)], p=[0.3, 0.35, 0.35]))
    shaky = rng.random() < 0.45
    return Room(exposure=exposure, cast=cast, gamma=float(rng.uniform(0.65, 1.45)),
                shake=float(rng.uniform(3, 11)) if shaky else 0.0,
                shake_rate=float(rng.uniform(0.1, 0.6)) if shaky else 0.0)


def training_table(rules: str = "acquire", seed: int = 0, *,
                   options: Mapping[str, Any] | None = None,
                   size: tuple[int, int] | None = None, material: str | None = None,
                   family: str | None = None) -> Any:
    """A :class:`~calibration.synthetic.render.Table` of the training world, deterministic for ``seed``.

    Drawn as a held-out table is, from the training stream and wider (see the
    module docstring); ``material`` and ``family`` as for :func:`held_out_table`.
    """
    from calibration.synthetic import render as r  # render builds on this module
    rng = training_rng(seed)
    ruleset = load_rules(rules)
    resolved = ruleset.resolve_options(dict(options or {}))
    layout = layout_for(ruleset.geometry_for(resolved))
    # Light prints and ivory tiles more often: the real table's low-contrast case.
    family = family or str(rng.choice(list(PRINT_FAMILIES), p=[0.5, 0.25, 0.25]))
    material = material or str(rng.choice(MATERIALS, p=[0.26, 0.22, 0.13, 0.15, 0.12, 0.12]))
    if family not in PRINT_FAMILIES or material not in MATERIALS:
        raise ValueError(f"unknown training print family or material: {family}, {material} "
                         f"(families: {', '.join(PRINT_FAMILIES)}; materials: {', '.join(MATERIALS)})")
    printed = _wider_print(rng, draw_print(rng, family))
    look = Look(printed, draw_material(rng, material, printed), _wider_room(rng))
    surface = str(rng.choice(SURFACES))
    surface_colour = r._surface_colour(surface, rng)
    markers = r._place_markers(layout, rng, None)
    outline = layout.outline()
    reach = max(float(np.max(np.abs(m.paper() - outline.mean(axis=0)) - np.ptp(outline, axis=0) / 2))
                for m in markers)
    margin = max(reach + rng.uniform(0.15, 0.6), rng.uniform(0.5, 1.4))
    yaw = float(rng.uniform(-30, 30)) + (180.0 if rng.random() < 0.2 else 0.0)
    size = tuple(size or r.FRAME_SIZE)
    camera = r._camera(layout, markers, size, rng, float(rng.uniform(-0.35, 0.15)),
                       float(rng.uniform(0.42, 0.92)), float(rng.uniform(0, 36)), yaw,
                       focal_range=(0.55, 1.4), k2=float(rng.uniform(-0.05, 0.05)))
    return r.Table(rules=ruleset.source or rules, options=tuple(sorted((options or {}).items())),
                   size=size, palette=family, tile_style=material, surface=surface,
                   surface_colour=surface_colour, board_margin=float(margin), markers=markers,
                   texture_seed=int(rng.integers(2 ** 31)), world=TRAINING, look=look, **camera)
