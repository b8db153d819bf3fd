"""What the director says of a table's live state: a game started for another round than
the one seated is named at once (its slip would be refused at the end, the game lost)."""

from __future__ import annotations

import pytest

from tabletop.director.listen import Director
from tabletop.director.mqtt import BrokerAddress
from tabletop.tournament import model
from tabletop.tournament.model import TournamentError
from tabletop.tournament.topics import LiveState, PlayerState, state_topic

NAME = "Spring Open"
ROUND_1 = model.Round(1, {"1": ("Ann", "Bob", "Cy", "Di"), "2": ("Ed", "Flo", "Gus")})
ROUND_2 = model.Round(2, {"1": ("Ann", "Ed", "Cy", "Gus"), "2": ("Bob", "Flo", "Di")})


def _state(round_: int, game: int, turn: int = 3, over: bool = False) -> bytes:
    players = tuple(PlayerState(name, 6000) for name in ROUND_2.tables["2"])
    return LiveState(NAME, round_, "2", game, turn, "Bob", players, over, 0).to_bytes()


def _director(tmp_path, *rounds: model.Round) -> tuple[Director, list[str]]:
    tournament = model.Tournament(NAME, tuple(p for names in ROUND_1.tables.values()
                                              for p in names), rounds_planned=2)
    for seated in rounds:
        tournament = tournament.with_round(seated)
    path = tmp_path / "tournament.json"
    model.save(tournament, path)
    said: list[str] = []
    return Director(path, send=lambda topic, payload: None, out=said.append), said


def test_a_table_left_on_the_last_round_is_named_when_its_game_starts(tmp_path):
    director, said = _director(tmp_path, ROUND_1, ROUND_2)
    director.handle(state_topic(NAME, "2"), _state(1, 5))
    director.handle(state_topic(NAME, "2"), _state(1, 5, turn=4))   # once a game, not a turn
    warnings = [line for line in said if "will not count" in line]
    assert warnings == ["table 2 is playing game 5 for round 1, but round 2 is seated: its "
                        "slip will not count. Stop it and set the table to round 2 (the setup "
                        "screen's +, or tabletop run --round 2)"]


def test_a_table_playing_the_round_seated_is_not_warned(tmp_path):
    director, said = _director(tmp_path, ROUND_1, ROUND_2)
    director.handle(state_topic(NAME, "2"), _state(2, 6))
    assert said == ["table 2 is online: round 2, game 6"]
    # A finished game of the round before (its slip already in) is no mistake either.
    director, said = _director(tmp_path, ROUND_1, ROUND_2)
    director.handle(state_topic(NAME, "2"), _state(1, 5, over=True))
    assert not [line for line in said if "will not count" in line]


def test_a_broker_given_as_a_url_is_refused_not_looked_up_for_ever():
    with pytest.raises(TournamentError, match="HOST:PORT"):
        BrokerAddress.parse("mqtt://127.0.0.1:1883")
    assert str(BrokerAddress.parse("127.0.0.1:1883")) == "127.0.0.1:1883"
