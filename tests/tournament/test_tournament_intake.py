"""The intake: each slip taken once by its id, verified under its table's key, its seat checked,
refused otherwise with a reason naming the table; what it took survives a restart."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tabletop.journal.keys import signing_key_from_seed
from tabletop.journal.outbox import slip_id
from tabletop.journal.signing import sign
from tabletop.tournament.intake import ALREADY, REFUSED, TAKEN, Intake
from tabletop.tournament.model import Round, Tournament
from tabletop.tournament.standings import standings

KEYS = {table: signing_key_from_seed(bytes([number]) * 32) for number, table in
        enumerate(("1", "2", "3"), 1)}
PLAYERS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus")


def tournament(rounds: int = 1) -> Tournament:
    t = Tournament("Spring Open", PLAYERS)
    for table in ("1", "2"):
        t = t.with_table(table, KEYS[table].public.text())
    t = t.with_round(Round(1, {"1": ("Ann", "Bob", "Cy", "Di"), "2": ("Ed", "Flo", "Gus")}))
    if rounds > 1:
        t = t.with_round(Round(2, {"1": ("Ann", "Ed", "Bob", "Flo"), "2": ("Cy", "Di", "Gus")}))
    return t


def slip(table: str, round_number: int, players: list[tuple[str, int, int]], game: int = 1,
         key_table: str | None = None, name: str = "Spring Open") -> dict:
    body = {"slip": 2, "table": f"table {table}", "game": game, "currency": "$",
            "seat": {"tournament": name, "round": round_number, "table": table},
            "players": [{"rank": rank, "name": who, "seat": i + 1, "cash": cash}
                        for i, (who, rank, cash) in enumerate(players)]}
    return sign(body, KEYS[key_table or table])


ROUND_1_TABLE_1 = [("Ann", 1, 50_000), ("Bob", 2, 40_000), ("Cy", 2, 40_000), ("Di", 4, 10_000)]
ROUND_1_TABLE_2 = [("Ed", 1, 30_000), ("Flo", 2, 20_000), ("Gus", 3, 15_000)]


@pytest.fixture
def intake(tmp_path: Path) -> Intake:
    return Intake(tournament(), tmp_path / "tournament.slips.jsonl")


def test_a_slip_is_taken_once_and_counted_once(intake: Intake) -> None:
    genuine = slip("1", 1, ROUND_1_TABLE_1)
    first = intake.take(genuine, "1")
    assert first.kind == TAKEN and first.slip_id == slip_id(genuine)
    assert first.message == ("took table 1's slip for round 1 (game 1): 1. Ann $50,000, "
                             "2. Bob $40,000, 2. Cy $40,000, 4. Di $10,000")
    again = intake.take(copy.deepcopy(genuine), "1")
    assert again.kind == ALREADY and "counted once" in again.message
    assert [s.points for s in standings(PLAYERS, intake.results())][:3] == [4, 3, 3]
    assert len(intake.results()) == 1
    assert intake.missing(1) == ["2"]


def test_what_was_taken_survives_a_restart_and_a_torn_last_line(tmp_path: Path,
                                                                 intake: Intake) -> None:
    intake.take(slip("1", 1, ROUND_1_TABLE_1), "1")
    with open(intake.path, "ab") as file:
        file.write(b'{"id": "torn')        # the power went while a line was written
    restarted = Intake(tournament(), intake.path)
    assert [r.table for r in restarted.results()] == ["1"]
    assert restarted.take(slip("1", 1, ROUND_1_TABLE_1), "1").kind == ALREADY
    assert restarted.take(slip("2", 1, ROUND_1_TABLE_2), "2").kind == TAKEN
    assert restarted.missing(1) == []


@pytest.mark.parametrize("make, table, reason", [
    (lambda: _changed(slip("1", 1, ROUND_1_TABLE_1)), "1",
     "refused the slip of table 1: its signature does not hold: field players[3].cash was "
     "changed"),
    (lambda: slip("2", 1, ROUND_1_TABLE_2, key_table="3"), "2",
     ("refused the slip of table 2: its signature does not hold: the slip was signed by "
      "another table's key")),
    (lambda: slip("1", 1, ROUND_1_TABLE_1, name="Autumn Open"), "1",
     "refused the slip of table 1: this slip is for Autumn Open, round 1, table 1; expected "
     "Spring Open, round 1, table 1"),
    (lambda: slip("1", 4, ROUND_1_TABLE_1), "1",
     "refused the slip of table 1: this slip is for Spring Open, round 4, table 1; expected "
     "Spring Open, round 1, table 1"),
    (lambda: slip("1", 1, ROUND_1_TABLE_1), "2",
     "refused the slip of table 2: the slip names table 1, not this one"),
    (lambda: slip("1", 1, [("Ann", 1, 9), ("Bob", 2, 8), ("Cy", 3, 7), ("Ed", 4, 6)]), "1",
     "refused the slip of table 1: the slip's players (Ann, Bob, Cy, Ed) are not the ones "
     "seated at table 1 in round 1 (Ann, Bob, Cy, Di)"),
    (lambda: slip("3", 1, ROUND_1_TABLE_2), "3",
     "refused the slip of table 3: no public key is registered for this table "
     "(`tabletop director register 3 KEY`)"),
    (lambda: "not a slip", "2", "refused the slip of table 2: this is not a slip"),
])
def test_a_slip_that_does_not_hold_is_refused_naming_its_table(intake: Intake, make, table: str,
                                                              reason: str) -> None:
    outcome = intake.take(make(), table)
    assert outcome.kind == REFUSED and outcome.table == table
    assert outcome.message.startswith(reason), outcome.message
    assert intake.results() == []


def _changed(value: dict) -> dict:
    value["players"][3]["cash"] += 40_000
    return value


def test_a_second_game_for_the_same_seat_is_refused(intake: Intake) -> None:
    assert intake.take(slip("2", 1, ROUND_1_TABLE_2, game=4), "2").kind == TAKEN
    replay = intake.take(slip("2", 1, list(reversed(ROUND_1_TABLE_2)), game=5), "2")
    assert replay.kind == REFUSED
    assert replay.message == ("refused the slip of table 2: this table handed in its slip for "
                              "round 1 already (game 4); this one is of game 5")
    assert [r.game for r in intake.results()] == [4]


def test_a_refusal_the_director_can_mend_is_not_final(intake: Intake) -> None:
    unregistered = intake.take(slip("3", 1, ROUND_1_TABLE_2), "3")
    assert unregistered.kind == REFUSED and not unregistered.final
    forged = intake.take(_changed(slip("1", 1, ROUND_1_TABLE_1)), "1")
    assert forged.final


def test_a_later_round_is_taken_against_its_own_seating(tmp_path: Path) -> None:
    intake = Intake(tournament(rounds=2), tmp_path / "slips.jsonl")
    late = intake.take(slip("2", 1, ROUND_1_TABLE_2), "2")          # round 1, delivered late
    now = intake.take(slip("2", 2, [("Cy", 1, 9), ("Di", 2, 8), ("Gus", 3, 7)], game=2), "2")
    assert (late.kind, now.kind) == (TAKEN, TAKEN)
    assert [(r.round, r.table) for r in intake.results()] == [(1, "2"), (2, "2")]
