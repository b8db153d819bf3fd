"""Deciding what was placed: commit a tile only when the board is clear and still.

The tracker is fed one :class:`Reading` a frame (which cells hold a tile, which
it could not decide, whether anything is over the board). It acts only on a
*still* board: clear, and no cell read as a tile in one frame and as empty in
another for ``hold`` seconds (a cell read undecided in some frames is no
change: the classifier doubts, the board has not moved). Over that stretch a
cell is *settled* as a tile when it was read as one at least once, as empty
when it was read empty at least once, and stays *undecided* when every frame
doubted it.

The first still board is its reference (it may already hold tiles; cells
undecided there are *unknown*). After that, only cells a hand has been over
since the last decision can have changed: a hand is needed to put a tile down
or take one away, and the cell under it reads as covered while it is there.
A still board whose only change at such a cell is one new tile commits that
tile; any other change there (two new tiles, a tile gone or moved, many cells)
is a warning, never a commit, and the board as it now stands becomes the
reference. A change at a cell no hand came near (a lamp, a flickering tile)
is a misreading, not a move, and is ignored. (A hand is a frame not read
clear, or clear frames changing several cells at once that never stand still.)

A cell a hand was over, read empty before and undecided now, holds every
decision back (a neighbour misread for its tile must not be committed) until
a frame reads it, and after UNDECIDED seconds the table is told and the cell
left unknown; unless the time cue (the cells' looks against the board before
the hand) saw it unchanged while it saw the new tile's cell change, and
nothing else: the tile is where both put it. A new tile read undecided more
often than as a tile is waited for too. Cells already hard to read before the
hand came hold nothing back.
A frame nothing could be read in is skipped; after UNDECIDED seconds of them
the table is told once that the board cannot be read, and what to do.

>>> tracker = StabilityTracker(hold=0.3)
>>> empty, one = Reading(frozenset(), frozenset(), True), Reading(frozenset({5}), frozenset(), True)
>>> hand = Reading(frozenset({4, 5, 6}), frozenset(), False)
>>> [d.kind for i in range(4) for d in tracker.feed(i, i / 10, empty)]
['reference']
>>> [d.kind for i in range(4, 6) for d in tracker.feed(i, i / 10, hand)]
[]
>>> [d.kind for i in range(6, 11) for d in tracker.feed(i, i / 10, one)]
['commit']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from tabletop.geometry.sightings import LATE, UNSURE
from tabletop.messages import Message

#: Seconds the board must be clear and unchanged before the tracker believes it.
HOLD = 0.5
#: Seconds a cell may stay undecided on a still board before the table is told.
UNDECIDED = 3.0
#: More changed cells than this at once is not something players did by hand.
MANY = 3
#: A clear frame read with more cells changed than this has a hand over it all the same.
BUSY = 1
#: Seconds of a still board after which a doubtful cell the time cue singles out is asked
#: about (the classifier is given a few more frames to read it first; a placement is to be
#: proposed within a second of the hand leaving).
ASK = 0.8
#: Cells a hand changed that were read empty, kept to attribute a tile read later to them.
LATE_CELLS = 3
#: The time cue singles a cell out when it changed in at least STEADY of the frames compared
#: and no other cell in more than STRAY of them (the first frames after a hand leaves may
#: still show its shadow: a cup or a lamp changes its cells in every frame), over at least
#: CUE_FRAMES frames.
STEADY, STRAY, CUE_FRAMES = 0.75, 0.25, 3


@dataclass(frozen=True)
class Reading:
    """What one frame shows: occupied and undecided cells, and whether the board is clear."""

    occupied: frozenset[int]
    uncertain: frozenset[int]
    clear: bool
    #: Cells whose look changed clearly since the still board before the hand came (the
    #: time cue), or None when there is nothing to compare with.
    changed: frozenset[int] | None = None
    #: False when the classifier could read nothing at all (every cell undecided: a frame
    #: washed out or blurred past reading, the markers in place): no evidence of a hand nor
    #: of the board, taken as a frame the camera never sent.
    readable: bool = True


@dataclass(frozen=True)
class Decision:
    """A commit (``cell`` placed) or a warning, decided at frame ``frame``.

    ``new`` and ``gone`` are the cells that changed, sorted: for a commit its
    cell; for a warning about the board (tiles added, taken or moved) the
    cells that came and went (a move: ``new`` its target, ``gone`` its
    source; many cells at once: all of them, which the message only counts).
    A reference, and a warning that a cell cannot be read, leave them empty.
    A doubt is a tile to ask the table about (``reason``: ``unsure`` or ``late``).
    """

    frame: int
    kind: str            # "commit" | "doubt" | "warning" | "reference"
    cell: int | None = None
    message: str = ""
    new: tuple[int, ...] = ()
    gone: tuple[int, ...] = ()
    reason: str = ""


class _Run:
    """A stretch of clear frames in which no cell went from tile to empty or back."""

    def __init__(self, time: float, reading: Reading) -> None:
        self.since = time
        self.frames = 0
        self.occupied: Counter[int] = Counter()   # frames each cell was read as a tile
        self.uncertain: Counter[int] = Counter()  # frames each cell was read undecided
        self.compared: tuple[frozenset[int], frozenset[int]] | None = None
        self.busy: set[int] = set()   # cells read as tiles in frames with many cells changed
        self.wavered: set[int] = set()  # cells found wavering since the run held (see wavering)
        self.held = False             # whether the run has lasted the hold time
        #: What holds the decision back: (doubtful cells, tiles, undecided), or None.
        self.doubt: tuple[frozenset[int], frozenset[int], frozenset[int]] | None = None
        #: The time cue over the run: the frames compared, and in how many each cell changed.
        self.cued = 0
        self.changes: Counter[int] = Counter()
        self.add(reading)

    def add(self, reading: Reading) -> None:
        self.frames += 1
        self.occupied.update(reading.occupied)
        self.uncertain.update(reading.uncertain)
        if reading.changed is not None:
            self.cued += 1
            self.changes.update(reading.changed)

    @property
    def changed(self) -> frozenset[int] | None:
        """The cells the time cue saw change in every frame compared (None: none compared)."""
        if not self.cued:
            return None
        return frozenset(cell for cell, n in self.changes.items() if n == self.cued)

    def singled_out(self, aside: frozenset[int] = frozenset()) -> int | None:
        """The one cell the time cue says changed, in nearly every frame compared and alone
        (STEADY, STRAY); ``aside``: cells decided since the board it compares with, left out.

        >>> run = _Run(0.0, Reading(frozenset(), frozenset(), True, frozenset({3, 4, 9})))
        >>> for _ in range(5):
        ...     run.add(Reading(frozenset(), frozenset(), True, frozenset({4, 9})))
        >>> run.singled_out(), run.singled_out(aside=frozenset({9}))
        (None, 4)
        """
        if self.cued < CUE_FRAMES:
            return None
        counts = {cell: n for cell, n in self.changes.items() if cell not in aside}
        steady = [cell for cell, n in counts.items() if n >= STEADY * self.cued]
        stray = [cell for cell, n in counts.items() if STRAY * self.cued < n < STEADY * self.cued]
        return steady[0] if len(steady) == 1 and not stray else None

    def unchanged_beside(self, new: frozenset[int], aside: frozenset[int]) -> frozenset[int]:
        """The cells the time cue saw change in no frame compared, when it saw every ``new``
        tile's cell change in nearly all (STEADY) and no other but ``aside`` in more than
        STRAY of them: the tile is where the classifier and the time cue both put it, and a
        cell doubted beside it that looks as it did before the hand holds no tile (a dimmed
        region's noise, not a placement). None otherwise."""
        if not new or self.cued < CUE_FRAMES or \
                any(self.changes[cell] < STEADY * self.cued for cell in new) or \
                any(n > STRAY * self.cued for cell, n in self.changes.items()
                    if cell not in new | aside):
            return frozenset()
        return frozenset(cell for cell in self.uncertain if self.changes[cell] == 0)

    def _read_empty(self, cell: int) -> bool:
        return self.occupied[cell] + self.uncertain[cell] < self.frames

    def breaks(self, reading: Reading) -> bool:
        """Whether ``reading`` reads a tile where the run read empty, or empty where it read a tile."""
        if any(self._read_empty(cell) for cell in reading.occupied):
            return True
        return any(cell not in reading.occupied and cell not in reading.uncertain
                   for cell in self.occupied)

    def settled(self) -> tuple[frozenset[int], frozenset[int]]:
        """The cells settled as tiles, and those undecided in every frame."""
        tiles = frozenset(self.occupied)
        undecided = frozenset(c for c, n in self.uncertain.items() if n == self.frames)
        return tiles, undecided

    def weak(self, cell: int) -> bool:
        """A tile read undecided more often than as a tile: not yet enough to commit it."""
        return self.occupied[cell] < self.uncertain[cell]

    def wavering(self) -> frozenset[int]:
        """Cells read undecided in at least half the run's frames, and never as a tile, since
        the run held: once so, for the rest of the run (a tile the classifier barely sees,
        read empty now and then, must not let its neighbour be committed alone)."""
        self.wavered |= {c for c, n in self.uncertain.items()
                         if 2 * n >= self.frames and not self.occupied[c]}
        return frozenset(c for c in self.wavered if not self.occupied[c])


class StabilityTracker:
    """Turns a stream of readings into commits and warnings (see the module's docstring)."""

    def __init__(self, hold: float = HOLD, label: Callable[[int], str] = str) -> None:
        self.hold = hold
        self.label = label
        self.restart()

    def restart(self) -> None:
        """Forget the reference and everything seen: the next still board is a new reference.

        For a stream that broke off (a camera back after a fault): what the
        board was before says nothing certain about it now.
        """
        self.reference: frozenset[int] | None = None
        #: Cells undecided on the last still board (and not in the reference): nothing is known there.
        self.unknown: frozenset[int] = frozenset()
        #: Unknown cells a hand was over when they went undecided: a tile may lie there.
        self._maybe: frozenset[int] = frozenset()
        #: Cells read undecided in some frame of the last still board compared.
        self._flaky: frozenset[int] = frozenset()
        self._run: _Run | None = None
        #: Cells read as covered (a hand, or a tile under it) with a hand over the board
        #: since the last decision: the only cells where a tile can have come or gone.
        self._touched: set[int] = set()
        self._warned_undecided = False
        #: Doubtful cells given up on when a hand came back, for the next still board's warning.
        self._deferred: frozenset[int] = frozenset()
        #: Cells a hand changed clearly, read empty then: a tile read there later is that
        #: placement's, read late (at most LATE_CELLS, the latest).
        self._late: tuple[int, ...] = ()
        #: The time cue of the still board being decided (None: nothing to compare with).
        self._cue: frozenset[int] | None = None
        #: Cells read undecided in some frame of the last still board before a hand came.
        self._doubted: frozenset[int] = frozenset()
        #: Since when no frame could be read at all (None: the last frame was readable).
        self._blind_since: float | None = None
        self._warned_blind = False
        #: Cells decided on (committed, asked, warned about, given up) since the caller last
        #: took a board for the time cue to compare with (:meth:`compared_from_here`): they
        #: show as changed against it, and are not what the next hand did.
        self._aside: frozenset[int] = frozenset()

    @property
    def steady(self) -> bool:
        """Whether the board has stood clear and still for the hold time, up to the last frame."""
        return self._run is not None and self._run.held

    @property
    def touched(self) -> bool:
        """Whether a hand has been over some cell since the last decision (one is pending)."""
        return bool(self._touched)

    def compared_from_here(self) -> None:
        """The time cue's readings will compare with the board as it stands now, every
        decision so far in it (the Watcher has taken the frame just fed as that board)."""
        self._aside = frozenset()

    def feed(self, frame: int, time: float, reading: Reading) -> list[Decision]:
        """Take one frame's reading; return what was decided at this frame."""
        if not reading.readable:
            # Ending the still board here would make every decision wait a whole hold
            # after each such frame (a washed-out board on the edge of readable gives them
            # every few frames). Nothing is lost by skipping it: a tile put down or taken
            # meanwhile is read as a change by the next readable frame, which ends the run.
            return self._unreadable(frame, time)
        self._blind_since, self._warned_blind = None, False
        if not reading.clear:
            if self._run is not None and self._run.doubt is not None and \
                    not self._warned_undecided:
                # A hand is back before the doubt was settled: the next placement must not
                # wait on it (its tile came after the doubt). Settle it now; tell the table
                # at the next still board (never with a hand over the board).
                self._deferred |= self._settle_doubt(*self._run.doubt)
            if self._run is not None:
                self._doubted = frozenset(self._run.uncertain)
            self._run = None
            # Cells read as tiles, and cells read undecided under the hand that the still board
            # before it read clearly (a tile put down in the hand's shadow may read so until
            # the hand leaves). A cell already hard to read then is no evidence of a hand.
            self._touched |= reading.occupied | \
                (reading.uncertain - self._doubted - self.unknown - self._flaky)
            return []
        run = self._run
        if run is None or run.breaks(reading):
            if run is not None and not run.held:
                # A hand the classifier took for a clear board: frames changing several
                # cells at once that never stood still. (A still board is not a hand.)
                self._touched |= run.busy
            run = self._run = _Run(time, reading)
            self._warned_undecided = False
        else:
            run.add(reading)
        if self.reference is not None and \
                len((reading.occupied - self.reference) |
                    (self.reference - reading.occupied - reading.uncertain)) > BUSY:
            run.busy |= reading.occupied
        if time - run.since < self.hold:
            return []
        run.held = True
        told = self._tell_deferred(frame)
        self._cue = run.changed
        return told + self._decide(frame, time, run)

    def _unreadable(self, frame: int, time: float) -> list[Decision]:
        """Nothing to decide on; once no frame has been readable for UNDECIDED seconds, the
        table is told (once) why placements are not seen, and what to do."""
        if self._blind_since is None:
            self._blind_since = time
        if self._warned_blind or time - self._blind_since < UNDECIDED:
            return []
        self._warned_blind = True
        return [Decision(frame, "warning", message=Message(
            "cannot read the board: too much glare, too dark or out of focus; move the lamp or "
            "check the camera, or enter tiles by hand"))]

    def _decide(self, frame: int, time: float, run: _Run) -> list[Decision]:
        tiles, undecided = run.settled()
        if self.reference is None:
            if run.compared is None:
                run.compared = (tiles, undecided)
                self.reference, self.unknown = tiles, undecided
                self._flaky = frozenset(run.uncertain) - tiles
                self._touched = set()
                return [Decision(frame, "reference", message=f"{len(tiles)} tiles on the board")]
            return []
        known = self.reference | self.unknown | self._flaky
        # A cell a hand was over that may newly hold a tile blocks any decision until a
        # frame reads it: committing another cell could commit a neighbour misread for it.
        doubtful = ((undecided | run.wavering()) - known) & self._touched | \
            self._hidden(run, tiles, undecided)
        doubtful -= run.unchanged_beside(frozenset((tiles - self.reference - self.unknown) &
                                                   self._touched), self._aside)
        # A new tile read undecided more often than not may yet turn out to be a misreading.
        weak = {c for c in (tiles - self.reference - self.unknown) & self._touched if run.weak(c)}
        run.doubt = None
        if doubtful or weak:
            asked = self._ask(frame, time, run, frozenset(doubtful | weak), tiles, undecided)
            if asked:
                return asked
            run.doubt = (frozenset(doubtful | weak), tiles, undecided)
            return self._undecided(frame, time, run, frozenset(doubtful | weak), tiles, undecided)
        if run.compared == (tiles, undecided):
            return []
        run.compared = (tiles, undecided)
        # A cell read undecided on a still board (a glare spot, a cell a knock left a
        # little off) is known to be hard to read: a hand passing over it later should not
        # hold every decision back while it stays so (that is for cells read empty before).
        self._flaky = frozenset(run.uncertain) - tiles
        return self._compare(frame, tiles, undecided)

    def _hidden(self, run: _Run, tiles: frozenset[int], undecided: frozenset[int]) -> frozenset[int]:
        """Cells read undecided on the still board before (a glare spot) that a hand was over
        and that still read undecided: a tile put down there cannot be told from the spot.

        Where the time cue saw such a cell change clearly, a new tile beside it is not
        committed alone: it holds the decision back as any doubtful cell does. Elsewhere it
        does not (a glare spot a hand passed over on its way must not hold back every
        placement beside it).
        """
        reference = self.reference or frozenset()
        hidden = ((undecided | run.wavering()) & self._flaky & self._touched) - reference - \
            self.unknown
        new = (tiles - reference - self.unknown) & self._touched
        return hidden & set(run.changes) if new else frozenset()

    def _ask(self, frame: int, time: float, run: _Run, doubtful: frozenset[int],
             tiles: frozenset[int], undecided: frozenset[int]) -> list[Decision]:
        """The time cue's verdict on one doubtful cell: a tile to ask about, or nothing yet.

        Asked only when that cell is the one cell of the whole board that
        changed clearly since the still board before the hand, in at least
        STEADY of the frames compared with no other in more than STRAY of them
        (a cup, a shadow or a lamp changes several; the cells decided since
        that board are left out), and the board as read shows no other change
        where the hand was. Never a commit: the table confirms.
        """
        cell = run.singled_out(self._aside)
        if time - run.since < ASK or cell is None or doubtful != {cell} or \
                cell not in self._touched:
            return []
        reference = self.reference or frozenset()
        others = ((tiles - reference - self.unknown - {cell}) |
                  (reference - tiles - undecided)) & self._touched
        if others:
            return []
        self._flaky = frozenset(run.uncertain) - tiles - {cell}
        run.compared = (tiles, undecided)
        decided = self._compare(frame, tiles | {cell}, undecided - {cell})
        return [Decision(d.frame, "doubt", d.cell, new=d.new, reason=UNSURE)
                if d.kind == "commit" else d for d in decided]

    def _undecided(self, frame: int, time: float, run: _Run, doubtful: frozenset[int],
                   tiles: frozenset[int], undecided: frozenset[int]) -> list[Decision]:
        if self._warned_undecided or time - run.since < UNDECIDED:
            return []
        self._warned_undecided = True
        run.compared, run.doubt = (tiles, undecided), None
        return [self._doubt_warning(frame, self._settle_doubt(doubtful, tiles, undecided))]

    def _settle_doubt(self, doubtful: frozenset[int], tiles: frozenset[int],
                      undecided: frozenset[int]) -> frozenset[int]:
        """Give up on ``doubtful`` cells: the board as read becomes the reference."""
        # Nothing is committed (a new tile beside a doubtful cell may be a neighbour
        # misread for it); the doubtful cells become unknown, so they no longer hold
        # every decision back.
        reference = self.reference or frozenset()
        touched = frozenset(self._touched)
        self._touched = set()
        gone = (reference - tiles - undecided) & touched
        self.reference = (reference - gone) | ((tiles - reference) & (touched | self.unknown))
        self.unknown = ((self.unknown & undecided) | doubtful) - self.reference
        self._maybe = (self._maybe | doubtful) & self.unknown
        self._aside |= doubtful
        return doubtful

    def _doubt_warning(self, frame: int, doubtful: frozenset[int]) -> Decision:
        cells = ", ".join(self.label(c) for c in sorted(doubtful))
        said = Message("cannot tell whether {cells} holds a tile: check the light, or enter it by "
                       "hand", cells=cells) if len(doubtful) == 1 else \
            Message("cannot tell whether {cells} hold a tile: check the light, or enter it by hand",
                    cells=cells)
        return Decision(frame, "warning", message=said)

    def _tell_deferred(self, frame: int) -> list[Decision]:
        if not self._deferred:
            return []
        deferred, self._deferred = self._deferred, frozenset()
        return [self._doubt_warning(frame, deferred)]

    def _compare(self, frame: int, tiles: frozenset[int],
                 undecided: frozenset[int]) -> list[Decision]:
        reference = self.reference or frozenset()
        touched = frozenset(self._touched)
        self._touched = set()
        # A tile where a cell was unknown was there all along (or cannot be told from one
        # that was): take it in without a commit. An undecided cell keeps what it was.
        appeared = tiles & self.unknown
        # A tile on a cell an earlier hand changed (or left doubtful) is that placement's,
        # read late: asked about on its own, before what this hand did, never counted new now.
        late = sorted((tiles & (self._maybe | set(self._late))) - reference)
        appeared -= set(late)
        # A cell that may have got a tile and is read empty after a hand was over it may
        # have lost it: a tile turning up elsewhere then is a move, not a placement.
        cleared = self._maybe - tiles - undecided
        # Changes only count where a hand was: elsewhere they are misreadings.
        new = sorted((tiles - reference - appeared - set(late)) & touched)
        gone = sorted(((reference - tiles - undecided) | cleared) & touched)
        if len(new) + len(gone) + len(late) > MANY:
            # Not placements (a lamp, a knock): no tile is asked about, late or not.
            new, late = sorted(set(new) | set(late)), []
        self._remember_missed(touched, tiles, undecided, reference, new)
        self.reference = (reference | appeared | frozenset(new) | frozenset(late)) - frozenset(gone)
        self.unknown = (self.unknown & undecided) - tiles
        self._maybe &= self.unknown
        self._late = tuple(c for c in self._late if c not in self.reference)
        self._aside |= frozenset(new) | frozenset(gone) | frozenset(late)
        asked = [Decision(frame, "doubt", cell, new=(cell,), reason=LATE) for cell in late]
        if not new and not gone:
            return asked
        if len(new) == 1 and not gone:
            return asked + [Decision(frame, "commit", new[0], new=(new[0],))]
        # Anything else is not one placement: say what changed, commit nothing.
        return asked + [Decision(frame, "warning", message=self._describe(new, gone),
                                 new=tuple(new), gone=tuple(gone))]

    def _remember_missed(self, touched: frozenset[int], tiles: frozenset[int],
                         undecided: frozenset[int], reference: frozenset[int],
                         new: list[int]) -> None:
        """A hand that left no new tile, but clearly changed one cell read empty: a tile
        the classifier missed, perhaps. Kept (bounded) for when it is read after all."""
        if self._cue is None or new:
            return
        missed = (self._cue & touched) - tiles - undecided - reference
        if len(missed) == 1:
            self._late = (tuple(c for c in self._late if c not in missed) +
                          tuple(missed))[-LATE_CELLS:]

    def _describe(self, new: list[int], gone: list[int]) -> Message:
        names = lambda cells: ", ".join(self.label(c) for c in cells)  # noqa: E731
        if len(new) + len(gone) > MANY:
            return Message("{count} cells changed at once ({new} new, {gone} gone): not a placement "
                           "(did the light change or the board move?)", count=len(new) + len(gone),
                           new=len(new), gone=len(gone))
        if len(new) == 1 and len(gone) == 1:
            return Message("a tile moved from {old} to {new}: not committed", old=names(gone),
                           new=names(new))
        if new and len(gone) == 1:
            return Message("{count} new tiles at once ({cells}) and tile gone from {gone}: not "
                           "committed; place one tile at a time", count=len(new), cells=names(new),
                           gone=names(gone))
        if new and gone:
            return Message("{count} new tiles at once ({cells}) and tiles gone from {gone}: not "
                           "committed; place one tile at a time", count=len(new), cells=names(new),
                           gone=names(gone))
        if new:
            return Message("{count} new tiles at once ({cells}): not committed; place one tile at "
                           "a time", count=len(new), cells=names(new))
        if len(gone) == 1:
            return Message("tile gone from {cells}: not committed; put it back, or undo its "
                           "placement", cells=names(gone))
        return Message("tiles gone from {cells}: not committed; put it back, or undo its "
                       "placement", cells=names(gone))
