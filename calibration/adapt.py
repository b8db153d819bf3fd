"""Learning the table: what a tile and a bare cell look like on this very board, from the game's record.

Every CONFIRM is a labelled example: the game's record says which cells hold
a tile and which are bare, and a still, clear frame after it shows how each
looks under this table's light, print and camera. :class:`TableLooks` keeps a
bounded summary of those examples (the latest features of each cell as a
tile and as bare board: two arrays of the board's size, whatever the length
of the game) and, from it, decides some of the cells the classifier left
*uncertain*:

* a tile, when the cell's features lie inside the confirmed tiles' spread and
  far outside the bare cells' (by robust statistics: medians and median
  absolute deviations, so that a few wrong labels cannot move them);
* bare board, the other way round.

Never a cell the classifier decided, never on a frame that is not clear, and
only with enough examples of both (at least MIN_TILES confirmed tiles) and
the two clusters far apart (a table whose tiles look like its board teaches
nothing). A label the camera contradicts (the record says a tile, the
classifier reads the bare board; or the reverse) is not learned. The
features are taken relative to the same frame's cells read empty (blur, noise
and light change every cell alike), so that the examples of one frame hold
for the next.

>>> import numpy as np
>>> from calibration.classify import CellReading
>>> def reading(tiles, doubted, cells=40):
...     loss = np.where([c in tiles for c in range(cells)], 0.4, 0.0)
...     loss[list(doubted)] = 0.35
...     energy = np.exp(np.where(loss > 0, 0.4, 0.0))
...     return CellReading(frozenset(tiles), frozenset(doubted), True, 0.95 - loss,
...                        np.zeros(cells), np.where(loss > 0, 0.03, 0.0), 0, energy)
>>> looks = TableLooks(40)
>>> looks.learn(reading({1, 2, 3, 4}, ()), tiles={1, 2, 3, 4}, bare=set(range(5, 40)))
39
>>> looks.decide(reading({1, 2, 3, 4}, {9}), tiles={9}, bare=set())
(frozenset({9}), frozenset())
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from calibration.classify import CellReading

#: The features of a cell (see :func:`features`): the edge correlation it lost against the
#: frame's cells read empty, its chroma shift, its brightness, and its edge energy (log ratio
#: to the frame's cells read empty).
FEATURES = ("loss", "chroma", "brightness", "energy")
#: The least spread (one robust standard deviation) a cluster is credited with in each
#: feature: the renderer's and a camera's bare cells vary by about half of this from frame
#: to frame, so that a handful of examples alike never makes every other cell "far".
FLOORS = np.array([0.03, 1.5, 0.015, 0.06])
#: Confirmed tiles and bare cells needed before anything is decided.
MIN_TILES, MIN_BARE = 3, 12
#: Cells read empty in a frame needed to take features relative to them.
MIN_EMPTY = 8
#: A cell is inside a cluster within INSIDE robust standard deviations (over all features,
#: as a distance), far from it beyond FAR, and RATIO times farther from the other cluster
#: than from its own. On rendered tuning and training tables (640x480, every nuisance) no
#: bare cell the classifier doubted came nearer than 9 to the tiles' cluster while 8 from
#: the bare one; tiles it doubted lay 4-9 from their cluster and 29-82 from the bare one.
INSIDE, FAR, RATIO = 6.0, 8.0, 4.0
#: The clusters' centres must lie this far apart in the bare cells' spread, and in the
#: tiles' (which is wider: tiles differ more from each other than bare cells do), before
#: either is used: a table whose tiles look like its board, or a record whose tiles are
#: bare board, teaches nothing.
APART_BARE, APART_TILE = 10.0, 5.0
#: More labels the camera contradicts than this in one frame, and the frame is not learned
#: from at all (a knocked board, a lamp: the reading, not the record, is off).
CONTRADICTED = 3


def features(reading: CellReading) -> np.ndarray | None:
    """(cells, FEATURES) of one reading, or None when it cannot be judged (too few cells read empty)."""
    if reading.energy is None:
        return None
    cells = len(reading.structure)
    empty = np.ones(cells, bool)
    empty[list(reading.occupied | reading.uncertain)] = False
    if empty.sum() < MIN_EMPTY:
        return None
    structure = np.asarray(reading.structure, np.float64)
    energy = np.maximum(np.asarray(reading.energy, np.float64), 1e-6)
    loss = float(np.median(structure[empty])) - structure
    strength = np.log(energy / float(np.median(energy[empty])))
    out = np.stack([loss, np.asarray(reading.chroma, np.float64),
                    np.asarray(reading.brightness, np.float64), strength], axis=1)
    return out if np.isfinite(out).all() else None


class TableLooks:
    """The per-table model: bounded examples of tiles and bare cells, and the decisions they allow.

    Its size is fixed at creation (``cells`` rows of each kind, see :attr:`nbytes`):
    a cell's newer example replaces its older one, so that the light of the last
    confirmed placements counts, not the whole game's.
    """

    def __init__(self, cells: int) -> None:
        self._tile = np.full((cells, len(FEATURES)), np.nan)
        self._bare = np.full((cells, len(FEATURES)), np.nan)
        self._stats: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        #: Labelled examples taken in, and cells decided (tiles, bare): counts, nothing kept.
        self.examples = 0
        self.decided_tiles = 0
        self.decided_bare = 0

    @property
    def nbytes(self) -> int:
        """The memory the model's examples hold (fixed: it never grows with the game)."""
        return self._tile.nbytes + self._bare.nbytes

    @property
    def tiles_known(self) -> int:
        """How many cells the model holds a confirmed tile's example of."""
        return int(np.isfinite(self._tile[:, 0]).sum())

    @property
    def ready(self) -> bool:
        """Whether the model has enough, well separated examples to decide anything."""
        return self._stats is not None

    def learn(self, reading: CellReading, tiles: Collection[int], bare: Collection[int]) -> int:
        """Take the record's ``tiles`` and ``bare`` cells as they look in a still, clear ``reading``.

        A label the classifier contradicts (a tile read empty, a bare cell read
        as a tile) is skipped; more than CONTRADICTED of them and nothing is
        learned. Returns the examples taken.
        """
        values = features(reading) if reading.clear else None
        if values is None:
            return 0
        tiles, bare = set(tiles), set(bare) - set(tiles)
        seen = reading.occupied | reading.uncertain
        tile_cells = sorted(tiles & seen)
        bare_cells = sorted(bare - reading.occupied)
        if len(tiles) - len(tile_cells) + len(bare) - len(bare_cells) > CONTRADICTED:
            return 0
        self._tile[tile_cells] = values[tile_cells]
        self._bare[bare_cells] = values[bare_cells]
        # A cell the record now says is bare is no longer a tile's example (an UNDO).
        self._tile[sorted(bare)] = np.nan
        self._bare[tile_cells] = np.nan
        self.examples += len(tile_cells) + len(bare_cells)
        self._stats = _clusters(self._tile, self._bare)
        return len(tile_cells) + len(bare_cells)

    def forget(self) -> None:
        """Drop every example (a new table, another calibration)."""
        self._tile[:] = np.nan
        self._bare[:] = np.nan
        self._stats = None

    def decide(self, reading: CellReading, tiles: Collection[int],
               bare: Collection[int]) -> tuple[frozenset[int], frozenset[int]]:
        """The uncertain cells of a clear ``reading`` the examples decide: (tiles, bare).

        ``tiles`` and ``bare``: the cells the caller lets be decided each way
        (the Watcher's time cue and the game's record narrow them).
        """
        if self._stats is None or not reading.clear or not reading.uncertain:
            return frozenset(), frozenset()
        values = features(reading)
        if values is None:
            return frozenset(), frozenset()
        tile_centre, tile_spread, bare_centre, bare_spread = self._stats
        cells = np.fromiter(sorted(reading.uncertain), dtype=np.intp)
        near_tile = _distance(values[cells], tile_centre, tile_spread)
        near_bare = _distance(values[cells], bare_centre, bare_spread)
        as_tile = cells[(near_tile <= INSIDE) & (near_bare >= FAR) & (near_bare >= RATIO * near_tile)]
        as_bare = cells[(near_bare <= INSIDE) & (near_tile >= FAR) & (near_tile >= RATIO * near_bare)]
        decided = (frozenset(int(c) for c in as_tile) & frozenset(tiles),
                   frozenset(int(c) for c in as_bare) & frozenset(bare))
        self.decided_tiles += len(decided[0])
        self.decided_bare += len(decided[1])
        return decided


def _clusters(tile: np.ndarray,
              bare: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Each kind's robust centre and spread, or None: too few examples, or clusters too close."""
    tile, bare = tile[np.isfinite(tile[:, 0])], bare[np.isfinite(bare[:, 0])]
    if len(tile) < MIN_TILES or len(bare) < MIN_BARE:
        return None
    tile_centre, tile_spread = _robust(tile)
    bare_centre, bare_spread = _robust(bare)
    if _distance(tile_centre[None], bare_centre, bare_spread)[0] < APART_BARE or \
            _distance(bare_centre[None], tile_centre, tile_spread)[0] < APART_TILE:
        return None
    return tile_centre, tile_spread, bare_centre, bare_spread


def _robust(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The median and the scaled median absolute deviation of each feature, floored."""
    centre = np.median(values, axis=0)
    spread = 1.4826 * np.median(np.abs(values - centre), axis=0)
    return centre, np.maximum(spread, FLOORS)


def _distance(values: np.ndarray, centre: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Each row's distance from a cluster in its robust standard deviations (all features)."""
    return np.sqrt((((values - centre) / spread) ** 2).sum(axis=1))
