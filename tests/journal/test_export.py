"""Exports of journaled games, through the command line as a user runs it."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from journal_writer import ROOT, intended_lines
from tabletop.engine.actions import parse_action
from tabletop.journal.journal import Journal
from tabletop.engine.table_script import game_from_setup, replay
from tabletop.engine.random_play import play_random_game
from tabletop.engine.state import state_json

MERGER = (ROOT / "examples" / "merger.jsonl").read_text().splitlines()


@pytest.fixture
def env(tmp_path):
    env = dict(os.environ, TABLETOP_DATA=str(tmp_path / "data"),
               TABLETOP_CONFIG=str(tmp_path / "none.toml"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run(env, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


def journaled(db: Path, *scripts: list[str]) -> list:
    with Journal.open(db, table_name="t") as journal:
        states = []
        for lines in scripts:
            table = journal.start(lines[0])
            for line in lines[1:]:
                table.push(line)
            states.append(state_json(table.game))
    return states


def test_jsonl_export_replays_to_the_identical_state(tmp_path, env):
    db = tmp_path / "journal.db"
    lines = intended_lines(12)                      # a whole game, some actions undone
    assert '{"do": "undo"}' in lines
    [expected] = journaled(db, lines)
    for flags in ([], ["--clean"]):
        out = tmp_path / f"game{len(flags)}.jsonl"
        result = run(env, "export", "1", "--journal", db, "--format", "jsonl", "--out", out, *flags)
        assert result.returncode == 0, result.stderr
        exported = out.read_text().splitlines()
        assert ('{"do": "undo"}' in exported) == (not flags)
        assert len(exported) == (len(lines) if not flags else len(lines) - 2 * lines.count('{"do": "undo"}'))
        replayed = run(env, "replay", out)
        assert replayed.returncode == 0, replayed.stderr
        assert json.loads(replayed.stdout) == expected
    from_journal = run(env, "replay", "--journal", db, "--game", "1")
    assert from_journal.returncode == 0, from_journal.stderr
    assert json.loads(from_journal.stdout) == expected


def test_json_export_holds_the_entry_the_actions_and_the_state(tmp_path, env):
    db = tmp_path / "journal.db"
    lines = MERGER + ['{"do": "undo"}', '{"do": "buy", "shares": {"Tower": 1}}']
    [expected] = journaled(db, lines)
    result = run(env, "export", "1", "--journal", db, "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert (document["game"], document["table"], document["rules"]) == (1, "t", "acquire")
    assert document["players"] == ["Ann", "Bob", "Cy"] and document["finished"] is None
    assert document["setup"]["start_tiles"] == {"Ann": "5C", "Bob": "9I", "Cy": "1D"}
    assert [action["seq"] for action in document["actions"]] == list(range(1, len(lines)))
    assert document["actions"][-2]["line"] == {"do": "undo"}
    assert all(action["at"] >= document["started"] for action in document["actions"])
    assert document["state"] == expected


def payout_rows(env, db: Path, game: int) -> list[dict]:
    result = run(env, "export", game, "--journal", db, "--format", "csv")
    assert result.returncode == 0, result.stderr
    return list(csv.DictReader(io.StringIO(result.stdout)))


def cash_from(rows: list[dict], lines: list[str]) -> dict[str, int]:
    """Each player's cash worked out from the CSV payouts and the purchases of a clean replay."""
    final = replay(lines).game
    game = game_from_setup(final.script()[0])
    cash = {name: game.rules.starting_cash for name in game.names}
    for line in final.script()[1:]:
        for event in game.push(parse_action(line)):
            if event["event"] == "bought":
                cash[event["player"]] -= event["cost"]
    for row in rows:
        cash[row["player"]] += int(row["amount"])
    return cash


def test_csv_payouts_account_for_every_dollar_and_skip_undone_ones(tmp_path, env):
    db = tmp_path / "journal.db"
    # The merger is disposed of twice: the first disposal is taken back.
    merger = MERGER[:-2] + ['{"do": "dispose", "player": "Ann", "sell": 4}', '{"do": "undo"}',
                            '{"do": "dispose", "player": "Ann", "sell": 2, "trade": 2}', MERGER[-1]]
    games = [merger, [json.dumps(x) for x in play_random_game("acquire", ["A", "B", "C", "D"], seed=3).script()],
             [json.dumps(x) for x in play_random_game("acquire", ["A", "B"], seed=5).script()]]
    states = journaled(db, *games)
    for number, (lines, state) in enumerate(zip(games, states), start=1):
        rows = payout_rows(env, db, number)
        assert {row["game"] for row in rows} <= {str(number)}
        assert cash_from(rows, lines) == {p["name"]: p["cash"] for p in state["players"]}
        kinds = {row["kind"] for row in rows}
        assert kinds <= {"bonus", "merger_sale", "final_sale", "founder_cash", "trade_in"}
        if number > 1:
            assert {"bonus", "merger_sale", "final_sale"} <= kinds
        assert {row["player"] for row in rows} <= {p["name"] for p in state["players"]}  # no "market"
    sales = [row for row in payout_rows(env, db, 1) if row["kind"] == "merger_sale"]
    assert [(r["player"], r["chain"], r["shares"]) for r in sales] == [("Ann", "Luxor", "2")]


def test_games_lists_the_journal(tmp_path, env):
    db = tmp_path / "journal.db"
    journaled(db, MERGER, [json.dumps(x) for x in play_random_game("acquire", ["A", "B"], seed=5).script()])
    result = run(env, "games", "--journal", db)
    assert result.returncode == 0, result.stderr
    header, first, second = result.stdout.splitlines()
    assert header.split() == ["id", "rules", "players", "turn", "started", "finished"]
    assert first.split()[:5] == ["1", "acquire", "Ann,", "Bob,", "Cy"] and first.endswith("-")
    assert second.split()[:4] == ["2", "acquire", "A,", "B"] and not second.endswith("-")
    data = Path(env["TABLETOP_DATA"])
    journaled(data / "journal.db", MERGER)            # the data folder's journal is the default
    assert run(env, "games").stdout.splitlines()[1].split()[:2] == ["1", "acquire"]


def test_bad_requests_get_a_clear_message(tmp_path, env):
    db = tmp_path / "journal.db"
    result = run(env, "games", "--journal", db)
    assert result.returncode == 0 and "no games recorded yet" in result.stdout
    assert not db.exists()
    result = run(env, "export", "1", "--journal", db)
    assert result.returncode == 2 and "no journal at" in result.stderr
    journaled(db, MERGER)
    result = run(env, "export", "9", "--journal", db)
    assert result.returncode == 2 and result.stderr.strip() == f"tabletop: there is no game 9 in {db}"
    result = run(env, "replay", "--journal", db)
    assert result.returncode == 2 and "--game" in result.stderr
    result = run(env, "export", "1", "--journal", db, "--out", tmp_path / "no" / "such.csv")
    assert result.returncode == 2 and "cannot write" in result.stderr


def renamed(lines: list[str], names: dict[str, str]) -> list[str]:
    """The game of ``lines`` with its players renamed (seats, start tiles, actions)."""
    out = []
    for line in lines:
        entry = json.loads(line)
        setup = entry.get("setup")
        if setup:
            setup["players"] = [names.get(name, name) for name in setup["players"]]
            setup["start_tiles"] = {names.get(k, k): v for k, v in setup.get("start_tiles", {}).items()}
        if "player" in entry:
            entry["player"] = names.get(entry["player"], entry["player"])
        out.append(json.dumps(entry, ensure_ascii=False))
    return out


def test_csv_cells_a_spreadsheet_would_run_are_neutralised_and_numbers_stay_numbers(tmp_path, env):
    db = tmp_path / "journal.db"
    # A link formula (within the names' 24 columns), a function, names that look like numbers,
    # a name that starts with a minus sign.
    names = {"A": '=HYPERLINK("x","click")', "B": "@SUM(A1)", "C": "-300", "D": "+1", "E": "-Ann"}
    game = [json.dumps(x) for x in play_random_game("acquire", list(names), seed=3).script()]
    journaled(db, game, renamed(game, names))
    plain, attacked = payout_rows(env, db, 1), payout_rows(env, db, 2)
    assert len(attacked) == len(plain) > 0
    assert {row["player"] for row in attacked} == {"'" + name for name in names.values()}
    for mine, theirs in zip(plain, attacked):
        assert "'" + names[mine["player"]] == theirs["player"]
        for column in ("seat", "chain", "kind", "shares", "amount"):
            assert theirs[column] == mine[column], column       # numbers as they were
        assert int(theirs["amount"]) > 0 and int(theirs["seat"]) in (1, 2, 3, 4, 5)
    out = tmp_path / "payouts.csv"
    result = run(env, "export", "2", "--journal", db, "--format", "csv", "--out", out)
    assert result.returncode == 0, result.stderr
    with out.open(newline="", encoding="utf-8") as file:
        cells = [cell for row in csv.reader(file) for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "@", "\t", "\r")]
    assert all(cell[:1] != "-" or cell.lstrip("-").isdigit() for cell in cells)   # only numbers


def test_a_carriage_return_in_a_name_cannot_split_a_payout_row(monkeypatch):
    """The engine refuses line breaks in names, but the CSV must not rely on it: a lone \r
    (which csv.writer leaves unquoted with "\n" line ends) ends a row for every reader, and
    the rest of the row became a payout of "game 99"."""
    from tabletop.journal import export

    forged = "Ann\r99"
    monkeypatch.setattr(export, "payouts", lambda lines: [
        export.Payout(forged, 0, "Tower", "bonus", None, 3000),
        export.Payout("Bob", 1, "Tower", "final_sale", 5, -300)])
    text = export.to_csv(7, [])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [list(export.CSV_COLUMNS), ["7", forged, "1", "Tower", "bonus", "", "3000"],
                    ["7", "Bob", "2", "Tower", "final_sale", "5", "-300"]]
    assert text.endswith("\n7,Bob,2,Tower,final_sale,5,-300\n")     # other rows as ever


def test_text_cells_are_quoted_before_a_formula_and_numbers_are_written_as_numbers(monkeypatch):
    """OWASP's rule cell by cell: a text cell starting with = + - @, tab or CR gets a leading ',
    wherever it stands in the row; an int the engine computed (a negative amount included) is a
    number, not a formula, and is written as it is."""
    from tabletop.journal import export

    monkeypatch.setattr(export, "payouts", lambda lines: [
        export.Payout('=HYPERLINK("http://x","click")', 0, "Tower", "bonus", None, 3000),
        export.Payout("-Ann", 1, "-Tower", "final_sale", 5, -300),
        export.Payout("\tTab", 2, "@Luxor", "bonus", None, 0),
        export.Payout("Ann-Marie", 3, "Tower", "trade_in", 2, 400)])
    rows = list(csv.reader(io.StringIO(export.to_csv(7, []), newline="")))
    assert rows[1:] == [
        ["7", '\'=HYPERLINK("http://x","click")', "1", "Tower", "bonus", "", "3000"],
        ["7", "'-Ann", "2", "'-Tower", "final_sale", "5", "-300"],
        ["7", "'\tTab", "3", "'@Luxor", "bonus", "", "0"],
        ["7", "Ann-Marie", "4", "Tower", "trade_in", "2", "400"]]
