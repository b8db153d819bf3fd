"""The table's configuration: one TOML file, then the environment, over defaults.

>>> config = load_config(path="/nonexistent/config.toml", environ={"TABLETOP_CAMERA": "usb:0"})
>>> config.values["camera"]["source"], config.values["controls"]["kind"]
('usb:0', 'auto')

Where things live (DESIGN.md): the file is ``$TABLETOP_CONFIG``, else
``$XDG_CONFIG_HOME/tabletop/config.toml`` (``~/.config/tabletop/config.toml``);
data (journal, calibration, score slips) goes to ``[paths] data``, else
``$TABLETOP_DATA``, else ``$XDG_DATA_HOME/tabletop`` (``~/.local/share/tabletop``).
A missing file means the defaults. Every value is checked against what the code takes
(the rule set's options, the camera sources and device backends registered), and every
problem is reported at once, each with where it was set (the file's line, or the
environment variable): a :class:`ConfigError` holds them all.
"""

from __future__ import annotations

import copy
import math
import os
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from tabletop.assembly.config_places import Places, escaped, shown
from tabletop.errors import TabletopError
from tabletop.suggest import close_match
from tabletop.journal.journal import DEFAULT_TABLE_NAME

#: Every key a configuration file may set, with its default. "auto" lets the
#: device layer choose (a Pi camera or GPIO pins where present, else a stand-in).
DEFAULTS: dict[str, dict[str, Any]] = {
    # ``profile``: a named set of options held strictly ("" none; "tournament", or a
    # profile file's path): every game set up here plays by it, and its options are fixed.
    "table": {"name": DEFAULT_TABLE_NAME, "rules": "acquire", "players": [], "options": {},
              "profile": ""},
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
    # A table in a tournament (config_tournament): "" none; ``round`` 0: chosen at setup.
    "tournament": {"name": "", "table": "", "broker": "", "round": 0},
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


#: Other environment variables the table reads, checked with the rest.
FONT_VARIABLE = "TABLETOP_FONT"     # ui.theme: the font drawing the screens' Chinese


@dataclass(frozen=True)
class Problem:
    """One thing the configuration gets wrong: ``where`` it was set (the file and its line,
    or ``environment``) and ``what`` (the key, its value, what would do)."""

    where: str
    what: str
    #: The file's line, for listing the file's problems in its order (None: no line).
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


class ConfigError(TabletopError):
    """A configuration that cannot be used: one sentence, or every :class:`Problem` found."""

    def __init__(self, problems: str | Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = () if isinstance(problems, str) else tuple(problems)
        super().__init__(problems if isinstance(problems, str) else _summary(self.problems))


def _summary(problems: Sequence[Problem]) -> str:
    if len(problems) == 1:
        return str(problems[0])
    listed = "\n".join(f"  {problem}" for problem in problems)
    return (f"the configuration has {len(problems)} problems:\n{listed}\n"
            f"fix each where it is set; `tabletop config` checks them again")


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


class _Checker:
    """Collects the problems, each said with where its key was set."""

    def __init__(self, path: Path, environ: Mapping[str, str]) -> None:
        self.path, self.environ = path, environ
        self.places = Places("")
        self.problems: list[Problem] = []
        self.refused: set[tuple[str, str]] = set()

    def in_file(self, keys: tuple[str, ...], what: str) -> None:
        line = self.places.line(keys)
        self.problems.append(Problem(f"{self.path} line {line}" if line else str(self.path),
                                     what, line or 0))

    def refuse(self, section: str, key: str, reason: str, value: Any = None, *,
               shown_value: bool = True, more: tuple[str, ...] = ()) -> None:
        """``[section] key`` (or its environment variable) cannot be used, because ``reason``."""
        self.refused.add((section, key))
        variable = self.variable(section, key)
        if variable is not None:
            given = escaped(self.environ[variable])
            given = given if len(given) <= 80 else given[:79] + "…"
            self.problems.append(Problem(f"environment {variable}={given}", reason))
            return
        name = ".".join((key, *more))
        subject = f"[{section}] {name} = {shown(value)}" if shown_value else f"[{section}] {name}"
        self.in_file((section, key, *more), f"{subject}: {reason}")

    def variable(self, section: str, key: str) -> str | None:
        """The environment variable that set ``[section] key``, if one did."""
        for variable, named in ENVIRONMENT.items():
            if named == (section, key) and self.environ.get(variable):
                return variable
        return None


def load_config(path: str | Path | None = None,
                environ: Mapping[str, str] = os.environ) -> Config:
    """Defaults, overlaid by the file at ``path`` (if it exists), then by the environment;
    :class:`ConfigError` with every problem found, if any."""
    path = Path(path) if path is not None else config_path(environ)
    values = copy.deepcopy(DEFAULTS)
    checker = _Checker(path, environ)
    found = path.is_file()
    if not found and os.path.lexists(path):
        # A FIFO, a folder or a device named as the configuration: using the defaults instead
        # would start the table on another journal, its games seemingly gone.
        checker.problems.append(Problem(str(path), "not a configuration file (not a regular "
                                        "file): name a TOML file, or remove it to use the "
                                        "defaults"))
    if found:
        try:
            given, checker.places = _parse(path)
        except _Unreadable as why:
            checker.problems.append(Problem(str(path), str(why)))
        else:
            _overlay(values, given, checker)
    for variable, (section, key) in ENVIRONMENT.items():
        if environ.get(variable):
            values[section][key] = environ[variable]
    if not values["paths"]["data"]:
        values["paths"]["data"] = str(default_data_dir(environ))
    _check(values, checker)
    if checker.problems:   # the file's in its order, then the environment's
        raise ConfigError(sorted(checker.problems, key=lambda problem: (
            problem.line is None, problem.line or 0)))
    return Config(path, found, values)


#: A configuration file is a few hundred bytes: a larger one is not one.
MAX_CONFIG_BYTES = 1 << 20


class _Unreadable(Exception):
    """The file cannot be read as TOML; the message says why."""


def _parse(path: Path) -> tuple[dict[str, Any], Places]:
    """The TOML of the file at ``path`` and where its keys are; _Unreadable if it cannot be read."""
    try:   # without blocking: a FIFO put in the file's place would hang the table
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise _Unreadable(f"cannot be read: {error.strerror}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise _Unreadable(f"too large for a configuration file "
                          f"(more than {MAX_CONFIG_BYTES:,} bytes)")
    try:
        text = raw.decode("utf-8")
        return tomllib.loads(text), Places(text)
    except UnicodeDecodeError as error:
        raise _Unreadable(f"not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise _Unreadable(f"not valid TOML: {error}") from None
    except RecursionError:
        raise _Unreadable("not valid TOML: nested too deeply") from None
    except ValueError:   # Python reads no integer of more than 4,300 digits
        raise _Unreadable("not valid TOML: a number of thousands of digits") from None


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


def one_of(value: Any, allowed: Sequence[Any]) -> str:
    """Why ``value`` will not do, with the nearest allowed value if one is near.

    >>> one_of("tykoon", ("classic", "tycoon"))
    'must be one of classic, tycoon (did you mean tycoon?)'
    """
    names = [shown(choice) if choice == "" else str(choice) for choice in allowed]
    return f"must be one of {', '.join(names)}{_near(value, allowed)}"


def _near(value: Any, allowed: Sequence[Any]) -> str:
    """`` (did you mean X?)`` for the allowed value nearest ``value``, if one is near."""
    text = str(value)
    if len(text) > 64:
        return ""
    spelled = {str(choice).lower(): str(choice) for choice in allowed if str(choice)}
    near = close_match(text.lower(), spelled)
    return f" (did you mean {spelled[near]}?)" if near is not None else ""


def _check(values: dict[str, dict[str, Any]], checker: _Checker) -> None:
    """Refuse values of the right type that cannot work, naming the key, where it was set and why."""
    from tabletop.engine.ruleset import available_rules

    _check_text(values, checker)
    for (section, key), allowed in _choices().items():
        value = values[section][key]
        if value not in allowed and (section, key) not in checker.refused:
            checker.refuse(section, key, one_of(value, allowed), value)
    rules = values["table"]["rules"]
    if ("table", "rules") not in checker.refused and rules not in available_rules() \
            and not _is_file(rules):
        checker.refuse("table", "rules", f"no such rule set{_near(rules, available_rules())}; "
                                         f"shipped: {', '.join(available_rules())}, or give "
                                         f"the path of a rule file", rules)
    _check_numbers(values, checker)
    if ("screen", "size") not in checker.refused and window_size(values["screen"]["size"]) is None:
        checker.refuse("screen", "size", f"must be WIDTHxHEIGHT in pixels, e.g. \"1280x720\", "
                                         f"each from {SIZE_RANGE[0]:,} to {SIZE_RANGE[1]:,}",
                       values["screen"]["size"])
    _check_camera(values["camera"]["source"], checker)
    _check_pins(values["controls"]["pins"], checker)
    if ("table", "rules") not in checker.refused:
        _check_options(values["table"], checker)
    if values["table"]["profile"] and ("table", "profile") not in checker.refused:
        _check_profile(values["table"], checker)
    _check_players(values["table"], checker)
    _check_font(checker)
    from tabletop.assembly.config_tournament import check_tournament

    check_tournament(values, checker)


def _check_numbers(values: dict[str, dict[str, Any]], checker: _Checker) -> None:
    for (section, key), (low, high, unit) in RANGES.items():
        value = values[section][key]
        if value <= 0:
            checker.refuse(section, key, "must be more than 0", value)
        elif not (math.isfinite(value) and low <= value <= high):
            checker.refuse(section, key, f"must be from {low:,} to {high:,}{unit}", value)
    dim_after = values["backlight"]["dim_after"]
    if not (math.isfinite(dim_after) and 0 <= dim_after <= DAY):
        checker.refuse("backlight", "dim_after", f"must be from 0 (never dim) to {DAY:,} "
                                                 f"seconds", dim_after)


def _check_players(table: dict[str, Any], checker: _Checker) -> None:
    from tabletop.engine.names import clean_name, name_key   # the one rule for names

    players = table["players"]
    clean = True
    for seat, name in enumerate(players, start=1):
        try:
            players[seat - 1] = clean_name(name, seat)   # kept as the game keeps it (NFC)
        except TabletopError as error:   # the name is not quoted: it may be huge or hostile
            checker.refuse("table", "players", str(error), shown_value=False)
            clean = False
    if clean and len({name_key(name) for name in players}) != len(players):
        checker.refuse("table", "players", "the seats must be distinct names, in seating "
                                           "order", players)


def _check_camera(source: str, checker: _Checker) -> None:
    """``[camera] source``: "auto", "off" or the name of a source the camera registry has."""
    from tabletop.assembly.runner import OFF

    if source in ("auto", OFF) or ("camera", "source") in checker.refused:
        return
    try:
        from hardware.camera import SOURCES
        from tabletop.assembly.simcamera import register
    except ImportError:   # no OpenCV: `tabletop run` says what to install
        return
    register()
    kind = source.partition(":")[0]
    if kind not in SOURCES:
        names = ", ".join(sorted(SOURCES))
        checker.refuse("camera", "source", f"no such camera source{_near(kind, list(SOURCES))}: "
                                           f"auto, {OFF} (no camera), or one of {names}, "
                                           f"e.g. usb:0, file:game.mp4, dir:frames/", source)


def _check_font(checker: _Checker) -> None:
    font = checker.environ.get(FONT_VARIABLE, "")
    if font and not _is_file(font):
        checker.problems.append(Problem(f"environment {FONT_VARIABLE}={escaped(font):.80}",
                                        "no such font file: name a .ttf or .otf file, or "
                                        "unset it to use the screens' own fonts"))


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
             ("panel", "url"): 4096, ("paths", "data"): 4096, ("screen", "size"): 16,
             ("tournament", "name"): 80, ("tournament", "table"): 80, ("tournament", "broker"): 255}


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


def _check_text(values: dict[str, dict[str, Any]], checker: _Checker) -> None:
    for (section, key), longest in TEXT_KEYS.items():
        text = values[section][key]
        if len(text) > longest:
            checker.refuse(section, key, f"{len(text):,} characters long: at most {longest} "
                                         f"will do", text)
        elif any(unicodedata.category(character) in ("Cc", "Cf", "Cs", "Zl", "Zp")
                 for character in text):
            checker.refuse(section, key, "must not hold control characters or line breaks",
                           text)
    if ("table", "name") not in checker.refused and not values["table"]["name"].strip():
        checker.refuse("table", "name", "the table needs a name", values["table"]["name"])


def _check_pins(pins: Mapping[str, Any], checker: _Checker) -> None:
    """``[controls] pins``: known roles, each a GPIO number or a pin name (gpiozero's)."""
    from hardware.controls.base import DEFAULT_PINS

    def refuse(reason: str, role: str | None = None, pin: Any = None) -> None:
        more = (role,) if role is not None else ()
        checker.refuse("controls", "pins", reason, pin, shown_value=role is not None, more=more)

    before = len(checker.problems)
    for role, pin in pins.items():
        if str(role).upper() not in DEFAULT_PINS:
            refuse(f"no such role{_near(str(role).upper(), list(DEFAULT_PINS))}; roles: "
                   f"{', '.join(DEFAULT_PINS)}", f"{role:.64}", pin)
        elif isinstance(pin, bool) or not (isinstance(pin, int) and 0 <= pin <= 53 or
                                           isinstance(pin, str) and 0 < len(pin) <= 32
                                           and pin.isprintable()):
            refuse("must be a GPIO number (0 to 53) or a pin name such as \"GPIO17\"", role, pin)
    if len(checker.problems) > before:
        return
    # Two roles on one pin cannot both work (a button wired to the LED's pin reads the light),
    # also when one of them keeps its default pin; 17, "17", "GPIO17" and "BCM17" are one pin.
    wired = {role: (pin, f"{role} (its default pin)") for role, pin in DEFAULT_PINS.items()}
    for role, pin in pins.items():
        if str(role).upper() in {str(named).upper() for named in pins if named != role}:
            return refuse(f"names the role {str(role).upper()} twice")
        wired[str(role).upper()] = (pin, str(role))
    taken: dict[Any, str] = {}
    for pin, named in wired.values():
        if pin is not None and _pin_key(pin) in taken:
            return refuse(f"{taken[_pin_key(pin)]} and {named} are both on {_pin_key(pin)}: "
                          f"give each role a pin of its own")
        taken[_pin_key(pin)] = named


def _pin_key(pin: int | str) -> str:
    """How a message names ``pin``, the same for every way of writing one BCM pin.

    >>> _pin_key(17), _pin_key("bcm17"), _pin_key("BOARD11")
    ('GPIO 17', 'GPIO 17', 'pin BOARD11')
    """
    text = str(pin).strip().upper()
    number = text.removeprefix("GPIO").removeprefix("BCM")
    return f"GPIO {int(number)}" if number.isdecimal() and number.isascii() else f"pin {text}"


def _check_options(table: Mapping[str, Any], checker: _Checker) -> None:
    """``[table] options``, each checked by the rule set's own option (its file's choices)."""
    from tabletop.engine.ruleset import load_rules

    name = table["rules"]
    try:
        rules = load_rules(os.path.expanduser(name) if name.startswith("~") else name)
    except TabletopError as error:
        checker.refuse("table", "rules", str(error), name)
        return
    for option, value in table["options"].items():
        known = rules.options.get(option)
        if known is None:
            checker.refuse("table", "options", f"no such option of {rules.name}"
                                               f"{_near(option, list(rules.options))}; its "
                                               f"options: {', '.join(rules.options)}",
                           value, more=(f"{option:.64}",))
            continue
        try:
            known.check(value)
        except TabletopError:
            checker.refuse("table", "options", _option_reason(known, value), value,
                           more=(option,))


def _check_profile(table: Mapping[str, Any], checker: _Checker) -> None:
    """``[table] profile``: a profile that loads, and no ``[table] options`` against it."""
    from tabletop.engine.profile import load_profile

    try:
        profile = load_profile(table["profile"])
    except TabletopError as error:
        checker.refuse("table", "profile", str(error), table["profile"])
        return
    if table["options"] and ("table", "rules") not in checker.refused:
        from tabletop.engine.ruleset import load_rules

        try:
            rules = load_rules(os.path.expanduser(table["rules"]))
            profile.check(rules, {**profile.setup_options(rules), **table["options"]})
        except TabletopError as error:
            checker.refuse("table", "options", f"{error}: the profile holds its options "
                                               f"(take this one out of [table] options)",
                           shown_value=False)


def table_profile(config: Config) -> Any:
    """The profile ``[table] profile`` names (a :class:`~tabletop.engine.profile.Profile`),
    or None; the configuration was checked when it was loaded."""
    from tabletop.engine.profile import load_profile

    name = config.values["table"]["profile"]
    return load_profile(name) if name else None


def _option_reason(option: Any, value: Any) -> str:
    """Why the rule set's ``option`` refuses ``value``, in the words of the configuration."""
    if type(value) is not type(option.default):
        return f"must be {_kind(option.default)}"
    if option.choices is not None and value not in option.choices:
        return one_of(value, option.choices)
    return f"must be {option.minimum} or more"


def _kind(default: Any) -> str:
    """What kind of value a key whose default is ``default`` takes, in plain words.

    >>> _kind(10), _kind(1.5), _kind(True), _kind("usb:0")
    ('a whole number, e.g. 10', 'a number, e.g. 1.5', 'true or false', 'text in quotes, e.g. "usb:0"')
    """
    words = {bool: "true or false", int: "a whole number", float: "a number",
             str: "text in quotes", list: "a list in brackets, e.g. [\"Ann\", \"Bob\"]",
             dict: "a table in braces, e.g. {name = value}"}[type(default)]
    example = isinstance(default, (int, float, str)) and not isinstance(default, bool) \
        and default != ""
    return f"{words}, e.g. {shown(default)}" if example else words


def _overlay(values: dict[str, dict[str, Any]], given: Mapping[str, Any],
             checker: _Checker) -> None:
    for section, table in given.items():
        if section not in DEFAULTS:
            checker.in_file((section,), f"[{section:.64}]: no such section"
                                        f"{_near(section, list(DEFAULTS))}; sections: "
                                        f"{', '.join(DEFAULTS)}")
            continue
        if not isinstance(table, dict):
            checker.in_file((section,), f"{section} must be a section: a line [{section}], "
                                        f"then its keys")
            continue
        for key, value in table.items():
            if key not in DEFAULTS[section]:
                where = _rule_option(key, value, table) if section == "table" else ""
                checker.in_file((section, key), f"[{section}] {key:.64}: no such key" + (
                    where or f"{_near(key, list(DEFAULTS[section]))}; [{section}] has "
                             f"{', '.join(DEFAULTS[section])}"))
                continue
            default = DEFAULTS[section][key]
            if type(value) is not type(default) and not (
                    isinstance(default, float) and type(value) is int):
                checker.refuse(section, key, f"must be {_kind(default)}", value)
                continue
            values[section][key] = value


def _rule_option(key: str, value: Any, table: Mapping[str, Any]) -> str:
    """Where a rule set's option set as a key of ``[table]`` goes: ``options = { ... }``
    (with the closest allowed value, when the one given is a near miss); "" for other keys."""
    from tabletop.engine.ruleset import load_rules

    name = table.get("rules", DEFAULTS["table"]["rules"])
    try:
        rules = load_rules(os.path.expanduser(name)) if isinstance(name, str) else None
    except TabletopError:
        return ""
    option = rules.options.get(key) if rules is not None else None
    if option is None:
        return ""
    if option.choices is not None and value not in option.choices:
        near = close_match(str(value).lower(), [str(choice) for choice in option.choices])
        value = near if near is not None else value
    return (f"; {key} is a rule option of {rules.name}: set it in [table] options, "
            f"e.g. options = {{ {key} = {shown(value)} }}")


def default_journal_path() -> Path:
    """``journal.db`` in the configured data folder: where the table's games are kept."""
    return load_config().data_dir / "journal.db"
