"""``tabletop demo`` as a newcomer reads it: the title with the mode, the cash after each
turn (as the journal has it), the board, a summary whose figures add up, and the journal
it names (in the data folder, listed by ``tabletop games``); bad numbers refused at once.

The game runs as the command, in a process of its own, stopped after a few turns
(``--turns``); the refusals run through ``tabletop.cli.main``.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.cli import main
from tabletop.engine.game import Game
from tabletop.engine.random_play import random_action
from tabletop.engine.ruleset import available_rules, load_rules
from tabletop.engine.state import state_json
from tabletop.engine.actions import Found, Place
from tabletop.engine.table_script import decode_line, parse_action, replay
from tabletop.journal.journal import open_for_reading
from tabletop.assembly.demo_view import (
    Style, board_lines, cash_lines, chain_letters, grid_lines, title_lines, wants_colour)

pytest.importorskip("cv2")

from whole_game import WHOLE_ACQUIRE  # noqa: E402

TURNS = 4


def demo_env(tmp_path: Path) -> dict[str, str]:
    """A data folder, no configuration file and a temporary folder of the test's own."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "TABLETOP_DATA": str(tmp_path / "data"),
           "TABLETOP_CONFIG": str(tmp_path / "no-config.toml"), "TMPDIR": str(tmp_path / "tmp"),
           "PYTHONUNBUFFERED": "1"}
    env.pop("NO_COLOR", None)
    return env


#: The tests reading one printed game run in one worker, which plays it once.
ONE_GAME = pytest.mark.xdist_group("demo-output-shown")


@pytest.fixture(scope="module")
def shown(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """A short Tycoon game of three bots, as the command prints it into a pipe."""
    tmp_path = tmp_path_factory.mktemp("demo")
    done = subprocess.run([sys.executable, "-m", "tabletop.cli", "demo", "--headless",
                           "--seed", "1", "--players", "3", "--mode", "tycoon",
                           "--turns", str(TURNS)],
                          capture_output=True, text=True, env=demo_env(tmp_path), timeout=600)
    return done, tmp_path


def printed_journal(out: str) -> tuple[Path, int]:
    game_id = int(re.search(r"^Game (\d+) is kept in the demo journal", out, re.M).group(1))
    path = Path(re.search(r"^Game \d+ is kept in .*:\n  (.+)$", out, re.M).group(1))
    return path, game_id


@ONE_GAME
def test_the_title_says_the_rules_the_mode_the_players_and_the_seed(shown):
    done, _ = shown
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Acquire (the acquire rule set)"     # not every mode it has
    assert lines[1].startswith("  mode: Tycoon (bonuses: primary, secondary, tertiary)")
    assert lines[2] == "  other options: the rule set's defaults"
    assert lines[3] == "  players: 3 bots, Ann, Bob and Cy"
    assert lines[4] == "  seed: 1 (the same seed plays the same game)"
    # Said before the slow part begins, not after it.
    assert lines[5].startswith("Preparing the simulated table")


@ONE_GAME
def test_the_output_is_plain_fits_80_columns_and_drops_the_delay_of_each_line(shown):
    done, _ = shown
    journal, _ = printed_journal(done.stdout)
    assert "\x1b" not in done.stdout               # a pipe: no escape codes
    assert "from the hand leaving" not in done.stdout
    too_wide = [line for line in done.stdout.splitlines()
                if len(line) > 80 and str(journal) not in line]
    assert too_wide == []


@ONE_GAME
def test_each_turns_cash_line_is_the_journals_cash_at_the_end_of_that_turn(shown):
    done, _ = shown
    path, game_id = printed_journal(done.stdout)
    with open_for_reading(path) as journal:
        lines = journal.lines(game_id)
    states = {}                  # turn -> the state once that turn's buy is in
    for end in range(2, len(lines) + 1):
        state = state_json(replay(lines[:end]).game)
        states.setdefault(state["turn"] - 1, state)
    rules = load_rules("acquire")
    assert states[0]["options"]["bonus_mode"] == "tycoon"        # the mode was played
    printed = done.stdout.splitlines()
    cash = [(index, line) for index, line in enumerate(printed) if line.startswith("    cash  ")]
    assert len(cash) == TURNS
    for turn, (index, line) in enumerate(cash, start=1):
        assert printed[index - 1].startswith(f"turn {turn:>3}  ")   # right after its turn
        state = states[turn]
        entries = "  ".join(f"{player['name']} {rules.money(player['cash'])}"
                            for player in state["players"])
        assert line == f"    cash  {entries}  | {state['tiles_left']} tiles left"
    # Somebody bought shares with the cash shown: the line is not the starting cash only.
    assert any(player["cash"] != rules.starting_cash for player in states[TURNS]["players"])


@ONE_GAME
def test_the_summary_adds_up_and_matches_the_journal(shown):
    done, _ = shown
    out = done.stdout
    path, game_id = printed_journal(out)

    def numbers(pattern: str) -> list[int]:
        found = re.search(pattern, out, re.M)
        assert found, pattern
        return [int(value) for value in found.groups()]

    put, draw, play = numbers(r"^  tiles put down: (\d+) = (\d+) for the turn-order draw "
                              r"\+ (\d+) in play$")
    draw_again, draw_seen, draw_tapped = numbers(
        r"^  draw: (\d+) = (\d+) seen together by the camera \+ (\d+) tapped in by hand$")
    play_again, committed, asked = numbers(
        r"^  in play: (\d+) = (\d+) committed by the camera \+ (\d+) asked about and confirmed$")
    tapped, missed, misread, off = numbers(
        r"^ +\+ (\d+) tapped in by hand "
        r"\((\d+) missed, (\d+) misread, (\d+) with the camera off\)$")
    taken_off, back, refused, went, told = numbers(
        r"^  taken off: (\d+) = (\d+) turn-order tiles back in the bag "
        r"\+ (\d+) refused in play\n += (\d+) seen going by the camera \+ (\d+) told by hand$")
    proposals, = numbers(r"^  hand gone -> proposal: median [0-9.]+ s, 95th percentile "
                         r"[0-9.]+ s \((\d+) proposals\)$")
    assert put == draw + play and draw == draw_again and play == play_again
    assert draw == draw_seen + draw_tapped
    assert play == committed + asked + tapped and tapped == missed + misread + off
    assert taken_off == back + refused == went + told
    assert proposals == committed + asked
    # The figures are the game's: a turn-order tile per player, a tile per placement.
    with open_for_reading(path) as journal:
        lines = journal.lines(game_id)
    setup = replay(lines[:1]).game
    placements = sum(1 for line in lines[1:] if '"do": "place"' in line or '"do":"place"' in line)
    assert draw == len(setup.names) == 3
    assert play == placements == TURNS


@ONE_GAME
def test_the_printed_journal_is_in_the_data_folder_and_tabletop_games_lists_it(shown, capsys):
    done, tmp_path = shown
    path, game_id = printed_journal(done.stdout)
    assert path == tmp_path / "data" / "demo-journal.db" and path.is_file()
    assert f"tabletop games --journal {path}" in done.stdout
    assert list((tmp_path / "tmp").iterdir()) == []              # no temporary folder left
    assert not (tmp_path / "data" / "journal.db").exists()      # the table's games untouched
    assert main(["games", "--journal", str(path)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert re.match(rf"^ *{game_id}  acquire  Ann, Bob, Cy +{TURNS + 1} ", listed[1]), listed
    # The game is unfinished (--turns): the command said so, and the journal agrees.
    assert f"Stopped after turn {TURNS} (--turns)" in done.stdout
    assert listed[1].rstrip().endswith("-")


@pytest.mark.parametrize("rules", available_rules())
def test_players_outside_the_rule_sets_range_are_refused_and_nothing_is_written(
        tmp_path, monkeypatch, capsys, rules):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "no-config.toml"))
    ruleset = load_rules(rules)
    for players in (ruleset.max_players + 1, ruleset.min_players - 1):
        assert main(["demo", "--headless", "--rules", rules, "--players", str(players)]) == 2
        error = capsys.readouterr().err
        least, most = ruleset.min_players, ruleset.max_players
        assert error.startswith(f"tabletop: --players must be {least} or more and at most "
                                f"{most}, not {players}: {ruleset.title} seats {least} to "
                                f"{most} players")
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("argv, says", [
    (["--speed", "-1"], "--speed must be 0 or more, not -1: 0 plays as fast as the machine "
                        "goes, 1 at a real table's pace"),
    (["--speed", "nan"], "--speed must be 0 or more, not nan"),
    (["--turns", "0"], "--turns 0: give 1 or more"),
    (["--mode", "tykoon"], ("--mode tykoon: Acquire (Classic and Tycoon modes, two-player "
                            "variant, older edition) is played in classic or tycoon mode")),
    (["--rules", "megacquire-gold", "--mode", "tycoon"],
     "--mode tycoon: MEGAcquire GOLD is played in classic mode"),
])
def test_bad_numbers_and_modes_are_refused_with_what_to_give(tmp_path, monkeypatch, capsys,
                                                             argv, says):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "no-config.toml"))
    assert main(["demo", "--headless", *argv]) == 2
    assert capsys.readouterr().err.startswith(f"tabletop: {says}")
    assert not (tmp_path / "data").exists()


def test_ctrl_c_says_where_the_game_is_kept_without_a_traceback(tmp_path):
    demo = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "demo", "--headless"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=demo_env(tmp_path))
    try:
        for line in demo.stdout:             # read as it prints: stop once play is under way
            if line.startswith("turn   2  "):
                break
        demo.send_signal(signal.SIGINT)
        rest, errors = demo.communicate(timeout=120)
    finally:
        if demo.poll() is None:
            demo.kill()
    # No traceback, and "stopped" said once: the line that says what became of the game.
    assert demo.returncode == 130 and errors == "", errors
    said = re.findall(r".*\bstopped\b.*", rest, re.IGNORECASE)
    assert len(said) == 1, said
    assert re.fullmatch(r"Stopped \(Ctrl-C\) during turn \d+: every confirmed action is in the "
                        r"journal, the game unfinished\.", said[0]), said
    path = tmp_path / "data" / "demo-journal.db"
    assert f"{said[0]}\nGame 1 is kept in the demo journal, apart from the table's games:\n" \
           f"  {path}\n" in rest
    with open_for_reading(path) as journal:
        assert journal.games()[0].actions >= 2


def test_ctrl_c_before_the_game_began_says_so_once(tmp_path, monkeypatch, capsys):
    from tabletop.assembly import demo

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setattr(demo, "Demo", interrupted)
    assert main(["demo", "--headless"]) == 130
    assert capsys.readouterr() == (
        "Stopped (Ctrl-C) before the game began: nothing was recorded.\n", "")


UNFINISHED = "every confirmed action is in the journal, the game unfinished."


def test_ctrl_c_after_turns_stopped_the_game_says_so_not_during_a_turn(tmp_path):
    """Ctrl-C while the board after the last turn ``--turns`` asked for is printed: no turn
    is under way; the game is unfinished and where it is kept follows."""
    from tabletop.assembly.demo import run

    lines: list[str] = []

    def out(line: str) -> None:
        lines.append(line)
        if line.startswith("Stopped after turn 1 (--turns)"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run("acquire", seed=1, players=3, journal=tmp_path / "journal.db", out=out, turns=1)
    said = lines.index(f"Stopped (Ctrl-C) after turn 1 (--turns): {UNFINISHED}")
    assert lines[said + 1:said + 3] == ["Game 1 is kept in the journal:",
                                        f"  {tmp_path / 'journal.db'}"]
    assert [line for line in lines if "Ctrl-C" in line] == [lines[said]]


@WHOLE_ACQUIRE
def test_ctrl_c_after_the_game_ended_says_it_ended(whole_acquire_game, monkeypatch):
    """Ctrl-C during the final standings or the summary: the game is over and whole in the
    journal, and the line says so; in the window left open on the game's end, where it is
    kept was printed already and is not printed again."""
    played = whole_acquire_game
    lines: list[str] = []
    monkeypatch.setattr(played.demo, "out", lines.append)
    ended = "Stopped (Ctrl-C) after the game ended: every confirmed action is in the journal."
    played.demo.where(stopped=True)             # the whole game printed, the window open
    assert lines == [ended]
    lines.clear()
    monkeypatch.setattr(played.demo, "_kept_said", False)     # in the standings, say
    played.demo.where(stopped=True)
    assert lines[:3] == [ended, f"Game {played.game_id} is kept in the journal:",
                         f"  {played.journal}"]


class _Window:
    """The touchscreen app as the window demo uses it: a tick a step of the bots' driver,
    until ``stop(demo)`` is true (or the driver has ended), then a Ctrl-C."""

    def __init__(self, stop) -> None:
        self.stop = stop

    def __call__(self, loop, driver, fps):
        self.demo, self.driver = loop.observers[-1], driver
        return self

    def run(self) -> None:
        for _ in self.driver:
            if self.stop(self.demo):
                break
        raise KeyboardInterrupt


@pytest.mark.parametrize("argv, stop, says", [
    ([], lambda demo: demo.assistant is not None and demo.assistant.game.turn >= 2,
     f"Stopped (Ctrl-C) during turn 2: {UNFINISHED}"),
    (["--turns", "1"], lambda demo: False,      # the game stopped, the window left open
     f"Stopped (Ctrl-C) after turn 1 (--turns): {UNFINISHED}"),
], ids=["during a turn", "after --turns"])
def test_ctrl_c_in_the_window_demo_says_what_the_headless_one_says(
        tmp_path, monkeypatch, capsys, argv, stop, says):
    import types

    from tabletop.assembly import runner, table_commands

    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setattr(table_commands, "_display", lambda: True)
    monkeypatch.setattr(runner, "prepare_window", lambda config: None)
    monkeypatch.setitem(sys.modules, "ui.app", types.SimpleNamespace(TableApp=_Window(stop)))
    assert main(["demo", "--seed", "1", "--players", "3", *argv]) == 130
    out, errors = capsys.readouterr()
    assert errors == ""                      # no "tabletop: stopped" after it
    said = [line for line in out.splitlines() if "stopped" in line.lower()]
    assert said[-1] == says and len([line for line in said if "Ctrl-C" in line]) == 1
    assert f"Game 1 is kept in the demo journal, apart from the table's games:\n" \
           f"  {tmp_path / 'data' / 'demo-journal.db'}\n" in out
    assert out.count("is kept in the demo journal") == 1


def test_ctrl_c_before_the_window_demo_began_says_so_once(tmp_path, monkeypatch, capsys):
    from tabletop.assembly import runner, table_commands

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setattr(table_commands, "_display", lambda: True)
    monkeypatch.setattr(runner, "prepare_window", interrupted)
    assert main(["demo"]) == 130
    assert capsys.readouterr() == (
        "Stopped (Ctrl-C) before the game began: nothing was recorded.\n", "")
    assert not (tmp_path / "data").exists()


# --- the board and the colours, without a camera ---------------------------------------------


def played(rules: str, turns: int, players: int = 6) -> Game:
    game = Game(rules, ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"][:players], None, seed=3)
    rng = random.Random(3)
    while game.pending is not None and game.turn <= turns:
        game.push(random_action(game, rng))
    return game


@pytest.mark.parametrize("rules", available_rules())
def test_the_board_shows_every_cell_as_the_game_has_it_and_fits_80_columns(rules):
    game = played(rules, 45)
    grid = grid_lines(game, Style())
    digits = set("0123456789 ")
    body = [line[2:] for line in grid if line and not set(line) <= digits]   # no row letter
    cells = game.board.cells
    assert len(body) == game.geometry.rows
    assert sum(line.count(".") for line in body) == cells.count(-1)
    assert sum(line.count("o") for line in body) == cells.count(-2) > 0
    letters = chain_letters([chain.name for chain in game.rules.chains])
    assert sum(1 for size in game.board.sizes if size) >= 2
    for chain, size in enumerate(game.board.sizes):
        assert sum(line.count(letters[chain]) for line in body) == size
    shown = board_lines(game, Style(), "board after turn 45") + cash_lines(game)
    assert all(len(line) <= 80 for line in shown), [line for line in shown if len(line) > 80]
    for name, cash in zip(game.names, game.cash):       # beside the board: cash and shares
        assert any(re.search(rf"\b{name} +{re.escape(game.rules.money(cash))}  ", line)
                   for line in shown)


def test_colour_only_on_a_terminal_and_never_with_no_color(tmp_path):
    class Terminal:
        def isatty(self) -> bool:
            return True

    with open(tmp_path / "out.txt", "w") as pipe_like:
        assert not wants_colour(pipe_like, {"TERM": "xterm"})
    assert wants_colour(Terminal(), {"TERM": "xterm"})
    assert not wants_colour(Terminal(), {"TERM": "xterm", "NO_COLOR": "1"})
    assert not wants_colour(Terminal(), {"TERM": "dumb"})
    game = played("acquire", 20)
    coloured = "\n".join(board_lines(game, Style(colour=True), "board"))
    plain = "\n".join(board_lines(game, Style(), "board"))
    assert "\x1b[" in coloured and "\x1b" not in plain
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


def test_the_title_names_the_mode_played_of_every_rule_set():
    for rules in available_rules():
        ruleset = load_rules(rules)
        for mode in ruleset.options["bonus_mode"].choices:
            lines = title_lines(ruleset, ruleset.resolve_options({"bonus_mode": mode}),
                                ["Ann", "Bob"], 9)
            assert lines[0] == f"{ruleset.title.partition(' (')[0]} (the {ruleset.name} rule set)"
            assert lines[1].startswith(f"  mode: {mode.capitalize()} (bonuses: "
                                       f"{', '.join(ruleset.bonus_mode(mode).names)})")
            assert lines[3:] == ["  players: 2 bots, Ann and Bob",
                                 "  seed: 9 (the same seed plays the same game)"]


# --- a whole game: what each action did, the final standings, shares worth nothing ------------

#: The tests reading the whole game (tests/assembly/conftest.py's, also read by test_demo.py)
#: run in one worker, which plays it once.
WHOLE_GAME = WHOLE_ACQUIRE


@pytest.fixture
def finished(whole_acquire_game) -> tuple[str, Path, int]:
    """A whole game of four bots (seed 0: mergers whose shares are kept to the end), as the
    demo prints it into a pipe, and its journal."""
    played = whole_acquire_game
    assert f"Game {played.game_id} is kept in the journal:" in played.out
    return played.out, played.journal, played.game_id


def journal_game(path: Path, game_id: int) -> tuple[Game, dict[str, str], dict]:
    """The journal's game replayed action by action: the final game; what each tile placed
    did by the board once it was in (the line a reader should get: a merger's, its end);
    and the payout, as ``{name: [cash before it, bonuses, sales]}``."""
    with open_for_reading(path) as journal:
        lines = journal.lines(game_id)
    game = replay(lines[:1]).game
    names = [chain.name for chain in game.rules.chains]
    said: dict[str, str] = {}
    tile, merging, payout = "", False, {}
    for text in lines[1:]:
        action, cash = parse_action(decode_line(text)), dict(zip(game.names, game.cash))
        events = game.push(action)
        sizes = game.board.sizes
        if isinstance(action, Place):
            tile = game.geometry.labels[game.geometry.parse(action.tile)]
            owner = game.board.cells[game.geometry.parse(tile)]
            said[tile] = f"{tile}: grows {names[owner]} to {sizes[owner]} tiles" \
                if owner >= 0 else f"{tile}: a lone tile"
            merging = game.merger is not None
        elif isinstance(action, Found):
            said[tile] = f"{tile}: founds {action.chain} ({sizes[names.index(action.chain)]} tiles)"
        if merging and game.merger is None:
            owner = game.board.cells[game.geometry.parse(tile)]
            said[tile] = f"into {names[owner]}, which grows to {sizes[owner]} tiles"
            merging = False
        if any(event["event"] == "game_over" for event in events):
            payout = {name: [cash[name], 0, 0] for name in game.names}
            for event in events:
                if event["event"] == "bought":
                    payout[event["player"]][0] -= event["cost"]
                elif event["event"] == "bonus":
                    payout[event["player"]][1] += event["amount"]
                elif event["event"] == "sold":
                    payout[event["player"]][2] += event["cash"]
    return game, said, payout


@WHOLE_GAME
def test_each_placement_says_what_it_did_with_the_size_the_board_then_has(finished):
    out, path, game_id = finished
    printed = {}
    for line in out.splitlines():
        found = re.match(r"^turn +\d+  \w+: (\d+[A-I]): (.*)$", line)
        if found:
            printed[found.group(1)] = f"{found.group(1)}: {found.group(2)}"
    _, expected, _ = journal_game(path, game_id)
    assert set(printed) == set(expected)
    for tile, line in expected.items():
        if line.startswith("into "):          # a merger: the survivor once it is over
            assert printed[tile].startswith(f"{tile}: merges ") and \
                printed[tile].endswith(line), (printed[tile], line)
        else:
            assert printed[tile] == line
    assert any(" founds " in line for line in expected.values())
    assert any(line.startswith("into ") for line in expected.values())
    # A founding is one line naming the chain; a holder keeping every share takes none.
    assert "founds a chain" not in out and "keep all" not in out and "so far" not in out


def books(board: list[str], name: str) -> list[str]:
    """A player's shares as printed beside the board, a wrapped line joined to its first."""
    column = next(line.index("cash and shares") for line in board if "cash and shares" in line)
    beside = [line[column:] for line in board]
    start = next(i for i, line in enumerate(beside) if re.match(rf"{name} +\S+  ", line))
    entries = re.match(rf"{name} +\S+  (.*)$", beside[start]).group(1).split("  ")
    for line in beside[start + 1:]:
        if not line.startswith(" "):
            break
        entries += line.strip().split("  ")
    return [entry.strip() for entry in entries if entry.strip() not in ("", "-")]


@WHOLE_GAME
def test_shares_of_chains_merged_away_are_marked_and_said_to_be_worth_nothing(finished):
    out, path, game_id = finished
    game, _, _ = journal_game(path, game_id)
    names = [chain.name for chain in game.rules.chains]
    letters = dict(zip(names, chain_letters(names)))
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("final board: "))
    board = lines[start + 1:lines.index("", start)]
    worthless = lines.index("Worth nothing: the shares of chains merged away, still held at "
                            "the end:")
    held = {player["name"]: player["shares"] for player in state_json(game)["players"]}
    assert any(held.values())                 # the seed keeps such shares to the end
    for name, shares in held.items():
        # At the end only shares of chains merged away are left: marked so beside the board,
        # each chain listed as merged away, and said to be worth nothing.
        assert books(board, name) == [f"{letters[chain]}{shares[chain]} (merged)"
                                      for chain in names if chain in shares]
        for chain in shares:
            assert not game.board.sizes[names.index(chain)]
            assert any(re.search(rf"{letters[chain]} {chain} +merged away$", line)
                       for line in board), chain
        listed = ", ".join(f"{shares[chain]} {chain}" for chain in names if chain in shares)
        assert (f"  {name}: {listed}" in lines[worthless + 1:worthless + 1 + len(held)]) == \
            bool(shares)


@WHOLE_GAME
def test_the_final_standings_show_how_each_total_adds_up_as_the_journal_has_it(finished):
    out, path, game_id = finished
    game, _, payout = journal_game(path, game_id)
    money = game.rules.money
    lines = out.splitlines()
    shown = lines[lines.index("Final standings:") + 1:][:len(game.names)]
    for line, standing in zip(shown, state_json(game)["standings"]):
        cash, bonuses, sales = payout[standing["name"]]
        assert cash + bonuses + sales == standing["cash"]
        assert re.fullmatch(
            rf"  {standing['rank']}\. {standing['name']} +{re.escape(money(standing['cash']))}"
            rf" = +{re.escape(money(cash))} cash \+ +{re.escape(money(bonuses))} bonuses \+ +"
            rf"{re.escape(money(sales))} shares sold", line), line
    assert any(bonuses for _, bonuses, _ in payout.values())
