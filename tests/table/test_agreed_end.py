"""Ending by agreement asks every player: one player's NEXT, NEXT, CONFIRM no longer ends the game.

Real engine, real journal (a SQLite file); the game is played through the assistant by taps.
"""

from __future__ import annotations

import json

import pytest

from tabletop.engine import actions as act
from tabletop.journal.journal import Journal
from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.table.prompts import Option

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
#: Ann's 1A is closest to 1A: she plays first, then Bob, Cy, Dee.
SETUP = {"setup": {"rules": "acquire", "players": PLAYERS,
                   "start_tiles": {"Ann": "1A", "Bob": "12I", "Cy": "12A", "Dee": "1I"}}}


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="test") as opened:
        yield opened


def tap(assistant: Assistant, label: str) -> None:
    """Choose the option called ``label`` from the list (a tap) and CONFIRM it."""
    labels = [option.label for option in assistant.prompt.options]
    assistant.choose(labels.index(label))
    assistant.press(CONFIRM)


def books(table) -> tuple:
    game = table.game
    return (list(game.cash), [list(held) for held in game.holdings], list(game.bank),
            list(table.lines), game.end_declared)


def founded(journal):
    """Ann has founded Tower (1A, 1B) and holds its free share; she is asked to buy."""
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.enter("1B")
    assistant.press(CONFIRM)
    tap(assistant, "Tower")
    assert assistant.prompt.kind == "buy" and assistant.prompt.player == "Ann"
    return table, assistant


def test_one_player_can_no_longer_end_the_game_with_next_and_confirm(journal):
    table, assistant = founded(journal)
    for _ in range(2):      # the buy prompt, then (after buying nothing) Bob's placement
        options = assistant.prompt.options
        assert not any(isinstance(o.action, act.End) for o in options), \
            [o.label for o in options]
        before = books(table)
        for _ in options:                                # every option NEXT reaches, unconfirmed
            assistant.press(NEXT)
        assert books(table) == before and assistant.prompt.index == 0
        if assistant.prompt.kind == "buy":
            tap(assistant, "buy nothing")
    # NEXT, NEXT, CONFIRM at a placement: no end, whatever it chose.
    assistant.press(NEXT)
    assistant.press(NEXT)
    assistant.press(CONFIRM)
    assert not table.game.end_declared
    assert not any(json.loads(line).get("do") == "end" for line in table.lines[1:])


def test_an_agreed_end_asks_each_of_four_players_and_ends_only_when_all_agree(journal):
    table, assistant = founded(journal)
    assert assistant.end_proposable
    assistant.propose_end()
    asked = []
    for answer in range(4):
        prompt = assistant.prompt
        assert prompt.kind == "agree"
        assert prompt.options == (Option("agree", None, command="agree"),
                                  Option("refuse", None, command="refuse"))
        assert "Choose agree or refuse, then CONFIRM" in prompt.title and prompt.title.startswith(
            f"{prompt.player}: ")
        if answer:
            assert "Ann proposes" in prompt.title       # the proposer is named to the others
        assert not table.game.end_declared and len(table.lines) == 3
        asked.append(prompt.player)
        assistant.press(CONFIRM)
    assert asked == ["Ann", "Bob", "Cy", "Dee"]          # the proposer first, then in turn
    assert table.game.end_declared and table.game.end_agreed
    assert json.loads(table.lines[-1]) == {"do": "end", "agreed": True, "player": "Ann"}
    # The turn is finished (Acquire: finish_turn), then the game is scored.
    assert assistant.prompt.kind == "buy" and not assistant.end_proposable
    tap(assistant, "buy nothing")
    assert assistant.prompt.kind == "over"


def test_one_refusal_cancels_the_asking_and_nothing_changes(journal):
    table, assistant = founded(journal)
    tower = table.game.rules.chain_index("Tower")
    assistant.set_purchase(tower, 2)                     # a purchase half put together
    assistant.choose(1)
    before, chosen = books(table), assistant.prompt.chosen
    assistant.propose_end()
    assistant.press(CONFIRM)                             # Ann
    assistant.press(CONFIRM)                             # Bob
    assert assistant.prompt.message == "agreed so far: Ann, Bob"
    assistant.press(NEXT)                                # Cy: "refuse" is shown...
    assert assistant.prompt.chosen.label == "refuse" and assistant.prompt.player == "Cy"
    assistant.press(CONFIRM)                             # ...and confirmed
    prompt = assistant.prompt
    assert prompt.message == "Cy refused to end the game"
    assert prompt.message.template == "{player} refused to end the game"
    assert prompt.kind == "buy" and prompt.player == "Ann" and prompt.chosen == chosen
    assert assistant.basket == (tower, tower)            # play resumes where it was
    assert books(table) == before
    assert assistant.end_proposable                      # it may be proposed again


def test_undo_steps_back_one_answer_and_cancels_at_the_first(journal):
    table, assistant = founded(journal)
    before = books(table)
    assistant.propose_end()
    assistant.press(CONFIRM)
    assistant.press(CONFIRM)
    assert assistant.prompt.player == "Cy"
    assistant.press(UNDO)
    assert assistant.prompt.player == "Bob"              # Bob's answer taken back
    assistant.press(UNDO)
    assert assistant.prompt.player == "Ann" and assistant.prompt.kind == "agree"
    assistant.press(UNDO)                                # called off: back to buying
    assert assistant.prompt.kind == "buy" and books(table) == before
    assistant.press(UNDO)                                # now UNDO takes back the founding
    assert assistant.prompt.kind == "found"


def test_a_tile_placed_while_the_table_is_asked_is_flagged_not_applied(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table, seen=["1A", "12I", "12A", "1I"])
    assistant.propose_end()
    before = books(table)
    assistant.tile_seen("6E")                            # the camera sees a tile put down
    prompt = assistant.prompt
    assert prompt.kind == "agree" and prompt.flagged == ("6E",)
    assert prompt.message == ("6E was placed while the table decides whether to end the game: "
                              "take it off")
    assistant.press(NEXT)
    assistant.press(CONFIRM)                             # Ann withdraws it after all
    assert assistant.prompt.kind == "place" and books(table) == before


def test_an_end_that_may_not_be_agreed_now_is_refused_with_a_reason_and_nothing_changes(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.enter("1B")                                # a tile waits for CONFIRM
    assert not assistant.end_proposable
    assistant.propose_end()
    assert assistant.prompt.message == ("1B waits for CONFIRM or UNDO: finish it, then propose "
                                        "the end")
    assistant.press(CONFIRM)                             # founding: a decision under way
    before = books(table)
    assistant.propose_end()
    prompt = assistant.prompt
    assert prompt.kind == "found" and prompt.message == \
        "finish this decision first, then propose the end"
    assert books(table) == before
