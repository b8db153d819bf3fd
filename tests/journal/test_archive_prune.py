"""Archiving old games off the table and pruning them from both copies of the journal.

Real journal files, the real ``tabletop`` command line in a subprocess, and a prune
killed with SIGKILL after each of its steps.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.engine.random_play import play_random_game
from tabletop.journal.archive import archive_text, read_archive, slip_matches
from tabletop.journal.journal import Journal
from tabletop.journal.pruning import intent_path

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Ann", "Bob", "Cy", "Di"]


def script(seed: int, count: int | None = None) -> list[str]:
    return [json.dumps(line) for line in play_random_game("acquire", PLAYERS, seed=seed).script()][:count]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """Games 1-3 finished, 4 abandoned (unfinished, older), 5 in progress."""
    folder = tmp_path_factory.mktemp("recorded")
    with Journal.open(folder / "journal.db", table_name="table 3") as journal:
        for seed, count in ((1, None), (2, None), (3, None), (4, 9), (5, 5)):
            lines = script(seed, count)
            table = journal.start(lines[0])
            for line in lines[1:]:
                table.push(line)
    return folder


@pytest.fixture
def db(recorded, tmp_path) -> Path:
    for name in os.listdir(recorded):
        shutil.copy2(recorded / name, tmp_path / name)
    return tmp_path / "journal.db"


@pytest.fixture
def env(tmp_path):
    env = dict(os.environ, TABLETOP_DATA=str(tmp_path / "data"),
               TABLETOP_CONFIG=str(tmp_path / "none.toml"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def tabletop(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def killed_after(env, step: int, *args) -> subprocess.CompletedProcess:
    """The command run in a process that SIGKILLs itself once the prune's step ``step`` is
    done (through the journal's own hook: it reads no environment of its own)."""
    code = ("import os, signal, sys\n"
            "from tabletop.journal import pruning\n"
            f"pruning.after_step = lambda s: s == {step} and os.kill(os.getpid(), signal.SIGKILL)\n"
            "from tabletop.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


def listed(env, db: Path) -> list[int]:
    out = tabletop(env, "games", "--journal", db).stdout.splitlines()[1:]
    return [int(line.split()[0]) for line in out]


def held(db: Path) -> dict[int, list[str]]:
    """Every game's script, read from the database and from the copy (both must agree)."""
    with Journal.open(db) as journal:
        assert journal.report.clean, journal.report
        return {info.id: journal.lines(info.id) for info in journal.games()}


def snapshot(db: Path) -> tuple:
    """The journal's content: its database's rows and its copy's bytes."""
    conn = sqlite3.connect(db)
    rows = list(conn.iterdump())
    conn.close()
    return rows, db.with_suffix(".log").read_bytes()


def one_line_refusal(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tabletop: "), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], lines[0]


# --- the whole way ---------------------------------------------------------------------

def test_archive_then_prune_leaves_the_rest_whole_and_ids_never_reused(db, env, tmp_path):
    before = held(db)
    archive = tmp_path / "old.jsonl"
    done = tabletop(env, "archive", "--before", 6, "--abandoned", 4, "--to", archive,
                    "--journal", db)
    assert done.returncode == 0, done.stderr
    assert "archived 4 games" in done.stdout and "1, 2, 3, 4" in done.stdout
    assert "game 5 is in progress: left out" in done.stderr
    pruned = tabletop(env, "prune", "--archived", archive, "--journal", db)
    assert pruned.returncode == 0, pruned.stderr
    assert "pruned games 1, 2, 3, 4" in pruned.stdout
    assert listed(env, db) == [5]
    check = tabletop(env, "check", "--journal", db)
    assert check.returncode == 0 and "every checksum holds, both copies agree" in check.stdout
    assert held(db) == {5: before[5]}                 # the game in progress untouched
    with Journal.open(db, table_name="table 3") as journal:
        assert journal.start(script(9)[0]).id == 6


def test_the_latest_game_is_archived_but_kept_so_its_id_is_never_reused(db, env, tmp_path):
    with Journal.open(db, table_name="table 3") as journal:   # game 5 played to its end
        table = journal.resume(5)
        for line in script(5)[len(table.records):]:
            table.push(line)
    archive = tmp_path / "old.jsonl"
    assert tabletop(env, "archive", "--finished-before", "2999-01-01", "--to", archive,
                    "--journal", db).returncode == 0
    assert [game.id for game in read_archive(archive).games] == [1, 2, 3, 5]
    pruned = tabletop(env, "prune", "--archived", archive, "--journal", db)
    assert pruned.returncode == 0, pruned.stderr
    assert "game 5 is the latest and stays: the next new game is 6" in pruned.stdout
    assert listed(env, db) == [4, 5]
    with Journal.open(db, table_name="table 3") as journal:
        assert journal.start(script(9)[0]).id == 6
    # Game 5 is no longer the latest: the same archive now prunes it.
    again = tabletop(env, "prune", "--archived", archive, "--journal", db)
    assert again.returncode == 0 and "pruned game 5" in again.stdout
    assert listed(env, db) == [4, 6]


def test_an_archived_slip_still_verifies_and_matches_the_archived_text(db, env, tmp_path):
    exported = tabletop(env, "export", 2, "--format", "jsonl", "--journal", db).stdout
    archive = tmp_path / "old.jsonl"
    assert tabletop(env, "archive", "--before", 3, "--to", archive, "--journal", db).returncode == 0
    assert tabletop(env, "prune", "--archived", archive, "--journal", db).returncode == 0
    game = read_archive(archive).game(2)
    assert game.jsonl == exported
    assert game.slip["script_sha256"] == hashlib.sha256(exported.encode()).hexdigest()
    assert "is the one the slip was made of" in slip_matches(game.slip, read_archive(archive))
    slip = tmp_path / "slip.json"
    slip.write_text(json.dumps(game.slip))
    public = tabletop(env, "key", "--public").stdout
    verdict = tabletop(env, "verify", slip, "--public", public)
    assert (verdict.returncode, verdict.stdout) == (0, "valid\n")


# --- a crash mid-prune --------------------------------------------------------------------

@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
@pytest.mark.parametrize("step", [1, 2, 3, 4, 5])
def test_a_prune_killed_after_any_step_loses_nothing(db, env, tmp_path, step):
    before = held(db)
    archive = tmp_path / "old.jsonl"
    assert tabletop(env, "archive", "--before", 4, "--to", archive, "--journal", db).returncode == 0
    killed = killed_after(env, step, "prune", "--archived", archive, "--journal", db)
    assert killed.returncode == -signal.SIGKILL
    if step < 5:
        # `tabletop check` reads only: it says the prune is pending, and changes nothing.
        pending = tabletop(env, "check", "--journal", db)
        assert pending.returncode == 1 and "was interrupted" in pending.stdout
    # The table's next opening finishes the prune: no damage reported, nothing else touched.
    with Journal.open(db, table_name="table 3") as journal:
        messages = journal.report.messages
        assert not any("damaged" in m or "kept as" in m or "missing" in m for m in messages)
        assert {info.id: journal.lines(info.id) for info in journal.games()} == \
            {game: before[game] for game in (4, 5)}
    assert not intent_path(db).exists()
    check = tabletop(env, "check", "--journal", db)
    assert check.returncode == 0, check.stdout
    again = tabletop(env, "prune", "--archived", archive, "--journal", db)
    assert again.returncode == 0 and listed(env, db) == [4, 5]


# --- refused, and nothing changed ----------------------------------------------------------

def test_an_archive_that_differs_from_the_journal_is_refused(db, env, tmp_path):
    archive = tmp_path / "old.jsonl"
    assert tabletop(env, "archive", "--before", 3, "--to", archive, "--journal", db).returncode == 0
    games = read_archive(archive).games
    changed = dataclasses.replace(games[1], jsonl=games[1].jsonl.replace('"Bob"', '"Rob"', 1))
    forged = tmp_path / "forged.jsonl"
    forged.write_text(archive_text([games[0], changed]))
    was = snapshot(db)
    one_line_refusal(tabletop(env, "prune", "--archived", forged, "--journal", db),
                     "game 2", "nothing was pruned")
    assert snapshot(db) == was and listed(env, db) == [1, 2, 3, 4, 5]


def test_a_game_in_progress_is_never_archived_nor_pruned(db, env, tmp_path):
    archive = tmp_path / "old.jsonl"
    one_line_refusal(tabletop(env, "archive", "--abandoned", 5, "--to", archive, "--journal", db),
                     "game 5 is in progress")
    assert not archive.exists()
    with Journal.open(db) as journal:            # an archive made by hand, naming game 5
        info, lines = journal.info(5), journal.lines(5)
    from tabletop.journal.archive import entry
    archive.write_text(archive_text([entry(info, lines, "Acquire", False, None)]))
    with Journal.open(db, table_name="table 3") as journal:   # game 5 is no longer the latest
        journal.start(script(9)[0])
    was = snapshot(db)
    one_line_refusal(tabletop(env, "prune", "--archived", archive, "--journal", db),
                     "game 5 is in progress")
    assert snapshot(db) == was


def test_prune_is_refused_while_a_writer_holds_the_journal(db, env, tmp_path):
    archive = tmp_path / "old.jsonl"
    assert tabletop(env, "archive", "--before", 3, "--to", archive, "--journal", db).returncode == 0
    with Journal.open(db) as journal:
        journal.resume(5)
        one_line_refusal(tabletop(env, "prune", "--archived", archive, "--journal", db),
                         "being written by another program")
    assert listed(env, db) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("command", [
    ["prune", "--archived", "missing.jsonl"],
    ["prune", "--archived", "garbage.jsonl"],
    ["prune", "--archived", "cut.jsonl"],
    ["archive", "--before", "3", "--to", "exists.jsonl"],
    ["archive", "--before", "3", "--to", "journal.db", "--force"],
    ["archive", "--finished-before", "2026-13-01", "--to", "new.jsonl"],
    ["archive", "--to", "new.jsonl"],
    ["archive", "--before", "3", "--to", "new.jsonl", "--journal", "nowhere.db"],
])
def test_bad_input_gives_one_line_and_changes_nothing(db, env, tmp_path, command):
    good = tmp_path / "good.jsonl"
    assert tabletop(env, "archive", "--before", 3, "--to", good, "--journal", db).returncode == 0
    (tmp_path / "garbage.jsonl").write_bytes(b"\x00\xffnot an archive\n")
    (tmp_path / "cut.jsonl").write_bytes(good.read_bytes()[:-200])
    (tmp_path / "exists.jsonl").write_text("mine\n")
    was = snapshot(db)
    command = [str(tmp_path / part) if part.endswith((".jsonl", ".db")) else part
               for part in command]
    extra = [] if "--journal" in command else ["--journal", db]
    one_line_refusal(tabletop(env, *command, *extra))
    assert snapshot(db) == was
    assert (tmp_path / "exists.jsonl").read_text() == "mine\n"
    assert not (tmp_path / "new.jsonl").exists()


def test_a_mistyped_flag_names_the_right_one(db, env, tmp_path):
    result = tabletop(env, "prune", "--archvied", tmp_path / "a.jsonl", "--journal", db)
    assert result.returncode == 2 and "--archived" in result.stderr
    assert "Traceback" not in result.stderr
