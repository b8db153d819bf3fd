"""The board plane: cell centres of every layout, their order and their spacing."""

import math

import numpy as np
import pytest

import tabletop
from calibration.layout import HEX_RADIUS, layout_for

ROW = math.sqrt(3) / 2

#: Every board shape the rule files make, with both hex parities and a split quadrant board.
BOARDS = {
    "acquire": ("acquire", {}),
    "megacquire odd-r": ("megacquire-gold", {"hex_offset": "odd-r"}),
    "megacquire even-r": ("megacquire-gold", {"hex_offset": "even-r"}),
    "acquisitions odd-r": ("acquisitions", {"hex_offset": "odd-r"}),
    "acquisitions even-r": ("acquisitions", {"hex_offset": "even-r"}),
    "acquisitions split": ("acquisitions", {"quadrants_connect": False}),
}


def layout(name):
    rules, options = BOARDS[name]
    ruleset = tabletop.load_rules(rules)
    return layout_for(ruleset.geometry_for(ruleset.resolve_options(options)))


@pytest.mark.parametrize("board, label, centre", [
    ("acquire", "1A", (0, 0)),
    ("acquire", "12A", (11, 0)),
    ("acquire", "6C", (5, 2)),
    ("acquire", "1I", (0, 8)),
    ("megacquire odd-r", "A-1", (0, 0)),
    ("megacquire odd-r", "B-1", (0.5, ROW)),
    ("megacquire odd-r", "C-1", (0, 2 * ROW)),
    ("megacquire odd-r", "A-13", (12, 0)),
    ("megacquire odd-r", "N-13", (12.5, 13 * ROW)),
    ("megacquire even-r", "A-1", (0.5, 0)),
    ("megacquire even-r", "B-1", (0, ROW)),
    ("megacquire even-r", "N-13", (12, 13 * ROW)),
    ("acquisitions odd-r", "1/A-1", (0, 0)),
    ("acquisitions odd-r", "2/A-1", (6, 0)),
    ("acquisitions odd-r", "3/A-1", (0.5, 5 * ROW)),   # global row 5 is shoved under odd-r
    ("acquisitions odd-r", "4/E-6", (11.5, 9 * ROW)),
    ("acquisitions even-r", "3/A-1", (0, 5 * ROW)),
    ("acquisitions even-r", "1/A-1", (0.5, 0)),
])
def test_named_cells_sit_where_the_rows_and_parity_put_them(board, label, centre):
    assert layout(board).centre(label) == pytest.approx(centre)


@pytest.mark.parametrize("board, labels", [
    ("acquire", ["1A", "12A", "12I", "1I"]),
    ("megacquire odd-r", ["A-1", "A-13", "N-13", "N-1"]),
    ("acquisitions odd-r", ["1/A-1", "2/A-6", "4/E-6", "3/E-1"]),
])
def test_corner_points_are_the_design_calibration_order(board, labels):
    plane = layout(board)
    expected = np.array([plane.centre(label) for label in labels])
    assert plane.corner_points() == pytest.approx(expected)
    # Clockwise on the image from the top left: TL is the minimum, BR the maximum.
    tl, tr, br, bl = plane.corner_points()
    assert tl[0] < tr[0] and tl[1] < bl[1] and br[0] > bl[0] and br[1] > tr[1]


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_every_pair_of_neighbours_is_one_unit_apart_and_no_other_pair_is_that_close(board):
    plane = layout(board)
    geometry = plane.geometry
    centres = plane.centres
    distances = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    touching = np.zeros_like(distances, dtype=bool)
    for cell, near in enumerate(geometry.neighbours):
        touching[cell, list(near)] = True
    assert np.allclose(distances[touching], 1.0)
    others = ~touching & ~np.eye(len(centres), dtype=bool)
    if board == "acquisitions split":
        # Cells across a quadrant border touch on the table but are not neighbours in the game.
        others &= distances > 1.0 + 1e-9
    nearest_other = math.sqrt(2) if plane.kind == "square" else math.sqrt(3)
    assert distances[others].min() == pytest.approx(nearest_other)


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_the_layout_matches_the_geometry_in_size_and_kind(board):
    plane = layout(board)
    assert plane.centres.shape == (plane.geometry.size, 2)
    assert plane.centres.dtype == np.float64
    assert plane.kind == ("square" if board == "acquire" else "hex")
    assert plane.cell_radius == pytest.approx(0.5 if board == "acquire" else 1 / math.sqrt(3))


def test_polygons_are_the_cells_and_touching_hexes_share_an_edge():
    square = layout("acquire")
    assert square.polygon("1A") == pytest.approx(np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]))
    hexes = layout("megacquire odd-r")
    a1 = hexes.polygon("A-1")
    assert a1.shape == (6, 2)
    assert np.linalg.norm(a1 - hexes.centre("A-1"), axis=1) == pytest.approx([HEX_RADIUS] * 6)
    assert a1[0] == pytest.approx([0, -HEX_RADIUS])  # pointy top
    for other in ("A-2", "B-1"):
        shared = [p for p in hexes.polygon(other)
                  if np.min(np.linalg.norm(a1 - p, axis=1)) < 1e-9]
        assert len(shared) == 2
    assert hexes.polygons().shape == (182, 6, 2)


def test_bounds_and_outline():
    square = layout("acquire")
    assert square.bounds() == (-0.5, -0.5, 11.5, 8.5)
    assert square.bounds(margin=0) == (0.0, 0.0, 11.0, 8.0)
    hexes = layout("megacquire odd-r")
    x0, y0, x1, y1 = hexes.outline()[[0, 2]].ravel()
    assert (x0, x1) == pytest.approx((-0.5, 13.0))
    assert (y0, y1) == pytest.approx((-HEX_RADIUS, 13 * ROW + HEX_RADIUS))


def test_layouts_are_shared_and_read_only():
    geometry = tabletop.load_rules("acquire").geometry
    assert layout_for(geometry) is layout_for(geometry)
    with pytest.raises(ValueError):
        layout_for(geometry).centres[0, 0] = 5.0
    assert layout_for(geometry).cell("c-6") == geometry.parse("6C")


def test_neighbour_directions_cover_the_six_hex_directions():
    # Cross-check parity once more: a hex in the middle has neighbours at 0, 60, ... 300 degrees.
    for board in ("megacquire odd-r", "megacquire even-r"):
        plane = layout(board)
        for label in ("F-6", "G-6"):
            cell = plane.cell(label)
            angles = sorted(round(math.degrees(math.atan2(*(plane.centres[n] - plane.centres[cell])[::-1]))) % 360
                            for n in plane.geometry.neighbours[cell])
            assert angles == [0, 60, 120, 180, 240, 300]
