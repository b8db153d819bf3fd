"""Camera frames of a board on a table, with ground truth: for tests, the simulator, benchmarks.

A :class:`Table` is one physical set-up: which board (rule set and options),
how it is printed, the tile style, where the four markers are stuck, the
surface it lies on, and the camera (its homography from board units to image
pixels and its lens distortion). :func:`make_table` draws a plausible one
from a seed. :func:`render` draws a frame of that table with tiles on the
given cells and nuisances (light, shadows, glare, a hand, a bump, ...) and
returns the image with its :class:`Truth`: where every cell and marker is in
the image, which cells hold a tile, whether a hand is over the board.

>>> import numpy as np
>>> table = make_table("acquire", seed=3, size=(320, 240))  # small: a cheap example
>>> table.tile_style in TILE_STYLES
True
>>> frame = render(table, {"5C": None}, np.random.default_rng(0))
>>> frame.image.shape, sorted(frame.truth.occupied_labels), frame.truth.clear
((240, 320, 3), ['5C'], True)
>>> frame.truth.centres.shape, sorted(frame.truth.markers)
((108, 2), [0, 1, 2, 3])

Two worlds, kept apart by construction (``worlds.py`` tells them apart in
full). ``make_table(seed=n)`` is the *tuning* world: the distribution every
threshold of the recognizer was set on, and what every existing test and
figure renders (a seed draws exactly the table it always drew).
``make_table(seed=n, world="held-out")`` is the *held-out* world: a much wider
one (continuous board prints and label fonts, tile materials such as ivory
plastic or card carrying the cell's own label on a light print, glossy tiles
with specular edges, thick and thin tiles, colour casts, under- and
over-exposure, higher and more tilted cameras, stronger lenses, camera
shake, more skin tones and sleeves), drawn from its own random stream, so
that nothing tuned on tuning tables has ever seen one of its draws. Use it to
measure, never to tune.

Why it is fast enough for thousands of benchmark frames: the board is drawn
once per table (``canvas.py``), and a frame only pastes the tiles that
changed, remaps the canvas to the camera in one ``cv2.remap`` and applies the
scene (``scenes.py``) in image space with small, smooth light maps.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import cv2
import numpy as np

from tabletop.engine.ruleset import load_rules
from tabletop.geometry import Geometry
from calibration.synthetic.canvas import (FACE_DOWN, PALETTES, SURFACES, TILE_STYLES, BoardCanvas, Palette,
                                TileLook, bump_matrix, tile_look)
from calibration.layout import Layout, layout_for
from calibration.markers import MARKER_IDS, MODULES
from calibration.synthetic.scenes import (Nuisances, Scene, View, draw_occluders, glare_on,
                                global_light, occluder_mask, sample_scene, shadow_light, upscale)

__all__ = ["FACE_DOWN", "FRAME_SIZE", "PALETTES", "SURFACES", "TILE_STYLES", "MarkerPlacement",
           "Palette", "Rendered", "Table", "TileLook", "Truth", "bump_matrix", "distort",
           "frame_clear", "frame_truth", "make_table", "occupied_cells", "render", "render_empty",
           "render_image", "render_scene", "tile_look", "undistort", "view_of"]

#: The default frame size, (width, height).
FRAME_SIZE = (1280, 960)


@dataclass(frozen=True)
class MarkerPlacement:
    """Where one marker is stuck: centre in board units, rotation in degrees, black side in units."""

    marker_id: int
    centre: tuple[float, float]
    angle: float
    size: float
    quiet: float  # white paper round the black square, in units

    def corners(self) -> np.ndarray:
        """The black square's corners in board units, in OpenCV's order (the marker's own TL, TR, BR, BL)."""
        return self._square(self.size / 2)

    def paper(self) -> np.ndarray:
        """The paper cut-out's corners in board units."""
        return self._square(self.size / 2 + self.quiet)

    def _square(self, half: float) -> np.ndarray:
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        return local @ rot.T + np.asarray(self.centre)


@dataclass(frozen=True)
class Table:
    """One physical table: board, print, tiles, markers, surface and camera. Build with :func:`make_table`.

    ``homography`` (9 numbers, row-major) maps board units to undistorted
    image pixels; ``focal``, ``principal``, ``k1``, ``k2`` are the pinhole
    camera and its radial distortion in OpenCV's model (normalised by
    ``focal``). Frozen and hashable: the renderer caches its drawing per table.
    """

    rules: str
    options: tuple[tuple[str, Any], ...]
    size: tuple[int, int]
    palette: str
    tile_style: str
    surface: str
    surface_colour: tuple[int, int, int]
    board_margin: float
    markers: tuple[MarkerPlacement, ...]
    homography: tuple[float, ...]
    focal: float
    principal: tuple[float, float]
    k1: float = 0.0
    k2: float = 0.0
    texture_seed: int = 0
    #: ``"tuning"`` or ``"held-out"`` (see the module docstring); a held-out table also
    #: carries its drawn :class:`~calibration.synthetic.worlds.Look` (print, material, room).
    world: str = "tuning"
    look: Any = None

    # Cached on the instance (a frozen dataclass still has a __dict__): every frame asks.
    @functools.cached_property
    def geometry(self) -> Geometry:
        """The board geometry of the rule set with these options."""
        rules = load_rules(self.rules)
        return rules.geometry_for(rules.resolve_options(dict(self.options)))

    @functools.cached_property
    def layout(self) -> Layout:
        """The board plane (:func:`calibration.layout.layout_for`)."""
        return layout_for(self.geometry)

    @property
    def H(self) -> np.ndarray:
        """The homography as a 3x3 array (board units to undistorted pixels)."""
        return np.array(self.homography, dtype=np.float64).reshape(3, 3)

    def camera_matrix(self) -> np.ndarray:
        """OpenCV's 3x3 camera matrix."""
        return np.array([[self.focal, 0, self.principal[0]], [0, self.focal, self.principal[1]],
                         [0, 0, 1]], dtype=np.float64)

    def dist_coeffs(self) -> np.ndarray:
        """OpenCV's distortion coefficients ``(k1, k2, p1, p2, k3)``."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    def pose(self, bump: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> np.ndarray:
        """The homography for the board moved by ``bump`` (see :class:`Scene`)."""
        return self.H @ bump_matrix(bump, self.layout)

    def project(self, points: np.ndarray,
                bump: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> np.ndarray:
        """Board-unit points ``(..., 2)`` to distorted image pixels, the board moved by ``bump``."""
        points = np.asarray(points, dtype=np.float64)
        flat = points.reshape(-1, 2)
        ideal = cv2.perspectiveTransform(flat[None], self.pose(bump))[0]
        return self.distort(ideal).reshape(points.shape)

    def distort(self, pixels: np.ndarray) -> np.ndarray:
        """Ideal (pinhole) pixels to the pixels the lens really puts them at."""
        return distort(pixels, self.focal, self.principal, self.k1, self.k2)

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Real pixels to ideal ones (the inverse of :meth:`distort`)."""
        return undistort(pixels, self.focal, self.principal, self.k1, self.k2)


def distort(pixels: np.ndarray, focal: float, principal: tuple[float, float], k1: float,
            k2: float = 0.0) -> np.ndarray:
    """OpenCV's radial model: ideal pixels to distorted ones (``cv2.projectPoints`` agrees)."""
    centre = np.asarray(principal)
    xy = (np.asarray(pixels, np.float64) - centre) / focal
    r2 = (xy ** 2).sum(axis=-1, keepdims=True)
    return xy * (1 + k1 * r2 + k2 * r2 ** 2) * focal + centre


def undistort(pixels: np.ndarray, focal: float, principal: tuple[float, float], k1: float,
              k2: float = 0.0) -> np.ndarray:
    """The inverse of :func:`distort`, by fixed-point iteration (converges for |k1| well under 1)."""
    centre = np.asarray(principal)
    target = (np.asarray(pixels, np.float64) - centre) / focal
    xy = target.copy()
    for _ in range(12):
        r2 = (xy ** 2).sum(axis=-1, keepdims=True)
        xy = target / (1 + k1 * r2 + k2 * r2 ** 2)
    return xy * focal + centre


# --- making a table ------------------------------------------------------------------------

def make_table(rules: str = "acquire", seed: int | np.random.Generator = 0, *,
               options: Mapping[str, Any] | None = None,
               size: tuple[int, int] = FRAME_SIZE, tile_style: str | None = None,
               palette: str | None = None, surface: str | None = None,
               k1: float | None = None, fill: float | None = None, tilt: float | None = None,
               yaw: float | None = None, shuffle_markers: bool | None = None,
               world: str = "tuning") -> Table:
    """A plausible random :class:`Table` for a rule set, deterministic for a seed.

    ``world="held-out"`` draws from the held-out world instead
    (:func:`calibration.synthetic.worlds.held_out_table`: ``seed`` must be an
    int, ``palette`` a print family and ``tile_style`` a material there).

    Anything not given is drawn: the print (``palette``), ``tile_style``,
    the ``surface``, markers (0.9-1.3 units, outside the grid near each
    corner, sometimes rotated, sometimes not in the sheet's suggested
    corners when ``shuffle_markers`` is not False), the lens (``k1`` in
    -0.15..0.1) and the camera: above the board, tilted up to ``tilt``
    degrees (0-20), turned ``yaw`` degrees (-12..12), at a distance where the
    grid fills ``fill`` (0.6-0.85) of the frame and every marker is inside it.
    """
    if world != "tuning":
        from calibration.synthetic.worlds import held_out_table  # worlds builds on this module
        if world != "held-out":
            raise ValueError(f"unknown world {world!r} (worlds: tuning, held-out)")
        return held_out_table(rules, seed, options=options, size=size, material=tile_style,
                              family=palette, surface=surface, k1=k1, fill=fill, tilt=tilt,
                              yaw=yaw, shuffle_markers=shuffle_markers)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    ruleset = load_rules(rules)
    resolved = ruleset.resolve_options(dict(options or {}))
    layout = layout_for(ruleset.geometry_for(resolved))
    palette = palette or str(rng.choice(sorted(PALETTES)))
    tile_style = tile_style or str(rng.choice(TILE_STYLES))
    surface = surface or str(rng.choice(SURFACES))
    if palette not in PALETTES or tile_style not in TILE_STYLES or surface not in SURFACES:
        raise ValueError(f"unknown palette, tile style or surface: {palette}, {tile_style}, {surface}")
    surface_colour = _surface_colour(surface, rng)
    markers = _place_markers(layout, rng, shuffle_markers)
    outline = layout.outline()
    reach = max(float(np.max(np.abs(m.paper() - outline.mean(axis=0)) - np.ptp(outline, axis=0) / 2))
                for m in markers)
    margin = max(reach + rng.uniform(0.15, 0.6), rng.uniform(0.6, 1.2))
    k1 = float(rng.uniform(-0.15, 0.1)) if k1 is None else float(k1)
    camera = _camera(layout, markers, size, rng, k1, fill, tilt, yaw)
    return Table(rules=ruleset.source or rules,
                 options=tuple(sorted((options or {}).items())), size=tuple(size),
                 palette=palette, tile_style=tile_style, surface=surface,
                 surface_colour=surface_colour, board_margin=float(margin), markers=markers,
                 texture_seed=int(rng.integers(2 ** 31)), **camera)


def _surface_colour(surface: str, rng: np.random.Generator) -> tuple[int, int, int]:
    choices = {"wood": ((58, 98, 150), (40, 70, 110), (90, 140, 185), (30, 50, 80)),
               "cloth": ((60, 110, 40), (110, 60, 40), (50, 50, 120), (70, 70, 70)),
               "laminate": ((225, 228, 230), (190, 200, 205), (120, 120, 118))}[surface]
    base = np.asarray(choices[int(rng.integers(len(choices)))], float)
    return tuple(int(v) for v in np.clip(base * rng.uniform(0.9, 1.1, 3), 0, 255))


def _place_markers(layout: Layout, rng: np.random.Generator,
                   shuffle: bool | None) -> tuple[MarkerPlacement, ...]:
    (x0, y0), (x1, y1) = layout.outline()[0], layout.outline()[2]
    size = float(rng.uniform(0.9, 1.3))
    ids = list(MARKER_IDS)
    if shuffle or (shuffle is None and rng.random() < 0.3):
        ids = [int(i) for i in rng.permutation(ids)]
    placed = []
    for corner, (sx, sy) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
        quiet = size / MODULES * rng.uniform(1.0, 1.3)
        if rng.random() < 0.6:
            angle = rng.uniform(-4, 4)
        else:
            angle = 90 * rng.integers(4) + rng.uniform(-8, 8)
        a = math.radians(angle)
        half = (size / 2 + quiet) * (abs(math.cos(a)) + abs(math.sin(a)))
        px, py = (x0 if sx < 0 else x1), (y0 if sy < 0 else y1)
        out_x = px + sx * (rng.uniform(0.1, 0.45) + half)
        out_y = py + sy * (rng.uniform(0.1, 0.45) + half)
        # Diagonally off the corner, or beside the end of the first/last row or column.
        mode = rng.integers(3)
        if mode == 1:
            out_y = py + sy * rng.uniform(-1.0, 0.2) * half
        elif mode == 2:
            out_x = px + sx * rng.uniform(-1.0, 0.2) * half
        placed.append(MarkerPlacement(ids[corner], (float(out_x), float(out_y)),
                                      float(angle), size, float(quiet)))
    return tuple(placed)


def _camera(layout: Layout, markers: tuple[MarkerPlacement, ...], size: tuple[int, int],
            rng: np.random.Generator, k1: float, fill: float | None, tilt: float | None,
            yaw: float | None, focal_range: tuple[float, float] = (0.78, 1.05),
            k2: float = 0.0) -> dict[str, Any]:
    width, height = size
    focal = float(width * rng.uniform(*focal_range))
    principal = (width / 2 + rng.uniform(-0.02, 0.02) * width,
                 height / 2 + rng.uniform(-0.02, 0.02) * height)
    fill = float(rng.uniform(0.6, 0.85)) if fill is None else float(fill)
    tilt = math.radians(rng.uniform(0, 20) if tilt is None else tilt)
    yaw = math.radians(rng.uniform(-12, 12) if yaw is None else yaw)
    spin = rng.uniform(0, 2 * math.pi)
    pitch, roll = tilt * math.cos(spin), tilt * math.sin(spin)
    cz, sz = math.cos(yaw), math.sin(yaw)
    cx, sx = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(roll), math.sin(roll)
    rot = (np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
           @ np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
           @ np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]))
    outline = layout.outline()
    target = np.append(outline.mean(axis=0) + rng.uniform(-0.03, 0.03, 2) * np.ptp(outline, axis=0), 0)
    k = np.array([[focal, 0, principal[0]], [0, focal, principal[1]], [0, 0, 1]])
    axis = rot.T @ np.array([0, 0, 1.0])
    papers = np.concatenate([m.paper() for m in markers])

    def homography(distance: float) -> np.ndarray:
        # The camera looks along its z axis (into the table) at the target from `distance` units.
        centre = target - distance * axis
        h = k @ np.column_stack([rot[:, 0], rot[:, 1], -rot @ centre])
        return h / h[2, 2]

    def project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
        return distort(cv2.perspectiveTransform(points[None].astype(np.float64), h)[0],
                       focal, principal, k1, k2)

    distance = focal * 12 / (fill * width)
    for _ in range(4):
        box = np.ptp(project(homography(distance), outline), axis=0)
        distance *= max(box[0] / width, box[1] / height) / fill
    margin = 0.03 * width
    for _ in range(60):
        # Every marker on its paper must be well inside the frame, or calibration has nothing to see.
        seen = project(homography(distance), papers)
        if (seen.min() >= margin and seen[:, 0].max() <= width - margin
                and seen[:, 1].max() <= height - margin):
            break
        distance *= 1.03
    return {"homography": tuple(float(v) for v in homography(distance).ravel()),
            "focal": focal, "principal": (float(principal[0]), float(principal[1])), "k1": k1,
            "k2": float(k2)}


@functools.lru_cache(maxsize=4)
def _prepare(table: Table) -> BoardCanvas:
    # A few tables at once (a test's, a benchmark's current ones): each holds some 60-90 MB
    # of canvases and maps and takes about a second to draw.
    return BoardCanvas(table)


# --- frames --------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Truth:
    """What a frame really shows. Pixels are in the distorted image, as a detector sees them.

    ``centres[c]`` is cell ``c``'s centre; ``corners`` the four corner cells
    (docs/design.md's calibration order); ``markers`` every marker's corners
    (OpenCV's order) whether visible or not, ``hidden_markers`` those partly
    covered or out of the frame. ``clear`` is False when a hand, arm or cup is
    over any part of the grid; ``covered`` the cells whose centre region (a
    disc of 0.3 cell radius) is under one. ``pose`` is the homography from
    board units to undistorted pixels used (the bump included).
    """

    occupied: frozenset[int]
    occupied_labels: frozenset[str]
    centres: np.ndarray
    corners: np.ndarray
    markers: dict[int, np.ndarray]
    hidden_markers: frozenset[int]
    clear: bool
    covered: frozenset[int]
    pose: np.ndarray
    bump: tuple[float, float, float]


@dataclass(frozen=True, eq=False)
class Rendered:
    """A rendered frame: the BGR image, its :class:`Truth`, and the scene drawn."""

    image: np.ndarray
    truth: Truth
    scene: Scene


def occupied_cells(table: Table, occupied: Mapping[Any, str | None] | Iterable[Any]) -> dict[int, str | None]:
    """``occupied`` as ``{cell: value}``: keys may be cell numbers or labels; a plain iterable means face-up tiles."""
    layout = table.layout
    items = occupied.items() if isinstance(occupied, Mapping) else ((cell, None) for cell in occupied)
    result = {}
    for cell, value in items:
        number = layout.cell(cell)
        if not 0 <= number < layout.size:
            raise ValueError(f"cell {cell!r} is not on this board")
        result[number] = value
    return result


@functools.lru_cache(maxsize=8)
def view_of(table: Table) -> View:
    """What the scene sampler needs about the table's view of its (unbumped) board."""
    layout = table.layout
    centres = table.project(layout.centres)
    corners = layout.corner_points()
    pixels = table.project(corners)
    unit = float(np.mean([np.linalg.norm(pixels[1] - pixels[0]) / np.linalg.norm(corners[1] - corners[0]),
                          np.linalg.norm(pixels[3] - pixels[0]) / np.linalg.norm(corners[3] - corners[0])]))
    markers = {m.marker_id: table.project(m.corners()) for m in table.markers}
    people = {} if table.look is None else {"skins": table.look.skins, "sleeves": table.look.sleeves}
    return View(size=table.size, centres=centres, unit=unit, grid=table.project(layout.outline()),
                markers=markers, **people)


def render(table: Table, occupied: Mapping[Any, str | None] | Iterable[Any],
           rng: np.random.Generator, nuisances: Nuisances | None = None) -> Rendered:
    """A frame of ``table`` with tiles on ``occupied`` and random ``nuisances`` (none by default).

    ``occupied`` maps cells (numbers or labels) to a value: None or a chain
    name for a face-up tile in the table's style, ``"dead"`` for a tile
    turned face down, or a name in :data:`TILE_STYLES` for a tile of that
    style. Deterministic for the generator's state.

    A table's first frame draws its board and camera map (about a second);
    the next ones take milliseconds, so render many frames of one table in a
    row rather than going round many tables (a few are kept drawn).
    """
    scene = sample_scene(view_of(table), nuisances or Nuisances.none(), rng)
    return render_scene(table, occupied, scene, rng)


def render_empty(table: Table, rng: np.random.Generator) -> Rendered:
    """A calibration photo: the empty board, no hand, mild harmless nuisances only."""
    return render(table, {}, rng, Nuisances.mild())


@functools.lru_cache(maxsize=2)
def _noise_bank(width: int, height: int) -> np.ndarray:
    # One fixed field of unit noise, cropped at a random offset per frame: drawing 3.7
    # million normals a frame would cost more than everything else put together.
    return np.random.default_rng(20240611).standard_normal((height + 32, width + 32, 3),
                                                           dtype=np.float32)


def _apply_gain(image: np.ndarray, small: np.ndarray) -> np.ndarray:
    """``image`` times a small smooth gain map (fixed point, 1/128 steps; gains up to 1.99)."""
    gain = cv2.convertScaleAbs(small, alpha=128.0)
    if gain.ndim == 2:
        gain = cv2.cvtColor(gain, cv2.COLOR_GRAY2BGR)
    # Scaled up as bytes: a full-size float map would cost more than the multiply.
    gain = upscale(gain, (image.shape[1], image.shape[0]))
    return cv2.multiply(image, gain, scale=1.0 / 128)


def render_scene(table: Table, occupied: Mapping[Any, str | None] | Iterable[Any], scene: Scene,
                 rng: np.random.Generator) -> Rendered:
    """A frame of ``table`` with ``occupied``'s tiles and exactly this ``scene``.

    ``rng`` only draws the sensor noise; everything else is in the scene.
    """
    cells = occupied_cells(table, occupied)
    image, occluders = _draw(table, cells, scene, rng)
    return Rendered(image=image, truth=frame_truth(table, cells, scene, occluders), scene=scene)


def render_image(table: Table, occupied: Mapping[Any, str | None] | Iterable[Any], scene: Scene,
                 rng: np.random.Generator) -> np.ndarray:
    """The image :func:`render_scene` draws, the same pixels, without its truth: a camera
    that only shows frames (the demo's, ``watch``'s simulated one) needs none, and the truth
    costs a sixth of a frame."""
    return _draw(table, occupied_cells(table, occupied), scene, rng)[0]


def _draw(table: Table, cells: dict[int, str | None], scene: Scene,
          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """The frame's BGR image and its occluders' mask (None: nothing over the table)."""
    prep = _prepare(table)
    width, height = table.size
    bump = tuple(float(v) for v in scene.bump)
    with prep.lock:
        # The working canvas is shared: use it only under the lock. Its camera view comes
        # uncopied (read-only): the light makes new pixels from it, and it is copied only
        # where nothing does before the hands are drawn on it or it is given out.
        canvas, gloss = prep.compose(cells)
        image, seen_gloss = prep.seen(canvas, gloss if scene.glare else None, bump, copy=False)
    size = (width, height)
    occluders = occluder_mask(scene, size) if scene.occluded else None
    shadows = shadow_light(scene, size)
    light = global_light(scene, size)
    if occluders is None:
        # Nothing over the board: one pass of light and shadow together.
        if shadows is not None and light is not None:
            image = _apply_gain(image, light * shadows[:, :, None])
        elif shadows is not None or light is not None:
            image = _apply_gain(image, shadows if light is None else light)
    else:
        if shadows is not None:
            image = _apply_gain(image, shadows)
        image = _own(image)
        draw_occluders(image, scene)
        if light is not None:
            image = _apply_gain(image, light)
    if seen_gloss is not None:
        # At half size (the spots are blurred; the gloss map is half size already).
        glare = cv2.convertScaleAbs(glare_on(seen_gloss, scene, size),
                                    alpha=scene.brightness / 255)
        glare = upscale(glare, size)
        if occluders is not None:
            glare = cv2.subtract(glare, occluders)
        image = cv2.add(image, cv2.cvtColor(glare, cv2.COLOR_GRAY2BGR))
    if table.look is not None:
        # The held-out world's camera: its exposure, white balance and tone curve, and shake.
        from calibration.synthetic.worlds import apply_room  # worlds builds on this module
        image = apply_room(_own(image), table.look.room, rng)
    if scene.blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), scene.blur)
    if scene.motion[0] >= 2:
        image = cv2.filter2D(image, -1, _motion_kernel(*scene.motion))
    if scene.noise > 0:
        bank = _noise_bank(width, height)
        dy, dx = (int(v) for v in rng.integers(0, 32, 2))
        image = cv2.addWeighted(image, 1.0, bank[dy:dy + height, dx:dx + width], scene.noise, 0.0,
                                dtype=cv2.CV_8U)
    if scene.jpeg is not None:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg)])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return _own(image), occluders


def _own(image: np.ndarray) -> np.ndarray:
    """``image``, or a copy of it where it is the canvas's kept view (read-only, shared)."""
    return image if image.flags.writeable else image.copy()


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    """A line ``length`` px long at ``angle``: camera shake during the exposure."""
    length = min(length, 11.0)  # larger kernels go through a DFT: ten times slower
    size = int(math.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    c = (size - 1) / 2
    dx, dy = math.cos(angle) * (length - 1) / 2, math.sin(angle) * (length - 1) / 2
    cv2.line(kernel, (int(round((c - dx) * 16)), int(round((c - dy) * 16))),
             (int(round((c + dx) * 16)), int(round((c + dy) * 16))), 1.0, 1, cv2.LINE_AA, 4)
    return kernel / kernel.sum()


@functools.lru_cache(maxsize=16)
def _grid_mask(table: Table, bump: tuple[float, float, float]) -> np.ndarray:
    """The cells' area in the image (255), for telling whether an occluder is over the grid."""
    width, height = table.size
    polys = table.project(table.layout.polygons(), bump)
    mask = np.zeros((height, width), np.uint8)
    cv2.fillPoly(mask, [np.rint(p * 16).astype(np.int32) for p in polys], 255, cv2.LINE_8, 4)
    return mask


def frame_clear(table: Table, scene: Scene) -> bool:
    """:func:`frame_truth`'s ``clear`` alone: whether no hand, arm or cup is over the grid
    (a sequence plans every frame with it; the rest of the truth costs as much again)."""
    if not scene.occluded:
        return True
    occluders = occluder_mask(scene, table.size)
    box = cv2.boundingRect(occluders)
    return box[2] == 0 or _clear_of(table, occluders, box, tuple(float(v) for v in scene.bump))


def _clear_of(table: Table, occluders: np.ndarray, box: tuple[int, int, int, int],
              bump: tuple[float, ...]) -> bool:
    # Only the occluders' bounding box can hold an overlap with the grid.
    x, y, w, h = box
    grid = _grid_mask(table, bump)[y:y + h, x:x + w]
    return cv2.countNonZero(cv2.bitwise_and(occluders[y:y + h, x:x + w], grid)) == 0


def frame_truth(table: Table, occupied: Mapping[Any, str | None] | Iterable[Any], scene: Scene,
                occluders: np.ndarray | None = None) -> Truth:
    """The :class:`Truth` of a frame without drawing it (a sequence plans with this).

    ``occluders`` is the scene's occluder mask if already drawn.
    """
    cells = occupied_cells(table, occupied)
    if occluders is None and scene.occluded:
        occluders = occluder_mask(scene, table.size)
    layout = table.layout
    bump = tuple(float(v) for v in scene.bump)
    centres = table.project(layout.centres, bump)
    markers = {m.marker_id: table.project(m.corners(), bump).astype(np.float32)
               for m in table.markers}
    width, height = table.size
    hidden = {i for i, quad in markers.items()
              if quad[:, 0].min() < 0 or quad[:, 1].min() < 0
              or quad[:, 0].max() > width - 1 or quad[:, 1].max() > height - 1}
    clear, covered = True, set()
    box = cv2.boundingRect(occluders) if occluders is not None else (0, 0, 0, 0)
    if box[2] > 0:
        clear = _clear_of(table, occluders, box, bump)
        # The centre region: the centre and four points 0.3 cell radius from it.
        r = 0.3 * layout.cell_radius
        probes = layout.centres[:, None, :] + np.array([[0, 0], [r, 0], [-r, 0], [0, r], [0, -r]])
        pixels = np.rint(table.project(probes, bump)).astype(int)
        inside = ((pixels[..., 0] >= 0) & (pixels[..., 0] < width)
                  & (pixels[..., 1] >= 0) & (pixels[..., 1] < height))
        xs = np.clip(pixels[..., 0], 0, width - 1)
        ys = np.clip(pixels[..., 1], 0, height - 1)
        under = (occluders[ys, xs] > 0) & inside
        covered = {int(c) for c in np.flatnonzero(under.any(axis=1))}
        for marker_id, quad in markers.items():
            x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [width, height])
            x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [width, height])
            if x0 >= x1 or y0 >= y1:
                continue
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, np.rint((quad - [x0, y0]) * 16).astype(np.int32), 255,
                               cv2.LINE_8, 4)
            if np.any(mask & occluders[y0:y1, x0:x1]):
                hidden.add(marker_id)
    labels = layout.geometry.labels
    return Truth(occupied=frozenset(cells), occupied_labels=frozenset(labels[c] for c in cells),
                 centres=centres, corners=centres[list(layout.geometry.corners())],
                 markers=markers, hidden_markers=frozenset(hidden), clear=clear,
                 covered=frozenset(covered), pose=table.pose(bump), bump=bump)
