"""A table's board drawn once on a flat canvas: print, labels, markers, tiles, camera map.

The renderer (``render.py``) draws frames fast by doing the expensive work
once per :class:`~calibration.synthetic.render.Table`: the surface and the board are
drawn on a canvas in table-plane coordinates (board units scaled by ``ppu``
canvas pixels per unit, about the camera's own resolution), together with a
copy holding a tile on every cell for each tile style in use; one pixel map
takes camera pixels to canvas pixels (homography and lens distortion
together). A frame then copies the tiles it needs into a working canvas
(only cells that changed since the previous frame) and remaps that canvas
to the camera.

>>> [name for name in TILE_STYLES]
['ivory', 'dark', 'low_contrast', 'glossy', 'wood']
>>> tile_look("low_contrast", PALETTES["grey"]).shadow < tile_look("ivory", PALETTES["grey"]).shadow
True
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.markers import MODULES, marker_image
from calibration.synthetic.scenes import upscale

if TYPE_CHECKING:
    from calibration.synthetic.render import MarkerPlacement, Table


#: Tile styles: classic light tiles, dark tiles, tiles nearly the colour of the
#: board, glossy plastic (glare prone) and wooden ones.
TILE_STYLES = ("ivory", "dark", "low_contrast", "glossy", "wood")
#: What the board lies on.
SURFACES = ("wood", "cloth", "laminate")
#: The value of ``occupied`` that draws a turned-over (face down) tile.
FACE_DOWN = "dead"


@dataclass(frozen=True)
class Palette:
    """A board's print (BGR): the board, its lines, its printed cell labels."""

    board: tuple[int, int, int]
    line: tuple[int, int, int]
    label: tuple[int, int, int]


PALETTES: dict[str, Palette] = {
    "grey": Palette((165, 168, 164), (70, 70, 72), (105, 108, 106)),
    "navy": Palette((100, 62, 40), (170, 150, 130), (150, 125, 105)),
    "cream": Palette((188, 214, 226), (80, 100, 118), (125, 150, 165)),
    "green": Palette((88, 132, 84), (40, 66, 36), (60, 98, 56)),
    "gold": Palette((62, 148, 192), (30, 60, 84), (40, 96, 130)),
    "black": Palette((44, 42, 42), (130, 130, 130), (110, 110, 112)),
}


def bump_matrix(bump: tuple[float, float, float], layout: Layout) -> np.ndarray:
    """Board units to table units for a board knocked by ``(dx, dy, degrees)`` about its grid's centre."""
    dx, dy, degrees = bump
    if dx == 0 and dy == 0 and degrees == 0:
        return np.eye(3)
    cx, cy = layout.centres.mean(axis=0)
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, cx - c * cx + s * cy + dx],
                     [s, c, cy - s * cx - c * cy + dy],
                     [0, 0, 1]])


# --- drawing ------------------------------------------------------------------------------

@dataclass(frozen=True)
class BoardPrint:
    """How a board is printed: its colours and its typography (sizes in board units).

    The defaults are the tuning world's print; the held-out world
    (``worlds.py``) draws every field.
    """

    palette: Palette
    line_weight: float = 0.03     # the lines between cells
    border_weight: float = 0.05   # the frame line round the board
    label_height: float = 0.2     # the printed cell labels' capitals
    label_width: float = 0.62     # at most this wide
    label_weight: float = 0.1     # stroke, as a share of the height
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    cell_tint: float = 1.0        # cells printed lighter or darker than the board round them


@dataclass(frozen=True)
class TileLook:
    """How a tile style looks on a given board (BGR colours, gloss 0-255; sizes in board units).

    The fields after ``gloss`` default to the tuning world's tiles; the
    held-out world's materials (``worlds.py``) draw them.
    """

    body: tuple[float, float, float]
    text: tuple[float, float, float]
    bevel: float        # brightness of the lit edge over the body (the shaded edge gets -1.5x)
    shadow: float       # darkness of the drop shadow, 0-1
    gloss: int
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    text_height: float = 0.3
    text_width: float = 0.7
    text_weight: float = 0.14   # stroke as a share of the height: bold labels are 0.2 and more
    thickness: float = 0.045    # how far the drop shadow falls: a thick tile's is longer
    shadow_blur: float = 0.025
    edge: float = 0.03          # the bevel's width
    grain: float = 2.0          # surface texture (card fibre, moulding marks), grey levels
    sheen: float | None = None  # a broad soft sheen; None: 10 on glossy tiles (gloss > 200)
    specular: float = 0.0       # a sharp highlight on the lit edge (polished plastic)
    side: float = 0.0           # the visible side face of a thick tile
    half: float = 0.42          # a square tile's half side
    corner: float = 0.07        # its corner radius
    hex_scale: float = 0.86     # a hex tile's size against its cell


def tile_look(style: str, palette: Palette) -> TileLook:
    """The colours of a tile style on a board printed in ``palette``."""
    board = np.asarray(palette.board, float)
    if style == "ivory":
        return TileLook((190, 220, 232), (40, 38, 36), 22, 0.5, 110)
    if style == "dark":
        return TileLook((46, 44, 43), (205, 220, 228), 30, 0.55, 150)
    if style == "glossy":
        return TileLook((236, 238, 240), (30, 30, 30), 12, 0.45, 255)
    if style == "wood":
        return TileLook((120, 170, 206), (30, 48, 80), 20, 0.5, 70)
    if style == "low_contrast":
        # Within a few percent of the board: only a faint edge and shadow tell it apart.
        body = np.clip(board * 1.035 + 2, 0, 255)
        return TileLook(tuple(body), tuple(float(v) for v in palette.label), 9, 0.18, 90)
    raise ValueError(f"unknown tile style {style!r} (styles: {', '.join(TILE_STYLES)})")


class BoardCanvas:
    """A table's canvas, tiles and camera map, built once (see the module docstring)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.layout = table.layout
        self.geometry = self.layout.geometry
        look = getattr(table, "look", None)
        self.print = look.print if look is not None else BoardPrint(PALETTES[table.palette])
        self.palette = self.print.palette
        self.lock = threading.Lock()
        self._frame_geometry()
        self._draw_empty()
        self._cells()
        self._tiles: dict[tuple[str, bool], tuple[np.ndarray, np.ndarray]] = {}
        self.work = self.empty.copy()
        self.work_gloss = self.gloss.copy()
        self.work_state: dict[int, tuple[str, bool]] = {}
        # The working canvas's last camera view: consecutive frames of a game mostly show the
        # same tiles and pose, and the remap is the dearest step of a frame.
        self._pasted = 0
        self._last_seen: tuple[tuple, np.ndarray, np.ndarray | None] | None = None

    # The canvas covers what the camera sees of the table plane, at about the camera's resolution.
    def _frame_geometry(self) -> None:
        table = self.table
        width, height = table.size
        border = np.concatenate([
            np.stack([np.linspace(0, width - 1, 40), np.zeros(40)], 1),
            np.stack([np.linspace(0, width - 1, 40), np.full(40, height - 1.0)], 1),
            np.stack([np.zeros(30), np.linspace(0, height - 1, 30)], 1),
            np.stack([np.full(30, width - 1.0), np.linspace(0, height - 1, 30)], 1)])
        plane = cv2.perspectiveTransform(table.undistort(border)[None], np.linalg.inv(table.H))[0]
        board = self.board_rect()
        low = np.maximum(plane.min(axis=0) - 1.5, board[0] - 25)
        high = np.minimum(plane.max(axis=0) + 1.5, board[2] + 25)
        probes = np.concatenate([board, board.mean(axis=0, keepdims=True)])
        step = 0.05
        here = table.project(probes)
        scale = max(np.linalg.norm(table.project(probes + [step, 0]) - here, axis=1).max(),
                    np.linalg.norm(table.project(probes + [0, step]) - here, axis=1).max()) / step
        self.ppu = float(np.clip(scale * 1.05, 20, 140))
        self.origin = low
        self.shape = (int(math.ceil((high[1] - low[1]) * self.ppu)) + 1,
                      int(math.ceil((high[0] - low[0]) * self.ppu)) + 1)
        # Fixed-point maps (1/32 pixel): half the memory of float maps and faster to remap.
        self.map1, self.map2 = cv2.convertMaps(self._map(1), None, cv2.CV_16SC2)
        # Gloss only weights glare (a blurred spot): half resolution is plenty and 4x cheaper.
        self.half1, self.half2 = cv2.convertMaps(self._map(2), None, cv2.CV_16SC2)

    def _map(self, step: int) -> np.ndarray:
        """Camera pixel -> ideal pixel -> table plane -> canvas pixel, for a grid of pixels.

        ``step`` 2 samples the pixel centres of a half-size image (full-size
        coordinates ``2x + 0.5``), matching ``cv2.resize``'s convention. The
        exact mapping is evaluated every 8 pixels and interpolated bilinearly
        in between (it is smooth: the error is a few thousandths of a pixel),
        because undistorting every pixel of the frame takes a second.
        """
        width, height = self.table.size
        xs = np.arange(-(-width // step)) * step + (step - 1) / 2
        ys = np.arange(-(-height // step)) * step + (step - 1) / 2
        spacing = 8
        gx = np.arange(int(math.ceil((width - 1) / spacing)) + 1) * float(spacing)
        gy = np.arange(int(math.ceil((height - 1) / spacing)) + 1) * float(spacing)
        coarse = self._exact_map(gx, gy)
        ix = np.minimum((xs // spacing).astype(int), len(gx) - 2)
        iy = np.minimum((ys // spacing).astype(int), len(gy) - 2)
        tx = ((xs - gx[ix]) / spacing)[None, :, None]
        ty = ((ys - gy[iy]) / spacing)[:, None, None]
        rows = coarse[:, ix] * (1 - tx) + coarse[:, ix + 1] * tx
        return (rows[iy] * (1 - ty) + rows[iy + 1] * ty).astype(np.float32)

    def _exact_map(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        gx, gy = np.meshgrid(xs, ys)
        pixels = np.stack([gx.ravel(), gy.ravel()], 1)
        ideal = self.table.undistort(pixels)
        h_inv = np.linalg.inv(self.table.H)
        hom = ideal @ h_inv[:, :2].T + h_inv[:, 2]
        canvas = (hom[:, :2] / hom[:, 2:3] - self.origin) * self.ppu
        return canvas.reshape(len(ys), len(xs), 2)

    def to_canvas(self, points: np.ndarray) -> np.ndarray:
        """Board units to canvas pixels (pixel centres at integers)."""
        return (np.asarray(points, np.float64) - self.origin) * self.ppu

    def board_rect(self) -> np.ndarray:
        outline = self.layout.outline()
        m = self.table.board_margin
        return outline + np.array([[-m, -m], [m, -m], [m, m], [-m, m]])

    def _poly(self, points: np.ndarray, roi_origin: tuple[int, int] = (0, 0)) -> np.ndarray:
        pixels = self.to_canvas(points) - np.asarray(roi_origin)
        return np.rint(pixels * 16).astype(np.int32)

    def _draw_empty(self) -> None:
        table, ppu = self.table, self.ppu
        rng = np.random.default_rng(table.texture_seed)
        surface = _surface_texture(table.surface, table.surface_colour, self.shape, ppu, rng)
        board_mask = np.zeros(self.shape, np.uint8)
        cv2.fillPoly(board_mask, [self._poly(self.board_rect())], 255, cv2.LINE_AA, 4)
        # The board's own shadow on the surface, thrown away from the lamp (down and right).
        shade = np.zeros(self.shape, np.uint8)
        cv2.fillPoly(shade, [self._poly(self.board_rect() + [0.05, 0.08])], 255, cv2.LINE_AA, 4)
        shade = cv2.GaussianBlur(shade, (0, 0), 0.1 * ppu)
        # A bumped board uncovers the bare surface: keep the camera's view of it (the canvas
        # copy is not needed again).
        self.surface_seen = cv2.remap(surface, self.map1, self.map2, cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE)
        surface = _scale(surface, 1.0 - 0.45 * shade.astype(np.float32) / 255)
        board = self._draw_board(rng)
        alpha = board_mask.astype(np.float32) / 255
        self.empty = _mix(surface, board, alpha)
        # A bump moves the board, its shadow and the markers on it: a feathered footprint.
        footprint = np.zeros(self.shape, np.uint8)
        grown = self.board_rect() + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * 0.3
        cv2.fillPoly(footprint, [self._poly(grown)], 255, cv2.LINE_AA, 4)
        self.move_alpha = cv2.GaussianBlur(footprint, (0, 0), 0.08 * ppu)
        gloss = np.full(self.shape, 25, np.uint8)
        gloss[board_mask > 127] = 45
        self.gloss = gloss
        for marker in table.markers:
            self._draw_marker(marker)

    def _draw_board(self, rng: np.random.Generator) -> np.ndarray:
        palette, ppu, layout, printed = self.palette, self.ppu, self.layout, self.print
        h, w = self.shape
        # Printed card: the flat colour with a faint mottle (ink and cardboard are never even).
        mottle = cv2.resize(rng.standard_normal((max(2, h // 48), max(2, w // 48))).astype(np.float32),
                            (w, h), interpolation=cv2.INTER_CUBIC)
        grain = cv2.resize(rng.standard_normal((max(2, h // 2), max(2, w // 2))).astype(np.float32),
                           (w, h), interpolation=cv2.INTER_LINEAR)
        tone = 1.0 + 0.012 * mottle + 0.01 * grain
        board = np.asarray(palette.board, np.float32)[None, None, :] * tone[:, :, None]
        board = np.clip(board, 0, 255).astype(np.uint8)
        line = palette.line
        thin = max(1, int(round(printed.line_weight * ppu)))
        rect = self.board_rect()
        inset = rect + np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * min(0.25, self.table.board_margin / 3)
        cv2.polylines(board, [self._poly(inset)], True, line, max(1, int(printed.border_weight * ppu)),
                      cv2.LINE_AA, 4)
        polys = layout.polygons()
        if printed.cell_tint != 1.0:
            # Cells printed as their own squares or hexes, a shade off the board round them.
            tint = tuple(float(v) for v in np.clip(np.asarray(palette.board, float)
                                                   * printed.cell_tint, 0, 255))
            cv2.fillPoly(board, [self._poly(p) for p in polys], tint, cv2.LINE_AA, 4)
        if self.layout.kind == "hex" and hasattr(self.geometry, "quadrant"):
            # ACQUISITIONS' quadrants are printed in slightly different shades.
            shades = {1: 1.0, 2: 0.93, 3: 0.93, 4: 1.0}
            for cell in range(layout.size):
                tint = np.asarray(palette.board, float) * shades[self.geometry.quadrant(cell)]
                cv2.fillPoly(board, [self._poly(polys[cell])], tuple(float(v) for v in tint),
                             cv2.LINE_AA, 4)
        cv2.polylines(board, [self._poly(p) for p in polys], True, line, thin, cv2.LINE_AA, 4)
        outline = layout.outline() if layout.kind == "square" else None
        if outline is not None:
            cv2.polylines(board, [self._poly(outline)], True, line, 2 * thin, cv2.LINE_AA, 4)
        labels = self._tile_labels()
        for cell in range(layout.size):
            _text(board, labels[cell], self.to_canvas(layout.centres[cell]),
                  printed.label_height * ppu, printed.label_width * ppu, palette.label,
                  printed.label_weight, printed.font)
        return board

    def _tile_labels(self) -> list[str]:
        # What is printed on the tile for each cell: the card label on a quadrant board.
        geometry = self.geometry
        return [geometry.tile_labels[geometry.tile_of[cell]] for cell in range(geometry.size)]

    def _draw_marker(self, marker: MarkerPlacement) -> None:
        # Drawn at 4x and shrunk with area averaging: sharp, correctly anti-aliased edges, so
        # the detected corners land where the truth says.
        over = 4
        paper = self.to_canvas(marker.paper())
        x0, y0 = np.floor(paper.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(paper.max(axis=0)).astype(int) + 3
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.shape[1]), min(y1, self.shape[0])
        if x0 >= x1 or y0 >= y1:
            return
        side_px = marker.size * self.ppu * over
        pixels = max(MODULES * 4, int(round(side_px)))
        quiet = int(round(pixels * marker.quiet / marker.size))
        patch = marker_image(marker.marker_id, pixels, quiet_zone=quiet)
        n = patch.shape[0]
        # Patch pixel centres -> board units -> oversampled ROI pixel centres. The patch's
        # centre pixel coordinate (n - 1) / 2 is the black square's centre, exactly.
        a = math.radians(marker.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        lin = rot * (marker.size / pixels) * self.ppu * over
        centre_roi = (self.to_canvas(np.asarray(marker.centre)) - [x0, y0] + 0.5) * over - 0.5
        offset = centre_roi - lin @ np.array([(n - 1) / 2, (n - 1) / 2])
        m = np.hstack([lin, offset[:, None]]).astype(np.float64)
        size = ((x1 - x0) * over, (y1 - y0) * over)
        ink = np.where(patch > 127, 240, 28).astype(np.uint8)
        warped = cv2.warpAffine(ink, m, size, flags=cv2.INTER_LINEAR, borderValue=0)
        cover = cv2.warpAffine(np.full_like(patch, 255), m, size, flags=cv2.INTER_LINEAR,
                               borderValue=0)
        warped = cv2.resize(warped, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
        cover = cv2.resize(cover, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
        alpha = cover.astype(np.float32) / 255
        paper_tint = np.array([0.98, 0.99, 1.0], np.float32)
        ink3 = warped.astype(np.float32)[:, :, None] * paper_tint
        roi = self.empty[y0:y1, x0:x1]
        roi[:] = np.clip(roi * (1 - alpha[:, :, None]) + ink3 * alpha[:, :, None], 0, 255).astype(np.uint8)
        self.gloss[y0:y1, x0:x1] = np.where(alpha > 0.5, 20, self.gloss[y0:y1, x0:x1])

    def _cells(self) -> None:
        # Per cell: a canvas ROI and the cell's mask in it, for pasting and unpasting tiles.
        self.rois: list[tuple[int, int, int, int]] = []
        self.masks: list[np.ndarray] = []
        for poly in self.layout.polygons():
            px = self.to_canvas(poly)
            x0, y0 = np.floor(px.min(axis=0)).astype(int) - 1
            x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 2
            x0, y0 = max(x0, 0), max(y0, 0)
            x1, y1 = min(x1, self.shape[1]), min(y1, self.shape[0])
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(mask, [self._poly(poly, (x0, y0))], 255, cv2.LINE_8, 4)
            self.rois.append((y0, y1, x0, x1))
            self.masks.append(mask > 0)

    def tiles(self, key: tuple[str, bool]) -> tuple[np.ndarray, np.ndarray]:
        """The canvas (and gloss) with a tile of style ``key[0]`` on every cell, face up if ``key[1]``."""
        if key not in self._tiles:
            style, face_up = key
            look = self._look(style)
            canvas, gloss = self.empty.copy(), self.gloss.copy()
            labels = self._tile_labels()
            for cell in range(self.layout.size):
                y0, y1, x0, x1 = self.rois[cell]
                roi = canvas[y0:y1, x0:x1].copy()
                g = gloss[y0:y1, x0:x1].copy()
                _draw_tile(roi, g, self.to_canvas(self.layout.centres[cell]) - [x0, y0],
                           self.layout, look, labels[cell] if face_up else None, self.ppu, cell)
                mask = self.masks[cell]
                canvas[y0:y1, x0:x1][mask] = roi[mask]
                gloss[y0:y1, x0:x1][mask] = g[mask]
            self._tiles[key] = (canvas, gloss)
        return self._tiles[key]

    def _look(self, style: str) -> TileLook:
        """The table's own drawn material for its style, else the named style's usual look."""
        own = getattr(self.table, "look", None)
        if own is not None and style == self.table.tile_style:
            return own.material
        if style in TILE_STYLES:
            return tile_look(style, self.palette)
        from calibration.synthetic.worlds import material_look  # worlds builds on this module
        return material_look(style, self.print)

    def compose(self, occupied: Mapping[int, str | None]) -> tuple[np.ndarray, np.ndarray]:
        """The working canvas and gloss with exactly ``occupied``'s tiles (call under the lock)."""
        wanted = {cell: self._key(value) for cell, value in occupied.items()}
        for cell, key in list(self.work_state.items()):
            if wanted.get(cell) != key:
                self._paste(cell, self.empty, self.gloss)
                del self.work_state[cell]
        for cell, key in wanted.items():
            if self.work_state.get(cell) != key:
                canvas, gloss = self.tiles(key)
                self._paste(cell, canvas, gloss)
                self.work_state[cell] = key
        return self.work, self.work_gloss

    def _key(self, value: str | None) -> tuple[str, bool]:
        if value == FACE_DOWN:
            return (self.table.tile_style, False)
        if value in TILE_STYLES or value in _materials():
            return (value, True)
        return (self.table.tile_style, True)

    def _paste(self, cell: int, canvas: np.ndarray, gloss: np.ndarray) -> None:
        y0, y1, x0, x1 = self.rois[cell]
        mask = self.masks[cell]
        np.copyto(self.work[y0:y1, x0:x1], canvas[y0:y1, x0:x1], where=mask[:, :, None])
        np.copyto(self.work_gloss[y0:y1, x0:x1], gloss[y0:y1, x0:x1], where=mask)
        self._pasted += 1

    def seen(self, canvas: np.ndarray, gloss: np.ndarray | None,
             bump: tuple[float, float, float],
             copy: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The camera's view of ``canvas`` (and of ``gloss`` at half size), the board moved by ``bump``.

        A bump moves the board, its shadow and its markers but not the surface
        under it: the board is remapped through the moved pose and laid on
        the surface's fixed view by its feathered footprint.

        The working canvas's view is kept: asked again with no tile pasted since,
        the same pose and the same gloss, it is given again (a copy, the very same
        pixels) instead of remapped. Call under the lock, as :meth:`compose`. With
        ``copy=False`` the kept view itself is given, read-only (a frame that makes new
        pixels from it anyway need not pay for a copy): the same arrays while it lasts.
        """
        if canvas is not self.work or not (gloss is None or gloss is self.work_gloss):
            return self._seen(canvas, gloss, bump)
        key = (self._pasted, tuple(bump), gloss is None)
        if self._last_seen is None or self._last_seen[0] != key:
            image, seen_gloss = self._seen(canvas, gloss, bump)
            for kept in (image, seen_gloss):
                if kept is not None:
                    kept.flags.writeable = False
            self._last_seen = (key, image, seen_gloss)
        _, image, seen_gloss = self._last_seen
        if not copy:
            return image, seen_gloss
        return image.copy(), None if seen_gloss is None else seen_gloss.copy()

    def _seen(self, canvas: np.ndarray, gloss: np.ndarray | None,
              bump: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray | None]:
        if bump == (0.0, 0.0, 0.0):
            image = cv2.remap(canvas, self.map1, self.map2, cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
            seen_gloss = None if gloss is None else cv2.remap(
                gloss, self.half1, self.half2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            return image, seen_gloss
        # Table canvas pixels -> table units -> board units (undo the bump) -> board canvas pixels.
        to = np.array([[self.ppu, 0, -self.origin[0] * self.ppu],
                       [0, self.ppu, -self.origin[1] * self.ppu], [0, 0, 1]])
        m = (to @ np.linalg.inv(bump_matrix(bump, self.layout)) @ np.linalg.inv(to))[:2]
        # The float maps are rebuilt from the fixed-point ones rather than kept (10 MB a table).
        full = cv2.convertMaps(self.map1, self.map2, cv2.CV_32FC2)[0]
        moved = cv2.convertMaps(cv2.transform(full, m), None, cv2.CV_16SC2)
        board = cv2.remap(canvas, moved[0], moved[1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
        # The footprint is feathered anyway: take it at half size.
        half = cv2.transform(cv2.convertMaps(self.half1, self.half2, cv2.CV_32FC2)[0], m)
        alpha = cv2.remap(self.move_alpha, half, None, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        alpha = upscale(alpha.astype(np.float32) / 255, (board.shape[1], board.shape[0]))
        image = _mix(self.surface_seen, board, alpha)
        seen_gloss = None
        if gloss is not None:
            seen_gloss = cv2.remap(gloss, half, None, cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=25)
        return image, seen_gloss


def _surface_texture(surface: str, colour: tuple[int, int, int], shape: tuple[int, int],
                     ppu: float, rng: np.random.Generator) -> np.ndarray:
    h, w = shape
    low = cv2.resize(rng.standard_normal((max(2, h // 60), max(2, w // 60))).astype(np.float32),
                     (w, h), interpolation=cv2.INTER_CUBIC)
    if surface == "wood":
        # Grain along x: rings bent by low-frequency noise, plus streaks, plus plank seams.
        warp = cv2.resize(rng.standard_normal((max(2, h // 40), max(2, w // 160))).astype(np.float32),
                          (w, h), interpolation=cv2.INTER_CUBIC)
        ys = np.arange(h, dtype=np.float32)[:, None]
        rings = np.sin(2 * np.pi * (ys / (0.45 * ppu) + 0.9 * warp))
        streaks = cv2.resize(rng.standard_normal((max(2, h // 2), max(2, w // 120))).astype(np.float32),
                             (w, h), interpolation=cv2.INTER_LINEAR)
        tone = 1.0 + 0.07 * rings + 0.05 * streaks + 0.05 * low
        plank = 7.0 * ppu
        seams = (ys % plank) < max(1.0, 0.04 * ppu)
        tone = np.where(seams, tone * 0.6, tone)
    elif surface == "cloth":
        fine = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.8)
        tone = 1.0 + 0.08 * fine + 0.04 * low
    else:
        fine = rng.standard_normal((h, w)).astype(np.float32)
        tone = 1.0 + 0.012 * fine + 0.02 * low
    image = np.asarray(colour, np.float32)[None, None, :] * tone[:, :, None]
    return np.clip(image, 0, 255).astype(np.uint8)


def _scale(image: np.ndarray, gain: np.ndarray) -> np.ndarray:
    return np.clip(image * gain[:, :, None], 0, 255).astype(np.uint8)


def _mix(under: np.ndarray, over: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``over`` on ``under`` by ``alpha`` (float32, 0-1)."""
    return cv2.blendLinear(over, under, alpha, (1.0 - alpha).astype(np.float32))


def _materials() -> tuple[str, ...]:
    from calibration.synthetic.worlds import MATERIALS  # worlds builds on this module
    return MATERIALS


def _text(image: np.ndarray, label: str, centre: np.ndarray, height: float, max_width: float,
          colour: tuple[float, ...], weight: float = 0.1,
          font: int = cv2.FONT_HERSHEY_SIMPLEX) -> None:
    """``label`` centred on ``centre``, capitals ``height`` px high, at most ``max_width`` wide."""
    scale = height / 22.0
    thickness = max(1, int(round(height * weight)))
    (tw, th), _ = cv2.getTextSize(label, font, scale, thickness)
    if tw > max_width:
        scale *= max_width / tw
        (tw, th), _ = cv2.getTextSize(label, font, scale, thickness)
    origin = (int(round(centre[0] - tw / 2)), int(round(centre[1] + th / 2)))
    cv2.putText(image, label, origin, font, scale, colour, thickness, cv2.LINE_AA)


def _tile_outline(layout: Layout, centre: np.ndarray, ppu: float, half: float = 0.42,
                  r: float = 0.07, hex_scale: float = 0.86) -> np.ndarray:
    """A tile's outline in ROI pixels: a rounded square or a hexagon a little smaller than the cell."""
    if layout.kind == "square":
        corners = [(half - r, half - r, 0), (-(half - r), half - r, 90),
                   (-(half - r), -(half - r), 180), (half - r, -(half - r), 270)]
        pts = []
        for cx, cy, start in corners:
            for t in np.radians(np.linspace(start, start + 90, 5)):
                pts.append((cx + r * math.cos(t), cy + r * math.sin(t)))
        shape = np.array(pts)
    else:
        shape = layout._shape * hex_scale
    return centre + shape * ppu


def _draw_tile(roi: np.ndarray, gloss: np.ndarray, centre: np.ndarray, layout: Layout,
               look: TileLook, label: str | None, ppu: float, cell: int) -> None:
    """One tile drawn into a cell's ROI: drop shadow, body, lit and shaded bevel, printed label."""
    h, w = roi.shape[:2]
    outline = _tile_outline(layout, centre, ppu, look.half, look.corner, look.hex_scale)
    poly = np.rint(outline * 16).astype(np.int32)
    # Light from the top left: the shadow falls down and right, like the hands' shadows.
    shadow = np.zeros((h, w), np.uint8)
    cv2.fillPoly(shadow, [np.rint((outline + np.array([0.6, 0.8]) * look.thickness * ppu) * 16)
                          .astype(np.int32)], 255, cv2.LINE_AA, 4)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(look.shadow_blur * ppu, 0.6)).astype(np.float32) / 255
    base = roi.astype(np.float32) * (1 - look.shadow * shadow)[:, :, None]
    if look.side > 0:
        base = _side_face(base, outline, look, ppu)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA, 4)
    m = mask.astype(np.float32) / 255
    # Bevel: the outline's slope, lit where it faces the lamp, shaded on the far side.
    soft = cv2.GaussianBlur(m, (0, 0), max(look.edge * ppu, 0.7))
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)
    slope = -(gx * -0.6 + gy * -0.8)
    slope /= max(float(np.abs(slope).max()), 1e-6)
    lit = np.where(slope > 0, slope * look.bevel, slope * look.bevel * 1.5)
    if look.specular > 0:
        # Polished plastic: the lamp's sharp reflection along the edge that faces it.
        lit = lit + np.clip(slope, 0, 1) ** 3 * look.specular
    rng = np.random.default_rng(cell)
    texture = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.0) * look.grain
    body = np.asarray(look.body, np.float32)[None, None, :] + (lit + texture)[:, :, None]
    sheen = look.sheen if look.sheen is not None else (10 if look.gloss > 200 else 0)
    if sheen:
        # Glossy plastic shows a broad soft sheen even without a glare spot.
        ys = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
        xs = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
        body += (np.clip(1 - ((xs + ys + 0.6) / 0.5) ** 2, 0, 1) * sheen)[:, :, None]
    face = np.clip(body, 0, 255).astype(np.uint8)
    if label is not None:
        _text(face, label, centre, look.text_height * ppu, look.text_width * ppu, look.text,
              weight=look.text_weight, font=look.font)
    roi[:] = np.clip(base * (1 - m[:, :, None]) + face * m[:, :, None], 0, 255).astype(np.uint8)
    gloss[:] = np.where(m > 0.5, look.gloss, gloss).astype(np.uint8)


def _side_face(base: np.ndarray, outline: np.ndarray, look: TileLook, ppu: float) -> np.ndarray:
    """A thick tile's side, seen beside its top face away from the lamp: the body, darker."""
    h, w = base.shape[:2]
    side = np.zeros((h, w), np.uint8)
    cv2.fillPoly(side, [np.rint((outline + np.array([0.6, 0.8]) * look.side * ppu) * 16)
                        .astype(np.int32)], 255, cv2.LINE_AA, 4)
    a = (side.astype(np.float32) / 255)[:, :, None]
    colour = np.asarray(look.body, np.float32)[None, None, :] * 0.72
    return base * (1 - a) + colour * a
