"""Fuzzing the journal's inputs: files given as the journal, and setup lines with recorded rules.

Whatever the bytes, a read command answers with a result or a message (never a
traceback) and leaves every file as it was; a refused setup changes nothing.
"""

from __future__ import annotations

import contextlib
import io
import hashlib
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis_budget import examples

from tabletop.cli import main
from tabletop.engine.random_play import play_random_game
from tabletop.engine.ruleset import load_rules
from tabletop.engine.table_script import game_from_setup
from tabletop.errors import TabletopError
from tabletop.journal.journal import Journal

FUZZ = settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
READS = (["games"], ["export", "1"], ["export", "1", "--format", "csv"], ["replay", "--game", "1"],
         ["check"])


def _journal_bytes() -> tuple[bytes, bytes]:
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "journal.db"
        with Journal.open(db, table_name="fuzz") as journal:
            table = journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}})
            for line in play_random_game("acquire", ["Ann", "Bob"], seed=1).script()[1:12]:
                table.push(line)
        return db.read_bytes(), db.with_suffix(".log").read_bytes()


DB_BYTES, LOG_BYTES = _journal_bytes()


def _state(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def _read_everything(db: bytes, log: bytes | None) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "journal.db").write_bytes(db)
        if log is not None:
            (folder / "journal.log").write_bytes(log)
        before = _state(folder)
        for command in READS:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main([*command, "--journal", str(folder / "journal.db")])
            assert code in (0, 1, 2), (command, code)
            assert code == 0 or err.getvalue() or out.getvalue(), command   # a refusal says why
            assert _state(folder) == before, command


@FUZZ
@given(st.binary(max_size=2048), st.none() | st.binary(max_size=512))
def test_any_bytes_as_the_journal_are_read_or_refused_and_never_changed(db, log):
    _read_everything(db, log)


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(DB_BYTES) - 1), st.integers(1, 255)), max_size=6),
       st.lists(st.tuples(st.integers(0, len(LOG_BYTES) - 1), st.integers(1, 255)), max_size=3),
       st.booleans())
def test_a_damaged_journal_is_read_or_refused_and_never_changed(db_flips, log_flips, torn):
    db, log = bytearray(DB_BYTES), bytearray(LOG_BYTES)
    for at, mask in db_flips:
        db[at] ^= mask
    for at, mask in log_flips:
        log[at] ^= mask
    _read_everything(bytes(db), bytes(log[:len(log) * 2 // 3] if torn else log))


RULES_TEXT = load_rules("acquire").text
texts = st.one_of(st.text(max_size=200), st.just(RULES_TEXT),
                  st.builds(lambda cut, junk: RULES_TEXT[:cut] + junk,
                            st.integers(0, len(RULES_TEXT)), st.text(max_size=20)))
values = st.one_of(st.none(), st.integers(), st.booleans(), st.text(max_size=70), texts,
                   st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5),
                                                                       st.integers(), max_size=2))


@FUZZ
@given(st.one_of(values, texts), st.one_of(values, st.just("digest")), st.sampled_from(
    ["acquire", "custom.toml", "/no/such/rules.toml"]))
def test_setups_with_recorded_rules_start_a_game_or_are_refused_and_change_nothing(
        text, digest, rules):
    if digest == "digest" and isinstance(text, str):
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    setup = {"setup": {"rules": rules, "players": ["Ann", "Bob"], "rules_text": text,
                       "rules_sha256": digest}}
    with tempfile.TemporaryDirectory() as name:
        with Journal.open(Path(name) / "journal.db") as journal:
            try:
                game_from_setup(json.loads(json.dumps(setup)))
            except TabletopError:
                pass
            before = (_state(Path(name)), journal.games())
            try:
                table = journal.start(setup)
            except TabletopError:
                assert (_state(Path(name)), journal.games()) == before
                return
            assert json.loads(table.lines[0])["setup"]["rules_text"] == text
            assert table.game.rules.sha256 == digest
            again = game_from_setup(json.loads(table.lines[0]))
            assert again.rules.text == text and again.setup_json() == table.game.setup_json()
