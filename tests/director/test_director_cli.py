"""``tabletop director``, run as the real command: a tournament made, seated, its slips brought
on a USB stick (as ``tabletop slip --out`` writes them), the standings printed; bad input
said in one line and nothing changed; an unreachable broker said and retried."""

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

from tabletop.engine.random_play import random_action
from tabletop.journal.journal import Journal
from tabletop.journal.keys import table_signing_key
from tabletop.journal.seat import Seat

ROOT = Path(__file__).resolve().parents[2]
NAME = "Club Night"
PLAYERS = "Ann,Bob,Cy,Di,Ed,Flo,Gus"


def tabletop(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-m", "tabletop", *args], capture_output=True,
                          text=True, cwd=cwd, env=environment, timeout=60)


def play(data: Path, players: tuple[str, ...], seat: Seat, seed: int) -> Path:
    """A finished game at the table whose data folder is ``data``; its journal."""
    path = data / "journal.db"
    with Journal.open(path, table_name=f"table {seat.table}") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": list(players),
                                         "seed": seed, "seat": seat.to_json()}})
        rng = random.Random(seed)
        while table.game.pending is not None:
            table.push(random_action(table.game, rng))
    return path


@pytest.fixture
def club(tmp_path: Path) -> Path:
    made = tabletop("director", "new", NAME, "--players", PLAYERS, "--seed", "4",
                    "--rounds", "2", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert made.stdout == ("tournament.json: Club Night, 7 players at 2 tables, 2 rounds of "
                           "acquire (round 1's draw: seed 4)\n")
    return tmp_path


def test_a_round_brought_on_a_usb_stick(club: Path) -> None:
    keys = {}
    for table in ("1", "2"):
        keys[table] = table_signing_key(club / f"table-{table}")
        done = tabletop("director", "register", table, keys[table].public.text(), cwd=club)
        assert done.returncode == 0 and done.stdout == \
            f"table {table}: key {keys[table].public.fingerprint} registered\n"
    seated = tabletop("director", "seat", "1", cwd=club)
    assert seated.returncode == 0, seated.stderr
    lines = seated.stdout.splitlines()
    assert lines[0] == "Club Night, round 1:" and len(lines) == 3
    tables = {line.split(":")[0].split()[-1]: tuple(line.split(": ")[1].split(", "))
              for line in lines[1:]}
    stick = club / "usb"
    stick.mkdir()
    for number, (table, players) in enumerate(tables.items(), 1):
        journal = play(club / f"table-{table}", players, Seat(1, table, NAME), seed=number)
        wrote = tabletop("slip", "1", "--journal", str(journal), "--out",
                         str(stick / f"slip-table-{table}.json"), cwd=club,
                         TABLETOP_DATA=str(club / f"table-{table}"))
        assert wrote.returncode == 0, wrote.stderr
    forged = stick / "slip-table-2.json"
    (stick / "forged.json").write_text(forged.read_text().replace('"rank": 1', '"rank": 3', 1))
    (stick / "notes.txt").write_text("bring snacks\n")

    imported = tabletop("director", "import", str(stick), cwd=club)
    out = imported.stdout
    assert imported.returncode == 1            # one was refused
    assert "forged.json: refused the slip of table 2: its signature does not hold: field " \
           "players[0].rank was changed" in out
    assert "notes.txt: skipped:" in out
    assert "slip-table-1.json: took table 1's slip for round 1 (game 1)" in out
    assert "slip-table-2.json: took table 2's slip for round 1 (game 1)" in out
    assert out.splitlines()[-1] == f"Club Night: 2 slip(s) taken, 1 refused, from 4 file(s) in {stick}"
    again = tabletop("director", "import", str(stick), cwd=club)
    assert "slip-table-1.json: table 1: slip" in again.stdout
    assert "was taken before (sent again: counted once)" in again.stdout

    standings = tabletop("director", "standings", cwd=club)
    assert standings.returncode == 0
    rows = [line.split() for line in standings.stdout.splitlines()[2:]]
    by_hand: dict[str, tuple[int, int]] = {}
    for table in ("1", "2"):
        slip = json.loads((stick / f"slip-table-{table}.json").read_text())
        for player in slip["players"]:      # N points for 1st at a table of N, 1 for last
            by_hand[player["name"]] = (len(slip["players"]) + 1 - player["rank"], player["cash"])
    order = sorted(by_hand, key=lambda name: (-by_hand[name][0], -by_hand[name][1], name))
    assert [(row[1], int(row[2]), int(row[3].replace(",", "")), row[4]) for row in rows] == \
        [(name, *by_hand[name], "1") for name in order]
    assert tabletop("director", "seat", "2", cwd=club).returncode == 0


def test_bad_input_is_said_in_one_line_and_changes_nothing(club: Path) -> None:
    before = (club / "tournament.json").read_bytes()
    for args, said in [
        (("new", NAME, "--players", "Ann,Bob,Cy"), "tournament.json exists already"),
        (("register", "1", "ed25519:AAAA"), "the public key is damaged"),
        (("seat", "2"), "the next round to seat is 1"),
        (("standings", "--file", "nowhere.json"), "no tournament at nowhere.json"),
        (("import", "no-such-folder"), "no folder no-such-folder"),
        (("listen", "--broker", "localhost:99999"), "--broker takes HOST:PORT"),
    ]:
        result = tabletop("director", *args, cwd=club)
        assert result.returncode == 2, (args, result.stdout)
        assert result.stderr.startswith("tabletop: ") and said in result.stderr, result.stderr
        assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert (club / "tournament.json").read_bytes() == before
    assert tabletop("director", "seat", "1", cwd=club).returncode == 0
    not_yet = tabletop("director", "seat", "2", cwd=club)
    assert not_yet.stderr == "tabletop: round 1 is not complete: no slip yet from tables 1 and 2\n"


def test_an_unreachable_broker_is_said_and_retried(club: Path) -> None:
    pytest.importorskip("paho.mqtt.client", reason="the tournament extra is not installed")
    with __import__("socket").socket() as probe:        # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    director = subprocess.Popen([sys.executable, "-m", "tabletop", "director", "listen",
                                 "--broker", f"127.0.0.1:{port}"], cwd=club, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(3)
    finally:
        director.send_signal(signal.SIGTERM)
        out, _ = director.communicate(timeout=20)
    assert director.returncode == 0
    assert f"cannot reach the broker at 127.0.0.1:{port}: Connection refused, retrying" in out
    assert out.count("cannot reach") == 1          # said once an outage, not at every retry
    assert "Traceback" not in out and out.rstrip().endswith("tournament.slips.jsonl")


def test_new_names_the_closest_rule_set_and_counts_one_table_as_one(tmp_path):
    typo = subprocess.run([sys.executable, "-m", "tabletop", "director", "new", "X",
                           "--players", "A,B,C", "--rules", "aquire"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert typo.returncode == 2 and "(did you mean acquire?)" in typo.stderr
    assert "Traceback" not in typo.stderr and not (tmp_path / "tournament.json").exists()
    made = subprocess.run([sys.executable, "-m", "tabletop", "director", "new", "X",
                           "--players", "A,B,C", "--seed", "1"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert made.stdout.startswith("tournament.json: X, 3 players at 1 table, 3 rounds")
