"""Issue 21: opening checks only what was written since the journal was last known good.

Each test builds a journal in sessions, as a table is switched on and off: what a
session wrote lies after the known-good mark that the session's opening made.
Damage there is found when the journal is next opened; damage behind the mark is left
to the full check (``tabletop check``, a real subprocess here), which still finds it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from journal_writer import ROOT
from tabletop.engine.random_play import play_random_game
from tabletop.errors import JournalError
from tabletop.journal import known_good, recovery, store
from tabletop.journal.journal import Journal
from tabletop.journal.store import Record

PLAYERS = ["Ann", "Bob", "Cy", "Di"]


@pytest.fixture
def env(tmp_path):
    env = dict(os.environ, TABLETOP_DATA=str(tmp_path / "data"),
               TABLETOP_CONFIG=str(tmp_path / "none.toml"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def tabletop(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def script(seed: int, count: int | None = None) -> list[str]:
    lines = play_random_game("acquire", PLAYERS, seed=seed).script()
    return [json.dumps(line) for line in lines][:count]


def session(db: Path, *scripts: list[str]) -> str:
    """One session of the table: open (the mark moves to here), play, close; its report."""
    with Journal.open(db, table_name="t") as journal:
        for lines in scripts:
            table = journal.start(lines[0])
            for line in lines[1:]:
                table.push(line)
        return str(journal.report)


def flip(path: Path, text: bytes, offset: int = 2) -> None:
    """Change one byte inside the only occurrence of ``text`` in the file."""
    data = bytearray(path.read_bytes())
    assert data.count(text) == 1, text
    data[data.index(text) + offset] ^= 0x04
    path.write_bytes(bytes(data))


def line_of(lines: list[str], number: int) -> bytes:
    """How action ``number``'s line is stored in the database (as the journal wrote it)."""
    return json.dumps(json.loads(lines[number])).encode()


@pytest.fixture
def forbid_full_check(monkeypatch):
    """Call it, and from then on opening may not read every record: the full check's
    readers refuse to run."""
    def refused(*args, **kwargs):
        raise AssertionError("the full check of every record ran")

    def forbid() -> None:
        monkeypatch.setattr(recovery, "on_disk", refused)
        monkeypatch.setattr(recovery, "whole", refused)
    return forbid


@pytest.fixture
def quick_disk(monkeypatch):
    """Sessions of many games without waiting for the disk (what is tested is the reading)."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


# --- what opening checks ----------------------------------------------------------------

def test_a_journal_whose_last_session_ended_cleanly_opens_without_the_full_check(
        tmp_path, quick_disk, forbid_full_check):
    db = tmp_path / "journal.db"
    first, second = script(1, 30), script(2, 30)
    session(db, first)
    session(db, second)
    mark = known_good.read_mark(db)
    assert mark is not None and mark.games == 1      # game 2 was written after the mark
    forbid_full_check()
    with Journal.open(db) as journal:
        assert journal.report.clean
        assert journal.resume(2).lines == [json.dumps(json.loads(line)) for line in second]
    assert known_good.read_mark(db).games == 2


def test_damage_after_the_mark_is_found_when_the_journal_is_opened(tmp_path, quick_disk):
    db = tmp_path / "journal.db"
    first, second = script(3, 30), script(4, 30)
    session(db, first)
    session(db, second)                                   # game 2: after the mark
    flip(db, line_of(second, 12))
    with Journal.open(db) as journal:
        report = str(journal.report)
        assert "failed its checksum at game 2, record 12" in report
        assert "kept as journal.db.damaged-" in report
        assert journal.lines(2) == [json.dumps(json.loads(line)) for line in second]


def test_a_damaged_line_of_the_copy_after_the_mark_is_found_at_opening(tmp_path, quick_disk):
    db = tmp_path / "journal.db"
    session(db, script(5, 20))
    session(db, script(6, 20))
    flip(db.with_suffix(".log"), b'"game":2,"seq":7,', 30)
    with Journal.open(db) as journal:
        assert "journal.log had damaged lines" in str(journal.report)
    with Journal.open(db) as journal:
        assert journal.report.clean


def test_damage_behind_the_mark_is_left_to_the_full_check_which_finds_and_repairs_it(
        tmp_path, env, quick_disk):
    db = tmp_path / "journal.db"
    first = script(7, 40)
    session(db, first)
    session(db, script(8, 20))                 # game 1 is now behind the mark
    flip(db, line_of(first, 25))               # a bit gone bad in the database, behind it
    with Journal.open(db) as journal:          # opening does not read game 1's records
        assert journal.report.clean
        with pytest.raises(JournalError, match="game 1: record 25 in journal.db is damaged"):
            journal.resume(1)                  # ... but nothing damaged is ever played on
    found = tabletop(env, "check", "--journal", db)
    assert found.returncode == 1, found.stdout + found.stderr
    assert "journal.db failed its checksum at game 1, record 25" in found.stdout
    repaired = tabletop(env, "check", "--repair", "--journal", db)
    assert "repaired: journal.db failed its checksum at game 1, record 25" in repaired.stdout
    assert "every checksum holds" in repaired.stdout
    with Journal.open(db) as journal:
        assert journal.resume(1).lines == [json.dumps(json.loads(line)) for line in first]


def test_a_damaged_line_of_the_copy_behind_the_mark_is_found_by_the_full_check(
        tmp_path, env, quick_disk):
    db = tmp_path / "journal.db"
    session(db, script(9, 20))
    session(db, script(10, 20))
    flip(db.with_suffix(".log"), b'"game":1,"seq":7,', 30)
    found = tabletop(env, "check", "--journal", db)
    assert found.returncode == 1 and "journal.log had damaged lines (9)" in found.stdout
    tabletop(env, "check", "--repair", "--journal", db)
    assert tabletop(env, "check", "--journal", db).returncode == 0


# --- what a crash leaves after the mark, repaired without the full check --------------------

def test_a_torn_last_line_after_the_mark_is_cut_off_without_the_full_check(
        tmp_path, quick_disk, forbid_full_check):
    db = tmp_path / "journal.db"
    session(db, script(11, 20))
    lines = script(12, 20)
    session(db, lines)
    log = db.with_suffix(".log")
    whole = log.read_bytes()
    unfinished = Record(2, 20, "2026-01-01T00:00:00Z", lines[0]).sealed().to_log()[:37]
    with open(log, "ab") as handle:
        handle.write(unfinished.encode())
    forbid_full_check()
    with Journal.open(db) as journal:
        report = str(journal.report)
        assert "journal.log ended in an unfinished line (37 bytes" in report
        assert "nothing confirmed was lost" in report
        assert journal.report.kept[0].read_bytes() == unfinished.encode()
    assert log.read_bytes() == whole


def test_the_last_step_missing_from_the_database_is_caught_up_without_the_full_check(
        tmp_path, quick_disk, forbid_full_check):
    db = tmp_path / "journal.db"
    session(db, script(13, 20))
    lines = script(14, 21)
    session(db, lines[:20])
    record = Record(2, 20, "2026-01-01T00:00:00Z", json.dumps(json.loads(lines[20]))).sealed()
    with open(db.with_suffix(".log"), "a") as handle:      # stopped between the two writes
        handle.write(record.to_log())
    forbid_full_check()
    with Journal.open(db) as journal:
        assert "game 2: action no. 20 was saved in the append-only copy but not yet in " \
               "journal.db" in str(journal.report)
        assert journal.info(2).actions == 20
        assert journal.resume(2).lines[-1] == record.line


def test_a_new_game_whose_setup_only_reached_the_copy_is_caught_up(
        tmp_path, quick_disk, forbid_full_check):
    db = tmp_path / "journal.db"
    session(db, script(15, 20))
    setup = Record(2, 0, "2026-01-01T00:00:00Z", script(16, 1)[0], "t").sealed()
    with open(db.with_suffix(".log"), "a") as handle:
        handle.write(setup.to_log())
    forbid_full_check()
    with Journal.open(db) as journal:
        assert "game 2: its setup was saved in the append-only copy" in str(journal.report)
        assert [info.id for info in journal.games()] == [1, 2]


# --- a mark that no longer fits the files: the full check, as before ----------------------

def test_a_damaged_or_foreign_mark_sends_the_opening_to_the_full_check(tmp_path, quick_disk):
    db = tmp_path / "journal.db"
    lines = script(17, 30)
    session(db, lines)
    session(db, script(18, 10))
    flip(db, line_of(lines, 12))                          # behind the mark
    known_good.mark_path(db).write_text("{not a mark")    # and the mark damaged
    with Journal.open(db) as journal:                     # so everything is checked
        assert "failed its checksum at game 1, record 12" in str(journal.report)
    assert known_good.read_mark(db) is not None           # and marked again


def test_a_copy_rewritten_since_the_mark_is_checked_in_full(tmp_path, quick_disk):
    db = tmp_path / "journal.db"
    lines = script(19, 30)
    session(db, lines)
    session(db, script(20, 10))
    log = db.with_suffix(".log")
    kept = [line for line in log.read_text().splitlines(keepends=True)
            if '"game":1,"seq":9,' not in line]
    log.write_text("".join(kept))              # a step behind the mark taken out of the copy
    with Journal.open(db) as journal:
        assert "journal.log was missing 1 records that journal.db holds" in str(journal.report)
    assert '"game":1,"seq":9,' in log.read_text()


def test_a_database_put_back_from_an_older_copy_is_found_at_opening(tmp_path, quick_disk):
    db = tmp_path / "journal.db"
    first, second = script(22, 30), script(23, 10)
    session(db, first[:20], second)
    older = db.read_bytes()                          # a copy of the database, kept
    with Journal.open(db) as journal:
        table = journal.resume(1)
        for line in first[20:]:
            table.push(line)
    flip(db.with_suffix(".log"), b'"game":1,"seq":22,', 30)
    with Journal.open(db) as journal:                # the copy is rewritten, game by game:
        assert "journal.log had damaged lines" in str(journal.report)
    assert known_good.read_mark(db).last == (2, 9)   # game 2's last step ends it now
    db.write_bytes(older)                            # game 1 back at 19 actions
    with Journal.open(db) as journal:
        assert "journal.db was missing 10 records that journal.log holds" in str(journal.report)
        assert journal.info(1).actions == 29


def test_a_link_planted_where_the_mark_goes_is_refused(tmp_path):
    db = tmp_path / "journal.db"
    session(db, script(21, 5))
    victim = tmp_path / "thesis.odt"
    victim.write_bytes(b"three years")
    known_good.mark_path(db).unlink()
    known_good.mark_path(db).symlink_to(victim)
    with pytest.raises(JournalError, match="symbolic link"):
        Journal.open(db)
    assert victim.read_bytes() == b"three years"


# --- the cost of opening does not grow with the history -----------------------------------

def records_read_at_opening(db: Path, monkeypatch) -> int:
    """How many records opening decodes from either copy."""
    count = [0]
    real_from_log, real_read = Record.from_log.__func__, known_good.read_records

    def from_log(cls, raw):
        count[0] += 1
        return real_from_log(cls, raw)

    def read_records(conn, game=None):
        records = real_read(conn, game)
        count[0] += len(records)
        return records

    monkeypatch.setattr(Record, "from_log", classmethod(from_log))
    monkeypatch.setattr(known_good, "read_records", read_records)
    monkeypatch.setattr(store, "read_records", read_records)
    try:
        Journal.open(db).close()
    finally:
        monkeypatch.undo()
    return count[0]


def test_opening_reads_what_came_after_the_mark_whatever_the_history(
        tmp_path, quick_disk, monkeypatch):
    last = script(99, 40)
    counts = {}
    for games in (2, 40):
        db = tmp_path / f"games-{games}" / "journal.db"
        db.parent.mkdir()
        session(db, *(script(seed, 40) for seed in range(games - 1)))
        session(db, last)                                   # one game since the mark
        counts[games] = records_read_at_opening(db, monkeypatch)
        monkeypatch.setattr(os, "fsync", lambda fd: None)
    # The last game's records, once in each copy, and the record at the mark: however
    # many games came before.
    assert counts[2] == counts[40] <= 2 * len(last) + 2, counts


# --- a long session's memory ---------------------------------------------------------------

def test_a_table_playing_game_after_game_keeps_no_finished_game_in_memory(tmp_path, quick_disk):
    import gc
    import weakref

    with Journal.open(tmp_path / "journal.db", table_name="t") as journal:
        finished = []
        for seed in range(4):
            lines = script(30 + seed)
            table = journal.start(lines[0])
            for line in lines[1:]:
                table.push(line)
            assert table.game.over
            finished.append(weakref.ref(table))
            del table
        held = journal.resume(2)                  # a finished game somebody still shows
        playing = journal.start(script(40, 1)[0])
        playing.push(script(40, 2)[1])
        gc.collect()
        assert [ref() for ref in finished] == [None] * 4
        assert journal.resume(2) is held          # the same game while it is held
        assert journal.resume(playing.id) is playing
        held.undo()                               # taken back: in play again, and kept
        again = weakref.ref(held)
        del held
        gc.collect()
        assert again() is not None and journal.resume(2) is again()
        assert not again().game.over
