"""Board geometry of classic Acquire (RULES.md section 1): 12 columns x 9 rows,
labels 1A..12I (number = column, letter = row), square adjacency, never diagonal,
turn order "closest to 1A": lower number first, then lower letter."""

from __future__ import annotations

import pytest

from tabletop.errors import IllegalAction, RulesFileError
from tabletop.geometry import SquareGrid, make_geometry

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
