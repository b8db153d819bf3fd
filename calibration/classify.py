"""Which cells hold a tile, and whether anything is over the board: one rectified frame.

Every cell of the rectified frame is compared with the same cell of the empty
board (the calibration's reference), never judged by brightness alone:

* structure: the normalised correlation of the cell's edges (gradients) with
  the empty cell's. A tile hides the printed cell and shows its own outline
  and print; light that changes smoothly over a cell (a lamp, a shadow's soft
  edge, a glare spot) barely moves it, and a change of gain not at all;
* colour: the cell's chroma against the empty cell's, after the whole board's
  colour cast is taken out;
* brightness: the cell's brightness against the empty cell's, relative to the
  light falling on the board around it, which the ring of board outside the
  grid measures (no tile ever lies there).

A cell clearly like the empty board is empty, clearly unlike it occupied, and
anything in between is reported as uncertain rather than guessed.

The board is *clear* when the ring around the grid looks as it did when it was
empty (after the same light correction): a hand, an arm, a sleeve or a
leaning player's shadow always crosses that ring to reach the cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.calfile import Calibration

#: Radius (board units) of the disc sampled in each cell: inside the cell's outline.
SAMPLE_RADIUS = 0.40
#: Every STRIDE-th pixel each way is sampled: a quarter of the work, the same verdicts.
STRIDE = 2
#: Colour is averaged over whole cells: it is read from the frame shrunk this many times.
COLOUR_SHRINK = 4
#: Edge correlation above which a cell shows the empty board, below which a tile
#: (below SURE_STRUCTURE whatever its colour; above it only if its colour differs too).
EMPTY_STRUCTURE, TILE_STRUCTURE, SURE_STRUCTURE = 0.80, 0.70, 0.62
#: Colour this close to the empty cell's (chroma shift, brightness ratio) is the board's.
BOARD_CHROMA, BOARD_BRIGHTNESS = 4.0, 0.08
#: Between the two, a chroma shift (Lab units) or a brightness change this large says tile.
TILE_CHROMA = 12.0
#: A cell whose edges nearly match but whose colour has moved this far holds a tile
#: printed like the board (a dark tile on a dark board, blurred).
COLOURED_STRUCTURE, COLOURED_CHROMA = 0.90, 15.0
#: A cell whose samples are this saturated (glare) cannot be read: it is uncertain.
SATURATED, SATURATED_SHARE = 250, 0.2
#: The best-matching few cells of any readable frame show the empty board this well
#: (every board keeps some empty cells): below it the frame is too blurred or
#: washed out to read, and every cell is uncertain.
READABLE, READABLE_PERCENTILE = 0.88, 95
#: Extra smoothing of the reference tried against each frame, to match the camera's focus.
REFERENCE_BLURS = (0.0, 1.2, 2.4, 3.6)
#: Ring blocks (board units a side) and how unlike the empty ring one may be while clear.
RING_BLOCK = 1.0
RING_CHROMA = 16.0
RING_BRIGHTNESS = 0.3
RING_EDGES = 8.0
#: Smoothing (rectified pixels) before edges are compared: camera blur then matters little.
BLUR = 1.0
#: Cells and ring blocks within this distance (board units) tell the light on a cell.
LIGHT_RADIUS = 1.6


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


class TileClassifier:
    """Reads rectified frames of one calibrated table (see the module's docstring)."""

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        reference = calibration.reference
        height, width = reference.shape[:2]
        self._cells = _cell_samples(calibration, width, height)
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
        grey, gx, gy, lab = _planes(reference)
        self._ref_grads = [_gradients(*_planes(_soften(reference, sigma))[1:3], self._cells)
                           for sigma in REFERENCE_BLURS]
        self._ref_lab = _cell_means(lab, self._colour_cells)
        self._ref_ring = self._ring_means(lab)
        self._ref_ring_grad = self._ring_energy(gx, gy)
        self._near, block_xy = _neighbourhoods(calibration, labels, self._ring_blocks, width)
        self._light_basis = _quadratic_basis(block_xy)

    def read(self, rectified: np.ndarray) -> CellReading:
        """The verdict on one rectified frame (BGR, the reference's size)."""
        grey, gx, gy, lab = _planes(rectified)
        ring = self._ring_means(lab)
        gain, cast = _light(ring, self._ref_ring)
        ring_unlike = self._ring_unlike(ring, gain, cast, gx, gy)
        means = _cell_means(lab, self._colour_cells)
        current = _gradients(gx, gy, self._cells)
        # The reference blurred as much as this frame is: the best match over the board.
        candidates = [_correlation(current, ref) for ref in self._ref_grads]
        rank = int(len(candidates[0]) * READABLE_PERCENTILE / 100)
        scores = [float(np.partition(c, rank)[rank]) for c in candidates]
        # Blurring flatters every cell a little: take the sharpest reference that
        # matches nearly as well as the best, or a tile's fine print is lost.
        best = max(scores)
        structure = candidates[next(i for i, score in enumerate(scores) if score >= best - 0.02)]
        if max(scores) < READABLE:
            everything = frozenset(range(len(structure)))
            return CellReading(frozenset(), everything, False, structure,
                               np.zeros(len(structure)), np.zeros(len(structure)), -1)
        chroma = np.hypot(*(means[:, 1:] - self._ref_lab[:, 1:] - cast).T)
        cell_gain = means[:, 0] / np.maximum(self._ref_lab[:, 0], 1.0)
        ring_gain = ring[:, 0] / np.maximum(self._ref_ring[:, 0], 1.0)
        brightness = cell_gain / self._local_gain(cell_gain, ring_gain, structure, gain) - 1.0
        board_colour = (chroma < BOARD_CHROMA) & (np.abs(brightness) < BOARD_BRIGHTNESS)
        # Brightness alone is no proof (glare, shadow); a strong colour change nearly is.
        tile_like = (structure < SURE_STRUCTURE) | \
            (structure < TILE_STRUCTURE) & ~board_colour | \
            (structure <= EMPTY_STRUCTURE) & (chroma > TILE_CHROMA) | \
            (structure < COLOURED_STRUCTURE) & (chroma > COLOURED_CHROMA)
        empty_like = structure > EMPTY_STRUCTURE
        # Glare burns the print out: such a cell cannot be read either way.
        saturated = (grey.ravel()[self._cells] >= SATURATED).mean(axis=1) > SATURATED_SHARE
        tile_like &= ~saturated
        empty_like &= ~saturated
        occupied = np.flatnonzero(tile_like)
        uncertain = np.flatnonzero(~tile_like & ~empty_like)
        return CellReading(frozenset(occupied.tolist()), frozenset(uncertain.tolist()),
                           ring_unlike == 0, structure, chroma, brightness, ring_unlike)

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
        samples = np.concatenate([cell_gain, ring_gain])
        trusted = np.concatenate([structure > 0.85, np.ones(len(ring_gain), bool)])
        weights = self._near & trusted[None, :]
        counts = weights.sum(axis=1)
        # The mean of the trusted neighbours' gains: they all show bare board.
        local = np.where(counts > 0, (weights @ samples) / np.maximum(counts, 1), np.nan)
        return np.where(np.isnan(local), overall, np.maximum(local, 0.05))

    def _ring_unlike(self, ring: np.ndarray, gain: float, cast: np.ndarray,
                     gx: np.ndarray, gy: np.ndarray) -> int:
        gains = ring[:, 0] / np.maximum(self._ref_ring[:, 0], 1.0)
        light = gains / _smooth_light(self._light_basis, gains) - 1.0
        colour = np.hypot(*(ring[:, 1:] - self._ref_ring[:, 1:] - cast).T)
        energy = self._ring_energy(gx, gy)
        # Edges where the empty ring had none: the outline of a hand or a sleeve.
        edges = (energy - self._ref_ring_grad) / np.maximum(self._ref_ring_grad, 4.0)
        # Brighter alone is glare, not an arm: an arm or a shadow darkens, colours or outlines.
        unlike = (light < -RING_BRIGHTNESS) | (colour > RING_CHROMA) | (edges > RING_EDGES)
        return int(unlike.sum())


def _planes(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Grey (smoothed), its gradients, and Lab of the shrunk image, as float32."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (0, 0), BLUR).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    height, width = image.shape[:2]
    small = cv2.resize(image, (width // COLOUR_SHRINK, height // COLOUR_SHRINK),
                       interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
    return grey, gx, gy, lab


def _soften(image: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), sigma) if sigma else image


def _cell_samples(calibration: Calibration, width: int, height: int, shrink: int = 1,
                  stride: int = STRIDE) -> np.ndarray:
    """(cells, points) flat pixel indices of a disc inside every cell (of an image ``shrink`` times smaller)."""
    scale = calibration.scale / shrink
    radius = SAMPLE_RADIUS * scale
    span = np.arange(-int(radius), int(radius) + 1, stride)
    dx, dy = np.meshgrid(span, span)
    inside = dx ** 2 + dy ** 2 <= radius ** 2
    offsets = np.stack([dx[inside], dy[inside]], axis=1)
    centres = (calibration.layout.centres - np.asarray(calibration.origin)) * scale
    points = np.rint(centres[:, None, :] + offsets[None, :, :]).astype(np.int64)
    xs = np.clip(points[..., 0], 0, width - 1)
    ys = np.clip(points[..., 1], 0, height - 1)
    return ys * width + xs


def _gradients(gx: np.ndarray, gy: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """(cells, 2*points) gradients at the samples, each cell's mean removed."""
    grads = np.concatenate([gx.ravel()[samples], gy.ravel()[samples]], axis=1)
    return grads - grads.mean(axis=1, keepdims=True)


def _correlation(current: np.ndarray, reference: np.ndarray) -> np.ndarray:
    numerator = (current * reference).sum(axis=1)
    # A floor on the energies keeps a nearly blank cell from correlating noise.
    floor = 25.0 * current.shape[1]
    energy = np.sqrt(np.maximum((current ** 2).sum(axis=1), floor) *
                     np.maximum((reference ** 2).sum(axis=1), floor))
    return numerator / energy


def _cell_means(lab: np.ndarray, samples: np.ndarray) -> np.ndarray:
    flat = lab.reshape(-1, 3)
    return flat[samples].mean(axis=1)


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
    ids = (ys // block) * ((width + block - 1) // block) + xs // block
    labels = np.where(ring, ids, -1).ravel()
    # Renumber the blocks that hold enough ring to judge.
    counts = np.bincount(labels[labels >= 0], minlength=int(ids.max()) + 1)
    keep = counts >= 0.25 * block * block
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


def _quadratic_basis(points: np.ndarray) -> np.ndarray:
    """1, x, y, x^2, xy, y^2 at ``points`` (centred and scaled): a lamp's light over a board."""
    centred = (points - points.mean(axis=0)) / max(float(np.ptp(points)), 1.0)
    x, y = centred[:, 0], centred[:, 1]
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


def _smooth_light(basis: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The smooth light that best explains the ring's gains, ignoring what does not fit.

    A least-squares quadratic in log gain, refitted twice without the blocks
    it explains worst (an arm, a shadow): those stand out as residuals.
    """
    values = np.log(np.maximum(gains, 0.02))
    keep = np.ones(len(values), bool)
    for _ in range(3):
        fit = basis[keep]
        # Normal equations: a 6x6 solve, much cheaper than lstsq's SVD; a tiny ridge keeps it regular.
        coefficients = np.linalg.solve(fit.T @ fit + 1e-6 * np.eye(fit.shape[1]), fit.T @ values[keep])
        residual = values - basis @ coefficients
        spread = 1.4826 * np.median(np.abs(residual[keep])) + 0.02
        keep = np.abs(residual) < 2.5 * spread
        if keep.sum() < basis.shape[1] + 2:
            break
    return np.exp(basis @ coefficients)


def _light(ring: np.ndarray, reference: np.ndarray) -> tuple[float, np.ndarray]:
    """The board's overall gain and colour cast, from the ring (medians: a hand is a minority)."""
    gain = float(np.median(ring[:, 0] / np.maximum(reference[:, 0], 1.0)))
    cast = np.median(ring[:, 1:] - reference[:, 1:], axis=0)
    return max(gain, 0.05), cast
