"""How a frame's light differs from the empty board's picture, board-wide.

The classifier (:mod:`calibration.classify`) compares every cell with the same
cell of the empty board; first it takes out what changed over the whole board
since that picture: the light's gain and colour cast (measured on the ring of
board outside the grid, where no tile ever lies), its smooth fall-off (a
quadratic over the board), and, where the empty board's picture shows its print
unlike this frame's board everywhere, the print's contrast and colour measured
on the frame's own bare cells.
"""

from __future__ import annotations

import numpy as np

from calibration.cellcues import BOARD_CHROMA

#: Cells (of the readable pool) needed to measure the frame's contrast against the empty board's.
CONTRAST_CELLS = 10


def board_light(ring: np.ndarray, reference: np.ndarray) -> tuple[float, np.ndarray]:
    """The board's overall gain and colour cast, from the ring (medians: a hand is a minority)."""
    gain = float(np.median(ring[:, 0] / np.maximum(reference[:, 0], 1.0)))
    cast = np.median(ring[:, 1:] - reference[:, 1:], axis=0)
    return max(gain, 0.05), cast


def quadratic_basis(points: np.ndarray) -> np.ndarray:
    """1, x, y, x^2, xy, y^2 at ``points`` (centred and scaled): a lamp's light over a board."""
    centred = (points - points.mean(axis=0)) / max(float(np.ptp(points)), 1.0)
    x, y = centred[:, 0], centred[:, 1]
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


def smooth_light(basis: np.ndarray, gains: np.ndarray) -> np.ndarray:
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


def board_contrast(energy: np.ndarray, structure: np.ndarray, closeness: np.ndarray,
                   pool: np.ndarray, band: float) -> float:
    """How much stronger the print shows in this frame than in the empty board's picture,
    board-wide, when more than ``band`` (else 1): the edge energy of the ``pool`` cells most
    like bare board, the better half both by edge correlation and by ``closeness`` of colour
    to the empty cell's.

    >>> import numpy as np
    >>> pool = np.arange(40)
    >>> structure = np.where(pool < 30, 0.95, 0.4)       # ten tiles, unlike the empty board
    >>> closeness = np.where(pool < 30, 1.0, 6.0)
    >>> board_contrast(np.where(pool < 30, 2.4, 5.0), structure, closeness, pool, 1.4)
    2.4
    >>> board_contrast(np.where(pool < 30, 1.2, 5.0), structure, closeness, pool, 1.4)
    1.0

    A calibration photo taken near the camera's white point compresses the print's
    contrast (the tone curve's shoulder, short of clipping); a dimmer frame then shows
    every cell's print stronger than the empty board did, and a tile's own edges are
    told by standing out from that, not from the empty board. (A tile whose label
    lines up with the board's may match its edges well: its colour seldom does too.)
    """
    if len(pool) < CONTRAST_CELLS:
        return 1.0
    like = pool[(structure[pool] >= np.median(structure[pool])) &
                (closeness[pool] <= np.median(closeness[pool]))]
    if len(like) < CONTRAST_CELLS // 2:
        return 1.0
    contrast = float(np.median(energy[like]))
    return contrast if contrast > band else 1.0


def residual_cast(shift: np.ndarray) -> np.ndarray:
    """The colour shift (Lab a, b) most of these cells share once the ring's cast is taken out,
    when they share one (half of them within BOARD_CHROMA of it); else none.

    Taken only where the empty board's picture shows its print unlike the frame's board
    everywhere (:func:`board_contrast`): the tone curve's shoulder flattened the cells' colour
    there as well, unlike the ring's paper, and every bare cell looked coloured like a tile.
    """
    rest = np.median(shift, axis=0)
    agree = float(np.median(np.hypot(*(shift - rest).T))) < BOARD_CHROMA
    return rest if agree else np.zeros(2)
