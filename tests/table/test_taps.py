"""A table with no camera plays by taps: the turn-order draw, a first placement, choices tapped in
a list; a tap on a cell that already holds a tile says what is there and changes nothing.

Real engine, real journal (a SQLite file), the real loop with no camera.
"""

from __future__ import annotations

import json

import pytest

from tabletop.journal.journal import Journal
from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.table.loop import TableLoop
from tabletop.table.seating import Seating

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
SETUP = {"setup": {"rules": "acquire", "players": PLAYERS,
                   "start_tiles": {"Ann": "1A", "Bob": "12I", "Cy": "12A", "Dee": "1I"}}}


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="test") as opened:
        yield opened


def state(assistant: Assistant) -> tuple:
    """Everything a mis-tap must leave as it was (the message aside)."""
    game, prompt = assistant.game, assistant.prompt
    return (list(assistant.table.lines), list(game.cash), [list(h) for h in game.holdings],
            list(game.board.cells), dict(assistant.flagged), prompt.kind, prompt.title,
            prompt.options, prompt.index, prompt.flagged, prompt.differences)


# --- a mis-tap on an occupied cell ----------------------------------------------------------------

def test_a_tap_on_an_occupied_cell_says_what_is_there_and_changes_nothing(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.enter("1A")                                # Ann's turn-order tile
    assert assistant.prompt.message == "1A holds a lone tile, drawn by Ann for the turn order"
    assert assistant.prompt.flagged == () and len(table.lines) == 1
    assistant.enter("1B")
    assistant.press(CONFIRM)
    assistant.choose([o.label for o in assistant.prompt.options].index("Tower"))
    assistant.press(CONFIRM)
    assistant.press(CONFIRM)                             # Ann buys nothing
    assistant.enter("6E")
    assistant.press(CONFIRM)                             # Bob: a lone tile
    before = state(assistant)
    for label, said in (("1B", "1B holds a tile of Tower, placed by Ann"),
                        ("1A", "1A holds a tile of Tower, drawn by Ann for the turn order"),
                        ("6E", "6E holds a lone tile, placed by Bob"),
                        ("12i", "12I holds a lone tile, drawn by Bob for the turn order")):
        assistant.enter(label)
        assert assistant.prompt.message == said
        assert state(assistant) == before                # no flag, no action, no proposal
    assert assistant.prompt.message.template == "{tile} holds a lone tile, drawn by {player} " \
                                                "for the turn order"
    # No undo step was made: UNDO takes back Bob's tile, the last action.
    assistant.press(UNDO)
    assert assistant.prompt.kind == "place" and assistant.prompt.player == "Bob"
    assert table.game.board.cells[table.game.geometry.parse("6E")] == -1


def test_a_tap_on_the_tile_waiting_for_confirm_keeps_it_waiting(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table, seen=["1A", "12I", "12A", "1I"])
    assistant.tile_seen("6E")
    proposal = assistant.prompt.chosen
    assistant.enter("6E")
    prompt = assistant.prompt
    assert prompt.chosen == proposal and prompt.flagged == ()
    assert prompt.message == "6E is the tile proposed: CONFIRM applies it, UNDO takes it back"
    assistant.press(CONFIRM)
    assert prompt.kind == "place" and assistant.prompt.kind == "buy"


def test_the_camera_still_flags_a_tile_seen_on_an_occupied_cell(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.tile_seen("1A")                            # the camera's sighting, not a tap
    assert assistant.prompt.flagged == ("1A",)


# --- the turn-order draw and the first placement by taps ------------------------------------------

def test_a_whole_draw_and_the_first_placement_by_taps_with_no_camera(journal):
    def start(seating: Seating) -> Assistant:
        assistant = Assistant(journal.start({"setup": seating.setup}), flagged=seating.returned)
        assistant.camera_lost("no camera")
        return assistant

    seating = Seating("acquire", PLAYERS)
    seating.camera_lost("no camera")
    loop = TableLoop(seating, camera=None, eyes=None, start=start)
    prompt = loop.desk.prompt
    assert prompt.kind == "draw" and "camera off (no camera)" in prompt.banner
    assert "tap the cell of each tile drawn" in prompt.title
    assert prompt.title == ("Each player draws a tile and places it; tap the cell of each tile "
                            "drawn: 0 of 4 in")
    for label in ("9I", "5C", "7A"):
        loop.desk.enter(label)
    loop.desk.enter("5C")                                # a second tap on a tile already in
    assert loop.desk.prompt.message == "5C is already in: UNDO takes back the last tile tapped"
    loop.press(UNDO)                                     # 7A was a mis-tap: taken back
    assert loop.desk.tiles == ["5C", "9I"] and loop.desk.prompt.title.endswith("2 of 4 in")
    loop.desk.enter("1D")
    loop.desk.enter("12A")
    loop.desk.enter("3B")                                # one more than the players
    assert loop.desk.prompt.message == ("every player's tile is in: UNDO takes back the last tile "
                                        "tapped")
    owner = {"1D": "Cy", "5C": "Ann", "9I": "Dee", "12A": "Bob"}
    while loop.desk.prompt.kind == "seat":
        prompt = loop.desk.prompt
        tile = prompt.title.removeprefix("Who drew ").rstrip("?")
        if tile == "5C":                                 # Cy drew 1D: a tap on it says so
            loop.desk.enter("1D")
            assert loop.desk.prompt.message == "1D was drawn by Cy"
        loop.desk.choose([o.label for o in prompt.options].index(owner[tile]))
        loop.press(CONFIRM)
    assistant = loop.desk
    assert isinstance(assistant, Assistant) and assistant.manual
    assert assistant.game.names[assistant.game.current] == "Cy"
    prompt = assistant.prompt
    assert prompt.title == "Cy: place a tile" and "tap" in prompt.chosen.label and prompt.banner
    loop.desk.enter("2D")                                # Cy taps her first tile in
    assert assistant.prompt.title == "Cy placed 2D: CONFIRM plays it, UNDO refuses it"
    loop.press(CONFIRM)
    game = assistant.game
    assert game.board.sizes[0] == 0 and assistant.prompt.kind == "found"
    assert game.board.cells[game.geometry.parse("2D")] == -2            # lone, waiting to found
    assert [json.loads(line) for line in assistant.table.lines[1:]] == [
        {"do": "place", "tile": "2D", "player": "Cy"}]


def test_a_tie_drawn_by_taps_is_drawn_again_by_taps():
    # ACQUISITIONS: each card has a hex in every quadrant; Ann and Bob drew the same card.
    seating = Seating("acquisitions", ["Ann", "Bob", "Cy"])
    seating.camera_lost("no camera")
    for label in ("1/A-1", "2/A-1", "3/C-4"):
        seating.enter(label)
    for _ in range(2):
        seating.press(CONFIRM)
    assert seating.setup is None and "draw again" in seating.prompt.message
    assert seating.prompt.flagged == () and seating.tiles == []    # nothing left to take off
    for label in ("1/A-1", "2/A-3", "3/C-4"):                       # the same cells may come back
        seating.enter(label)
    assert seating.prompt.kind == "seat"


# --- choices as lists to tap ----------------------------------------------------------------------

def test_choose_makes_an_option_the_chosen_one_as_next_would_and_only_confirm_applies(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.enter("1B")
    assistant.press(CONFIRM)
    assert assistant.prompt.kind == "found"
    assistant.choose(3)
    by_tap = assistant.prompt
    assistant.choose(0)
    for _ in range(3):
        assistant.press(NEXT)
    assert assistant.prompt == by_tap                    # the same prompt, chosen and effects
    assert table.game.pending.kind == "found" and len(table.lines) == 2  # nothing applied
    for wrong in (-1, 7, 99):
        assistant.choose(wrong)
        assert assistant.prompt == by_tap
    assistant.press(CONFIRM)
    chain = table.game.rules.chain_index(by_tap.chosen.label)
    assert table.game.board.sizes[chain] == 2 and table.game.holdings[0][chain] == 1


def test_seating_choose_picks_the_name_and_confirm_assigns_it():
    seating = Seating("acquire", ["Ann", "Bob", "Cy"])
    seating.changes_seen(["5C", "9I", "1D"], [])
    seating.choose(2)
    assert seating.prompt.chosen.label == "Cy" and seating.drawn == {}
    seating.choose(5)
    assert seating.prompt.chosen.label == "Cy"
    seating.press(CONFIRM)
    assert seating.drawn == {"1D": "Cy"}
