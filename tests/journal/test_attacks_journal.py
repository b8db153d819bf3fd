"""Attacks on the journal, performed for real (issue 22, items 2-4).

A rule file named by path and edited after the game; links planted where the journal
writes; read commands pointed at pipes, devices, empty files and other programs' SQLite
files; a read-only and a full disk. Commands run as a user types them: a subprocess
running ``python -m tabletop``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from journal_writer import ROOT
from tabletop.engine.game import Game
from tabletop.engine.random_play import play_random_game
from tabletop.engine.ruleset import load_rules
from tabletop.errors import JournalError
from tabletop.journal.journal import Journal
from tabletop.journal.store import Record

PLAYERS = ["Ann", "Bob", "Cy"]
VICTIM_TEXT = b"the thesis, three years of work\n"


@pytest.fixture
def env(tmp_path):
    env = dict(os.environ, TABLETOP_DATA=str(tmp_path / "data"),
               TABLETOP_CONFIG=str(tmp_path / "none.toml"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run(env, *args, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)


def finished_script(rules: str, seed: int = 5) -> list[str]:
    lines = [json.dumps(line) for line in play_random_game("acquire", PLAYERS, seed=seed).script()]
    setup = json.loads(lines[0])
    setup["setup"]["rules"] = rules
    return [json.dumps(setup)] + lines[1:]


def record(db: Path, lines: list[str]) -> None:
    with Journal.open(db, table_name="t") as journal:
        table = journal.start(lines[0])
        for line in lines[1:]:
            table.push(line)
        assert table.game.over


#: The tests that start from the one recorded game run in one worker: it is recorded once.
RECORDED = pytest.mark.xdist_group("attacks-journal-recorded")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """One finished game recorded by the real writer (every step synced: about 1.5 s on a
    busy disk); each test gets its own copy of the folder, byte for byte."""
    db = tmp_path_factory.mktemp("recorded") / "data" / "journal.db"
    record(db, finished_script("acquire"))
    return db.parent


def recorded_in(folder: Path, recorded: Path) -> Path:
    """``folder`` (made private, as the writer makes it) holding a copy of every file the
    recorded game's writer left: the same bytes and modes as if recorded there."""
    folder.mkdir(mode=0o700)
    for path in recorded.iterdir():
        shutil.copy2(path, folder / path.name)
    return folder / "journal.db"


def snapshot(folder: Path) -> dict[str, tuple[bytes | None, int, int]]:
    """Every name in ``folder`` with its bytes (a link: its target), mode and mtime."""
    seen = {}
    for path in sorted(folder.iterdir()):
        info = os.lstat(path)
        data = (os.readlink(path).encode() if path.is_symlink() else
                path.read_bytes() if stat.S_ISREG(info.st_mode) else None)
        seen[path.name] = (data, info.st_mode, info.st_mtime_ns)
    return seen


def make_key(tmp_path: Path) -> Path:
    key = tmp_path / "slip.key"
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, b"ab" * 32 + b"\n")
    os.close(fd)
    return key


# --- item 2: a rule file named by path is recorded by its content --------------------------

def test_a_rule_file_edited_after_the_game_changes_no_result(tmp_path, env):
    rules = tmp_path / "rules" / "custom.toml"
    rules.parent.mkdir()
    original = load_rules("acquire").text.encode("utf-8")
    rules.write_bytes(original)
    db = tmp_path / "data" / "journal.db"
    record(db, finished_script(str(rules)))
    key = make_key(tmp_path)
    before = run(env, "slip", "1", "--journal", db, "--key", key)
    state_before = run(env, "replay", "--game", "1", "--journal", db)
    assert before.returncode == 0 and state_before.returncode == 0, before.stderr
    rules.write_bytes(original.replace(b"starting_cash = 6000", b"starting_cash = 9000"))
    assert load_rules(str(rules)).starting_cash == 9000
    after = run(env, "slip", "1", "--journal", db, "--key", key)
    state_after = run(env, "replay", "--game", "1", "--journal", db)
    assert after.returncode == 0, after.stderr
    slip_before, slip_after = json.loads(before.stdout), json.loads(after.stdout)
    assert [p["cash"] for p in slip_after["players"]] == [p["cash"] for p in slip_before["players"]]
    assert slip_after == slip_before
    assert slip_after["rules_sha256"] == hashlib.sha256(original).hexdigest()
    assert json.loads(state_after.stdout) == json.loads(state_before.stdout)
    # The exported script carries the rules too: it replays alike with the file changed.
    exported = tmp_path / "game.jsonl"
    assert run(env, "export", "1", "--journal", db, "--out", exported).returncode == 0
    replayed = run(env, "replay", exported)
    assert json.loads(replayed.stdout) == json.loads(state_before.stdout), replayed.stderr


def test_a_shipped_rule_set_is_recorded_by_name_exactly_as_before(tmp_path):
    setup = {"setup": {"rules": "acquire", "players": PLAYERS, "options": {"bonus_mode": "tycoon"}}}
    with Journal.open(tmp_path / "journal.db") as journal:
        journal.start(setup)
        line = journal.lines(1)[0]
    game = Game("acquire", PLAYERS, {"bonus_mode": "tycoon"})
    assert line == json.dumps(game.setup_json(), ensure_ascii=False)
    assert "rules_text" not in line and "rules_sha256" not in line


def _tamper_setup(db: Path, change) -> None:
    """Change game 1's setup line in both copies, with record checksums that hold."""
    conn = sqlite3.connect(db)
    started, table, line = conn.execute("SELECT started, table_name, setup FROM games").fetchone()
    setup = json.loads(line)
    change(setup["setup"])
    forged = Record(1, 0, started, json.dumps(setup, ensure_ascii=False), table).sealed()
    conn.execute("UPDATE games SET setup = ?, sum = ?", (forged.line, forged.sum))
    conn.commit()
    conn.close()
    log = db.with_suffix(".log")
    lines = log.read_text().splitlines(keepends=True)
    lines = [forged.to_log() if '"seq":0' in text else text for text in lines]
    log.write_text("".join(lines))


def test_tampered_recorded_rules_are_refused(tmp_path, env):
    rules = tmp_path / "custom.toml"
    rules.write_text(load_rules("acquire").text)
    db = tmp_path / "data" / "journal.db"
    record(db, finished_script(str(rules)))
    _tamper_setup(db, lambda setup: setup.update(
        rules_text=setup["rules_text"].replace("starting_cash = 6000", "starting_cash = 9000")))
    key = make_key(tmp_path)
    for command in (["replay", "--game", "1"], ["slip", "1", "--key", key], ["export", "1", "--format", "json"]):
        result = run(env, *command, "--journal", db)
        assert result.returncode == 2, (command, result.stdout)
        assert "changed after it was recorded" in result.stderr, (command, result.stderr)
        assert "Traceback" not in result.stderr
    checked = run(env, "check", "--journal", db)
    assert checked.returncode == 1 and "changed after it was recorded" in checked.stdout
    with pytest.raises(JournalError, match="changed after it was recorded"):
        with Journal.open(db) as journal:
            journal.resume(1)


# --- item 3: never through a link, private files, a private folder ------------------------

def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_bytes(VICTIM_TEXT)
    return path


@RECORDED
@pytest.mark.parametrize("name", ["journal.db.lock", "journal.log", "journal.db-wal",
                                  "journal.db-shm", "journal.db"])
def test_a_planted_link_is_never_followed(tmp_path, env, recorded, name):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    target = victim(tmp_path)
    (folder / name).unlink(missing_ok=True)
    (folder / name).symlink_to(target)
    for command in (["games"], ["export", "1"], ["check"], ["check", "--repair"]):
        result = run(env, *command, "--journal", db)
        assert "Traceback" not in result.stderr, result.stderr
        assert target.read_bytes() == VICTIM_TEXT, (command, name)
    # The last of them, the repair, is the one that refuses the link (asked here of its own
    # answer: a second repair after it read the same files, to the same end).
    assert result.returncode == 2 and "symbolic link" in result.stderr, result.stderr
    assert (folder / name).is_symlink()


@RECORDED
def test_a_planted_rewrite_link_is_not_written_when_the_copy_is_rebuilt(tmp_path, env, recorded):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    target = victim(tmp_path)
    db.with_suffix(".log").unlink()                   # the copy must be rewritten
    (folder / "journal.log.rewrite").symlink_to(target)
    assert run(env, "games", "--journal", db).returncode == 0
    assert not db.with_suffix(".log").exists()        # reading rewrote nothing
    result = run(env, "check", "--repair", "--journal", db)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "journal.log was missing" in result.stdout
    assert target.read_bytes() == VICTIM_TEXT
    assert b'"seq":0' in db.with_suffix(".log").read_bytes()


def test_journal_files_are_made_readable_by_their_owner_only(tmp_path):
    folder = tmp_path / "data"
    with Journal.open(folder / "journal.db") as journal:
        journal.start({"setup": {"rules": "acquire", "players": PLAYERS}})
        names = sorted(path.name for path in folder.iterdir())
        assert {"journal.db", "journal.db-wal", "journal.db-shm", "journal.db.lock",
                "journal.log"} <= set(names)
        for path in folder.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0


def test_a_folder_others_can_write_to_is_refused(tmp_path, env):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(JournalError, match="not private.*other users can write"):
        Journal.open(folder / "journal.db")
    assert list(folder.iterdir()) == []
    result = run(env, "check", "--repair", "--journal", folder / "journal.db")
    assert result.returncode == 2 and "chmod go-w" in result.stderr
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_a_folder_of_another_user_is_refused(tmp_path):
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o755)
    os.chown(folder, 4321, -1)
    with pytest.raises(JournalError, match="belongs to another user"):
        Journal.open(folder / "journal.db")
    assert list(folder.iterdir()) == []


# --- item 4: reading never writes ------------------------------------------------------------

READ_COMMANDS = [["games"], ["export", "1"], ["slip", "1"], ["replay", "--game", "1"], ["check"]]


def read_commands(tmp_path):
    key = make_key(tmp_path)
    return [[*c, "--key", key] if c[0] == "slip" else c for c in READ_COMMANDS]


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
    conn.execute("CREATE TABLE actions (game INTEGER, what TEXT)")
    conn.execute("INSERT INTO games VALUES (1, 'chess')")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("kind", ["fifo", "empty", "foreign", "folder"])
def test_read_commands_refuse_what_is_not_a_journal_and_leave_it_as_it_is(tmp_path, env, kind):
    folder = tmp_path / "place"
    folder.mkdir()
    target = folder / "journal.db"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "empty":
        target.write_bytes(b"")
    elif kind == "foreign":
        _foreign_sqlite(target)
    else:
        target.mkdir()
    commands = read_commands(tmp_path)
    before = snapshot(folder)
    for command in commands:
        result = run(env, *command, "--journal", target, timeout=20)   # a FIFO must not hang
        assert result.returncode == 2, (command, result.stdout)
        assert "not a tabletop journal" in result.stderr and "Traceback" not in result.stderr, \
            (command, result.stderr)
        assert snapshot(folder) == before, command
    expected = {"fifo": "named pipe", "empty": "empty file", "foreign": "another program",
                "folder": "a folder"}[kind]
    assert expected in result.stderr


def test_a_character_device_is_refused_and_nothing_is_made_beside_it(tmp_path, env):
    before = sorted(name for name in os.listdir("/dev") if name.startswith("null"))
    for command in read_commands(tmp_path):
        result = run(env, *command, "--journal", "/dev/null", timeout=20)
        assert result.returncode == 2 and "a device" in result.stderr, (command, result.stderr)
    assert sorted(name for name in os.listdir("/dev") if name.startswith("null")) == before


@RECORDED
def test_reading_a_damaged_journal_reports_it_and_repairs_nothing(tmp_path, env, recorded):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE actions SET line = replace(line, '\"do\"', '\"do\" ') WHERE seq = 3")
    conn.commit()
    conn.close()
    before = snapshot(folder)
    exported = run(env, "export", "1", "--journal", db)
    assert exported.returncode == 2 and "record 3" in exported.stderr and "damaged" in exported.stderr
    assert "check --repair" in exported.stderr
    listed = run(env, "games", "--journal", db)
    assert listed.returncode == 0, listed.stderr
    checked = run(env, "check", "--journal", db)
    assert checked.returncode == 1 and "failed its checksum at game 1, record 3" in checked.stdout
    assert snapshot(folder) == before                  # nothing set aside, nothing rebuilt
    repaired = run(env, "check", "--repair", "--journal", db)
    assert repaired.returncode == 0 and "repaired: journal.db failed its checksum" in repaired.stdout
    assert run(env, "export", "1", "--journal", db).returncode == 0


@RECORDED
def test_a_missing_database_beside_its_copy_is_reported_not_rebuilt(tmp_path, env, recorded):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    db.unlink()
    before = snapshot(folder)
    for command in read_commands(tmp_path)[:4]:
        result = run(env, *command, "--journal", db)
        assert result.returncode == 2 and "check --repair" in result.stderr, (command, result.stderr)
    checked = run(env, "check", "--journal", db)
    assert checked.returncode == 1 and "journal.db was missing" in checked.stdout
    assert snapshot(folder) == before


# --- a read-only and a full disk (a small tmpfs; needs the right to mount) --------------------

@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@RECORDED
@pytest.mark.parametrize("state", ["read-only", "full"])
def test_reading_works_on_a_read_only_or_full_disk(tmp_path, env, small_disk, recorded, state):
    for name in ("journal.db", "journal.log"):
        shutil.copy2(recorded / name, small_disk / name)
    db = small_disk / "journal.db"
    if state == "read-only":
        subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    else:
        fd = os.open(small_disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass               # the disk is full now
        os.close(fd)
    before = snapshot(small_disk)
    for command in read_commands(tmp_path):
        result = run(env, *command, "--journal", db)
        assert result.returncode == 0, (command, result.stderr)
        assert snapshot(small_disk) == before, command


# --- the attack review of items 3 and 4: hard links, SQLite's rollback journal, -shm ------

VICTIM_PAGES = b"VICTIM " * 9000
SIDE_NAMES = ["journal.db-shm", "journal.db-wal", "journal.db-journal", "journal.log",
              "journal.db.lock"]


def _fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), os.stat(path).st_mtime_ns


@RECORDED
@pytest.mark.parametrize("name", SIDE_NAMES)
def test_a_hard_link_beside_the_journal_is_never_written_through(tmp_path, env, recorded, name):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    target = tmp_path / "v"
    target.write_bytes(VICTIM_PAGES)
    (folder / name).unlink(missing_ok=True)
    os.link(target, folder / name)
    if name == "journal.db-shm":
        (folder / "journal.db-wal").write_bytes(b"")    # so that SQLite reads the -shm
    before = _fingerprint(target)
    for command in [*read_commands(tmp_path), ["slip", "1", "--text"], ["check", "--repair"]]:
        if command[0] == "slip" and "--key" not in command:
            command = [*command, "--key", tmp_path / "slip.key"]
        result = run(env, *command, "--journal", db, timeout=20)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert "hard links" in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert _fingerprint(target) == before, command
    assert not list(folder.glob("*damaged*"))


@RECORDED
def test_a_hard_linked_database_is_refused_by_readers_and_the_writer(tmp_path, env, recorded):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    backup = tmp_path / "backup.db"
    os.link(db, backup)
    before, names = _fingerprint(backup), sorted(os.listdir(folder))
    for command in [["games"], ["check"], ["check", "--repair"]]:
        result = run(env, *command, "--journal", db, timeout=20)
        assert result.returncode == 2 and "hard links" in result.stderr, (command, result.stderr)
        assert _fingerprint(backup) == before and sorted(os.listdir(folder)) == names, command
    with pytest.raises(JournalError, match="hard links"):
        Journal.open(db)


@RECORDED
@pytest.mark.parametrize("kind", ["fifo", "link", "folder", "hard link"])
def test_a_rollback_journal_that_is_no_file_of_ours_is_refused(tmp_path, env, recorded, kind):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    odd = folder / "journal.db-journal"
    target = victim(tmp_path)
    {"fifo": lambda: os.mkfifo(odd), "link": lambda: odd.symlink_to(target),
     "folder": odd.mkdir, "hard link": lambda: os.link(target, odd)}[kind]()
    before = snapshot(folder)
    for command in [["check", "--repair"], ["games"], ["check"]]:
        result = run(env, *command, "--journal", db, timeout=20)    # a FIFO must not hang
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert "journal.db-journal" in result.stderr and "Traceback" not in result.stderr
        assert snapshot(folder) == before, command          # the intact database stays
    assert target.read_bytes() == VICTIM_TEXT


@RECORDED
def test_a_rollback_journal_is_kept_aside_and_said_never_deleted(tmp_path, env, recorded):
    folder = tmp_path / "data"
    db = recorded_in(folder, recorded)
    (folder / "journal.db-journal").write_bytes(b"someone's rollback journal")
    result = run(env, "games", "--journal", db)
    assert result.returncode == 0 and (folder / "journal.db-journal").exists()
    result = run(env, "check", "--repair", "--journal", db)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "journal.db-journal lay beside journal.db" in result.stdout
    kept = list(folder.glob("journal.db-journal.odd-*"))
    assert [path.read_bytes() for path in kept] == [b"someone's rollback journal"]
    assert not list(folder.glob("*damaged*")) and "every checksum holds" in result.stdout


def _stopped_while_writing(tmp_path: Path) -> Path:
    """A journal folder as a writer stopped mid-game leaves it: the steps in the -wal."""
    live = tmp_path / "live" / "journal.db"
    journal = Journal.open(live, table_name="t")
    try:
        lines = finished_script("acquire")
        table = journal.start(lines[0])
        for line in lines[1:]:
            table.push(line)
        folder = tmp_path / "data"
        folder.mkdir(mode=0o700)
        for name in ("journal.db", "journal.db-wal", "journal.log", "journal.db.lock"):
            shutil.copyfile(live.with_name(name), folder / name)
    finally:
        journal.close()
    assert (folder / "journal.db-wal").stat().st_size > 0
    return folder / "journal.db"


def test_reading_a_journal_left_with_its_wal_and_a_garbage_shm_writes_nothing(tmp_path, env):
    db = _stopped_while_writing(tmp_path)
    Path(f"{db}-shm").write_bytes(b"\xa5" * 32768)
    before = snapshot(db.parent)
    results = {}
    for command in read_commands(tmp_path):
        result = results[command[0]] = run(env, *command, "--journal", db, timeout=20)
        assert result.returncode == 0, (command, result.stdout, result.stderr)
        assert snapshot(db.parent) == before, command
    assert "Ann, Bob, Cy" in results["games"].stdout   # read from the -wal


def test_the_table_makes_its_data_folder_private(tmp_path):
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner

    data = tmp_path / "new" / "data"
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[printer]\nurl = ""\n[paths]\ndata = "{data}"\n')
    runner = Runner(load_config(path, environ={}), players=PLAYERS, new=True, out=lambda line: None)
    try:
        assert stat.S_IMODE(os.stat(data).st_mode) == 0o700
    finally:
        runner.close()


@RECORDED
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sides=st.dictionaries(st.sampled_from(["-wal", "-shm", "-journal"]),
                             st.binary(max_size=4096), max_size=3))
def test_reading_with_any_side_files_raises_only_journal_errors_and_writes_nothing(
        tmp_path_factory, recorded, sides):
    from tabletop.journal.journal import check, open_for_reading

    db = recorded_in(tmp_path_factory.mktemp("fuzz") / "data", recorded)   # a fresh copy each
    folder = db.parent
    for side, data in sides.items():
        Path(f"{db}{side}").write_bytes(data)
    before = snapshot(folder)
    try:
        with open_for_reading(db) as journal:
            journal.games()
    except JournalError:
        pass
    try:
        check(db)
    except JournalError:
        pass
    assert snapshot(folder) == before
