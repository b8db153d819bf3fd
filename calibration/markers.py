"""The four ArUco markers stuck near the board's corners: images, the printable sheet, detection.

docs/design.md fixes the markers: dictionary ``DICT_4X4_50``, ids 0-3, stuck near
the board's four corners outside the grid. They only tell the vision code
where the board has moved to; calibration measures where the grid lies
relative to them, so any placement (and any id at any corner) works.

>>> image = marker_image(2, 60, quiet_zone=10)
>>> image.shape, int(image[0, 0]), int(image[10, 10])
((80, 80), 255, 0)
>>> sorted(detect_markers(image))
[2]

``detect_markers`` uses the current ``cv2.aruco.ArucoDetector`` API (OpenCV
4.7 and later) and returns only our four ids. A marker right by the frame's
edge is found (its white border may be cut off); one the edge cuts is not,
as its corners would be the edge's:

>>> sorted(detect_markers(image[:, 3:]))            # 7 px of white border left
[2]
>>> sorted(detect_markers(image[:, 12:]))           # the black square cut
[]

Calibration looks harder (:func:`find_markers`: the frame padded with white,
then contrast normalised for glare) and says why a marker is missing
(:func:`explain_missing`).
"""

from __future__ import annotations

import functools
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import cv2
import numpy as np

from tabletop.messages import Message

#: The ArUco dictionary of the markers (docs/design.md).
DICTIONARY = cv2.aruco.DICT_4X4_50
#: Our ids. The sheet suggests 0 top-left, 1 top-right, 2 bottom-right,
#: 3 bottom-left of the board; calibration must not rely on it.
MARKER_IDS = (0, 1, 2, 3)
#: Where the sheet suggests sticking each marker.
SUGGESTED_CORNER = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
#: Modules across a marker: 4 data bits plus the one-module black border each side.
MODULES = 6

_A4_MM = (210.0, 297.0)
_DPI = 300
_MIN_SIZE_MM, _MAX_SIZE_MM = 10.0, 50.0


@functools.lru_cache(maxsize=None)
def dictionary() -> cv2.aruco.Dictionary:
    """The predefined ``DICT_4X4_50`` dictionary (built once)."""
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


@functools.lru_cache(maxsize=64)
def _modules(marker_id: int) -> np.ndarray:
    # One pixel per module: the bit pattern including the black border.
    bits = cv2.aruco.generateImageMarker(dictionary(), marker_id, MODULES)
    bits = bits > 127
    bits.flags.writeable = False
    return bits


def modules(marker_id: int) -> np.ndarray:
    """The marker's ``6 x 6`` module pattern (True = white), black border included.

    >>> modules(0)[0].tolist() == [False] * 6
    True
    """
    _check_id(marker_id)
    return _modules(int(marker_id))


def _check_id(marker_id: int) -> None:
    if not 0 <= int(marker_id) < 50:
        raise ValueError(f"marker id {marker_id} is not in DICT_4X4_50 (0-49)")


def marker_image(marker_id: int, pixels: int, quiet_zone: int = 0) -> np.ndarray:
    """A grey ``uint8`` image of one marker, ``pixels`` wide including its black border.

    ``quiet_zone`` adds that many white pixels all round (detectors need white
    around the black border). Module edges fall at the nearest pixel, so any
    size works, not only multiples of six.
    """
    _check_id(marker_id)
    if pixels < MODULES:
        raise ValueError(f"a marker needs at least {MODULES} pixels, got {pixels}")
    if quiet_zone < 0:
        raise ValueError("quiet_zone must not be negative")
    pattern = modules(marker_id)
    edges = np.rint(np.linspace(0, pixels, MODULES + 1)).astype(int)
    # Index every pixel by the module it falls in: exact sizes without resampling blur.
    which = np.searchsorted(edges, np.arange(pixels), side="right") - 1
    image = np.where(pattern[which][:, which], 255, 0).astype(np.uint8)
    if quiet_zone:
        image = cv2.copyMakeBorder(image, quiet_zone, quiet_zone, quiet_zone, quiet_zone,
                                   cv2.BORDER_CONSTANT, value=255)
    return image


@functools.lru_cache(maxsize=None)
def make_detector() -> cv2.aruco.ArucoDetector:
    """The shared ``ArucoDetector`` for our dictionary, built once.

    Corner refinement is sub-pixel: the board pose (and so every cell centre)
    is only as good as the marker corners.
    """
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.cornerRefinementMaxIterations = 50
    params.cornerRefinementMinAccuracy = 0.01
    # More threshold windows than the default: markers under a lamp's gradient
    # or a player's shadow still binarise cleanly at one of them.
    params.adaptiveThreshWinSizeMin = 5
    params.adaptiveThreshWinSizeMax = 35
    params.adaptiveThreshWinSizeStep = 6
    # OpenCV's default (3 px) lost a marker whose white paper, not its black square, came
    # within about 10 px of the frame's edge (33 of 72 renders at 3 px). The edge is
    # checked on the markers found instead (_clear_of_edge), which costs nothing.
    params.minDistanceToBorder = 0
    return cv2.aruco.ArucoDetector(dictionary(), params)


def detect_markers(grey: np.ndarray,
                   detector: cv2.aruco.ArucoDetector | None = None) -> dict[int, np.ndarray]:
    """Our markers in an image: ``{id: (4, 2) float32 corner pixels}`` for ids 0-3 found.

    Corners are in OpenCV's order (the marker's own top-left, top-right,
    bottom-right, bottom-left, whatever way it lies). A BGR image is turned
    grey first. If an id is seen twice (a spare printout lying about) the
    larger one wins: the stuck markers are the ones nearest the camera's view
    of the board, and a stray one is usually smaller or half hidden.
    """
    return _detect(_grey(grey), detector or make_detector())[0]


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def _detect(grey: np.ndarray, detector: cv2.aruco.ArucoDetector,
            frame: tuple[int, int, int, int] | None = None
            ) -> tuple[dict[int, np.ndarray], tuple]:
    """Our markers clear of ``frame``'s edges (x0, y0, x1, y1; the image's by default) as
    ``(4, 2)`` float32 corners, and the rejected candidates as OpenCV gives them."""
    corners, ids, rejected = detector.detectMarkers(grey)
    frame = frame or (0, 0, grey.shape[1], grey.shape[0])
    found: dict[int, np.ndarray] = {}
    for quad, marker_id in zip(corners, () if ids is None else ids.ravel()):
        marker_id = int(marker_id)
        quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
        if marker_id not in MARKER_IDS or not _clear_of_edge(quad, frame):
            continue
        if marker_id in found and _area(found[marker_id]) >= _area(quad):
            continue
        found[marker_id] = quad
    return found, rejected


#: A marker's black square must stay this far (pixels, and modules) inside the frame. The
#: frame's edge closes the outline of a square it cuts: the detector then decodes a square
#: cut by up to a module with corners up to 7 px off, all within about 3 px of the edge.
EDGE_PX, EDGE_MODULES = 3.0, 0.6


def _clear_of_edge(quad: np.ndarray, frame: tuple[int, int, int, int]) -> bool:
    x0, y0, x1, y1 = frame
    margin = max(EDGE_PX, EDGE_MODULES * _side(quad) / MODULES)
    return bool(quad[:, 0].min() - x0 >= margin and quad[:, 1].min() - y0 >= margin
                and x1 - 1 - quad[:, 0].max() >= margin and y1 - 1 - quad[:, 1].max() >= margin)


def _area(quad: np.ndarray) -> float:
    return abs(float(cv2.contourArea(quad.astype(np.float32))))


def _side(quad: np.ndarray) -> float:
    return float(np.sqrt(_area(quad)))


# --- calibration's harder look, and why a marker is missing --------------------------------

#: White added round the frame before looking again: the quiet zone a camera cut off.
PAD_PX = 16
#: Contrast-normalisation windows, in marker sides: a marker half under glare keeps its
#: pattern, only raised towards white; local min/max over 1.5-2.5 modules restore it.
NORMALISE_SIDES = (0.25, 0.42)
#: Grey levels counted as burnt out by glare.
SATURATED = 250

#: Why a marker is missing (:attr:`MissingMarker.reason`).
EDGE, GLARE, UNREADABLE, OUTSIDE, ABSENT = "edge", "glare", "unreadable", "outside", "absent"


@dataclass(frozen=True)
class MarkerSearch:
    """What :func:`find_markers` saw: our markers, and the candidates it could not read."""

    found: dict[int, np.ndarray]
    rejected: tuple[np.ndarray, ...]

    @property
    def missing(self) -> tuple[int, ...]:
        return tuple(i for i in MARKER_IDS if i not in self.found)


@dataclass(frozen=True)
class MissingMarker:
    """One marker calibration did not find, and why (``reason``: EDGE, GLARE, ...).

    >>> print(MissingMarker(2, EDGE).message)
    marker 2 touches the edge of the picture: turn the camera a little so that it shows whole
    """

    marker_id: int
    reason: str

    @property
    def message(self) -> Message:
        marker = self.marker_id
        if self.reason == EDGE:
            return Message("marker {marker} touches the edge of the picture: turn the camera a "
                           "little so that it shows whole", marker=marker)
        if self.reason == GLARE:
            return Message("marker {marker} is washed out by glare: move the lamp or tilt the "
                           "board", marker=marker)
        if self.reason == UNREADABLE:
            return Message("marker {marker} is too small or blurred to read: bring the camera "
                           "closer or focus it", marker=marker)
        if self.reason == OUTSIDE:
            return Message("marker {marker} is not in the picture: turn the camera or move it "
                           "back until the whole board and its four markers show", marker=marker)
        return Message("marker {marker} not found in the calibration image: all four must be "
                       "visible (print them with `tabletop markers`)", marker=marker)


def find_markers(image: np.ndarray) -> MarkerSearch:
    """Our markers as :func:`detect_markers` finds them, then harder while some are missing.

    For calibration, not every frame: the frame padded with white (a white
    border the camera cut off), then contrast normalised (a marker half
    washed out by a lamp). Corners are the frame's pixels; a marker the
    frame's edge cuts is never taken.
    """
    grey = _grey(image)
    frame = (PAD_PX, PAD_PX, PAD_PX + grey.shape[1], PAD_PX + grey.shape[0])
    found, unread = _detect(grey, make_detector())
    rejected = [np.float32(quad).reshape(4, 2) for quad in unread]
    for look in _harder_looks(grey, found):
        if len(found) == len(MARKER_IDS):
            break
        padded = cv2.copyMakeBorder(look, *(PAD_PX,) * 4, cv2.BORDER_CONSTANT, value=255)
        more, unread = _detect(padded, make_detector(), frame)
        for marker_id, quad in more.items():
            found.setdefault(marker_id, quad - np.float32(PAD_PX))
        rejected += [np.float32(quad).reshape(4, 2) - PAD_PX for quad in unread]
    return MarkerSearch(found, tuple(rejected))


def _harder_looks(grey: np.ndarray, found: Mapping[int, np.ndarray]):
    """The frame itself, then contrast normalised at windows scaled to the markers seen."""
    yield grey
    side = (float(np.median([_side(q) for q in found.values()])) if found
            else grey.shape[1] / 22.0)          # about a marker at 1280 px: 58 px
    for fraction in NORMALISE_SIDES:
        yield _normalised(grey, max(3, int(round(side * fraction)) | 1))


def _normalised(grey: np.ndarray, window: int) -> np.ndarray:
    """``grey`` stretched between its local minimum and maximum over ``window`` pixels."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (window, window))
    low = cv2.blur(cv2.erode(grey, kernel), (window, window)).astype(np.float32)
    high = cv2.blur(cv2.dilate(grey, kernel), (window, window)).astype(np.float32)
    # A floor under the range: a flat patch stays flat instead of becoming its noise.
    stretched = (grey.astype(np.float32) - low) / np.maximum(high - low, 32.0) * 255.0
    return np.clip(stretched, 0, 255).astype(np.uint8)


def explain_missing(image: np.ndarray, search: MarkerSearch,
                    where: Mapping[int, np.ndarray]) -> tuple[MissingMarker, ...]:
    """Why each marker :func:`find_markers` missed is missing, judged where it should be.

    ``where`` gives, for missing ids, the polygon (pixels, possibly reaching
    beyond the frame) in which that marker must lie; an id without one is
    simply not found. Judged in turn: a marker-like dark patch cut by the
    frame's edge (EDGE), a burnt-out patch of glare the size of a marker
    (GLARE), a square candidate the detector could not read (UNREADABLE), the
    place mostly outside the picture (OUTSIDE), else nothing there (ABSENT).
    """
    return tuple(MissingMarker(i, ABSENT if where.get(i) is None else
                               judge_place(image, search, where[i])) for i in search.missing)


def judge_place(image: np.ndarray, search: MarkerSearch, zone: np.ndarray) -> str:
    """The reason (EDGE, GLARE, ...) a marker that should lie in ``zone`` was not found there."""
    zone = np.asarray(zone, np.float64).reshape(-1, 2)
    sides = [_side(q) for q in search.found.values()]
    # With none seen: calibration's places reach about five marker sides across.
    side = float(np.median(sides)) if sides else _side(zone) / 5.0
    return _reason(_grey(image), zone, side, search)


def _reason(grey: np.ndarray, zone: np.ndarray, side: float, search: MarkerSearch) -> str:
    mask = np.zeros(grey.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(zone).astype(np.int32)], 255)
    visible = cv2.countNonZero(mask) / max(_area(zone), 1.0)
    for quad in search.found.values():      # a marker found is no evidence about another
        centre = quad.mean(axis=0)
        cv2.fillPoly(mask, [np.round(centre + (quad - centre) * 1.6).astype(np.int32)], 0)
    if visible < 0.02:
        return OUTSIDE
    x, y, w, h = cv2.boundingRect(mask)
    box = (slice(y, y + h), slice(x, x + w))
    if _cut_by_edge(grey, mask, box, side):
        return EDGE
    if _burnt_out(grey[box], mask[box], side):
        return GLARE
    # Only a square it could not read: a dark patch on light ground may be a cup.
    if _unread_candidate(grey, mask, search.rejected, side):
        return UNREADABLE
    return OUTSIDE if visible < 0.6 else ABSENT


def _cut_by_edge(grey: np.ndarray, mask: np.ndarray, box: tuple[slice, slice],
                 side: float) -> bool:
    """A dark compact patch on white paper in the place, touching the frame's edge.

    A marker's black square cut; not wood grain (no paper round it) nor the
    board's printed lines (longer than a marker).
    """
    height, width = grey.shape[:2]
    roi, inside = grey[box], mask[box] > 0
    dark = cv2.adaptiveThreshold(roi, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                 max(3, int(side * 0.8) | 1), 12)
    dark[~inside] = 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    y0, x0 = box[0].start, box[1].start
    ring_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(side / 3) | 1,) * 2)
    bright = np.percentile(roi[inside], 90) - 40
    for label in range(1, count):
        bx, by, bw, bh, area = stats[label]
        touches = bx + x0 == 0 or by + y0 == 0 or bx + x0 + bw == width or by + y0 + bh == height
        if not touches or area < 0.08 * side ** 2 or max(bw, bh) > 1.6 * side:
            continue
        blob = (labels == label).astype(np.uint8)
        ring = (cv2.dilate(blob, ring_kernel) > 0) & (blob == 0) & inside
        if not ring.any():
            continue
        paper, ink = float(roi[ring].mean()), float(roi[blob > 0].mean())
        if paper - ink >= 60 and paper >= bright:
            return True
    return False


def _burnt_out(roi: np.ndarray, inside: np.ndarray, side: float) -> bool:
    """A solid burnt-out patch a tenth of a marker or more (a white border's ring is too thin)."""
    burnt = ((roi >= SATURATED) & (inside > 0)).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(side / 4) | 1),) * 2)
    # A marker seen whole burns out 0.01 of this at most on the renderer's calibration photos.
    return cv2.countNonZero(cv2.erode(burnt, kernel)) >= 0.1 * side ** 2


def _unread_candidate(grey: np.ndarray, mask: np.ndarray, rejected: tuple[np.ndarray, ...],
                      side: float) -> bool:
    """A square the detector saw but could not read, in the place, that looks like a marker."""
    height, width = mask.shape
    for quad in rejected:
        x, y = quad.mean(axis=0)
        if 0 <= x < width and 0 <= y < height and mask[int(y), int(x)] and \
                0.1 * side ** 2 <= _area(quad) <= 4 * side ** 2 and _marker_like(grey, quad):
            return True
    return False


def _marker_like(grey: np.ndarray, quad: np.ndarray) -> bool:
    """Dark and light inside, a dark rim, white paper round it: not a patch of wood or board."""
    step = 4                                    # pixels a module, flattened
    n = step * (MODULES + 2)
    centre = quad.mean(axis=0)
    # The quad and one module of its surroundings (the white border), flattened.
    wide = (centre + (quad - centre) * (MODULES + 2) / MODULES).astype(np.float32)
    square = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    flat = cv2.warpPerspective(grey, cv2.getPerspectiveTransform(wide, square), (n, n),
                               flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)

    def band(image: np.ndarray) -> np.ndarray:
        return np.concatenate([image[:step].ravel(), image[-step:].ravel(),
                               image[:, :step].ravel(), image[:, -step:].ravel()])

    inner = flat[step:-step, step:-step]
    dark, light = np.percentile(inner, [10, 90])
    return bool(light - dark >= 50 and np.median(band(flat)) - np.median(band(inner)) >= 50)


# --- the printable sheet -------------------------------------------------------------------

def instructions(size_mm: float) -> list[str]:
    """The placement instructions printed on the sheet (one string per line)."""
    return [
        f"Print at 100% (\"actual size\"): each black square must measure {size_mm:g} mm;",
        "the bar below must measure 10 mm.",
        "1. Cut out each marker along the dashed line, keeping its white border.",
        "2. Stick one near each corner of the board, OUTSIDE the grid of cells,",
        "   flat, where tiles, cards and money never cover them.",
        "   Suggested: id 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left",
        "   (any order works).",
        "3. Keep them fixed relative to the board (stick them on the board itself):",
        "   the assistant follows the board by them when it is bumped.",
        "4. Then calibrate on the touchscreen (`tabletop run` opens it): tap the centres",
        "   of the board's four corner cells. Without a screen: `tabletop calibrate`.",
    ]


def _sheet_layout(size_mm: float) -> dict[int, tuple[float, float]]:
    """Top-left corner (mm) of each marker's black square on an A4 page."""
    quiet = size_mm / MODULES
    pitch_x = (_A4_MM[0] - 30.0) / 2
    top = 120.0
    pitch_y = max(size_mm + 2 * quiet + 22.0, 70.0)
    return {marker_id: (15.0 + (marker_id % 2) * pitch_x + (pitch_x - size_mm) / 2,
                        top + (marker_id // 2) * pitch_y + quiet)
            for marker_id in MARKER_IDS}


def _check_size(size_mm: float) -> None:
    if not _MIN_SIZE_MM <= size_mm <= _MAX_SIZE_MM:
        raise ValueError(f"marker size {size_mm:g} mm: four markers fit on an A4 sheet "
                         f"from {_MIN_SIZE_MM:g} to {_MAX_SIZE_MM:g} mm")


def _sheet_paths(out: Path) -> tuple[Path, Path]:
    out = Path(out)
    stem = out.with_suffix("") if out.suffix.lower() in (".png", ".svg") else out
    return stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".svg")


def write_sheet(out: Path | str, size_mm: float = 40.0) -> list[Path]:
    """Write the printable A4 sheet of markers 0-3 as a 300 dpi PNG and an SVG.

    ``out`` may name either file or the stem (``markers.png``, ``markers.svg``
    or ``markers``): both are written next to each other and their paths
    returned, PNG first. ``size_mm`` is the printed side of each black square.
    The SVG is exact at any printer resolution (sizes in millimetres); the
    PNG carries its 300 dpi so that "actual size" prints it right too.
    """
    size_mm = float(size_mm)
    _check_size(size_mm)
    png_path, svg_path = _sheet_paths(Path(out))
    png_path.parent.mkdir(parents=True, exist_ok=True)
    png_path.write_bytes(_png_with_dpi(_sheet_png(size_mm), _DPI))
    svg_path.write_text(_sheet_svg(size_mm), encoding="utf-8")
    return [png_path, svg_path]


def _sheet_png(size_mm: float) -> np.ndarray:
    scale = _DPI / 25.4  # pixels per mm

    def px(mm: float) -> int:
        return int(round(mm * scale))

    page = np.full((px(_A4_MM[1]), px(_A4_MM[0])), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX

    def text(line: str, x_mm: float, y_mm: float, height_mm: float, thick: int = 2) -> None:
        # Hershey SIMPLEX capitals are about 22 px high at scale 1.
        cv2.putText(page, line, (px(x_mm), px(y_mm)), font, height_mm * scale / 22.0, 0,
                    thick, cv2.LINE_AA)

    text("tabletop board markers", 15, 22, 6.0, 4)
    text(f"ArUco DICT_4X4_50, ids 0-3, printed size {size_mm:g} mm", 15, 32, 3.2)
    for row, line in enumerate(instructions(size_mm)):
        text(line, 15, 44 + row * 6.2, 2.6)
    bar_y = 44 + len(instructions(size_mm)) * 6.2 + 2
    page[px(bar_y):px(bar_y + 2.5), px(15):px(25)] = 0
    text("10 mm", 28, bar_y + 2.5, 2.6)
    quiet = size_mm / MODULES
    for marker_id, (x, y) in _sheet_layout(size_mm).items():
        image = marker_image(marker_id, px(x + size_mm) - px(x))
        page[px(y):px(y) + image.shape[0], px(x):px(x) + image.shape[1]] = image
        _dashed_rect(page, px(x - quiet), px(y - quiet), px(x + size_mm + quiet),
                     px(y + size_mm + quiet), px(2.0))
        text(f"id {marker_id}  ({SUGGESTED_CORNER[marker_id]})  {size_mm:g} mm",
             x - quiet, y + size_mm + quiet + 6, 2.6)
    return page


def _dashed_rect(page: np.ndarray, x0: int, y0: int, x1: int, y1: int, dash: int) -> None:
    # A thin grey cut line, dashed so that a cut a little inside it leaves no black.
    for start in range(x0, x1, 2 * dash):
        end = min(start + dash, x1)
        page[y0, start:end] = 110
        page[y1, start:end] = 110
    for start in range(y0, y1, 2 * dash):
        end = min(start + dash, y1)
        page[start:end, x0] = 110
        page[start:end, x1] = 110


def _png_with_dpi(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes of ``image`` with a pHYs chunk saying ``dpi`` (OpenCV writes none)."""
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise RuntimeError("OpenCV could not encode the marker sheet as PNG")
    data = encoded.tobytes()
    per_metre = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    # The signature (8 bytes) and IHDR (4 + 4 + 13 + 4 bytes) come first; pHYs goes after.
    at = 8 + 25
    return data[:at] + chunk + data[at:]


def _sheet_svg(size_mm: float) -> str:
    width, height = _A4_MM
    quiet = size_mm / MODULES
    module = size_mm / MODULES
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
        f'viewBox="0 0 {width:g} {height:g}">',
        f'<title>tabletop board markers: ArUco DICT_4X4_50, ids 0-3, {size_mm:g} mm</title>',
        f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#fff"/>',
        '<g font-family="Helvetica, Arial, sans-serif" fill="#000">',
        '<text x="15" y="22" font-size="7" font-weight="bold">tabletop board markers</text>',
        f'<text x="15" y="32" font-size="4">ArUco DICT_4X4_50, ids 0-3, '
        f'printed size {size_mm:g} mm</text>',
    ]
    for row, line in enumerate(instructions(size_mm)):
        lines.append(f'<text x="15" y="{44 + row * 6.2:.2f}" font-size="3.3" '
                     f'xml:space="preserve">{_escape(line)}</text>')
    bar_y = 44 + len(instructions(size_mm)) * 6.2 + 2
    lines.append(f'<rect id="scale-10mm" x="15" y="{bar_y:.2f}" width="10" height="2.5"/>')
    lines.append(f'<text x="28" y="{bar_y + 2.5:.2f}" font-size="3.3">10 mm</text>')
    lines.append("</g>")
    for marker_id, (x, y) in _sheet_layout(size_mm).items():
        cut = size_mm + 2 * quiet
        lines.append(f'<rect class="cut" x="{x - quiet:.3f}" y="{y - quiet:.3f}" '
                     f'width="{cut:.3f}" height="{cut:.3f}" fill="none" stroke="#777" '
                     f'stroke-width="0.2" stroke-dasharray="2 2"/>')
        # The black square first, then the white modules on it, merged into runs:
        # fewer shapes and no hairline seams between neighbouring black modules.
        lines.append(f'<g id="marker-{marker_id}" class="marker" data-id="{marker_id}" '
                     f'data-size-mm="{size_mm:g}" transform="translate({x:.3f} {y:.3f})" '
                     f'shape-rendering="crispEdges">')
        lines.append(f'<rect class="marker-square" x="0" y="0" width="{size_mm:g}" '
                     f'height="{size_mm:g}" fill="#000"/>')
        pattern = modules(marker_id)
        for r in range(MODULES):
            c = 0
            while c < MODULES:
                if not pattern[r, c]:
                    c += 1
                    continue
                start = c
                while c < MODULES and pattern[r, c]:
                    c += 1
                lines.append(f'<rect x="{start * module:.4f}" y="{r * module:.4f}" '
                             f'width="{(c - start) * module:.4f}" height="{module:.4f}" '
                             f'fill="#fff"/>')
        lines.append("</g>")
        lines.append(f'<text x="{x - quiet:.3f}" y="{y + size_mm + quiet + 6:.3f}" '
                     f'font-family="Helvetica, Arial, sans-serif" font-size="3.3">'
                     f'id {marker_id} ({SUGGESTED_CORNER[marker_id]}), {size_mm:g} mm</text>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def marker_size_mm(svg_text: str) -> Mapping[int, float]:
    """The printed size of every marker on an SVG sheet this module wrote (for checks).

    >>> marker_size_mm(_sheet_svg(35.0))
    {0: 35.0, 1: 35.0, 2: 35.0, 3: 35.0}
    """
    import xml.etree.ElementTree as ElementTree

    root = ElementTree.fromstring(svg_text)
    sizes = {}
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        if group.get("class") != "marker":
            continue
        square = next(r for r in group if r.get("class") == "marker-square")
        width, height = float(square.get("width")), float(square.get("height"))
        if width != height:
            raise ValueError(f"marker {group.get('data-id')} is not square")
        sizes[int(group.get("data-id"))] = width
    return sizes
