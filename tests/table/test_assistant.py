"""The assistant loop on a real engine and a real journal (a SQLite file): tiles, buttons, undo."""

from __future__ import annotations

import json

import pytest

from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.journal.journal import Journal

SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}}


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="test") as opened:
        yield opened


def choose(assistant: Assistant, label: str) -> None:
    """Press NEXT until ``label`` is the chosen option, then CONFIRM (as a player would)."""
    for _ in range(len(assistant.prompt.options)):
        if assistant.prompt.chosen.label == label:
            assistant.press(CONFIRM)
            return
        assistant.press(NEXT)
    raise AssertionError(f"{label!r} is not offered: {[o.label for o in assistant.prompt.options]}")


def test_a_tile_seen_is_proposed_and_only_confirm_applies_it(journal, tmp_path):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assert assistant.prompt.title == "Cy: place a tile"       # 1D is closest to 1A
    assistant.tile_seen("1E")
    prompt = assistant.prompt
    assert prompt.title == "Cy placed 1E: CONFIRM plays it, UNDO refuses it" and prompt.chosen.label == "1E: founds a chain"
    assert table.game.board.cells[table.game.geometry.parse("1E")] == -1   # not applied yet
    assistant.press(CONFIRM)
    assert assistant.prompt.kind == "found"
    names = [option.label for option in assistant.prompt.options]
    picked = names[3]                                            # NEXT has to reach it
    choose(assistant, picked)
    game = table.game
    tower = [chain.name for chain in game.rules.chains].index(picked)
    assert game.board.sizes[tower] == 2 and game.holdings[2][tower] == 1   # founder's share
    cash = game.cash[2]
    choose(assistant, f"+1 {picked} ({game.price(tower)})")    # into the basket: nothing paid yet
    assert game.cash[2] == cash and assistant.prompt.title.endswith(f"(so far 1 {picked})")
    choose(assistant, f"buy 1 {picked}")
    assert game.cash[2] == cash - game.price(tower) and game.holdings[2][tower] == 2
    assert assistant.prompt.title == "Ann: place a tile"
    # Every confirmed action is in the journal file, not only in memory.
    journal.close()
    with Journal.open(tmp_path / "journal.db") as again:
        resumed = again.resume(table.id)
        assert resumed.game.holdings[2][tower] == 2
        assert [line["do"] for line in map(json.loads, resumed.lines[1:])] == ["place", "found", "buy"]


def test_undo_drops_a_proposal_first_then_takes_back_the_last_action(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.tile_seen("3A")
    assistant.press(UNDO)                                        # the proposal only
    assert assistant.prompt.title == "Cy: place a tile" and len(table.game.history) == 0
    assistant.tile_seen("3A")
    assistant.press(CONFIRM)                                     # a lone tile: on to buying
    assert assistant.prompt.kind == "buy"
    assistant.press(UNDO)
    game = table.game
    assert game.board.cells[game.geometry.parse("3A")] == -1 and assistant.prompt.kind == "place"


def test_a_misread_tile_is_corrected_by_hand_before_it_is_confirmed(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.tile_seen("8A")                                    # the camera misread 3A
    assistant.press(UNDO)
    assistant.enter("3A")
    assistant.press(CONFIRM)
    game = table.game
    assert game.board.cells[game.geometry.parse("3A")] != -1
    assert game.board.cells[game.geometry.parse("8A")] == -1


def test_a_refused_tile_is_explained_flagged_until_taken_off_and_changes_nothing(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    before = table.game.script()
    assistant.tile_seen("5C")                                    # Ann's start tile lies there
    prompt = assistant.prompt
    assert "already holds a tile" in prompt.message and prompt.flagged == ("5C",)
    assistant.press(CONFIRM)                                     # nothing is proposed
    assert table.game.script() == before and "nothing to confirm" in assistant.prompt.message
    assistant.tile_removed("5C")
    assert assistant.prompt.flagged == () and assistant.prompt.message == ""
    assistant.tile_seen("2B")                                    # play goes on
    assistant.press(CONFIRM)
    assert table.game.script() != before


def test_a_tile_placed_while_something_else_is_asked_is_flagged_not_applied(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.tile_seen("1E")
    assistant.press(CONFIRM)                                     # now: which chain to found?
    assistant.tile_seen("7G")
    assert assistant.prompt.kind == "found" and assistant.prompt.flagged == ("7G",)
    assert table.game.board.cells[table.game.geometry.parse("7G")] == -1


def test_next_cycles_through_every_option_and_back(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.tile_seen("1E")
    assistant.press(CONFIRM)
    seen = []
    for _ in range(len(assistant.prompt.options) + 1):
        seen.append(assistant.prompt.chosen.label)
        assistant.press(NEXT)
    assert seen[0] == seen[-1] and len(set(seen)) == len(assistant.prompt.options) == 7


def test_an_unknown_button_is_refused_with_the_names_of_the_buttons(journal):
    assistant = Assistant(journal.start(SETUP))
    with pytest.raises(ValueError, match="confirm, next, undo"):
        assistant.press("OK")
