"""The journal: real SQLite files and append-only copies in a temporary folder."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from journal_writer import ROOT, intended_lines
from tabletop.errors import IllegalAction, JournalError, JournalFull, JournalLocked, ScriptError
from tabletop.journal.journal import Journal, open_for_reading
from tabletop.journal.recovery import Record
from tabletop.engine.table_script import replay
from tabletop.engine.random_play import play_random_game
from tabletop.engine.state import state_json

SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}}
MERGER = (ROOT / "examples" / "merger.jsonl").read_text().splitlines()


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "none.toml"))
    return tmp_path / "data"


def db_rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT game, seq, line FROM actions ORDER BY game, seq").fetchall()
    finally:
        conn.close()


def log_records(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["tabletop_journal"] == 1
    return [json.loads(line) for line in lines[1:]]


def play(journal: Journal, lines: list[str]):
    table = journal.start(lines[0])
    for line in lines[1:]:
        table.push(line)
    return table


# --- recording and resuming ---------------------------------------------------------

def test_every_action_and_undo_is_recorded_and_the_game_resumes(tmp_path):
    db = tmp_path / "journal.db"
    with Journal.open(db, table_name="table 4") as journal:
        assert journal.report.clean
        table = play(journal, MERGER)
        before = state_json(table.game)
        events = table.undo()
        assert events[0]["event"] == "undone"
        table.push({"do": "buy", "shares": {"Tower": 3}})
        game_id = table.id
    with Journal.open(db) as journal:
        assert journal.report.clean
        lines = journal.lines(game_id)
        resumed = journal.resume(game_id)
        assert state_json(resumed.game) == before
    assert len(lines) == len(MERGER) + 2
    assert json.loads(lines[-2]) == {"do": "undo"}
    # The lines are the canonical ones: players named, labels canonical ("2e" -> "2E").
    assert json.loads(lines[7]) == {"do": "place", "player": "Bob", "tile": "2E"}
    # Both copies hold the same records, each with a checksum that holds.
    rows = db_rows(db)
    copied = log_records(db.with_suffix(".log"))
    assert [(r["game"], r["seq"], r["line"]) for r in copied[1:]] == rows
    assert copied[0]["seq"] == 0 and copied[0]["table"] == "table 4"
    assert all(Record(**r).valid for r in copied)


def test_games_list_id_start_rules_players_and_finish(tmp_path):
    db = tmp_path / "journal.db"
    finished_script = [json.dumps(line) for line in
                       play_random_game("acquire", ["A", "B", "C"], seed=4).script()]
    with Journal.open(db, table_name="the corner table") as journal:
        first = play(journal, finished_script)
        second = play(journal, MERGER)
        games = journal.games()
    assert [info.id for info in games] == [first.id, second.id] == [1, 2]
    one, two = games
    assert (one.rules, one.players, one.table) == ("acquire", ["A", "B", "C"], "the corner table")
    assert two.players == ["Ann", "Bob", "Cy"] and two.actions == len(MERGER) - 1
    assert one.finished is not None and one.finished >= one.started
    assert two.finished is None and two.turn == second.game.turn == replay(MERGER).game.turn
    assert time.strftime("%Y-%m-%d", time.gmtime()) in one.started


def test_undo_after_the_end_clears_the_finish_time(tmp_path):
    lines = [json.dumps(line) for line in play_random_game("acquire", ["A", "B"], seed=9).script()]
    with Journal.open(tmp_path / "journal.db", table_name="t") as journal:
        table = play(journal, lines)
        assert journal.info(table.id).finished == table.finished is not None
        table.undo()
        assert journal.info(table.id).finished is None and table.finished is None


def test_an_illegal_action_writes_nothing(tmp_path):
    db = tmp_path / "journal.db"
    with Journal.open(db, table_name="t") as journal:
        table = play(journal, MERGER[:4])
        sizes = db.with_suffix(".log").stat().st_size, len(db_rows(db))
        state = state_json(table.game)
        with pytest.raises(IllegalAction, match="not Cy.s move"):
            table.push({"do": "place", "player": "Cy", "tile": "7A"})
        with pytest.raises(ScriptError, match="not valid JSON"):
            table.push('{"do": "place", "tile": ')
        with pytest.raises(ScriptError):
            journal.start({"setup": {"rules": "acquire", "players": ["Ann"]}})
        assert (db.with_suffix(".log").stat().st_size, len(db_rows(db))) == sizes
        assert state_json(table.game) == state
        assert len(journal.games()) == 1


def test_record_by_game_id_and_unknown_games(tmp_path):
    with Journal.open(tmp_path / "journal.db", table_name="t") as journal:
        game_id = journal.start(MERGER[0]).id
        events = journal.record(game_id, MERGER[1])
        assert events[0] == {"event": "placed", "player": "Cy", "tile": "1E"}
        with pytest.raises(JournalError, match="no game 7"):
            journal.resume(7)


# --- bad input: versions, locks, a full disk -----------------------------------------------

def test_a_journal_from_a_newer_version_is_refused_and_left_untouched(tmp_path):
    db = tmp_path / "journal.db"
    with Journal.open(db, table_name="t") as journal:
        play(journal, MERGER)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    before = db.read_bytes(), db.with_suffix(".log").read_bytes()
    for readonly in (False, True):
        with pytest.raises(JournalError, match="newer tabletop.*format 7"):
            Journal.open(db, readonly=readonly)
    assert (db.read_bytes(), db.with_suffix(".log").read_bytes()) == before


def test_a_copy_from_a_newer_version_is_refused(tmp_path):
    db = tmp_path / "journal.db"
    db.with_suffix(".log").write_text('{"tabletop_journal": 3}\n')
    with pytest.raises(JournalError, match="newer tabletop.*format 3"):
        Journal.open(db)
    assert db.with_suffix(".log").read_text() == '{"tabletop_journal": 3}\n'


def test_a_locked_database_gives_a_clear_message_and_loses_nothing(tmp_path):
    db = tmp_path / "journal.db"
    with Journal.open(db, table_name="t", timeout=0.2) as journal:
        table = play(journal, MERGER[:5])
        state, log_size = state_json(table.game), db.with_suffix(".log").stat().st_size
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")          # another program holds the write lock
        started = time.monotonic()
        with pytest.raises(JournalLocked, match="locked by another program.*NOT recorded"):
            table.push(MERGER[5])
        assert time.monotonic() - started >= 0.2
        assert state_json(table.game) == state
        assert db.with_suffix(".log").stat().st_size == log_size
        other.execute("ROLLBACK")
        other.close()
        table.push(MERGER[5])                     # and once it is released, play goes on
    with Journal.open(db) as journal:
        assert journal.lines(1) == table.lines and len(table.lines) == 6


def test_one_writer_at_a_time(tmp_path):
    db = tmp_path / "journal.db"
    with Journal.open(db, table_name="t"):
        with pytest.raises(JournalLocked, match=f"another program \\(process {os.getpid()}\\)"):
            Journal.open(db, timeout=0.1)
        with open_for_reading(db) as reader:     # reading goes on meanwhile
            assert reader.readonly and reader.games() == []
            with pytest.raises(JournalError, match="reading only"):
                reader.start(SETUP)


def test_a_full_database_refuses_the_action_and_keeps_the_game(tmp_path):
    db = tmp_path / "journal.db"
    journal = Journal.open(db, table_name="t")
    table = journal.start(intended_lines(3)[0])
    pages = journal._conn.execute("PRAGMA page_count").fetchone()[0]
    journal._conn.execute(f"PRAGMA max_page_count = {pages}")   # the disk is full now
    confirmed = len(table.records)
    with pytest.raises(JournalFull, match="full.*NOT recorded"):
        for line in intended_lines(3)[1:]:
            table.push(line)
            confirmed = len(table.records)
    lines = table.lines
    assert len(lines) == confirmed
    assert state_json(table.game) == state_json(replay(lines).game)
    assert len(log_records(db.with_suffix(".log"))) == confirmed   # the copy took it back
    journal.close()
    with Journal.open(db) as reopened:
        assert reopened.report.clean
        assert reopened.lines(table.id) == lines
        reopened.resume(table.id).push(intended_lines(3)[confirmed])


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_under_the_copy_refuses_the_action(tmp_path):
    db = tmp_path / "journal.db"
    with Journal.open(db, table_name="t") as journal:
        play(journal, MERGER[:3])
    with Journal.open(db, log_path="/dev/full") as journal:
        table = journal.resume(1)
        state = state_json(table.game)
        with pytest.raises(JournalFull, match="no space left.*/dev/full.*NOT recorded"):
            table.push(MERGER[3])
        assert state_json(table.game) == state
        with pytest.raises(JournalFull):
            journal.start(SETUP)
    with Journal.open(db) as journal:
        assert journal.report.clean
        assert len(journal.lines(1)) == 3 and len(journal.games()) == 1


def test_an_unwritable_folder_gives_a_clear_message(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(JournalError, match="cannot create the folder"):
        Journal.open(blocker / "sub" / "journal.db")


def test_reading_a_missing_journal_creates_nothing(tmp_path):
    with pytest.raises(JournalError, match="no journal at"):
        open_for_reading(tmp_path / "journal.db")
    with pytest.raises(JournalError, match="no journal at"):
        Journal.open(tmp_path / "journal.db", readonly=True)
    assert list(tmp_path.iterdir()) == []


# --- a reader while a game is being written ----------------------------------------------------

def test_a_reader_sees_consistent_games_while_a_game_is_written(tmp_path):
    db = tmp_path / "journal.db"
    lines = intended_lines(21)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    writer = subprocess.Popen([sys.executable, str(ROOT / "tests" / "journal_writer.py"), str(db), "21"],
                              stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert writer.stdout.readline().startswith("ack 1 0")
        seen, cli_listing = [], None
        while writer.poll() is None or not seen or seen[-1] < len(lines):
            with open_for_reading(db) as reader:
                held = reader.lines(1)
                info = reader.info(1)
            assert [json.loads(x) for x in held] == [json.loads(x) for x in lines[:len(held)]]
            assert info.actions >= len(held) - 1
            seen.append(len(held))
            if cli_listing is None and len(held) > 20:
                cli_listing = subprocess.run([sys.executable, "-m", "tabletop", "games", "--journal", str(db)],
                                             capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
            if writer.poll() is not None and seen[-1] == len(lines):
                break
    finally:
        writer.kill()
        writer.wait()
        writer.stdout.close()
    assert writer.returncode == 0
    assert seen == sorted(seen) and seen[-1] == len(lines)
    assert any(1 < n < len(lines) for n in seen)        # it read while the game was being written
    assert cli_listing is not None and cli_listing.returncode == 0, cli_listing
    assert "Ann, Bob, Cy, Di" in cli_listing.stdout
