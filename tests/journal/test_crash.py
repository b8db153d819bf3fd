"""Crashes and damage: a writer killed with SIGKILL, damaged databases, torn copies."""

from __future__ import annotations

import json
import os
import random
import sqlite3
from pathlib import Path

import pytest

from journal_writer import crash_trial, intended_lines
from tabletop.errors import JournalError
from tabletop.journal.journal import Journal
from tabletop.journal.recovery import Record
from tabletop.engine.table_script import replay
from tabletop.engine.state import state_json


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "none.toml"))


# --- SIGKILL at random moments --------------------------------------------------------

@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_writer_killed_at_random_moments_loses_nothing_acknowledged(tmp_path):
    db = tmp_path / "journal.db"
    rng = random.Random(20261130)
    seed, game, trials = 31, None, []
    for _ in range(6):
        trial = crash_trial(db, seed, game, rng)
        assert not trial.problems, trial
        trials.append(trial)
        # The next run resumes the killed game where the journal left it, as a table would.
        seed, game = (seed + 1, None) if trial.finished or trial.game is None else (seed, trial.game)
    mid_game = [t for t in trials if t.acked >= 0 and not t.finished]
    assert len(mid_game) >= 3                    # the kills did land in the middle of games


# --- damage to the database ---------------------------------------------------------

SEED = 8


def recorded(tmp_path: Path, count: int | None = None) -> tuple[Path, list[str]]:
    """A journal holding game 1 (``count`` lines of game SEED), closed cleanly."""
    db = tmp_path / "journal.db"
    lines = intended_lines(SEED)[:count]
    with Journal.open(db, table_name="t") as journal:
        table = journal.start(lines[0])
        for line in lines[1:]:
            table.push(line)
    assert not Path(str(db) + "-wal").exists()      # everything is in the database file
    return db, lines


def assert_restored(db: Path, lines: list[str]) -> Journal:
    journal = Journal.open(db)
    table = journal.resume(1)
    assert table.lines == [json.dumps(json.loads(line)) for line in lines]
    assert state_json(table.game) == state_json(replay(lines).game)
    return journal


def test_a_truncated_database_is_kept_aside_and_rebuilt_from_the_copy(tmp_path):
    db, lines = recorded(tmp_path, 120)
    size = db.stat().st_size
    with open(db, "r+b") as handle:
        handle.truncate(size // 2)
    journal = assert_restored(db, lines)
    report = journal.report
    assert report.kept and report.kept[0].name.startswith("journal.db.damaged-")
    assert report.kept[0].stat().st_size == size // 2          # kept for inspection, as it was
    assert f"game 1 with all {len(lines) - 1} confirmed actions" in str(report)
    assert report.lost == {}
    journal.resume(1).push(intended_lines(SEED)[120])      # play goes on
    journal.close()
    with Journal.open(db) as again:
        assert again.report.clean


def test_an_emptied_database_is_rebuilt(tmp_path):
    db, lines = recorded(tmp_path, 30)
    db.write_bytes(b"")
    with assert_restored(db, lines) as journal:
        assert "journal.db was empty" in str(journal.report)


def test_a_flipped_byte_in_a_record_is_detected_and_recovered(tmp_path):
    db, lines = recorded(tmp_path, 40)
    target = json.dumps(json.loads(lines[25])).encode()
    data = bytearray(db.read_bytes())
    at = data.index(target)
    assert data.count(target) == 1
    where = at + target.index(b'"do"') + 2          # "do": "buy" -> "do": "bvy" or similar
    data[where] ^= 0x04
    db.write_bytes(bytes(data))
    conn = sqlite3.connect(db)                      # SQLite itself sees nothing wrong
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    conn.close()
    with Journal.open(db, readonly=True) as reader:   # a reader notices and says so
        with pytest.raises(JournalError, match="record 25 in journal.db is damaged"):
            reader.lines(1)
    with assert_restored(db, lines) as journal:
        report = str(journal.report)
        assert "failed its checksum at game 1, record 25" in report
        assert "kept as journal.db.damaged-" in report
        assert "all 39 confirmed actions" in report


def test_a_database_behind_the_copy_by_the_last_step_catches_up(tmp_path):
    # The program stopped after the copy got a record but before the database committed it.
    db, _ = recorded(tmp_path, 20)
    record = Record(1, 20, "2026-01-01T00:00:00Z", json.dumps(json.loads(intended_lines(SEED)[20]))).sealed()
    with open(db.with_suffix(".log"), "a") as handle:
        handle.write(record.to_log())
    with assert_restored(db, intended_lines(SEED)[:21]) as journal:
        assert "action no. 20 was saved in the append-only copy but not yet in journal.db" in \
            str(journal.report)
        assert journal.report.kept == []


def test_a_missing_database_is_rebuilt_and_a_missing_copy_rewritten(tmp_path):
    db, lines = recorded(tmp_path, 25)
    db.unlink()
    with assert_restored(db, lines) as journal:
        assert "journal.db was missing" in str(journal.report)
    db.with_suffix(".log").unlink()
    with assert_restored(db, lines) as journal:
        assert "journal.log was missing" in str(journal.report)
    with assert_restored(db, lines) as journal:
        assert journal.report.clean


# --- damage to the append-only copy -------------------------------------------------------

def test_a_torn_last_line_of_the_copy_is_cut_off_and_reported(tmp_path):
    db, lines = recorded(tmp_path, 30)
    log = db.with_suffix(".log")
    whole = log.read_bytes()
    unfinished = Record(1, 30, "2026-01-01T00:00:00Z", lines[0]).sealed().to_log()[:37]
    with open(log, "ab") as handle:                  # the power went while it was written
        handle.write(unfinished.encode())
    with assert_restored(db, lines) as journal:
        report = journal.report
        assert "journal.log ended in an unfinished line (37 bytes" in str(report)
        assert "nothing confirmed was lost" in str(report)
        assert report.kept[0].read_bytes() == unfinished.encode()
        assert log.read_bytes() == whole
        journal.resume(1).push(intended_lines(SEED)[30])   # the next line starts on a line of its own
    with Journal.open(db) as journal:
        assert journal.report.clean and len(journal.lines(1)) == 31


def test_a_flipped_byte_in_the_copy_is_repaired_from_the_database(tmp_path):
    db, lines = recorded(tmp_path, 30)
    log = db.with_suffix(".log")
    data = bytearray(log.read_bytes())
    data[data.index(b'"seq":12,') + 30] ^= 0x01
    log.write_bytes(bytes(data))
    with assert_restored(db, lines) as journal:
        report = str(journal.report)
        assert "journal.log had damaged lines (14)" in report
        assert "kept as journal.log.damaged-" in report
    assert [Record(**json.loads(x)).valid for x in log.read_text().splitlines()[1:]] == [True] * 30


def test_when_both_copies_are_damaged_the_log_wins_and_the_loss_is_named(tmp_path):
    db, lines = recorded(tmp_path, 30)
    log = db.with_suffix(".log")
    data = bytearray(log.read_bytes())            # record 12 damaged in the copy ...
    data[data.index(b'"seq":12,') + 30] ^= 0x01
    log.write_bytes(bytes(data))
    data = bytearray(db.read_bytes())             # ... and in the database
    target = json.dumps(json.loads(lines[12])).encode()
    data[data.index(target) + 3] ^= 0x01
    db.write_bytes(bytes(data))
    with Journal.open(db) as journal:
        assert journal.report.lost == {1: 18}
        assert "18 confirmed steps (from no. 12) could not be restored" in str(journal.report)
        table = journal.resume(1)
        assert table.lines == [json.dumps(json.loads(line)) for line in lines[:12]]
    kept = {path.name.split("-")[0] for path in journal.report.kept}
    assert kept == {"journal.db.damaged", "journal.log.damaged"}
