"""Review of the journal, exports and slips: damage, foreign files, partial writes, receipts."""

from __future__ import annotations

import copy
import errno
import json
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from journal_writer import ROOT
from tabletop.journal import journal as journal_module
from tabletop.journal import files, store
from tabletop.journal import slip as slip_module
from tabletop.cli import main
from tabletop.errors import JournalError, JournalFull, JournalLocked, SlipError
from tabletop.journal.journal import Journal
from tabletop.engine.table_script import replay
from tabletop.journal.slip import KEY_FILE, read_slip, sign, slip_text, table_key, verify, width

MERGER = (ROOT / "examples" / "merger.jsonl").read_text().splitlines()
OTHER = ['{"setup": {"rules": "acquire", "players": ["Xu", "Yan"]}}',
         '{"do": "place", "tile": "3B"}']


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "none.toml"))
    return tmp_path / "data"


def canonical_lines(lines: list[str]) -> list[str]:
    return [json.dumps(line) for line in replay(lines).game.script()]


def recorded(folder: Path, *scripts: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "journal.db"
    journal = Journal.open(db, table_name=folder.name)
    for lines in scripts:
        table = journal.start(lines[0])
        for line in lines[1:]:
            table.push(line)
    journal.close()
    return db


def all_lines(db: Path) -> tuple[dict[int, list[str]], str]:
    with Journal.open(db) as journal:
        return {info.id: journal.lines(info.id) for info in journal.games()}, str(journal.report)


# --- the database's files: a stale -wal, a lock, a new folder ---------------------------

def test_a_stale_wal_left_without_its_database_is_set_aside(tmp_path):
    db = tmp_path / "journal.db"
    journal = Journal.open(db, table_name="t")
    table = journal.start(MERGER[0])
    for line in MERGER[1:6]:
        table.push(line)
    wal = db.read_bytes(), Path(f"{db}-wal").read_bytes(), Path(f"{db}-shm").read_bytes()
    for line in MERGER[6:]:
        table.push(line)
    journal.close()
    # The database file is lost (SD card damage), an older -wal and -shm are left behind.
    db.unlink()
    Path(f"{db}-wal").write_bytes(wal[1])
    Path(f"{db}-shm").write_bytes(wal[2])
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER)}
    assert "journal.db was missing" in report
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER)} and report == "the journal is intact"
    assert any(path.name.endswith("-wal") and "damaged" in path.name for path in tmp_path.iterdir())


def test_a_database_another_program_keeps_locked_is_not_taken_for_damaged(tmp_path):
    db = recorded(tmp_path, MERGER)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA locking_mode = EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("SELECT count(*) FROM games").fetchone()
    before = sorted(path.name for path in tmp_path.iterdir())
    try:
        for readonly in (False, True):
            with pytest.raises(JournalLocked, match="locked by another program"):
                Journal.open(db, timeout=0.2, readonly=readonly)
        assert sorted(path.name for path in tmp_path.iterdir()) == before   # nothing set aside
    finally:
        other.execute("ROLLBACK")
        other.close()
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER)} and report == "the journal is intact"


def test_a_new_data_folder_is_made_durable_in_its_parent(tmp_path, monkeypatch):
    synced = []
    for module in (store, files):
        monkeypatch.setattr(module, "fsync_dir", lambda folder: synced.append(Path(folder)))
    Journal.open(tmp_path / "a" / "b" / "journal.db", table_name="t").close()
    assert {tmp_path, tmp_path / "a", tmp_path / "a" / "b"} <= set(synced)


# --- damaged bytes inside the database ---------------------------------------------------

def damage(db: Path, *statements: str) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA writable_schema = ON")
    for statement in statements:
        conn.execute(statement)
    conn.close()


@pytest.mark.parametrize("statements", [
    # A flipped bit in a record's header turns its TEXT into a BLOB of the same length.
    ["UPDATE actions SET line = CAST(line AS BLOB) WHERE seq = 3"],
    ["UPDATE games SET setup = CAST(setup AS BLOB)"],
    # ... or its sequence number into text or NULL (both pass SQLite's quick_check).
    ["UPDATE actions SET seq = 'x' WHERE seq = 4"],
    ["UPDATE games SET table_name = CAST(table_name AS BLOB) WHERE id = 2"],
    # Bytes that are not UTF-8 in a text column.
    ["UPDATE actions SET line = CAST(X'7B22646F223A20FF7D' AS TEXT) WHERE seq = 6"],
    # The games list's own columns (not part of any record's checksum).
    ["UPDATE games SET players = '[\"Ann\", \"Bob\"' WHERE id = 1"],
    ["UPDATE games SET players = CAST(X'5B22FF225D' AS TEXT) WHERE id = 2"],
    ["UPDATE games SET actions = 3 WHERE id = 1"],
    # A damaged table definition.
    ["UPDATE sqlite_master SET sql = replace(sql, 'finished', 'finishet') WHERE name = 'games'"],
])
def test_damaged_database_fields_are_detected_and_repaired_without_a_crash(tmp_path, statements):
    db = recorded(tmp_path, MERGER, OTHER)
    damage(db, *statements)
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER), 2: canonical_lines(OTHER)}
    assert "journal.db" in report and "rebuilt from journal.log" in report
    with Journal.open(db) as journal:
        assert journal.report.clean
        assert [info.players for info in journal.games()] == [["Ann", "Bob", "Cy"], ["Xu", "Yan"]]
        assert [info.actions for info in journal.games()] == [len(MERGER) - 1, 1]


def test_a_reader_of_a_damaged_games_list_gets_a_message(tmp_path):
    db = recorded(tmp_path, MERGER)
    damage(db, "UPDATE games SET players = 'oops' WHERE id = 1")
    with Journal.open(db, readonly=True) as reader:
        with pytest.raises(JournalError, match="damaged"):
            reader.games()


def test_a_record_damaged_in_the_database_comes_from_the_copy_and_vice_versa(tmp_path):
    # The line of record 6 cannot be decoded; record 9 is missing from the copy: both are
    # restored, each from the copy that holds it whole.
    db = recorded(tmp_path, MERGER)
    damage(db, "UPDATE actions SET line = CAST(X'7B22646F223A20FF7D' AS TEXT) WHERE seq = 6")
    log = db.with_suffix(".log")
    kept = [line for line in log.read_text().splitlines() if '"seq":9,' not in line]
    log.write_text("".join(line + "\n" for line in kept))
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER)}, report


def test_what_a_repair_killed_part_way_left_is_removed_by_the_next_full_check(tmp_path):
    # A repair writes a scratch file, a database being rebuilt and a copy being rewritten
    # beside the journal; killed, it leaves them. The next repair, holding the writer lock,
    # removes them and nothing else (a link named like one is not followed, nor removed).
    db = recorded(tmp_path / "t", MERGER)
    damage(db, "UPDATE actions SET at = 'x' WHERE seq = 6")
    left = [db.with_name(".journal.db.k3j2.compare"), db.with_name(".journal.db.9a8b.rebuild"),
            db.with_name(".journal.log.77zz.rewrite")]
    for path in left:
        path.write_bytes(b"half written")
    kept = tmp_path / "kept.txt"
    kept.write_text("not the journal's")
    db.with_name(".journal.db.link.compare").symlink_to(kept)
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER)}, report
    assert "journal.db failed its checksum" in report and "rebuilt" in report
    assert not any(os.path.lexists(path) for path in left)
    assert kept.read_text() == "not the journal's"
    assert sorted(path.name for path in db.parent.glob(".journal.*")) == [".journal.db.link.compare"]


def test_no_room_for_the_scratch_file_is_said_and_changes_nothing(tmp_path):
    # The damaged journal is compared in a scratch file beside it, about as large as both
    # copies. Files may grow no larger than the larger copy (RLIMIT_FSIZE, as a full card
    # would stop them): the scratch file cannot be written; the command says so, with
    # no traceback, and leaves the journal as it was.
    db = recorded(tmp_path / "t", *[MERGER] * 12)
    damage(db, "UPDATE actions SET at = 'x' WHERE game = 5 AND seq = 6")
    def contents() -> dict[str, bytes]:   # the writer lock holds its holder's number: left out
        return {path.name: path.read_bytes() for path in db.parent.iterdir()
                if path.suffix != ".lock"}
    before = contents()
    limit = max(len(data) for data in before.values()) + 4096
    script = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
              f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
              "from tabletop.cli import main; sys.exit(main(sys.argv[1:]))")
    # No compiled module is written under the limit: it would be cut short, and kept.
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", script, "check", "--repair", "--journal", str(db)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, env=env)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "could not compare the journal's two copies in a scratch file" in done.stderr
    assert "make room and try again (nothing was changed)" in done.stderr
    assert contents() == before


# --- the append-only copy ----------------------------------------------------------------

def test_a_write_to_the_copy_cut_short_is_taken_back(tmp_path, monkeypatch):
    db = tmp_path / "journal.db"
    with Journal.open(db, table_name="t") as journal:
        table = journal.start(MERGER[0])
        table.push(MERGER[1])
        real_write = os.write

        def half_then_full(fd, data):
            monkeypatch.setattr(journal_module.os, "write", real_write)
            real_write(fd, bytes(data[:len(data) // 2]))
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(journal_module.os, "write", half_then_full)
        with pytest.raises(JournalFull, match="NOT recorded"):
            table.push(MERGER[2])
        table.push(MERGER[2])            # space was freed: confirmed again
        table.push(MERGER[3])
    assert db.with_suffix(".log").read_text().count("\n") == 5
    games, report = all_lines(db)
    assert report == "the journal is intact"
    assert games == {1: canonical_lines(MERGER[:4])}


def test_a_copy_from_another_journal_is_not_mixed_into_this_one(tmp_path):
    here = recorded(tmp_path / "here", MERGER, OTHER)
    there = recorded(tmp_path / "there", OTHER, MERGER[:3])
    shutil.copy(there.with_suffix(".log"), here.with_suffix(".log"))
    games, report = all_lines(here)
    assert games == {1: canonical_lines(MERGER), 2: canonical_lines(OTHER)}
    assert "journal.log" in report and "another journal" in report
    kept = [path.name for path in (tmp_path / "here").iterdir()]
    assert any(name.startswith("journal.log.damaged-") for name in kept)
    games, report = all_lines(here)
    assert report == "the journal is intact"


def test_a_whole_last_line_that_lost_only_its_line_end_is_kept(tmp_path):
    db = recorded(tmp_path, MERGER)
    log = db.with_suffix(".log")
    log.write_bytes(log.read_bytes()[:-1])         # the last line's newline is damaged away
    db.write_bytes(db.read_bytes()[:1000])         # and the database is damaged too
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER)}, report
    assert "never confirmed" not in report
    assert log.read_bytes().endswith(b"\n")
    with Journal.open(db) as journal:
        assert journal.report.clean


def test_a_torn_copy_beside_an_unreadable_database_does_not_claim_that_nothing_was_lost(tmp_path):
    db = recorded(tmp_path, MERGER)
    log = db.with_suffix(".log")
    log.write_bytes(log.read_bytes()[:-40])   # its end lost in the middle of a confirmed step
    db.write_bytes(b"\x00" * 8192)            # and the database that would tell is unreadable
    games, report = all_lines(db)
    assert games == {1: canonical_lines(MERGER[:-1])}
    assert "nothing confirmed was lost" not in report and "with all" not in report, report
    assert "could not be read" in report and "lost" in report


def test_damage_to_both_copies_never_crashes_and_every_loss_is_told(tmp_path):
    base = recorded(tmp_path / "base", MERGER, OTHER)
    want = {1: canonical_lines(MERGER), 2: canonical_lines(OTHER)}
    db_bytes, log_bytes = base.read_bytes(), base.with_suffix(".log").read_bytes()
    used = [at for at, byte in enumerate(db_bytes) if byte]
    rng = random.Random(4)
    for trial in range(60):
        folder = tmp_path / f"trial{trial}"
        folder.mkdir()
        db, log = bytearray(db_bytes), bytearray(log_bytes)
        for _ in range(rng.randrange(1, 4)):
            db[rng.choice(used)] ^= 1 << rng.randrange(8)
        for _ in range(rng.randrange(0, 3)):
            log[rng.randrange(len(log))] ^= 1 << rng.randrange(8)
        if rng.random() < 0.3:
            log = log[:rng.randrange(len(log))]
        (folder / "journal.db").write_bytes(bytes(db))
        (folder / "journal.log").write_bytes(bytes(log))
        try:
            with Journal.open(folder / "journal.db") as journal:
                games = {info.id: journal.lines(info.id) for info in journal.games()}
                report = journal.report
                for game in games:
                    journal.resume(game)
        except JournalError as error:
            assert "newer tabletop" in str(error), (trial, error)   # a damaged format number
            continue
        for game, lines in want.items():
            held = games.get(game, [])
            assert held == lines[:len(held)], (trial, game, str(report))
            if len(held) < len(lines) and "may be lost" not in str(report):
                assert report.lost.get(game) == len(lines) - len(held), (trial, game, str(report))
        with Journal.open(folder / "journal.db") as journal:
            assert journal.report.clean, (trial, str(journal.report))


# --- commands pointed at files that are not journals ------------------------------------------

@pytest.mark.parametrize("command", [["games"], ["export", "1"], ["replay", "--game", "1"]])
def test_reading_commands_leave_files_that_are_not_journals_alone(tmp_path, capsys, command):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(b"\xff\xd8")
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n")
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = sorted(path.name for path in tmp_path.iterdir()), other.read_bytes()
    for target in (folder, notes, other):
        assert main([*command, "--journal", str(target)]) == 2
        error = capsys.readouterr().err
        assert "not a tabletop journal" in error and "untouched" in error, error
    assert (sorted(path.name for path in tmp_path.iterdir()), other.read_bytes()) == before
    assert notes.read_text() == "shopping list\n" and (folder / "a.jpg").exists()


def test_the_copy_given_as_the_journal_is_left_alone(tmp_path, capsys):
    db = recorded(tmp_path, MERGER)
    log = db.with_suffix(".log")
    before = sorted(path.name for path in tmp_path.iterdir()), log.read_bytes()
    assert main(["games", "--journal", str(log)]) == 2
    error = capsys.readouterr().err
    assert "not a tabletop journal" in error and "journal.db" in error, error
    assert (sorted(path.name for path in tmp_path.iterdir()), log.read_bytes()) == before



# --- score slips ------------------------------------------------------------------------------

def test_the_key_is_never_left_half_made(tmp_path, monkeypatch):
    def failing(fd, data):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(slip_module.os, "write", failing)
    with pytest.raises((SlipError, OSError)):
        table_key(tmp_path / "data")
    monkeypatch.undo()
    key = table_key(tmp_path / "data")      # the next try makes a whole key
    assert len(key) == 32
    assert stat.S_IMODE((tmp_path / "data" / KEY_FILE).stat().st_mode) == 0o600
    assert [path.name for path in (tmp_path / "data").iterdir()] == [KEY_FILE]


SLIP = {"slip": 1, "table": "t", "game": 4, "options": {"bonus_mode": "classic"},
        "currency": "$", "currency_after": False, "players": [
            {"rank": 1, "name": "Ann", "cash": 9000, "bonuses": {"Tower": 3000}, "sales": {}},
            {"rank": 2, "name": "Bob", "cash": 7000, "bonuses": {}, "sales": {"Tower": 400}}]}
KEY = bytes(range(32))


def test_a_changed_field_is_named_even_when_the_key_id_was_changed_too():
    slip = sign(SLIP, KEY)
    slip["players"][1]["cash"] = 70000
    slip["signature"]["key_id"] = slip_module.key_id(bytes(32))
    verdict = verify(slip, KEY)
    assert not verdict.valid
    assert "field players[1].cash was changed" in verdict.problems
    assert "another key" not in str(verdict)
    assert "another key" in str(verify(sign(SLIP, bytes(32)), KEY))


def test_a_field_removed_with_its_signature_entry_is_not_called_a_changed_signature():
    slip = sign(SLIP, KEY)
    del slip["players"][0]["sales"]
    del slip["signature"]["fields"]["players[0].sales"]
    assert str(verify(slip, KEY)) == \
        "invalid: a field was removed together with its entry in the signature"
    slip = sign(SLIP, KEY)
    slip["signature"]["slip"] = "0" * 64
    assert str(verify(slip, KEY)) == "invalid: the signature itself was changed"


def test_a_slip_file_with_a_field_given_twice_is_refused(tmp_path):
    text = json.dumps(sign(SLIP, KEY))
    # Python's json keeps the last "cash", other readers the first: one file, two results.
    text = text.replace('"cash": 9000', '"cash": 99999, "cash": 9000', 1)
    path = tmp_path / "slip.json"
    path.write_text(text)
    with pytest.raises(SlipError, match="cash.*twice"):
        read_slip(path)


@pytest.mark.parametrize("changes", [
    {"table": "The big round table by the window in hall B, second floor"},
    {"table": "第一张桌子在大厅的窗户旁边第二层楼"},
    {"game": 10 ** 40},
    {"currency": "Goldmünzen der Bank", "currency_after": True},
])
def test_the_receipt_never_exceeds_32_columns(changes):
    slip = {**copy.deepcopy(SLIP), **changes, "started": "2026-01-01T10:00:00Z",
            "finished": "2026-01-01T11:30:00Z", "actions": 300}
    slip["players"][0]["cash"] = 10 ** 30 if "game" in changes else 9000
    lines = slip_text(sign(slip, KEY)).splitlines()
    assert all(width(line) <= 32 for line in lines), [line for line in lines if width(line) > 32]
    text = "".join(line.strip() for line in lines)
    for value in changes.values():
        if isinstance(value, str):
            assert value.replace(" ", "") in text.replace(" ", "")
