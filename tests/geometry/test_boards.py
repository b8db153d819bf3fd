"""Board geometry (RULES.md sections 1-3, DESIGN.md's vision contract).

Classic Acquire: 12 columns x 9 rows, labels 1A..12I (number = column, letter =
row), square adjacency, never diagonal, turn order "closest to 1A": lower number
first, then lower letter. MEGAcquire GOLD: 14 x 13 pointy-top hexes A-1..N-13 in
offset rows (option hex_offset). ACQUISITIONS: four 5 x 6 hex quadrants, hexes
labelled Q/L, cards A-1..E-6 playable in any quadrant."""

from __future__ import annotations

import pytest

from tabletop.errors import IllegalAction, RulesFileError
from tabletop.geometry import GEOMETRIES, HexGrid, QuadrantBoard, SquareGrid, make_geometry

LETTERS = "ABCDEFGHI"


@pytest.fixture(scope="module")
def board() -> SquareGrid:
    return SquareGrid(columns=12, rows=9)


def labels_of(board, cells):
    return sorted(board.label(c) for c in cells)


# --- parsing ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["6C", "6c", "C6", "c6", "c-6", " 6C ", "6-c", "C-6", "6 C"])
def test_lenient_labels_give_the_canonical_label(board, text):
    cell = board.parse(text)
    assert board.label(cell) == "6C"
    assert cell == board.labels.index("6C")


def test_every_canonical_label_round_trips(board):
    assert board.size == 108
    for number in range(1, 13):
        for letter in LETTERS:
            label = f"{number}{letter}"
            assert board.label(board.parse(label)) == label
            assert board.label(board.parse(f"{letter.lower()}-{number}")) == label


def test_labels_are_the_108_cells_1A_to_12I(board):
    expected = {f"{n}{l}" for n in range(1, 13) for l in LETTERS}
    assert set(board.labels) == expected
    assert len(board.labels) == 108


@pytest.mark.parametrize("text", ["13A", "0A", "1J", "A", "66", "", None, 5, "J1", "6C6", "Z0"])
def test_bad_labels_are_refused_readably(board, text):
    with pytest.raises(IllegalAction) as caught:
        board.parse(text)
    message = str(caught.value)
    assert repr(text) in message          # says what was wrong
    assert "1A..12I" in message           # and what would have been right


def test_illegal_action_is_a_value_error_for_callers_that_catch_that(board):
    with pytest.raises(ValueError):
        board.parse("13A")


# --- adjacency ----------------------------------------------------------------

@pytest.mark.parametrize("label, expected", [
    ("1A", ["1B", "2A"]),
    ("12I", ["11I", "12H"]),
    ("12A", ["11A", "12B"]),
    ("1I", ["1H", "2I"]),
    ("6E", ["5E", "6D", "6F", "7E"]),
    ("6A", ["5A", "6B", "7A"]),
    ("1E", ["1D", "1F", "2E"]),
])
def test_neighbours_of_corners_edges_and_centre(board, label, expected):
    assert labels_of(board, board.neighbours[board.parse(label)]) == sorted(expected)


def test_never_diagonal_and_symmetric_everywhere(board):
    def position(cell):
        label = board.label(cell)
        return int(label[:-1]), LETTERS.index(label[-1])

    for cell in range(board.size):
        near = board.neighbours[cell]
        assert list(near) == sorted(near)      # documented: increasing order
        col, row = position(cell)
        for other in near:
            ocol, orow = position(other)
            assert abs(col - ocol) + abs(row - orow) == 1, (board.label(cell), board.label(other))
            assert cell in board.neighbours[other]
        on_edge = (col in (1, 12)) + (row in (0, 8))
        assert len(near) == 4 - on_edge


def test_6E_does_not_touch_its_diagonals(board):
    near = labels_of(board, board.neighbours[board.parse("6E")])
    for diagonal in ("5D", "5F", "7D", "7F"):
        assert diagonal not in near


# --- turn order: closest to 1A ------------------------------------------------

def test_closest_to_1A_lower_number_first_then_lower_letter(board):
    p = board.parse
    assert p("1A") < p("1B") < p("2A")
    assert p("1I") < p("2A")            # number decides before letter
    assert p("9A") < p("10A") < p("12A")  # numeric, not string, order
    assert p("11I") < p("12A")


def test_sorting_cells_gives_rulebook_turn_order(board):
    tiles = ["12A", "2A", "1I", "10B", "1B", "9I", "1A", "2B"]
    order = [board.label(c) for c in sorted(board.parse(t) for t in tiles)]
    assert order == ["1A", "1B", "1I", "2A", "2B", "9I", "10B", "12A"]
    assert board.label(min(board.parse(t) for t in ["5C", "1D", "9I"])) == "1D"


# --- tile numbers -------------------------------------------------------------

def test_tile_number_is_the_column_number(board):
    for number in range(1, 13):
        for letter in LETTERS:
            assert board.tile_number(board.parse(f"{number}{letter}")) == number
    assert board.tile_number(board.parse("12I")) == 12
    assert board.tile_number(board.parse("1I")) == 1


# --- building from a rule file's [board] table ---------------------------------

def test_make_geometry_builds_the_square_board():
    geometry = make_geometry({"kind": "square", "columns": 12, "rows": 9})
    assert isinstance(geometry, SquareGrid)
    assert geometry.size == 108
    assert geometry.first_label == "1A"
    assert geometry.labels[-1] == "12I"


@pytest.mark.parametrize("board", [
    {"kind": "octagon", "columns": 12, "rows": 9},
    {"columns": 12, "rows": 9},
])
def test_make_geometry_refuses_unknown_kinds_naming_board_kind(board):
    with pytest.raises(RulesFileError) as caught:
        make_geometry(board)
    assert "board.kind" in str(caught.value)
    assert "square" in str(caught.value)   # lists the known kinds


@pytest.mark.parametrize("board, key", [
    ({"kind": "square", "columns": "12", "rows": 9}, "board.columns"),
    ({"kind": "square", "columns": 12}, "board.rows"),
    ({"kind": "square", "columns": 12, "rows": True}, "board.rows"),
])
def test_make_geometry_refuses_bad_dimensions_naming_the_key(board, key):
    with pytest.raises(RulesFileError, match=key.replace(".", r"\.")):
        make_geometry(board)


# --- square board on the table: grid positions and calibration corners ----------

def test_square_grid_position_and_corners(board):
    assert (board.rows, board.columns) == (9, 12)
    assert board.grid_position(board.parse("1A")) == (0, 0)
    assert board.grid_position(board.parse("12A")) == (0, 11)
    assert board.grid_position(board.parse("6C")) == (2, 5)
    assert [board.label(c) for c in board.corners()] == ["1A", "12A", "12I", "1I"]
    positions = {board.grid_position(c) for c in range(board.size)}
    assert positions == {(r, c) for r in range(9) for c in range(12)}


def test_square_parse_tile_is_the_cell(board):
    assert board.parse_tile("c-6") == board.parse("6C")
    assert board.tile_labels[board.parse_tile(" 6c ")] == "6C"
    with pytest.raises(IllegalAction):
        board.parse_tile("13A")


# --- MEGAcquire GOLD: 182 hexes A-1..N-13 ----------------------------------------

HEX_LETTERS = "ABCDEFGHIJKLMN"


@pytest.fixture(scope="module", params=["odd-r", "even-r"])
def hexes(request) -> HexGrid:
    return HexGrid(rows=14, columns=13, offset=request.param)


@pytest.fixture(scope="module")
def odd() -> HexGrid:
    return HexGrid(rows=14, columns=13, offset="odd-r")


@pytest.fixture(scope="module")
def even() -> HexGrid:
    return HexGrid(rows=14, columns=13, offset="even-r")


def near(geometry, label):
    return labels_of(geometry, geometry.neighbours[geometry.parse(label)])


def test_hex_board_has_182_cells_labelled_A1_to_N13(hexes):
    assert hexes.size == 182
    assert (hexes.rows, hexes.columns) == (14, 13)
    assert set(hexes.labels) == {f"{l}-{n}" for l in HEX_LETTERS for n in range(1, 14)}
    assert hexes.first_label == "A-1"
    assert hexes.example_labels == "A-1..N-13"
    assert hexes.tile_labels == hexes.labels          # one tile per hex


def test_hex_labels_round_trip(hexes):
    for cell, label in enumerate(hexes.labels):
        assert hexes.parse(label) == cell
        assert hexes.label(cell) == label
        letter, number = label.split("-")
        assert hexes.parse(f"{number}{letter.lower()}") == cell


def test_hex_cells_are_row_major_so_order_is_letter_then_number(hexes):
    p = hexes.parse
    assert [hexes.label(c) for c in range(15)][12:] == ["A-13", "B-1", "B-2"]
    assert p("A-1") < p("A-2") < p("A-13") < p("B-1")     # letter decides first
    assert p("A-9") < p("A-10")                            # numeric, not string, order
    tiles = ["C-2", "A-13", "B-1", "A-2", "N-1"]
    assert [hexes.label(c) for c in sorted(p(t) for t in tiles)] == [
        "A-2", "A-13", "B-1", "C-2", "N-1"]
    for cell in range(hexes.size):
        assert hexes.grid_position(cell) == (cell // 13, cell % 13)


@pytest.mark.parametrize("text", ["A-1", "a1", "A1", "a 1", "1A", "1-a", " a-01 "])
def test_hex_lenient_labels(hexes, text):
    assert hexes.label(hexes.parse(text)) == "A-1"


@pytest.mark.parametrize("text, label", [(" b-07 ", "B-7"), ("n13", "N-13"), ("13 N", "N-13"),
                                         ("c-5", "C-5"), ("5c", "C-5")])
def test_hex_lenient_labels_give_the_canonical_label(hexes, text, label):
    assert hexes.label(hexes.parse(text)) == label


@pytest.mark.parametrize("text", ["O-1", "A-14", "A-0", "", None, 12, "A", "1", "AA-1", "1/A-1"])
def test_hex_bad_labels_are_refused_readably(hexes, text):
    with pytest.raises(IllegalAction) as caught:
        hexes.parse(text)
    assert repr(text) in str(caught.value)
    assert "A-1..N-13" in str(caught.value)


def test_hex_tile_number_is_the_column_number(hexes):
    for cell, label in enumerate(hexes.labels):
        assert hexes.tile_number(hexes.tile_of[cell]) == int(label.split("-")[1])
    assert hexes.parse_tile("n-13") == hexes.parse("N-13")


def test_hex_corners_in_calibration_order(hexes):
    assert [hexes.label(c) for c in hexes.corners()] == ["A-1", "A-13", "N-13", "N-1"]


# odd-r: rows B, D, ... (index 1, 3, ...) are shoved right by half a hex.
@pytest.mark.parametrize("label, expected", [
    ("B-5", ["A-5", "A-6", "B-4", "B-6", "C-5", "C-6"]),
    ("C-5", ["B-4", "B-5", "C-4", "C-6", "D-4", "D-5"]),
    ("A-1", ["A-2", "B-1"]),
    ("A-13", ["A-12", "B-12", "B-13"]),
    ("N-13", ["M-13", "N-12"]),
    ("N-1", ["M-1", "M-2", "N-2"]),
    ("B-1", ["A-1", "A-2", "B-2", "C-1", "C-2"]),
    ("B-13", ["A-13", "B-12", "C-13"]),
    ("C-1", ["B-1", "C-2", "D-1"]),
    ("A-7", ["A-6", "A-8", "B-6", "B-7"]),
])
def test_odd_r_neighbours_of_named_hexes(odd, label, expected):
    assert near(odd, label) == sorted(expected)


# even-r: rows A, C, ... are shoved right instead: the mirror image.
@pytest.mark.parametrize("label, expected", [
    ("B-5", ["A-4", "A-5", "B-4", "B-6", "C-4", "C-5"]),
    ("C-5", ["B-5", "B-6", "C-4", "C-6", "D-5", "D-6"]),
    ("A-1", ["A-2", "B-1", "B-2"]),
    ("A-13", ["A-12", "B-13"]),
    ("N-13", ["M-12", "M-13", "N-12"]),
    ("N-1", ["M-1", "N-2"]),
    ("B-1", ["A-1", "B-2", "C-1"]),
    ("B-13", ["A-12", "A-13", "B-12", "C-12", "C-13"]),
    ("A-7", ["A-6", "A-8", "B-7", "B-8"]),
])
def test_even_r_neighbours_of_named_hexes(even, label, expected):
    assert near(even, label) == sorted(expected)


def hex_oracle(geometry, cell, shoved_parity):
    """The cells whose centres lie one hex away, worked out from centre positions."""
    def centre(c):
        row, col = geometry.grid_position(c)
        return row, col + (0.5 if row % 2 == shoved_parity else 0.0)

    row, x = centre(cell)
    return sorted(other for other in range(geometry.size)
                  if (centre(other)[0] == row and abs(centre(other)[1] - x) == 1)
                  or (abs(centre(other)[0] - row) == 1 and abs(centre(other)[1] - x) == 0.5))


def test_hex_adjacency_matches_the_hex_centres_everywhere(hexes):
    shoved_parity = 1 if hexes.offset == "odd-r" else 0
    for cell in range(hexes.size):
        assert list(hexes.neighbours[cell]) == hex_oracle(hexes, cell, shoved_parity), \
            hexes.label(cell)


def test_hex_adjacency_is_symmetric_sorted_and_never_crosses_a_row_end(hexes):
    for cell in range(hexes.size):
        row, col = hexes.grid_position(cell)
        nearby = hexes.neighbours[cell]
        assert list(nearby) == sorted(nearby)
        assert cell not in nearby
        for other in nearby:
            assert cell in hexes.neighbours[other]
            orow, ocol = hexes.grid_position(other)
            assert abs(orow - row) <= 1 and abs(ocol - col) <= 1
            if orow == row:
                assert abs(ocol - col) == 1
        if 0 < row < 13 and 0 < col < 12:
            assert len(nearby) == 6, hexes.label(cell)
        else:
            assert 2 <= len(nearby) <= 5, hexes.label(cell)


@pytest.mark.parametrize("args", [
    (14, 13, "odd-q"), (14, 13, "odd"), (14, 13, None), (0, 13, "odd-r"),
    (27, 13, "odd-r"), (14, 0, "odd-r"), (14, True, "odd-r"),
])
def test_hex_board_refuses_bad_offset_or_sizes(args):
    with pytest.raises(RulesFileError):
        HexGrid(*args)


# --- ACQUISITIONS: four quadrants of 5 x 6 hexes ----------------------------------

@pytest.fixture(scope="module")
def quads() -> QuadrantBoard:
    return QuadrantBoard(quadrant_rows=5, quadrant_columns=6, offset="odd-r", connect=True)


@pytest.fixture(scope="module")
def apart() -> QuadrantBoard:
    return QuadrantBoard(quadrant_rows=5, quadrant_columns=6, offset="odd-r", connect=False)


CARDS = [f"{l}-{n}" for l in "ABCDE" for n in range(1, 7)]


def test_quadrant_board_has_120_hexes_and_30_cards(quads):
    assert quads.size == 120
    assert (quads.rows, quads.columns) == (10, 12)
    assert list(quads.tile_labels) == CARDS
    assert quads.first_label == "1/A-1"
    assert quads.example_labels == "1/A-1..4/E-6"
    assert set(quads.labels) == {f"{q}/{card}" for q in range(1, 5) for card in CARDS}


def test_each_card_names_its_hex_in_quadrants_1_to_4(quads):
    seen = []
    for tile, card in enumerate(quads.tile_labels):
        cells = quads.cells_of[tile]
        assert [quads.label(c) for c in cells] == [f"{q}/{card}" for q in (1, 2, 3, 4)]
        assert [quads.quadrant(c) for c in cells] == [1, 2, 3, 4]
        assert all(quads.tile_of[c] == tile for c in cells)
        seen += cells
    assert sorted(seen) == list(range(120))


def test_quadrant_cells_are_row_major_on_the_whole_grid(quads):
    p = quads.parse
    assert p("1/A-1") == 0
    assert p("1/A-6") == 5 and p("2/A-1") == 6 and p("2/A-6") == 11
    assert p("1/B-1") == 12
    assert p("3/A-1") == 5 * 12 and p("4/E-6") == 119
    assert quads.grid_position(p("3/C-4")) == (7, 3)
    assert quads.grid_position(p("2/B-2")) == (1, 7)
    assert quads.grid_position(p("4/E-6")) == (9, 11)
    for cell in range(120):
        assert quads.grid_position(cell) == divmod(cell, 12)


def test_quadrant_corners_in_calibration_order(quads):
    assert [quads.label(c) for c in quads.corners()] == ["1/A-1", "2/A-6", "4/E-6", "3/E-1"]


def test_cards_sort_letter_first_then_number(quads):
    p = quads.parse_tile
    assert p("A-6") < p("B-1")
    assert p("A-1") < p("A-2") < p("A-6") < p("B-1") < p("E-6")
    assert [quads.tile_labels[t] for t in sorted(p(c) for c in ["B-1", "A-6", "E-1", "A-2"])] \
        == ["A-2", "A-6", "B-1", "E-1"]


def test_quadrant_tile_number_is_the_card_column(quads):
    for tile, card in enumerate(quads.tile_labels):
        assert quads.tile_number(tile) == int(card.split("-")[1])


@pytest.mark.parametrize("text", ["3/C-4", "3/c4", "3 C-4", "3-C-4", "3:c-4", "3/4C", " 3 / c-04 ",
                                  "3/C4", "3 4c"])
def test_quadrant_lenient_labels(quads, text):
    assert quads.label(quads.parse(text)) == "3/C-4"
    assert quads.tile_labels[quads.parse_tile(text)] == "C-4"


@pytest.mark.parametrize("text", ["C-4", "c4", "4C", "4-c"])
def test_parse_refuses_a_card_without_its_quadrant(quads, text):
    with pytest.raises(IllegalAction) as caught:
        quads.parse(text)
    message = str(caught.value)
    assert "C-4 may be played in any quadrant" in message
    assert "Q/L" in message and "3/C-4" in message


@pytest.mark.parametrize("text", ["C-4", "c4", "4C", " c-04 "])
def test_parse_tile_reads_a_plain_card(quads, text):
    assert quads.tile_labels[quads.parse_tile(text)] == "C-4"


@pytest.mark.parametrize("text", ["5/A-1", "0/A-1", "1/F-1", "1/A-7", "F-1", "A-7", "", None, 12,
                                  "34C", "1/"])
def test_quadrant_bad_labels_are_refused_readably(quads, text):
    for read in (quads.parse, quads.parse_tile):
        with pytest.raises(IllegalAction) as caught:
            read(text)
        assert repr(text) in str(caught.value)
        assert "1/A-1..4/E-6" in str(caught.value)


def test_quadrants_connect_across_their_borders(quads, apart):
    # 1/E-3 is global row 4 (unshoved with odd-r): it touches 3/A-2 and 3/A-3 below.
    assert near(quads, "1/E-3") == ["1/D-2", "1/D-3", "1/E-2", "1/E-4", "3/A-2", "3/A-3"]
    assert any(quads.quadrant(c) == 3 for c in quads.neighbours[quads.parse("1/E-3")])
    assert near(apart, "1/E-3") == ["1/D-2", "1/D-3", "1/E-2", "1/E-4"]
    assert "2/A-1" in near(quads, "1/A-6")
    assert "2/A-1" not in near(apart, "1/A-6")
    assert "1/A-6" in near(quads, "2/A-1")
    # 4/A-1 (global row 5, shoved with odd-r) leans right: quadrant 1 is out of reach.
    assert near(quads, "4/A-1") == ["2/E-1", "2/E-2", "3/A-6", "4/A-2", "4/B-1", "4/B-2"]
    assert near(apart, "4/A-1") == ["4/A-2", "4/B-1", "4/B-2"]
    # 3/A-6, beside it, touches all three other quadrants.
    assert near(quads, "3/A-6") == ["1/E-6", "2/E-1", "3/A-5", "3/B-6", "4/A-1", "4/B-1"]
    assert near(apart, "3/A-6") == ["3/A-5", "3/B-6"]


@pytest.mark.parametrize("offset", ["odd-r", "even-r"])
@pytest.mark.parametrize("connect", [True, False])
def test_quadrant_adjacency_is_the_whole_grids_hex_adjacency(offset, connect):
    quads = QuadrantBoard(5, 6, offset=offset, connect=connect)
    whole = HexGrid(rows=10, columns=12, offset=offset)
    for cell in range(120):
        expected = [c for c in whole.neighbours[cell]
                    if connect or quads.quadrant(c) == quads.quadrant(cell)]
        assert list(quads.neighbours[cell]) == expected
        for other in quads.neighbours[cell]:
            assert cell in quads.neighbours[other]


def test_unconnected_quadrants_are_separate_boards_with_row_parity_from_the_top(apart):
    # Rows count from quadrant 1's row A, so quadrants 3 and 4 (starting at global
    # row 5) have their parity flipped against a standalone 5 x 6 board.
    for quadrant, offset in [(1, "odd-r"), (2, "odd-r"), (3, "even-r"), (4, "even-r")]:
        alone = HexGrid(rows=5, columns=6, offset=offset)
        for tile, card in enumerate(apart.tile_labels):
            cell = apart.cells_of[tile][quadrant - 1]
            assert [apart.tile_labels[apart.tile_of[c]] for c in apart.neighbours[cell]] \
                == near(alone, card), (quadrant, card)


@pytest.mark.parametrize("args", [
    (5, 6, "odd-q", True), (0, 6, "odd-r", True), (5, 0, "odd-r", True), (27, 6, "even-r", True),
])
def test_quadrant_board_refuses_bad_offset_or_sizes(args):
    with pytest.raises(RulesFileError):
        QuadrantBoard(*args)


# --- building hex boards from a rule file ------------------------------------------

def test_make_geometry_builds_the_hex_board_default_odd_r():
    geometry = make_geometry({"kind": "hex", "rows": 14, "columns": 13})
    assert isinstance(geometry, HexGrid)
    assert geometry.offset == "odd-r"
    assert geometry.size == 182
    assert near(geometry, "B-5") == ["A-5", "A-6", "B-4", "B-6", "C-5", "C-6"]


def test_make_geometry_reads_the_hex_offset_option():
    geometry = make_geometry({"kind": "hex", "rows": 14, "columns": 13}, {"hex_offset": "even-r"})
    assert geometry.offset == "even-r"
    assert near(geometry, "B-5") == ["A-4", "A-5", "B-4", "B-6", "C-4", "C-5"]


def test_make_geometry_builds_the_quadrant_board():
    board = {"kind": "quadrants", "quadrant_rows": 5, "quadrant_columns": 6}
    geometry = make_geometry(board)
    assert isinstance(geometry, QuadrantBoard)
    assert (geometry.offset, geometry.connect, geometry.size) == ("odd-r", True, 120)
    apart = make_geometry(board, {"quadrants_connect": False, "hex_offset": "even-r"})
    assert (apart.offset, apart.connect) == ("even-r", False)
    assert "2/A-1" not in near(apart, "1/A-6")


@pytest.mark.parametrize("board, options, words", [
    ({"kind": "hex", "rows": 14, "columns": 13}, {"hex_offset": "odd-q"}, "hex_offset"),
    ({"kind": "quadrants", "quadrant_rows": 5, "quadrant_columns": 6}, {"hex_offset": "x"},
     "hex_offset"),
    ({"kind": "quadrants", "quadrant_rows": 5, "quadrant_columns": 6},
     {"quadrants_connect": "yes"}, "quadrants_connect"),
    ({"kind": "hex", "rows": 14}, {}, "board.columns"),
    ({"kind": "quadrants", "quadrant_rows": 5, "columns": 6}, {}, "board.quadrant_columns"),
    ({"kind": "quadrants", "quadrant_rows": "5", "quadrant_columns": 6}, {}, "board.quadrant_rows"),
])
def test_make_geometry_refuses_bad_hex_boards_naming_the_key(board, options, words):
    with pytest.raises(RulesFileError) as caught:
        make_geometry(board, options)
    assert words in str(caught.value)


def test_registry_lists_every_board_kind():
    assert {"square", "hex", "quadrants"} <= set(GEOMETRIES)
