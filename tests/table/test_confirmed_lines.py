"""What the table logs after a confirmed action (``tabletop run``'s "confirmed: ..." lines, the
demo's turn lines): what the action did, a chain's size counted once the tile is in, where the
prompt before CONFIRM said what the tile would do."""

from __future__ import annotations

import pytest

from tabletop.engine.game import Game
from tabletop.table.assistant import CONFIRM, NEXT, Assistant, UnjournaledTable
from tabletop.table.confirmed import folded


class Table:
    """Three players at an assistant over a bare game, with every line its listener is told."""

    def __init__(self) -> None:
        self.game = Game("acquire", ["Ann", "Bob", "Cy"],
                         start_tiles={"Ann": "1A", "Bob": "12I", "Cy": "12A"})
        self.told: list[tuple[str, bool]] = []       # (line, whether a log may leave it out)
        self.assistant = Assistant(UnjournaledTable(self.game), listener=self._told)

    def _told(self, what: str, events: list[dict]) -> None:
        self.told.append((str(what), folded(self.game, events)))

    def choose(self, label: str) -> None:
        """NEXT until ``label`` is chosen, then CONFIRM, as a player would."""
        assistant = self.assistant
        for _ in range(len(assistant.prompt.options)):
            if assistant.prompt.chosen.label == label:
                assistant.press(CONFIRM)
                return
            assistant.press(NEXT)
        raise AssertionError(f"{label!r} not offered: {assistant.prompt.options}")

    def place(self, tile: str) -> str:
        """The camera sees ``tile``; CONFIRM plays it. The label the prompt showed before."""
        self.assistant.tile_seen(tile)
        shown = str(self.assistant.prompt.chosen.label)
        self.assistant.press(CONFIRM)
        return shown

    def buy(self, chain: str = "", count: int = 0) -> None:
        index = self.game.rules.chain_index(chain) if chain else -1
        for _ in range(count):
            self.choose(f"+1 {chain} ({self.game.price(index)})")
        self.choose(f"buy {count} {chain}" if count else "buy nothing")

    def lines(self) -> list[str]:
        """The lines a log keeps, and forgets them."""
        kept = [line for line, left_out in self.told if not left_out]
        self.told.clear()
        return kept

    def size(self, chain: str) -> int:
        return self.game.board.sizes[self.game.rules.chain_index(chain)]


@pytest.fixture
def table() -> Table:
    table = Table()
    table.place("1B")
    table.choose("Tower")
    table.buy("Tower", 2)
    table.place("1D")                       # Bob: a lone tile under Tower's
    table.buy()
    table.place("1F")                       # Cy
    table.buy()
    table.told.clear()
    return table


def test_a_founding_takes_one_line_naming_the_chain_and_its_size():
    table = Table()
    assert table.place("1B") == "1B: founds a chain"          # the prompt, before CONFIRM
    table.choose("Tower")
    cash = table.game.cash[0]
    table.buy("Tower", 2)
    assert table.game.cash[0] == cash - 400
    assert table.lines() == ["Ann: 1B: founds Tower (2 tiles)", "Ann: buys 2 Tower for $400"]
    assert table.size("Tower") == 2


def test_a_growing_chain_says_its_size_with_the_tile_and_the_lone_tile_it_joins(table):
    shown = table.place("1C")                # joins Tower's 1A-1B and the lone 1D
    assert shown == "1C: grows Tower, 2 tiles so far"        # before: the size so far
    assert table.size("Tower") == 4
    assert table.lines() == ["Ann: 1C: grows Tower to 4 tiles"]


def test_a_merger_says_the_survivors_size_after_it_and_each_disposal_what_it_did(table):
    table.place("1C")
    table.buy()
    table.place("1G")                        # Bob founds Luxor with Cy's lone 1F
    table.choose("Luxor")
    table.buy("Luxor", 1)
    table.place("5E")
    table.buy("Luxor", 2)                    # Cy
    table.place("8H")
    table.buy("Luxor", 1)                    # Ann
    table.lines()
    price = table.game.rules.money(table.game.price(table.game.rules.chain_index("Luxor")))
    table.place("1E")                        # Bob joins Tower (4) and Luxor (2)
    assert table.lines() == ["Bob: 1E: merges Luxor (2) into Tower, which grows to 7 tiles"]
    table.assistant.set_disposal(1, 0)       # Bob: sells one, keeps one
    table.assistant.press(CONFIRM)
    table.choose("trade the most, sell the rest (sell 0, trade 2)")      # Cy
    table.choose("keep all (sell 0, trade 0)")                           # Ann
    assert table.size("Tower") == 7          # the size the merger's line gave
    assert table.lines() == [f"Bob: sells 1 Luxor for {price}, keeps 1 Luxor",
                             "Cy: trades 2 Luxor for 1 Tower"]           # Ann's keeping: no line


def test_every_confirmed_action_still_reaches_the_listener(table):
    """A log may leave some lines out; the listener (the journal's recorder) hears them all."""
    table.place("1C")
    table.buy()
    table.place("1G")
    assert table.told == [("Ann: 1C: grows Tower to 4 tiles", False), ("Ann: buys nothing", False),
                          ("Bob: 1G: founds a chain", True)]
