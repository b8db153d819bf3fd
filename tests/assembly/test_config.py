"""The configuration file, the environment over it, and `tabletop config`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.assembly.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_when_there_is_no_file(tmp_path):
    config = load_config(tmp_path / "none.toml", environ={"XDG_DATA_HOME": str(tmp_path)})
    assert not config.found
    assert config.values["camera"]["source"] == "auto"
    assert config.values["printer"]["columns"] == 32
    assert config.data_dir == tmp_path / "tabletop"


def test_the_file_overrides_defaults_and_the_environment_overrides_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[camera]\nsource = "usb:0"\n[controls]\nhold_time = 2\npins = {CONFIRM = 5}\n'
                    '[printer]\nurl = "/dev/tabletop-printer"\n[paths]\ndata = "/srv/tt"\n')
    config = load_config(path, environ={})
    assert config.found
    assert config.values["camera"]["source"] == "usb:0"
    assert config.values["controls"]["hold_time"] == 2
    assert config.values["controls"]["pins"] == {"CONFIRM": 5}
    assert config.data_dir == Path("/srv/tt")
    config = load_config(path, environ={"TABLETOP_CAMERA": "file:game.mp4",
                                        "TABLETOP_PRINTER": "loop://"})
    assert config.values["camera"]["source"] == "file:game.mp4"
    assert config.values["printer"]["url"] == "loop://"


@pytest.mark.parametrize("text, named", [
    ("[camera]\nsorce = 'usb:0'\n", "line 2: [camera] sorce: no such key (did you mean source?)"),
    ("[cameras]\nsource = 'usb:0'\n", "line 1: [cameras]: no such section (did you mean camera?)"),
    ("[printer]\ncolumns = 'wide'\n", "line 2: [printer] columns = \"wide\": must be a whole number, e.g. 32"),
    ("[camera\n", "not valid TOML"),
    ("[screen]\nkeyboard = 'virtual'\n", "[screen] keyboard = \"virtual\": must be one of auto, on-screen, system"),
])
def test_a_malformed_file_is_refused_naming_the_key(tmp_path, text, named):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_config(path, environ={})
    assert named in str(refused.value)


def test_the_config_command_prints_the_path_and_the_effective_values(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[table]\nname = "Final table"\n')
    env = {**os.environ, "TABLETOP_CONFIG": str(path), "TABLETOP_CONTROLS": "keyboard",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tabletop", "config"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"# configuration file: {path}" in done.stdout
    assert 'name = "Final table"' in done.stdout and 'kind = "keyboard"' in done.stdout
    path.write_text("[table]\nname = 3\n")
    done = subprocess.run([sys.executable, "-m", "tabletop", "config"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert f"{path} line 2: [table] name = 3: must be text in quotes" in done.stderr


# -- attacks (issue 22): values of the right type that cannot work ---------------------------

@pytest.mark.parametrize("text, named", [
    ("[printer]\ncolumns = 1\n", "[printer] columns = 1: must be from 24 to 80 columns"),        # slip_text looped for ever
    ("[printer]\ncolumns = 500\n", "[printer] columns"),
    ("[controls]\nhold_time = nan\n", "[controls] hold_time = nan: must be from 0.2 to 10.0 seconds"),  # every CONFIRM a long press
    ("[controls]\nhold_time = inf\n", "[controls] hold_time = inf"),
    ("[controls]\nhold_time = 1e308\n", "[controls] hold_time"),
    ("[controls]\nhold_time = 0.001\n", "[controls] hold_time = 0.001"),
    ("[camera]\nfps = 100000\n", "[camera] fps = 100000: must be from 1 to 120 frames a second"),
    ("[printer]\nbaudrate = 7\n", "[printer] baudrate = 7"),
    ("[table]\noptions = {bonus_mode = 'nope'}\n", "[table] options.bonus_mode = \"nope\": must be one of classic, tycoon"),
    ("[table]\noptions = {no_such_option = 1}\n", "[table] options.no_such_option = 1: no such option of acquire"),
    ("[table]\noptions = {end_size = [1, {a = 2}]}\n", "[table] options.end_size = [1, {a = 2}]: must be a whole number"),
    ('[table]\nname = "a\\nb"\n', "[table] name = \"a\\u000ab\": must not hold control characters"),
    ("[table]\nname = '" + "x" * 100 + "'\n", "[table] name = \"xxxx"),
    ('[paths]\ndata = "a\\u0000b"\n', "[paths] data = \"a\\u0000b\""),
    ("[controls]\npins = {CONFIRM = true}\n", "[controls] pins.CONFIRM = true: must be a GPIO number"),
    ("[controls]\npins = {NOPE = 5}\n", "[controls] pins.NOPE = 5: no such role; roles: CONFIRM"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),   # RecursionError
    ("a = " + "7" * 5000 + "\n", "thousands of digits"),
])
def test_an_out_of_range_value_is_refused_when_read(tmp_path, text, named):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_config(path, environ={})
    assert named in str(refused.value) and str(path) in str(refused.value)


def test_in_range_values_and_options_are_kept(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[printer]\ncolumns = 48\n[controls]\nhold_time = 0.8\n"
                    "[table]\noptions = {bonus_mode = 'tycoon'}\n")
    config = load_config(path, environ={})
    assert config.values["printer"]["columns"] == 48
    assert config.values["table"]["options"] == {"bonus_mode": "tycoon"}


def test_the_config_command_refuses_nested_toml_without_a_traceback(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    env = {**os.environ, "TABLETOP_CONFIG": str(path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tabletop", "config"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 2 and str(path) in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("pins,message", [
    ("{confirm = 5, led = 5}", "[controls] pins: confirm and led are both on GPIO 5"),
    ("{buzzer = 5, led = 5}", "[controls] pins: led and buzzer are both on GPIO 5"),
    ('{undo = 6, next = "GPIO6"}', "[controls] pins: undo and next are both on GPIO 6"),
    ('{undo = "bcm6", next = "6"}', "[controls] pins: undo and next are both on GPIO 6"),
    ('{undo = "BOARD11", next = "board11"}', "[controls] pins: undo and next are both on pin BOARD11"),
    # A role left on its default pin is wired too: LED stays on 23.
    ("{confirm = 23}", "[controls] pins: confirm and LED (its default pin) are both on GPIO 23"),
    ("{buzzer = 17}", "[controls] pins: CONFIRM (its default pin) and buzzer are both on GPIO 17"),
])
def test_two_roles_on_one_pin_are_refused_naming_both_and_the_pin(tmp_path, pins, message):
    """A button on the LED's pin reads the light, not the press: refused when read."""
    path = tmp_path / "config.toml"
    path.write_text(f"[controls]\npins = {pins}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path, environ={})
    assert str(refused.value) == f"{path} line 2: {message}: give each role a pin of its own"


def test_a_role_named_twice_is_refused(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[controls]\npins = {confirm = 5, CONFIRM = 6}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path, environ={})
    assert str(refused.value) == f"{path} line 2: [controls] pins: names the role CONFIRM twice"


def test_every_role_on_a_pin_of_its_own_is_kept(tmp_path):
    path = tmp_path / "config.toml"
    # 17 and 27 are free once CONFIRM and UNDO leave them.
    path.write_text('[controls]\npins = {confirm = 5, undo = "BCM6", next = "GPIO13", led = 17, '
                    'buzzer = 27}\n')
    config = load_config(path, environ={})
    assert config.values["controls"]["pins"] == {"confirm": 5, "undo": "BCM6", "next": "GPIO13",
                                                 "led": 17, "buzzer": 27}


def test_the_config_command_refuses_two_roles_on_one_pin(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[controls]\npins = {confirm = 5, led = 5}\n")
    env = {**os.environ, "TABLETOP_CONFIG": str(path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tabletop", "config"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == (f"tabletop: {path} line 2: [controls] pins: confirm and led are both on GPIO 5: "
                           f"give each role a pin of its own\n")


# -- the screen (issue 16): full screen by default, windowed on a laptop, a portrait panel turned

def test_the_screen_fills_the_display_unless_told_to_run_windowed(tmp_path):
    config = load_config(tmp_path / "none.toml", environ={})
    assert config.values["screen"] == {"language": "en", "keyboard": "auto", "windowed": False,
                                       "size": "1280x720", "rotation": 0}
    path = tmp_path / "config.toml"
    path.write_text('[screen]\nwindowed = true\nsize = "1024x600"\nrotation = 90\n')
    screen = load_config(path, environ={}).values["screen"]
    assert (screen["windowed"], screen["size"], screen["rotation"]) == (True, "1024x600", 90)


@pytest.mark.parametrize("text, message", [
    ("rotation = 45", "[screen] rotation = 45: must be one of 0, 90, 180, 270"),
    ("rotation = 90.0", "[screen] rotation = 90.0: must be a whole number, e.g. 0"),
    ('size = "1280"', "[screen] size = \"1280\": must be WIDTHxHEIGHT in pixels, e.g. \"1280x720\""),
    ('size = "100x100"', "[screen] size = \"100x100\": must be WIDTHxHEIGHT in pixels"),
    ('size = "1280x-720"', "[screen] size = \"1280x-720\": must be WIDTHxHEIGHT in pixels"),
    ('size = "１２８０x720"', "[screen] size = \"１２８０x720\": must be WIDTHxHEIGHT in pixels"),
    ('windowed = "yes"', "[screen] windowed = \"yes\": must be true or false"),
])
def test_a_screen_key_that_cannot_work_is_refused_by_name(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(f"[screen]\n{text}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path, environ={})
    assert f"{path} line 2: {message}" in str(refused.value)


def test_every_language_the_screen_offers_can_be_configured(tmp_path):
    pytest.importorskip("kivy")
    from ui.i18n import LANGUAGES

    path = tmp_path / "config.toml"
    for language in LANGUAGES:
        path.write_text(f'[screen]\nlanguage = "{language}"\n')
        assert load_config(path, environ={}).values["screen"]["language"] == language
