"""Fuzzing the exports: any player name through the CSV, any stick through "write to USB stick".

* Names: whatever a player types either is refused by the engine (a
  :class:`~tabletop.errors.TabletopError`, its message) or comes out of the CSV,
  read back with the csv module, as a cell no spreadsheet runs, the numbers
  of the game unchanged.
* Sticks: files, folders, FIFOs and links (to the journal, the key, the
  data folder, nowhere) planted where the export writes. Whatever is there,
  the answer is a sentence, the data folder is byte-identical, nothing that
  was on the stick changes, and what is new is the game's three files, whole.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from hypothesis_budget import examples

from tabletop.engine.random_play import play_random_game
from tabletop.engine.table_script import replay
from tabletop.errors import TabletopError
from tabletop.journal.export import CSV_COLUMNS, FORMULA_STARTS, csv_text, export_game, to_csv

SEATS = ["A", "B", "C", "D"]
GAME = [json.dumps(x) for x in play_random_game("acquire", SEATS, seed=3).script()]
PLAIN = list(csv.DictReader(io.StringIO(to_csv(7, GAME))))
NUMBERS = ("game", "seat", "shares", "amount")

# --- names ------------------------------------------------------------------------------------------

#: What a spreadsheet runs, what quotes it, and what a name is made of.
TRICKY = st.sampled_from(list(FORMULA_STARTS) + ["'", '"', ",", " ", "A", "1", "(", "李", "\n", "é"])
NAME = st.text(alphabet=TRICKY | st.characters(codec="utf-8"), min_size=0, max_size=26)


def renamed(lines: list[str], names: dict[str, str]) -> list[str]:
    out = []
    for line in lines:
        entry = json.loads(line)
        if "setup" in entry:
            entry["setup"]["players"] = [names[seat] for seat in entry["setup"]["players"]]
        if "player" in entry:
            entry["player"] = names[entry["player"]]
        out.append(json.dumps(entry, ensure_ascii=False))
    return out


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(NAME, min_size=4, max_size=4))
def test_any_name_is_refused_or_a_cell_no_spreadsheet_runs(typed):
    lines = renamed(GAME, dict(zip(SEATS, typed)))
    try:
        text = to_csv(7, lines)
    except TabletopError as error:
        assert str(error) and "Traceback" not in str(error)
        return
    names = replay(lines).game.names              # as the engine keeps them
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == len(PLAIN) + 1
    for row, plain in zip(rows[1:], PLAIN):
        cells = dict(zip(CSV_COLUMNS, row))
        assert not cells["player"].startswith(FORMULA_STARTS)
        assert cells["player"] in (names[int(plain["seat"]) - 1],
                                   "'" + names[int(plain["seat"]) - 1])
        assert {column: cells[column] for column in NUMBERS} == \
            {column: plain[column] for column in NUMBERS}


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=TRICKY | st.characters(), max_size=12))
def test_a_cell_is_kept_but_for_a_quote_before_a_formula(text):
    cell = csv_text(text)
    assert not cell.startswith(FORMULA_STARTS)
    assert cell == text or (cell == "'" + text and text.startswith(FORMULA_STARTS))


# --- sticks -----------------------------------------------------------------------------------------

#: Where the export writes, or would have once (the stick's top).
PLACES = ["tabletop-exports", "tabletop-game-1.jsonl", "tabletop-game-1.json", "tabletop-game-1.csv"] + \
    [f"tabletop-exports/tabletop-game-1{copy}.{form}" for copy in ("", "-2")
     for form in ("jsonl", "json", "csv")]
KINDS = ["file", "folder", "fifo", "to journal.db", "to journal.log", "to slip.key", "to data",
         "to nowhere"]


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    from assembly.test_run import finished_runner
    from tabletop.journal.slip import table_key

    runner = finished_runner(tmp_path_factory.mktemp("table"))
    table_key(runner.data)
    try:
        yield runner
    finally:
        runner.close()


def plant(stick: Path, place: str, kind: str, data: Path) -> None:
    path = stick / place
    if not path.parent.is_dir() or path.parent.is_symlink():
        return                                  # inside something that is not a folder
    if kind == "file":
        path.write_bytes(b"the player's own " + place.encode())
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        target = kind.removeprefix("to ")
        path.symlink_to(data if target == "data" else data / target)


def seen(top: Path) -> dict[str, tuple]:
    """What is under ``top``, never through a link: kind and bytes, or a link's target."""
    found = {}
    for entry in sorted(os.scandir(top), key=lambda e: e.name):
        name = os.path.relpath(entry.path, top)
        if entry.is_symlink():
            found[name] = ("link", os.readlink(entry.path))
        elif entry.is_dir():
            found[name] = ("folder",)
            found.update({f"{name}/{k}": v for k, v in seen(Path(entry.path)).items()})
        elif entry.is_file():
            found[name] = ("file", Path(entry.path).read_bytes())
        else:
            found[name] = ("other",)
    return found


def data_seen(data: Path) -> dict[str, tuple]:
    return {name: what for name, what in seen(data).items() if not name.endswith("-shm")}


@settings(max_examples=examples(40), deadline=None)
@given(st.dictionaries(st.sampled_from(PLACES), st.sampled_from(KINDS), max_size=6))
def test_any_stick_leaves_the_journal_and_the_stick_as_they_were_but_for_the_game(runner, planted):
    data = runner.data
    media = Path(tempfile.mkdtemp(dir=data.parent))
    stick = media / "pi" / "STICK"
    stick.mkdir(parents=True)
    for place in sorted(planted, key=lambda p: p.count("/")):   # a folder before what is in it
        if "/" in place and not os.path.lexists(stick / "tabletop-exports"):
            plant(stick, "tabletop-exports", "folder", data)
        plant(stick, place, planted[place], data)
    data_before, stick_before = data_seen(data), seen(stick)
    message = runner.services.export((str(media),), mounted=lambda folder: folder.name == "STICK")
    assert data_seen(data) == data_before
    stick_after = seen(stick)
    assert {k: v for k, v in stick_after.items() if k in stick_before} == stick_before
    new = sorted(set(stick_after) - set(stick_before))
    folder = stick / "tabletop-exports"
    if message == f"game 1 written to STICK ({folder})":
        new = [name for name in new if name != "tabletop-exports"]
        assert len(new) == 3, new
        stems = {re.fullmatch(r"tabletop-exports/(tabletop-game-1(?:-\d+)?)\.(jsonl|json|csv)",
                              name).group(1) for name in new}
        [stem] = stems
        for form in ("jsonl", "json", "csv"):
            assert stick_after[f"tabletop-exports/{stem}.{form}"] == \
                ("file", export_game(runner.services.journal, 1, form).encode("utf-8"))
    else:
        assert message == (f"the game could not be written to {stick}: tabletop-exports on the "
                           "stick is a link or a file, not a folder; remove it or use another stick")
        assert planted.get("tabletop-exports", "folder") != "folder" and new == []
