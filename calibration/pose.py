"""Where the board is in each frame, from its markers: smoothed, jump-proof, held when hidden.

Each frame the markers' detected corners, against their board-unit corners
from the calibration, give the board's pose (a homography from board units
to pixels). Small changes are smoothed (sub-pixel jitter of the detector);
a sudden large change is believed only once several frames agree (a bumped
board), so one bad detection never moves the grid; with one or two markers
in view the last pose is moved rigidly with them,
and with none it is kept.

Markers are looked for first in small windows around where they were: the
whole frame is searched (at reduced size) only when one has gone missing.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.calfile import Calibration
from calibration.calibrate import homography, project
from calibration.markers import detect_markers

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
#: Markers needed for a full perspective pose; fewer update the last pose rigidly.
FULL_POSE = 3
#: While some marker is missing, the whole frame is searched for it every this many frames
#: (a third of it when none is in view).
SEARCH_EVERY = 3
#: A marker's window is still while fewer than MOVED_PIXELS of its THUMBxTHUMB thumbnail
#: changed by more than STILL grey levels (noise moves many a little, an edge few a lot).
THUMB, STILL, MOVED_PIXELS = 32, 30, 4


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
        self._corners: np.ndarray | None = None      # the grid's corners in pixels, as believed
        self._candidate: list[np.ndarray] = []       # a jump's corners, frame by frame
        self._last_seen: dict[int, np.ndarray] = {}  # marker id -> pixel corners last frame
        self._thumbs: dict[int, np.ndarray] = {}     # marker id -> its window, tiny, last time
        self._unsearched = 0                         # frames since the whole frame was searched
        self.matrix: np.ndarray | None = None
        # Where the board lay when calibrated: the start for a pose from few markers.
        self._calibrated = homography(self.corner_points, calibration.corners_px)

    def update(self, image: np.ndarray) -> Pose | None:
        """The pose for this frame, grey or BGR (None until the markers have been seen once)."""
        seen = self._detect(image)
        known = {i: c for i, c in seen.items() if i in self.calibration.markers}
        if not known:
            return None if self.matrix is None else Pose(self.matrix, 0, "held")
        board = np.concatenate([self.calibration.markers[i] for i in sorted(known)])
        pixels = np.concatenate([known[i] for i in sorted(known)])
        if len(known) >= FULL_POSE:
            measured = project(homography(board, pixels), self.corner_points)
        else:
            measured = self._moved(board, pixels)
            if measured is None:
                return None if self.matrix is None else Pose(self.matrix, len(known), "held")
        state = self._believe(measured)
        self.matrix = homography(self.corner_points, self._corners)
        return Pose(self.matrix, len(known), state)

    def _moved(self, board: np.ndarray, pixels: np.ndarray) -> np.ndarray | None:
        """The grid's corners from one or two markers: the board moved rigidly since last seen.

        Two markers fix a full perspective badly (small, close together, seen
        through a lens); a shift, turn and scale of the last pose they fix well.
        """
        base = self.matrix if self.matrix is not None else self._calibrated
        moved, _ = cv2.estimateAffinePartial2D(project(base, board), pixels)
        if moved is None:
            return None
        corners = project(base, self.corner_points)
        return corners @ moved[:, :2].T + moved[:, 2]

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
        found: dict[int, np.ndarray] = {}
        thumbs: dict[int, np.ndarray] = {}
        for marker_id, corners in self._last_seen.items():
            x0, y0, x1, y1 = _window(corners, image.shape)
            patch = _grey(image[y0:y1, x0:x1])
            thumb = cv2.resize(patch, (THUMB, THUMB), interpolation=cv2.INTER_AREA).astype(np.int16)
            before = self._thumbs.get(marker_id)
            # An unchanged window holds the marker where it was: no need to look again.
            # A marker's edges moving even a few pixels change some thumbnail pixels a lot.
            if before is not None and before.shape == thumb.shape and \
                    int((np.abs(thumb - before) > STILL).sum()) < MOVED_PIXELS:
                found[marker_id], thumbs[marker_id] = corners, before
                continue
            near = detect_markers(patch)
            if marker_id in near:
                found[marker_id], thumbs[marker_id] = near[marker_id] + (x0, y0), thumb
        self._unsearched += 1
        # A missing marker is usually under a hand: searching the whole frame for it
        # every frame would cost more than the rest of the frame's work, so look now and then.
        wait = SEARCH_EVERY if found else SEARCH_EVERY // 3
        if len(found) < len(self.calibration.markers) and \
                (not self._last_seen or self._unsearched >= wait):
            self._unsearched = 0
            for marker_id, corners in _search(_grey(image)).items():
                found.setdefault(marker_id, corners)
        self._last_seen = found or self._last_seen
        self._thumbs = thumbs
        return found


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def _window(corners: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """A box around a marker, twice its size each way (it may have moved a little)."""
    low, high = corners.min(axis=0), corners.max(axis=0)
    pad = max(float((high - low).max()), 20.0)
    x0, y0 = (low - pad).astype(int)
    x1, y1 = (high + pad).astype(int)
    return max(x0, 0), max(y0, 0), min(x1, shape[1]), min(y1, shape[0])


def _search(grey: np.ndarray) -> dict[int, np.ndarray]:
    """Markers anywhere in the frame, found on a reduced copy, then refined at full size."""
    factor = min(1.0, SEARCH_WIDTH / grey.shape[1])
    if factor >= 1.0:
        return detect_markers(grey)
    small = cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    found = {}
    for marker_id, corners in detect_markers(small).items():
        rough = corners / factor
        x0, y0, x1, y1 = _window(rough, grey.shape)
        exact = detect_markers(grey[y0:y1, x0:x1])
        found[marker_id] = exact[marker_id] + (x0, y0) if marker_id in exact else rough
    return found
