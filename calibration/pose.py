"""Where the board is in each frame, from its markers: smoothed, jump-proof, held when hidden.

Each frame the markers' detected corners, against their board-unit corners
from the calibration, give the board's pose (a homography from board units
to pixels). Small changes are smoothed (sub-pixel jitter of the detector);
a sudden large change is believed only once several frames agree (a bumped
board), so one bad detection never moves the grid; with fewer than four
markers in view the board is taken to have slid and turned on the table
since the last pose all four fixed (a knock moves a board so; the camera
stays), which three numbers fit well where a perspective from three markers
does not, and with none the pose is kept.
All this happens in ideal (lens-free) pixels: the
markers' corners are undistorted first, so a bumped board, which moves
through the lens, still fits one homography. The pose handed out is the
calibration's kind (see :meth:`Calibration.image_matrix`).

Markers are cheap to follow and dear to find. A marker seen last frame is
kept where it was while its own box looks the same (a half-size thumbnail at
a fixed contrast, which shows a shift of a third of a pixel but not a change
of light), and looked for again in a window round it otherwise. A missing
marker, or one whose box changed because a hand came over it, is looked for
only if its printed pattern shows where the pose puts it: a hand over it
costs a 36x36 warp, not a detection. The whole frame is searched, at reduced
size, only now and then: the safety net for a board moved while its markers
were covered.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.calfile import Calibration
from calibration.warp import homography, project
from calibration.markers import MODULES, detect_markers, dictionary, modules

#: Movement of the grid's corners (pixels) below which a new pose is jitter, smoothed away.
JITTER_PX = 2.0
#: Movement below which the pose is left exactly as it is (detector noise).
SETTLED_PX = 0.3
#: Movement above which a new pose is a jump, believed only when CONFIRM frames agree.
JUMP_PX = 12.0
CONFIRM = 3
#: Weight of the newest pose when smoothing jitter.
SMOOTHING = 0.35
#: Searching the whole frame: shrink it to about this width first (detection is costly).
SEARCH_WIDTH = 800
#: Markers needed for a full perspective pose; fewer slide and turn the last full one on the
#: table. Three markers' corners, each a pixel or two off under blur and noise, fit a
#: perspective that lies 4-6 px off at the fourth corner: the renderer's knocked boards
#: under every nuisance showed it (11 false tiles in a run of cells); a slide fits them to 1.
FULL_POSE = 4
#: With no marker in view the whole frame is searched every SEARCH_BLIND frames (the board
#: may have moved under the hand). With some in view the pose follows the board and a
#: missing marker is looked for where it says; the whole frame only once it has been
#: missing SEARCH_EVERY frames in a row, and every SEARCH_EVERY frames after.
SEARCH_EVERY, SEARCH_BLIND = 30, 3
#: A marker is still while fewer than MOVED_PIXELS of its half-size thumbnail (scaled to a
#: standard deviation of THUMB_SPREAD) changed by more than STILL. The renderer's camera
#: noise moves none that far; a shift of 0.3 px moves 40-100 of a marker's edge pixels.
THUMB_SCALE, STILL, MOVED_PIXELS, THUMB_SPREAD = 0.5, 20, 4, 64.0
#: A marker found this far (pixels) from where it was means the board moved.
KNOCK_PX = 1.0
#: The margin (in marker sizes) a marker whose pattern shows where it was is looked for in.
HERE_PAD = 0.5
#: The pattern probe: samples per module, and modules (of 36) allowed to disagree (a
#: prediction a third of a module off blurs a few), and the least contrast (grey levels).
PROBE, PROBE_MISMATCH, PROBE_CONTRAST = 6, 3, 40


@dataclass(frozen=True)
class Pose:
    """The board's pose in one frame: ``matrix`` maps board units to pixels."""

    matrix: np.ndarray
    markers: int          # markers seen in this frame
    state: str            # "tracking", "held" (markers hidden), "moving" (a jump not yet believed)


class PoseTracker:
    """Follows the board from frame to frame. ``update(grey)`` returns the pose to use."""

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self.corner_points = calibration.layout.corner_points()
        self._corners: np.ndarray | None = None      # the grid's corners in ideal pixels, as believed
        self._candidate: list[np.ndarray] = []       # a jump's corners, frame by frame
        self._last_seen: dict[int, np.ndarray] = {}  # marker id -> pixel corners last frame
        self._thumbs: dict[int, np.ndarray] = {}     # marker id -> its thumbnail when last found
        self._unsearched = 0                         # frames a marker was missing, unsearched
        self._measured: np.ndarray | None = None     # last frame's measured corners
        self._remeasure = True                       # some marker's corners changed since
        self.matrix: np.ndarray | None = None        # board units to pixels (calibration's kind)
        self._ideal: np.ndarray | None = None        # board units to ideal pixels
        # Where the board lay when calibrated: the start for a pose from few markers.
        self._calibrated = homography(self.corner_points, calibration.undistort(calibration.corners_px))
        self._full = self._calibrated                # board units to ideal pixels, the last
                                                     # pose all four markers fixed

    def update(self, image: np.ndarray) -> Pose | None:
        """The pose for this frame, grey or BGR (None until the markers have been seen once)."""
        known = self._placeable(self._detect(image))
        if not known:
            self._measured = None
            return None if self.matrix is None else Pose(self.matrix, 0, "held")
        if self._remeasure or self._measured is None:
            # Fitting is skipped when every marker kept its corners: the same measurement.
            self._measured = self._measure(known)
        measured = self._measured
        if measured is None:
            return None if self.matrix is None else Pose(self.matrix, len(known), "held")
        before = self._corners
        state = self._believe(measured)
        if self._corners is not before:
            self._ideal = homography(self.corner_points, self._corners)
            self.matrix = self.calibration.image_matrix(self._ideal)
        if len(known) >= FULL_POSE and state == "tracking":
            self._full = self._ideal
        return Pose(self.matrix, len(known), state)

    def _placeable(self, known: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """``known`` less any marker seen at or near where the lens folds the picture over
        itself (a board knocked far into a wide lens's corner): its corners cannot be
        undistorted, or only with their error magnified many times."""
        if self.calibration.k1 >= 0:
            return known
        return {i: corners for i, corners in known.items() if self.calibration.within_lens(corners)}

    def _measure(self, known: dict[int, np.ndarray]) -> np.ndarray | None:
        """The grid's corners (ideal pixels) from these markers' pixel corners."""
        board = np.concatenate([self.calibration.markers[i] for i in sorted(known)])
        pixels = self.calibration.undistort(np.concatenate([known[i] for i in sorted(known)]))
        if len(known) >= FULL_POSE:
            return project(homography(board, pixels), self.corner_points)
        return self._moved(board, pixels, len(known))

    def _moved(self, board: np.ndarray, pixels: np.ndarray, markers: int) -> np.ndarray:
        """The grid's corners from fewer than four markers: the last full pose slid on the table.

        The markers' corners, seen through the last full pose, fall where
        they now lie on the table's plane; the turn and shift that best carry
        their printed corners there is the board's move. One marker alone
        only shifts it: its own corners turn by degrees under blur (a
        detection's error, not the board's), which a whole board's width
        would make pixels.
        """
        base = self._full
        on_table = project(np.linalg.inv(base), pixels)
        return project(base @ _slide(board, on_table, turn=markers > 1), self.corner_points)

    def _believe(self, measured: np.ndarray) -> str:
        if self._corners is None:
            self._corners = measured
            return "tracking"
        moved = float(np.abs(measured - self._corners).max())
        if moved <= SETTLED_PX:
            return "tracking"  # the same pose: keeping it exactly lets the warp be reused
        if moved <= JITTER_PX:
            self._corners = self._corners + SMOOTHING * (measured - self._corners)
            self._candidate = []
            return "tracking"
        if moved <= JUMP_PX:
            self._corners, self._candidate = measured, []
            return "tracking"
        # A jump: believe it once CONFIRM frames in a row agree on it.
        if self._candidate and float(np.abs(measured - self._candidate[-1]).max()) > JUMP_PX:
            self._candidate = []
        self._candidate.append(measured)
        if len(self._candidate) >= CONFIRM:
            self._corners, self._candidate = measured, []
            return "tracking"
        return "moving"

    def _detect(self, image: np.ndarray) -> dict[int, np.ndarray]:
        """Every calibrated marker in view: id -> its corners in pixels."""
        found: dict[int, np.ndarray] = {}
        thumbs: dict[int, np.ndarray] = {}
        remeasure = False
        vanished: list[int] = []    # seen last frame, their pattern gone from there now
        knocked = False             # a marker found well away from where it was
        for marker_id in sorted(self.calibration.markers):
            corners = self._last_seen.get(marker_id)
            if corners is not None:
                thumb = _thumb(image, corners)
                before = self._thumbs.get(marker_id)
                # An unchanged box holds the marker where it was: no need to look again.
                if before is not None and before.shape == thumb.shape and \
                        int((np.abs(thumb - before) > STILL).sum()) < MOVED_PIXELS:
                    found[marker_id], thumbs[marker_id] = corners, before
                    continue
                # Changed: a hand come over it (no pattern: no detection) or the board moved.
                if not _pattern_shows(image, corners, marker_id):
                    vanished.append(marker_id)
                    continue
            else:
                # Missing: look only where the pose puts it, and only if its pattern shows.
                corners = self._expected(marker_id)
                if not _pattern_shows(image, corners, marker_id):
                    continue
            # Its pattern shows at these corners: it is there to a module, and a box half its
            # size around it holds it with its white border (a quarter of the wider box's cost).
            near = _find(image, _window(corners, image.shape, HERE_PAD), marker_id)
            if near is not None:
                found[marker_id] = near
                thumbs[marker_id] = _thumb(image, near)
                remeasure = True
                knocked = knocked or float(np.abs(near - corners).max()) > KNOCK_PX
        if knocked or not found:
            # A marker moved, or every one is gone at once: more likely a knock of the board
            # than hands, so the vanished ones are looked for near where they were.
            for marker_id in vanished:
                near = _find(image, _window(self._last_seen[marker_id], image.shape), marker_id)
                if near is not None:
                    found[marker_id], thumbs[marker_id] = near, _thumb(image, near)
                    remeasure = True
        if self._search_due(found):
            searched = _search(_grey(image), set(self.calibration.markers), set(found),
                               thorough=self.matrix is None)
            for marker_id, corners in searched.items():
                if marker_id in self.calibration.markers:
                    found[marker_id] = corners
                    thumbs[marker_id] = _thumb(image, corners)
                    remeasure = True
        if set(found) != set(self._last_seen):
            remeasure = True
        self._remeasure = remeasure
        self._last_seen, self._thumbs = found, thumbs
        return found

    def _search_due(self, found: dict[int, np.ndarray]) -> bool:
        """Whether to search the whole frame for the markers not ``found`` this frame.

        A missing marker is usually under a hand: searching the whole frame for it
        costs more than the rest of the frame's work, so it is looked for now and then
        (soon when blind). Frames are counted while some marker stays missing: a hand
        passing over one for a placement (1-2 s) costs no search at all.
        """
        if len(found) == len(self.calibration.markers):
            self._unsearched = 0
            return False
        self._unsearched += 1
        if self.matrix is not None and self._unsearched < (SEARCH_EVERY if found else SEARCH_BLIND):
            return False
        self._unsearched = 0
        return True

    def _expected(self, marker_id: int) -> np.ndarray:
        """Where the believed pose puts a marker's corners, in pixels."""
        ideal = self._ideal if self._ideal is not None else self._calibrated
        return self.calibration.distort(project(ideal, self.calibration.markers[marker_id]))


def _slide(board: np.ndarray, moved: np.ndarray, turn: bool = True) -> np.ndarray:
    """The 3x3 turn (unless not ``turn``) and shift, no scale, carrying ``board`` points
    nearest to ``moved`` ones."""
    mean_b, mean_m = board.mean(axis=0), moved.mean(axis=0)
    a, b = board - mean_b, moved - mean_m
    angle = np.arctan2(float((a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum()),
                       float((a * b).sum())) if turn else 0.0
    cos, sin = np.cos(angle), np.sin(angle)
    turn = np.array([[cos, -sin], [sin, cos]])
    slide = np.eye(3)
    slide[:2, :2], slide[:2, 2] = turn, mean_m - turn @ mean_b
    return slide


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def _window(corners: np.ndarray, shape: tuple[int, ...],
            pad: float = 1.0) -> tuple[int, int, int, int]:
    """A box around a marker, ``pad`` times its size more on each side (by default twice its
    size each way: it may have moved a little)."""
    low, high = corners.min(axis=0), corners.max(axis=0)
    pad = max(pad * float((high - low).max()), 20.0)
    x0, y0 = (low - pad).astype(int)
    x1, y1 = (high + pad).astype(int)
    return max(x0, 0), max(y0, 0), min(x1, shape[1]), min(y1, shape[0])


def _thumb(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The marker and a rim of its surroundings, grey, at half size: what must stay still.

    A ninth of the search window's area: any move of the marker changes its own box.
    """
    low, high = corners.min(axis=0), corners.max(axis=0)
    rim = max(0.25 * float((high - low).max()), 4.0)
    x0, y0 = np.maximum((low - rim).astype(int), 0)
    x1, y1 = (high + rim).astype(int)
    patch = _grey(image[y0:y1, x0:x1])
    small = cv2.resize(patch, None, fx=THUMB_SCALE, fy=THUMB_SCALE,
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    # To a fixed contrast: the light or the camera's exposure changing moves no marker.
    mean, spread = cv2.meanStdDev(small)
    return (small - float(mean[0, 0])) * (THUMB_SPREAD / max(float(spread[0, 0]), 1.0))


def _pattern_shows(image: np.ndarray, corners: np.ndarray, marker_id: int) -> bool:
    """Whether the marker's printed modules show at these corners (OpenCV's order)."""
    side = MODULES * PROBE
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warp = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), square)
    patch = _grey(cv2.warpPerspective(image, warp, (side, side), flags=cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE))
    # Each module's middle half: a prediction a little off still samples the right module.
    inner = slice(PROBE // 4, PROBE - PROBE // 4)
    cells = patch.reshape(MODULES, PROBE, MODULES, PROBE)[:, inner, :, inner].mean(axis=(1, 3))
    low, high = float(cells.min()), float(cells.max())
    if high - low < PROBE_CONTRAST:
        return False
    agree = int(((cells > (low + high) / 2) == modules(marker_id)).sum())
    return agree >= MODULES * MODULES - PROBE_MISMATCH


@functools.cache
def _quick_detector() -> cv2.aruco.ArucoDetector:
    """One adaptive threshold (the shared detector tries six): a fifth of the cost.

    Only for finding markers roughly in the whole frame: its corners
    can differ from the shared detector's by a pixel or two on small markers,
    and the calibration measured the markers with the shared one, so every
    corner the pose uses comes from the shared detector (:func:`_find`).
    """
    params = cv2.aruco.DetectorParameters()
    params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = 15
    # A marker whose paper reaches the frame's edge is still a marker (detect_markers drops
    # one the edge cuts); OpenCV's default of 3 px lost it.
    params.minDistanceToBorder = 0
    return cv2.aruco.ArucoDetector(dictionary(), params)


def _find(image: np.ndarray, box: tuple[int, int, int, int], marker_id: int) -> np.ndarray | None:
    """One marker's corners (pixels) within ``box``, or None."""
    x0, y0, x1, y1 = box
    near = detect_markers(_grey(image[y0:y1, x0:x1]))
    return near[marker_id] + np.array([x0, y0], np.float32) if marker_id in near else None


def _search(grey: np.ndarray, wanted: set[int], known: set[int],
            thorough: bool = True) -> dict[int, np.ndarray]:
    """The ``wanted`` markers but ``known`` ones anywhere in the frame: found on a reduced
    copy, refined at full size.

    The one-threshold detector looks first; ``thorough`` (a first look, with
    no pose to hold) adds the shared detector's six thresholds for any still
    missing. Every corner is the shared detector's, as in :func:`_find`.
    """
    factor = min(1.0, SEARCH_WIDTH / grey.shape[1])
    small = grey if factor >= 1.0 else cv2.resize(grey, None, fx=factor, fy=factor,
                                                  interpolation=cv2.INTER_AREA)
    rough: dict[int, tuple[np.ndarray, bool]] = {}   # id -> corners, final already
    for detector in (_quick_detector(), None) if thorough else (_quick_detector(),):
        for marker_id, corners in detect_markers(small, detector).items():
            if marker_id in wanted and marker_id not in known and marker_id not in rough:
                rough[marker_id] = corners / factor, detector is None and factor >= 1.0
        if wanted <= known | set(rough):
            break
    found = {}
    for marker_id, (corners, final) in rough.items():
        exact = None if final else _find(grey, _window(corners, grey.shape), marker_id)
        found[marker_id] = corners if exact is None else exact
    return found
