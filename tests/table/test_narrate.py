"""The history's sentences, the merger summary and the final accounts, from real games."""

from __future__ import annotations

import time

import pytest

from tabletop.engine.actions import Buy, Dispose, Found, Place
from tabletop.engine.game import Game
from tabletop.engine.payout import share_bonuses
from tabletop.engine.random_play import play_random_game
from tabletop.messages import Message
from tabletop.table.narrate import (Bonus, Disposal, MergerSummary, entries, final_accounts,
                                    last_mergers)

#: Ann founds Tower, Bob Luxor; Bob (3 Luxor), Cy (2) and Ann (1) hold Luxor when Bob's 1B
#: joins Luxor (2 tiles) to Tower (3 tiles).
BEFORE_MERGER = [Place(tile="2A"), Found(chain="Tower"), Buy(),
                 Place(tile="1D"), Found(chain="Luxor"), Buy(shares={"Luxor": 2}),
                 Place(tile="3D"), Buy(shares={"Luxor": 2, "Tower": 1}),
                 Place(tile="3A"), Buy(shares={"Luxor": 1}),
                 Place(tile="1B")]
DISPOSALS = [Dispose(sell=1, trade=2), Dispose(keep=2), Dispose(sell=1)]


def merged() -> Game:
    game = Game("acquire", ["Ann", "Bob", "Cy"], start_tiles={"Ann": "1A", "Bob": "1C", "Cy": "12I"})
    for action in BEFORE_MERGER:
        game.push(action)
    return game


def test_the_summary_names_each_bonus_and_what_each_holder_did():
    game = merged()
    # acquire.toml: Luxor is tier 1, 2 tiles -> $200 a share; classic majority 10x, minority 5x.
    bonuses = (Bonus("Bob", 2000, "first"), Bonus("Cy", 1000, "second"))
    assert last_mergers(game) == (MergerSummary("Bob", "Tower", "Luxor", 2, bonuses, ()),)
    for action in DISPOSALS:
        game.push(action)
    assert last_mergers(game) == (MergerSummary("Bob", "Tower", "Luxor", 2, bonuses, (
        Disposal("Bob", sold=1, traded=2, kept=0, cash=200),
        Disposal("Cy", sold=0, traded=0, kept=2, cash=0),
        Disposal("Ann", sold=1, traded=0, kept=0, cash=200))),)
    assert game.cash[1] == 6000 - 400 + 2000 + 200          # the books agree with the summary


def test_the_summary_stays_until_the_next_player_places_a_tile():
    game = merged()
    for action in DISPOSALS:
        game.push(action)
    game.push(Buy(shares={"Tower": 1}))                       # Bob's turn ends
    assert game.names[game.current] == "Cy" and len(last_mergers(game)) == 1
    game.push(Place(tile="12A"))                              # Cy's turn is under way
    assert last_mergers(game) == ()


def test_a_sole_holder_takes_both_bonuses():
    game = Game("acquire", ["Ann", "Bob", "Cy"], start_tiles={"Ann": "1A", "Bob": "1C", "Cy": "12I"})
    for action in (Place(tile="2A"), Found(chain="Tower"), Buy(), Place(tile="1D"),
                   Found(chain="Luxor"), Buy(), Place(tile="3D"), Buy(), Place(tile="3A"), Buy(),
                   Place(tile="1B")):
        game.push(action)
    # Bob alone holds Luxor (his founder's share): $2,000 + $1,000.
    assert last_mergers(game)[0].bonuses == (Bonus("Bob", 3000, "sole"),)


def test_every_action_is_one_sentence_saying_what_it_did():
    game = merged()
    for action in DISPOSALS:
        game.push(action)
    said = entries(game)
    assert all(isinstance(entry, Message) for entry in said) and len(said) == len(game.history)
    assert said[:3] == ["Ann placed 2A", "Ann founded Tower (gets 1 free share)",
                        "Ann bought nothing"]
    assert said[5] == "Bob bought 2 Luxor for $400"
    assert said[8] == "Ann placed 3A; Tower is now 3 tiles"
    assert said[10:] == ["Bob placed 1B and merged Luxor into Tower: Bob $2,000, Cy $1,000",
                         "Bob sold 1 Luxor for $200, traded 2 for 1 Tower",
                         "Cy kept 2 Luxor",
                         "Ann sold 1 Luxor for $200; Tower is now 6 tiles"]


def test_after_an_undo_the_sentences_are_those_of_the_game_played_instead():
    game = merged()
    assert entries(game)[-1].startswith("Bob placed 1B and merged")
    game.undo()
    game.push(Place(tile="12A"))                              # the same length, another action
    assert entries(game)[-1] == "Bob placed 12A" and last_mergers(game) == ()


def test_a_long_game_is_narrated_fast_and_once():
    game = play_random_game("megacquire-gold", ["Ann", "Bob", "Cy", "Di"], seed=1)
    assert len(game.history) >= 300
    start = time.perf_counter()
    first = entries(game)
    once = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(10):                                       # as the screens ask, again and again
        assert entries(game) == first
        last_mergers(game)
    again = (time.perf_counter() - start) / 10
    assert once < 1.0 and again < 0.05, (once, again)


@pytest.mark.parametrize("rules", ["acquire", "megacquire-gold", "acquisitions"])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_final_accounts_add_up_to_the_final_cash(rules, seed):
    game = play_random_game(rules, ["Ann", "Bob", "Cy"], seed=seed)
    accounts = final_accounts(game)
    assert [a.player for a in accounts] == [game.names[seat] for seat, _ in game.standings]
    for account in accounts:
        seat = game.names.index(account.player)
        assert account.cash_before + account.bonuses + account.sales == account.total
        assert account.total == game.cash[seat]


def test_the_final_accounts_match_the_books_before_the_end():
    game = play_random_game("acquire", ["Ann", "Bob", "Cy"], seed=3)
    last = game.history[-1]
    assert isinstance(last, Buy)                              # the buy that ended the last turn
    before = game.rebuild(game.history[:-1])
    seat = before.current
    holdings = [list(held) for held in before.holdings]
    cash = list(before.cash)
    for name, count in last.shares.items():
        chain = before.rules.chain_index(name)
        holdings[seat][chain] += count
        cash[seat] -= count * before.price(chain)
    bonuses, sales = [0] * 3, [0] * 3
    for chain in before.board.active():
        price = before.price(chain)
        mode = before._bonus_mode
        paid = share_bonuses({s: held[chain] for s, held in enumerate(holdings)},
                             mode.bonuses(price), mode.sole_holder_bonus(price),
                             before.rules.bonus_rounding)
        for s, amount in paid.items():
            bonuses[s] += amount
        for s, held in enumerate(holdings):
            sales[s] += held[chain] * price
    for account in final_accounts(game):
        s = game.names.index(account.player)
        assert (account.cash_before, account.bonuses, account.sales) == (cash[s], bonuses[s], sales[s])
