"""The configuration's ``[tournament]`` section: read as the table's place, printed by
`tabletop config`, and every mistake in it named with its line, all at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.assembly.config import ConfigError, load_config
from tabletop.assembly.config_tournament import broker_of, tournament_place
from tabletop.table.seating import TournamentPlace

ROOT = Path(__file__).resolve().parents[2]


def loaded(tmp_path: Path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(path, environ={})


def refused(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as error:
        loaded(tmp_path, text)
    return [str(problem) for problem in error.value.problems]


def test_a_table_in_a_tournament_has_its_place_and_broker(tmp_path):
    config = loaded(tmp_path, '[tournament]\nname = "Spring Open"\ntable = "3"\n'
                              'broker = "192.168.1.10:1883"\nround = 2\n')
    assert tournament_place(config) == TournamentPlace("Spring Open", "3", 2)
    assert tournament_place(config, 5).round == 5         # --round over [tournament] round
    assert broker_of(config) == "192.168.1.10:1883"
    config = loaded(tmp_path, '[tournament]\nname = "Spring Open"\ntable = "3"\n')
    assert tournament_place(config) == TournamentPlace("Spring Open", "3", None)
    assert broker_of(config) == ""                          # the slips go by USB stick
    assert tournament_place(loaded(tmp_path, "")) is None


def test_every_mistake_of_the_section_is_named_with_its_line(tmp_path):
    path = tmp_path / "config.toml"
    assert refused(tmp_path, '[tournament]\nname = "Spring Open"\nbroker = "host name:99999"\n'
                             'round = -1\n') == [
        f"{path} line 1: [tournament] table: not set: this table's name in the tournament, "
        f"as the director's file has it, e.g. \"3\"",
        f'{path} line 3: [tournament] broker = "host name:99999": must be HOST or HOST:PORT '
        f'(port 1 to 65535), e.g. "192.168.1.10:1883"',
        f"{path} line 4: [tournament] round = -1: must be a round from 1 to 999 (0, or left "
        f"out: the setup screen or --round chooses it)"]


@pytest.mark.parametrize("text, named", [
    ('table = "3"', "[tournament] name: not set: a table plays in a tournament named here"),
    ('broker = "127.0.0.1"', "[tournament] name: not set"),
    ('name = "Open"\ntable = "3"\nround = "two"', '[tournament] round = "two": must be a whole '
                                                  'number, e.g. 0'),
    ('name = "Open"\ntable = "3"\nround = 1000', "[tournament] round = 1000: must be a round "
                                                 "from 1 to 999"),
    ('name = "Open"\ntable = "   "', "[tournament] table: not set"),
    ('name = "Open"\ntable = "3\\u00a0"', '[tournament] table = "3\\u00a0": a tournament table '
                                          'is named by text of 1 to 80 printable characters'),
    ('name = "Open\\u0007"\ntable = "3"', "must not hold control characters"),
    (f'name = "{"x" * 81}"\ntable = "3"', "81 characters long: at most 80 will do"),
    ('name = "Open"\ntable = "3"\nbroker = "127.0.0.1:0"', "[tournament] broker = "
                                                          '"127.0.0.1:0": must be HOST or'),
    ('name = "Open"\ntable = "3"\nbroker = "mqtt://venue"', "[tournament] broker"),
    ('name = "Open"\ntable = "3"\nbrokr = "venue"', "[tournament] brokr: no such key (did you "
                                                   "mean broker?)"),
])
def test_a_value_that_cannot_work_is_refused(tmp_path, text, named):
    problems = refused(tmp_path, f"[tournament]\n{text}\n")
    assert len(problems) == 1 and named in problems[0], problems


def test_the_config_command_prints_the_section(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[tournament]\nname = "Spring Open"\ntable = "3"\nround = 1\n')
    env = {**os.environ, "TABLETOP_CONFIG": str(path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tabletop", "config"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '[tournament]\nname = "Spring Open"\ntable = "3"\nbroker = ""\nround = 1\n' \
        in done.stdout
