"""Each proposal says what it does to prices and cash: the figures, worked out by hand from the
rule files (tabletop/rules/acquire.toml, megacquire-gold.toml), in the rule set's money.

Acquire's price table (acquire.toml [prices]): brackets 2, 3, 4, 5, 6-10, ...; tier "1"
(Tower, Luxor) $200, $300, $400, $500, $600; tier "3" (Imperial, Continental) starts at $400.
Classic bonuses: 10x and 5x the price; a sole holder gets both.
"""

from __future__ import annotations

import pytest

from tabletop.journal.journal import Journal
from tabletop.table.assistant import CONFIRM, Assistant

SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy", "Dee"],
                   "start_tiles": {"Ann": "1A", "Bob": "12I", "Cy": "12A", "Dee": "1I"}}}


@pytest.fixture
def journal(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="test") as opened:
        yield opened


def tap(assistant: Assistant, label: str) -> tuple[str, ...]:
    """Tap ``label`` in the list; the effects shown for it; then CONFIRM."""
    assistant.choose([option.label for option in assistant.prompt.options].index(label))
    said = assistant.prompt.effects
    assistant.press(CONFIRM)
    return said


def place(assistant: Assistant, tile: str) -> tuple[str, ...]:
    """Tap ``tile`` in; the effects its proposal shows; then CONFIRM."""
    assistant.enter(tile)
    said = assistant.prompt.effects
    assistant.press(CONFIRM)
    return said


def test_founding_growing_and_buying_show_the_prices_they_make(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    # 1B joins Ann's lone 1A: a chain of 2, $200 (tier 1) to $400 (tier 3) by the chain chosen.
    assert place(assistant, "1B") == (
        "founds a chain of 2 tiles: $200 to $400 a share, by the chain chosen",)
    options = [option.label for option in assistant.prompt.options]
    assistant.choose(options.index("Continental"))
    assert assistant.prompt.effects == (
        "founds Continental at $400 a share, with a free share for Ann",)
    assert tap(assistant, "Tower") == ("founds Tower at $200 a share, with a free share for Ann",)
    # Buying: 2 Tower at $200 from $6,000 (acquire.toml starting_cash).
    assert tap(assistant, "+1 Tower (200)") == ("buys 1 Tower for $200; cash $6,000 -> $5,800",)
    # "+1 Tower" stays chosen: it shows the purchase another CONFIRM would make.
    assert assistant.prompt.effects == ("buys 2 Tower for $400; cash $6,000 -> $5,600",)
    assert tap(assistant, "buy 1 Tower") == ("buys 1 Tower for $200; cash $6,000 -> $5,800",)
    assert table.game.cash[0] == 5800
    # Bob grows Tower from 2 to 3 tiles: $200 -> $300.
    assert place(assistant, "1C") == ("grows Tower to 3: $200 -> $300",)
    assert tap(assistant, "buy nothing") == ()
    assert place(assistant, "3A") == ()                  # Cy: a lone tile changes no price
    tap(assistant, "buy nothing")
    place(assistant, "3B")                               # Dee founds Luxor (3A, 3B)
    tap(assistant, "Luxor")
    tap(assistant, "buy nothing")
    # Ann's 2A joins Luxor (2, $200) to Tower (3): Luxor pays $2,000 / $1,000 (10x, 5x $200),
    # and Tower grows to 3 + 2 + 1 = 6 tiles: bracket 6-10, $600.
    assert place(assistant, "2A") == (
        "merges Luxor (2) into Tower",
        "Luxor pays bonuses of $2,000 / $1,000; its shares sell at $200",
        "grows Tower to 6: $300 -> $600")
    # Dee, Luxor's only holder, got both bonuses ($3,000): selling her share adds $200.
    assert assistant.prompt.kind == "dispose" and table.game.cash[3] == 9000
    assert tap(assistant, "sell all (sell 1, trade 0)") == (
        "sells 1 Luxor for $200; cash $9,000 -> $9,200",)
    assert table.game.cash[3] == 9200
    game = table.game
    assert game.price(game.rules.chain_index("Tower")) == 600


def test_a_tie_names_the_chooser_and_the_survivor_chosen_shows_the_merger(journal):
    table = journal.start(SETUP)
    assistant = Assistant(table)
    for tile, chain in (("1B", "Tower"), ("3A", None), ("3B", "Luxor")):
        place(assistant, tile)
        if chain:
            tap(assistant, chain)
        tap(assistant, "buy nothing")
    # Dee's 2A touches Tower (2) and Luxor (2): a tie, Dee chooses.
    assert place(assistant, "2A")[0] == "a tie between Tower (2), Luxor (2): Dee chooses the survivor"
    assert assistant.prompt.kind == "survivor"
    # Luxor survives: 2 + 2 + 1 = 5 tiles, $200 -> $500 (tier 1, bracket 5).
    assert tap(assistant, "Luxor") == (
        "merges Tower (2) into Luxor",
        "Tower pays bonuses of $2,000 / $1,000; its shares sell at $200",
        "grows Luxor to 5: $200 -> $500")
    assert assistant.prompt.title == "Ann: your Tower shares"     # her founder's share
    tap(assistant, "sell all (sell 1, trade 0)")
    game = table.game
    assert game.board.sizes[game.rules.chain_index("Luxor")] == 5


def test_effects_are_in_the_rule_sets_money_and_change_nothing(journal):
    # MEGAcquire Gold: money after the figure ("120M"); Luster is a "hotel 2M" (2M at 2 tiles),
    # the corporations "corp 4M" reach 8M at 2 tiles.
    table = journal.start({"setup": {"rules": "megacquire-gold", "players": ["Ann", "Bob"],
                                     "start_tiles": {"Ann": "C-4", "Bob": "H-9"}}})
    assistant = Assistant(table)
    place(assistant, "C-4")
    tap(assistant, "buy nothing")
    assistant.enter("C-5")
    lines = list(table.lines)
    assert assistant.prompt.effects == (
        "founds a chain of 2 tiles: 2M to 8M a share, by the chain chosen",)
    assert assistant.prompt.effects[0].template == \
        "founds a chain of {size} tiles: {low} to {high} a share, by the chain chosen"
    assert table.lines == lines                          # worked out, not played
    assistant.press(CONFIRM)
    assert tap(assistant, "Luster") == ("founds Luster at 2M a share, with a free share for Bob",)
    assistant.choose(1)
    assert assistant.prompt.effects == ("buys 1 Luster for 2M; cash 120M -> 118M",)
