"""``tabletop run`` and ``tabletop demo`` on the command line: configuration faults named with
their reason, nothing started; a new game set up from the configured seats.

(A whole run, killed and resumed, is in test_demo.py.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tabletop.assembly.config import ConfigError, load_config


def tabletop(*args, env=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "tabletop.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


@pytest.fixture
def config(tmp_path):
    """Write a configuration file (the data folder in tmp_path); returns the environment."""
    def write(text: str = "") -> dict[str, str]:
        path = tmp_path / "config.toml"
        path.write_text(text + f'\n[paths]\ndata = "{tmp_path / "data"}"\n')
        return {"TABLETOP_CONFIG": str(path), "TABLETOP_CAMERA": "", "TABLETOP_CONTROLS": ""}
    return write


@pytest.mark.parametrize("text, named", [
    ('[screen]\nlanguage = "fr"', 'line 2: [screen] language = "fr": must be one of en, zh-TW, de'),
    ('[table]\nrules = "monopoly"', 'line 2: [table] rules = "monopoly": no such rule set'),
    ('[controls]\nkind = "joystick"', 'line 2: [controls] kind = "joystick": must be one of'),
    ('[camera]\nfps = 0', "line 2: [camera] fps = 0: must be more than 0"),
    ('[table]\nplayers = ["Ann", "Ann"]', 'line 2: [table] players = ["Ann", "Ann"]: the seats must be'),
])
def test_a_bad_value_is_named_with_the_reason_and_nothing_starts(tmp_path, config, text, named):
    result = tabletop("run", "--headless", env=config(text))
    assert result.returncode == 2 and named in result.stderr, result.stderr
    assert not (tmp_path / "data" / "journal.db").exists()
    shown = tabletop("config", env=config(text))
    assert shown.returncode == 2 and named in shown.stderr


def test_a_value_set_in_the_environment_is_named_as_coming_from_there(tmp_path):
    with pytest.raises(ConfigError, match=r"^environment TABLETOP_CONTROLS=wii: must be one of auto"):
        load_config(tmp_path / "none.toml", environ={"TABLETOP_CONTROLS": "wii"})


def test_an_unknown_camera_source_is_named(config):
    result = tabletop("run", "--headless", "--players", "Ann,Bob",
                      env=config('[camera]\nsource = "webcam:1"'))
    assert result.returncode == 2
    assert '[camera] source = "webcam:1": no such camera source' in result.stderr


def test_a_camera_without_calibration_says_how_to_make_one(tmp_path, config):
    frames = tmp_path / "frames"
    frames.mkdir()
    result = tabletop("run", "--headless", "--players", "Ann,Bob",
                      env=config(f'[camera]\nsource = "dir:{frames}"\n[controls]\nkind = "mock"'))
    assert result.returncode == 2
    assert f"no calibration at {tmp_path / 'data' / 'calibration.json'}" in result.stderr
    assert "tabletop calibrate" in result.stderr


def test_headless_a_table_without_a_camera_is_told_it_needs_the_touchscreen(config):
    result = tabletop("run", "--headless", "--players", "Ann,Bob",
                      env=config('[camera]\nsource = "off"\n[controls]\nkind = "mock"'))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "camera.source = 'off': without a camera the tiles are tapped in on the " \
           "touchscreen" in result.stderr


def test_with_the_touchscreen_a_table_without_camera_or_calibration_opens_anyway(tmp_path):
    """No calibration: no eyes yet (the screen calibrates); no camera: none, said why."""
    from tabletop.assembly.runner import Runner

    frames = tmp_path / "frames"
    frames.mkdir()
    lines = []
    for source, camera, reason in ((f"dir:{frames}", True, ""), ("off", False, "none configured"),
                                   ("usb:/dev/no-such-camera", True, "not found")):
        path = tmp_path / "config.toml"
        path.write_text(f'[camera]\nsource = "{source}"\n[controls]\nkind = "mock"\n'
                        f'[paths]\ndata = "{tmp_path / "data"}"\n')
        runner = Runner(load_config(path, environ={}), out=lines.append, on_screen=True)
        try:
            assert (runner.camera is not None) == camera and runner.loop.eyes is None
            assert runner.loop.desk is None                 # set up on the screen
            if runner.camera is not None:
                runner.camera.open()
            off = runner.camera_off()
            assert off == reason and (not off or off.template == reason), source
        finally:
            if runner.camera is not None:
                runner.camera.close()
            runner.close()
    # Said for the camera that opened; the one not found has nothing to calibrate yet.
    assert lines.count(f"no calibration at {tmp_path / 'data' / 'calibration.json'}: calibrate "
                       f"the camera on the touchscreen") == 1
    assert "camera: none configured: tiles are tapped in on the screen" in lines
    assert "camera usb:/dev/no-such-camera cannot be opened (unplugged?): tiles are tapped " \
           "in on the screen while it is tried again; to try the whole table without one: " \
           "tabletop run --camera sim" in lines, lines


def test_a_new_game_needs_its_seats(config):
    result = tabletop("run", "--headless", env=config('[camera]\nsource = "sim:acquire,seed=1"\n'
                                        '[controls]\nkind = "mock"'))
    assert result.returncode == 2 and "needs 2 or more players: give --players" in result.stderr


def _run_until_the_draw(env: dict, *args: str, seconds: float = 90, headless: bool = True):
    """`tabletop run --headless ARGS` until the turn-order draw is on the screen, then Ctrl-C:
    the process, every line it printed, and its standard error."""
    command = [sys.executable, "-m", "tabletop.cli", "run", *(["--headless"] * headless), *args]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, **env, "PYTHONUNBUFFERED": "1"})
    lines = []
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            line = run.stdout.readline()
            lines.append(line.rstrip("\n"))
            if not line or "of 3 seen" in line:
                break
        run.send_signal(signal.SIGINT)
        rest, errors = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
    lines += rest.splitlines()
    return run, lines, errors


def test_run_with_no_display_says_why_it_prints_the_screen_instead(config):
    env = config('[table]\nplayers = ["Ann", "Bob", "Cy"]\n'
                 '[camera]\nsource = "sim:acquire,seed=1,placements=2"\n[controls]\nkind = "mock"')
    env = {**env, "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    run, lines, errors = _run_until_the_draw(env, headless=False)
    assert run.returncode == 0, errors
    assert "tabletop: no display (neither DISPLAY nor WAYLAND_DISPLAY is set) to open the app " \
           "on: what the screen would show is printed here instead" in errors
    assert any("0 of 3 seen" in line for line in lines)


def test_run_sets_up_a_new_game_from_the_configured_seats_and_stops_cleanly(tmp_path, config):
    env = config('[table]\nplayers = ["Ann", "Bob", "Cy"]\n'
                 '[camera]\nsource = "sim:acquire,seed=1,placements=2"\n[controls]\nkind = "mock"')
    run, lines, errors = _run_until_the_draw(env)
    assert run.returncode == 0, errors
    assert lines[0].startswith("new game of Acquire") and lines[0].endswith("Ann, Bob, Cy")
    assert "screen: Each player draws a tile and places it: 0 of 3 seen  " \
           "[waiting for the turn-order tiles]" in lines
    assert lines[0] == "new game of Acquire, Classic mode at table 1: Ann, Bob, Cy"
    assert lines[-1] == "stopped before a game started: nothing was recorded"


@pytest.mark.parametrize("args, message", [
    (["--speed", "-1"], "--speed must be 0 or more"),
    (["--players", "1"], "--players must be 2 or more"),
])
def test_demo_refuses_bad_arguments(args, message):
    result = tabletop("demo", *args)
    assert result.returncode == 2 and message in result.stderr


def resumed_runner(tmp_path, setup, printer_url="", out=lambda line: None):
    """A Runner (simulated camera, mock buttons) resuming a game of ``setup`` at table 1."""
    from tabletop.journal.journal import Journal
    from tabletop.assembly.runner import Runner

    data = tmp_path / "data"
    data.mkdir()
    with Journal.open(data / "journal.db", table_name="table 1") as journal:
        journal.start({"setup": setup})
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[printer]\nurl = "{printer_url}"\n[paths]\ndata = "{data}"\n')
    return Runner(load_config(path, environ={}), out=out)


def test_the_light_blinks_for_a_proposal_beeps_for_a_refused_tile_and_goes_off_on_a_fault(tmp_path):
    lines: list[str] = []
    runner = resumed_runner(tmp_path, {"rules": "acquire", "players": ["Ann", "Bob"],
                                       "start_tiles": {"Ann": "1A", "Bob": "12I"}}, out=lines.append)
    try:
        assert lines[0] == ("resuming game 1 of table 1 (Acquire, Classic mode; Ann, Bob) "
                            "after 0 confirmed actions")
        desk, controls = runner.loop.desk, runner.controls
        runner.loop.tick(step=False)
        assert controls.light == "ready" and controls.last_beep is None
        desk.tile_seen("6C")
        runner.loop.tick(step=False)
        assert controls.light == "waiting" and controls.last_beep == "tile_seen"
        desk.press("confirm")
        desk.tile_seen("7D")                       # while the table is asked to buy
        runner.loop.tick(step=False)
        assert controls.light == "waiting" and controls.last_beep == "error"
        desk.camera_lost("unplugged")
        runner.loop.tick(step=False)
        assert controls.light == "fault"
        assert "confirmed: Ann: 6C: a lone tile" in lines
    finally:
        runner.close()


# --- the results screen's services: the slip, the USB stick ------------------------------------

def _fake_printer():
    """The device end of a real pseudo-terminal (tests/hardware/test_printer.py's FakePrinter)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "hardware" / "test_printer.py"
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))         # its serial_helpers
    spec = importlib.util.spec_from_file_location("printer_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FakePrinter()


def finished_runner(tmp_path, printer_url=""):
    """A Runner whose table played a whole bot game to its end (a real journal)."""
    from tabletop.table.bot import Bot

    runner = resumed_runner(tmp_path, {"rules": "acquire", "players": ["Ann", "Bob"], "seed": 4},
                            printer_url)
    assistant = runner.loop.desk
    bot = Bot(assistant, seed=4)
    while assistant.game.pending is not None:
        bot.act()
    return runner


def test_the_score_slip_of_a_finished_game_prints_on_the_receipt_printer(tmp_path):
    device = _fake_printer()
    runner = finished_runner(tmp_path, device.url)
    try:
        assert runner.services.print_slip() == "printing the score slip"
        assert runner.services.last_job.wait(5)
        game = runner.loop.desk.game
        winner = game.names[game.standings[0][0]]
        deadline = time.monotonic() + 5
        while winner.encode() not in device.data() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert winner.encode() in device.data()
        assert runner.services.printer_status().state == "ready"
    finally:
        runner.close()
        device.close()


def test_a_slip_printed_while_the_clock_is_unsynchronised_says_so_signed(tmp_path):
    """A Pi 4 has no real-time clock: booted with no network, its times may be days off. The
    printed slip says the clock is not synchronised, in a signed field of its QR code."""
    from tabletop.journal.slip import slip_from_qr, table_signing_key, verify

    device = _fake_printer()
    runner = finished_runner(tmp_path, device.url)
    try:
        runner.services.clock = lambda: False
        assert runner.services.print_slip() == "printing the score slip"
        assert runner.services.last_job.wait(5)
        job = runner.services.last_job
        assert "Times: clock not synchronised" in job.text
        slip = slip_from_qr(job.qr)
        assert slip["clock"] == "unsynchronised"
        public = table_signing_key(runner.data).public    # the table's, as a director holds it
        assert slip["signature"]["fingerprint"] == public.fingerprint
        assert verify(slip, public).valid
        slip["clock"] = "synchronised"
        assert not verify(slip, public).valid       # the mark cannot be dropped
        runner.services.clock = lambda: True     # synchronised: the slip is as it always was
        runner.services.print_slip()
        assert "clock" not in slip_from_qr(runner.services.last_job.qr)
        assert "Times:" not in runner.services.last_job.text
    finally:
        runner.close()
        device.close()


def test_an_unplugged_printer_is_a_fault_for_the_banner_and_the_slip_waits(tmp_path):
    runner = finished_runner(tmp_path, "/dev/nonexistent-printer")
    try:
        assert runner.services.print_slip() == "printing the score slip"
        runner.services._printer().wait_idle()
        status = runner.services.printer_status()
        assert status.state == "fault" and "unplugged" in status.message
        assert not runner.services.last_job.done
    finally:
        runner.close()


def test_the_game_is_written_to_the_usb_stick_and_replays_to_the_same_state(tmp_path):
    from tabletop.engine.table_script import replay
    from tabletop.engine.state import state_json

    runner = finished_runner(tmp_path)
    try:
        media = tmp_path / "media"
        assert runner.services.export((str(media),)) == "no USB stick found: plug one in and try again"
        stick = media / "pi" / "STICK"
        stick.mkdir(parents=True)
        message = runner.services.export((str(media),), mounted=lambda folder: folder.name == "STICK")
        game_id = runner.services.game_id
        folder = stick / "tabletop-exports"
        assert message == f"game {game_id} written to STICK ({folder})"
        lines = (folder / f"tabletop-game-{game_id}.jsonl").read_text().splitlines()
        assert state_json(replay(lines).game) == state_json(runner.loop.desk.game)
        assert (folder / f"tabletop-game-{game_id}.csv").read_text().startswith("game,player")
        assert json.loads((folder / f"tabletop-game-{game_id}.json").read_text())
    finally:
        runner.close()


def test_without_a_printer_configured_the_screen_is_told_so(tmp_path):
    runner = finished_runner(tmp_path)
    try:
        assert runner.services.print_slip() == "no receipt printer is configured ([printer] url)"
        assert runner.services.printer_status() is None
    finally:
        runner.close()


def test_a_printer_out_of_paper_is_on_the_banner_only_while_a_slip_waits(tmp_path):
    device = _fake_printer()
    device.reply = 0x72                                     # paper end
    runner = finished_runner(tmp_path, device.url)
    try:
        runner.services._printer().start()
        runner.services._printer().wait_idle()
        assert runner.services.printer_banner() == ""                # idle: nothing to bother the table with
        assert runner.services.print_slip() == "printing the score slip"
        deadline = time.monotonic() + 5
        while "out of paper" not in runner.services.printer_banner() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert runner.services.printer_banner() == "printer: out of paper; 1 slip waiting"
        device.reply = 0x12                                 # paper in: the slip goes out
        assert runner.services.last_job.wait(10)
        assert runner.services.printer_banner() == ""
    finally:
        runner.close()
        device.close()


def test_a_stick_that_cannot_be_written_is_said_and_the_game_goes_on(tmp_path):
    runner = finished_runner(tmp_path)
    try:
        media = tmp_path / "media"
        stick = media / "STICK"
        stick.mkdir(parents=True)
        (stick / "tabletop-exports").write_text("")         # a file where the export's folder goes
        message = runner.services.export((str(media),), mounted=lambda folder: folder.name == "STICK")
        assert message == (f"the game could not be written to {stick}: tabletop-exports on the stick "
                           "is a link or a file, not a folder; remove it or use another stick")
        assert (stick / "tabletop-exports").read_text() == ""
    finally:
        runner.close()


def test_a_calibration_that_cannot_be_saved_is_said_and_the_eyes_are_kept(tmp_path):
    from calibration.calibrate import calibrate

    runner = finished_runner(tmp_path)
    try:
        eyes = runner.loop.eyes
        image, corners = runner.camera.calibration_view()
        (runner.data / "calibration.json").mkdir()          # the file cannot be written
        message = runner.services.save_calibration(calibrate(image, corners, "acquire"))
        assert message.startswith("not saved: ") and runner.loop.eyes is eyes
    finally:
        runner.close()


def test_a_game_the_journal_cannot_resume_is_refused_and_the_table_keeps_its_game(tmp_path):
    from tabletop.errors import JournalError

    runner = finished_runner(tmp_path)
    try:
        desk = runner.loop.desk
        with pytest.raises(JournalError):
            runner.services.resume(99)
        assert runner.loop.desk is desk
    finally:
        runner.close()


def test_when_the_power_stays_on_the_game_goes_on_recording(tmp_path):
    from tabletop.table.bot import Bot

    runner = resumed_runner(tmp_path, {"rules": "acquire", "players": ["Ann", "Bob"], "seed": 4})
    try:
        runner.services.power_off = [sys.executable, "-c", "import sys; sys.exit('not allowed')"]
        assistant = runner.loop.desk
        Bot(assistant, seed=4).act()
        played = len(assistant.game.history)
        assert runner.services.shutdown() == "the game is saved, but power-off failed: not allowed"
        assert not runner.journal.closed
        Bot(assistant, seed=5).act()                       # the table plays on, recorded
        assert runner.journal.info(runner.services.game_id).actions == played + 1
    finally:
        runner.close()


def test_run_records_the_table_with_consent_and_the_recording_can_be_scored(tmp_path, config):
    """`tabletop run --record FOLDER`: said on the terminal, the manifest written and closed at
    Ctrl-C, and `tabletop vision-report` reads what it kept; a folder in use is refused."""
    import json as jsonlib

    env = config('[table]\nplayers = ["Ann", "Bob", "Cy"]\n'
                 '[camera]\nsource = "sim:acquire,seed=1,placements=2"\n[controls]\nkind = "mock"')
    folder = tmp_path / "recording"
    run, lines, errors = _run_until_the_draw(env, "--record", str(folder))
    assert run.returncode == 0, errors
    assert any(f"recording the camera's frames to {folder}" in line for line in lines), lines[:5]
    manifest = jsonlib.loads((folder / "manifest.json").read_text())
    assert manifest["closed"] is not None and manifest["table"]
    report = tabletop("vision-report", str(folder))
    assert report.returncode == 0, report.stderr
    again = tabletop("run", "--headless", "--record", str(folder), env=env)
    assert again.returncode == 2 and "is not an empty folder" in again.stderr
    assert "Traceback" not in again.stderr
