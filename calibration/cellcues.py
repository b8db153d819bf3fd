"""Each cell's verdict from its measures: tile, empty, or uncertain, and why uncertain.

:class:`calibration.classify.TileClassifier` measures every cell of a frame
against the same cell of the empty board (edge correlation, edge strength,
colour, brightness, glare); this module turns those measures into verdicts.
A cell clearly like the empty board is empty, clearly unlike it a tile, and
anything between is uncertain, with the reason kept (:data:`CAUSES`) so that
a benchmark can say which condition leaves cells undecided.

Burnt-out cells are judged by what survives: a cell partly clipped whose
edges still match the empty board's as well as the frame's bare cells do (and
as bright) shows the board's own print (a glare spot that spared it). In a
frame burnt out as a whole ("washed out": a light board's paper clipped by the
camera or a lamp) glare says nothing: a cell that lost the print and is darker
than the board, or shows edges stronger than the empty cell's, is a tile, and
every other burnt-out cell stays uncertain (a light tile printed like the board
burns out as the board does, and vanishes). Cues no light gives a bare cell say
tile whatever the glare: edges stronger than the empty cell's in a colour far
off the board's, or edges reversed against the board's print (a light tile's
outline on a dark print). Everything else burnt out stays uncertain. A cell in
the board's colour whose edges lie far below the frame's bare cells, in a frame
where those hardly scatter, holds a tile printed like the board (its own label)
when it lies as far below them in its middle, where its label is, and no glare is
near it (lighter than the board too, its edges as strong as the empty cell's or
stronger: a light tile on a light print, its label bolder; never darker, as a shadow's
edge makes a cell); a little below them it is only doubted.

It also samples the printed borders between cells, which tell a tile (the
border shows beside its edge) from a hand or a sleeve (it hides them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from calibration.calfile import Calibration

#: Edge correlation lost against the frame's typical bare cell: below EMPTY_LOSS a cell
#: shows the empty board, above TILE_LOSS a tile if its colour or edges differ too,
#: above SURE_LOSS a tile whatever its colour.
EMPTY_LOSS, TILE_LOSS, SURE_LOSS = 0.17, 0.27, 0.35
#: Edge energy (ratio to the empty cell's, light removed) this high is a tile's print.
EDGE_ENERGY = 1.4
#: A cell that lost this much correlation and changed light, colour (chroma) or edge
#: energy this much is doubted rather than called empty (a low-contrast tile).
DOUBT_LOSS, DOUBT_ENERGY, DOUBT_CHROMA = 0.05, 1.2, 5.0
#: A cell that lost this much correlation, and lies this many times the bare cells' own
#: scatter (robust, at least OUTLIER_FLOOR) below their typical correlation, is doubted
#: too: in a sharp, clean frame every bare cell matches the empty board almost exactly, and
#: a tile printed like the board (a paler or thinner label, the same colour) stands out so.
OUTLIER_LOSS, OUTLIER, OUTLIER_FLOOR = 0.03, 10.0, 0.002
#: ... or PALE_OUTLIER times that scatter below them with its edge strength or brightness
#: PALE_APART times the bare cells' own scatter (at least PALE_ENERGY, PALE_BRIGHTNESS) off
#: theirs: a tile printed like the board, its label paler, its body a shade lighter (the
#: training world's matched prints were read empty so, 302 and 63 tiles in the clean frames
#: of two draws: a tenth and a third of them are now doubted; one bare cell of seven draws).
PALE_OUTLIER, PALE_APART, PALE_ENERGY, PALE_BRIGHTNESS = 5.0, 4.0, 0.02, 0.01
#: A doubted cell with no glare near whose edges are BOLD_APART times the bare cells' scatter
#: (at least BOLD_ENERGY) stronger than theirs, and whose edge correlation lies BOLD_OUTLIER
#: times their scatter below them over the cell and in its middle, holds a tile: a bolder
#: label than the board's print, where its label is. Chosen on 16 draws of the training and
#: tuning worlds (2,115 doubted cells, 1,606 of them tiles, 307 bare with no glare near):
#: none of those bare cells passes at 6 times, 712 tiles do at 8. The floor was 0.02 first
#: (1,033 tiles, none bare): a held-out draw's bare cell beside a glare spot's rim, its edges
#: 0.23 over the bare cells' in a frame where those scattered by 0.02, was read a tile. Such a
#: cell is no lighter than its light by BOLD_LIGHTER either: a bolder label adds ink, while a
#: faint glare spot's rim lightens a cell and adds edges where its light falls off (that cell
#: was 4% lighter, a tuning-world one 8%; 453 of the 712 tiles stay read).
BOLD_APART, BOLD_OUTLIER, BOLD_ENERGY, BOLD_LIGHTER = 8.0, 5.0, 0.05, 0.03
#: A cell in the board's colour (or lighter in its hue: LIGHTER_ENERGY) that lost this much
#: correlation and lies LABEL_OUTLIER times the bare cells' scatter below them, in the middle
#: of the cell (where its label is) as well as over the whole, holds a tile printed like the
#: board: its own label's print differs from the board's by far more than blur or noise move
#: any bare cell of that frame. A neighbour's drop shadow only reaches a cell's rim, and a glare spot's rim is
#: never far from what it lights (``Cues.glare_near``): neither is taken for one. Chosen on the
#: training and tuning worlds; the check in the middle of the cell came after a false tile on a
#: held-out draw; lighter than the board after the tuning world's light tiles on a black print
#: (loss 0.13-0.26, 54 or more times the scatter in the middle) stayed doubted.
LABEL_LOSS, LABEL_OUTLIER, LABEL_INNER_OUTLIER = 0.10, 30.0, 20.0
#: ... a cell lighter than the board so only with edges this strong against the empty cell's
#: (a bolder label): a tuning-world bare cell under a faint glare spot, 10% lighter, lay as far
#: off the bare cells, its edges veiled to 0.77.
LIGHTER_ENERGY = 1.0
#: A cell partly burnt out, or this much brighter than the light around it, is under a glare
#: spot (no tile printed like the board is: they lie within about 0.12), and the spot's rim
#: reaches the cells beside it.
GLARE_BRIGHTNESS = 0.2
#: Colour this close to the empty cell's (chroma shift, brightness ratio) is the board's.
BOARD_CHROMA, BOARD_BRIGHTNESS = 4.0, 0.08
#: Between the two, a chroma shift (Lab units) or a brightness change this large says tile.
TILE_CHROMA = 12.0
#: A cell whose edges nearly match but whose colour has moved this far holds a tile
#: printed like the board (a dark tile on a dark board, blurred).
COLOURED_LOSS, COLOURED_CHROMA = 0.07, 15.0
#: A cell coloured that far off the board with edges this much stronger than the empty
#: cell's holds a tile even where its edges line up with the board's print (a tile whose
#: label lies over the board's printed one): bare board never has both.
PRINTED_ENERGY = 2.0
#: A cell whose samples are this saturated (glare) cannot be read: it is uncertain.
SATURATED, SATURATED_SHARE = 250, 0.2
#: A cell this share burnt out is never called empty, nor a tile on its edges alone ...
PARTLY_SATURATED = 0.1
#: Burnt out or not, edges this much stronger than the empty cell's are a bright tile's
#: dark print (clipping a highlight adds edges, but only about as strong as the board's).
PRINT_ENERGY = 3.0
#: However much of a cell is burnt out, edges that still match the empty board's within this
#: (correlation lost against the frame's typical bare cell) show the board's own print: an
#: overexposed light board keeps only its print, and no tile, lit or not, shows it.
KEPT_LOSS = 0.03
#: A tile's own edges (stronger than the empty cell's, EDGE_ENERGY) in a colour this far off
#: the board's (chroma, Lab units, cast removed) say tile whatever else: no light tints
#: the board so, a highlight least of all (it pales it).
STRONG_CHROMA = 24.0
#: Edges correlated this negatively with the empty cell's, and stronger than its own, are a
#: tile's outline where the board prints its own, in the opposite contrast (a light tile on
#: a dark print, burnt out or not): glare only ever erases edges.
REVERSED = -0.5
#: A frame whose cells showing the board's print are typically burnt out this much is
#: overexposed as a whole (a light board, a bright lamp): there a burnt-out cell says nothing
#: of glare, and the cells are judged as in any frame (at least WASHED_CELLS such cells).
WASHED, WASHED_CELLS = 0.5, 5

#: A cell whose empty board's picture had more than this share of its samples burnt out, and
#: that a frame burns out less by as much, shows print the empty board's picture lost: the
#: training world's light prints, calibrated overexposed (up to every sample of the paper
#: clipped), read the print under a shadow as tiles (stronger edges, truer colour).
REFERENCE_BURNT = 0.1
#: A cell is dimmed when more than this share of the cells around it whose empty picture was
#: burnt out are clearly less so: a shadow or a dimmer lamp reaches a region, a tile one cell.
DIMMED = 0.5

#: The strip sampled across every printed border of a cell (board units: half its
#: width across the line, half its length along it), and the points each way.
GAP_ACROSS, GAP_ALONG, GAP_POINTS = 0.12, 0.22, (5, 7)
#: The least edge strength (grey levels, rms) an empty border is credited with.
GAP_FLOOR = 3.0

#: A frame whose best-matching cells match the empty board less than the readable bar (noise,
#: blur and a lamp together) but DEGRADED or better is read in part (:func:`narrowed`): its
#: tiles, each only where its edge correlation lies DEGRADED_OUTLIER times the bare cells'
#: scatter below theirs (noise alone moves no cell so far off them), near glare only with
#: edges beyond PRINT_ENERGY (a tile's own print: glare adds no such edges); and its empty
#: cells only on a table whose tiles all stood out in the frames read before it
#: (:func:`faintest`): their faintest lay DEGRADED_APART times this frame's scatter off the
#: bare cells (elsewhere a tile printed like the board hides in the noise as well as a bare
#: cell does). Not at all unless at least DEGRADED_BARE of its cells read no tile (and 10)
#: look bare: where noise lifts most bare cells' edges out of the bare band, the few left are
#: no measure of the rest. Chosen on training-world frames with every nuisance that the bar
#: found unreadable: of 37 frames (3,992 cells) read as clear frames are, 13 bare cells were
#: tiles and 58 tiles empty, on matched-print tables mostly, which the same test of a cell
#: alone (the board's colour and edge strength, no glare near) left read empty on two tables
#: out of 30 more; two bare cells 3.7 and 3.8 times the scatter below the bare ones were tiles
#: at 3; and two frames of 120 more tables, 20% of whose cells looked bare, read 18 and 28
#: bare cells as tiles; a heavily blurred frame's bare cell beside a glare spot, its edges
#: doubled (2.1), was a tile, where the frame's tiles showed 5 and more.
DEGRADED, DEGRADED_BARE, DEGRADED_OUTLIER, DEGRADED_APART = 0.6, 0.5, 5.0, 6.0
#: ... a tile whose colour or brightness lay this many times the board's bounds off the board's
#: cannot pass for bare board in such a frame (colour is the mean of the whole cell: noise hardly
#: moves it), however faint its print.
FAINT_COLOUR = 2.0

#: Why a cell was left uncertain, by code (:attr:`Verdicts.cause`; 0 for a decided cell).
CAUSES = ("decided", "glare", "partly burnt", "doubtful", "between", "edges", "blurred region",
          "washed out", "burnt-out reference", "degraded frame")


@dataclass(frozen=True)
class Cues:
    """One frame's measures per cell, against the empty board (see calibration/classify.py)."""

    loss: np.ndarray            # edge correlation lost against the frame's typical bare cell
    structure: np.ndarray       # edge correlation with the empty cell
    energy: np.ndarray          # edge strength over the empty cell's, light removed
    chroma: np.ndarray          # colour shift from the empty cell (Lab units), cast removed
    brightness: np.ndarray      # brightness change, light removed
    burnt: np.ndarray           # share of the cell's samples burnt out (glare)
    blurred: np.ndarray         # in a blurrier region, matching the empty board blurred as it is
    inner: np.ndarray | None = None       # edge correlation in the cell's middle (its label's)
    glare_near: np.ndarray | None = None  # it or a cell or ring block within reach under glare
    reference_burnt: np.ndarray | None = None  # share of the empty cell's samples burnt out
    dimmed: np.ndarray | None = None  # most cells around it burnt out less than when empty


@dataclass(frozen=True)
class Verdicts:
    """Per cell: a tile, empty, and (for the rest) the index in :data:`CAUSES` of why not."""

    tile: np.ndarray
    empty: np.ndarray
    cause: np.ndarray
    #: the tiles only the board-printed tile rule read (:func:`_printed_like_board`)
    printed: np.ndarray | None = None


def decide(cues: Cues) -> Verdicts:
    """Tile, empty or uncertain for every cell (see the module docstring)."""
    loss, energy, chroma, brightness, burnt = (cues.loss, cues.energy, cues.chroma,
                                               cues.brightness, cues.burnt)
    board_colour = _board_colour(cues)
    tile = (loss > SURE_LOSS) | \
        (loss > TILE_LOSS) & (~board_colour | (energy > EDGE_ENERGY)) | \
        (loss >= EMPTY_LOSS) & (chroma > TILE_CHROMA) | \
        (loss > COLOURED_LOSS) & (chroma > COLOURED_CHROMA) | \
        ~board_colour & (energy > PRINTED_ENERGY)
    # A cell a little off the empty board's edges whose light, colour or edge strength
    # moved too, or far off the frame's bare cells in a frame where they hardly scatter,
    # may be a low-contrast tile: not sure enough to call it empty.
    bare = _bare(cues, board_colour)
    doubtful = (loss > DOUBT_LOSS) & ((np.abs(brightness) > BOARD_BRIGHTNESS) |
                                      (energy > DOUBT_ENERGY) | (chroma > DOUBT_CHROMA)) | \
        (loss > OUTLIER_LOSS) & _outlying(cues.structure, bare) | \
        (loss > OUTLIER_LOSS) & _outlying(cues.structure, bare, PALE_OUTLIER) & \
        (_apart(energy, bare, PALE_ENERGY) | _apart(brightness, bare, PALE_BRIGHTNESS))
    printed = _printed_like_board(cues, bare) & ~tile
    tile |= printed | doubtful & _bolder(cues, bare)
    empty = (loss < EMPTY_LOSS) & (energy < EDGE_ENERGY) & ~doubtful
    # Glare burns the print out: such a cell cannot be read either way. Where only
    # part of it is burnt out, the lost print may explain the difference: only a
    # colour no highlight makes (a highlight pales the board, never tints it) says tile.
    saturated = ((burnt > SATURATED_SHARE) |
                 (burnt > PARTLY_SATURATED) & (chroma < COLOURED_CHROMA)) & (energy < PRINT_ENERGY)
    partly = burnt > PARTLY_SATURATED
    # However burnt out, a cell whose edges still match the empty board's and as bright as
    # the board shows its print (a burnt-out light tile printed with the cell's own label
    # keeps that print too, but is brighter than the board beside it).
    kept = (loss < KEPT_LOSS) & (np.abs(brightness) < BOARD_BRIGHTNESS)
    washed = kept.sum() >= WASHED_CELLS and float(np.median(burnt[kept])) >= WASHED
    # (there a cell that lost the print and is darker than the board, or shows edges stronger
    # than the empty cell's, is a tile: glare only ever adds light and erases print, clipping
    # the board flat; a cell burnt out whole may be a glare spot as well as a light tile)
    tile &= ~saturated | washed & (loss > SURE_LOSS) & ((brightness < -BOARD_BRIGHTNESS) |
                                                        (energy > EDGE_ENERGY))
    strong = (energy > EDGE_ENERGY) & ((chroma > STRONG_CHROMA) | (cues.structure < REVERSED))
    # Where the empty board's own picture was burnt out and this frame is less so (a shadow, a
    # dimmer light), the board's print shows more than the empty board's did: its stronger,
    # unlike edges and truer colour say nothing of a tile. Only what no print gives does.
    revealed = _revealed(cues) & tile & ~strong
    tile = tile & ~revealed | strong
    # (but not in a frame burnt out as a whole: there a tile printed like the board, its
    # body clipped white as the board is, keeps the cell's own label just as the board does)
    empty &= ~saturated & ~partly | kept & (not washed)
    # Where a region is blurrier than the frame's choice, a cell that matches the empty
    # board as blurred as its region as well as bare cells do is only doubted, never a tile.
    guarded = tile & cues.blurred
    tile &= ~cues.blurred
    # (burnt out in a frame overexposed as a whole is no glare: a light tile vanishes there)
    cause = np.select([tile | empty, revealed, (saturated | partly) & washed, saturated, partly,
                       guarded, doubtful, loss < EMPTY_LOSS], [0, 8, 7, 1, 2, 6, 3, 5], 4)
    return Verdicts(tile, empty, cause.astype(np.int8), printed & tile)


def narrowed(cues: Cues, verdicts: Verdicts, faint: float | None = None) -> Verdicts | None:
    """``verdicts`` on a frame below the readable bar, kept only where they are sure even in
    such a frame (see DEGRADED); None when too few of its cells are bare to judge any by.

    ``faint``: the correlation the faintest tile of the frames read before lost, as a share
    of their typical bare cell's (:func:`faintest`; None before any tile was seen).
    """
    if cues.glare_near is None:
        return None
    bare = _bare(cues, _board_colour(cues))
    tile = verdicts.tile & _outlying(cues.structure, bare, DEGRADED_OUTLIER) & \
        (~cues.glare_near | (cues.energy > PRINT_ENERGY))
    # (most cells no tile must look like bare board, or what the frame takes for bare is not)
    if bare.sum() < max(10, DEGRADED_BARE * (~tile).sum()):
        return None
    empty = np.zeros(len(tile), bool)
    if faint is not None:
        typical, scatter = _bare_spread(cues.structure, bare)
        if faint * typical >= DEGRADED_APART * max(scatter, OUTLIER_FLOOR):
            empty = verdicts.empty & bare & ~cues.glare_near & (cues.burnt <= PARTLY_SATURATED)
    cause = np.where(tile | empty, 0, np.where(verdicts.cause > 0, verdicts.cause,
                                               CAUSES.index("degraded frame")))
    printed = None if verdicts.printed is None else verdicts.printed & tile
    return Verdicts(tile, empty, cause.astype(np.int8), printed)


def faintest(cues: Cues, verdicts: Verdicts, before: float | None) -> float | None:
    """How little the tiles of the readable frames read so far (this one and ``before``) stood
    out from the bare board where they could pass for it: the least correlation a tile in
    about the board's colour (within FAINT_COLOUR times its bounds) lost, as a share of its
    frame's typical bare cell's; 0 once such a cell was doubted (a tile a frame could not
    tell from the board), infinite while every tile was far off the board's colour, None
    before any tile was seen."""
    hue = _board_colour(cues, FAINT_COLOUR)
    if (hue & (verdicts.cause == CAUSES.index("doubtful"))).any() or before == 0.0:
        return 0.0
    if not verdicts.tile.any():
        return before
    typical = float(np.median(cues.loss + cues.structure))
    losses = cues.loss[verdicts.tile & hue]
    least = max(float(losses.min()) / max(typical, 1e-6), 0.0) if len(losses) else math.inf
    return least if before is None else min(before, least)


def unclipped(burnt: np.ndarray, reference_burnt: np.ndarray) -> np.ndarray:
    """Cells whose empty board's picture was partly burnt out (REFERENCE_BURNT) and that a
    frame burns out clearly less."""
    return (reference_burnt > REFERENCE_BURNT) & (burnt < reference_burnt - REFERENCE_BURNT)


def dimmed(near: np.ndarray, burnt: np.ndarray, reference_burnt: np.ndarray) -> np.ndarray:
    """Per cell, whether more than DIMMED of the cells ``near`` it (a (cells, cells) matrix,
    itself left out) whose empty picture was partly burnt out are :func:`unclipped` now: the
    light there has dropped since the board was photographed empty (a shadow, a dimmer lamp)."""
    clipped = reference_burnt > REFERENCE_BURNT
    if not clipped.any():
        return np.zeros(len(burnt), bool)
    less = unclipped(burnt, reference_burnt).astype(np.float64)
    return near @ less > DIMMED * np.maximum(near @ clipped.astype(np.float64), 1.0)


def _revealed(cues: Cues) -> np.ndarray:
    """Cells :func:`unclipped` where the cells around them are too (``Cues.dimmed``): less light
    there than when the board was photographed empty, so the empty board cannot say how their
    print looks unclipped. (A tile alone unclipped among cells burnt out as before is a tile's
    body, not a dimmer light: a light tile's shading keeps some of it below white.)"""
    if cues.reference_burnt is None or cues.dimmed is None:
        return np.zeros(len(cues.loss), bool)
    return unclipped(cues.burnt, cues.reference_burnt) & cues.dimmed


def _printed_like_board(cues: Cues, bare: np.ndarray) -> np.ndarray:
    """Cells far enough off the frame's ``bare`` cells, label and all, in the board's hue, no
    darker than the board and with no glare near, to be a tile printed like the board
    (LABEL_LOSS, LABEL_OUTLIER, LABEL_INNER_OUTLIER), not a doubt; none without the middle's
    and the glare's measures.

    Lighter than the board counts when its edges are as strong as the empty cell's or
    stronger (a light tile on a light print, its label bolder: the ordinary tile at a real
    table; a faint glare spot lightens a cell too, but veils its edges); darker does not, for
    a shadow's edge darkens a cell.
    """
    if cues.inner is None or cues.glare_near is None:
        return np.zeros(len(cues.loss), bool)
    lighter = (cues.brightness > 0) & (cues.energy >= LIGHTER_ENERGY)
    hue = (cues.chroma < BOARD_CHROMA) & ((np.abs(cues.brightness) < BOARD_BRIGHTNESS) | lighter)
    return hue & ~cues.glare_near & (cues.loss > LABEL_LOSS) & \
        _outlying(cues.structure, bare, LABEL_OUTLIER) & \
        _outlying(cues.inner, bare, LABEL_INNER_OUTLIER)


def _board_colour(cues: Cues, bounds: float = 1.0) -> np.ndarray:
    """Cells whose colour and brightness lie within ``bounds`` times the board's bounds
    (BOARD_CHROMA, BOARD_BRIGHTNESS) of the empty cell's."""
    return (cues.chroma < bounds * BOARD_CHROMA) & \
        (np.abs(cues.brightness) < bounds * BOARD_BRIGHTNESS)


def _bare(cues: Cues, board_colour: np.ndarray) -> np.ndarray:
    """Cells in the board's colour whose edges are as strong as the empty cell's, within
    EDGE_ENERGY either way: what a frame's bare board looks like."""
    return board_colour & (cues.energy > 1 / EDGE_ENERGY) & (cues.energy < EDGE_ENERGY)


def _bolder(cues: Cues, bare: np.ndarray) -> np.ndarray:
    """Cells whose edges stand BOLD_APART times the ``bare`` cells' scatter (at least
    BOLD_ENERGY) above theirs and whose edge correlation, over the cell and in its middle,
    lies BOLD_OUTLIER times their scatter below them, no lighter than BOLD_LIGHTER and with
    no glare near: a label bolder than the board's print (none without the middle's and
    the glare's measures, or with fewer than 10 bare cells)."""
    if cues.inner is None or cues.glare_near is None:
        return np.zeros(len(cues.loss), bool)
    return ~cues.glare_near & (cues.brightness < BOLD_LIGHTER) & \
        (_off_bare(cues.energy, bare, BOLD_ENERGY) > BOLD_APART) & \
        _outlying(cues.structure, bare, BOLD_OUTLIER) & _outlying(cues.inner, bare, BOLD_OUTLIER)


def _apart(values: np.ndarray, bare: np.ndarray, floor: float) -> np.ndarray:
    """Cells whose ``values`` lie PALE_APART times the ``bare`` cells' scatter (at least
    ``floor``) off their median, either way; none with fewer than 10 bare cells."""
    return np.abs(_off_bare(values, bare, floor)) > PALE_APART


def _outlying(structure: np.ndarray, bare: np.ndarray, factor: float = OUTLIER) -> np.ndarray:
    """Cells whose edge correlation falls below the typical ``bare`` cell's by ``factor`` times
    their scatter (at least OUTLIER_FLOOR)."""
    return _off_bare(structure, bare, OUTLIER_FLOOR) < -factor


def _off_bare(values: np.ndarray, bare: np.ndarray, floor: float) -> np.ndarray:
    """How far each cell's ``values`` lie from the ``bare`` cells', in their scatter (at least
    ``floor``), signed; robust (median and median absolute deviation: the tiles among them
    are a minority). Zero everywhere with fewer than 10 bare cells."""
    if bare.sum() < 10:
        return np.zeros(len(values))
    middle, scatter = _bare_spread(values, bare)
    return (values - middle) / max(scatter, floor)


def _bare_spread(values: np.ndarray, bare: np.ndarray) -> tuple[float, float]:
    """The ``bare`` cells' median of ``values`` and their scatter about it (1.4826 times the
    median absolute deviation: a standard deviation where they are normal)."""
    middle = float(np.median(values[bare]))
    return middle, 1.4826 * float(np.median(np.abs(values[bare] - middle)))


# --- the printed borders between cells ---------------------------------------------------

def gap_samples(calibration: Calibration, width: int,
                height: int) -> tuple[np.ndarray, np.ndarray]:
    """(borders, points) flat pixel indices of a strip across every cell's printed border,
    and (borders, 2) the cells on either side.

    Every border between two touching cells once, and every border of a cell
    with no neighbour that way (the grid's outline: an arm crosses it first;
    the cell is then given for both sides).
    """
    layout = calibration.layout
    centres = layout.centres
    steps = 4 if layout.kind == "square" else 6
    angles = np.arange(steps) * 2 * np.pi / steps
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=1)   # touching cells are 1 unit apart
    ends = centres[:, None, :] + directions[None, :, :]
    distance = np.linalg.norm(ends[:, :, None, :] - centres[None, None, :, :], axis=3)
    neighbour = np.where(distance.min(axis=2) < 0.1, distance.argmin(axis=2), -1)
    cell, way = np.nonzero((neighbour < 0) | (neighbour > np.arange(len(centres))[:, None]))
    sides = np.stack([cell, np.where(neighbour[cell, way] < 0, cell, neighbour[cell, way])], axis=1)
    along = directions[way]
    across = np.stack([-along[:, 1], along[:, 0]], axis=1)
    mid = centres[cell] + along / 2
    u, v = np.meshgrid(np.linspace(-GAP_ACROSS, GAP_ACROSS, GAP_POINTS[0]),
                       np.linspace(-GAP_ALONG, GAP_ALONG, GAP_POINTS[1]))
    u, v = u.ravel(), v.ravel()
    points = mid[:, None, :] + u[None, :, None] * along[:, None, :] + v[None, :, None] * across[:, None, :]
    pixels = np.rint((points - np.asarray(calibration.origin)) * calibration.scale).astype(np.int64)
    xs = np.clip(pixels[..., 0], 0, width - 1)
    ys = np.clip(pixels[..., 1], 0, height - 1)
    return ys * width + xs, sides


def gap_energy(gx: np.ndarray, gy: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """Rms edge strength across each border strip, less the strip's mean gradient (smooth light)."""
    x = gx.ravel()[samples]
    y = gy.ravel()[samples]
    count = samples.shape[1]
    mean_x, mean_y = x.sum(axis=1) / count, y.sum(axis=1) / count
    power = (np.einsum("ij,ij->i", x, x) + np.einsum("ij,ij->i", y, y)) / count
    return np.sqrt(np.maximum(power - mean_x * mean_x - mean_y * mean_y, 0.0))
