"""Frames in, cells out: the whole per-frame pipeline, and ``watch``'s loop over a stream.

:class:`Recognizer` finds the board's pose from its markers (held when they
are hidden), warps the board flat and asks the classifier which cells hold a
tile. :class:`Watcher` feeds those readings to the stability tracker and
gives its decisions as :mod:`tabletop.geometry.sightings` with cell labels
(:class:`BoardSeen` the reference board, :class:`TileSeen` a commit,
:class:`ChangesSeen` a warning with the cells it is about). :func:`watch`
yields docs/design.md's JSON lines from them (:func:`watch_line`):
``{"frame": 41, "tile": "5C"}`` for each committed placement,
``{"frame": 12, "warning": "..."}`` for what it refused to commit, and
``{"frame": 52, "doubt": "10D", "reason": "unsure"}`` for a tile it would ask
the table about (:class:`TileDoubted`: the one cell the hand changed, which the
classifier could not tell from the board; or a tile read late).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Collection, Iterable, Iterator

import cv2
import numpy as np

from calibration.adapt import TableLooks
from calibration.calfile import Calibration, CalibrationError
from calibration.warp import GridAligner, Rectifier, homography, project
from calibration.classify import COLOUR_SHRINK, CellReading, TileClassifier
from calibration.pose import FULL_POSE, SETTLED_PX, Pose, PoseTracker
from calibration.timecue import CellLooks, changed_cells
from calibration.tracker import HOLD, MANY, Decision, Reading, StabilityTracker
from tabletop.geometry.sightings import BoardSeen, ChangesSeen, Sighting, TileDoubted, TileSeen

#: Suspect frames in a row on which the pose is found afresh; after that, one in RECHECK_EVERY
#: (each costs a whole-frame search), and a clear board read the same way is believed.
RECHECKS, RECHECK_EVERY = 3, 10
#: Seconds not read clear after which the pose is doubted: a hand putting a tile down keeps
#: the board unclear 0.6-1.5 s, a grid a few pixels off as long as it stays off. A frame given
#: no time counts FRAME_SECONDS; UNCLEAR_FRAMES is the same in frames of watch's 10 a second.
UNCLEAR_SECONDS, FRAME_SECONDS = 2.5, 0.1
UNCLEAR_FRAMES = round(UNCLEAR_SECONDS / FRAME_SECONDS)
#: A frame is the last one again when no pixel of its grey thumbnail (1/UNCHANGED_SHRINK
#: size: a tile covers a few of its pixels) moved more than UNCHANGED_LEVELS grey levels
#: (full sensor noise averaged over 64 pixels moves them up to 4; the faintest tile the
#: renderer draws, 9 or more, and a hand no tile comes without, far more); even so it is read in
#: full after UNCHANGED_FRAMES reuses.
UNCHANGED_SHRINK, UNCHANGED_LEVELS, UNCHANGED_FRAMES = 8, 6, 10
#: Markers a fresh pose needs: fewer only move a last pose, and a fresh tracker has none.
FRESH_MARKERS = 3
#: A fresh pose with the grid's corners this near the followed one's is the same pose (as the
#: tracker holds its own), not read again: under hands they differed by 0.16 px at most.
SAME_GRID_PX = SETTLED_PX
#: A pose from fewer than all four markers is checked against the board's own print
#: (:class:`~calibration.warp.GridAligner`) and corrected when some cell lies more than
#: ALIGN_FIX pixels (rectified) off; a correction past ALIGN_AGAIN is checked once more.
ALIGN_FIX, ALIGN_AGAIN = 0.5, 2.0


@dataclass(frozen=True)
class Observation:
    """One frame read: cells, whether the board is clear, markers seen, the pose's state."""

    occupied: frozenset[int]
    uncertain: frozenset[int]
    clear: bool
    markers: int
    pose: str                  # "tracking", "held", "moving" or "calibration" (never seen)
    reading: CellReading
    #: The rectified board in grey, for comparing this frame with another (the time cue).
    plane: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: Cells the classifier left uncertain that the table's own examples decided
    #: (:mod:`calibration.adapt`): in ``occupied`` or bare now, counted apart.
    learned: frozenset[int] = frozenset()

    @property
    def readable(self) -> bool:
        """False when nothing could be read (every cell undecided), or only in part below the
        readable bar (:attr:`CellReading.degraded`), though the pose held still."""
        return self.pose == "moving" or not _unreadable(self.reading)

    def labels(self, calibration: Calibration) -> dict:
        """The recognize command's JSON fields (labels in board order)."""
        names = calibration.layout.geometry.labels
        return {"occupied": [names[c] for c in sorted(self.occupied)],
                "uncertain": [names[c] for c in sorted(self.uncertain)],
                "markers": self.markers, "clear": self.clear}


class Recognizer:
    """Reads frames of one calibrated table, following the board from frame to frame.

    With ``verify`` (``watch``'s stream of one still table), a board that
    suddenly reads very differently is also read with a pose found afresh
    from that frame's markers, and the better reading kept (see :meth:`_suspect`).
    """

    def __init__(self, calibration: Calibration, verify: bool = False) -> None:
        self.calibration = calibration
        self.poses = PoseTracker(calibration)
        self.classifier = TileClassifier(calibration)
        self.rectify = Rectifier(calibration)
        self._fallback = homography(calibration.layout.corner_points(), calibration.corners_px)
        self.verify = verify
        self._doubts = 0                                # suspect frames in a row
        self._clock = 0.0                               # the stream's time, seconds
        self._next_time: float | None = None            # ... of the next frame, if told
        self._unclear_since: float | None = None        # when the board was last read clear
        self._trusted: frozenset[int] | None = None     # the tiles of the last trusted clear frame
        self._trusted_seen = (0, 0)                     # ... its markers and its undecided cells
        self._last: Observation | None = None           # the last frame read in full ...
        self._last_thumb: np.ndarray | None = None      # ... its thumbnail and pose
        self._last_matrix: np.ndarray | None = None
        self._reused = 0                                # frames since, found unchanged
        self._bare: Collection[int] | None = None       # cells known empty, for this frame
        self._plane: np.ndarray | None = None           # the last rectified grey board
        self._aligner = GridAligner(calibration)
        self._centres = project(calibration.board_to_rectified(), calibration.layout.centres)
        self._aligned: tuple[np.ndarray, np.ndarray | None] | None = None  # a pose, corrected

    def taken_at(self, seconds: float) -> None:
        """The stream's time (seconds) of the next frame read; a frame read without one is
        taken FRAME_SECONDS after the last."""
        self._next_time = float(seconds)

    def read(self, image: np.ndarray, bare: Collection[int] | None = None) -> Observation:
        """The observation of one BGR frame of the calibration's size.

        ``bare``: cells known to be empty (a tracker's board), by which a board
        crowded with tiles is still told readable.
        """
        if image is None or image.ndim != 3:
            raise CalibrationError("expected a colour frame")
        given, self._next_time = self._next_time, None
        self._clock = self._clock + FRAME_SECONDS if given is None else given
        height, width = image.shape[:2]
        self.calibration.check_fits(image_size=(width, height))
        # One grey conversion of the frame serves the markers and the warp.
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        pose = self.poses.update(grey)
        # Until the markers are first seen, trust the board to lie where it was calibrated.
        matrix, markers, state = (self._fallback, 0, "calibration") if pose is None else \
            (pose.matrix, pose.markers, pose.state)
        thumb = cv2.resize(grey, (width // UNCHANGED_SHRINK, height // UNCHANGED_SHRINK),
                           interpolation=cv2.INTER_AREA)
        if self._unchanged(thumb, matrix, markers, state):
            self._reused += 1
            return self._last
        self._bare = bare
        reading = self._classify(image, grey, matrix, markers)
        if self.verify and pose is not None and state != "moving":
            pose, reading = self._verified(image, grey, pose, reading)
            matrix, markers, state = pose.matrix, pose.markers, pose.state
        clear = reading.clear and state != "moving"
        self._last = Observation(reading.occupied, reading.uncertain, clear, markers, state, reading,
                                 self._plane)
        self._last_thumb, self._last_matrix, self._reused = thumb, matrix, 0
        return self._last

    @property
    def repeated(self) -> bool:
        """Whether the last frame showed just what the one before it did (a still board)."""
        return self._reused > 0

    def _unchanged(self, thumb: np.ndarray, matrix: np.ndarray, markers: int, state: str) -> bool:
        """Whether this frame shows exactly what the last one read in full did.

        A camera over an idle table sends the same picture again and again:
        reading it again would give the same cells. Anything a player does (a
        hand, a tile, a knock, a lamp) changes some block of the thumbnail by
        far more than sensor noise does, and the pose must not have moved. A
        frame is read in full at least every UNCHANGED_FRAMES frames all the same.
        """
        last = self._last
        # A board read unreadable is often on the edge of readable (washed out, its print
        # faint): the next frame's noise may tip it back, so it is read again.
        if last is None or self._reused >= UNCHANGED_FRAMES or state == "moving" or \
                not last.readable or \
                last.markers != markers or last.pose != state or \
                not np.array_equal(matrix, self._last_matrix):
            return False
        return int(cv2.absdiff(thumb, self._last_thumb).max()) <= UNCHANGED_LEVELS

    def _classify(self, image: np.ndarray, grey: np.ndarray, matrix: np.ndarray,
                  markers: int) -> CellReading:
        fitted = self._fitted(image, grey, matrix, markers)
        if fitted is None:
            # The bare cells disagree with any grid near the pose: reading cells through it
            # would take the board's own print, a few pixels off, for tiles.
            return _nothing(self.classifier.read_planes(*self.rectify.planes(
                image, grey, matrix, COLOUR_SHRINK), bare=self._bare))
        planes = self.rectify.planes(image, grey, fitted, COLOUR_SHRINK)
        self._plane = planes[0]
        return self.classifier.read_planes(*planes, bare=self._bare)

    def _fitted(self, image: np.ndarray, grey: np.ndarray, matrix: np.ndarray,
                markers: int) -> np.ndarray | None:
        """The pose matrix the cells are read through: ``matrix``, or corrected by the print.

        Four markers fix the grid to a fraction of a pixel; fewer (a hand or a
        cup over some) leave it a pixel or several off at the far side, which
        the bare cells' printed edges show (:class:`~calibration.warp.GridAligner`).
        None: the grid cannot be told right. A pose is checked once; a still
        board keeps its pose, and with it the correction, frame after frame.
        """
        if markers == 0 or markers >= FULL_POSE:
            return matrix
        if self._aligned is not None and np.array_equal(self._aligned[0], matrix):
            return self._aligned[1]
        fitted: np.ndarray | None = matrix
        for _ in range(2):
            plane = self.rectify.planes(image, grey, fitted, COLOUR_SHRINK)[0]
            correction = self._aligner.correction(plane)
            if correction is None:
                fitted = None
                break
            moved = float(np.abs(project(correction, self._centres) - self._centres).max())
            if moved <= ALIGN_FIX:
                break
            fitted = self._corrected(fitted, correction)
            if moved <= ALIGN_AGAIN:
                break
        self._aligned = (matrix.copy(), fitted)
        return fitted

    def _corrected(self, matrix: np.ndarray, correction: np.ndarray) -> np.ndarray:
        """``matrix`` with rectified pixel x taken from where ``correction`` says x shows."""
        calibration = self.calibration
        to_rectified = calibration.board_to_rectified()
        ideal = calibration.ideal_matrix(matrix) @ np.linalg.inv(to_rectified) @ correction @ to_rectified
        return calibration.image_matrix(ideal)

    def _verified(self, image: np.ndarray, grey: np.ndarray, pose: Pose,
                  reading: CellReading) -> tuple[Pose, CellReading]:
        self._note_clear(reading)
        suspect = self._suspect(reading, pose.markers)
        if suspect and self._may_recheck():
            checked = self._recheck(image, grey, pose, reading)
            if checked is not None:
                pose, reading = checked
                self._note_clear(reading)
                suspect = self._suspect(reading, pose.markers)
        if not suspect:
            self._doubts = 0
        if reading.clear and not reading.degraded and (not suspect or self._doubts > RECHECKS):
            # A board read the same way after several fresh poses has really changed
            # (a lamp): it is what later frames are held against.
            self._trusted, self._doubts = reading.occupied, 0
            self._trusted_seen = (pose.markers, len(reading.uncertain))
        return pose, reading

    def _note_clear(self, reading: CellReading) -> None:
        if reading.clear:
            self._unclear_since = None
        elif self._unclear_since is None or self._unclear_since > self._clock:
            self._unclear_since = self._clock       # (a stream started again: its own time)

    def _unclear_long(self) -> bool:
        """Not read clear for UNCLEAR_SECONDS (a hair under: frame times add up in floats)."""
        since = self._unclear_since
        return since is not None and self._clock - since >= UNCLEAR_SECONDS - 1e-6

    def _suspect(self, reading: CellReading, markers: int) -> bool:
        """Whether the followed pose may have gone wrong: the grid no longer fits the board.

        A clear board whose tiles change by many cells at once, a board that
        cannot be read at all, or one not clear for long, is what a grid a
        few pixels off looks like (a small knock the pose followed only
        halfway: the cells and the ring around them no longer match the
        empty board's). A hand changes cells too, but is not read clear,
        rarely makes the whole board unreadable, and leaves well within
        UNCLEAR_SECONDS: a placement is no reason to search afresh. So is a
        marker lost since the last trusted frame (a hand came over it, and it
        is not found again where the pose says) while many more cells than
        then are undecided: the pose from the rest is a little off.
        """
        if _unreadable(reading) or self._unclear_long():
            return True
        if reading.clear and markers < self._trusted_seen[0] and \
                len(reading.uncertain) > self._trusted_seen[1] + MANY:
            return True
        return reading.clear and self._trusted is not None and \
            len(reading.occupied ^ self._trusted) > MANY

    def _may_recheck(self) -> bool:
        """The first RECHECKS suspect frames in a row, then one in RECHECK_EVERY (each is costly)."""
        self._doubts += 1
        return self._doubts <= RECHECKS or self._doubts % RECHECK_EVERY == 0

    def _recheck(self, image: np.ndarray, grey: np.ndarray, followed: Pose,
                 reading: CellReading) -> tuple[Pose, CellReading] | None:
        """A pose found afresh from this frame's markers alone, if its reading is clearly better."""
        fresh = PoseTracker(self.calibration)
        pose = fresh.update(grey)
        # Fewer than three markers only move the last pose: a fresh one has none to move.
        if pose is None or pose.markers < FRESH_MARKERS:
            return None
        corners = self.calibration.layout.corner_points()
        if float(np.abs(project(pose.matrix, corners) - project(followed.matrix, corners)).max()) \
                <= SAME_GRID_PX:
            return None     # the followed pose is where the markers say: the same cells
        kept = self._plane
        again = self._classify(image, grey, pose.matrix, pose.markers)
        # Clearly better, or jitter between two good poses would be taken for a fix.
        better = (again.clear and not reading.clear) or \
            _misfit(again, self._trusted) + MANY < _misfit(reading, self._trusted)
        if not better:
            self._plane = kept      # (the board as the reading kept saw it)
            return None
        self.poses = fresh
        return pose, again


def _unreadable(reading: CellReading) -> bool:
    """Every cell undecided (the classifier could not read the board at all), or read only in
    part below the readable bar: a stream waits for a frame it can trust (one frame of noise
    and blur is soon followed by another), and a pose that no longer fits looks so too."""
    return reading.degraded or not reading.occupied and len(reading.uncertain) == len(reading.structure)


def _nothing(reading: CellReading) -> CellReading:
    """``reading`` with every cell undecided and the board not clear: nothing can be read."""
    everything = frozenset(range(len(reading.structure)))
    return dataclasses.replace(reading, occupied=frozenset(), uncertain=everything, clear=False)


def _misfit(reading: CellReading, trusted: frozenset[int] | None) -> int:
    """How badly a reading fits the board last trusted (an unreadable board worst)."""
    if _unreadable(reading):
        return 1 << 30
    return len(reading.occupied ^ trusted) + len(reading.uncertain) if trusted is not None \
        else len(reading.uncertain)


class Watcher:
    """The commit loop over one calibrated table: frames in, sightings out.

    Each frame is read by a :class:`Recognizer` (``verify=True``) and its
    reading fed to a :class:`~calibration.tracker.StabilityTracker`; what the
    tracker decides comes back with cell labels:

    * the reference (the first still board): ``BoardSeen(12, ("5C", "12I"))``;
    * a commit: ``TileSeen(41, "6D")``;
    * a warning: ``ChangesSeen(60, "...", new=("2B", "9G"), gone=())``
      (``new`` and ``gone``: the cells that came and went, empty when the
      warning is that a cell cannot be read).

    Labels are listed in board order. For example::

        watcher = Watcher(calibration)
        for index, seconds, image in frames:
            for sighting in watcher.feed(index, seconds, image):
                if isinstance(sighting, TileSeen):
                    print("placed", sighting.tile)
        watcher.board   # the tiles the tracker holds the board to: ["5C", "6D", "12I"]
    """

    def __init__(self, calibration: Calibration, hold: float = HOLD, learn: bool = True) -> None:
        self.calibration = calibration
        self.labels: tuple[str, ...] = tuple(calibration.layout.geometry.labels)
        self.recognizer = Recognizer(calibration, verify=True)
        self.tracker = StabilityTracker(hold, label=self.labels.__getitem__)
        self._cells = frozenset(range(len(self.labels)))
        self._last: Observation | None = None
        self._expected: frozenset[int] | None = None
        self._looks = CellLooks(calibration)
        #: The board the next hand is compared with (a clear frame since the last decision
        #: that repeated the one before it, or else the first the tracker held still), and
        #: the cells' looks in it once a hand came: one frame, never a history.
        self._still: Observation | None = None
        self._before: np.ndarray | None = None
        #: What a tile and a bare cell look like on this table, learned from the game's
        #: record (:mod:`calibration.adapt`; None: not learning).
        self.table: TableLooks | None = TableLooks(len(self.labels)) if learn else None
        #: The last still, clear frame since the tracker's last decision (what the record's
        #: board is learned from), and the record's board waiting for one.
        self._settled: Observation | None = None
        self._pending: frozenset[int] | None = None

    def expect(self, labels: Iterable[str]) -> None:
        """The board as the game's record holds it: at the start and after every change to it.

        Before the reference, the cells it leaves bare are what a crowded board
        is told readable by (a game resumed late, too few cells empty to judge
        by the tiles alone); the reference itself is still what the camera sees.

        Each board told is also a labelled example of this very table: the
        Watcher learns how the record's tiles and bare cells look from its last
        still, clear frame since the tracker's last decision (or from the next
        one, if no hand comes first), and by that decides some of the cells the
        classifier leaves uncertain (:mod:`calibration.adapt`; see
        :attr:`Observation.learned`).
        """
        cells = {label: cell for cell, label in enumerate(self.labels)}
        self._expected = frozenset(cells[label] for label in labels if label in cells)
        if self.table is None:
            return
        if self._settled is not None:
            self._learn(self._settled, self._expected)
        else:
            self._pending = self._expected

    def feed(self, index: int, seconds: float, image: np.ndarray) -> list[Sighting]:
        """Read frame ``index`` (taken at ``seconds``); the decisions made at it."""
        reference = self.tracker.reference
        if reference is not None:
            bare = self._cells - reference - self.tracker.unknown
        else:
            bare = None if self._expected is None else self._cells - self._expected
        self.recognizer.taken_at(seconds)
        seen = self.recognizer.read(image, bare)
        changed = self._changed(seen)
        seen = self._last = self._adapted(seen, changed)
        reading = Reading(seen.occupied, seen.uncertain, seen.clear, changed, seen.readable)
        pending = self.tracker.touched
        decisions = self.tracker.feed(index, seconds, reading)
        if seen.clear and not self.tracker.touched:
            # Decided, or nothing to decide: the next hand is held against this board, once a
            # frame shows it again unchanged (a hand coming in, its shadow ahead of it, is never
            # still), or else the first the tracker has held still since the last decision (a
            # camera's noise may never repeat a frame; a later one may hold that shadow).
            self._before = None
            if self.recognizer.repeated or self._still is None and self.tracker.steady:
                self._still = seen
                self.tracker.compared_from_here()
            elif pending:
                self._still = None      # (the board before the hand just decided on is past)
        self._settle(seen, decisions)
        return [self._sighting(decision) for decision in decisions]

    def _settle(self, seen: Observation, decisions: list[Decision]) -> None:
        """Keep the last still, clear frame since the last decision; learn a board waiting for it."""
        if self.table is None:
            return
        still = seen.clear and seen.readable and not self.tracker.touched
        if decisions:
            # The tracker held this frame still and clear for its hold time: it shows the
            # board decided on. A board told before it may not be that board.
            self._settled = seen if still else None
            if any(decision.kind != "reference" for decision in decisions):
                self._pending = None
        elif still and self.recognizer.repeated:
            self._settled = seen
        if self._pending is not None and self._settled is not None:
            self._learn(self._settled, self._pending)
            self._pending = None

    def _learn(self, seen: Observation, tiles: frozenset[int]) -> None:
        # Bare examples only where the tracker holds the board bare too: a tile it committed
        # that the record has not taken yet (or has just taken back) is no bare board.
        held = (self.tracker.reference or frozenset()) | self.tracker.unknown
        self.table.learn(seen.reading, tiles, self._cells - tiles - held)

    def _adapted(self, seen: Observation, changed: frozenset[int] | None) -> Observation:
        """``seen`` with the uncertain cells the table's own examples decide (never on a hand).

        A tile only where the record or the tracker has one, or where the time cue
        says the cell changed since the board before the hand; bare only where
        both hold the board bare and no hand can have changed it (none came since
        the last decision, or the time cue says the cell did not change).
        """
        table = self.table
        if table is None or not table.ready or not seen.clear or not seen.readable or \
                not seen.uncertain:
            return seen
        held = (self._expected or frozenset()) | (self.tracker.reference or frozenset())
        tiles = held | (changed or frozenset())
        bare = self._cells - held - self.tracker.unknown
        if self.tracker.touched:
            bare = frozenset() if changed is None else bare - changed
        as_tile, as_bare = table.decide(seen.reading, tiles, bare)
        if not as_tile and not as_bare:
            return seen
        return dataclasses.replace(seen, occupied=seen.occupied | as_tile,
                                   uncertain=seen.uncertain - as_tile - as_bare,
                                   learned=as_tile | as_bare)

    def _changed(self, seen: Observation) -> frozenset[int] | None:
        """The cells changed clearly since the still board before the hand (None: unknown)."""
        if not seen.clear:
            if self._before is None and self._still is not None and self._still.plane is not None:
                self._before = self._looks(self._still.plane)
            return None
        if self._before is None or seen.plane is None:
            return None
        return changed_cells(self._before, self._looks(seen.plane))

    @property
    def board(self) -> list[str] | None:
        """The labels of the tiles the tracker holds as the board (None before its reference)."""
        reference = self.tracker.reference
        return None if reference is None else list(self._names(reference))

    @property
    def last(self) -> Observation | None:
        """The last frame's observation (None before the first frame)."""
        return self._last

    def restart(self) -> None:
        """Take a new reference from the next still board (the pose is kept).

        For a stream that broke off, such as a camera back after a fault:
        whatever happened meanwhile is neither committed nor warned about.
        """
        self.tracker.restart()
        self._still = self._before = None
        # (what the table looks like is kept: the same table, the same light, or nearly)
        self._settled = self._pending = None

    def _names(self, cells: Iterable[int]) -> tuple[str, ...]:
        return tuple(self.labels[c] for c in sorted(cells))

    def _sighting(self, decision: Decision) -> Sighting:
        if decision.kind == "reference":
            # Decided at this very frame: the tracker's reference is that board.
            return BoardSeen(decision.frame, self._names(self.tracker.reference or ()))
        if decision.kind == "commit":
            return TileSeen(decision.frame, self.labels[decision.cell])
        if decision.kind == "doubt":
            return TileDoubted(decision.frame, self.labels[decision.cell], decision.reason)
        return ChangesSeen(decision.frame, decision.message,
                           self._names(decision.new), self._names(decision.gone))


def sightings(frames: Iterable[tuple[int, float, np.ndarray]], calibration: Calibration,
              hold: float = HOLD) -> Iterator[Sighting]:
    """Every decision of one :class:`Watcher` over a stream of ``(index, seconds, BGR image)``."""
    watcher = Watcher(calibration, hold)
    for index, seconds, image in frames:
        yield from watcher.feed(index, seconds, image)


def watch_line(sighting: Sighting) -> dict[str, Any] | None:
    """``watch``'s JSON line for a sighting: a commit, a doubt, or a warning without its cells.

    A reference board is no line (None): the command reports changes only.

    >>> watch_line(TileSeen(41, "5C"))
    {'frame': 41, 'tile': '5C'}
    >>> watch_line(TileDoubted(52, "10D", "unsure"))
    {'frame': 52, 'doubt': '10D', 'reason': 'unsure'}
    >>> watch_line(ChangesSeen(60, "2 new tiles at once", new=("2B", "9G")))
    {'frame': 60, 'warning': '2 new tiles at once'}
    >>> watch_line(BoardSeen(12, ("12I",))) is None
    True
    """
    if isinstance(sighting, (TileSeen, TileDoubted)):
        return sighting.as_json()
    if isinstance(sighting, ChangesSeen):
        return {"frame": sighting.frame, "warning": sighting.message}
    return None


def watch(frames: Iterable[tuple[int, float, np.ndarray]], calibration: Calibration,
          hold: float = HOLD) -> Iterator[dict[str, Any]]:
    """Commits and warnings for a stream of ``(index, seconds, BGR image)`` frames.

    :func:`sightings` as :func:`watch_line` writes them, reference boards
    left out: ``{"frame", "tile"}``, ``{"frame", "doubt", "reason"}`` (a tile to
    ask about, never to commit unasked) and ``{"frame", "warning"}``.
    """
    for sighting in sightings(frames, calibration, hold):
        line = watch_line(sighting)
        if line is not None:
            yield line
