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
import math
import os
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tabletop.errors import TabletopError
from tabletop.journal.journal import DEFAULT_TABLE_NAME

#: Every key a configuration file may set, with its default. "auto" lets the
#: device layer choose (a Pi camera or GPIO pins where present, else a stand-in).
DEFAULTS: dict[str, dict[str, Any]] = {
    "table": {"name": DEFAULT_TABLE_NAME, "rules": "acquire", "players": [], "options": {}},
    # source "off": no camera; the table plays by taps.
    "camera": {"source": "auto", "fps": 10},
    "controls": {"kind": "auto", "hold_time": 1.5, "pins": {}},
    # ``qr``: the printer's own QR command, the code drawn as an image, or "auto" (the image
    # on a USB printer, the command on a serial one).
    "printer": {"url": "", "baudrate": 9600, "columns": 32, "cjk": "", "qr": "auto"},
    "panel": {"url": "", "baudrate": 115200},
    # The app fills the display it opens on unless ``windowed`` (a laptop): then a window of
    # ``size``. ``rotation`` turns the picture (a portrait panel used landscape).
    "screen": {"language": "en", "keyboard": "auto", "windowed": False, "size": "1280x720",
               "rotation": 0},
    # Cues through the speaker beside the buzzer's beeps; ``speak``: announcements (espeak-ng).
    "sound": {"kind": "auto", "cues": True, "speak": False, "device": ""},
    # Between games the panel dims after ``dim_after`` seconds without a touch (0: never).
    "backlight": {"kind": "auto", "dim_after": 300.0},
    "paths": {"data": ""},
}

#: Environment variables that override one key each (they win over the file).
ENVIRONMENT = {
    "TABLETOP_CAMERA": ("camera", "source"),
    "TABLETOP_CONTROLS": ("controls", "kind"),
    "TABLETOP_PRINTER": ("printer", "url"),
    "TABLETOP_PANEL": ("panel", "url"),
    "TABLETOP_DATA": ("paths", "data"),
    "TABLETOP_SOUND": ("sound", "kind"),
    "TABLETOP_BACKLIGHT": ("backlight", "kind"),
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
    if not found and os.path.lexists(path):
        # A FIFO, a folder or a device named as the configuration: using the defaults instead
        # would start the table on another journal, its games seemingly gone.
        raise ConfigError(f"{path} is not a configuration file (not a regular file): name a "
                          f"TOML file, or remove it to use the defaults")
    if found:
        _overlay(values, _parse(path), path)
    for variable, (section, key) in ENVIRONMENT.items():
        if environ.get(variable):
            values[section][key] = environ[variable]
    if not values["paths"]["data"]:
        values["paths"]["data"] = str(default_data_dir(environ))
    _check(values, path, environ)
    return Config(path, found, values)


#: A configuration file is a few hundred bytes: a larger one is not one.
MAX_CONFIG_BYTES = 1 << 20


def _parse(path: Path) -> dict[str, Any]:
    """The TOML of the file at ``path``; ConfigError naming the file if it cannot be read."""
    try:   # without blocking: a FIFO put in the file's place would hang the table
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read: {error.strerror}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: too large for a configuration file "
                          f"(more than {MAX_CONFIG_BYTES:,} bytes)")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    except ValueError:   # Python reads no integer of more than 4,300 digits
        raise ConfigError(f"{path}: not valid TOML: a number of thousands of digits") from None


#: Values a key may take, where not every value of its type will do
#: (and ``[controls] kind``: see :func:`_choices`).
CHOICES = {("screen", "language"): ("en", "zh-TW", "de"),
           # The printer's Chinese font, by its encoding ("": none, names print as ??).
           ("printer", "cjk"): ("", "gb18030", "gbk", "gb2312", "big5"),
           ("printer", "qr"): ("auto", "native", "image"),
           # "auto": an on-screen keyboard unless a real one is plugged in.
           ("screen", "keyboard"): ("auto", "on-screen", "system"),
           # Degrees clockwise; the Touch Display 2 (720x1280 portrait) is used landscape at 90.
           ("screen", "rotation"): (0, 90, 180, 270)}


def _choices() -> dict[tuple[str, str], tuple[str, ...]]:
    """:data:`CHOICES`, after ``[controls] kind``: "auto" or any backend registered now."""
    from hardware.controls import backend_names
    from hardware.backlight import BACKENDS as BACKLIGHTS
    from hardware.sound import BACKENDS as SOUNDS

    return {("controls", "kind"): ("auto", *backend_names()), ("sound", "kind"): ("auto", *SOUNDS),
            ("backlight", "kind"): ("auto", *BACKLIGHTS), **CHOICES}


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
                          f"{values[section][key]!r:.80}: {reason}")   # cut: a value may be huge

    for (section, key), allowed in _choices().items():
        if values[section][key] not in allowed:
            refuse(section, key, f"expected one of {', '.join(map(str, allowed))}")
    rules = values["table"]["rules"]
    if rules not in available_rules() and not _is_file(rules):
        refuse("table", "rules", f"no such rule set (shipped: {', '.join(available_rules())}, "
                                 f"or the path of a rule file)")
    for (section, key), (low, high, unit) in RANGES.items():
        value = values[section][key]
        if value <= 0:
            refuse(section, key, "must be more than 0")
        if not (math.isfinite(value) and low <= value <= high):
            refuse(section, key, f"must be from {low:,} to {high:,}{unit}")
    dim_after = values["backlight"]["dim_after"]
    if not (math.isfinite(dim_after) and 0 <= dim_after <= DAY):
        refuse("backlight", "dim_after", f"must be from 0 (never dim) to {DAY:,} seconds")
    _check_text(values, refuse, where)
    if window_size(values["screen"]["size"]) is None:
        refuse("screen", "size", f"expected WIDTHxHEIGHT in pixels, e.g. \"1280x720\", each "
                                 f"from {SIZE_RANGE[0]:,} to {SIZE_RANGE[1]:,}")
    _check_pins(values["controls"]["pins"], where("controls", "pins"))
    _check_options(values["table"], where("table", "options"))
    from tabletop.engine.names import clean_name, name_key   # the one rule for names

    players = values["table"]["players"]
    for seat, name in enumerate(players, start=1):
        try:
            players[seat - 1] = clean_name(name, seat)   # kept as the game keeps it (NFC)
        except TabletopError as error:   # not refuse(): it would quote the whole list
            raise ConfigError(f"{where('table', 'players')}: table.players: {error}") from None
    if len({name_key(name) for name in players}) != len(players):
        refuse("table", "players", "the seats must be distinct names, in seating order")


#: The numbers a key may take: (lowest, highest, unit). Out of range they cannot work: a
#: 1-column receipt, a hold of NaN seconds (every press long), a camera at 10,000 fps.
RANGES: dict[tuple[str, str], tuple[float, float, str]] = {
    ("camera", "fps"): (1, 120, " frames a second"),
    ("controls", "hold_time"): (0.2, 10.0, " seconds"),
    ("printer", "baudrate"): (300, 4_000_000, ""),
    # 58 mm paper holds 32 columns, 80 mm 48 (64 in the small font).
    ("printer", "columns"): (24, 80, " columns"),
    ("panel", "baudrate"): (300, 4_000_000, ""),
}
#: The longest a table may wait before dimming between games, in seconds.
DAY = 86_400
#: Text keys: at most this many characters, and no control characters (a NUL in a path
#: cannot be opened; a line break in the table's name breaks every list it is in).
TEXT_KEYS = {("table", "name"): 64, ("table", "rules"): 4096, ("camera", "source"): 4096, ("printer", "url"): 4096,
             ("panel", "url"): 4096, ("paths", "data"): 4096, ("screen", "size"): 16}


#: The pixels a side of a window (``[screen] size``) may have: a window smaller than the
#: smallest panel cannot hold the layout; an 8K display is the largest there is.
SIZE_RANGE = (320, 7680)


def window_size(text: str) -> tuple[int, int] | None:
    """``[screen] size`` ("1280x720") as (width, height); None if it is not one.

    >>> window_size("1280x720"), window_size(" 800 X 480 "), window_size("1280"), window_size("9x9")
    ((1280, 720), (800, 480), None, None)
    """
    width, cross, height = text.strip().lower().partition("x")
    if not cross or not all(side.strip().isdecimal() and side.isascii()
                            for side in (width, height)):
        return None
    size = int(width), int(height)
    low, high = SIZE_RANGE
    return size if all(low <= side <= high for side in size) else None


def _is_file(name: str) -> bool:
    """Whether ``name`` is a file; False for a name no file can have (too long, a NUL)."""
    try:
        return Path(name).expanduser().is_file()
    except (OSError, ValueError):
        return False


def _check_text(values: dict[str, dict[str, Any]], refuse: Any, where: Any) -> None:
    for (section, key), longest in TEXT_KEYS.items():
        text = values[section][key]
        if len(text) > longest:
            raise ConfigError(f"{where(section, key)}: {section}.{key} is {len(text):,} "
                              f"characters long: at most {longest} will do")
        if any(unicodedata.category(character) in ("Cc", "Cf", "Cs", "Zl", "Zp")
               for character in text):
            refuse(section, key, "must not hold control characters or line breaks")
    if not values["table"]["name"].strip():
        refuse("table", "name", "the table needs a name")


def _check_pins(pins: Mapping[str, Any], where: str) -> None:
    """``[controls] pins``: known roles, each a GPIO number or a pin name (gpiozero's)."""
    from hardware.controls.base import DEFAULT_PINS

    for role, pin in pins.items():
        if str(role).upper() not in DEFAULT_PINS:
            raise ConfigError(f"{where}: controls.pins.{role}: no such role "
                              f"(roles: {', '.join(DEFAULT_PINS)})")
        if isinstance(pin, bool) or not (isinstance(pin, int) and 0 <= pin <= 53 or
                                         isinstance(pin, str) and 0 < len(pin) <= 32
                                         and pin.isprintable()):
            raise ConfigError(f"{where}: controls.pins.{role} = {pin!r:.40}: a GPIO number "
                              f"(0 to 53) or a pin name such as \"GPIO17\" is expected")
    # Two roles on one pin cannot both work (a button wired to the LED's pin reads the light),
    # also when one of them keeps its default pin; 17, "17", "GPIO17" and "BCM17" are one pin.
    wired = {role: (pin, f"{role} (its default pin)") for role, pin in DEFAULT_PINS.items()}
    for role, pin in pins.items():
        if str(role).upper() in {str(named).upper() for named in pins if named != role}:
            raise ConfigError(f"{where}: controls.pins names the role {str(role).upper()} twice")
        wired[str(role).upper()] = (pin, str(role))
    taken: dict[Any, str] = {}
    for pin, named in wired.values():
        if pin is not None and _pin_key(pin) in taken:
            raise ConfigError(f"{where}: controls.pins: {taken[_pin_key(pin)]} and {named} are "
                              f"both on {_pin_key(pin)}: give each role a pin of its own")
        taken[_pin_key(pin)] = named


def _pin_key(pin: int | str) -> str:
    """How a message names ``pin``, the same for every way of writing one BCM pin.

    >>> _pin_key(17), _pin_key("bcm17"), _pin_key("BOARD11")
    ('GPIO 17', 'GPIO 17', 'pin BOARD11')
    """
    text = str(pin).strip().upper()
    number = text.removeprefix("GPIO").removeprefix("BCM")
    return f"GPIO {int(number)}" if number.isdecimal() and number.isascii() else f"pin {text}"


def _check_options(table: Mapping[str, Any], where: str) -> None:
    """``[table] options``, as the rule set's own :meth:`resolve_options` takes them."""
    from tabletop.engine.ruleset import load_rules

    name = table["rules"]
    try:
        rules = load_rules(os.path.expanduser(name) if name.startswith("~") else name)
    except TabletopError as error:
        raise ConfigError(f"{where}: table.rules: {error}") from None
    for name, value in table["options"].items():
        if len(name) > 64 or len(repr(value)) > 200:   # no option's name or value is that long
            raise ConfigError(f"{where}: table.options.{name:.64}: no option of "
                              f"{rules.name} is like this (options: {', '.join(rules.options)})")
        try:
            rules.resolve_options({name: value})
        except TabletopError as error:
            raise ConfigError(f"{where}: table.options.{name}: {error}") from None


def _overlay(values: dict[str, dict[str, Any]], given: Mapping[str, Any], path: Path) -> None:
    for section, table in given.items():
        if section not in DEFAULTS:
            raise ConfigError(f"{path}: unknown section [{section:.64}] "
                              f"(sections: {', '.join(DEFAULTS)})")
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {section} must be a table")
        for key, value in table.items():
            if key not in DEFAULTS[section]:
                raise ConfigError(f"{path}: unknown key {section}.{key:.64} "
                                  f"(keys: {', '.join(DEFAULTS[section])})")
            default = DEFAULTS[section][key]
            if type(value) is not type(default) and not (
                    isinstance(default, float) and type(value) is int):
                raise ConfigError(f"{path}: {section}.{key} must be a {type(default).__name__}, "
                                  f"not {value!r:.80}")   # cut: a value may be huge
            values[section][key] = value


def default_journal_path() -> Path:
    """``journal.db`` in the configured data folder: where the table's games are kept."""
    return load_config().data_dir / "journal.db"
