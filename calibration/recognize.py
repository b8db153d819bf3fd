"""Frames in, cells out: the whole per-frame pipeline, and ``watch``'s loop over a stream.

:class:`Recognizer` finds the board's pose from its markers (held when they
are hidden), warps the board flat and asks the classifier which cells hold a
tile. :func:`watch` feeds those readings to the stability tracker and yields
DESIGN.md's JSON lines: ``{"frame": 41, "tile": "5C"}`` for each committed
placement, ``{"frame": 12, "warning": "..."}`` for what it refused to commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from calibration.calfile import Calibration, CalibrationError
from calibration.calibrate import Rectifier, homography
from calibration.classify import CellReading, TileClassifier
from calibration.pose import PoseTracker
from calibration.tracker import HOLD, Reading, StabilityTracker


@dataclass(frozen=True)
class Observation:
    """One frame read: cells, whether the board is clear, markers seen, the pose's state."""

    occupied: frozenset[int]
    uncertain: frozenset[int]
    clear: bool
    markers: int
    pose: str                  # "tracking", "held", "moving" or "calibration" (never seen)
    reading: CellReading

    def labels(self, calibration: Calibration) -> dict:
        """The recognize command's JSON fields (labels in board order)."""
        names = calibration.layout.geometry.labels
        return {"occupied": [names[c] for c in sorted(self.occupied)],
                "uncertain": [names[c] for c in sorted(self.uncertain)],
                "markers": self.markers, "clear": self.clear}


class Recognizer:
    """Reads frames of one calibrated table, following the board from frame to frame."""

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self.poses = PoseTracker(calibration)
        self.classifier = TileClassifier(calibration)
        self.rectify = Rectifier(calibration)
        self._fallback = homography(calibration.layout.corner_points(), calibration.corners_px)

    def read(self, image: np.ndarray) -> Observation:
        """The observation of one BGR frame of the calibration's size."""
        if image is None or image.ndim != 3:
            raise CalibrationError("expected a colour frame")
        height, width = image.shape[:2]
        self.calibration.check_fits(image_size=(width, height))
        pose = self.poses.update(image)
        # Until the markers are first seen, trust the board to lie where it was calibrated.
        matrix, markers, state = (self._fallback, 0, "calibration") if pose is None else \
            (pose.matrix, pose.markers, pose.state)
        reading = self.classifier.read(self.rectify(image, matrix))
        clear = reading.clear and state != "moving"
        return Observation(reading.occupied, reading.uncertain, clear, markers, state, reading)


def watch(frames: Iterable[tuple[int, float, np.ndarray]], calibration: Calibration,
          hold: float = HOLD) -> Iterator[dict]:
    """Commits and warnings for a stream of ``(index, seconds, BGR image)`` frames."""
    recognizer = Recognizer(calibration)
    labels = calibration.layout.geometry.labels
    tracker = StabilityTracker(hold, label=labels.__getitem__)
    for index, seconds, image in frames:
        seen = recognizer.read(image)
        for decision in tracker.feed(index, seconds, Reading(seen.occupied, seen.uncertain, seen.clear)):
            if decision.kind == "commit":
                yield {"frame": decision.frame, "tile": labels[decision.cell]}
            elif decision.kind == "warning":
                yield {"frame": decision.frame, "warning": decision.message}
