"""The tournament's pure model: table sizes, seating, standings worked out by hand, the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop.tournament import model
from tabletop.tournament.model import Round, Tournament, TournamentError
from tabletop.tournament.seating import by_standing, first_round, table_sizes
from tabletop.tournament.standings import GameResult, Placing, standings

PLAYERS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus")


@pytest.mark.parametrize("players, sizes", [
    (3, [3]), (5, [5]), (7, [4, 3]), (8, [4, 4]), (9, [5, 4]), (10, [4, 3, 3]),
    (12, [4, 4, 4]), (13, [5, 4, 4]), (17, [5, 4, 4, 4]),
])
def test_tables_are_as_near_four_as_possible(players: int, sizes: list[int]) -> None:
    assert table_sizes(players, preferred=4, smallest=3, largest=6) == sizes
    assert sum(sizes) == players


def test_other_table_sizes_and_players_that_cannot_be_seated() -> None:
    assert table_sizes(12, preferred=6, smallest=3, largest=6) == [6, 6]
    assert table_sizes(12, preferred=3, smallest=3, largest=6) == [3, 3, 3, 3]
    with pytest.raises(TournamentError, match="2 players cannot be seated at tables of 3 to 6"):
        table_sizes(2, preferred=4, smallest=3, largest=6)
    with pytest.raises(TournamentError, match="a table seats 3 to 6 players"):
        Tournament("Open", PLAYERS, table_size=7)


def test_round_one_is_drawn_from_the_seed_and_seats_everyone_once() -> None:
    tournament = Tournament("Open", PLAYERS, seed=42)
    seated = first_round(tournament)
    assert first_round(tournament) == seated                 # the same seed, the same tables
    assert [len(p) for p in seated.tables.values()] == [4, 3]
    everyone = [name for players in seated.tables.values() for name in players]
    assert sorted(everyone) == sorted(PLAYERS)
    draws = {tuple(first_round(Tournament("Open", PLAYERS, seed=s)).tables["1"]) for s in range(6)}
    assert len(draws) > 1                                    # the seed does draw


def two_rounds() -> list[GameResult]:
    """Round 1 at tables of 4 and 3, round 2 the same, results chosen by hand."""
    return [
        GameResult(1, "1", 1, (Placing("Ann", 1, 50_000), Placing("Bob", 2, 40_000),
                               Placing("Cy", 2, 40_000), Placing("Di", 4, 10_000))),
        GameResult(1, "2", 1, (Placing("Ed", 1, 30_000), Placing("Flo", 2, 20_000),
                               Placing("Gus", 3, 15_000))),
        GameResult(2, "1", 2, (Placing("Ann", 1, 60_000), Placing("Ed", 2, 45_000),
                               Placing("Bob", 3, 30_000), Placing("Cy", 4, 20_000))),
        GameResult(2, "2", 2, (Placing("Flo", 1, 35_000), Placing("Di", 2, 33_000),
                               Placing("Gus", 3, 5_000))),
    ]


def test_standings_by_rank_points_then_total_cash_equal_a_hand_computation() -> None:
    # Points (N for 1st at a table of N ... 1 for last; ties share the better place):
    #   Ann 4+4=8 $110,000   Ed 3+3=6 $75,000   Bob 3+2=5 $70,000   Flo 2+3=5 $55,000
    #   Cy 3+1=4 $60,000     Di 1+2=3 $43,000   Gus 1+1=2 $20,000
    lines = standings(PLAYERS, two_rounds())
    assert [(s.place, s.name, s.points, s.cash, s.games) for s in lines] == [
        (1, "Ann", 8, 110_000, 2), (2, "Ed", 6, 75_000, 2), (3, "Bob", 5, 70_000, 2),
        (4, "Flo", 5, 55_000, 2), (5, "Cy", 4, 60_000, 2), (6, "Di", 3, 43_000, 2),
        (7, "Gus", 2, 20_000, 2)]


def test_equal_points_and_cash_share_a_place() -> None:
    game = GameResult(1, "1", 1, (Placing("Ann", 1, 9_000), Placing("Bob", 1, 9_000),
                                  Placing("Cy", 3, 1_000)))
    assert [(s.place, s.name, s.points) for s in standings(["Cy", "Bob", "Ann"], [game])] == [
        (1, "Ann", 3), (1, "Bob", 3), (3, "Cy", 1)]


def test_later_rounds_are_seated_by_standing() -> None:
    tournament = Tournament("Open", PLAYERS)
    order = [line.name for line in standings(PLAYERS, two_rounds())]
    seated = by_standing(tournament, 3, order)
    assert seated.tables == {"1": ("Ann", "Ed", "Bob", "Flo"), "2": ("Cy", "Di", "Gus")}
    with pytest.raises(TournamentError, match="every player"):
        by_standing(tournament, 3, order[:-1])


def test_the_tournament_file_round_trips_and_refuses_damage(tmp_path: Path) -> None:
    path = tmp_path / "tournament.json"
    tournament = Tournament("Spring Open", PLAYERS, seed=3).with_table("1", "ed25519:AAAA")
    tournament = tournament.with_round(Round(1, {"1": PLAYERS[:4], "2": PLAYERS[4:]}))
    model.save(tournament, path)
    assert model.load(path) == tournament
    assert json.loads(path.read_text())["rounds"][0]["tables"]["2"] == ["Ed", "Flo", "Gus"]
    path.write_text("{not json")
    with pytest.raises(TournamentError, match="is not a tournament file"):
        model.load(path)
    with pytest.raises(TournamentError, match="no tournament at"):
        model.load(tmp_path / "missing.json")


def test_names_are_checked() -> None:
    with pytest.raises(TournamentError, match="Ann is a player of Open twice"):
        Tournament("Open", ("Ann", "Bob", "Ann"))
    with pytest.raises(TournamentError, match="a player is named by"):
        Tournament("Open", ("Ann", "Bob\n"))
