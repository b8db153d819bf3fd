"""Issue 19: a configuration with several mistakes is refused with every one of them, each
where it was set (the file's line, or the environment variable), in plain words, by
`tabletop config` and by `tabletop run` alike, and nothing starts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tabletop.engine.ruleset import load_rules

#: A first configuration with mistakes a newcomer makes; each line number is the file's.
MISTAKES = """\
[table]
name = "Kitchen"
rules = "acquire"

[table.options]
bonus_mode = "tykoon"

[camera]
fps = "ten"
sorce = "usb:0"

[screen]
windowed = "yes"

[controls]
hold_time = "long"
"""


def tabletop(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    return subprocess.run([sys.executable, "-m", "tabletop", *args], capture_output=True,
                          text=True, timeout=120, env={**clean, **env})


@pytest.fixture
def table(tmp_path):
    """The environment of a table whose configuration file holds :data:`MISTAKES`."""
    path = tmp_path / "config.toml"
    path.write_text(MISTAKES + f'\n[paths]\ndata = "{tmp_path / "data"}"\n')
    return path, {"TABLETOP_CONFIG": str(path), "TABLETOP_CAMERA": "webcam",
                  "TABLETOP_CONTROLS": "keybord"}


def expected(path) -> list[str]:
    modes = ", ".join(load_rules("acquire").options["bonus_mode"].choices)   # the rule file's
    return [
        f'{path} line 6: [table] options.bonus_mode = "tykoon": must be one of {modes} '
        f'(did you mean tycoon?)',
        f'{path} line 9: [camera] fps = "ten": must be a whole number, e.g. 10',
        f"{path} line 10: [camera] sorce: no such key (did you mean source?)",
        f'{path} line 13: [screen] windowed = "yes": must be true or false',
        f'{path} line 16: [controls] hold_time = "long": must be a number, e.g. 1.5',
        "environment TABLETOP_CONTROLS=keybord: must be one of auto, gpio, keyboard, panel, "
        "mock (did you mean keyboard?)",
        "environment TABLETOP_CAMERA=webcam: no such camera source",
    ]


@pytest.mark.parametrize("command", [("config",), ("run", "--headless")])
def test_every_mistake_is_listed_with_where_it_was_set_and_nothing_starts(tmp_path, table,
                                                                          command):
    path, env = table
    done = tabletop(*command, env=env)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0] == "tabletop: the configuration has 7 problems:"
    for line, problem in zip(lines[1:], expected(path), strict=False):
        assert line.startswith(f"  {problem}"), (line, problem)
    assert lines[-1] == "fix each where it is set; `tabletop config` checks them again"
    assert len(lines) == 1 + 7 + 1
    assert not (tmp_path / "data").exists()


def test_an_unknown_camera_source_lists_the_sources_the_registry_has(tmp_path):
    from hardware.camera import SOURCES
    from tabletop.assembly.simcamera import register

    register()
    done = tabletop("config", env={"TABLETOP_CONFIG": str(tmp_path / "none.toml"),
                                   "TABLETOP_CAMERA": "usb0"})
    assert done.returncode == 2
    assert done.stderr.startswith("tabletop: environment TABLETOP_CAMERA=usb0: no such camera "
                                  "source (did you mean usb?): auto, off (no camera), or one of "
                                  f"{', '.join(sorted(SOURCES))}")


def test_once_every_mistake_is_fixed_the_configuration_is_shown(tmp_path, table):
    path, env = table
    path.write_text(MISTAKES.replace("tykoon", "tycoon").replace('"ten"', "10")
                    .replace("sorce", "source").replace('"yes"', "true")
                    .replace('"long"', "1.5"))
    done = tabletop("config", env={**env, "TABLETOP_CAMERA": "usb:1",
                                   "TABLETOP_CONTROLS": "keyboard"})
    assert done.returncode == 0, done.stderr
    assert 'source = "usb:1"' in done.stdout and "options = {\"bonus_mode\": \"tycoon\"}" \
        in done.stdout


def test_a_file_that_is_not_toml_is_said_with_the_environment_s_mistakes(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[camera\n")
    done = tabletop("config", env={"TABLETOP_CONFIG": str(path), "TABLETOP_SOUND": "trumpet"})
    assert done.returncode == 2
    assert f"  {path}: not valid TOML" in done.stderr
    assert "  environment TABLETOP_SOUND=trumpet: must be one of auto" in done.stderr


def test_a_value_with_a_terminal_escape_is_quoted_without_it(tmp_path):
    done = tabletop("config", env={"TABLETOP_CONFIG": str(tmp_path / "none.toml"),
                                   "TABLETOP_CONTROLS": "\x1b[2Jwii"})
    assert done.returncode == 2 and "\x1b" not in done.stderr
    assert "environment TABLETOP_CONTROLS=\\u001b[2Jwii: must be one of" in done.stderr
