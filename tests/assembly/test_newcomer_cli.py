"""What a newcomer met on the command line in their first hour, each as they now see it:
every message says what happened and what to do (issue 19's newcomer report)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import terminal_run

from tabletop.cli import main
from tabletop.journal.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
MERGER = ROOT / "examples" / "merger.jsonl"


@pytest.fixture
def data(tmp_path, monkeypatch):
    """An empty data folder and no configuration file, as on a fresh machine."""
    folder = tmp_path / "data"
    monkeypatch.setenv("TABLETOP_DATA", str(folder))
    monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "no-config.toml"))
    return folder


def tabletop(capsys, *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exit:       # argparse: --version, usage errors
        status = exit.code
    out, err = capsys.readouterr()
    return status, out, err


# --- item 2: ./scripts/demo says what it prepares before preparing it ----------------------

def test_the_first_run_says_it_is_preparing_before_it_makes_the_venv(tmp_path):
    """A stand-in python3 logs each call to the file stderr is appended to: the order of the
    lines is the order a person sees them."""
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    log = tmp_path / "seen.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text(f"""#!/bin/bash
case "$*" in
  *ensurepip*) exit 0 ;;
  *version_info*) echo 3.11 ;;
  "-m venv "*) echo "python3 -m venv" >> {log}; mkdir -p "$3/bin"; cp "$0" "$3/bin/python" ;;
  *) exit 0 ;;
esac
""")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.pop("TABLETOP_PYTHON", None)
    done = subprocess.run(["bash", "-c", f'source scripts/venv.sh; ensure_venv vision 2>>{log}'],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = log.read_text().splitlines()
    assert seen[0].startswith("tabletop: preparing ") and "python3 -m venv" in seen[1:], seen


# --- items 7, 8, 22: the journal's commands say where games are and what to do ------------

def test_games_without_the_tables_journal_points_to_the_demos_games(capsys, data):
    data.mkdir()
    Journal.open(data / "demo-journal.db").close()
    status, out, _ = tabletop(capsys, "games")
    demo = data / "demo-journal.db"
    assert status == 0
    assert out.splitlines() == [f"no games recorded yet (no journal at {data / 'journal.db'})",
                                f"the demo's games are in {demo}: tabletop games --journal {demo}"]


def test_slip_without_a_journal_says_how_games_get_recorded(capsys, data):
    status, out, err = tabletop(capsys, "slip", "1")
    assert (status, out) == (2, "")
    assert err.startswith(f"tabletop: no journal at {data / 'journal.db'}: no game has been "
                          f"recorded there yet; ")
    assert "`tabletop run`" in err and "--journal DB" in err
    assert not data.exists()


def test_check_of_one_game_counts_it_in_the_singular(capsys, tmp_path, data):
    db = tmp_path / "one.db"
    with Journal.open(db, table_name="t") as journal:
        journal.start(MERGER.read_text().splitlines()[0])
    status, out, _ = tabletop(capsys, "check", "--journal", str(db))
    assert status == 0
    assert out.startswith(f"{db}: 1 game, 1 record; every checksum holds"), out


def test_verify_without_a_key_says_where_the_key_comes_from(capsys, tmp_path, data):
    slip = tmp_path / "slip.json"
    slip.write_text("{}")
    status, out, err = tabletop(capsys, "verify", str(slip))
    assert (status, out) == (2, "")
    assert err.startswith(f"tabletop: no key at {data / 'slip.key'}: ") and "--key KEYFILE" in err
    status, _, err = tabletop(capsys, "verify", str(slip), "--key", str(tmp_path / "k"))
    assert status == 2 and err.startswith(f"tabletop: no key at {tmp_path / 'k'}: give --key ")


# --- items 18, 19, 20: the command line itself ---------------------------------------------

def test_tabletop_alone_lists_the_commands_and_version_prints_one(capsys):
    status, out, err = tabletop(capsys)
    assert (status, err) == (0, "")
    assert "replay" in out and "demo" in out and "COMMAND --help" in out
    status, out, _ = tabletop(capsys, "--version")
    assert status == 0 and out.startswith("tabletop ") and out.split()[1][0].isdigit()


def test_a_journal_command_starts_without_the_tournament_intake_or_package_metadata():
    """Every command registers them all: what only `director` or `--version` needs is loaded
    when they run (they were a fifth of a command's start)."""
    code = ("import sys\nfrom tabletop.cli import main\ntry:\n    main(['games', '--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in ('tabletop.tournament.intake', 'importlib.metadata', "
            "'tabletop.tournament.standings') if m in sys.modules))")
    started = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
    assert started.stdout.splitlines()[-1] == "[]"


def on_terminal(*args: str) -> tuple[int, str, str]:
    """``tabletop ARGS`` with standard error on a pseudo-terminal, as a person runs it."""
    status, out, shown = terminal_run.on_terminal(*args)
    return status, out, shown.decode().replace("\r\n", "\n")


def test_a_script_that_is_not_json_names_the_file_on_a_terminal(tmp_path):
    script = tmp_path / "notes.txt"
    script.write_text("hello\n")
    status, out, err = on_terminal("replay", str(script))
    lines = err.splitlines()
    assert (status, out) == (2, "")
    assert lines[0].startswith("line 1: not valid JSON") and len(lines) == 2   # kept as it was
    assert lines[1].startswith(f"tabletop: {script}: stopped at its first illegal line")
    assert "table script holds one JSON object a line" in lines[1]


def test_keep_going_counts_the_lines_it_skipped_and_a_pipe_gets_the_errors_alone(capsys,
                                                                                 tmp_path):
    script = tmp_path / "game.jsonl"
    setup, *actions = MERGER.read_text().splitlines()
    script.write_text("\n".join([setup, '{"do": "place", "tile": "13Z"}', *actions]) + "\n")
    status, out, err = on_terminal("replay", "--keep-going", str(script))
    assert status == 2 and json.loads(out)
    assert err.splitlines()[0].startswith("line 2: ")
    assert err.splitlines()[-1].startswith(f"tabletop: {script}: 1 illegal line skipped")
    status, out, piped = tabletop(capsys, "replay", "--keep-going", str(script))
    assert status == 2 and json.loads(out)
    assert piped == err.splitlines()[0] + "\n"      # what programs read is unchanged


@pytest.mark.parametrize("args", [("rules", "acqire"), ("simulate", "--rules", "acqire"),
                                  ("calibrate", "--rules", "acqire", "--image", "x.png",
                                   "--corners", "1,1 2,1 2,2 1,2", "--out", "x.json")])
def test_a_mistyped_rule_set_gets_a_suggestion_everywhere(capsys, args):
    status, out, err = tabletop(capsys, *args)
    assert (status, out) == (2, "")
    assert err.startswith("tabletop: no rule set called 'acqire': did you mean acquire? "
                          "(available: acquire, "), err


def test_calibrate_explains_its_rules_option(capsys):
    status, out, _ = tabletop(capsys, "calibrate", "--help")
    assert status == 0
    assert "--rules RULES the rule set whose board is on the table" in " ".join(out.split())


# --- items 21, 23, 24: vision and configuration messages -----------------------------------

def test_corners_close_together_are_explained_for_the_screen_and_the_command_line(
        capsys, tmp_path):
    import cv2
    import numpy as np

    image = tmp_path / "board.png"
    cv2.imwrite(str(image), np.full((480, 640, 3), 200, np.uint8))
    status, _, err = tabletop(capsys, "calibrate", "--image", str(image), "--corners",
                              "1,1 2,1 2,2 1,2", "--out", str(tmp_path / "c.json"))
    assert status == 2
    assert err == ("tabletop: the corners enclose almost nothing: each must be the centre of "
                   "one of the board's four corner cells, 1A 12A 12I 1I\n")


def test_watch_of_a_folder_of_unreadable_images_says_they_cannot_be_read(capsys, tmp_path):
    from calibration.calibrate import calibrate
    from hardware.camera import open_camera
    from tabletop.assembly.simcamera import register

    register()
    image, corners = open_camera("sim:acquire,seed=1", fps=None).calibration_view()
    calibration = tmp_path / "calibration.json"
    calibrate(image, corners, "acquire").save(calibration)
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "notimg.jpg").write_text("not a picture")
    status, out, err = tabletop(capsys, "watch", "--calibration", str(calibration),
                                "--source", f"dir:{frames}")
    assert (status, out) == (2, "")
    assert err == (f"tabletop: dir:{frames} gave no frames: its one image, notimg.jpg, cannot be "
                   f"read: it is damaged or not a picture; put frames OpenCV can read (.png, "
                   f".jpg) there\n")


def test_a_rule_option_set_in_table_says_where_it_goes(capsys, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('[table]\nbonus_mode = "tykoon"\n')
    monkeypatch.setenv("TABLETOP_CONFIG", str(config))
    status, out, err = tabletop(capsys, "config")
    assert (status, out) == (2, "")
    assert err == (f"tabletop: {config} line 2: [table] bonus_mode: no such key; bonus_mode is a "
                   f"rule option of acquire: set it in [table] options, e.g. "
                   f'options = {{ bonus_mode = "tycoon" }}\n')


# --- items 10, 15, 16: tabletop run ------------------------------------------------------

def _runner(tmp_path, source: str, lines: list[str], on_screen: bool = False, **table: str):
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import Runner

    path = tmp_path / "config.toml"
    seats = "".join(f'{key} = {value}\n' for key, value in table.items())
    path.write_text(f'[table]\n{seats}[camera]\nsource = "{source}"\n[controls]\nkind = "mock"\n'
                    f'[sound]\nkind = "off"\n[backlight]\nkind = "mock"\n'
                    f'[paths]\ndata = "{tmp_path / "data"}"\n')
    return Runner(load_config(path, environ={}), out=lines.append, on_screen=on_screen)


def test_run_names_the_mode_played_not_every_mode_of_the_rule_set(tmp_path):
    lines: list[str] = []
    runner = _runner(tmp_path, "sim:acquire,seed=1", lines, players='["Ann", "Bob", "Cy"]',
                     options='{ bonus_mode = "tycoon", end_size = 30 }')
    runner.close()
    assert "new game of Acquire, Tycoon mode (end_size=30) at table 1: Ann, Bob, Cy" in lines


def test_a_laptop_without_a_webcam_is_told_of_the_simulated_camera_not_of_calibration(tmp_path):
    lines: list[str] = []
    runner = _runner(tmp_path, "usb:/dev/no-such-camera", lines, on_screen=True)
    try:
        runner.camera.open()
        assert runner.camera_off() == "not found"
    finally:
        runner.camera.close()
        runner.close()
    assert not any("calibration" in line for line in lines), lines
    [said] = [line for line in lines if "tapped in" in line]
    assert said.startswith("camera usb:/dev/no-such-camera cannot be opened")
    assert "; retrying" not in said and "camera: camera" not in said
    assert said.endswith("tabletop run --camera sim")


def test_closing_the_window_says_the_game_is_kept_and_how_to_go_on(tmp_path, monkeypatch):
    """The app's own run (Kivy) is stood in for: what is tested is the line after it ends."""
    import tabletop.assembly.runner as runner_module

    (tmp_path / "data").mkdir()
    with Journal.open(tmp_path / "data" / "journal.db", table_name="table 1") as journal:
        journal.start({"setup": {"rules": "acquire", "players": ["Ann", "Bob"],
                                 "start_tiles": {"Ann": "1A", "Bob": "12I"}}})
    lines: list[str] = []
    runner = _runner(tmp_path, "sim:acquire,seed=1", lines)
    assert lines[0] == ("resuming game 1 of table 1 (Acquire, Classic mode; Ann, Bob) after 0 "
                        "confirmed actions")
    monkeypatch.setattr(runner_module, "prepare_window", lambda config: None)
    closed = type("Closed", (), {"exit_code": 0, "run": lambda self: None})()
    monkeypatch.setattr(runner, "make_app", lambda idle=None: closed)
    assert runner.run_app() == 0
    assert lines[-1] == ("stopped: every confirmed action is in the journal; `tabletop run` "
                         "resumes game 1 where it was")
