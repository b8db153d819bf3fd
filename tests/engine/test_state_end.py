"""The state JSON at the end of a game: shares of chains not on the board are worthless.

At the end every share of a chain on the board is sold; a share of a chain
merged away (and not founded again) is worth nothing. The final state says so
for each player: ``worthless`` maps such a chain to the shares still held. It
is there only once the game is over, and shown with the holdings (disclosure
``players`` and up).

The game (Acquire, Ann Bob Cy; start tiles 1I, 12A, 12I stay on the board as
lone tiles; Ann starts), worked by hand from the price table (tier 1: 2 tiles
200, 3 tiles 300, 6-10 tiles 600; bonuses 10x and 5x the price):

    1 Ann 1A lone                 2 Bob 2A founds Tower (1 free), buys 2 @200   Bob 5600
    3 Cy 5A lone                  4 Ann 6A founds Luxor (1 free)
    5 Bob 7A: Luxor 3, buys 2 @300 = 600                                        Bob 5000
    6 Cy 3A: Tower 3              7 Ann 1B: Tower 4
    8 Bob 4A merges Luxor (3, 300) into Tower (4): Bob (2) majority 3000, Ann (1)
      minority 1500; Bob keeps his 2, Ann sells 1 @300                       Bob 8000, Ann 7800
    9 Cy agrees to end, places 10E lone, buys nothing. Final: Tower 8 tiles @600,
      Bob sole holder (3): 6000 + 3000, sells 3 @600 = 1800                    Bob 18800
      Bob's 2 Luxor shares: worthless.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from table_script import Table
from tabletop import state_json, view

ROOT = Path(__file__).resolve().parents[2]
ANN, BOB, CY = "Ann", "Bob", "Cy"


def merged_game() -> Table:
    """Turns 1-8 above: Bob holds 2 shares of Luxor, merged away; Tower is on the board."""
    t = Table([ANN, BOB, CY], {ANN: "1I", BOB: "12A", CY: "12I"})
    t.turn("1A")
    t.turn("2A", found="Tower", buy={"Tower": 2})
    t.turn("5A")
    t.turn("6A", found="Luxor")
    t.turn("7A", buy={"Luxor": 2})
    t.turn("3A")
    t.turn("1B")
    t.do("place", tile="4A", player=BOB)
    t.do("dispose", player=BOB, sell=0, keep=2)
    t.do("dispose", player=ANN, sell=1)
    t.do("buy", shares={}, player=BOB)
    assert t.cash() == {ANN: 7800, BOB: 8000, CY: 6000}
    assert "Luxor" not in t.state()["chains"] and t.shares(BOB) == {"Tower": 3, "Luxor": 2}
    return t


def test_kept_shares_of_a_chain_merged_away_are_worthless_at_the_end():
    t = merged_game()
    # While the game goes on, Luxor may be founded again: nothing is called worthless yet.
    assert all("worthless" not in player for player in t.state()["players"])
    t.do("end", agreed=True, player=CY)
    t.turn("10E")
    st = t.replayed()
    assert st["standings"] == [{"name": BOB, "cash": 18800, "rank": 1},
                               {"name": ANN, "cash": 7800, "rank": 2},
                               {"name": CY, "cash": 6000, "rank": 3}]
    assert [(p["name"], p["shares"], p["worthless"]) for p in st["players"]] == [
        (ANN, {}, {}), (BOB, {"Luxor": 2}, {"Luxor": 2}), (CY, {}, {})]
    # Nothing was paid for them: the final count sold Tower only.
    assert [(e["player"], e["chain"], e["cash"]) for e in t.events if e["event"] == "sold"] == [
        (BOB, "Tower", 1800)]


def test_a_chain_founded_again_before_the_end_is_sold_not_worthless():
    t = merged_game()
    t.turn("10E")                                   # Cy, lone
    t.turn("11E", found="Luxor")                    # Ann founds Luxor again: 2 tiles, 200
    t.do("end", agreed=True, player=BOB)
    t.turn("9G")
    st = t.replayed()
    assert all(player["worthless"] == {} for player in st["players"])
    sold = {(e["player"], e["chain"]): e["cash"] for e in t.events if e["event"] == "sold"}
    assert sold[(BOB, "Luxor")] == 2 * 200 and sold[(ANN, "Luxor")] == 200


def test_worthless_is_shown_with_the_holdings_only():
    t = merged_game()
    t.do("end", agreed=True, player=CY)
    t.turn("10E")
    st = t.state()
    assert view(st, "players")["players"][1]["worthless"] == {"Luxor": 2}
    assert view(st, "open")["players"][1]["worthless"] == {"Luxor": 2}
    for level in ("hidden", "bank"):
        assert all("worthless" not in p and "shares" not in p for p in view(st, level)["players"])


def test_replay_prints_the_worthless_shares(tmp_path):
    t = merged_game()
    t.do("end", agreed=True, player=CY)
    t.turn("10E")
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join(t.lines) + "\n")
    done = subprocess.run([sys.executable, "-m", "tabletop", "replay", str(script)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed == state_json(t.game)
    assert {p["name"]: p["worthless"] for p in printed["players"]} == {
        ANN: {}, BOB: {"Luxor": 2}, CY: {}}
