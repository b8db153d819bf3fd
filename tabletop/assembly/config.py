"""The table's configuration: one TOML file, then the environment, over defaults.

>>> config = load_config(path="/nonexistent/config.toml", environ={"TABLETOP_CAMERA": "usb:0"})
>>> config.values["camera"]["source"], config.values["controls"]["kind"]
('usb:0', 'auto')

Where things live (DESIGN.md): the file is ``$TABLETOP_CONFIG``, else
``$XDG_CONFIG_HOME/tabletop/config.toml`` (``~/.config/tabletop/config.toml``);
data (journal, calibration, score slips) goes to ``[paths] data``, else
``$TABLETOP_DATA``, else ``$XDG_DATA_HOME/tabletop`` (``~/.local/share/tabletop``).
A missing file means the defaults; a malformed one is refused with the key named.
"""

from __future__ import annotations

import copy
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tabletop.errors import TabletopError
from tabletop.journal.journal import DEFAULT_TABLE_NAME

#: Every key a configuration file may set, with its default. "auto" lets the
#: device layer choose (a Pi camera or GPIO pins where present, else a stand-in).
DEFAULTS: dict[str, dict[str, Any]] = {
    "table": {"name": DEFAULT_TABLE_NAME, "rules": "acquire", "players": [], "options": {}},
    "camera": {"source": "auto", "fps": 10},
    "controls": {"kind": "auto", "hold_time": 1.5, "pins": {}},
    "printer": {"url": "", "baudrate": 9600, "columns": 32},
    "panel": {"url": "", "baudrate": 115200},
    "screen": {"language": "en", "keyboard": "auto"},
    "paths": {"data": ""},
}

#: Environment variables that override one key each (they win over the file).
ENVIRONMENT = {
    "TABLETOP_CAMERA": ("camera", "source"),
    "TABLETOP_CONTROLS": ("controls", "kind"),
    "TABLETOP_PRINTER": ("printer", "url"),
    "TABLETOP_PANEL": ("panel", "url"),
    "TABLETOP_DATA": ("paths", "data"),
}


class ConfigError(TabletopError):
    """A configuration file that cannot be used; the message names the key."""


@dataclass(frozen=True)
class Config:
    """The effective configuration and where it came from."""

    path: Path
    found: bool
    values: dict[str, dict[str, Any]]

    @property
    def data_dir(self) -> Path:
        """The folder for the journal, calibration files and score slips."""
        return Path(self.values["paths"]["data"]).expanduser()


def config_path(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the configuration file is read from."""
    if environ.get("TABLETOP_CONFIG"):
        return Path(environ["TABLETOP_CONFIG"]).expanduser()
    base = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tabletop" / "config.toml"


def default_data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tabletop"


def load_config(path: str | Path | None = None,
                environ: Mapping[str, str] = os.environ) -> Config:
    """Defaults, overlaid by the file at ``path`` (if it exists), then by the environment."""
    path = Path(path) if path is not None else config_path(environ)
    values = copy.deepcopy(DEFAULTS)
    found = path.is_file()
    if found:
        try:
            given = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{path}: not valid TOML: {error}") from None
        _overlay(values, given, path)
    for variable, (section, key) in ENVIRONMENT.items():
        if environ.get(variable):
            values[section][key] = environ[variable]
    if not values["paths"]["data"]:
        values["paths"]["data"] = str(default_data_dir(environ))
    _check(values, path, environ)
    return Config(path, found, values)


#: Values a key may take, where not every value of its type will do
#: (and ``[controls] kind``: see :func:`_choices`).
CHOICES = {("screen", "language"): ("en", "zh-TW"),
           # "auto": an on-screen keyboard unless a real one is plugged in.
           ("screen", "keyboard"): ("auto", "on-screen", "system")}


def _choices() -> dict[tuple[str, str], tuple[str, ...]]:
    """:data:`CHOICES`, after ``[controls] kind``: "auto" or any backend registered now."""
    from hardware.controls import backend_names

    return {("controls", "kind"): ("auto", *backend_names()), **CHOICES}


def _check(values: dict[str, dict[str, Any]], path: Path, environ: Mapping[str, str]) -> None:
    """Refuse values of the right type that cannot work, naming the key, where it was set and why."""
    from tabletop.engine.ruleset import available_rules

    def where(section: str, key: str) -> str:
        for variable, named in ENVIRONMENT.items():
            if named == (section, key) and environ.get(variable):
                return f"${variable}"
        return str(path)

    def refuse(section: str, key: str, reason: str) -> None:
        raise ConfigError(f"{where(section, key)}: {section}.{key} = "
                          f"{values[section][key]!r}: {reason}")

    for (section, key), allowed in _choices().items():
        if values[section][key] not in allowed:
            refuse(section, key, f"expected one of {', '.join(allowed)}")
    rules = values["table"]["rules"]
    if rules not in available_rules() and not Path(rules).expanduser().is_file():
        refuse("table", "rules", f"no such rule set (shipped: {', '.join(available_rules())}, "
                                 f"or the path of a rule file)")
    for section, key in (("camera", "fps"), ("controls", "hold_time"), ("printer", "baudrate"),
                         ("printer", "columns"), ("panel", "baudrate")):
        if values[section][key] <= 0:
            refuse(section, key, "must be more than 0")
    players = values["table"]["players"]
    if any(not isinstance(name, str) or not name.strip() for name in players) or \
            len(set(players)) != len(players):
        refuse("table", "players", "the seats must be distinct names, in seating order")


def _overlay(values: dict[str, dict[str, Any]], given: Mapping[str, Any], path: Path) -> None:
    for section, table in given.items():
        if section not in DEFAULTS:
            raise ConfigError(f"{path}: unknown section [{section}] "
                              f"(sections: {', '.join(DEFAULTS)})")
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {section} must be a table")
        for key, value in table.items():
            if key not in DEFAULTS[section]:
                raise ConfigError(f"{path}: unknown key {section}.{key} "
                                  f"(keys: {', '.join(DEFAULTS[section])})")
            default = DEFAULTS[section][key]
            if type(value) is not type(default) and not (
                    isinstance(default, float) and type(value) is int):
                raise ConfigError(f"{path}: {section}.{key} must be a {type(default).__name__}, "
                                  f"not {value!r}")
            values[section][key] = value


def default_journal_path() -> Path:
    """``journal.db`` in the configured data folder: where the table's games are kept."""
    return load_config().data_dir / "journal.db"
