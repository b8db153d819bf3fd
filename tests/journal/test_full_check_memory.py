"""The full check and the repair of a journal hold memory that does not grow with its games.

Measured with tracemalloc's peak (what Python allocated at most during the check), not
with a clock: a journal ten times as long must not need much more, whole or damaged. The
same measure taken of the in-memory comparison (both copies read whole) grows with the
journal, so it does tell them apart.
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from tabletop.engine.random_play import random_action
from tabletop.journal import comparison, copyfile, files, pruning, scratch, store, whole_check
from tabletop.journal.journal import Journal, check

PLAYERS = ["Ann", "Bob", "Cy", "Di"]

#: This file's tests copy the journals one worker builds once (see ``built``).
pytestmark = pytest.mark.xdist_group("full-check-memory-journals")


@pytest.fixture(scope="module")
def one_game(tmp_path_factory) -> tuple[list[store.Record], tuple]:
    """The records of one real game (40 actions) and its games-list entry."""
    folder = tmp_path_factory.mktemp("one")
    rng = random.Random(7)
    with Journal.open(folder / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": PLAYERS, "seed": 7}})
        for _ in range(40):
            table.push(random_action(table.game, rng))
        records = list(table.records)
    conn = sqlite3.connect(folder / "journal.db")
    entry = conn.execute("SELECT rules, players, turn, actions, finished FROM games").fetchone()
    conn.close()
    return records, entry


def _journal(folder: Path, games: int, one_game) -> Path:
    """A whole journal of ``games`` copies of the one game (each sealed as its own)."""
    records, entry = one_game
    folder.mkdir(exist_ok=True)
    db = folder / "journal.db"
    every = [dataclasses.replace(record, game=game).sealed()
             for game in range(1, games + 1) for record in records]
    conn = store.connect(db)
    store.create_schema(conn)
    conn.execute("BEGIN")
    for record in every:
        store.insert_record(conn, record)
    conn.execute("UPDATE games SET rules = ?, players = ?, turn = ?, actions = ?, finished = ?",
                 entry)
    conn.execute("COMMIT")
    conn.close()
    copyfile.write_log(db.with_suffix(".log"), every)
    return db


@pytest.fixture(scope="module")
def built(tmp_path_factory, one_game) -> dict[int, Path]:
    """The whole journals of 3, 20 and 200 games, built once and never opened: a test
    that reads or changes one works on a copy (the same bytes as one built for it)."""
    return {games: _journal(tmp_path_factory.mktemp(f"built-{games}"), games, one_game)
            for games in (3, 20, 200)}


def _copy(db: Path, folder: Path) -> Path:
    """Both copies of the journal at ``db``, put in the new ``folder`` as _journal makes it."""
    folder.mkdir()
    for path in db.parent.iterdir():
        shutil.copy2(path, folder / path.name)
    return folder / db.name


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    """The copy read 16 kB at a time (1 MB on a table), so that both journals measured
    are many chunks long: what is held then depends on the chunk, not the journal."""
    monkeypatch.setattr(whole_check, "CHUNK", 16 << 10)
    monkeypatch.setattr(files, "CHUNK", 16 << 10)


def _peak(work) -> int:
    """The most bytes Python held at once while ``work()`` ran."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        work()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _full_open(db: Path) -> str:
    with Journal.open(db, check_all=True) as journal:
        return str(journal.report)


@pytest.fixture(scope="module")
def journals(tmp_path_factory, built) -> tuple[Path, Path]:
    """The 20 and the 200 games, copied for the tests that only read them."""
    return (_copy(built[20], tmp_path_factory.mktemp("short") / "j"),
            _copy(built[200], tmp_path_factory.mktemp("long") / "j"))


def _measured(work, short: Path, long: Path) -> tuple[int, int, object, object]:
    """The peaks of ``work`` on the short and the long journal, and what it returned each
    time. The short is worked once before, unmeasured, so that what Python makes once (a
    module's first import, a cache) is not counted as the short journal's. The long needs
    no such run: counted, it could only make the measure stricter. The results are the
    measured runs' own, so the work each measure covers is the work checked."""
    work(short)
    done = []
    small = _peak(lambda: done.append(work(short)))
    large = _peak(lambda: done.append(work(long)))
    return small, large, *done


def test_the_full_opening_holds_no_more_for_ten_times_the_games(journals):
    small, large, short, long = _measured(_full_open, *journals)
    assert short == long == "the journal is intact"
    assert large < 1.5 * small + 200_000, (small, large)


def test_tabletop_check_holds_no_more_for_ten_times_the_games(journals):
    small, large, _, (done, found, summary) = _measured(check, *journals)
    assert (done, found) == ([], [])
    assert summary.endswith("200 games, 8200 records; every checksum holds, both copies agree "
                            "and every game replays")
    assert large < 1.5 * small + 200_000, (small, large)


def _in_memory(db: Path) -> comparison.Plan:
    return comparison.reconcile(store.scan_db(db, readonly=True),
                                copyfile.scan_log(db.with_suffix(".log")))


def test_the_in_memory_comparison_grows_so_the_measure_tells(journals):
    small, large, _, plan = _measured(_in_memory, *journals)
    assert plan.db_whole
    assert large > 4 * small, (small, large)


def _flip_a_middle_line(log: Path) -> None:
    """One bit gone bad in the middle of the copy: its line fails its checksum."""
    data = bytearray(log.read_bytes())
    at = data.index(b'"line":', len(data) // 2) + 12
    data[at] ^= 0x01
    log.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["a line of the copy", "a row of the database"])
def test_a_damaged_journal_is_repaired_holding_no_more_for_ten_times_the_games(
        tmp_path, built, damage):
    reports = []

    def repaired(games: int) -> int:
        db = _copy(built[games], tmp_path / f"{games}-{len(reports)}")
        if damage == "a line of the copy":
            _flip_a_middle_line(db.with_suffix(".log"))
        else:
            _sql(db, f"UPDATE actions SET at = 'x' WHERE game = {games // 2} AND seq = 7")
        peak = _peak(lambda: reports.append(_full_open(db)))
        assert check(db)[1] == [], reports[-1]          # whole again, every game kept
        assert not list(db.parent.glob(".*.compare")), "the scratch file was left behind"
        return peak

    small, large = repaired(20), repaired(200)
    if damage == "a line of the copy":
        assert all("journal.log had damaged lines" in report and "rewritten" in report
                   for report in reports), reports
    else:
        assert all("journal.db failed its checksum at game" in report and "rebuilt" in report
                   for report in reports), reports
    assert "200 games with 8000 confirmed actions" in reports[1] or damage != "a row of the database"
    assert large < 1.5 * small + 200_000, (small, large)


def _damaged_variants(db: Path, rng: random.Random):
    """The journal at ``db`` changed in one of many ways (a few leave it whole)."""
    log = db.with_suffix(".log")
    data = log.read_bytes() if log.exists() else b"\n" * 9
    lines = data.split(b"\n")[:-1]
    yield "as it is", None
    yield "torn last line", lambda: log.write_bytes(data + b'{"game":3,"se')
    yield "last line lost its end", lambda: log.write_bytes(data[:-1])
    yield "line twice", lambda: log.write_bytes(data + lines[-1] + b"\n")
    yield "lines swapped", lambda: log.write_bytes(
        b"\n".join(lines[:5] + [lines[6], lines[5]] + lines[7:]) + b"\n")
    yield "last line missing", lambda: log.write_bytes(b"\n".join(lines[:-1]) + b"\n")
    yield "no header", lambda: log.write_bytes(b"\n".join(lines[1:]) + b"\n")
    for number in range(6):
        at = rng.randrange(len(data) - 1)
        flipped = data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]
        yield f"copy byte {at} flipped", lambda flipped=flipped: log.write_bytes(flipped)
    for sql in ("DELETE FROM actions WHERE game = 2 AND seq = 40",
                "DELETE FROM actions WHERE game = 1 AND seq = 3",
                "UPDATE actions SET at = 'x' WHERE game = 2 AND seq = 7",
                "UPDATE actions SET game = -1 WHERE game = 2 AND seq = 7",
                "UPDATE games SET actions = 3 WHERE id = 1",
                "UPDATE games SET finished = 'never' WHERE id = 2",
                "INSERT INTO actions SELECT 9, seq, at, line, sum FROM actions WHERE game = 1"):
        yield sql, lambda sql=sql: _sql(db, sql)


def _sql(db: Path, sql: str) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(sql)
    conn.close()


def _as_reconciled(db: Path):
    log_scan = copyfile.scan_log(db.with_suffix(".log"))
    plan = comparison.reconcile(store.scan_db(db, readonly=True), log_scan)
    return _findings(log_scan, plan)


def _findings(log_scan: copyfile.LogScan, plan: comparison.Plan) -> tuple:
    games = {game: list(records) for game, records in plan.games.items()}
    return (games, plan.db_problem, plan.catch_up, plan.log_problem, plan.lost, plan.db_whole,
            log_scan.torn, log_scan.whole_size, log_scan.bad, log_scan.unterminated)


def test_where_the_streaming_check_finds_a_journal_whole_the_full_comparison_agrees(
        tmp_path, built):
    accepted = []
    for number in range(len(list(_damaged_variants(tmp_path / "none.db", random.Random(3))))):
        db = _copy(built[3], tmp_path / str(number))   # the same bytes each time
        what, damage = list(_damaged_variants(db, random.Random(3)))[number]
        if damage is not None:
            damage()
        found = whole_check.whole(db, db.with_suffix(".log"), readonly=True)
        if found is None:
            continue
        log_scan, _, plan = found
        games = {game: list(records) for game, records in plan.games.items()}
        assert (games, plan.db_problem, plan.catch_up, plan.log_problem, plan.lost,
                plan.db_whole, log_scan.torn, log_scan.whole_size, log_scan.bad,
                log_scan.unterminated) == _as_reconciled(db), what
        plan.games.close()
        accepted.append(what)
    assert "as it is" in accepted and "torn last line" in accepted
    assert "line twice" not in accepted and "last line lost its end" not in accepted


def test_the_comparison_on_the_disk_finds_what_the_one_in_memory_finds(tmp_path, built):
    """Every damaged variant: the same plan, record for record, and the same scans."""
    variants = list(_damaged_variants(tmp_path / "none.db", random.Random(3)))
    problems = set()
    for number in range(len(variants)):
        db = _copy(built[3], tmp_path / str(number))
        what, damage = list(_damaged_variants(db, random.Random(3)))[number]
        if damage is not None:
            damage()
        log_scan, db_scan, plan = scratch.on_disk(db, db.with_suffix(".log"), readonly=True)
        try:
            assert _findings(log_scan, plan) == _as_reconciled(db), what
            memory = store.scan_db(db, readonly=True)
            assert (db_scan.error, db_scan.unkeyed, db_scan.listing, db_scan.read) == (
                memory.error, memory.unkeyed, memory.listing, memory.read), what
        finally:
            plan.games.close()
        problems.add((plan.db_problem or "")[:12] + "|" + (plan.log_problem or "")[:12])
    assert len(problems) >= 6, problems        # the variants do reach many findings


def test_pruning_a_game_from_the_copy_holds_no_more_for_ten_times_the_games(tmp_path, built):
    peaks = []
    for games in (20, 200):
        db = _copy(built[games], tmp_path / str(games))
        log = db.with_suffix(".log")
        before = log.read_bytes()
        peaks.append(_peak(lambda: pruning._rewrite_log(log, {2})))
        assert log.read_bytes() == b"".join(line for line in before.splitlines(keepends=True)
                                            if not line.startswith(b'{"game":2,'))
        assert len(log.read_bytes()) < len(before) - 1000       # game 2 was there, and went
    small, large = peaks
    assert large < 1.5 * small + 200_000, (small, large)
