"""Every decision has its prompt: trade-in purchases, dead tiles, ending by agreement; and the
camera's board kept beside the game's (differences to settle, the camera off and back).

Real engine, real journal (a SQLite file); positions are built by table-script lines.
"""

from __future__ import annotations

import json

import pytest

from tabletop import parse_action
from tabletop.table.assistant import CONFIRM, UNDO, Assistant
from tabletop.journal.journal import Journal

from test_assistant import choose
from engine.test_trade_in import position as trade_position


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="test") as opened:
        yield opened


def table_from(journal, lines):
    """A journal table at the end of these table-script lines."""
    table = journal.start(json.loads(lines[0]))
    for line in lines[1:]:
        table.push(parse_action(json.loads(line)))
    return table


def labels(assistant: Assistant) -> list[str]:
    return [option.label for option in assistant.prompt.options]


# --- trade-in ------------------------------------------------------------------------------------

def test_shares_traded_in_pay_for_a_purchase_the_cash_cannot(journal):
    # MEGAcquire: Ann has 4M, holds 13 Regal (5M); she wants 3 Solon (10M each).
    table = table_from(journal, trade_position().lines)
    assistant = Assistant(table)
    assert assistant.prompt.kind == "buy" and table.game.cash[0] == 4
    assert not any(label.startswith("trade in") for label in labels(assistant))
    for _ in range(3):
        choose(assistant, "+1 Solon (10)")
    # 30M wanted, 4M in hand: trading shares in is now offered (not Solon's own).
    assert "trade in 1 Regal (5)" in labels(assistant)
    assert "trade in 1 Solon (10)" not in labels(assistant)
    for _ in range(6):
        choose(assistant, "trade in 1 Regal (5)")
    # 4 + 30 covers 30: no more trading is offered (only as many as needed).
    assert not any(label.startswith("trade in") for label in labels(assistant))
    assert assistant.prompt.title == "Ann: buy shares (so far 3 Solon, trading in 6 Regal)"
    choose(assistant, "buy 3 Solon, trading in 6 Regal")
    game = table.game
    regal, solon = game.rules.chain_index("Regal"), game.rules.chain_index("Solon")
    assert game.cash[0] == 4 and game.holdings[0][regal] == 7 and game.holdings[0][solon] == 10
    assert json.loads(table.lines[-1]) == {"do": "buy", "player": "Ann", "shares": {"Solon": 3},
                                           "trade_in": {"Regal": 6}}


def test_a_refused_trade_keeps_the_basket_and_undo_takes_shares_out(journal):
    table = table_from(journal, trade_position().lines)
    assistant = Assistant(table)
    choose(assistant, "+1 Solon (10)")
    for _ in range(2):
        choose(assistant, "trade in 1 Luster (2)")
    before = table.game.script()
    choose(assistant, "buy 1 Solon, trading in 2 Luster")     # 4 + 4 does not pay 10
    assert "do not pay" in assistant.prompt.message and table.game.script() == before
    assert assistant.basket == (table.game.rules.chain_index("Solon"),
                                *[table.game.rules.chain_index("Luster")] * 2)
    assistant.press(UNDO)
    assistant.press(UNDO)
    assert assistant.prompt.title == "Ann: buy shares (so far 1 Solon)"


def test_trade_in_steppers_pay_for_a_purchase_within_the_shares_held(journal):
    # MEGAcquire: Ann has 4M, holds 13 Regal (5M) and 3 Luster (2M); she wants 3 Solon (10M).
    table = table_from(journal, trade_position().lines)
    assistant, rules = Assistant(table), table.game.rules
    regal, solon, luster = (rules.chain_index(n) for n in ("Regal", "Solon", "Luster"))
    assistant.set_purchase(solon, 3)
    assistant.set_trade_in(luster, 9)                  # she holds 3
    assert assistant.basket.count(luster) == 3
    assistant.set_trade_in(solon, 2)                   # not the chain being bought
    assert solon not in assistant.basket[3:]
    assistant.set_trade_in(luster, 0)
    assistant.set_trade_in(regal, 6)
    assert assistant.figures == {"cash": 4, "cost": 30, "raised": 30, "after": 4,
                                 "shares": 3, "limit": 6}
    assistant.press(CONFIRM)
    game = table.game
    assert game.cash[0] == 4 and game.holdings[0][regal] == 7 and game.holdings[0][solon] == 10
    assert json.loads(table.lines[-1])["trade_in"] == {"Regal": 6}


def test_buying_a_chain_takes_it_out_of_the_shares_traded_in(journal):
    table = table_from(journal, trade_position().lines)
    assistant, rules = Assistant(table), table.game.rules
    regal, solon = rules.chain_index("Regal"), rules.chain_index("Solon")
    assistant.set_trade_in(regal, 2)
    assistant.set_purchase(regal, 1)
    assistant.set_purchase(solon, 1)
    assert sorted(assistant.basket) == sorted([regal, solon])


def test_acquire_has_no_trade_to_buy_steppers(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.tile_seen("1E")
    assistant.press(CONFIRM)
    choose(assistant, "Tower")
    assistant.set_trade_in(table.game.rules.chain_index("Tower"), 1)
    assert assistant.basket == ()


# --- disposing with steppers ---------------------------------------------------------------------

def merging(journal):
    """Acquire (tests/scenarios/tie2): 5C merges American into Tower; Ann holds 2 American."""
    lines = scenario("tie2.jsonl")
    merge = next(i for i, line in enumerate(lines) if '"tile": "5C"' in line)
    table = table_from(journal, lines[:merge])
    assistant = Assistant(table)
    assistant.tile_seen("5C")
    assistant.press(CONFIRM)
    assert assistant.prompt.title == "Ann: your American shares"
    return table, assistant


def test_the_steppers_dispose_of_any_split_within_the_shares_and_the_trade_cap(journal):
    table, assistant = merging(journal)
    game = table.game
    american, tower = game.rules.chain_index("American"), game.rules.chain_index("Tower")
    assistant.set_disposal(sell=5, trade=0)            # she holds 2
    assert assistant.prompt.chosen.label == "sell 2, trade 0, keep 0"
    assistant.set_disposal(sell=0, trade=1)            # trades go two for one
    assert assistant.prompt.chosen.label == "sell 0, trade 0, keep 2"
    assistant.set_disposal(sell=2, trade=2)            # the trade first, then what is left to sell
    assert assistant.prompt.chosen.label == "sell 0, trade 2, keep 0"
    assistant.set_disposal(sell=1, trade=0)
    figures = assistant.figures
    assert (figures["sell"], figures["trade"], figures["keep"], figures["gets"]) == (1, 0, 1, 0)
    assert figures["after"] == figures["cash"] + game.merger.price
    # The presets are still there for NEXT, the one the steppers made not twice.
    assert [o.label for o in assistant.prompt.options] == [
        "sell 1, trade 0, keep 1", "keep all (sell 0, trade 0)", "sell all (sell 2, trade 0)",
        "trade the most, sell the rest (sell 0, trade 2)"]
    cash, price, towers = game.cash[0], game.merger.price, game.holdings[0][tower]
    assistant.press(CONFIRM)
    assert game.cash[0] == cash + price and game.holdings[0][american] == 1
    assert game.holdings[0][tower] == towers
    assert json.loads(table.lines[-1]) == {"do": "dispose", "player": "Ann", "sell": 1}
    assert assistant.prompt.title == "Bob: your American shares"
    assert assistant.prompt.chosen.label.startswith("keep all")   # Bob starts from the presets


def test_undo_drops_the_steppers_disposal_before_any_action(journal):
    table, assistant = merging(journal)
    assistant.set_disposal(sell=1, trade=0)
    before = len(table.game.history)
    assistant.press(UNDO)
    assert assistant.prompt.chosen.label == "keep all (sell 0, trade 0)"
    assert len(table.game.history) == before


def test_a_disposal_set_outside_a_merger_changes_nothing(journal):
    table, assistant = merging(journal)
    for label in ("sell all (sell 2, trade 0)", "trade the most, sell the rest (sell 0, trade 2)",
                  "keep all (sell 0, trade 0)"):
        choose(assistant, label)
    assert assistant.prompt.kind == "buy"
    assistant.set_disposal(sell=1, trade=0)
    assert assistant.prompt.kind == "buy" and assistant.prompt.chosen.label == "buy nothing"


# --- dead tiles ----------------------------------------------------------------------------------

def dead_tile_lines() -> list[str]:
    """Acquire: Tower and Continental both safe (11), 6E between them; Ann is to place."""
    from table_script import Table

    t = Table(["Ann", "Bob", "Cy"], {"Ann": "1I", "Bob": "12A", "Cy": "12I"})
    turns = [("1C", None), ("2C", "Tower")] + [(f"{c}C", None) for c in range(3, 11)]
    turns += [("6D", None), ("1G", None), ("2G", "Continental")]
    turns += [(f"{c}G", None) for c in range(3, 11)] + [("6F", None), ("8E", None), ("7E", "Luxor")]
    for tile, chain in turns:
        who = t.game.names[t.game.pending.player]
        t.do("place", tile=tile, player=who)
        if chain:
            t.do("found", chain=chain, player=who)
        t.do("buy", shares={}, player=who)
    return t.lines


def test_a_dead_tile_put_down_is_proposed_as_revealed_and_must_come_off(journal):
    table = table_from(journal, dead_tile_lines())
    assistant = Assistant(table)
    assistant.tile_seen("6E")
    prompt = assistant.prompt
    assert prompt.title == "Ann reveals 6E" and "dead" in prompt.chosen.label
    assistant.press(CONFIRM)
    assert table.game.dead and json.loads(table.lines[-1])["do"] == "dead"
    # Acquire puts dead tiles out of the game: it is flagged until taken off the board.
    assert assistant.prompt.flagged == ("6E",) and assistant.prompt.kind == "place"
    assistant.tile_removed("6E")
    assert assistant.prompt.flagged == ()


def test_any_player_may_reveal_a_dead_tile_at_any_time(journal):
    table = table_from(journal, dead_tile_lines())
    assistant = Assistant(table)
    assistant.tile_seen("12E")
    assistant.press(CONFIRM)                                    # Ann is now buying
    assistant.reveal_dead("6e", player="Cy")                     # tapped, spelt loosely
    assert assistant.prompt.title == "Cy reveals 6E"
    assistant.press(CONFIRM)
    assert json.loads(table.lines[-1]) == {"do": "dead", "player": "Cy", "tile": "6E"}
    assert assistant.prompt.kind == "buy" and assistant.prompt.player == "Ann"


def test_a_tile_that_is_not_dead_is_refused_and_nothing_changes(journal):
    table = table_from(journal, dead_tile_lines())
    assistant = Assistant(table)
    before = list(table.lines)
    assistant.reveal_dead("12E")
    assistant.press(CONFIRM)
    assert "not dead" in assistant.prompt.message and table.lines == before


# --- ending --------------------------------------------------------------------------------------

def test_the_players_may_agree_to_end_and_the_turn_is_finished_first(journal):
    table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                                     "start_tiles": {"Ann": "1A", "Bob": "12I"}}})
    assistant = Assistant(table)
    assert "end the game" not in labels(assistant)              # no chain is safe yet
    assert assistant.end_proposable
    assistant.propose_end()
    assistant.press(CONFIRM)                                    # Ann proposes
    assistant.press(CONFIRM)                                    # Bob agrees
    assert json.loads(table.lines[-1]) == {"do": "end", "agreed": True, "player": "Ann"}
    assert not assistant.end_proposable
    assistant.tile_seen("6C")                                   # Ann still plays her turn
    assistant.press(CONFIRM)
    choose(assistant, "buy nothing")
    assert assistant.prompt.kind == "over" and table.game.standings is not None


def test_a_table_that_plays_without_agreed_ends_is_not_offered_one(journal):
    table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                                     "options": {"agreed_end": False},
                                     "start_tiles": {"Ann": "1A", "Bob": "12I"}}})
    assistant = Assistant(table)
    assert not assistant.end_proposable
    assistant.propose_end()
    prompt = assistant.prompt
    assert prompt.kind == "place" and prompt.message == "this table plays without ending by agreement"
    assert len(table.lines) == 1


# --- the camera's board beside the game's --------------------------------------------------------

SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}}


def test_differences_between_the_board_and_the_game_are_listed_to_settle(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.board_seen(["5C", "1D", "7F"])                   # 9I not seen; 7F nobody placed
    prompt = assistant.prompt
    assert prompt.kind == "settle"
    assert prompt.differences == ("7F is on the board, not in the game",
                                  "9I is in the game, not on the board")
    before = table.game.script()
    assistant.press(CONFIRM)        # first option: 7F was placed this turn: propose it
    assert assistant.prompt.title == "Cy placed 7F: CONFIRM plays it, UNDO refuses it" and table.game.script() == before
    assistant.press(CONFIRM)
    assert table.game.board.cells[table.game.geometry.parse("7F")] != -1
    # 9I is still missing but the table chose to carry on; putting it back clears it.
    assert assistant.prompt.differences == ("9I is in the game, not on the board",)
    assert assistant.prompt.kind == "buy"
    assistant.tile_seen("9I")
    assert assistant.prompt.differences == () and "back on the board" in assistant.prompt.message
    assert assistant.prompt.kind == "buy"                       # not proposed as a placement


def test_a_tile_of_the_game_taken_off_is_a_difference_until_it_is_back(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.board_seen(["5C", "9I", "1D"])
    assert assistant.prompt.kind == "place" and assistant.prompt.differences == ()
    assistant.changes_seen([], ["5C"], "tile gone from 5C: not committed; put it back")
    assert assistant.prompt.kind == "settle"
    assert assistant.prompt.differences == ("5C is in the game, not on the board",)
    choose(assistant, "carry on: the game's record stands")
    assert assistant.prompt.kind == "place"
    assistant.changes_seen(["5C"], [])
    assert assistant.prompt.differences == ()


def test_a_refused_tile_moved_to_the_right_cell_is_proposed(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.board_seen(["5C", "9I", "1D"])
    assistant.tile_seen("5C")                 # committed again: already on the board
    assistant.changes_seen(["6C"], ["5C"], "a tile moved from 5C to 6C: not committed")
    assert assistant.prompt.title == "Cy placed 6C: CONFIRM plays it, UNDO refuses it"


def test_camera_off_shows_a_banner_tiles_are_tapped_in_and_the_board_is_checked_on_return(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.board_seen(["5C", "9I", "1D"])
    assistant.camera_lost("camera usb:0 unplugged; retrying")
    prompt = assistant.prompt
    assert assistant.manual and "camera off" in prompt.banner
    assert prompt.chosen.label == "waiting: place a tile (tap its cell)"
    assistant.enter("2B")
    assistant.press(CONFIRM)
    assert table.game.board.cells[table.game.geometry.parse("2B")] != -1
    assistant.camera_back()
    assert assistant.prompt.banner == "" and assistant.prompt.differences == ()
    assistant.board_seen(["5C", "9I", "1D", "2C"])             # the tile lies on 2C, not 2B
    assert assistant.prompt.differences == ("2C is on the board, not in the game",
                                            "2B is in the game, not on the board")


def test_a_misread_proposal_undone_is_not_kept_as_seen(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    assistant.board_seen(["5C", "9I", "1D"])
    assistant.tile_seen("8A")                                   # the camera misread 3A
    assistant.press(UNDO)
    assistant.enter("3A")
    assistant.press(CONFIRM)
    assert assistant.prompt.differences == () and assistant.prompt.kind == "buy"


# --- the two-player market, an eighth chain ------------------------------------------------------

def scenario(name: str) -> list[str]:
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "scenarios" / name).read_text().splitlines()


def test_the_market_tile_seen_is_proposed_and_goes_back_in_the_bag(journal):
    lines = scenario("market2.jsonl")
    upto = next(i for i, line in enumerate(lines) if '"market"' in line)
    table = table_from(journal, lines[:upto])
    game = table.game
    assistant = Assistant(table)
    assistant.board_seen([game.geometry.labels[c] for c, o in enumerate(game.board.cells) if o != -1])
    assert assistant.prompt.kind == "market"
    assert assistant.prompt.title == "Ann: draw a tile for the stock market and place it"
    assistant.tile_seen("5B")
    assert assistant.prompt.title == "Ann: the market draws 5B"
    assistant.press(CONFIRM)
    assert json.loads(table.lines[-1]) == {"do": "market", "player": "Ann", "tile": "5B"}
    assert assistant.prompt.kind == "dispose" and assistant.prompt.flagged == ("5B",)
    assert assistant.prompt.differences == ()
    assistant.tile_removed("5B")
    assert assistant.prompt.flagged == () and assistant.prompt.differences == ()


def test_a_tile_that_would_found_an_eighth_chain_is_refused_and_flagged(journal):
    from tabletop.engine.board import PUT_NO_CHAIN

    lines = scenario("eighth_chain.jsonl")
    table = table_from(journal, lines)
    game = table.game
    while game.pending.kind != "place":       # the scenario may end on its refused line
        table.undo()
    cell = next(c for c, o in enumerate(game.board.cells)
                if o == -1 and game.board.classify(c)[0] == PUT_NO_CHAIN)
    label = game.geometry.labels[cell]
    assistant = Assistant(table)
    before = list(table.lines)
    assistant.tile_seen(label)
    prompt = assistant.prompt
    assert prompt.flagged == (label,) and "every chain is on the board" in prompt.message
    assistant.press(CONFIRM)
    assert table.lines == before


def test_a_dead_tile_not_revealed_now_still_has_to_come_off(journal):
    table = table_from(journal, dead_tile_lines())
    game = table.game
    assistant = Assistant(table)
    assistant.board_seen([game.geometry.labels[c] for c, o in enumerate(game.board.cells) if o != -1])
    assistant.tile_seen("6E")
    assistant.press(UNDO)
    assert assistant.prompt.flagged == ("6E",) and "cannot be placed" in assistant.prompt.message
    assert assistant.prompt.differences == () and not game.dead
