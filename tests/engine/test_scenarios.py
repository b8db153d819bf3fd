"""Acceptance tests: table scripts replayed through the real command line.

Every script in tests/scenarios/ is a whole game fragment in the table-script
format of DESIGN.md ("Table scripts").  The tests run ``tabletop replay SCRIPT``
through the command's entry point (one test runs ``python -m tabletop replay`` as a
process and checks it prints the same) and check what a player at
the table would check: cash, shares, bank shares, chain sizes and prices, the
board, what the banker waits for, and the final standings.

Every expected number below was worked out BY HAND from RULES.md section 1;
the arithmetic is written next to each assertion.  Reference values used
throughout (RULES.md section 1 price table):

    Tower/Luxor (tier 1)            size 2: 200, 3: 300, 6-10: 600, 11-20: 700, 41+: 1000
    American/Worldwide/Festival (2) size 2: 300, 3: 400, 5: 600, 6-10: 700
    Imperial/Continental (3)        size 2: 400, 3: 500, 4: 600, 5: 700, 6-10: 800, 11-20: 900
    Classic bonuses  b1 = 10 x price, b2 = 5 x price
    Tycoon bonuses   b1 = 10 x price, b2 from the table (300 -> 2200, 600 -> 4200),
                     b3 = 5 x price

Unless a script says otherwise: players Ann, Bob, Cy (in that seating order),
start tiles Ann 1I, Bob 12A, Cy 12I (Ann's is closest to 1A, so she starts),
everyone starts with $6000, each chain has 25 shares.
"""

import itertools
import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCEN = Path(__file__).resolve().parents[1] / "scenarios"

_counter = itertools.count()


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def replay(path, *flags):
    """``tabletop replay SCRIPT`` through the command's own entry point, in this process: what
    it prints, each stream apart, and its exit status (the one test below that runs it as
    ``python -m tabletop`` shows the process gives the same; a start-up per script would
    cost the suite a third of a second each)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["replay", str(path), *flags])
        except SystemExit as stopped:
            status = stopped.code
    return subprocess.CompletedProcess(["tabletop", "replay", str(path), *flags], status,
                                       out.getvalue(), err.getvalue())


def replay_process(path, *flags):
    return subprocess.run(
        [sys.executable, "-m", "tabletop", "replay", str(path), *flags],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def lines_of(name):
    return (SCEN / name).read_text().splitlines()


def write(tmp_path, lines):
    p = tmp_path / f"script{next(_counter)}.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


def legal_state(tmp_path, lines):
    """Replay lines that must all be legal; return the parsed state."""
    r = replay(write(tmp_path, lines))
    assert r.returncode == 0, f"rc={r.returncode} stderr={r.stderr!r}"
    return json.loads(r.stdout)


def scenario(name):
    r = replay(SCEN / name)
    assert r.returncode == 0, f"rc={r.returncode} stderr={r.stderr!r}"
    return json.loads(r.stdout)


def after(tmp_path, name, n):
    """State after the first n lines (line 1 = setup) of a scenario file."""
    return legal_state(tmp_path, lines_of(name)[:n])


def player(st, name):
    (p,) = [p for p in st["players"] if p["name"] == name]
    return p


def cash(st, name):
    return player(st, name)["cash"]


def held(st, name, chain):
    return (player(st, name).get("shares") or {}).get(chain, 0)


def pend(st):
    p = st["pending"]
    return (p["kind"], p.get("player"))


def with_options(lines, **options):
    setup = json.loads(lines[0])
    setup["setup"]["options"] = dict(setup["setup"].get("options") or {}, **options)
    return [json.dumps(setup)] + lines[1:]


class Script:
    """Builds a table script programmatically (long fill-in games)."""

    def __init__(self, players, start_tiles, options=None):
        self.lines = [json.dumps({"setup": {
            "rules": "acquire", "players": players,
            "options": options or {}, "start_tiles": start_tiles}})]

    def do(self, **kw):
        self.lines.append(json.dumps(kw))
        return self

    def turn(self, tile, found=None, buy=None):
        self.do(do="place", tile=tile)
        if found:
            self.do(do="found", chain=found)
        self.do(do="buy", shares=buy or {})
        return self


# --------------------------------------------------------------------------
# majority tie between two holders, rounding up to $100  (tie2.jsonl)
# --------------------------------------------------------------------------
# American 3C,4C (size 2, tier 2 -> $300); Tower 6C,7C,8C (size 3 -> $300).
# Line 4-6  Bob founds American (1 free), buys 1 @300      -> Bob 5700, Am 2
# Line 9-11 Ann founds Tower (1 free), buys 2 Am @300       -> Ann 5400, Am 2
# Line 15   Cy buys 1 Am @300                               -> Cy 5700, Am 1
# Line 16   Ann places 5C: American (2) < Tower (3), American defunct @300.
#           b1 + b2 = 3000 + 1500 = 4500 shared by Ann and Bob (2 each):
#           4500 / 2 = 2250 -> rounded up to 2300 each.  Cy (1 share) is
#           third: nothing left for him.


def test_tie2_before_merger(tmp_path):
    st = after(tmp_path, "tie2.jsonl", 15)
    am, tw = st["chains"]["American"], st["chains"]["Tower"]
    assert am["size"] == 2 and am["price"] == 300
    assert am["bonuses"] == [3000, 1500]
    assert am["bank_shares"] == 25 - 1 - 1 - 2 - 1  # = 20
    assert tw["size"] == 3 and tw["price"] == 300 and tw["bank_shares"] == 24
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [5400, 5700, 5700]
    assert pend(st) == ("place", "Ann")


def test_tie2_bonuses_paid_then_dispose(tmp_path):
    st = after(tmp_path, "tie2.jsonl", 16)
    assert cash(st, "Ann") == 5400 + 2300   # 7700
    assert cash(st, "Bob") == 5700 + 2300   # 8000
    assert cash(st, "Cy") == 5700           # third place: no bonus
    assert pend(st) == ("dispose", "Ann")   # mergemaker first
    st = after(tmp_path, "tie2.jsonl", 17)
    assert pend(st) == ("dispose", "Bob")
    st = after(tmp_path, "tie2.jsonl", 18)
    assert pend(st) == ("dispose", "Cy")
    st = after(tmp_path, "tie2.jsonl", 19)
    assert pend(st) == ("buy", "Ann")


def test_tie2_final(tmp_path):
    st = scenario("tie2.jsonl")
    # Ann: 7700 + sells 2 @300 (8300) - buys 1 Tower @600 (size 6 tier 1) = 7700
    assert cash(st, "Ann") == 7700
    assert held(st, "Ann", "Tower") == 2 and held(st, "Ann", "American") == 0
    # Bob: trades 2 American -> 1 Tower
    assert cash(st, "Bob") == 8000
    assert held(st, "Bob", "Tower") == 1 and held(st, "Bob", "American") == 0
    # Cy keeps his 1 American share
    assert cash(st, "Cy") == 5700 and held(st, "Cy", "American") == 1
    assert set(st["chains"]) == {"Tower"}
    tw = st["chains"]["Tower"]
    # 3 Tower + 2 American + merging tile 5C
    assert tw["size"] == 6 and tw["price"] == 600 and tw["safe"] is False
    assert tw["bank_shares"] == 25 - 1 - 1 - 1  # founder, trade, buy = 22
    assert tw["bonuses"] == [6000, 3000]
    for t in ("3C", "4C", "5C", "6C", "7C", "8C"):
        assert st["board"][t] == "Tower"
    assert st["board"]["10F"] is None and st["board"]["1I"] is None
    assert st["board"]["12A"] is None and st["board"]["12I"] is None
    assert len(st["board"]) == 10
    assert pend(st) == ("place", "Bob") and st["current"] == "Bob"
    assert st["end_allowed"] is False and st["standings"] is None


def test_tie2_without_keep_going_stops_at_the_first_bad_line(tmp_path):
    lines = lines_of("tie2.jsonl")
    bad = lines[:3] + ['{"do": "place", "tile": "3C"}'] + lines[3:]  # 3C is occupied
    r = replay(write(tmp_path, bad))
    assert r.returncode == 2
    assert r.stderr.startswith("line 4:")


def test_lenient_labels_give_the_same_state(tmp_path):
    base = replay(SCEN / "tie2.jsonl")
    assert base.returncode == 0
    forms = itertools.cycle([
        lambda n, l: f"{n}{l.lower()}",   # 6c
        lambda n, l: f"{l}{n}",           # C6
        lambda n, l: f"{l.lower()}-{n}",  # c-6
    ])

    def relabel(line):
        return re.sub(r'"tile": "(\d+)([A-I])"',
                      lambda m: '"tile": "%s"' % next(forms)(m[1], m[2]), line)

    lines = [relabel(x) for x in lines_of("tie2.jsonl")]
    assert lines != lines_of("tie2.jsonl")
    r = replay(write(tmp_path, lines))
    assert r.returncode == 0, r.stderr
    assert r.stdout == base.stdout


def test_undo_then_redo_gives_the_same_state(tmp_path):
    base = replay(SCEN / "tie2.jsonl")
    lines = lines_of("tie2.jsonl")
    # line 11 is Ann's buy of 2 American; take it back and buy again
    assert '"American": 2' in lines[10]
    redo = lines[:11] + ['{"do": "undo"}', lines[10]] + lines[11:]
    r = replay(write(tmp_path, redo))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json.loads(base.stdout)


# --------------------------------------------------------------------------
# three-way tie (tie3_tycoon.jsonl), and the same moves in Classic
# --------------------------------------------------------------------------
# Bob founds American (1), Cy buys 1 @300 (5700), Ann buys 1 @300 (5700).
# Tycoon, American @300: b1 3000, b2 2200, b3 1500.
# Three-way tie for first: (3000 + 2200 + 1500) / 3 = 2233.33 -> 2300 each.
# Classic, same moves: (3000 + 1500) / 3 = 1500 each (no rounding needed:
# in Classic a three-way split of 15 x price is always 5 x price).


def test_tie3_tycoon_table(tmp_path):
    st = after(tmp_path, "tie3_tycoon.jsonl", 15)
    assert st["chains"]["American"]["bonuses"] == [3000, 2200, 1500]
    assert st["chains"]["Tower"]["bonuses"] == [3000, 2200, 1500]  # size 3 @300


def test_tie3_tycoon(tmp_path):
    st = after(tmp_path, "tie3_tycoon.jsonl", 16)
    assert cash(st, "Ann") == 5700 + 2300  # 8000
    assert cash(st, "Bob") == 6000 + 2300  # 8300
    assert cash(st, "Cy") == 5700 + 2300   # 8000
    st = scenario("tie3_tycoon.jsonl")
    # Ann and Cy sell their single share @300; Bob keeps his
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [8300, 8300, 8300]
    assert held(st, "Bob", "American") == 1
    assert held(st, "Ann", "American") == 0 and held(st, "Cy", "American") == 0
    tw = st["chains"]["Tower"]
    assert tw["size"] == 6 and tw["price"] == 600
    assert tw["bonuses"] == [6000, 4200, 3000]  # tycoon @600
    assert tw["bank_shares"] == 24


def test_tie3_classic_same_moves(tmp_path):
    lines = with_options(lines_of("tie3_tycoon.jsonl"), bonus_mode="classic")
    st = legal_state(tmp_path, lines[:16])
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [
        5700 + 1500, 6000 + 1500, 5700 + 1500]
    st = legal_state(tmp_path, lines)
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [7500, 7500, 7500]
    assert st["chains"]["Tower"]["bonuses"] == [6000, 3000]


# --------------------------------------------------------------------------
# four-way tie, Classic, four players (tie4_classic.jsonl)
# --------------------------------------------------------------------------
# Start tiles Ann 1I, Bob 12A, Cy 12I, Dee 12F: Ann starts, then Bob, Cy, Dee.
# Bob founds American (1); Cy, Dee, Ann buy 1 each @300 (5700 each).
# Dee founds Tower at 7C, Ann grows it to 3 with 8C.  Bob merges with 5C.
# American @300: (3000 + 1500) / 4 = 1125 -> 1200 each (bank pays 4800).
# Dispose order: Bob (mergemaker), Cy, Dee, Ann.


def test_tie4_classic(tmp_path):
    st = after(tmp_path, "tie4_classic.jsonl", 14)
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy", "Dee")] == [
        5700 + 1200, 6000 + 1200, 5700 + 1200, 5700 + 1200]
    assert pend(st) == ("dispose", "Bob")
    assert after(tmp_path, "tie4_classic.jsonl", 16)["pending"]["player"] == "Dee"
    assert after(tmp_path, "tie4_classic.jsonl", 17)["pending"]["player"] == "Ann"
    st = scenario("tie4_classic.jsonl")
    # Bob, Cy, Ann sell 1 @300; Dee keeps 1
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy", "Dee")] == [7200, 7500, 7200, 6900]
    assert held(st, "Dee", "American") == 1 and held(st, "Dee", "Tower") == 1
    assert pend(st) == ("place", "Cy")


# --------------------------------------------------------------------------
# minority tie, Classic (minority_tie.jsonl) and Tycoon (tycoon_secondary_tie)
# --------------------------------------------------------------------------
# Bob founds American (1), Cy buys 1 @300 (5700), Ann buys 2 @300 (5400).
# Ann founds Tower.  Merge 5C, American @300 defunct: Ann 2, Bob 1, Cy 1.
# Classic: Ann b1 = 3000; Bob and Cy share b2: 1500 / 2 = 750 -> 800 each.
# Tycoon:  Ann b1 = 3000; Bob and Cy share b2 + b3: (2200 + 1500) / 2 = 1850
#          -> 1900 each.
# Disposal: Ann trades 2 -> 1 Tower; Bob sells 1 @300; Cy sells 1 @300.


def test_minority_tie_classic(tmp_path):
    st = after(tmp_path, "minority_tie.jsonl", 16)
    assert cash(st, "Ann") == 5400 + 3000  # 8400
    assert cash(st, "Bob") == 6000 + 800   # 6800
    assert cash(st, "Cy") == 5700 + 800    # 6500
    st = scenario("minority_tie.jsonl")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [8400, 7100, 6800]
    assert held(st, "Ann", "Tower") == 2 and held(st, "Ann", "American") == 0
    assert st["chains"]["Tower"]["bank_shares"] == 25 - 1 - 1  # 23
    assert st["chains"]["Tower"]["size"] == 6


def test_tycoon_secondary_tie(tmp_path):
    st = after(tmp_path, "tycoon_secondary_tie.jsonl", 16)
    assert cash(st, "Ann") == 5400 + 3000  # 8400
    assert cash(st, "Bob") == 6000 + 1900  # 7900
    assert cash(st, "Cy") == 5700 + 1900   # 7600
    st = scenario("tycoon_secondary_tie.jsonl")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [8400, 8200, 7900]
    assert st["chains"]["Tower"]["bonuses"] == [6000, 4200, 3000]


# --------------------------------------------------------------------------
# sole holder: Classic b1 + b2 (sole_classic.jsonl), Tycoon b1 + b3
# --------------------------------------------------------------------------
# Bob founds American (1) and buys 2 @300 -> 5400, 3 shares, nobody else.
# Ann founds Tower; Ann merges with 5C; American @300 defunct.
# Classic sole holder: 3000 + 1500 = 4500.
# Tycoon sole holder:  b1 + b3 = 3000 + 1500 = 4500 (NOT b1 + b2 = 5200).
# Ann holds no American, so Bob is the first (and only) one asked to dispose:
# sells 1 @300, trades 2 -> 1 Tower.  Ann then buys 3 Tower @600 (size 6).


@pytest.mark.parametrize("name,tower_bonuses", [
    ("sole_classic.jsonl", [6000, 3000]),
    ("sole_tycoon.jsonl", [6000, 4200, 3000]),
])
def test_sole_holder(tmp_path, name, tower_bonuses):
    st = after(tmp_path, name, 16)
    assert cash(st, "Bob") == 5400 + 4500  # 9900
    assert pend(st) == ("dispose", "Bob")
    st = scenario(name)
    assert cash(st, "Bob") == 9900 + 300    # 10200
    assert held(st, "Bob", "Tower") == 1 and held(st, "Bob", "American") == 0
    assert cash(st, "Ann") == 6000 - 3 * 600  # 4200
    assert held(st, "Ann", "Tower") == 1 + 3
    assert cash(st, "Cy") == 6000
    tw = st["chains"]["Tower"]
    assert tw["bank_shares"] == 25 - 1 - 1 - 3  # 20
    assert tw["bonuses"] == tower_bonuses


# --------------------------------------------------------------------------
# survivor tie (survivor_tie.jsonl)
# --------------------------------------------------------------------------
# American 3C,4C (Bob founder); Tower 6C,7C (Ann founder, buys 1 @200 -> 5800);
# Bob buys 1 Tower @200 -> 5800.  Ann places 5C: 2 vs 2, Ann chooses American.
# Tower defunct @200: Ann 2 -> b1 2000 (7800); Bob 1 -> b2 1000 (6800).
# Ann trades 2 -> 1 American; Bob sells 1 @200 (7000).
# American: 2 + 2 + 1 = 5 tiles, tier 2 -> $600; Ann buys 1 @600 -> 7200.


def test_survivor_tie(tmp_path):
    st = after(tmp_path, "survivor_tie.jsonl", 16)
    assert pend(st) == ("survivor", "Ann")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [5800, 5800, 6000]
    st = after(tmp_path, "survivor_tie.jsonl", 17)
    assert pend(st) == ("dispose", "Ann")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [7800, 6800, 6000]
    st = scenario("survivor_tie.jsonl")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [7200, 7000, 6000]
    assert held(st, "Ann", "American") == 2 and held(st, "Ann", "Tower") == 0
    assert held(st, "Bob", "American") == 1 and held(st, "Bob", "Tower") == 0
    assert set(st["chains"]) == {"American"}
    am = st["chains"]["American"]
    assert am["size"] == 5 and am["price"] == 600
    assert am["bank_shares"] == 25 - 1 - 1 - 1  # Bob founder, Ann trade, Ann buy
    assert am["bonuses"] == [6000, 3000]
    assert all(st["board"][t] == "American" for t in ("3C", "4C", "5C", "6C", "7C"))


# --------------------------------------------------------------------------
# trade capped by the survivor's shares left in the bank (trade_cap.jsonl)
# --------------------------------------------------------------------------
# Bob founds American and buys 3 @300 -> 5100, 4 American.
# Ann founds Tower (1) and buys 3 @200 -> 5400, 4 Tower.  Then Tower is size 3
# (@300) and players buy 3 a turn: Bob 4200 (3), Cy 5100 (3), Ann 4500 (7),
# Bob 3300 (6), Cy 4200 (6), Ann 3600 (10), Bob buys 2 -> 2700 (8).
# Tower held 10 + 8 + 6 = 24, bank 1.
# Ann merges 5C: American @300, Bob sole holder -> 4500 (7200).
# Bob wants to trade 4 (-> 2 Tower) but the bank has 1: illegal.
# Bob sells 2 @300 (7800) and trades 2 -> the last Tower share.


def test_trade_cap(tmp_path):
    st = after(tmp_path, "trade_cap.jsonl", 27)
    assert st["chains"]["Tower"]["bank_shares"] == 1
    assert [held(st, n, "Tower") for n in ("Ann", "Bob", "Cy")] == [10, 8, 6]
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [3600, 2700, 4200]
    st = after(tmp_path, "trade_cap.jsonl", 28)
    assert pend(st) == ("dispose", "Bob")
    assert cash(st, "Bob") == 2700 + 4500
    st = scenario("trade_cap.jsonl")
    assert cash(st, "Bob") == 7200 + 600
    assert held(st, "Bob", "Tower") == 9 and held(st, "Bob", "American") == 0
    assert st["chains"]["Tower"]["bank_shares"] == 0
    assert st["chains"]["Tower"]["size"] == 6
    assert st["chains"]["Tower"]["price"] == 600


def test_trade_over_the_cap_is_refused(tmp_path):
    lines = lines_of("trade_cap.jsonl")
    over = '{"do": "dispose", "player": "Bob", "sell": 0, "trade": 4}'
    bad = lines[:28] + [over]
    r = replay(write(tmp_path, bad))
    assert r.returncode == 2 and r.stderr.startswith("line 29:")
    r = replay(write(tmp_path, lines[:28] + [over] + lines[28:]), "--keep-going")
    assert r.returncode == 2
    assert r.stdout == replay(SCEN / "trade_cap.jsonl").stdout


# --------------------------------------------------------------------------
# founder when the chain's stock is sold out (founder_soldout_*.jsonl)
# --------------------------------------------------------------------------
# Tower 3C,4C (Bob founder, 1).  Every turn someone buys 3 Tower @200:
#   Bob 3 (5400), Cy 3 (5400), Ann 3 (5400), Bob 3 (4800), Cy 3 (4800),
#   Ann 3 (4800), Bob 3 (4200), Cy 3 (4200).
#   Holdings Ann 6, Bob 1 + 9 = 10, Cy 9: all 25, bank 0.
# American 6C,7C,8C (Ann founder).  Ann merges at 5C: Tower (2) defunct @200:
#   Bob 10 -> b1 2000 (6200), Cy 9 -> b2 1000 (5200), Ann 6 -> nothing.
#   Everyone keeps.  American 2 + 3 + 1 = 6 tiles, tier 2 -> $700.
# Bob places 7G next to lone 7F and founds Tower again: bank has 0 Tower.
#   "cash":    Bob gets one share's price at the new size (2 tiles -> 200): 6400
#   "nothing": Bob gets nothing: 6200.


def test_founder_soldout_merged_away(tmp_path):
    st = after(tmp_path, "founder_soldout_cash.jsonl", 21)
    assert st["chains"]["Tower"]["bank_shares"] == 0
    st = after(tmp_path, "founder_soldout_cash.jsonl", 26)
    assert set(st["chains"]) == {"American"}
    assert [held(st, n, "Tower") for n in ("Ann", "Bob", "Cy")] == [6, 10, 9]
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [4800, 6200, 5200]
    am = st["chains"]["American"]
    assert am["size"] == 6 and am["price"] == 700 and am["bank_shares"] == 24


@pytest.mark.parametrize("name,bob_cash", [
    ("founder_soldout_cash.jsonl", 6200 + 200),
    ("founder_soldout_nothing.jsonl", 6200),
])
def test_founder_soldout_refound(tmp_path, name, bob_cash):
    st = scenario(name)
    assert cash(st, "Bob") == bob_cash
    assert held(st, "Bob", "Tower") == 10   # no free share
    tw = st["chains"]["Tower"]
    assert tw["size"] == 2 and tw["price"] == 200 and tw["bank_shares"] == 0
    assert st["board"]["7F"] == "Tower" and st["board"]["7G"] == "Tower"
    assert [cash(st, n) for n in ("Ann", "Cy")] == [4800, 5200]
    assert pend(st) == ("place", "Cy")


def test_founder_soldout_explicit_cash_option(tmp_path):
    lines = with_options(lines_of("founder_soldout_cash.jsonl"),
                         founder_when_sold_out="cash")
    assert cash(legal_state(tmp_path, lines), "Bob") == 6400


# --------------------------------------------------------------------------
# a tile that would found an 8th chain (eighth_chain.jsonl)
# --------------------------------------------------------------------------
# Seven chains of 2 tiles each; Cy places lone 1E; Ann's 2E would found an
# 8th chain: illegal.  She places 4E (lone) instead, or says no_tile.


def test_eighth_chain_board(tmp_path):
    st = scenario("eighth_chain.jsonl")
    prices = {"Tower": 200, "Luxor": 200, "American": 300, "Worldwide": 300,
              "Festival": 300, "Imperial": 400, "Continental": 400}
    assert set(st["chains"]) == set(prices)
    for chain, price in prices.items():
        c = st["chains"][chain]
        assert (c["size"], c["price"], c["bank_shares"]) == (2, price, 24), chain
    assert [held(st, "Bob", c) for c in ("Tower", "Worldwide", "Continental")] == [1, 1, 1]
    assert [held(st, "Ann", c) for c in ("Luxor", "Festival")] == [1, 1]
    assert [held(st, "Cy", c) for c in ("American", "Imperial")] == [1, 1]
    assert st["board"]["1E"] is None and st["board"]["4E"] is None
    assert "2E" not in st["board"]
    assert pend(st) == ("place", "Bob")


def test_eighth_chain_refused(tmp_path):
    lines = lines_of("eighth_chain.jsonl")
    assert '"4E"' in lines[38]
    bad = lines[:38] + ['{"do": "place", "tile": "2E"}'] + lines[38:]
    r = replay(write(tmp_path, bad))
    assert r.returncode == 2 and r.stderr.startswith("line 39:")


def test_no_tile_turn(tmp_path):
    lines = lines_of("eighth_chain.jsonl")
    st = legal_state(tmp_path, lines[:38] + ['{"do": "no_tile"}', lines[39]])
    assert "4E" not in st["board"] and "2E" not in st["board"]
    assert pend(st) == ("place", "Bob")


# --------------------------------------------------------------------------
# four-way merger with two equal defunct chains (merger4.jsonl)
# --------------------------------------------------------------------------
# Around 6E: Continental 2E-5E (4, tier 3 @600, Bob founder), Imperial 6B-6D
# (3, tier 3 @500; Ann founder + 1 @400 -> 5600; Bob 1 @400 -> 5600),
# Luxor 7E-9E (3, tier 1 @300; Cy founder), Worldwide 6F-6G (2, tier 2 @300;
# Bob founder, Cy 1 @300 -> 5700).
# Ann places 6E: Continental survives; Imperial and Luxor tie at 3, so Ann
# picks: Imperial first.
#   Imperial @500: Ann 2 -> 5000 (10600), Bob 1 -> 2500 (8100).
#     Ann trades 2 -> 1 Continental; Bob sells 1 @500 (8600).
#   Luxor @300: Cy sole -> 3000 + 1500 = 4500 (10200); sells 1 @300 (10500).
#   Worldwide @300: Bob 1, Cy 1 tie -> 4500 / 2 = 2250 -> 2300 each
#     (Bob 10900, Cy 12800).  Ann holds none: Bob keeps, Cy sells @300 (13100).
# Continental: 4 + 3 + 3 + 2 + 1 = 13 tiles -> $900, safe.  Ann buys 2 @900.


def test_merger4_asks_for_the_order(tmp_path):
    st = after(tmp_path, "merger4.jsonl", 29)
    sizes = {c: v["size"] for c, v in st["chains"].items()}
    assert sizes == {"Continental": 4, "Imperial": 3, "Luxor": 3, "Worldwide": 2}
    prices = {c: v["price"] for c, v in st["chains"].items()}
    assert prices == {"Continental": 600, "Imperial": 500, "Luxor": 300, "Worldwide": 300}
    st = after(tmp_path, "merger4.jsonl", 30)
    assert pend(st) == ("next_defunct", "Ann")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [5600, 5600, 5700]


def test_merger4_steps(tmp_path):
    st = after(tmp_path, "merger4.jsonl", 31)
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [10600, 8100, 5700]
    assert pend(st) == ("dispose", "Ann")
    st = after(tmp_path, "merger4.jsonl", 32)
    assert pend(st) == ("dispose", "Bob")
    st = after(tmp_path, "merger4.jsonl", 33)
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [10600, 8600, 10200]
    assert pend(st) == ("dispose", "Cy")
    st = after(tmp_path, "merger4.jsonl", 34)
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [10600, 10900, 12800]
    assert pend(st) == ("dispose", "Bob")
    st = after(tmp_path, "merger4.jsonl", 36)
    assert pend(st) == ("buy", "Ann") and st["current"] == "Ann"


def test_merger4_final(tmp_path):
    st = scenario("merger4.jsonl")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [10600 - 1800, 10900, 13100]
    assert held(st, "Ann", "Continental") == 1 + 2
    assert held(st, "Bob", "Continental") == 1 and held(st, "Bob", "Worldwide") == 1
    assert held(st, "Bob", "Imperial") == 0 and held(st, "Cy", "Luxor") == 0
    assert set(st["chains"]) == {"Continental"}
    c = st["chains"]["Continental"]
    assert (c["size"], c["price"], c["safe"]) == (13, 900, True)
    assert c["bank_shares"] == 25 - 1 - 1 - 2  # founder, trade, buy = 21
    assert c["bonuses"] == [9000, 4500]
    tiles = ["2E", "3E", "4E", "5E", "6E", "7E", "8E", "9E", "6B", "6C", "6D", "6F", "6G"]
    assert all(st["board"][t] == "Continental" for t in tiles)
    # the only active chain is safe: the end may be declared
    assert st["end_allowed"] is True
    assert pend(st) == ("place", "Bob")


def test_merger4_other_order(tmp_path):
    # Choosing Luxor first pays Luxor's holder first, Imperial not yet.
    lines = lines_of("merger4.jsonl")[:30] + ['{"do": "next_defunct", "chain": "Luxor"}']
    st = legal_state(tmp_path, lines)
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [5600, 5600, 5700 + 4500]
    assert pend(st) == ("dispose", "Cy")


# --------------------------------------------------------------------------
# two players: the stock market competes for bonuses (market2.jsonl)
# --------------------------------------------------------------------------
# Ann 1I, Bob 12I.  Bob founds American (1); Ann buys 3 @300 (5100).
# Bob founds Tower, Ann grows it to 3; Ann merges at 5C: American @300.
# The market's tile sets its share count (the tile's number):
#  5B -> market 5 > Ann 3 > Bob 1: market b1 (stays in bank), Ann b2 1500.
#  3B -> market 3 = Ann 3: share 4500 / 2 = 2250 -> 2300 for Ann; Bob nothing.
#  1B -> Ann 3 b1 3000; market 1 = Bob 1 share b2: 1500 / 2 = 750 -> 800 Bob.
# 12B -> market 12: as 5B.
# Then Ann sells 3 @300 (+900), Bob sells 1 @300 (+300).


@pytest.mark.parametrize("tile,ann,bob", [
    ("5B", 5100 + 1500 + 900, 6000 + 0 + 300),
    ("3B", 5100 + 2300 + 900, 6000 + 0 + 300),
    ("1B", 5100 + 3000 + 900, 6000 + 800 + 300),
    ("12B", 5100 + 1500 + 900, 6000 + 0 + 300),
])
def test_two_player_market(tmp_path, tile, ann, bob):
    lines = lines_of("market2.jsonl")
    assert lines[16] == '{"do": "market", "tile": "5B"}'
    lines[16] = json.dumps({"do": "market", "tile": tile})
    st = legal_state(tmp_path, lines[:16])
    assert st["pending"]["kind"] == "market"
    st = legal_state(tmp_path, lines)
    assert (cash(st, "Ann"), cash(st, "Bob")) == (ann, bob)
    assert st["chains"]["Tower"]["size"] == 6
    assert pend(st) == ("place", "Bob")


def test_two_player_market_file(tmp_path):
    st = after(tmp_path, "market2.jsonl", 17)
    assert (cash(st, "Ann"), cash(st, "Bob")) == (5100 + 1500, 6000)
    assert pend(st) == ("dispose", "Ann")


# --------------------------------------------------------------------------
# end of game: refused too early, accepted when allowed (end_game.jsonl)
# --------------------------------------------------------------------------
# Luxor 1E..11E, Bob founder (1).  Cy buys 3 @600 (size 6) -> 4200;
# Ann buys 3 @600 (size 7) -> 4200.  After 10E Luxor has 10 tiles: not safe,
# end refused.  Bob places 11E: 11 tiles, safe, the only chain -> end allowed.
# Bob ends and buys nothing.  Final payout, Luxor @700 (11-20, tier 1):
#   Ann 3 and Cy 3 tie for first: (7000 + 3500) / 2 = 5250 -> 5300 each;
#   Bob (1) third: nothing.  Shares sold @700: Ann 2100, Cy 2100, Bob 700.
#   Ann 4200 + 5300 + 2100 = 11600; Cy the same; Bob 6000 + 700 = 6700.
# Standings: Ann 1, Cy 1 (ties share), Bob 3 (rank skips).


def test_end_not_yet_allowed(tmp_path):
    st = after(tmp_path, "end_game.jsonl", 21)
    assert st["chains"]["Luxor"]["size"] == 10
    assert st["end_allowed"] is False
    st = after(tmp_path, "end_game.jsonl", 23)
    assert st["chains"]["Luxor"]["size"] == 11
    assert st["chains"]["Luxor"]["safe"] is True
    assert st["chains"]["Luxor"]["price"] == 700
    assert st["end_allowed"] is True
    # after "end" the turn goes on: Bob still buys
    st = after(tmp_path, "end_game.jsonl", 24)
    assert pend(st) == ("buy", "Bob") and st["standings"] is None


def test_end_refused_too_early(tmp_path):
    lines = lines_of("end_game.jsonl")
    assert lines[21] == '{"do": "buy", "shares": {}}'
    bad = lines[:21] + ['{"do": "end"}'] + lines[21:]
    r = replay(write(tmp_path, bad))
    assert r.returncode == 2 and r.stderr.startswith("line 22:")


def test_end_final_payout_and_standings(tmp_path):
    st = scenario("end_game.jsonl")
    assert st["pending"] is None
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [11600, 6700, 11600]
    for n in ("Ann", "Bob", "Cy"):
        assert held(st, n, "Luxor") == 0
    assert st["standings"] == [
        {"name": "Ann", "cash": 11600, "rank": 1},
        {"name": "Cy", "cash": 11600, "rank": 1},
        {"name": "Bob", "cash": 6700, "rank": 3},
    ]


def test_end_at_41_tiles(tmp_path):
    # Start tiles Ann 1I, Bob 12I, Cy 12G keep rows A-D and 11A free.
    s = Script(["Ann", "Bob", "Cy"], {"Ann": "1I", "Bob": "12I", "Cy": "12G"})
    s.turn("1F")                      # Ann
    s.turn("2F", found="Luxor")       # Bob founds Luxor (1 share)
    s.turn("1A")                      # Cy
    s.turn("2A", found="Tower")       # Ann founds Tower (1 share)
    tiles = [f"{c}A" for c in range(3, 11)]
    for row in "BCD":
        tiles += [f"{c}{row}" for c in range(1, 11)]
    assert len(tiles) == 38           # Tower: 2 + 38 = 40 tiles (1A-10D)
    for t in tiles:
        s.turn(t)
    # 4 + 38 = 42 turns played; turn 43 is Ann's (42 % 3 == 0)
    at_40 = list(s.lines)
    st = legal_state(tmp_path, at_40)
    assert st["chains"]["Tower"]["size"] == 40
    assert st["chains"]["Tower"]["price"] == 900
    assert st["end_allowed"] is False  # 40 < 41 and Luxor (2) is not safe
    assert pend(st) == ("place", "Ann")
    # "end" before placing is refused
    r = replay(write(tmp_path, at_40 + ['{"do": "end"}']))
    assert r.returncode == 2 and r.stderr.startswith(f"line {len(at_40) + 1}:")
    s.do(do="place", tile="11A")
    s.do(do="end")
    s.do(do="buy", shares={"Tower": 2})   # @1000 -> Ann 4000, 3 Tower
    st = legal_state(tmp_path, s.lines)
    # Tower @1000 (41+), Ann sole holder: 10000 + 5000; sells 3 @1000.
    # Ann: 4000 + 15000 + 3000 = 22000
    # Luxor @200, Bob sole holder: 2000 + 1000; sells 1 @200: 6000 + 3200 = 9200
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [22000, 9200, 6000]
    assert st["standings"] == [
        {"name": "Ann", "cash": 22000, "rank": 1},
        {"name": "Bob", "cash": 9200, "rank": 2},
        {"name": "Cy", "cash": 6000, "rank": 3},
    ]
    assert st["pending"] is None


# Two players, end of game: the market is asked for every active chain.
# Ann 1I, Bob 12I.  Luxor 1E..11E: Bob founds it (1) at 2E; Ann buys 3 @300
# (size 3) -> 5100.  Ann's 11E makes Luxor 11 tiles (safe, @700): she ends.
#   market 2 (tile 2B): Ann 3 b1 7000; market 2 b2 3500 stays in the bank;
#     Bob nothing.  Ann 5100 + 7000 + 3 x 700 = 14200; Bob 6000 + 700 = 6700.
#   market 4 (tile 4B): market b1; Ann b2 3500 -> 5100 + 3500 + 2100 = 10700.
#   market 1 (tile 1B): Ann b1 7000; Bob and market share b2: 3500 / 2 = 1750
#     -> 1800 for Bob: 6000 + 1800 + 700 = 8500.

@pytest.mark.parametrize("tile,ann,bob", [
    ("2B", 14200, 6700), ("4B", 10700, 6700), ("1B", 14200, 8500)])
def test_two_player_end_market(tmp_path, tile, ann, bob):
    s = Script(["Ann", "Bob"], {"Ann": "1I", "Bob": "12I"})
    s.turn("1E")
    s.turn("2E", found="Luxor")
    s.turn("3E", buy={"Luxor": 3})
    for c in range(4, 11):
        s.turn(f"{c}E")
    s.do(do="place", tile="11E")      # 11th turn: Ann (index 10, even)
    s.do(do="end")
    s.do(do="buy", shares={})
    st = legal_state(tmp_path, s.lines)
    assert st["pending"]["kind"] == "market" and st["standings"] is None
    s.do(do="market", tile=tile)
    st = legal_state(tmp_path, s.lines)
    assert st["pending"] is None
    assert (cash(st, "Ann"), cash(st, "Bob")) == (ann, bob)
    ranks = [1, 2] if ann > bob else [1, 1] if ann == bob else [2, 1]
    expect = sorted([{"name": "Ann", "cash": ann, "rank": ranks[0]},
                     {"name": "Bob", "cash": bob, "rank": ranks[1]}],
                    key=lambda d: d["rank"])
    assert st["standings"] == expect


# --------------------------------------------------------------------------
# buying: the limit and cash (buy_limits.jsonl)
# --------------------------------------------------------------------------
# Continental 1E..10E, Bob founder (1).  Cy buys 2 @500 (size 3) -> 5000.
# Ann buys 3 @600 (size 4) -> 4200; 3 @800 (size 7) -> 1800; at size 10 three
# would cost 2400 > 1800 (refused), two cost 1600 -> 200.


def test_buy_limits(tmp_path):
    st = scenario("buy_limits.jsonl")
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [200, 6000, 5000]
    assert [held(st, n, "Continental") for n in ("Ann", "Bob", "Cy")] == [8, 1, 2]
    c = st["chains"]["Continental"]
    assert (c["size"], c["price"], c["safe"]) == (10, 800, False)
    assert c["bank_shares"] == 25 - 1 - 2 - 3 - 3 - 2  # 14
    assert c["bonuses"] == [8000, 4000]
    assert pend(st) == ("place", "Bob")


# --------------------------------------------------------------------------
# dead tile: touches two safe chains and a small one (built programmatically)
# --------------------------------------------------------------------------
# Tower: 1C..10C + 6D (11 tiles, safe).  Continental: 1G..10G + 6F (11, safe).
# Luxor: 7E, 8E (2).  6E touches 6D (Tower), 6F (Continental) and 7E (Luxor):
# it would merge two safe chains, so it is dead and may not be placed.

def dead_tile_script():
    s = Script(["Ann", "Bob", "Cy"], {"Ann": "1I", "Bob": "12A", "Cy": "12I"})
    turns = [("1C", None), ("2C", "Tower")]                     # Bob founds Tower
    turns += [(f"{c}C", None) for c in range(3, 11)] + [("6D", None)]
    turns += [("1G", None), ("2G", "Continental")]              # turn 13: Ann
    turns += [(f"{c}G", None) for c in range(3, 11)] + [("6F", None)]
    turns += [("8E", None), ("7E", "Luxor")]                    # turn 24: Cy
    assert len(turns) == 24                                     # turn 25: Ann
    for tile, chain in turns:
        s.turn(tile, found=chain)
    return s


def test_dead_tile_refused(tmp_path):
    s = dead_tile_script()
    st = legal_state(tmp_path, s.lines)
    assert pend(st) == ("place", "Ann")
    sizes = {c: (v["size"], v["safe"], v["price"]) for c, v in st["chains"].items()}
    assert sizes == {"Tower": (11, True, 700), "Continental": (11, True, 900),
                     "Luxor": (2, False, 200)}
    assert st["end_allowed"] is False  # Luxor is not safe
    n = len(s.lines) + 1
    r = replay(write(tmp_path, s.lines + ['{"do": "place", "tile": "6E"}']))
    assert r.returncode == 2 and r.stderr.startswith(f"line {n}:")


def test_dead_tile_revealed(tmp_path):
    s = dead_tile_script()
    s.do(do="dead", tile="6E", player="Ann")
    s.turn("12E")
    st = legal_state(tmp_path, s.lines)
    assert "6E" not in st["board"]
    assert st["board"]["12E"] is None
    assert st["chains"]["Tower"]["size"] == 11
    assert st["chains"]["Continental"]["size"] == 11
    assert st["chains"]["Luxor"]["size"] == 2
    assert held(st, "Bob", "Tower") == 1 and held(st, "Ann", "Continental") == 1
    assert held(st, "Cy", "Luxor") == 1
    assert [cash(st, n) for n in ("Ann", "Bob", "Cy")] == [6000, 6000, 6000]
    assert pend(st) == ("place", "Bob")


def test_dead_tile_keep_going(tmp_path):
    s = dead_tile_script()
    good = s.lines + [json.dumps({"do": "dead", "tile": "6E", "player": "Ann"}),
                      '{"do": "place", "tile": "12E"}', '{"do": "buy", "shares": {}}']
    bad = s.lines + ['{"do": "place", "tile": "6E"}'] + good[len(s.lines):]
    base = replay(write(tmp_path, good))
    assert base.returncode == 0, base.stderr
    r = replay(write(tmp_path, bad), "--keep-going")
    assert r.returncode == 2
    assert re.findall(r"^line (\d+):", r.stderr, re.M) == [str(len(s.lines) + 1)]
    assert r.stdout == base.stdout


# --------------------------------------------------------------------------
# setup errors: line 1
# --------------------------------------------------------------------------

@pytest.mark.parametrize("options", [
    {"no_such_option": 1},
    {"bonus_mode": "weird"},
    {"founder_when_sold_out": "shares"},
])
def test_bad_setup_option(tmp_path, options):
    lines = with_options(lines_of("tie2.jsonl"), **options)
    for flags in ((), ("--keep-going",)):
        r = replay(write(tmp_path, lines), *flags)
        assert r.returncode == 2
        assert r.stderr.startswith("line 1:")


# --------------------------------------------------------------------------
# illegal lines: reported with the right number, skipped, state untouched
# --------------------------------------------------------------------------
# (script, N, text the base script's line N contains (None: appended at the
# end), the illegal line inserted as line N, why it is illegal)

ILLEGAL = [
    # place
    ("tie2.jsonl", 2, '"3C"', '{"do": "place", "tile": "3C", "player": "Bob"}', "Ann's turn, not Bob's"),
    ("tie2.jsonl", 4, '"4C"', '{"do": "place", "tile": "3C"}', "3C is occupied"),
    ("tie2.jsonl", 4, '"4C"', '{"do": "place", "tile": "13C"}', "no column 13"),
    ("tie2.jsonl", 4, '"4C"', '{"do": "place", "tile": "4J"}', "no row J"),
    ("tie2.jsonl", 4, '"4C"', '{"do": "place"}', "no tile given"),
    ("tie2.jsonl", 3, '"buy"', '{"do": "place", "tile": "9F"}', "a buy is pending"),
    ("tie2.jsonl", 17, '"dispose"', '{"do": "place", "tile": "9F"}', "a dispose is pending"),
    ("eighth_chain.jsonl", 39, '"4E"', '{"do": "place", "tile": "2E"}', "would found an 8th chain"),
    # malformed / unknown
    ("tie2.jsonl", 4, '"4C"', '{"do": "place", "tile": ', "malformed JSON"),
    ("tie2.jsonl", 4, '"4C"', '[1, 2, 3]', "not an object"),
    ("tie2.jsonl", 4, '"4C"', '{"do": "fly"}', "unknown action"),
    ("tie2.jsonl", 4, '"4C"', '{"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}}', "second setup"),
    # found
    ("tie2.jsonl", 5, '"American"', '{"do": "found", "chain": "Hilton"}', "unknown chain"),
    ("tie2.jsonl", 10, '"Tower"', '{"do": "found", "chain": "American"}', "American is on the board"),
    ("eighth_chain.jsonl", 35, '"Continental"', '{"do": "found", "chain": "Tower"}', "Tower is on the board"),
    ("tie2.jsonl", 6, '"buy"', '{"do": "found", "chain": "Luxor"}', "nothing to found"),
    ("tie2.jsonl", 5, '"American"', '{"do": "found", "chain": "American", "player": "Ann"}', "Bob founds"),
    # buy
    ("tie2.jsonl", 4, '"4C"', '{"do": "buy", "shares": {}}', "must place first"),
    ("tie2.jsonl", 6, '"buy"', '{"do": "buy", "shares": {"American": 4}}', "limit is 3"),
    ("tie2.jsonl", 11, '"buy"', '{"do": "buy", "shares": {"American": 2, "Tower": 2}}', "limit is 3 in total"),
    ("tie2.jsonl", 6, '"buy"', '{"do": "buy", "shares": {"Hilton": 1}}', "unknown chain"),
    ("tie2.jsonl", 6, '"buy"', '{"do": "buy", "shares": {"Tower": 1}}', "Tower not on the board"),
    ("tie2.jsonl", 6, '"buy"', '{"do": "buy", "shares": {"American": -1}}', "negative count"),
    ("tie2.jsonl", 6, '"buy"', '{"do": "buy", "shares": {"American": 1}, "player": "Ann"}', "Bob buys"),
    ("buy_limits.jsonl", 22, '"Continental": 2', '{"do": "buy", "shares": {"Continental": 3}}', "2400 > 1800 cash"),
    ("trade_cap.jsonl", 30, '"buy"', '{"do": "buy", "shares": {"Tower": 1}}', "no Tower left in the bank"),
    # survivor
    ("survivor_tie.jsonl", 17, '"survivor"', '{"do": "survivor", "chain": "Luxor"}', "Luxor not among the tied"),
    ("survivor_tie.jsonl", 17, '"survivor"', '{"do": "survivor", "chain": "American", "player": "Bob"}', "Ann chooses"),
    ("survivor_tie.jsonl", 17, '"survivor"', '{"do": "dispose", "player": "Ann", "sell": 2, "trade": 0}', "survivor not chosen yet"),
    ("tie2.jsonl", 17, '"dispose"', '{"do": "survivor", "chain": "Tower"}', "no survivor tie"),
    # next_defunct
    ("merger4.jsonl", 31, '"next_defunct"', '{"do": "next_defunct", "chain": "Worldwide"}', "Worldwide is smaller"),
    ("merger4.jsonl", 31, '"next_defunct"', '{"do": "next_defunct", "chain": "Continental"}', "the survivor"),
    ("merger4.jsonl", 31, '"next_defunct"', '{"do": "next_defunct", "chain": "Festival"}', "not on the board"),
    ("merger4.jsonl", 32, '"dispose"', '{"do": "next_defunct", "chain": "Luxor"}', "order already chosen"),
    # market
    ("tie2.jsonl", 17, '"dispose"', '{"do": "market", "tile": "7C"}', "three players: no market"),
    ("market2.jsonl", 14, '"10F"', '{"do": "market", "tile": "7C"}', "no payout pending"),
    ("market2.jsonl", 17, '"market"', '{"do": "dispose", "player": "Ann", "sell": 3, "trade": 0}', "market tile first"),
    ("market2.jsonl", 17, '"market"', '{"do": "market", "tile": "13B"}', "no such tile"),
    # dispose
    ("tie2.jsonl", 17, '"Ann"', '{"do": "dispose", "player": "Bob", "sell": 0, "trade": 2}', "Ann disposes first"),
    ("tie2.jsonl", 17, '"Ann"', '{"do": "dispose", "player": "Ann", "sell": 3, "trade": 0}', "Ann holds 2"),
    ("tie2.jsonl", 17, '"Ann"', '{"do": "dispose", "player": "Ann", "sell": 1, "trade": 2}', "Ann holds 2, not 3"),
    ("tie2.jsonl", 18, '"Bob"', '{"do": "dispose", "player": "Bob", "sell": 1, "trade": 1}', "odd trade"),
    ("tie2.jsonl", 18, '"Bob"', '{"do": "dispose", "player": "Bob", "sell": -1, "trade": 2}', "negative sell"),
    ("tie2.jsonl", 19, '"Cy"', '{"do": "dispose", "player": "Cy", "sell": 0, "trade": 0, "keep": 2}', "Cy holds 1"),
    ("trade_cap.jsonl", 29, '"Bob"', '{"do": "dispose", "player": "Bob", "sell": 0, "trade": 4}', "only 1 Tower in the bank"),
    ("trade_cap.jsonl", 29, '"Bob"', '{"do": "dispose", "player": "Bob", "sell": 1, "trade": 3}', "odd trade"),
    ("trade_cap.jsonl", 29, '"Bob"', '{"do": "dispose", "player": "Ann", "sell": 0, "trade": 0}', "Ann holds no American"),
    ("tie2.jsonl", 12, '"8C"', '{"do": "dispose", "player": "Bob", "sell": 1, "trade": 0}', "no merger"),
    # dead
    ("tie2.jsonl", 12, '"8C"', '{"do": "dead", "tile": "9F", "player": "Bob"}', "9F is playable"),
    ("tie2.jsonl", 12, '"8C"', '{"do": "dead", "tile": "3C", "player": "Bob"}', "3C is on the board"),
    # no_tile
    ("tie2.jsonl", 12, '"8C"', '{"do": "no_tile", "player": "Ann"}', "Bob's turn"),
    ("tie2.jsonl", 13, '"buy"', '{"do": "no_tile"}', "a buy is pending"),
    # end
    ("tie2.jsonl", 12, '"8C"', '{"do": "end"}', "no chain is safe"),
    ("merger4.jsonl", 38, None, '{"do": "end", "player": "Ann"}', "Bob's turn"),
    ("end_game.jsonl", 22, '"buy"', '{"do": "end"}', "Luxor has 10 tiles"),
    ("end_game.jsonl", 26, None, '{"do": "place", "tile": "12E"}', "the game is over"),
    ("end_game.jsonl", 26, None, '{"do": "buy", "shares": {}}', "the game is over"),
]


@pytest.fixture(scope="module")
def base_outputs():
    cache = {}

    def get(name):
        if name not in cache:
            r = replay(SCEN / name)
            assert r.returncode == 0, f"{name}: {r.stderr}"
            assert r.stderr == ""
            k = replay(SCEN / name, "--keep-going")
            assert k.returncode == 0 and k.stdout == r.stdout
            cache[name] = r.stdout
        return cache[name]
    return get


@pytest.mark.parametrize("name,n,anchor,bad,why", ILLEGAL,
                         ids=[f"{x[0]}:{x[1]}:{x[4]}" for x in ILLEGAL])
def test_illegal_line(tmp_path, base_outputs, name, n, anchor, bad, why):
    lines = lines_of(name)
    if anchor is None:
        assert n == len(lines) + 1
    else:
        assert anchor in lines[n - 1], "test table out of step with the script"
    script = lines[:n - 1] + [bad] + lines[n - 1:]
    r = replay(write(tmp_path, script), "--keep-going")
    assert r.returncode == 2, why
    assert re.findall(r"^line (\d+):", r.stderr, re.M) == [str(n)], r.stderr
    assert r.stdout == base_outputs(name), why
    # without --keep-going it stops at the same line
    r = replay(write(tmp_path, script))
    assert r.returncode == 2
    assert r.stderr.startswith(f"line {n}:")


def test_every_scenario_replays_cleanly(base_outputs):
    for p in sorted(SCEN.glob("*.jsonl")):
        json.loads(base_outputs(p.name))


def test_the_command_as_a_process_prints_what_the_tests_read_in_process(tmp_path, base_outputs):
    # Every test above reads the command in-process; as the user runs it, it says the same.
    name = "merger4.jsonl"
    done = replay_process(SCEN / name)
    assert (done.returncode, done.stdout, done.stderr) == (0, base_outputs(name), "")
    lines = lines_of(name)
    bad = write(tmp_path, lines[:3] + ['{"not": "an action"}'] + lines[3:])
    alone, inside = replay_process(bad, "--keep-going"), replay(bad, "--keep-going")
    assert alone.returncode == inside.returncode == 2
    assert (alone.stdout, alone.stderr) == (inside.stdout, inside.stderr)
