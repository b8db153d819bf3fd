"""A table in a tournament as `tabletop run` assembles it: its games seated, its slip sent.

End to end on a real Mosquitto on 127.0.0.1: the director's real command (``python -m
tabletop director listen``, a subprocess) takes the slips; the table is the real
:class:`~tabletop.assembly.runner.Runner` (headless: simulated camera, mock buttons) from a
real configuration file with ``[tournament]``, its turn-order draw confirmed on its desk,
then a bot playing through the assistant to the end. The director must take exactly one
slip, verified under the table's key, for the round and table configured; with the broker
away the table plays on and the slip waits for it. Without paho-mqtt, or without a round,
the table says so in one line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop.assembly.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]
NAME = "Spring Open"
TIMEOUT = 40.0
NO_PAHO = "the tournament extra (paho-mqtt) is not installed"


def tabletop(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def wait_for(what: str, check, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def write_config(folder: Path, players: list[str], tournament: str) -> Path:
    path = folder / "config.toml"
    names = ", ".join(f'"{name}"' for name in players)
    path.write_text(f'[table]\nname = "table 1"\nplayers = [{names}]\n'
                    f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[sound]\nkind = "off"\n[tournament]\n{tournament}\n'
                    f'[paths]\ndata = "{folder / "table"}"\n')
    return path


def runner_of(path: Path, lines: list[str], **kwargs):
    from tabletop.assembly.runner import Runner

    return Runner(load_config(path, environ={}), out=lines.append, **kwargs)


def play_to_the_end(runner, seed: int = 5) -> int:
    """The turn-order draw confirmed on the desk (a game dealt by ``seed``), then a bot plays
    through the assistant to the end, every action confirmed to the runner; the game's id."""
    from tabletop.table.assistant import Assistant
    from tabletop.table.bot import Bot

    seating = runner.loop.desk
    seating.seed = seed                  # dealt, so that the bot holds tiles to place
    seating.board_seen(["1A", "6E", "12I"])
    while not isinstance(runner.loop.desk, Assistant):
        runner.loop.press("confirm")
    assistant = runner.loop.desk
    bot = Bot(assistant, seed=seed)
    while assistant.game.pending is not None:
        bot.act()
    return assistant.table.id


class Venue:
    """The broker, the tournament file with round 1 seated, and the director listening."""

    def __init__(self, folder: Path) -> None:
        from director.mosquitto_broker import Mosquitto

        self.folder = folder
        self.broker = Mosquitto(folder)
        self.director: subprocess.Popen | None = None
        made = tabletop("director", "new", NAME, "--players", "Ann,Bob,Cy", "--rounds", "1",
                        "--seed", "3", cwd=folder)
        assert made.returncode == 0, made.stderr

    def register(self, data: Path) -> str:
        from tabletop.journal.keys import table_signing_key

        key = table_signing_key(data)        # the key the table signs with (made here first)
        done = tabletop("director", "register", "1", key.public.text(), cwd=self.folder)
        assert done.returncode == 0, done.stderr
        return key

    def seat(self) -> list[str]:
        seated = tabletop("director", "seat", "1", cwd=self.folder)
        assert seated.returncode == 0, seated.stderr
        line = next(line for line in seated.stdout.splitlines() if "table 1:" in line)
        return line.split(":", 1)[1].split("(")[0].strip().split(", ")

    def listen(self) -> None:
        with open(self.folder / "director.out", "w") as out:
            self.director = subprocess.Popen(
                [sys.executable, "-m", "tabletop", "director", "listen", "--broker",
                 self.broker.address], cwd=self.folder, stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"})
        wait_for("the director to reach the broker",
                 lambda: "connected to the broker" in self.said())

    def said(self) -> str:
        return (self.folder / "director.out").read_text()

    def stop_director(self) -> str:
        self.director.send_signal(signal.SIGTERM)
        assert self.director.wait(timeout=20) == 0
        return self.said()

    def taken(self) -> list:
        from tabletop.tournament import model
        from tabletop.tournament.intake import Intake, slips_file

        intake = Intake(model.load(self.folder / "tournament.json"),
                        slips_file(self.folder / "tournament.json"))
        return [entry for entry in intake.entries() if entry.outcome == "taken"]

    def close(self) -> None:
        if self.director is not None and self.director.poll() is None:
            self.director.kill()
            self.director.wait()
        self.broker.kill()


@pytest.fixture
def venue(tmp_path: Path):
    pytest.importorskip("paho.mqtt.client", reason=NO_PAHO)
    venue = Venue(tmp_path)
    yield venue
    venue.close()


def assert_one_verified_slip(venue: Venue, key, game_id: int) -> None:
    from tabletop.journal.seat import Seat
    from tabletop.journal.signing import verify

    taken = venue.taken()
    assert len(taken) == 1
    slip = taken[0].slip
    assert slip["seat"] == {"tournament": NAME, "round": 1, "table": "1"}
    assert slip["game"] == game_id
    assert verify(slip, key.public, Seat(1, "1", NAME)).valid


class SlowToSay(list):
    """The table's lines, said slowly after the director's answer: the table is stopped while
    it is still taking the answer (its retained state once stayed "1 slip not yet delivered")."""

    def append(self, line: str) -> None:
        super().append(line)
        if line.startswith("tournament: the director has slip"):
            time.sleep(0.5)


def test_the_table_hands_its_signed_slip_to_the_director_once(tmp_path, venue):
    venue.broker.start()
    key = venue.register(tmp_path / "table")
    players = venue.seat()
    venue.listen()
    lines: list[str] = SlowToSay()
    runner = runner_of(write_config(tmp_path, players, f'name = "{NAME}"\ntable = "1"\n'
                                    f'broker = "{venue.broker.address}"\nround = 1'), lines)
    try:
        assert f"new game of Acquire, Classic mode at table 1: {', '.join(players)} " \
               f"({NAME}, round 1, table 1)" in lines
        link = runner.tournament.link
        wait_for("the table to reach the broker", lambda: link.connected)
        game_id = play_to_the_end(runner)
        setup = runner.journal.resume(game_id).game.setup_json()["setup"]
        assert setup["seat"] == {"tournament": NAME, "round": 1, "table": "1"}
        wait_for("the director's answer", lambda: not link.outbox.pending())
    finally:
        runner.close()
    assert runner.tournament.link is None          # stopped with the table
    said = venue.stop_director()
    assert f"table 1 is online: round 1, game {game_id}" in said
    assert f"took table 1's slip for round 1 (game {game_id})" in said
    assert "Traceback" not in said
    assert_one_verified_slip(venue, key, game_id)
    assert any(line.startswith("tournament: the director has slip") for line in lines)
    assert not any("Traceback" in line for line in lines)
    # A director started again reads the table's retained state: the slip it answered is no
    # longer said to be undelivered, and the turn is the game's own.
    venue.listen()
    wait_for("the table's retained state", lambda: "table 1 is online" in venue.said())
    again = venue.stop_director()
    online = next(line for line in again.splitlines() if "table 1 is online" in line)
    assert online == f"table 1 is online: round 1, game {game_id}", online


def test_with_the_broker_away_the_table_plays_on_and_the_slip_goes_when_it_is_back(tmp_path, venue):
    key = venue.register(tmp_path / "table")
    players = venue.seat()
    lines: list[str] = []
    runner = runner_of(write_config(tmp_path, players, f'name = "{NAME}"\ntable = "1"\n'
                                    f'broker = "{venue.broker.address}"\nround = 1'), lines)
    try:
        link = runner.tournament.link
        wait_for("the table to say the broker is away",
                 lambda: any("cannot reach the broker" in line for line in lines))
        game_id = play_to_the_end(runner)
        assert len(link.outbox.pending()) == 1           # kept, on disk, until answered
        venue.broker.start()                             # the venue's Wi-Fi is back
        venue.listen()
        wait_for("the slip kept meanwhile to be answered", lambda: not link.outbox.pending())
    finally:
        runner.close()
    venue.stop_director()
    assert_one_verified_slip(venue, key, game_id)
    away = [line for line in lines if "cannot reach the broker" in line]
    assert away == [f"tournament: cannot reach the broker at {venue.broker.address}: "
                    f"Connection refused, retrying"]


def test_without_paho_the_table_says_what_to_install_and_still_seats_its_games(tmp_path,
                                                                               monkeypatch):
    monkeypatch.setitem(sys.modules, "paho.mqtt.client", None)     # import fails, as uninstalled
    lines: list[str] = []
    runner = runner_of(write_config(tmp_path, ["Ann", "Bob", "Cy"], f'name = "{NAME}"\n'
                                    f'table = "3"\nbroker = "127.0.0.1:1"\nround = 2'), lines)
    try:
        assert runner.tournament.link is None
        said = [line for line in lines if line.startswith("tournament:")]
        assert len(said) == 1 and "pip install 'tabletop[tournament]'" in said[0]
        assert "the table plays on, without the broker" in said[0]
        game_id = play_to_the_end(runner)
        seat = runner.journal.resume(game_id).game.setup_json()["setup"]["seat"]
        assert seat == {"tournament": NAME, "round": 2, "table": "3"}
    finally:
        runner.close()


def test_a_new_game_with_no_round_known_is_refused_naming_the_way_to_give_it(tmp_path):
    path = write_config(tmp_path, ["Ann", "Bob", "Cy"], f'name = "{NAME}"\ntable = "3"')
    with pytest.raises(ConfigError, match=f"a new game for {NAME} needs its round: give "
                                          r"--round N \(or set \[tournament\] round\)"):
        runner_of(path, [])
    lines: list[str] = []
    runner = runner_of(path, lines, round_number=4)         # --round 4
    try:
        assert runner.loop.desk.seat.round == 4
    finally:
        runner.close()
    plain = write_config(tmp_path, ["Ann", "Bob", "Cy"], "")
    with pytest.raises(ConfigError, match="--round 4: this table plays in no tournament"):
        runner_of(plain, [], round_number=4)


def test_run_headless_with_the_broker_out_of_reach_says_one_line_and_stops_cleanly(tmp_path):
    from director.mosquitto_broker import free_port

    pytest.importorskip("paho.mqtt.client", reason=NO_PAHO)
    path = write_config(tmp_path, ["Ann", "Bob", "Cy"],
                        f'name = "{NAME}"\ntable = "3"\nbroker = "127.0.0.1:{free_port()}"')
    env = {**os.environ, "TABLETOP_CONFIG": str(path), "TABLETOP_CAMERA": "",
           "TABLETOP_CONTROLS": "", "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-m", "tabletop", "run", "--headless", "--round", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not (
                any("cannot reach the broker" in line for line in lines)
                and any("of 3 seen" in line for line in lines)):
            line = run.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
        run.send_signal(signal.SIGINT)                   # Ctrl-C
        rest, errors = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
    lines += rest.splitlines()
    assert run.returncode == 0, errors
    assert "Traceback" not in errors + "\n".join(lines)
    assert f"new game of Acquire, Classic mode at table 1: Ann, Bob, Cy ({NAME}, round 2, " \
           f"table 3)" in lines
    assert len([line for line in lines if "cannot reach the broker" in line]) == 1
    assert lines[-1] == "stopped before a game started: nothing was recorded"


def test_run_refuses_a_round_below_one(tmp_path):
    result = tabletop("run", "--headless", "--round", "0", cwd=tmp_path,
                      env={"TABLETOP_CONFIG": str(tmp_path / "none.toml")})
    assert result.returncode == 2
    assert result.stderr.strip() == "tabletop: --round 0: give a round from 1 to 999"
