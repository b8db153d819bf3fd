"""Which cells hold a tile, and whether anything is over the board: one rectified frame.

Every cell of the rectified frame is compared with the same cell of the empty
board (the calibration's reference), never judged by brightness alone:

* structure: the normalised correlation of the cell's edges (gradients) with
  the empty cell's, after each cell's smooth trend (a quadratic in light) is
  taken out. A tile hides the printed cell and shows its own outline and
  print; light that changes smoothly over a cell (a lamp, a shadow's soft
  edge, a glare spot) barely moves it, and a change of gain not at all. It is
  judged against the frame's typical bare cell: blur, noise and JPEG lower
  every cell's correlation alike, a tile only its own;
* edge energy: the cell's edge strength against the empty cell's under the
  same light: a low-contrast tile whose bold label lines up with the board's
  thin one still adds edges;
* colour: the cell's chroma against the empty cell's, after the whole board's
  colour cast is taken out;
* brightness: the cell's brightness against the empty cell's, relative to the
  light falling on the board around it, which the ring of board outside the
  grid measures (no tile ever lies there).

A cell clearly like the empty board is empty, clearly unlike it occupied, and
anything in between (a glare spot that burns out the print, a faint change of
light and edges) is reported as uncertain rather than guessed
(:mod:`calibration.cellcues` turns the measures into these verdicts).

The board is *clear* when the ring around the grid looks as it did when it was
empty (after the same light correction): a hand, an arm, a sleeve or a
leaning player's shadow always crosses that ring to reach the cells. A sleeve
the colour of the board, or one in a dim room, can pass the ring unseen, so the
board must also keep every printed border between cells and around the grid:
a tile covers most of its cell but leaves the border showing beside its own
edge, while a hand, an arm or a sleeve hides it under a plain surface.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Collection

import cv2
import numpy as np

from calibration.calfile import Calibration, CalibrationError
from calibration.cellcues import (  # noqa: F401  (the verdicts' thresholds, named here too)
    BOARD_BRIGHTNESS,
    BOARD_CHROMA,
    DEGRADED,
    EMPTY_LOSS,
    GAP_FLOOR,
    GLARE_BRIGHTNESS,
    PARTLY_SATURATED,
    SATURATED,
    TILE_LOSS,
    Cues,
    decide,
    gap_energy,
    dimmed,
    faintest,
    gap_samples,
    narrowed,
)
from calibration.tone import board_contrast, board_light, quadratic_basis, residual_cast, smooth_light
from tabletop.messages import Message

#: Radius (board units) of the disc sampled in each cell: inside the cell's outline.
SAMPLE_RADIUS = 0.40
#: ... and of its middle, where a tile's label lies: a neighbour's shadow never reaches it.
INNER_RADIUS = 0.28
#: Every STRIDE-th pixel each way is sampled: a quarter of the work, the same verdicts.
STRIDE = 2
#: Colour is averaged over whole cells: it is read from the frame shrunk this many times.
COLOUR_SHRINK = 4
#: The typical bare cell's correlation is capped here (a sharp frame is not held to 1.0).
TYPICAL_CAP = 0.99
#: Bare cells (to judge the frame by) have edge energy within this factor of the empty cell's.
BARE_ENERGY = 1.4
#: The least edge strength (grey levels a pixel, rms) an empty cell is credited with.
ENERGY_FLOOR = 1.0
#: The best-matching few cells of any readable frame show the empty board this well
#: (every board keeps some empty cells): below it the frame is too blurred or
#: washed out to read, and every cell is uncertain.
READABLE, READABLE_PERCENTILE = 0.88, 95
#: ... of what this table's frames can attain: a table whose best frame read so far matched
#: its empty board less than ATTAINABLE (its calibration photo a little blurred or shaken, its
#: lens softer there) holds every frame to READABLE times that share of ATTAINABLE. A
#: nuisance (noise, JPEG) lowers every correlation by its own factor, whatever the table's.
ATTAINABLE = 0.99
#: A crowded board (fewer than CROWDED of its cells bare) is judged readable from the cells
#: known to be bare (the caller's ``bare``): the percentile of every cell would then fall on
#: a tile, which never matches the empty board. (Below 20 of them the best is taken, so
#: the one just covered by a tile does not count; with one or none left, nothing can.)
CROWDED = 0.2
#: A frame whose typical cell keeps less than this share of the empty cell's edge
#: strength (even against the blurriest reference) is too blurred to read.
BLURRED_ENERGY = 0.65
#: Extra smoothing of the reference tried against each frame, to match the camera's focus.
REFERENCE_BLURS = (0.0, 1.2, 2.4, 3.6)
#: Ring blocks (board units a side) and how unlike the empty ring one may be while clear.
RING_BLOCK = 1.0
#: A ring block needs this share of a block's area in ring pixels to be judged.
RING_SHARE = 0.15
RING_CHROMA = 16.0
RING_BRIGHTNESS = 0.3
RING_EDGES = 8.0
#: Smoothing (rectified pixels) before edges are compared: camera blur then matters little.
BLUR = 1.0
#: Cells and ring blocks within this distance (board units) tell the light on a cell.
LIGHT_RADIUS = 1.6
#: Where the bare cells within LIGHT_RADIUS match a blurrier reference better by
#: REGION_GAIN, the region is that blurred (the sharpest within REGION_SLACK of
#: their best): a cell there that is no tile against it is doubted, not a tile.
REGION_SLACK, REGION_GAIN = 0.02, 0.03
#: A border keeping less than this share of the frame's typical border's edges is hidden.
BLANK_GAP = 0.25
#: The typical border is not taken weaker than this share of the empty one's (a hand
#: over half the board must not make its own borders typical).
TYPICAL_GAP = 0.5
#: This many hidden borders and the board is not clear. One: no light, blur or noise
#: of the benchmark hides a whole border, and an arm reaching a corner cell may hide
#: no more than the grid's outline beside it (a hand over the board hides dozens).
HIDDEN_BORDERS = 1
#: Who decides each cell: "hand" (the thresholds above) or "learned" (calibration/learned.py,
#: which takes this classifier's measures and the cells' patches). The environment's
#: TABLETOP_CLASSIFIER chooses where the caller does not.
CLASSIFIERS = ("hand", "learned")
DEFAULT_CLASSIFIER = "hand"


@dataclass(frozen=True)
class CellReading:
    """One frame's verdict: occupied and uncertain cells, whether the board is clear, and why."""

    occupied: frozenset[int]
    uncertain: frozenset[int]
    clear: bool
    structure: np.ndarray       # per cell, edge correlation with the empty cell
    chroma: np.ndarray          # per cell, chroma shift from the empty cell (Lab units)
    brightness: np.ndarray      # per cell, brightness ratio to the empty cell, light removed
    ring_unlike: int            # ring blocks that do not look like the empty ring
    energy: np.ndarray | None = None  # per cell, edge strength over the empty cell's, light removed
    hidden_borders: int = 0     # printed borders between or around cells hidden under something
    #: read below the readable bar, in part (:func:`calibration.cellcues.narrowed`)
    degraded: bool = False


class TileClassifier:
    """Reads rectified frames of one calibrated table (see the module's docstring)."""

    def __init__(self, calibration: Calibration, classifier: str | None = None) -> None:
        self.calibration = calibration
        self.kind = chosen_classifier(classifier)
        reference = calibration.reference
        height, width = reference.shape[:2]
        self._cells = _cell_samples(calibration, width, height)
        self._trend = _trend_basis(calibration)
        self._inner = _inner_columns(calibration)
        self._colour_cells = _cell_samples(calibration, width // COLOUR_SHRINK,
                                           height // COLOUR_SHRINK, COLOUR_SHRINK, 1)
        labels, self._ring_blocks = _ring_blocks(calibration, width, height)
        # Only ring pixels on the sampling lattice are read each frame.
        lattice = np.zeros((height, width), bool)
        lattice[::STRIDE, ::STRIDE] = True
        self._ring_pixels = np.flatnonzero((labels >= 0) & lattice.ravel())
        self._ring_labels = labels[self._ring_pixels]
        self._ring_counts = np.maximum(np.bincount(self._ring_labels, minlength=self._ring_blocks), 1)
        # The ring's colour is read from the shrunk image: each small pixel takes its centre's block.
        small_w, small_h = width // COLOUR_SHRINK, height // COLOUR_SHRINK
        ys, xs = np.mgrid[0:small_h, 0:small_w]
        centres = (ys * COLOUR_SHRINK + COLOUR_SHRINK // 2) * width + xs * COLOUR_SHRINK + COLOUR_SHRINK // 2
        small_labels = labels[centres.ravel()]
        self._ring_small = np.flatnonzero(small_labels >= 0)
        self._ring_small_labels = small_labels[self._ring_small]
        self._ring_small_counts = np.maximum(
            np.bincount(self._ring_small_labels, minlength=self._ring_blocks), 1)
        grey, small = _split(reference)
        gx, gy, lab = _planes(grey, small)
        self._gaps, self._gap_sides = gap_samples(calibration, width, height)
        self._bank = self._references()
        self._ref_grads, self._ref_norms, self._ref_energy, self._ref_gap = self._bank
        # (the middles of the empty cells, at every blur, once: each frame compares its own)
        self._inner_refs = [(g[:, self._inner], _norm(_power(g[:, self._inner]), int(self._inner.sum())))
                            for g in self._ref_grads]
        self._ref_lab = _cell_means(lab, self._colour_cells)
        self._ref_burnt = (grey.ravel()[self._cells] >= SATURATED).mean(axis=1)
        self._ref_ring = self._ring_means(lab)
        self._ref_ring_grad = self._ring_energy(gx, gy)
        near, block_xy = _neighbourhoods(calibration, labels, self._ring_blocks, width)
        self._near = near.astype(np.float64)   # (a float matrix: two matrix-vector products a frame)
        self._light_basis = quadratic_basis(block_xy)
        cells = calibration.layout.size
        region = near[:, :cells] | np.eye(cells, dtype=bool)
        # (cells, cells): column c averages the cells within LIGHT_RADIUS of cell c, c included
        self._region = (region / region.sum(axis=0)).astype(np.float32)
        self.cells = None   # a calibration.learned.LearnedCells deciding the cells, or None
        self.attained = 0.0                     # the best readable frame's match so far
        self.faint: float | None = None         # ... and its faintest tile (cellcues.faintest)
        self.last_cues: Cues | None = None      # the last frame's measures and verdicts, for a
        self.last_verdicts = None               # benchmark to say why cells were left uncertain
        if self.kind == "learned":
            from calibration.learned import CellModel, learned_cells  # loaded only when chosen
            self.cells = learned_cells(self, CellModel.load())

    def _references(self) -> tuple[list, list, list, np.ndarray]:
        """The empty board's cell gradients, their norms and energies and its borders' energies,
        at every blur of REFERENCE_BLURS."""
        reference = self.calibration.reference
        softened = [_planes(*_split(_soften(reference, sigma)))[:2] for sigma in REFERENCE_BLURS]
        grads = [_gradients(*planes, self._cells, self._trend) for planes in softened]
        # (floored: a border printed faintly cannot tell a plain surface from itself)
        gap = np.stack([np.maximum(gap_energy(*planes, self._gaps), GAP_FLOOR) for planes in softened])
        # (floored: a blank cell would make any speck of noise look like print)
        energy = [np.maximum(np.sqrt((g ** 2).mean(axis=1)), ENERGY_FLOOR) for g in grads]
        return grads, [_norm(_power(g), g.shape[1]) for g in grads], energy, gap

    def read(self, rectified: np.ndarray) -> CellReading:
        """The verdict on one rectified frame (BGR, the reference's size)."""
        return self.read_planes(*_split(rectified))

    def read_planes(self, grey: np.ndarray, small: np.ndarray,
                    bare: Collection[int] | None = None) -> CellReading:
        """The verdict from the rectified frame in grey and in colour shrunk COLOUR_SHRINK times.

        What :meth:`read` sees, for a stream that warps the two straight from the
        camera's frame (:meth:`calibration.warp.Rectifier.planes`), which is cheaper
        than warping the whole frame in colour. ``bare``: cells a caller knows to be
        empty (a tracker's board), by which a crowded board is told readable.
        """
        self.last_cues = self.last_verdicts = None
        ref_grads, ref_norms, ref_energy, ref_gap = self._bank
        gx, gy, lab = _planes(grey, small)
        ring = self._ring_means(lab)
        gain, cast = board_light(ring, self._ref_ring)
        ring_unlike = self._ring_unlike(ring, gain, cast, gx, gy)
        means = _cell_means(lab, self._colour_cells)
        current = _gradients(gx, gy, self._cells, self._trend)
        # The reference blurred as much as this frame is: the best match over the board.
        power = _power(current)
        norm = _norm(power, current.shape[1])
        candidates = [np.einsum("ij,ij->i", current, ref) / (norm * ref_norm)
                      for ref, ref_norm in zip(ref_grads, ref_norms)]
        pool = _readable_pool(bare, len(candidates[0]))
        if len(pool) > 1:
            rank = int(len(pool) * READABLE_PERCENTILE / 100)
            scores = [float(np.partition(c[pool], rank)[rank]) for c in candidates]
        else:
            # The last bare cell, or none: nothing left to judge the frame by (the one
            # cell may be the tile just placed). Read it against the sharpest reference.
            scores = [1.0] + [0.0] * (len(candidates) - 1)
        # Blurring flatters every cell a little: take the sharpest reference that
        # matches nearly as well as the best, or a tile's fine print is lost.
        best = max(scores)
        chosen = next(i for i, score in enumerate(scores) if score >= best - 0.02)
        structure = candidates[chosen]
        # Below the bar a frame is read in part (cellcues.narrowed), and not at all far below
        # it. (A learned decider judges such a frame cell by cell: it was trained on them.)
        degraded = best < self.readable_bar() and self.cells is None
        if degraded and best < DEGRADED:
            return _unread(structure, np.zeros(len(structure)), np.zeros(len(structure)))
        shift = means[:, 1:] - self._ref_lab[:, 1:] - cast
        chroma = np.hypot(*shift.T)
        cell_gain = means[:, 0] / np.maximum(self._ref_lab[:, 0], 1.0)
        ring_gain = ring[:, 0] / np.maximum(self._ref_ring[:, 0], 1.0)
        light = self._local_gain(cell_gain, ring_gain, structure, gain)
        brightness = cell_gain / light - 1.0
        # Edge strength against the empty cell's, under the same light: a tile's bold
        # print and outline add edges even where they line up with the board's print.
        energy = np.sqrt(power / current.shape[1]) / ref_energy[chosen] / light
        # (a frame the sharpest reference matches best is not blurred: its edges are only
        # fainter, a dimmer light or a burnt-out board, which the correlation ignores)
        if chosen > 0 and float(np.median(energy)) < BLURRED_ENERGY:
            # Blurrier than the blurriest reference: the smooth remains still correlate,
            # but the edges that tell a tile are gone. Nothing can be read.
            return _unread(structure, chroma, brightness, energy)
        if len(pool) > 1 and not degraded:  # (judged by its bare cells: what the table attains)
            self.attained = max(self.attained, best)
        # (the learned decider was trained on the energy against the empty cell's alone)
        raw_energy = energy
        contrast = board_contrast(energy, structure, chroma / BOARD_CHROMA +
                                  np.abs(brightness) / BOARD_BRIGHTNESS, pool, BARE_ENERGY)
        if contrast > 1.0:
            # (the empty board's picture unlike this frame's board everywhere: its colour too)
            energy = energy / contrast
            chroma = np.hypot(*(shift - residual_cast(shift[pool])).T)
        board_colour = (chroma < BOARD_CHROMA) & (np.abs(brightness) < BOARD_BRIGHTNESS)
        # How well this frame's bare cells match at all (blur, noise, JPEG lower every
        # cell alike): judged from the cells whose colour and edge strength are the board's.
        bare = board_colour & (energy > 1 / BARE_ENERGY) & (energy < BARE_ENERGY)
        typical = min(float(np.median(structure[bare])), TYPICAL_CAP) if bare.sum() >= 5 else TYPICAL_CAP
        loss = typical - structure
        burnt = (grey.ravel()[self._cells] >= SATURATED).mean(axis=1) if grey.max() >= SATURATED \
            else np.zeros(len(structure))
        # Where a region is blurrier than the frame's choice, a cell that matches the empty
        # board as blurred as its region as well as bare cells do is only doubted, never a tile.
        stack = np.stack(candidates)
        focus = self._focus(stack, chosen, bare)
        blurred = np.zeros(len(structure), bool)
        if (focus > chosen).any():
            regional = np.minimum(np.median(stack[:, bare], axis=1), TYPICAL_CAP)
            cells = np.arange(len(structure))
            blurred = (focus > chosen) & (regional[focus] - stack[focus, cells] < TILE_LOSS)
        inner_ref, inner_norm = self._inner_refs[chosen]
        inner_cur = current[:, self._inner]
        inner = np.einsum("ij,ij->i", inner_cur, inner_ref) / (
            _norm(_power(inner_cur), inner_cur.shape[1]) * inner_norm)
        self.last_cues = Cues(loss, structure, energy, chroma, brightness, burnt, blurred,
                              inner, self._glare_near(burnt, brightness, ring_gain / gain),
                              self._ref_burnt, dimmed(self._near[:, :len(burnt)], burnt,
                                                      self._ref_burnt))
        verdicts = self.last_verdicts = decide(self.last_cues)
        if degraded:
            verdicts = self.last_verdicts = narrowed(self.last_cues, verdicts, self.faint)
            if verdicts is None:
                return _unread(structure, chroma, brightness, energy)
        elif self.cells is None:
            self.faint = faintest(self.last_cues, verdicts, self.faint)
        tile_like, empty_like = verdicts.tile, verdicts.empty
        hidden = self._hidden_borders(grey, gx, gy, focus, ref_gap)
        if self.cells is not None:
            from calibration.learned import Measures
            # (trained with such tiles doubted, it gets them doubted: its own bar to meet)
            tile_like, empty_like = self.cells.decide(
                Measures(grey, chosen, structure, loss, raw_energy, chroma, brightness, light, burnt,
                         focus > chosen, best), tile_like & ~verdicts.printed, empty_like)
        occupied = np.flatnonzero(tile_like)
        uncertain = np.flatnonzero(~tile_like & ~empty_like)
        clear = ring_unlike == 0 and hidden < HIDDEN_BORDERS
        return CellReading(frozenset(occupied.tolist()), frozenset(uncertain.tolist()), clear,
                           structure, chroma, brightness, ring_unlike, energy, hidden, degraded)

    def readable_bar(self) -> float:
        """How well the best-matching cells must match the empty board for a frame to be read.

        READABLE, or less on a table none of whose frames read so far matched its
        empty board as well as ATTAINABLE: there every frame matches it less by the
        same factor (the calibration photo blurrier than the stream, say), and a
        noisy or compressed frame would fall below READABLE though no worse than on
        any other table. Only a frame read raises it, and the first passed READABLE
        itself: the bar never falls below READABLE * READABLE / ATTAINABLE (0.78).
        """
        if self.attained <= 0.0:
            return READABLE
        return READABLE * min(self.attained / ATTAINABLE, 1.0)

    def _focus(self, stack: np.ndarray, chosen: int, bare: np.ndarray) -> np.ndarray:
        """Per cell, the reference blur its region of the frame matches: ``chosen`` or blurrier.

        Focus is not the same all over the board (its far side is seen at a slant,
        a lens blurs its edges). A region is blurrier where its bare cells (tiles
        match no reference, blurred or not) match a blurrier reference clearly
        better than the frame's choice.
        """
        if bare.sum() < 5:
            return np.full(stack.shape[1], chosen)
        weights = bare.astype(np.float32)
        counts = weights @ self._region
        regional = (stack * weights) @ self._region / np.maximum(counts, 1e-6)
        best = regional.max(axis=0)
        blurrier = (best - regional[chosen] > REGION_GAIN) & (counts > 0.2)
        sharpest = np.argmax(regional >= best - REGION_SLACK, axis=0)
        return np.where(blurrier, np.maximum(sharpest, chosen), chosen)

    def _glare_near(self, burnt: np.ndarray, brightness: np.ndarray,
                    ring_light: np.ndarray) -> np.ndarray:
        """Per cell, whether it or a cell or ring block within LIGHT_RADIUS is under glare:
        partly burnt out, or GLARE_BRIGHTNESS brighter than the light around it (a ring
        block: than the board's). A glare spot's rim reaches past what it lights."""
        lit = (burnt > 0) | (brightness > GLARE_BRIGHTNESS)
        ring_lit = ring_light > 1 + GLARE_BRIGHTNESS
        return lit | (self._near @ np.concatenate([lit, ring_lit]).astype(np.float64) > 0)

    def _hidden_borders(self, grey: np.ndarray, gx: np.ndarray, gy: np.ndarray,
                        focus: np.ndarray, ref_gap: np.ndarray) -> int:
        """How many printed borders (between cells, or of the grid) are hidden under something.

        A tile covers most of its cell but leaves the border showing (with its
        own edge beside it); a hand, an arm or a sleeve hides the line under a
        plain surface. Edge strength is judged against the empty border's,
        blurred as the region of the frame around it is (``focus``, per cell),
        and against the frame's typical border (noise, JPEG and a dim light
        weaken every line alike). Burnt-out borders (glare) say nothing.
        """
        level = focus[self._gap_sides].max(axis=1)
        ratio = gap_energy(gx, gy, self._gaps) / ref_gap[level, np.arange(len(level))]
        typical = min(max(float(np.median(ratio)), TYPICAL_GAP), 1.0)
        hidden = np.flatnonzero(ratio < BLANK_GAP * typical)
        # (only the few hidden ones are checked for glare: most frames have none)
        burnt = (grey.ravel()[self._gaps[hidden]] >= SATURATED).mean(axis=1) >= PARTLY_SATURATED
        return int(len(hidden) - burnt.sum())

    def _ring_means(self, lab: np.ndarray) -> np.ndarray:
        values = lab.reshape(-1, 3)[self._ring_small]
        return np.stack([np.bincount(self._ring_small_labels, values[:, k], minlength=self._ring_blocks)
                         for k in range(3)], axis=1) / self._ring_small_counts[:, None]

    def _ring_energy(self, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
        pixels = self._ring_pixels
        magnitude = np.abs(gx.ravel()[pixels]) + np.abs(gy.ravel()[pixels])
        return np.bincount(self._ring_labels, magnitude, minlength=self._ring_blocks) / self._ring_counts

    def _local_gain(self, cell_gain: np.ndarray, ring_gain: np.ndarray, structure: np.ndarray,
                    overall: float) -> np.ndarray:
        """The light falling on each cell: the mean gain of the bare board around it.

        Around it means ring blocks and cells that still show the empty board's
        print (their edges agree), within LIGHT_RADIUS: a side lamp, vignetting
        and a soft shadow all vary slowly across that distance.
        """
        trusted = np.concatenate([structure > 0.85, np.ones(len(ring_gain), bool)])
        samples = np.concatenate([cell_gain, ring_gain]) * trusted
        counts = self._near @ trusted
        # The mean of the trusted neighbours' gains: they all show bare board.
        local = (self._near @ samples) / np.maximum(counts, 1)
        return np.where(counts > 0, np.maximum(local, 0.05), overall)

    def _ring_unlike(self, ring: np.ndarray, gain: float, cast: np.ndarray,
                     gx: np.ndarray, gy: np.ndarray) -> int:
        gains = ring[:, 0] / np.maximum(self._ref_ring[:, 0], 1.0)
        light = gains / smooth_light(self._light_basis, gains) - 1.0
        colour = np.hypot(*(ring[:, 1:] - self._ref_ring[:, 1:] - cast).T)
        energy = self._ring_energy(gx, gy)
        # Edges where the empty ring had none: the outline of a hand or a sleeve.
        edges = (energy - self._ref_ring_grad) / np.maximum(self._ref_ring_grad, 4.0)
        # Brighter alone is glare, not an arm: an arm or a shadow darkens, colours or outlines.
        unlike = (light < -RING_BRIGHTNESS) | (colour > RING_CHROMA) | (edges > RING_EDGES)
        return int(unlike.sum())


def chosen_classifier(classifier: str | None = None) -> str:
    """``classifier``, else the environment's TABLETOP_CLASSIFIER, else the default; checked."""
    kind = classifier or os.environ.get("TABLETOP_CLASSIFIER") or DEFAULT_CLASSIFIER
    if kind not in CLASSIFIERS:
        raise CalibrationError(Message("unknown cell classifier {kind!r}: choose one of {choices}",
                                       kind=kind, choices=", ".join(CLASSIFIERS)))
    return kind


def _unread(structure: np.ndarray, chroma: np.ndarray, brightness: np.ndarray,
            energy: np.ndarray | None = None) -> CellReading:
    """A frame nothing could be read in: every cell uncertain, the board not clear."""
    everything = frozenset(range(len(structure)))
    return CellReading(frozenset(), everything, False, structure, chroma, brightness, -1, energy)


def _readable_pool(bare: Collection[int] | None, cells: int) -> np.ndarray:
    """The cells whose match to the empty board says whether a frame can be read at all."""
    if bare is not None and len(bare) < CROWDED * cells:
        return np.fromiter(sorted(bare), dtype=np.intp, count=len(bare))
    return np.arange(cells)


def _kernels() -> tuple[np.ndarray, np.ndarray]:
    """The Gaussian (BLUR) smoothing and the 3x3 Sobel taps as one pair of separable kernels."""
    gauss = cv2.getGaussianKernel(int(2 * round(3 * BLUR) + 1), BLUR).ravel()   # (to 3 sigma)
    smooth = np.convolve(gauss, [1.0, 2.0, 1.0]).astype(np.float32)
    derive = np.convolve(gauss, [-1.0, 0.0, 1.0]).astype(np.float32)
    return smooth, derive


_SMOOTH, _DERIVE = _kernels()


def _split(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A rectified BGR frame in grey, and in colour shrunk COLOUR_SHRINK times."""
    height, width = image.shape[:2]
    return (cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
            cv2.resize(image, (width // COLOUR_SHRINK, height // COLOUR_SHRINK),
                       interpolation=cv2.INTER_AREA))


def _planes(grey: np.ndarray, small: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grey frame's smoothed gradients, and Lab of the shrunk colour frame (float32)."""
    # Blur and Sobel in one separable pass each way: half the filtering, no float copy.
    gx = cv2.sepFilter2D(grey, cv2.CV_32F, _DERIVE, _SMOOTH, borderType=cv2.BORDER_REFLECT_101)
    gy = cv2.sepFilter2D(grey, cv2.CV_32F, _SMOOTH, _DERIVE, borderType=cv2.BORDER_REFLECT_101)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
    return gx, gy, lab


def _soften(image: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), sigma) if sigma else image


def _cell_samples(calibration: Calibration, width: int, height: int, shrink: int = 1,
                  stride: int = STRIDE) -> np.ndarray:
    """(cells, points) flat pixel indices of a disc inside every cell (of an image ``shrink`` times smaller)."""
    scale = calibration.scale / shrink
    offsets = _disc(scale, stride)
    centres = (calibration.layout.centres - np.asarray(calibration.origin)) * scale
    points = np.rint(centres[:, None, :] + offsets[None, :, :]).astype(np.int64)
    xs = np.clip(points[..., 0], 0, width - 1)
    ys = np.clip(points[..., 1], 0, height - 1)
    return ys * width + xs


def _disc(scale: float, stride: int) -> np.ndarray:
    """(points, 2) pixel offsets, every ``stride``-th, within SAMPLE_RADIUS of a cell's centre,
    a cell being ``scale`` pixels: one order for every cell's samples and their measures."""
    radius = SAMPLE_RADIUS * scale
    span = np.arange(-int(radius), int(radius) + 1, stride)
    dx, dy = np.meshgrid(span, span)
    inside = dx ** 2 + dy ** 2 <= radius ** 2
    return np.stack([dx[inside], dy[inside]], axis=1)


def _inner_columns(calibration: Calibration) -> np.ndarray:
    """Which of a cell's gradient values (:func:`_gradients`: x then y at every sample) lie
    within INNER_RADIUS of its centre."""
    offsets = _disc(calibration.scale, STRIDE)
    inner = np.hypot(offsets[:, 0], offsets[:, 1]) < INNER_RADIUS * calibration.scale
    return np.concatenate([inner, inner])


def _trend_basis(calibration: Calibration) -> np.ndarray:
    """(points, 3) orthonormal 1, x, y over a cell's samples: the gradient of light that varies smoothly."""
    radius = SAMPLE_RADIUS * calibration.scale
    offsets = _disc(calibration.scale, STRIDE)
    x, y = offsets[:, 0] / radius, offsets[:, 1] / radius
    basis = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1).astype(np.float64)
    q, _ = np.linalg.qr(basis)
    return q.astype(np.float32)


def _gradients(gx: np.ndarray, gy: np.ndarray, samples: np.ndarray, trend: np.ndarray) -> np.ndarray:
    """(cells, 2*points) gradients at the samples, less each cell's smooth trend.

    A glare spot or a lamp adds light that varies smoothly over a cell: its
    gradient is nearly constant or linear there, and is taken out, leaving the
    print's edges (which a smooth change of light does not move).
    """
    parts = []
    for plane in (gx, gy):
        values = plane.ravel()[samples]
        parts.append(values - (values @ trend) @ trend.T)
    return np.concatenate(parts, axis=1)


def _power(gradients: np.ndarray) -> np.ndarray:
    """Each row's sum of squares (the gradients' energy over a cell)."""
    return np.einsum("ij,ij->i", gradients, gradients)


def _norm(power: np.ndarray, values: int) -> np.ndarray:
    """The norm a correlation divides by, floored (5 grey levels a value): a nearly blank
    cell must not correlate its noise with the board's print."""
    return np.sqrt(np.maximum(power, 25.0 * values))


def _cell_means(lab: np.ndarray, samples: np.ndarray) -> np.ndarray:
    # One channel at a time: gathering whole pixels and averaging across them is 4x slower.
    return np.stack([lab[..., k].ravel()[samples].mean(axis=1) for k in range(3)], axis=1)


def _ring_blocks(calibration: Calibration, width: int, height: int) -> tuple[np.ndarray, int]:
    """A block number for every ring pixel (-1 elsewhere) and the number of blocks."""
    scale = calibration.scale
    cells = np.zeros((height, width), np.uint8)
    origin = np.asarray(calibration.origin)
    layout = calibration.layout
    for cell in range(layout.size):
        polygon = (layout.polygon(cell) - origin) * scale
        cv2.fillPoly(cells, [np.rint(polygon).astype(np.int32)], 255)
    # Keep well clear of the cells: a tile's shadow and a slightly wrong grid stay out of the ring.
    gap = int(round(0.15 * scale))
    cells = cv2.dilate(cells, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * gap + 1, 2 * gap + 1)))
    ring = cells == 0
    block = max(int(round(RING_BLOCK * scale)), 1)
    ys, xs = np.mgrid[0:height, 0:width]
    # Blocks run along each side of the ring (a pixel belongs to the nearest edge of the
    # image): a side as thin as a hex board's bottom strip still gets its blocks, and an
    # arm must cross one of them to reach the cells.
    side = np.argmin(np.stack([ys, height - 1 - ys, xs, width - 1 - xs]), axis=0)
    along = np.where(side < 2, xs, ys) // block
    ids = side * (max(width, height) // block + 1) + along
    labels = np.where(ring, ids, -1).ravel()
    # Renumber the blocks that hold enough ring to judge.
    counts = np.bincount(labels[labels >= 0], minlength=int(ids.max()) + 1)
    keep = counts >= RING_SHARE * block * block
    renumber = np.full(len(counts), -1)
    renumber[keep] = np.arange(int(keep.sum()))
    labels = np.where(labels >= 0, renumber[np.maximum(labels, 0)], -1)
    return labels, int(keep.sum())


def _neighbourhoods(calibration: Calibration, labels: np.ndarray, blocks: int,
                    width: int) -> np.ndarray:
    """(cells, cells + blocks) True where a cell or ring block lies near a cell."""
    centres = calibration.layout.centres
    inside = labels >= 0
    where = np.flatnonzero(inside)
    counts = np.maximum(np.bincount(labels[inside], minlength=blocks), 1)
    xs = np.bincount(labels[inside], where % width, minlength=blocks) / counts
    ys = np.bincount(labels[inside], where // width, minlength=blocks) / counts
    block_centres = np.stack([xs, ys], axis=1) / calibration.scale + np.asarray(calibration.origin)
    points = np.concatenate([centres, block_centres])
    distance = np.linalg.norm(centres[:, None, :] - points[None, :, :], axis=2)
    near = distance <= LIGHT_RADIUS
    near[np.arange(len(centres)), np.arange(len(centres))] = False  # not the cell itself
    return near, block_centres
