"""The results screen's "write to USB stick" against a stick prepared to destroy the journal.

A stick's file system may hold symbolic links: one holding
``tabletop-game-1.jsonl -> <data>/journal.db`` (and the json and csv the
same to ``journal.log`` and ``slip.key``) once had every game on the table
overwritten by an export. These tests plant such sticks for real (links,
a linked export folder, files and folders in the way, a full and a
read-only file system) and check that the data folder is byte-identical
afterwards, that the game is in the stick's own folder, and that nothing
already on the stick is overwritten.
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from assembly.test_run import finished_runner
from tabletop.engine.state import state_json
from tabletop.engine.table_script import replay
from tabletop.journal.slip import table_key
from ui.i18n import say

FORMS = ("jsonl", "json", "csv")
#: Where each export file would land if followed: the journal's two copies and the key.
TARGETS = {"jsonl": "journal.db", "json": "journal.log", "csv": "slip.key"}


@pytest.fixture
def runner(tmp_path):
    runner = finished_runner(tmp_path)
    table_key(runner.data)                      # the key a slip is signed with: slip.key
    try:
        yield runner
    finally:
        runner.close()


def data_files(data: Path) -> dict[str, bytes]:
    """Every file of the data folder, but SQLite's shared-memory index (readers write it)."""
    return {path.name: path.read_bytes() for path in sorted(data.iterdir())
            if path.is_file() and not path.name.endswith("-shm")}


def plant_links(folder: Path, data: Path, stem: str) -> None:
    """The attack: links named like the export's files, to the journal and the key."""
    folder.mkdir(parents=True, exist_ok=True)
    for form, target in TARGETS.items():
        (folder / f"{stem}.{form}").symlink_to(data / target)


def export(runner, media: Path, *labels: str) -> str:
    return runner.services.export((str(media),), mounted=lambda folder: folder.name in labels)


def assert_the_game_is_in(folder: Path, stem: str, runner) -> None:
    for form in FORMS:
        path = folder / f"{stem}.{form}"
        assert path.is_file() and not path.is_symlink(), path
    lines = (folder / f"{stem}.jsonl").read_text(encoding="utf-8").splitlines()
    assert state_json(replay(lines).game) == state_json(runner.loop.desk.game)
    assert json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))["game"] == 1
    assert (folder / f"{stem}.csv").read_text(encoding="utf-8").startswith("game,player,")


def assert_chinese(message: str, *kept: str) -> None:
    """The message reaches the screen in Chinese, no English left but the stick's name and path."""
    chinese = say(message, "zh-TW")
    for value in sorted(kept, key=len, reverse=True):
        chinese = chinese.replace(value, " ")
    assert not re.findall(r"[A-Za-z]{2,}", chinese), chinese


def test_links_on_the_stick_to_the_journal_and_the_key_leave_them_byte_identical(runner, tmp_path):
    data, media = runner.data, tmp_path / "media"
    stick = media / "pi" / "STICK"
    plant_links(stick, data, "tabletop-game-1")                 # where exports used to go
    plant_links(stick / "tabletop-exports", data, "tabletop-game-1")   # and where they go now
    before = data_files(data)
    assert set(TARGETS.values()) <= before.keys()
    message = export(runner, media, "STICK")
    assert data_files(data) == before           # the journal's two copies and the key
    folder = stick / "tabletop-exports"
    assert message == f"game 1 written to STICK ({folder})"
    for place in (stick, folder):               # the links are still links, to the same files
        for form, target in TARGETS.items():
            assert os.readlink(place / f"tabletop-game-1.{form}") == str(data / target)
    assert_the_game_is_in(folder, "tabletop-game-1-2", runner)     # beside them, not through them
    assert_chinese(message, "STICK", str(folder))


def test_an_export_folder_that_is_a_link_out_of_the_stick_is_refused(runner, tmp_path):
    data, media = runner.data, tmp_path / "media"
    stick = media / "pi" / "STICK"
    stick.mkdir(parents=True)
    (stick / "tabletop-exports").symlink_to(data)                # into the data folder itself
    plant_links(stick, data, "tabletop-game-1")
    before, listing = data_files(data), sorted(os.listdir(data))
    message = export(runner, media, "STICK")
    assert data_files(data) == before and sorted(os.listdir(data)) == listing
    assert message == (f"the game could not be written to {stick}: tabletop-exports on the stick "
                       "is a link or a file, not a folder; remove it or use another stick")
    assert os.readlink(stick / "tabletop-exports") == str(data)
    assert_chinese(message, str(stick), "tabletop-exports")


def test_what_is_on_the_stick_is_never_overwritten_and_a_second_export_goes_beside(runner, tmp_path):
    media = tmp_path / "media"
    folder = media / "pi" / "STICK" / "tabletop-exports"
    folder.mkdir(parents=True)
    (folder / "tabletop-game-1.csv").write_text("mine\n")        # a file of the same name
    (folder / "tabletop-game-1-2.json").mkdir()                  # a folder where a file goes
    fifo = folder / "tabletop-game-1-3.jsonl"
    os.mkfifo(fifo)                                              # a FIFO: opening it would hang
    assert export(runner, media, "STICK") == f"game 1 written to STICK ({folder})"
    assert (folder / "tabletop-game-1.csv").read_text() == "mine\n"
    assert not (folder / "tabletop-game-1.jsonl").exists()       # the set moves on whole
    assert (folder / "tabletop-game-1-2.json").is_dir() and fifo.is_fifo()
    assert_the_game_is_in(folder, "tabletop-game-1-4", runner)
    first = {form: (folder / f"tabletop-game-1-4.{form}").read_bytes() for form in FORMS}
    assert export(runner, media, "STICK") == f"game 1 written to STICK ({folder})"
    assert {form: (folder / f"tabletop-game-1-4.{form}").read_bytes() for form in FORMS} == first
    assert_the_game_is_in(folder, "tabletop-game-1-5", runner)
    mode = (folder / "tabletop-game-1-5.csv").stat().st_mode & 0o777
    assert mode == 0o644 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_of_several_sticks_one_is_written_and_named(runner, tmp_path):
    media = tmp_path / "media"
    for label in ("BACKUP", "ZEBRA"):
        (media / "pi" / label).mkdir(parents=True)
    message = export(runner, media, "BACKUP", "ZEBRA")
    folder = media / "pi" / "BACKUP" / "tabletop-exports"
    assert message == f"game 1 written to BACKUP ({folder})"
    assert_the_game_is_in(folder, "tabletop-game-1", runner)
    assert os.listdir(media / "pi" / "ZEBRA") == []


def test_a_stick_pulled_out_mid_write_is_said_and_the_journal_untouched(runner, tmp_path, monkeypatch):
    media = tmp_path / "media"
    stick = media / "pi" / "STICK"
    stick.mkdir(parents=True)
    before = data_files(runner.data)
    real_write, writes = os.write, []

    def unplugged(fd: int, data: bytes) -> int:
        # The first file goes out; then the device is gone (what vfat answers: EIO).
        writes.append(fd)
        if len(writes) > 1:
            raise OSError(errno.EIO, "Input/output error")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", unplugged)
    message = export(runner, media, "STICK")
    monkeypatch.undo()
    assert message == (f"the game could not be written to {stick}: the stick was pulled out or "
                       "failed; plug it in and try again")
    assert os.listdir(stick / "tabletop-exports") == []         # no half export left behind
    assert data_files(runner.data) == before
    assert_chinese(message, str(stick))


# --- real file systems: a full stick, a read-only one (tmpfs, mounted for the test) ----------------

def _mount(where: Path, options: str) -> None:
    where.mkdir(parents=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()})")


@pytest.fixture
def mounts():
    made: list[Path] = []

    def mount(where: Path, options: str) -> Path:
        _mount(where, options)
        made.append(where)
        return where

    yield mount
    for where in reversed(made):
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a file system needs root")


@needs_root
def test_a_full_stick_is_said_nothing_half_written_is_left_and_the_journal_untouched(runner, tmp_path,
                                                                                     mounts):
    media = tmp_path / "media"
    stick = mounts(media / "pi" / "FULL", "size=8k")            # room for a file, not for all three
    before = data_files(runner.data)
    message = runner.services.export((str(media),))             # the real mount check
    assert message == (f"the game could not be written to {stick}: the stick is full; make room "
                       "on it or use another stick")
    assert os.listdir(stick / "tabletop-exports") == []
    assert data_files(runner.data) == before
    assert_chinese(message, str(stick))


@needs_root
def test_a_read_only_stick_is_said_or_passed_over_for_a_writable_one(runner, tmp_path, mounts):
    media = tmp_path / "media"
    locked = mounts(media / "pi" / "AAA-LOCKED", "ro,size=1m")
    before = data_files(runner.data)
    message = runner.services.export((str(media),))
    assert message == (f"the game could not be written to {locked}: the stick is read-only or "
                       "locked; unlock it or use another stick")
    assert data_files(runner.data) == before
    assert_chinese(message, str(locked))
    other = mounts(media / "pi" / "ZZZ-OPEN", "size=1m")
    message = runner.services.export((str(media),))
    assert message == f"game 1 written to ZZZ-OPEN ({other / 'tabletop-exports'})"
    assert_the_game_is_in(other / "tabletop-exports", "tabletop-game-1", runner)


#: Finds and writes the stick as the desktop user would: ``usb_stick`` and ``write_to_stick``
#: in a process of its own uid, on the real mount table.
AS_THE_USER = r"""
import json, os, sys
from pathlib import Path
from tabletop.assembly.services import usb_stick, write_to_stick
stick = usb_stick((sys.argv[1],))
folder = None if stick is None else write_to_stick(stick, "tabletop-game-1", {"csv": "game\n"})
print(json.dumps([str(stick), str(folder)]))
"""


def _runs_as(python: str, uid: int) -> bool:
    try:
        return subprocess.run([python, "-c", ""], user=uid, capture_output=True,
                              cwd="/").returncode == 0
    except OSError:
        return False


@pytest.fixture
def open_folder():
    """A folder another user may enter (pytest's own are root's alone)."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="tabletop-media-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@needs_root
def test_a_stick_the_desktop_mounted_for_its_user_is_found_and_written_as_that_user(open_folder,
                                                                                     mounts):
    """Raspberry Pi OS mounts a stick at /media/USER/LABEL, the USER folder root's with an ACL
    for that user alone: a service of another user saw no stick. The app, run as the desktop
    user, finds it there (not another user's, which it cannot enter) and writes it."""
    import pwd
    import shutil
    import sys

    if shutil.which("setfacl") is None:
        pytest.skip("needs setfacl (Debian's acl)")
    user = pwd.getpwnam("nobody")
    python = next((p for p in (sys.executable, "/usr/bin/python3") if _runs_as(p, user.pw_uid)),
                  None)
    if python is None:
        pytest.skip("no Python the user nobody may run")
    media = open_folder / "media"
    for name in ("nobody", "alice"):
        (media / name).mkdir(parents=True)
        os.chmod(media / name, 0o750)
    subprocess.run(["setfacl", "-m", "u:nobody:rx", str(media / "nobody")], check=True)
    stick = mounts(media / "nobody" / "MY STICK", f"size=1m,uid={user.pw_uid},mode=0755")
    mounts(media / "alice" / "AAA", "size=1m")          # first by name, but not the user's
    # The user runs the code from a copy it may read.
    shutil.copytree(Path(__file__).resolve().parents[2] / "tabletop", open_folder / "src" / "tabletop")
    code = f"import sys; sys.path.insert(0, {str(open_folder / 'src')!r})\n" + AS_THE_USER
    done = subprocess.run([python, "-I", "-c", code, str(media)], capture_output=True, text=True,
                          timeout=60, user=user.pw_uid, group=user.pw_gid, extra_groups=[],
                          cwd="/", env={"HOME": str(open_folder), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    found, folder = json.loads(done.stdout)
    assert found == str(stick) and folder == str(stick / "tabletop-exports")
    written = stick / "tabletop-exports" / "tabletop-game-1.csv"
    assert written.read_text() == "game\n" and written.stat().st_uid == user.pw_uid
    # A process that may enter every user's folder looks in its own user's first.
    from tabletop.assembly.services import usb_stick

    assert usb_stick((str(media),), user="nobody") == stick
    assert usb_stick((str(media),), user="alice") == media / "alice" / "AAA"
    # The old way, a service of a user of its own: the desktop user's stick is out of reach.
    other = subprocess.run([python, "-I", "-c", code, str(media)], capture_output=True, text=True,
                           timeout=60, user=user.pw_uid + 1 if user.pw_uid < 65534 else 65533,
                           group=user.pw_gid, extra_groups=[], cwd="/",
                           env={"HOME": str(open_folder), "PATH": "/usr/bin:/bin"})
    assert json.loads(other.stdout) == ["None", "None"], other.stderr
