"""End to end: three tables and the director on a real Mosquitto, the broker cut off mid-round.

The director is the real command (``python -m tabletop director listen``, a subprocess);
each table is the engine and its journal (headless, random legal games played to the
end) with its own data folder, signing key, outbox and :class:`TableLink`. The broker
is killed while round 1 is being played and started again on the same port; it keeps
nothing on disk, so only the tables' outboxes carry the slips across. Then every slip
must have arrived once, verified; a forged slip and a slip replayed from another
tournament are refused naming their table; and the standings the command prints equal
a hand computation from the slips.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("paho.mqtt.client", reason="the tournament extra (paho-mqtt) is not installed")

from mosquitto_broker import Mosquitto  # noqa: E402

from tabletop.assembly.broker import TableLink  # noqa: E402
from tabletop.engine.random_play import random_action  # noqa: E402
from tabletop.journal.journal import Journal  # noqa: E402
from tabletop.journal.keys import table_signing_key  # noqa: E402
from tabletop.journal.outbox import slip_id  # noqa: E402
from tabletop.journal.seat import Seat  # noqa: E402
from tabletop.journal.signing import verify  # noqa: E402
from tabletop.journal.slip import make_slip  # noqa: E402
from tabletop.director.mqtt import BrokerAddress, Link  # noqa: E402
from tabletop.tournament import model  # noqa: E402
from tabletop.tournament.intake import Intake, slips_file  # noqa: E402
from tabletop.tournament.topics import slip_topic  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAME = "Spring Open"
PLAYERS = "Ann,Bob,Cy,Di,Ed,Flo,Gus,Hal,Ivy,Jo"
TIMEOUT = 40.0


def tabletop(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tabletop", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=60)


def wait_for(what: str, check, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Table:
    """One headless table: a journal, a signing key, and its link to the broker."""

    def __init__(self, folder: Path, name: str, broker: str) -> None:
        self.name, self.data = name, folder / f"table-{name}"
        self.key = table_signing_key(self.data)
        self.journal = Journal.open(self.data / "journal.db", table_name=f"table {name}")
        self.said: list[str] = []
        self.link = TableLink(broker, NAME, name, self.data, self.key, out=self.said.append,
                              resend=1.0)
        self.game_id: int | None = None
        self.rng = random.Random(0)

    def sit(self, round_number: int, players: tuple[str, ...], seed: int) -> None:
        seat = Seat(round_number, self.name, NAME).to_json()
        table = self.journal.start({"setup": {"rules": "acquire", "players": list(players),
                                              "seed": seed, "seat": seat}})
        self.game_id, self.rng = table.id, random.Random(seed)
        self.link.confirmed(self.journal, self.game_id)

    @property
    def game(self):
        return self.journal.resume(self.game_id).game

    def play(self, actions: int | None = None) -> None:
        """Play ``actions`` random legal actions (None: to the end), each confirmed and told."""
        done = 0
        while self.game.pending is not None and (actions is None or done < actions):
            self.journal.record(self.game_id, random_action(self.game, self.rng))
            self.link.confirmed(self.journal, self.game_id)
            done += 1

    def slip(self) -> dict:
        return make_slip(self.journal, self.game_id, self.key)

    def close(self) -> None:
        self.link.stop()
        self.journal.close()


@pytest.fixture
def venue(tmp_path: Path):
    broker = Mosquitto(tmp_path)
    broker.start()
    tables: list[Table] = []
    director: subprocess.Popen | None = None

    def listen() -> subprocess.Popen:
        nonlocal director
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        with open(tmp_path / "director.out", "w") as out:
            director = subprocess.Popen(
                [sys.executable, "-m", "tabletop", "director", "listen", "--broker",
                 broker.address], cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT)
        return director

    yield broker, tables, listen
    for table in tables:
        table.close()
    if director is not None and director.poll() is None:
        director.kill()
        director.wait()
    broker.kill()


def director_said(folder: Path) -> str:
    return (folder / "director.out").read_text()


def hand_standings(slips: list[dict]) -> list[tuple[str, int, int]]:
    """Rank points (N for 1st at a table of N, down to 1) and total cash, by hand."""
    points: dict[str, int] = {name: 0 for name in PLAYERS.split(",")}
    cash = dict.fromkeys(points, 0)
    for slip in slips:
        n = len(slip["players"])
        for player in slip["players"]:
            points[player["name"]] += n + 1 - player["rank"]
            cash[player["name"]] += player["cash"]
    order = sorted(points, key=lambda name: (-points[name], -cash[name], name))
    return [(name, points[name], cash[name]) for name in order]


def printed_standings(text: str) -> list[tuple[str, int, int]]:
    rows = []
    for line in text.splitlines()[2:]:
        place, name, points, cash, games = line.split()
        rows.append((name, int(points), int(cash.replace(",", ""))))
    return rows


def test_every_slip_arrives_once_across_a_broker_outage(tmp_path: Path, venue) -> None:
    broker, tables, listen = venue
    made = tabletop("director", "new", NAME, "--players", PLAYERS, "--seed", "11",
                    "--rounds", "2", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    for name in ("1", "2", "3"):
        table = Table(tmp_path, name, broker.address)
        tables.append(table)
        registered = tabletop("director", "register", name, table.key.public.text(), cwd=tmp_path)
        assert registered.returncode == 0 and table.key.public.fingerprint in registered.stdout
    seated = tabletop("director", "seat", "1", cwd=tmp_path)
    assert seated.returncode == 0, seated.stderr
    tournament = model.load(tmp_path / "tournament.json")
    assert [len(p) for p in tournament.round(1).tables.values()] == [4, 3, 3]

    director = listen()
    for table in tables:
        table.link.start()
    wait_for("the tables and the director to reach the broker",
             lambda: all(t.link.connected for t in tables)
             and "connected to the broker" in director_said(tmp_path))
    one, two, three = tables
    for number, table in enumerate(tables, 1):
        table.sit(1, tournament.round(1).tables[table.name], seed=100 + number)
        table.play(actions=15)
    one.play()                         # table 1 finishes while the broker is up
    wait_for("table 1's slip to be answered", lambda: not one.link.outbox.pending())

    broker.kill()                      # the venue's Wi-Fi drops mid-round
    wait_for("the tables to notice", lambda: not any(t.link.connected for t in tables))
    two.play()
    three.play()
    assert [len(t.link.outbox.pending()) for t in tables] == [0, 1, 1]
    assert any("lost the broker" in line or "cannot reach the broker" in line
               for line in two.said)
    broker.start()                     # and comes back
    wait_for("the slips kept meanwhile to be answered",
             lambda: not any(t.link.outbox.pending() for t in tables))

    intake = Intake(model.load(tmp_path / "tournament.json"), slips_file(tmp_path / "tournament.json"))
    round_one = [t.slip() for t in tables]
    assert sorted(e.id for e in intake.entries() if e.outcome == "taken") == \
        sorted(slip_id(s) for s in round_one)

    # A slip sent again counts once; a forged one and one replayed from another
    # tournament (signed by table 3's own key) are refused, naming the table.
    raw = Link(BrokerAddress.parse(broker.address), "test-intruder", lambda line: None)
    raw.start()
    assert raw.wait(10)
    raw.publish(slip_topic(NAME, "1"), json.dumps(round_one[0]).encode())
    forged = json.loads(json.dumps(round_one[1]))
    forged["players"][-1]["cash"] += 50_000
    raw.publish(slip_topic(NAME, "2"), json.dumps(forged).encode())
    elsewhere = Journal.open(tmp_path / "autumn" / "journal.db", table_name="table 3")
    autumn = elsewhere.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                                        "seed": 5, "seat": Seat(1, "3", "Autumn Open").to_json()}})
    rng = random.Random(5)
    while autumn.game.pending is not None:
        autumn.push(random_action(autumn.game, rng))
    replayed = make_slip(elsewhere, autumn.id, three.key)
    elsewhere.close()
    raw.publish(slip_topic(NAME, "3"), json.dumps(replayed).encode())
    wait_for("the director's answers", lambda: director_said(tmp_path).count("refused") >= 2
             and "taken before" in director_said(tmp_path))
    raw.stop()
    said = director_said(tmp_path)
    assert "table 1: slip" in said and "taken before (sent again: counted once)" in said
    assert ("refused the slip of table 2: its signature does not hold: field players[2].cash "
            "was changed") in said
    assert ("refused the slip of table 3: this slip is for Autumn Open, round 1, table 3; "
            "expected Spring Open, round 1, table 3") in said

    # Round 2, seated by standing, played with the broker up.
    seated = tabletop("director", "seat", "2", cwd=tmp_path)
    assert seated.returncode == 0, seated.stderr
    tournament = model.load(tmp_path / "tournament.json")
    for number, table in enumerate(tables, 1):
        table.sit(2, tournament.round(2).tables[table.name], seed=200 + number)
        table.play()
    wait_for("round 2's slips", lambda: not any(t.link.outbox.pending() for t in tables))
    round_two = [t.slip() for t in tables]

    director.send_signal(signal.SIGTERM)
    assert director.wait(timeout=20) == 0
    said = director_said(tmp_path)
    assert "Traceback" not in said
    assert "round 2 is complete" in said

    taken = [e for e in intake.entries() if e.outcome == "taken"]
    assert sorted(e.id for e in taken) == sorted(slip_id(s) for s in round_one + round_two)
    keys = {t.name: t.key.public for t in tables}
    for entry in taken:                # verified, each under its own table's key
        seat = Seat.from_json(entry.slip["seat"])
        assert verify(entry.slip, keys[entry.table], Seat(seat.round, entry.table, NAME)).valid
    standings = tabletop("director", "standings", cwd=tmp_path)
    assert standings.returncode == 0, standings.stderr
    assert printed_standings(standings.stdout) == hand_standings(round_one + round_two)
    # Round 2 was seated by round 1's standing: the leaders at table 1.
    after_one = [name for name, _, _ in hand_standings(round_one)]
    assert tournament.round(2).tables["1"] == tuple(after_one[:4])
