"""Attacks on the command line found after the first hardening, performed for real: `--out`
pointed at the table's own files, a link or a FIFO; a script or a configuration that is a
FIFO or /dev/zero; a rule file whose text holds Unicode line separators; junk after a
slip's QR text."""

from __future__ import annotations

import json
import os

import pytest

from journal.test_attacks_journal import (env, finished_script, make_key, record,  # noqa: F401
                                          run, snapshot)
from tabletop.engine.ruleset import load_rules


@pytest.fixture
def table(tmp_path):
    """A finished game in the data folder's journal, and the table's key."""
    data = tmp_path / "data"
    record(data / "journal.db", finished_script("acquire"))
    key = make_key(data)
    return data, key


@pytest.mark.parametrize("target", ["journal.db", "journal.log", "slip.key"])
def test_out_never_overwrites_the_journal_or_the_key(tmp_path, env, table, target):
    data, key = table
    before = snapshot(data)
    for command in (["export", "1"], ["slip", "1"]):
        done = run(env, *command, "--out", data / target)
        assert done.returncode == 2 and "one of the table's own files" in done.stderr
    hard = tmp_path / "innocent.txt"          # a hard link under another name is the same file
    os.link(data / target, hard)
    done = run(env, "export", "1", "--out", hard)
    # Refused either way: the journal will not read a file with two names, and --out will
    # not write over the table's own files.
    assert done.returncode == 2 and "nothing was" in done.stderr
    hard.unlink()
    assert snapshot(data) == before
    assert run(env, "games").returncode == 0


def test_out_follows_no_link_and_opens_no_fifo(tmp_path, env, table):
    victim, link, fifo = tmp_path / "victim.txt", tmp_path / "game.jsonl", tmp_path / "pipe"
    victim.write_text("keep me")
    link.symlink_to(victim)
    os.mkfifo(fifo)
    for out, said in ((link, "symbolic link"), (fifo, "not a regular file")):
        done = run(env, "export", "1", "--out", out, timeout=20)
        assert done.returncode == 2 and said in done.stderr
    assert victim.read_text() == "keep me"
    fresh = tmp_path / "fresh.jsonl"
    assert run(env, "export", "1", "--out", fresh).returncode == 0
    assert run(env, "replay", fresh).returncode == 0


def test_replay_reads_no_fifo_and_no_endless_device(tmp_path, env):
    fifo = tmp_path / "script"
    os.mkfifo(fifo)
    for source in (fifo, "/dev/zero"):
        done = run(env, "replay", source, timeout=20)
        assert done.returncode == 2 and "not a regular file" in done.stderr


def test_a_configuration_that_is_not_a_file_is_refused_not_ignored(tmp_path, env):
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    done = run({**env, "TABLETOP_CONFIG": str(fifo)}, "config", timeout=20)
    assert done.returncode == 2 and "not a configuration file" in done.stderr


def test_a_rule_file_with_unicode_line_separators_exports_and_replays(tmp_path, env):
    rules = tmp_path / "odd.toml"
    rules.write_text("# house rules\u2028by Ann\x85and Bob\n" + load_rules("acquire").text,
                     encoding="utf-8")
    db = tmp_path / "data" / "journal.db"
    record(db, finished_script(str(rules)))
    exported = tmp_path / "game.jsonl"
    assert run(env, "export", "1", "--out", exported).returncode == 0
    state = run(env, "replay", "--game", "1")
    replayed = run(env, "replay", exported)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == json.loads(state.stdout)


def test_junk_after_a_slip_s_qr_text_is_refused(tmp_path, env, table):
    from tabletop.journal.slip import qr_payload

    data, key = table
    slip = json.loads(run(env, "slip", "1", "--key", key).stdout)
    scanned = tmp_path / "scanned.txt"
    scanned.write_text(qr_payload(slip))
    assert run(env, "verify", scanned, "--key", key).returncode == 0
    import base64
    import zlib

    packed = base64.urlsafe_b64decode(qr_payload(slip)[len("TTSLIP1:"):] + "==")
    junk = base64.urlsafe_b64encode(packed + b"extra bytes").decode().rstrip("=")
    scanned.write_text("TTSLIP1:" + junk)
    done = run(env, "verify", scanned, "--key", key)
    assert done.returncode == 2 and "damaged" in done.stderr
    assert zlib  # the payload is raw deflate: bytes after its end were read as nothing
