"""The turn-order draw at the table: tiles seen all at once, who drew which, the first player;
ties draw again; in the hex games the tiles then go back in the bag (their removal expected)."""

from __future__ import annotations

import json

import pytest

from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.errors import IllegalAction
from tabletop.journal.journal import Journal
from tabletop.table.seating import Seating


def answer(seating: Seating, owner: dict[str, str]) -> None:
    """Say who drew each tile asked about, with NEXT and CONFIRM."""
    while seating.prompt.kind == "seat":
        tile = seating.prompt.title.removeprefix("Who drew ").rstrip("?")
        for _ in range(len(seating.prompt.options)):
            if seating.prompt.chosen.label == owner[tile]:
                break
            seating.press(NEXT)
        seating.press(CONFIRM)


def test_tiles_seen_at_once_then_the_table_says_whose_and_the_engine_names_the_first(tmp_path):
    seating = Seating("acquire", ["Ann", "Bob", "Cy", "Dee"])
    assert seating.prompt.kind == "draw"
    seating.changes_seen(["9I", "5C", "1D", "12A"], [], "4 new tiles at once")
    assert seating.prompt.title == "Who drew 1D?"          # the board's order: 1D first
    assert [o.label for o in seating.prompt.options] == ["Ann", "Bob", "Cy", "Dee"]
    answer(seating, {"1D": "Cy", "5C": "Ann", "9I": "Dee", "12A": "Bob"})
    assert seating.first == "Cy" and "Cy starts" in seating.prompt.message
    assert seating.setup["start_tiles"] == {"Cy": "1D", "Ann": "5C", "Dee": "9I", "Bob": "12A"}
    # The setup line starts the game in the journal, Cy to play, the tiles on the board.
    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": seating.setup})
        assistant = Assistant(table, seen=seating.tiles, flagged=seating.returned)
        assert assistant.prompt.title == "Cy: place a tile"
        assert assistant.prompt.differences == () and assistant.prompt.flagged == ()
        assert json.loads(table.lines[0])["setup"]["start_tiles"]["Cy"] == "1D"


def test_the_last_tile_is_implied_and_undo_takes_an_answer_back():
    seating = Seating("acquire", ["Ann", "Bob", "Cy"])
    for tile in ("5C", "1D", "9I"):                      # seen one at a time, or tapped in
        seating.tile_seen(tile)
    seating.press(CONFIRM)                               # Ann drew 1D
    assert seating.prompt.title == "Who drew 5C?"
    seating.press(UNDO)
    assert seating.prompt.title == "Who drew 1D?"
    seating.press(NEXT)
    seating.press(CONFIRM)                               # Bob drew 1D
    seating.press(CONFIRM)                               # Ann drew 5C; Cy 9I is implied
    assert seating.setup["start_tiles"] == {"Bob": "1D", "Ann": "5C", "Cy": "9I"}
    assert seating.first == "Bob"


def test_too_many_tiles_are_named_and_a_removed_one_is_forgotten():
    seating = Seating("acquire", ["Ann", "Bob"])
    seating.changes_seen(["5C", "1D", "9I"], [])
    assert seating.prompt.kind == "draw" and "3 tiles for 2 players" in seating.prompt.message
    seating.changes_seen([], ["9I"])
    assert seating.prompt.kind == "seat" and seating.prompt.message == ""


def test_a_tie_for_first_draws_again():
    # ACQUISITIONS: each card has a hex in every quadrant; two players drew the same card.
    seating = Seating("acquisitions", ["Ann", "Bob", "Cy"])
    seating.changes_seen(["1/A-1", "2/A-1", "3/C-4"], [])
    answer(seating, {"1/A-1": "Ann", "2/A-1": "Bob", "3/C-4": "Cy"})
    assert seating.setup is None and "draw again" in seating.prompt.message
    assert set(seating.prompt.flagged) == {"1/A-1", "2/A-1", "3/C-4"}
    for tile in ("1/A-1", "2/A-1", "3/C-4"):
        seating.changes_seen([], [tile])
    assert seating.prompt.flagged == () and seating.prompt.kind == "draw"
    seating.changes_seen(["1/B-2", "2/A-3", "3/C-4"], [])
    answer(seating, {"1/B-2": "Ann", "2/A-3": "Bob", "3/C-4": "Cy"})
    assert seating.first == "Bob"                        # A-3 is closer to A-1 than B-2


def test_in_the_hex_games_the_drawn_tiles_go_back_and_their_removal_is_expected(tmp_path):
    seating = Seating("megacquire-gold", ["Ann", "Bob"])
    seating.changes_seen(["C-4", "H-9"], [])
    answer(seating, {"C-4": "Bob", "H-9": "Ann"})
    assert seating.first == "Bob" and set(seating.returned) == {"C-4", "H-9"}
    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": seating.setup})
        assistant = Assistant(table, seen=seating.tiles, flagged=seating.returned)
        assert set(assistant.prompt.flagged) == {"C-4", "H-9"}
        assert assistant.prompt.differences == ()        # expected on the board, not in the game
        assistant.changes_seen([], ["C-4", "H-9"], "tiles gone from C-4, H-9: not committed")
        assert assistant.prompt.flagged == () and assistant.prompt.message == ""
        assert assistant.prompt.differences == () and assistant.prompt.title == "Bob: place a tile"


def test_bad_seats_are_refused_before_any_tile_is_drawn():
    with pytest.raises(IllegalAction, match="same name"):
        Seating("acquire", ["Ann", "Ann"])
    with pytest.raises(IllegalAction, match="2-6 players"):
        Seating("acquire", ["Ann"])
