"""The command line, run as ``python -m tabletop`` in a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import terminal_run

ROOT = Path(__file__).resolve().parents[2]


def environment(**more: str) -> dict[str, str]:
    env = {**os.environ, **more}
    # Works whether or not the package is installed: import it from this checkout.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run(*args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=environment(**env),
                          timeout=120)


# --- rules -------------------------------------------------------------------------

def test_rules_lists_acquire():
    result = run("rules")
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert "acquire" in names


def test_rules_acquire_prints_the_classic_card():
    result = run("rules", "acquire")
    assert result.returncode == 0, result.stderr
    card = result.stdout
    assert "$1,200" in card           # tier 3 at 41+ (RULES.md 1)
    assert "41+" in card
    assert "majority" in card
    assert "minority" in card
    assert "PROVISIONAL" not in card  # classic is not provisional
    # The $1,200 row is tier 3's 41+ with bonuses 12,000 and 6,000 (10x, 5x).
    row = next(line for line in card.splitlines() if "$1,200" in line)
    assert row.split() == ["-", "-", "41+", "$1,200", "$12,000", "$6,000"]
    # The $600 row: tier 1 at 6-10, tier 2 at 5, tier 3 at 4.
    row = next(line for line in card.splitlines() if line.split()[3:4] == ["$600"])
    assert row.split() == ["6-10", "5", "4", "$600", "$6,000", "$3,000"]


def test_rules_acquire_tycoon_card_is_provisional_and_has_the_secondary_column():
    result = run("rules", "acquire", "--mode", "tycoon")
    assert result.returncode == 0, result.stderr
    card = result.stdout
    assert "PROVISIONAL" in card
    assert "secondary" in card
    # RULES.md 1.5: price 1200 -> secondary 8,200; primary 10x, tertiary 5x.
    row = next(line for line in card.splitlines() if "$1,200" in line)
    assert row.split()[-3:] == ["$12,000", "$8,200", "$6,000"]
    row = next(line for line in card.splitlines() if line.split()[3:4] == ["$300"])
    assert row.split()[-3:] == ["$3,000", "$2,200", "$1,500"]


def test_rules_unknown_name_exits_2_with_a_message():
    result = run("rules", "nosuch")
    assert result.returncode == 2
    assert "nosuch" in result.stderr
    assert "acquire" in result.stderr      # says what is available
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


def test_rules_unknown_mode_exits_2_with_a_message():
    result = run("rules", "acquire", "--mode", "mega")
    assert result.returncode == 2
    assert "mega" in result.stderr
    assert "Traceback" not in result.stderr


# --- simulate ------------------------------------------------------------------------

STANDING = re.compile(r"^\s+(\d+)\.\s+(P\d)\s+\$([\d,]+)\s*$")


def standings(stdout: str) -> list[tuple[int, str, int]]:
    rows = []
    for line in stdout.splitlines():
        match = STANDING.match(line)
        if match:
            rows.append((int(match[1]), match[2], int(match[3].replace(",", ""))))
    return rows


def simulate(seed: int = 3) -> subprocess.CompletedProcess:
    return run("simulate", "--rules", "acquire", "--games", "5", "--players", "4",
               "--seed", str(seed))


def test_simulate_prints_speed_and_four_ranked_standings():
    result = simulate()
    assert result.returncode == 0, result.stderr
    assert "games/s" in result.stdout
    assert re.search(r"\b5 games of acquire with 4 players\b", result.stdout)
    rows = standings(result.stdout)
    assert len(rows) == 4, result.stdout
    assert sorted(name for _, name, _ in rows) == ["P1", "P2", "P3", "P4"]
    ranks = [rank for rank, _, _ in rows]
    cash = [amount for _, _, amount in rows]
    assert ranks[0] == 1
    assert cash == sorted(cash, reverse=True)
    # Equal cash shares a rank and the next rank skips (DESIGN.md: 1, 1, 3).
    for position, (rank, _, amount) in enumerate(rows):
        better = sum(1 for other in cash if other > amount)
        assert rank == better + 1, rows
        assert rank <= position + 1


def test_simulate_standings_are_deterministic_for_a_seed():
    first, second = simulate(3), simulate(3)
    assert first.returncode == second.returncode == 0
    assert standings(first.stdout) == standings(second.stdout)
    assert len(standings(first.stdout)) == 4
    # the line naming the last game and its turns is deterministic too
    turns = [line for line in first.stdout.splitlines() if line.startswith("last game")]
    assert turns == [line for line in second.stdout.splitlines() if line.startswith("last game")]
    assert len(turns) == 1 and turns[0].startswith("last game (seed 7), ")


def test_simulate_rejects_zero_games():
    result = run("simulate", "--games", "0")
    assert result.returncode == 2
    assert "--games" in result.stderr


# --- replay ------------------------------------------------------------------------------

SETUP = {"setup": {"rules": "acquire", "players": ["Ann", "Bob", "Cy"],
                   "start_tiles": {"Ann": "5C", "Bob": "9I", "Cy": "1D"}}}


def script(*actions: dict) -> str:
    return "\n".join(json.dumps(line) for line in (SETUP, *actions)) + "\n"


def test_replay_of_a_missing_file_exits_2_with_a_message(tmp_path):
    missing = tmp_path / "no_such_game.jsonl"
    result = run("replay", str(missing))
    assert result.returncode == 2
    assert "no_such_game.jsonl" in result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


def test_replay_reads_a_script_from_stdin():
    # Cy's 1D is closest to 1A, so Cy starts (RULES.md 1); 10A touches no start tile.
    # Play goes down the seating list and wraps: after Cy comes Ann.
    result = run("replay", "-", stdin=script({"do": "place", "tile": "a-10"},
                                             {"do": "buy", "shares": {}}))
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["rules"] == "acquire"
    assert state["board"] == {"1D": None, "5C": None, "9I": None, "10A": None}
    assert state["current"] == "Ann"
    assert state["pending"] == {"kind": "place", "player": "Ann"}
    assert state["chains"] == {}
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob", "Cy"]
    assert all(p["cash"] == 6000 for p in state["players"])
    # 108 tiles - 4 on the board - 3 hands of 6
    assert state["tiles_left"] == 108 - 4 - 18
    assert state["standings"] is None


def test_replay_from_stdin_stops_at_the_first_illegal_line():
    result = run("replay", "-", stdin=script({"do": "place", "tile": "13Z"},
                                             {"do": "buy", "shares": {}}))
    assert result.returncode == 2
    assert result.stderr.startswith("line 2: ")
    assert "13Z" in result.stderr
    assert result.stdout == ""


def test_replay_from_stdin_file_path_gives_the_same_state(tmp_path):
    text = script({"do": "place", "tile": "10A"}, {"do": "buy", "shares": {}})
    path = tmp_path / "game.jsonl"
    path.write_text(text, encoding="utf-8")
    from_file, from_stdin = run("replay", str(path)), run("replay", "-", stdin=text)
    assert from_file.returncode == from_stdin.returncode == 0
    assert json.loads(from_file.stdout) == json.loads(from_stdin.stdout)


@pytest.mark.parametrize("stdin", ["", "\n\n"])
def test_replay_of_an_empty_script_exits_2(stdin):
    result = run("replay", "-", stdin=stdin)
    assert result.returncode == 2
    assert result.stderr.startswith("line 1: ")


def test_replay_reads_a_script_saved_with_a_byte_order_mark_and_crlf(tmp_path):
    script = tmp_path / "bom.jsonl"
    script.write_bytes(b'\xef\xbb\xbf{"setup": {"rules": "acquire", "players": ["A", "B", "C"]}}\r\n'
                       b'{"do": "place", "tile": "6c"}\r\n')
    result = run("replay", str(script))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["board"] == {"6C": None}


def test_replay_refuses_a_file_that_is_not_text(tmp_path):
    script = tmp_path / "bad.jsonl"
    script.write_bytes(b"\xff\xfe\x00garbage")
    result = run("replay", str(script))
    assert result.returncode == 2
    assert "not UTF-8" in result.stderr and "Traceback" not in result.stderr


# --- bad input and Ctrl-C (issue 19) -------------------------------------------------------

def test_rules_refuses_a_mode_without_a_rule_set():
    result = run("rules", "--mode", "tycoon")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("tabletop: --mode needs a rule set: "
                                    "tabletop rules NAME --mode tycoon, NAME one of acquire")
    assert "Traceback" not in result.stderr


def test_slip_without_a_journal_says_so_and_creates_nothing(tmp_path):
    data = tmp_path / "data"
    result = run("slip", "1", TABLETOP_DATA=str(data),
                 TABLETOP_CONFIG=str(tmp_path / "no-config.toml"))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"tabletop: no journal at {data / 'journal.db'}: " \
                            "no game has been recorded there yet; `tabletop run` records the " \
                            "table's games there; another journal is given with --journal DB\n"
    assert not data.exists()          # no data folder, no slip.key in it


def test_the_nightly_check_of_a_table_with_no_game_yet_is_no_failure(tmp_path):
    # The Pi's timer runs `check --if-recorded` from the first night: a new table has no
    # journal, which is nothing to check, not damage; without the flag it is still refused.
    data = tmp_path / "data"
    env = dict(TABLETOP_DATA=str(data), TABLETOP_CONFIG=str(tmp_path / "no-config.toml"))
    nightly = run("check", "--if-recorded", **env)
    assert nightly.returncode == 0 and nightly.stderr == ""
    assert nightly.stdout == f"no journal at {data / 'journal.db'} yet: nothing to check\n"
    assert run("check", **env).returncode == 2
    assert not data.exists()


def on_terminal(*args: str, interrupt_at: bytes | None = None) -> tuple[int, str, bytes]:
    return terminal_run.on_terminal(*args, interrupt_at=interrupt_at, env=environment())


def test_ctrl_c_in_a_long_simulate_says_how_far_it_got_in_one_line_and_exits_130():
    status, stdout, shown = on_terminal("simulate", "--games", "100000",
                                        interrupt_at=b" games/s ")
    text = shown.decode()
    assert status == 130, text
    assert stdout == ""
    finished = re.search(r"tabletop: simulate stopped after ([\d,]+) of 100,000 games in "
                         r"[\d.]+ s \([\d,]+ games/s\)\r?\n$", text)
    assert finished, text
    assert 1 <= int(finished[1].replace(",", "")) < 100000
    assert "Traceback" not in text and "KeyboardInterrupt" not in text


def test_simulate_shows_a_progress_bar_on_a_terminal_and_none_when_piped():
    status, stdout, shown = on_terminal("simulate", "--games", "300", "--seed", "3")
    text = shown.decode()
    assert status == 0, text
    bar = re.search(r"simulate \[#{20}\]  300/300 games  [\d,]+ games/s  0 s left", text)
    assert bar, text
    assert text.endswith("\r\x1b[K")        # erased at the end: the report stands alone
    assert stdout.startswith("300 games of acquire with 4 players in ")
    piped = run("simulate", "--games", "300", "--seed", "3")
    assert piped.returncode == 0 and piped.stderr == ""
    assert "\r" not in piped.stdout and "games/s  " not in piped.stdout
    assert standings(piped.stdout) == standings(stdout)


#: Arguments each command can be parsed with; every command of ``tabletop --help`` is here.
PARSEABLE = {
    "replay": [], "games": [], "check": [], "export": ["1"], "slip": ["1"], "verify": ["s"],
    "key": [], "rules": [], "config": [], "simulate": [], "markers": ["--out", "m.png"],
    "calibrate": ["--image", "e.png", "--corners", "1,1 2,1 2,2 1,2", "--out", "t.json"],
    "recognize": ["--calibration", "t.json", "f.png"], "watch": ["--source", "sim"],
    "vision-report": ["folder"], "demo": [], "run": [], "screenshots": ["--out", "folder"],
    "director": [], "archive": ["--to", "a.jsonl"], "prune": ["--archived", "a.jsonl"],
}


def test_ctrl_c_in_any_command_exits_130_with_one_line(monkeypatch, capsys):
    import argparse

    from tabletop import cli

    def interrupted(args):
        raise KeyboardInterrupt

    parser = cli._parser()
    commands = next(action for action in parser._actions
                    if isinstance(action, argparse._SubParsersAction))
    assert set(commands.choices) == set(PARSEABLE)
    for sub in commands.choices.values():
        sub.set_defaults(run=interrupted)
    monkeypatch.setattr(cli, "_parser", lambda: parser)
    for name, arguments in PARSEABLE.items():
        assert cli.main([name, *arguments]) == 130, name
        out, err = capsys.readouterr()
        assert (out, err) == ("", "tabletop: stopped\n"), name


def test_ctrl_c_while_replay_reads_its_script_exits_130(monkeypatch, capsys):
    from tabletop.cli import main

    class Keyboard:
        class buffer:
            @staticmethod
            def read(size: int) -> bytes:
                raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", Keyboard)
    assert main(["replay", "-"]) == 130
    assert capsys.readouterr() == ("", "tabletop: stopped\n")
