"""What happens in front of the camera: light, shadows, glare, hands, cups, bumps.

A :class:`Scene` is everything about one frame except the board and its
tiles, as concrete numbers (so that a sequence can keep the lamp where it is
from frame to frame and move only the hand). :class:`Nuisances` says which of
them a random frame gets and how strong; :func:`sample_scene` draws a scene
from it. Drawing lives here too (hands, cups, the light maps) so that the
renderer (``render.py``) only composes.

Image-space things (hands, cups, shadows, glare) are in image pixels: they
are above the board or come from the room, not printed on it.

>>> Nuisances.none().active()
()
>>> Nuisances.all().active()[:3]
('lighting', 'gradient', 'shadow')
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields, replace
from typing import Iterable, Sequence

import cv2
import numpy as np

from calibration.synthetic.hands import capsule, hand_parts, kept

#: The low-resolution factor of the light maps (they are smooth; blurring small is cheap).
LIGHT_SCALE = 8

#: Skin tones (BGR), light to dark.
SKIN_TONES = ((172, 192, 236), (140, 170, 222), (112, 148, 205), (88, 122, 178),
              (62, 92, 140), (44, 64, 100))
#: Sleeve colours (BGR): what people wear at game night.
SLEEVES = ((40, 40, 40), (120, 60, 30), (50, 50, 150), (170, 170, 170), (60, 110, 60),
           (30, 30, 90), (200, 200, 205), (140, 100, 40), (80, 150, 200))
#: Cup bodies (BGR).
CUP_COLOURS = ((232, 236, 238), (40, 40, 160), (150, 90, 40), (60, 60, 60), (70, 170, 210))


@dataclass(frozen=True)
class Nuisances:
    """Which nuisances a random frame gets, each with a strength in ``[0, 1]`` (0 = off).

    Continuous ones (``lighting``, ``gradient``, ``glare``, ``noise``, ``blur``)
    scale their magnitude up to a realistic maximum. Events (``shadow``,
    ``hand``, ``bump``, ``marker_cover``, ``jpeg``) happen in a frame with
    that probability, at a magnitude drawn from their whole realistic range.
    """

    lighting: float = 0.0      # global brightness (lamp, exposure) and colour cast
    gradient: float = 0.0      # side light and vignetting
    shadow: float = 0.0        # a leaning player's soft shadow over part of the board
    glare: float = 0.0         # bright spots from the lamp, strongest on glossy tiles
    noise: float = 0.0         # sensor noise
    blur: float = 0.0          # defocus or motion blur
    jpeg: float = 0.0          # re-encoded as JPEG, quality 40-90
    hand: float = 0.0          # a hand and arm over (part of) the board
    bump: float = 0.0          # the board knocked: a few percent and a few degrees
    marker_cover: float = 0.0  # a marker partly hidden by a cup or a hand

    @classmethod
    def none(cls) -> "Nuisances":
        """A clean frame: the board as printed, seen through a perfect camera."""
        return cls()

    @classmethod
    def mild(cls) -> "Nuisances":
        """What a calibration photo of an empty board looks like: a little of the harmless ones."""
        return cls(lighting=0.3, gradient=0.3, glare=0.15, noise=0.3, blur=0.2, jpeg=0.3)

    @classmethod
    def all(cls, strength: float = 1.0, events: float = 0.5) -> "Nuisances":
        """Every nuisance: continuous ones at ``strength``, events with probability ``events``."""
        return cls(lighting=strength, gradient=strength, shadow=events, glare=strength,
                   noise=strength, blur=strength, jpeg=events, hand=events, bump=events,
                   marker_cover=events)

    def active(self) -> tuple[str, ...]:
        """The names of the nuisances switched on."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) > 0)


@dataclass(frozen=True)
class Hand:
    """A hand and arm reaching in, in image pixels.

    ``grip`` is where the fingertips hold a tile (the hand covers it);
    ``angle`` the direction of the reach (radians, image axes: 0 points
    right, pi/2 down); the arm runs back from the wrist the other way, out of
    the frame. ``width`` is the palm's width in pixels. ``curl`` (0-1)
    shortens the fingers of a gripping hand; ``left`` mirrors it.
    """

    grip: tuple[float, float]
    angle: float
    width: float
    skin: tuple[int, int, int] = SKIN_TONES[1]
    sleeve: tuple[int, int, int] = SLEEVES[0]
    sleeve_gap: float = 0.8    # bare forearm before the sleeve, in palm widths
    curl: float = 0.3
    spread: float = 1.0
    left: bool = False
    height: float = 0.35       # above the board, in palm widths: how far its shadow falls

    def moved(self, grip: tuple[float, float]) -> "Hand":
        """The same hand with its fingertips at ``grip``."""
        return replace(self, grip=(float(grip[0]), float(grip[1])))


@dataclass(frozen=True)
class Cup:
    """A mug seen from above, in image pixels (it hides whatever is under it)."""

    centre: tuple[float, float]
    radius: float
    colour: tuple[int, int, int] = CUP_COLOURS[0]
    handle: float = 0.0        # direction of the handle, radians


@dataclass(frozen=True)
class Shadow:
    """A soft shadow (a leaning player): an ellipse in image pixels, mostly outside the frame."""

    centre: tuple[float, float]
    axes: tuple[float, float]
    angle: float
    darkness: float            # 0 = none, 1 = black at its core
    softness: float            # Gaussian sigma in pixels


@dataclass(frozen=True)
class Glare:
    """A bright reflection of the lamp: a blurred ellipse in image pixels."""

    centre: tuple[float, float]
    axes: tuple[float, float]
    angle: float
    intensity: float           # grey levels added on a fully glossy surface


@dataclass(frozen=True)
class Scene:
    """Everything about one frame except the board's tiles, as concrete numbers.

    ``gradient`` is ``(direction radians, amplitude, vignette)``; ``bump``
    ``(dx, dy, degrees)``: the board's displacement in board units and its
    rotation about the grid's centre; ``motion`` ``(length px, angle
    radians)``; ``jpeg`` a quality or None.
    """

    brightness: float = 1.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: tuple[float, float, float] = (0.0, 0.0, 0.0)
    shadows: tuple[Shadow, ...] = ()
    glare: tuple[Glare, ...] = ()
    hands: tuple[Hand, ...] = ()
    cups: tuple[Cup, ...] = ()
    bump: tuple[float, float, float] = (0.0, 0.0, 0.0)
    noise: float = 0.0
    blur: float = 0.0
    motion: tuple[float, float] = (0.0, 0.0)
    jpeg: int | None = None

    @property
    def occluded(self) -> bool:
        """True if something (a hand, a cup) stands between the camera and the table."""
        return bool(self.hands or self.cups)


# --- sampling ------------------------------------------------------------------------------

@dataclass(frozen=True)
class View:
    """What the scene sampler needs to know about a table's view of the board.

    ``centres`` are the cells' image pixels, ``unit`` the pixels per board
    unit about the board, ``grid`` the grid's outline in pixels and
    ``markers`` each marker's corners in pixels.
    """

    size: tuple[int, int]
    centres: np.ndarray
    unit: float
    grid: np.ndarray
    markers: dict[int, np.ndarray] = field(default_factory=dict)
    #: Who sits at the table: the skin tones and sleeves its hands are drawn from.
    skins: tuple[tuple[int, int, int], ...] = SKIN_TONES
    sleeves: tuple[tuple[int, int, int], ...] = SLEEVES


def sample_scene(view: View, nuisances: Nuisances, rng: np.random.Generator) -> Scene:
    """A random :class:`Scene` with the ``nuisances`` asked for (see :class:`Nuisances`)."""
    n = nuisances
    scene: dict = {}
    if n.lighting > 0:
        s = n.lighting
        scene["brightness"] = float(rng.uniform(1 - 0.45 * s, 1 + 0.3 * s))
        scene["cast"] = tuple(float(v) for v in rng.uniform(1 - 0.12 * s, 1 + 0.12 * s, 3))
    if n.gradient > 0:
        s = n.gradient
        scene["gradient"] = (float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(0.05, 0.4) * s),
                             float(rng.uniform(0.05, 0.35) * s))
    if n.shadow > 0 and rng.random() < n.shadow:
        scene["shadows"] = (leaning_shadow(view.size, rng),)
    if n.glare > 0:
        scene["glare"] = tuple(glare_spot(view, rng, n.glare)
                               for _ in range(int(rng.integers(1, 4))))
    hands: list[Hand] = []
    cups: list[Cup] = []
    if n.hand > 0 and rng.random() < n.hand:
        if rng.random() < 0.7:
            target = view.centres[rng.integers(len(view.centres))]
        else:
            # Partly over the board: aim at a point just outside the grid's edge.
            (x0, y0), (x1, y1) = view.grid.min(axis=0), view.grid.max(axis=0)
            side = rng.integers(4)
            t = rng.uniform(0, 1)
            edge = [(x0 + t * (x1 - x0), y0), (x1, y0 + t * (y1 - y0)),
                    (x0 + t * (x1 - x0), y1), (x0, y0 + t * (y1 - y0))][side]
            out = [(0, -1), (1, 0), (0, 1), (-1, 0)][side]
            reach = rng.uniform(0.3, 2.5) * view.unit
            target = np.array(edge) + reach * np.array(out)
        hands.append(random_hand(view, target, rng))
    if n.marker_cover > 0 and view.markers and rng.random() < n.marker_cover:
        marker_id = sorted(view.markers)[int(rng.integers(len(view.markers)))]
        if rng.random() < 0.7:
            cups.append(cup_over_marker(view, marker_id, rng))
        else:
            hands.append(random_hand(view, view.markers[marker_id].mean(axis=0), rng))
    scene["hands"] = tuple(hands)
    scene["cups"] = tuple(cups)
    if n.bump > 0 and rng.random() < n.bump:
        scene["bump"] = random_bump(view, rng)
    if n.noise > 0:
        scene["noise"] = float(rng.uniform(1.0, 1.0 + 7.0 * n.noise))
    if n.blur > 0:
        if rng.random() < 0.3:
            # At most 11 px: OpenCV convolves kernels over 11x11 by DFT, ten times slower.
            scene["motion"] = (float(rng.uniform(3, 3 + 8 * n.blur)),
                               float(rng.uniform(0, math.pi)))
        else:
            scene["blur"] = float(rng.uniform(0.2, 0.4 + 1.2 * n.blur))
    if n.jpeg > 0 and rng.random() < n.jpeg:
        scene["jpeg"] = int(rng.integers(40, 91))
    return Scene(**scene)


def random_bump(view: View, rng: np.random.Generator) -> tuple[float, float, float]:
    """A knock: 1-4 % of the grid's size in any direction and up to 3 degrees."""
    span = float(np.ptp(view.grid, axis=0).max()) / view.unit
    distance = rng.uniform(0.01, 0.04) * span
    direction = rng.uniform(0, 2 * math.pi)
    degrees = rng.uniform(0.5, 3.0) * rng.choice([-1, 1])
    return (float(distance * math.cos(direction)), float(distance * math.sin(direction)),
            float(degrees))


def leaning_shadow(size: tuple[int, int], rng: np.random.Generator,
                   darkness: float | None = None) -> Shadow:
    """A player leaning over the table from one side: a big soft ellipse from a frame edge."""
    width, height = size
    side = int(rng.integers(4))
    t = rng.uniform(0.2, 0.8)
    # The ellipse's centre sits just outside the frame, so that only its near part falls in.
    centre = [(t * width, -0.15 * height), (1.15 * width, t * height),
              (t * width, 1.15 * height), (-0.15 * width, t * height)][side]
    axes = (float(rng.uniform(0.3, 0.55) * width), float(rng.uniform(0.35, 0.6) * height))
    return Shadow(centre=(float(centre[0]), float(centre[1])), axes=axes,
                  angle=float(rng.uniform(-0.4, 0.4)),
                  darkness=float(darkness if darkness is not None else rng.uniform(0.2, 0.5)),
                  softness=float(rng.uniform(0.04, 0.08) * width))


def glare_spot(view: View, rng: np.random.Generator, strength: float = 1.0) -> Glare:
    """A reflection somewhere over the board."""
    (x0, y0), (x1, y1) = view.grid.min(axis=0), view.grid.max(axis=0)
    width = view.size[0]
    return Glare(centre=(float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))),
                 axes=(float(rng.uniform(0.015, 0.05) * width), float(rng.uniform(0.01, 0.035) * width)),
                 angle=float(rng.uniform(0, math.pi)),
                 intensity=float(rng.uniform(0.4, 1.0) * strength * 230))


def random_hand(view: View, target: Sequence[float], rng: np.random.Generator,
                edge: int | None = None) -> Hand:
    """A hand whose fingertips are at ``target``, reaching in from a frame edge.

    ``edge`` 0-3 is top, right, bottom, left (a player's seat); random if None.
    """
    start = entry_point(view.size, rng, edge)
    angle = math.atan2(target[1] - start[1], target[0] - start[0])
    # A palm is about 8.5 cm across, an Acquire cell about 2.5 cm; the hand is
    # a hand-height nearer the camera than the board, so it looks a little bigger.
    return Hand(grip=(float(target[0]), float(target[1])), angle=float(angle),
                width=float(rng.uniform(3.0, 3.7) * view.unit * 1.08),
                skin=view.skins[int(rng.integers(len(view.skins)))],
                sleeve=view.sleeves[int(rng.integers(len(view.sleeves)))],
                sleeve_gap=float(rng.choice([0.0, rng.uniform(0.3, 2.5)])),
                curl=float(rng.uniform(0.1, 0.6)), spread=float(rng.uniform(0.6, 1.4)),
                left=bool(rng.random() < 0.3), height=float(rng.uniform(0.2, 0.6)))


def entry_point(size: tuple[int, int], rng: np.random.Generator,
                edge: int | None = None) -> tuple[float, float]:
    """A point on a frame edge (0 top, 1 right, 2 bottom, 3 left) where an arm comes in."""
    width, height = size
    side = int(rng.integers(4)) if edge is None else edge
    t = rng.uniform(0.15, 0.85)
    return [(t * width, 0.0), (float(width), t * height), (t * width, float(height)),
            (0.0, t * height)][side]


def cup_over_marker(view: View, marker_id: int, rng: np.random.Generator) -> Cup:
    """A mug put down partly over one marker, clear of the grid (it hides the marker only)."""
    quad = view.markers[marker_id]
    centre = quad.mean(axis=0)
    side = float(np.linalg.norm(quad[1] - quad[0]))
    grid = cv2.convexHull(view.grid.astype(np.float32).reshape(-1, 1, 2))
    away = centre - view.grid.mean(axis=0)
    away /= max(float(np.linalg.norm(away)), 1e-9)
    colour = CUP_COLOURS[int(rng.integers(len(CUP_COLOURS)))]
    handle = float(rng.uniform(0, 2 * math.pi))
    for attempt in range(60):
        # From most of the marker hidden to one corner; shrinking if it will not fit.
        radius = side * rng.uniform(0.7, 1.25) * (0.97 ** attempt)
        direction = away + rng.normal(0, 0.5, 2)
        direction /= max(float(np.linalg.norm(direction)), 1e-9)
        at = centre + direction * radius * rng.uniform(0.3, 1.1)
        # pointPolygonTest: negative outside, its size the distance to the grid's edge.
        if -cv2.pointPolygonTest(grid, (float(at[0]), float(at[1])), True) > 1.45 * radius:
            return Cup(centre=(float(at[0]), float(at[1])), radius=float(radius), colour=colour,
                       handle=handle)
    at = centre + away * side * 0.5
    return Cup(centre=(float(at[0]), float(at[1])), radius=float(side * 0.45), colour=colour,
               handle=handle)


# --- shapes --------------------------------------------------------------------------------

def _cup_parts(cup: Cup) -> list[tuple[str, np.ndarray]]:
    c = np.asarray(cup.centre)
    r = cup.radius
    direction = np.array([math.cos(cup.handle), math.sin(cup.handle)])
    handle = capsule(c + direction * r * 0.85, c + direction * r * 1.35, r * 0.14)
    circle = cv2.ellipse2Poly((0, 0), (1000, 1000), 0, 0, 360, 8).astype(float) / 1000
    return [("handle", handle), ("body", c + circle * r), ("rim", c + circle * r * 0.86),
            ("drink", c + circle * r * 0.74)]


def _fill(mask: np.ndarray, polygons: Iterable[np.ndarray], value: int = 255,
          antialias: bool = False, scale: float = 1.0) -> None:
    polys = [np.rint(np.asarray(p) * scale * 16).astype(np.int32) for p in polygons]
    cv2.fillPoly(mask, polys, value, cv2.LINE_AA if antialias else cv2.LINE_8, shift=4)


def occluder_polygons(scene: Scene) -> list[np.ndarray]:
    """Every polygon of everything between camera and board (hands, arms, cups)."""
    polys = [poly for hand in scene.hands for _, poly in hand_parts(hand)]
    polys += [poly for cup in scene.cups for _, poly in _cup_parts(cup)]
    return polys


def occluder_mask(scene: Scene, size: tuple[int, int]) -> np.ndarray:
    """A ``uint8`` mask (255 = hidden) of every occluder, full size; zeros if none."""
    width, height = size
    mask = np.zeros((height, width), np.uint8)
    for poly in occluder_polygons(scene):
        _fill(mask, [poly])
    return mask


# --- light maps (small, smooth) ------------------------------------------------------------

def _small(size: tuple[int, int]) -> tuple[int, int]:
    return (max(2, -(-size[0] // LIGHT_SCALE)), max(2, -(-size[1] // LIGHT_SCALE)))


def global_light(scene: Scene, size: tuple[int, int]) -> np.ndarray | None:
    """Brightness, colour cast, side light and vignetting: a small ``(h, w, 3)`` gain map.

    None when it is all ones (nothing to do).
    """
    direction, amplitude, vignette = scene.gradient
    if scene.brightness == 1.0 and scene.cast == (1.0, 1.0, 1.0) and amplitude == 0 \
            and vignette == 0:
        return None
    side = kept(_side_light, tuple(scene.gradient), tuple(size))
    gain = np.clip(side * scene.brightness, 0.05, None)
    return (gain[:, :, None] * np.asarray(scene.cast)[None, None, :]).astype(np.float32)


@functools.lru_cache(maxsize=16)
def _side_light(gradient: tuple[float, float, float], size: tuple[int, int]) -> np.ndarray:
    # The room's side light stays put for a whole game; only the brightness flickers.
    direction, amplitude, vignette = gradient
    sw, sh = _small(size)
    # Sample at the small map's pixel centres in full-frame coordinates.
    xs = (np.arange(sw) + 0.5) / sw * 2 - 1
    ys = (np.arange(sh) + 0.5) / sh * 2 - 1
    gx, gy = np.meshgrid(xs, ys * size[1] / size[0])
    gain = 1.0 + amplitude * (gx * math.cos(direction) + gy * math.sin(direction))
    gain *= 1.0 - vignette * (gx ** 2 + gy ** 2) / (1 + (size[1] / size[0]) ** 2)
    gain.flags.writeable = False
    return gain


def shadow_light(scene: Scene, size: tuple[int, int]) -> np.ndarray | None:
    """Shadows of leaning players, hands and cups: a small ``(h, w)`` gain map, or None."""
    if not (scene.shadows or scene.hands or scene.cups):
        return None
    sw, sh = _small(size)
    scale = 1.0 / LIGHT_SCALE
    dark = np.zeros((sh, sw), np.float32)
    for shadow in scene.shadows:
        layer = np.zeros((sh, sw), np.float32)
        poly = cv2.ellipse2Poly((0, 0), (1000, 1000), int(math.degrees(shadow.angle)), 0, 360, 6)
        poly = poly.astype(float) / 1000 * shadow.axes + shadow.centre
        _fill(layer, [poly], 1.0, scale=scale)
        sigma = max(shadow.softness * scale, 0.5)
        dark = np.maximum(dark, cv2.GaussianBlur(layer, (0, 0), sigma) * shadow.darkness)
    for hand in scene.hands:
        # The shadow falls away from the lamp (up-left of the frame), further the higher the hand.
        offset = np.array([0.6, 0.8]) * hand.height * hand.width
        layer = np.zeros((sh, sw), np.float32)
        _fill(layer, [poly + offset for _, poly in hand_parts(hand)], 1.0, scale=scale)
        sigma = max((0.04 + 0.2 * hand.height) * hand.width * scale, 0.5)
        dark = np.maximum(dark, cv2.GaussianBlur(layer, (0, 0), sigma) * 0.5)
    for cup in scene.cups:
        layer = np.zeros((sh, sw), np.float32)
        _fill(layer, [poly + cup.radius * np.array([0.25, 0.35]) for _, poly in _cup_parts(cup)],
              1.0, scale=scale)
        dark = np.maximum(dark, cv2.GaussianBlur(layer, (0, 0), max(0.3 * cup.radius * scale, 0.5))
                          * 0.5)
    return 1.0 - dark


def glare_light(scene: Scene, size: tuple[int, int]) -> np.ndarray | None:
    """Glare spots: a small ``(h, w)`` map of grey levels to add on a fully glossy surface."""
    if not scene.glare:
        return None
    return kept(_glare_map, tuple(scene.glare), tuple(size)).copy()


@functools.lru_cache(maxsize=16)
def _glare_map(spots: tuple[Glare, ...], size: tuple[int, int]) -> np.ndarray:
    # The lamp's spots stay put for a whole game, as the light does.
    sw, sh = _small(size)
    scale = 1.0 / LIGHT_SCALE
    total = np.zeros((sh, sw), np.float32)
    for spot in spots:
        layer = np.zeros((sh, sw), np.float32)
        poly = cv2.ellipse2Poly((0, 0), (1000, 1000), int(math.degrees(spot.angle)), 0, 360, 6)
        _fill(layer, [poly.astype(float) / 1000 * spot.axes + spot.centre], 1.0, scale=scale)
        sigma = max(0.35 * min(spot.axes) * scale, 0.5)
        total += cv2.GaussianBlur(layer, (0, 0), sigma) * spot.intensity * 1.6
    total.flags.writeable = False
    return total


#: The last glare map laid on a kept gloss view: (that view, the spots, the frame size, map).
_glare_last: tuple[np.ndarray, tuple, tuple[int, int], np.ndarray] | None = None


def glare_on(gloss: np.ndarray, scene: Scene, size: tuple[int, int]) -> np.ndarray:
    """The glare spots at the gloss map's (half) size, times the gloss: float32 grey levels
    before the brightness. The spots and the board stay put for most frames of a game, so
    the last one is kept for as long as the canvas keeps its view (the same array)."""
    global _glare_last
    last = _glare_last
    if last is not None and last[0] is gloss and last[1] == scene.glare and last[2] == size:
        return last[3]
    half = (gloss.shape[1], gloss.shape[0])
    laid = upscale(glare_light(scene, size), half) * gloss.astype(np.float32)
    if not gloss.flags.writeable:        # only a kept view can be met again
        laid.flags.writeable = False
        _glare_last = (gloss, scene.glare, size, laid)
    return laid


def upscale(small: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A small light map at full frame size (bilinear; the maps are smooth)."""
    return cv2.resize(small, size, interpolation=cv2.INTER_LINEAR)


# --- drawing occluders ---------------------------------------------------------------------

def draw_occluders(image: np.ndarray, scene: Scene) -> None:
    """Draw the scene's cups and hands onto ``image`` (BGR, in place), unlit colours.

    The renderer lights them afterwards with the room's light, as it does the board.
    """
    for cup in scene.cups:
        _draw_cup(image, cup)
    for hand in scene.hands:
        _draw_hand(image, hand)


def _bbox(polys: Sequence[np.ndarray], shape: tuple[int, ...], pad: int) -> tuple[int, int, int, int] | None:
    points = np.concatenate(polys)
    x0, y0 = np.floor(points.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(points.max(axis=0)).astype(int) + pad
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, shape[1]), min(y1, shape[0])
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, y0, x1, y1


def _blend(roi: np.ndarray, colour: np.ndarray, alpha: np.ndarray) -> None:
    """``roi = roi * (1 - alpha) + colour * alpha`` in place; ``colour`` uint8, ``alpha`` float32 0-1."""
    roi[:] = cv2.blendLinear(colour, roi, alpha, 1.0 - alpha)


def _draw_hand(image: np.ndarray, hand: Hand) -> None:
    parts = hand_parts(hand)
    box = _bbox([p for _, p in parts], image.shape, 4)
    if box is None:
        return
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    # Drawn at half size and scaled up: a hand is soft and usually moving, and the arm's
    # box can be half the frame. Half-size pixel centres are at full-size 2x + 0.5.
    hw, hh = -(-w // 2), -(-h // 2)
    offset = np.array([x0, y0], float)

    def local(poly: np.ndarray) -> np.ndarray:
        return (poly - offset + 0.5) / 2 - 0.5

    # Three layers back to front: the bare arm, the sleeve over it, then palm and fingers.
    layers = {"arm": np.zeros((hh, hw), np.uint8), "sleeve": np.zeros((hh, hw), np.uint8),
              "hand": np.zeros((hh, hw), np.uint8)}
    creases = np.zeros((hh, hw), np.uint8)
    palm = np.zeros((hh, hw), np.uint8)
    for index, (kind, poly) in enumerate(parts):
        layer = "arm" if index == 0 else ("sleeve" if kind == "sleeve" else "hand")
        _fill(layers[layer], [local(poly)], antialias=True)
        if kind == "skin" and index > 0:
            _fill(palm, [local(poly)])
        if kind == "finger":
            # A thin crease round each finger keeps them apart; the thumb's (drawn last)
            # shows over the palm too, the fingers' only beyond it.
            if index == len(parts) - 1:
                creases[palm > 0] = 0
            cv2.polylines(creases, [np.rint(local(poly) * 16).astype(np.int32)], True, 255,
                          1, cv2.LINE_AA, shift=4)
    arm, sleeve, palm = (layers[k].astype(np.float32) / 255 for k in ("arm", "sleeve", "hand"))
    # Sleeve over arm, palm over both: the total cover, and the sleeve's share of the colour.
    alpha = 1.0 - (1.0 - arm) * (1.0 - sleeve) * (1.0 - palm)
    share = sleeve * (1.0 - palm) / np.maximum(alpha, 1e-3)
    # Roundness: darker towards the outline, from a blurred mask.
    soft = cv2.GaussianBlur(alpha, (0, 0), max(hand.width * 0.04, 1))
    shade = 0.5 + 0.55 * np.clip(soft, 0, 1) - creases.astype(np.float32) / 255 * 0.22
    channels = [((s + (v - s) * share) * shade) for s, v in zip(hand.skin, hand.sleeve)]
    colour = cv2.convertScaleAbs(cv2.merge(channels))
    colour = cv2.resize(colour, (w, h), interpolation=cv2.INTER_LINEAR)
    alpha = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_LINEAR)
    _blend(image[y0:y1, x0:x1], colour, alpha)


def _draw_cup(image: np.ndarray, cup: Cup) -> None:
    parts = _cup_parts(cup)
    box = _bbox([p for _, p in parts], image.shape, 4)
    if box is None:
        return
    x0, y0, x1, y1 = box
    roi = image[y0:y1, x0:x1]
    offset = np.array([x0, y0], float)
    body = np.asarray(cup.colour, np.float32)
    colours = {"handle": body * 0.85, "body": body * 0.8, "rim": body,
               "drink": np.array([30, 50, 75], np.float32)}
    colour = np.zeros(roi.shape, np.float32)
    alpha = np.zeros(roi.shape[:2], np.float32)
    for kind, poly in parts:
        mask = np.zeros(roi.shape[:2], np.uint8)
        _fill(mask, [poly - offset], antialias=True)
        a = mask.astype(np.float32) / 255
        colour = colour * (1 - a[:, :, None]) + colours[kind] * a[:, :, None]
        alpha = alpha * (1 - a) + a
    colour /= np.maximum(alpha, 1e-3)[:, :, None]
    _blend(roi, np.clip(colour, 0, 255).astype(np.uint8), alpha)
