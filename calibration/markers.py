"""The four ArUco markers stuck near the board's corners: images, the printable sheet, detection.

DESIGN.md fixes the markers: dictionary ``DICT_4X4_50``, ids 0-3, stuck near
the board's four corners outside the grid. They only tell the vision code
where the board has moved to; calibration measures where the grid lies
relative to them, so any placement (and any id at any corner) works.

>>> image = marker_image(2, 60, quiet_zone=10)
>>> image.shape, int(image[0, 0]), int(image[10, 10])
((80, 80), 255, 0)
>>> sorted(detect_markers(image))
[2]

``detect_markers`` uses the current ``cv2.aruco.ArucoDetector`` API (OpenCV
4.7 and later) and returns only our four ids.
"""

from __future__ import annotations

import functools
import struct
import zlib
from pathlib import Path
from typing import Mapping

import cv2
import numpy as np

#: The ArUco dictionary of the markers (DESIGN.md).
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
    if grey.ndim == 3:
        grey = cv2.cvtColor(grey, cv2.COLOR_BGR2GRAY)
    corners, ids, _rejected = (detector or make_detector()).detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        marker_id = int(marker_id)
        if marker_id not in MARKER_IDS:
            continue
        quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
        if marker_id in found and _area(found[marker_id]) >= _area(quad):
            continue
        found[marker_id] = quad
    return found


def _area(quad: np.ndarray) -> float:
    return abs(float(cv2.contourArea(quad.astype(np.float32))))


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
        "4. Then calibrate: photograph the empty board and run `tabletop calibrate`.",
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
