"""Making a calibration: one image of the empty board and its four corner-cell centres.

The corner cells' centres (docs/design.md's order: first label, last label of the
first row, last label, first label of the last row) fix where the grid lies
in that image; the four markers seen in the same image are then measured in
board units, so later frames find the grid from the markers alone.

The per-frame warps (homographies, the rectified board) live in
:mod:`calibration.warp`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from calibration.calfile import (FOLD_ROOM, K1_LIMITS, Calibration, CalibrationError, distort,
                                fold_radius, seen_radius, undistort)
from calibration.layout import Layout, layout_for
from calibration.markers import (ABSENT, EDGE, GLARE, MARKER_IDS, OUTSIDE, UNREADABLE,
                                 MarkerSearch, MissingMarker, explain_missing,
                                 find_markers, judge_place)
from calibration.warp import homography, project, rectify
from tabletop.errors import TabletopError
from tabletop.engine.ruleset import load_rules
from tabletop.messages import Message, message_of

#: Rectified pixels per board unit: a cell of about 32 pixels is plenty to tell a
#: tile from the board, and keeps every frame's work small.
SCALE = 32.0
#: How far the rectified image reaches beyond the outermost cell centres, in board
#: units: the cells themselves (half a unit) and a ring of board around them.
MARGIN = 1.0
#: The distortions looked for (calfile's k1: radius in image widths). Webcams and the Pi
#: camera lie within about -0.3..0.2; a wide lens over a large board reaches -0.6 and more.
K1_RANGE = K1_LIMITS
#: The lens is first looked for at this many k1 evenly over K1_RANGE; of fits within
#: K1_SCAN_SLACK (share of the patches' variance left) of the best, the mildest lens.
K1_SCAN, K1_SCAN_SLACK = 49, 0.01
#: ... sampling each cell this many times a board unit (the printed lines, band-passed, are
#: wider than that; a wrong lens is off by many of them).
SCAN_SAMPLES = 8
#: A band-passed image this faint (mean square) is blank: no patch explains another.
BLANK_POWER = 1e-6
#: At most this many measurements of the cells' shifts, each from the lens the last one
#: fitted; done once k1 moves less than K1_SETTLED (a start off by a scan step takes 4-5).
LENS_STEPS, K1_SETTLED = 6, 5e-4
#: Cell patches for measuring the lens: samples per board unit, half-width in units.
LENS_SAMPLES, LENS_HALF = 24, 0.6
#: A lattice fitted worse than this (rms pixels) was not measured: assume a straight lens.
LENS_FIT_PX = 1.5
#: Half-width and half-height (units) of the middle of a cell left out when measuring the
#: lens: the printed label, which differs from cell to cell.
LABEL_BOX = (0.34, 0.17)


def parse_corners(text: str) -> np.ndarray:
    """``"x,y x,y x,y x,y"`` (decimals allowed) as a (4, 2) array; CalibrationError if not."""
    pairs = text.replace(";", " ").split()
    try:
        points = [[float(v) for v in pair.split(",")] for pair in pairs]
    except ValueError:
        points = []
    if len(points) != 4 or any(len(p) != 2 for p in points):
        raise CalibrationError(f"--corners needs four x,y pixel pairs separated by spaces, "
                               f"got {text!r}")
    return np.array(points, dtype=np.float64)


def calibrate(image: np.ndarray, corners_px: Sequence[Sequence[float]], rules: str = "acquire",
              options: Mapping[str, Any] | None = None) -> Calibration:
    """The calibration of an empty board seen in ``image`` (BGR) with these corner centres."""
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise CalibrationError(Message("the calibration image must be a colour picture"))
    try:
        ruleset = load_rules(rules)
        resolved = ruleset.resolve_options(options)
    except TabletopError as error:
        raise CalibrationError(message_of(error)) from None
    geometry = ruleset.geometry_for(resolved)
    layout = layout_for(geometry)
    corners = np.asarray(corners_px, dtype=np.float64).reshape(4, 2)
    height, width = image.shape[:2]
    _check_corners(corners, width, height, [geometry.labels[c] for c in geometry.corners()],
                   layout.corner_points())
    to_pixels = homography(layout.corner_points(), corners)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    search = find_markers(grey)
    if search.missing:
        raise CalibrationError(refusal(missing_markers(grey, search, layout, to_pixels)))
    seen = search.found
    k1 = estimate_k1(grey, corners, layout, reach=np.concatenate([corners, *seen.values()]))
    # Markers are measured through the lens-free grid: their corners undistorted first.
    ideal = _ideal(layout.corner_points(), corners, k1, (width, height))
    to_board = np.linalg.inv(ideal)
    markers = {i: project(to_board, undistort(seen[i], k1, (width, height))) for i in MARKER_IDS}
    _check_markers_off_grid(markers, layout)
    xmin, ymin, xmax, ymax = layout.bounds(MARGIN)
    calibration = Calibration(
        rules=ruleset.source, options={k: v for k, v in dict(options or {}).items()},
        image_size=(width, height), corners_px=corners, markers=markers, scale=SCALE,
        origin=(xmin, ymin), reference=np.zeros((1, 1, 3), np.uint8),
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        k1=k1)
    size = (int(round((xmax - xmin) * SCALE)), int(round((ymax - ymin) * SCALE)))
    calibration.reference = rectify(image, to_pixels, calibration, size)
    return calibration


#: Where a marker stuck near a board corner must lie, in board units from the grid's
#: outer corner: up to ZONE_IN along the grid's side (beside its first or last row or
#: column) and ZONE_OUT beyond it; the grid itself is left out.
ZONE_IN, ZONE_OUT = 2.5, 3.2


def missing_markers(grey: np.ndarray, search: MarkerSearch, layout: Layout,
                    to_pixels: np.ndarray) -> tuple[MissingMarker, ...]:
    """Why each marker the search missed is missing, judged near the board corner it belongs to.

    Markers go one near each corner, any id anywhere: the corners no marker
    found is nearest are the places of the missing ones. One missing marker,
    or markers found where the sheet suggests (id 0 top left, clockwise), tie
    each missing id to its place; otherwise the places are judged together
    and a reason shared by all of them is given to every missing id.
    """
    zones = {corner: _zone(layout, to_pixels, corner) for corner in range(4)}
    claimed = {i: _corner_of(layout, to_pixels, quad) for i, quad in search.found.items()}
    free = [corner for corner in range(4) if corner not in claimed.values()]
    missing = search.missing
    if len(missing) == 1 and len(free) == 1:
        return explain_missing(grey, search, {missing[0]: zones[free[0]]})
    if all(corner == i for i, corner in claimed.items()) and set(free) == set(missing):
        return explain_missing(grey, search, {i: zones[i] for i in missing})
    reasons = {judge_place(grey, search, zones[corner]) for corner in free}
    if len(reasons) == 1:
        reason = reasons.pop()
    else:
        # Some cut by the edge, some beyond it: turning the camera is the change for all.
        reason = EDGE if reasons == {EDGE, OUTSIDE} else ABSENT
    return tuple(MissingMarker(i, reason) for i in missing)


def refusal(missing: Sequence[MissingMarker]) -> Message:
    """The refusal naming every missing marker and what to change, markers alike said together."""
    groups: dict[str, list[MissingMarker]] = {}
    for marker in missing:
        groups.setdefault(marker.reason, []).append(marker)
    parts = [group[0].message if len(group) == 1 else
             _together(reason, ", ".join(str(m.marker_id) for m in group))
             for reason, group in groups.items()]
    said = parts[-1]
    for part in reversed(parts[:-1]):
        said = Message("{first}; {then}", first=part, then=said)
    return said


#: What markers missing for one reason are told, by that reason (the rest: not found).
_TOGETHER = {
    EDGE: lambda markers: Message("markers {markers} touch the edge of the picture: turn the "
                                  "camera a little so that they show whole", markers=markers),
    GLARE: lambda markers: Message("markers {markers} are washed out by glare: move the lamp "
                                   "or tilt the board", markers=markers),
    UNREADABLE: lambda markers: Message("markers {markers} are too small or blurred to read: "
                                        "bring the camera closer or focus it", markers=markers),
    OUTSIDE: lambda markers: Message("markers {markers} are not in the picture: turn the camera "
                                     "or move it back until the whole board and its four "
                                     "markers show", markers=markers),
}


def _together(reason: str, markers: str) -> Message:
    said = _TOGETHER.get(reason)
    if said is not None:
        return said(markers)
    return Message("markers {markers} not found in the calibration image: all four must be "
                   "visible (print them with `tabletop markers`)", markers=markers)


def _zone(layout: Layout, to_pixels: np.ndarray, corner: int) -> np.ndarray:
    """The L-shaped place (pixels) round the grid's outer ``corner`` (0 top left, clockwise)."""
    outline = layout.outline()
    sx, sy = np.sign(outline[corner] - outline.mean(axis=0))
    u = [-ZONE_IN, 0.0, 0.0, ZONE_OUT, ZONE_OUT, -ZONE_IN]
    v = [0.0, 0.0, -ZONE_IN, -ZONE_IN, ZONE_OUT, ZONE_OUT]
    board = outline[corner] + np.column_stack([sx * np.array(u), sy * np.array(v)])
    return project(to_pixels, board)


def _corner_of(layout: Layout, to_pixels: np.ndarray, quad: np.ndarray) -> int:
    """The grid corner (0 top left, clockwise) a marker seen at ``quad`` is stuck near."""
    outline = layout.outline()
    x, y = project(np.linalg.inv(to_pixels), quad).mean(axis=0) - outline.mean(axis=0)
    return {(False, False): 0, (True, False): 1, (True, True): 2, (False, True): 3}[(x > 0, y > 0)]


def estimate_k1(grey: np.ndarray, corners_px: np.ndarray, layout: Layout,
                reach: np.ndarray | None = None) -> float:
    """The lens's radial distortion (calfile's ``k1``) from an image of the empty board.

    Every cell is printed alike (outline and neighbours' edges; the label in
    the middle differs and is left out), so each cell's patch is the mean patch
    shifted by where the cell really lies. Those shifts (one Lucas-Kanade step
    against the mean, repeated as the model improves) give every cell centre's
    pixel; the lens is then the k1 whose undistorted centres a homography fits
    best. A Lucas-Kanade step only measures shifts of a fraction of a cell, and
    a wide lens moves the middle of a large board by most of one against the
    corners' straight grid: the search starts from the k1 under which the cells
    look most alike (:func:`_coarse_k1`). The tapped corners only start it:
    they need not be exact. ``reach``: the pixels that must be undistorted with
    the lens found (the corners if not given): no lens that folds before them.
    """
    height, width = grey.shape[:2]
    size = (width, height)
    grey = grey.astype(np.float32)
    # Band-pass: the printed lines and edges, not the light's slow gradients.
    band = cv2.GaussianBlur(grey, (0, 0), 1.5) - cv2.GaussianBlur(grey, (0, 0), 6.0)
    span = (max(K1_RANGE[0], _k1_floor(corners_px if reach is None else reach, size)), K1_RANGE[1])
    cells = _CellPatches(band, layout, size, LENS_SAMPLES)
    k1 = _coarse_k1(_CellPatches(band, layout, size, SCAN_SAMPLES), layout, corners_px, span)
    ideal = _ideal(layout.corner_points(), corners_px, k1, size)
    residual = np.zeros(cells.count)
    for _ in range(LENS_STEPS):
        before = k1
        patches = cells.sample(ideal, k1)
        mean = patches.mean(axis=0)
        dy, dx = np.gradient(mean)
        gradient = np.stack([dx[cells.use], dy[cells.use]], axis=-1)
        # patch(u) = mean(u + d): the cell's own pattern lies d samples before where it was sought.
        shift = np.linalg.lstsq(gradient, (patches - mean)[:, cells.use].T, rcond=None)[0].T
        seen = distort(project(ideal, cells.centres - shift / LENS_SAMPLES), k1, size)

        def misfit(k: float, seen: np.ndarray = seen) -> float:
            return float((_lattice_fit(cells.centres, seen, k, size)[1] ** 2).mean())

        k1 = _minimise(misfit, *span)
        matrix, residual = _lattice_fit(cells.centres, seen, k1, size)
        if matrix is None or not np.all(np.isfinite(residual)):
            return 0.0
        ideal = matrix
        if abs(k1 - before) < K1_SETTLED:
            break
    if float(np.sqrt((residual ** 2).mean())) > LENS_FIT_PX:
        return 0.0
    return k1


class _CellPatches:
    """Every cell's patch of a band-passed image (label box left out), sampled through a lens."""

    def __init__(self, band: np.ndarray, layout: Layout, size: tuple[int, int],
                 per_unit: int) -> None:
        self.band, self.size = band, size
        self.n = round(2 * LENS_HALF * per_unit)
        u = (np.arange(self.n) + 0.5) / per_unit - LENS_HALF
        gx, gy = np.meshgrid(u, u)
        self.use = ~((np.abs(gx) < LABEL_BOX[0]) & (np.abs(gy) < LABEL_BOX[1]))
        self.centres = np.asarray(layout.centres, np.float64)
        self.count = len(self.centres)
        offsets = np.stack([gx, gy], axis=-1).reshape(1, -1, 2)
        self.samples = (self.centres[:, None, :] + offsets).reshape(-1, 2)

    def sample(self, ideal: np.ndarray, k1: float) -> np.ndarray:
        """(cells, n, n) patches where the board-to-ideal-pixels ``ideal`` and ``k1`` put them."""
        pixels = distort(project(ideal, self.samples), k1, self.size).astype(np.float32)
        count = self.count
        return cv2.remap(self.band, pixels[:, 0].reshape(count, -1), pixels[:, 1].reshape(count, -1),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(count, self.n, self.n)


def _coarse_k1(cells: _CellPatches, layout: Layout, corners_px: np.ndarray,
               span: tuple[float, float]) -> float:
    """The k1 in ``span`` under which, the corner cells held where they were tapped, the
    cells' patches are most alike (the least of their variance the mean patch leaves).

    A wrong k1 puts the middle cells' patches off their cells by up to most of a cell,
    so the mean patch blurs and explains little; the scan needs no starting guess. Of
    nearly equal fits the mildest lens is taken (a large board's cells all look alike
    one cell over, at a far larger k1).
    """
    grid = np.linspace(*span, K1_SCAN)
    costs = np.array([_unlikeness(cells, layout, corners_px, float(k)) for k in grid])
    if not np.isfinite(costs).any():
        return 0.0
    near = np.flatnonzero(costs <= np.nanmin(costs) + K1_SCAN_SLACK)
    return float(grid[near[np.argmin(np.abs(grid[near]))]])


def _unlikeness(cells: _CellPatches, layout: Layout, corners_px: np.ndarray, k1: float) -> float:
    """The share of the cells' patches' variance their mean patch leaves, under lens ``k1``."""
    ideal = _ideal(layout.corner_points(), corners_px, k1, cells.size)
    patches = cells.sample(ideal, k1)[:, cells.use]
    spread = float(((patches - patches.mean(axis=0)) ** 2).mean())
    return spread / max(float((patches ** 2).mean()), BLANK_POWER)


def _k1_floor(points: np.ndarray, size: tuple[int, int]) -> float:
    """The strongest barrel lens (least k1) that is one-to-one beyond every one of ``points``
    with FOLD_ROOM to spare: :func:`calibration.calfile.fold_radius` turned round. (k1 alone
    folds a strong barrel lens's picture over itself; calibration undistorts the tapped
    corners and the markers' corners.)

    >>> floor = _k1_floor(np.array([[1280.0, 480.0]]), (1280, 960))   # 0.5 widths out
    >>> round(floor, 3), round(fold_radius(floor) * FOLD_ROOM, 3)
    (-0.535, 0.5)
    """
    farthest = float(seen_radius(points, size).max())
    return -(4 / 27) * (FOLD_ROOM / max(farthest, 1e-6)) ** 2


def _lattice_fit(centres: np.ndarray, seen: np.ndarray, k1: float,
                 size: tuple[int, int]) -> tuple[np.ndarray | None, np.ndarray]:
    """The homography best fitting the cells' undistorted pixels, and each cell's miss (px)."""
    ideal = undistort(seen, k1, size)
    if not np.isfinite(ideal).all():        # (a cell where the lens k1 folds)
        return None, np.full(len(centres), np.inf)
    matrix, _ = cv2.findHomography(centres, ideal, 0)
    if matrix is None:
        return None, np.full(len(centres), np.inf)
    return matrix, np.linalg.norm(distort(project(matrix, centres), k1, size) - seen, axis=1)


def _minimise(cost: Callable[[float], float], low: float, high: float, steps: int = 36, tolerance: float = 1e-4) -> float:
    """The minimum of a one-variable ``cost`` on [low, high]: a coarse scan, then golden sections.

    The scan keeps the search out of a far, shallow dip; the sections refine the best bracket.
    """
    grid = np.linspace(low, high, steps)
    best = int(np.argmin([cost(float(v)) for v in grid]))
    a, b = float(grid[max(best - 1, 0)]), float(grid[min(best + 1, steps - 1)])
    ratio = (np.sqrt(5) - 1) / 2
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = cost(c), cost(d)
    while b - a > tolerance:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = cost(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = cost(d)
    return (a + b) / 2


def _ideal(board: np.ndarray, pixels: np.ndarray, k1: float, size: tuple[int, int]) -> np.ndarray:
    """The lens-free homography through these points' undistorted pixels."""
    return homography(board, undistort(pixels, k1, size))


def _check_corners(corners: np.ndarray, width: int, height: int, labels: list[str],
                   board: np.ndarray) -> None:
    if not np.all(np.isfinite(corners)):
        raise CalibrationError(Message("--corners: every value must be a number"))
    outside = [labels[i] for i, (x, y) in enumerate(corners) if not (0 <= x < width and 0 <= y < height)]
    if outside:
        raise CalibrationError(Message("corner {corners} lies outside the {width}x{height} image",
                                       corners=", ".join(outside), width=width, height=height))
    # The four must go round the board in order (a convex quadrilateral, one turning
    # sense, the board's own: a camera does not mirror), long sides where the board's are.
    turns = [_cross(corners[(i + 1) % 4] - corners[i], corners[(i + 2) % 4] - corners[(i + 1) % 4])
             for i in range(4)]
    board_turn = _cross(board[1] - board[0], board[2] - board[1])
    if not all(t * board_turn > 0 for t in turns):
        raise CalibrationError(Message("the corners must be given in the order {order} (round the "
                                       "board, as it lies); these cross, fold or go the other way "
                                       "round", order=" ".join(labels)))
    area = 0.5 * abs(sum(_cross(corners[i], corners[(i + 1) % 4]) for i in range(4)))
    if area < 0.01 * width * height:
        # Said on the touchscreen and on the command line alike: no "tap", no "--corners".
        raise CalibrationError(Message("the corners enclose almost nothing: each must be the "
                                       "centre of one of the board's four corner cells, "
                                       "{order}", order=" ".join(labels)))
    seen, expected = _aspect(corners), _aspect(board)
    if max(seen / expected, expected / seen) > 1.6:
        raise CalibrationError(Message("the corners must be in the order {order}, starting at "
                                       "{first} along the first row: these seem a quarter-turn out",
                                       order=" ".join(labels), first=labels[0]))


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _aspect(points: np.ndarray) -> float:
    """Length of the first-row and last-row sides over the first and last columns'."""
    rows = np.linalg.norm(points[1] - points[0]) + np.linalg.norm(points[2] - points[3])
    columns = np.linalg.norm(points[3] - points[0]) + np.linalg.norm(points[2] - points[1])
    return float(rows / max(columns, 1e-9))


def _check_markers_off_grid(markers: dict[int, np.ndarray], layout) -> None:
    xmin, ymin, xmax, ymax = layout.bounds(0.5)
    for marker_id, corners in markers.items():
        x, y = corners.mean(axis=0)
        if xmin < x < xmax and ymin < y < ymax:
            raise CalibrationError(Message("marker {marker} lies on the grid: stick the markers "
                                           "outside the cells, where no tile goes",
                                           marker=marker_id))
