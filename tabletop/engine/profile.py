"""Profiles: a named set of option values a director hands to every table, held strictly.

A profile names some options; a game set up under it plays by those values and
by its rule set's defaults for every other option, and nobody at the table may
change any of them. The game's setup line carries the profile (its name, the
values it names and their digest), so its journal, its replay and its score
slip all say which profile it was played under.

>>> profile = builtin_profile("tournament")
>>> profile.name, profile.options["agreed_end"], profile.options["dead_reveal"]
('tournament', False, 'end_of_turn')
>>> from tabletop.engine.ruleset import load_rules
>>> held = profile.options_for(load_rules("acquire"))
>>> held["incorrect_placement"], held["bonus_mode"]
('same_turn', 'classic')

A profile file (``tournament.toml``)::

    profile = "tournament"
    [options]
    agreed_end = false
    incorrect_placement = "same_turn"
    dead_reveal = "end_of_turn"

>>> parse_profile('profile = "club"\\n[options]\\nagred_end = false\\n', "club.toml")
Traceback (most recent call last):
...
tabletop.engine.profile.ProfileError: club.toml: [options] agred_end: no such option (did you mean agreed_end?)
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from tabletop.engine.ruleset import RuleSet, available_rules, load_rules
from tabletop.errors import IllegalAction, TabletopError
from tabletop.messages import Message

#: The top-level keys of a profile file.
KEYS = ("profile", "options")
#: A profile file is a few lines: a larger file is not one.
MAX_PROFILE_BYTES = 16 * 1024

#: The profiles shipped: their values as a profile file would give them. "tournament" is
#: seed 001's rules held strictly: a misplaced tile moved only in the same turn, no end by
#: agreement, a dead tile revealed at the end of its holder's own turn; every other option
#: (the turn order among them) at the rule set's defaults.
BUILTIN: Mapping[str, Mapping[str, Any]] = {
    "tournament": {"agreed_end": False, "incorrect_placement": "same_turn",
                   "dead_reveal": "end_of_turn"},
}


class ProfileError(TabletopError):
    """A profile that cannot be used (a file's typo, a value no rule set takes)."""


@dataclass(frozen=True)
class Profile:
    """A named set of option values (see the module's docstring)."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def sha256(self) -> str:
        """The digest of the profile's name and values (key order does not matter).

        >>> Profile("x", {"a": 1, "b": 2}).sha256 == Profile("x", {"b": 2, "a": 1}).sha256
        True
        """
        return digest(self.name, self.options)

    def options_for(self, rules: RuleSet) -> dict[str, Any]:
        """Every option of ``rules`` as this profile holds it (an option the profile names
        and ``rules`` lacks is left out); IllegalAction if ``rules`` refuses a value."""
        named = {name: value for name, value in self.options.items() if name in rules.options}
        return rules.resolve_options(named)

    def setup_options(self, rules: RuleSet) -> dict[str, Any]:
        """The options a setup line gives under this profile: those that differ from the
        rule set's defaults (the rest are the defaults, held)."""
        return {name: value for name, value in self.options_for(rules).items()
                if value != rules.options[name].default}

    def entry(self) -> dict[str, Any]:
        """The setup line's ``profile``: ``{"name", "options", "sha256"}``."""
        return {"name": self.name, "options": dict(self.options), "sha256": self.sha256}

    def check(self, rules: RuleSet, options: Mapping[str, Any] | None) -> None:
        """IllegalAction unless ``options`` resolve to exactly what the profile holds."""
        held, given = self.options_for(rules), rules.resolve_options(options)
        for name, value in given.items():
            if value != held[name]:
                raise IllegalAction(Message(
                    "the profile {profile} holds option {option} at {held}, not {value}",
                    profile=self.name, option=name, held=json.dumps(held[name]),
                    value=json.dumps(value)))


def digest(name: str, options: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``{"profile": name, "options": options}``."""
    text = json.dumps({"profile": name, "options": dict(options)}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def builtin_profile(name: str) -> Profile:
    """A shipped profile by name; ProfileError (with a did-you-mean) if there is none."""
    if name not in BUILTIN:
        raise ProfileError(f"no profile called {name!r}{_near(name, BUILTIN)}; built in: "
                           f"{', '.join(BUILTIN)}, or give the path of a profile file (.toml)")
    return Profile(name, dict(BUILTIN[name]))


def load_profile(name_or_path: str | Path) -> Profile:
    """A shipped profile by name (``"tournament"``) or a profile file by path (``.toml``)."""
    text = str(name_or_path)
    if text in BUILTIN or not text.endswith(".toml"):
        return builtin_profile(text)
    path = Path(os.path.expanduser(text))
    return parse_profile(_read(path), path.name)


def _read(path: Path) -> str:
    # Without blocking, and only a regular file: a pipe put in its place would hang the table.
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ProfileError(f"{path} is not a profile file (not a regular file)")
            data = os.read(fd, MAX_PROFILE_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as error:
        raise ProfileError(f"cannot read the profile file {path}: {error.strerror}") from None
    if len(data) > MAX_PROFILE_BYTES:
        raise ProfileError(f"{path} is too large to be a profile file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProfileError(f"{path} is not a profile file (not UTF-8: byte {error.start})") from None


def parse_profile(text: str, origin: str) -> Profile:
    """The profile a profile file's ``text`` gives; ProfileError naming the key otherwise.

    Every option named must be an option of some shipped rule set, and its value one
    that every shipped rule set having it takes.
    """
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as error:
        raise ProfileError(f"{origin}: not valid TOML: {error}") from None
    for key in data:
        if key not in KEYS:
            raise ProfileError(f"{origin}: {key:.64}: no such key{_near(key, KEYS)}; a profile "
                               f"has: {', '.join(KEYS)}")
    name = data.get("profile")
    if not isinstance(name, str) or not name.strip() or len(name) > 64:
        raise ProfileError(f'{origin}: profile: missing or not a name, e.g. profile = "tournament"')
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ProfileError(f"{origin}: options must be a table: a line [options], then its keys")
    for option, value in options.items():
        _check_option(option, value, origin)
    return Profile(name.strip(), options)


def _check_option(option: str, value: Any, origin: str) -> None:
    having = [rules for rules in map(load_rules, available_rules()) if option in rules.options]
    if not having:
        known = sorted({name for rules in map(load_rules, available_rules())
                        for name in rules.options})
        raise ProfileError(f"{origin}: [options] {option:.64}: no such option"
                           f"{_near(option, known) or '; options: ' + ', '.join(known)}")
    for rules in having:
        known = rules.options[option]
        try:
            known.check(value)
        except IllegalAction:
            allowed = (", ".join(map(json.dumps, known.choices)) if known.choices is not None
                       else type(known.default).__name__.replace("bool", "true or false"))
            near = _near(str(value), [str(c) for c in known.choices or ()])
            raise ProfileError(f"{origin}: [options] {option} = {json.dumps(value)}: must be "
                               f"{allowed}{near}") from None


def _near(word: str, names: Any) -> str:
    """`` (did you mean X?)`` for the name nearest ``word``, if one is near (as
    :mod:`tabletop.suggest` does; the engine uses the standard library alone)."""
    found = difflib.get_close_matches(str(word), [str(name) for name in names], n=1, cutoff=0.6)
    return f" (did you mean {found[0]}?)" if found else ""


def profile_of_setup(setup: Mapping[str, Any]) -> Profile | None:
    """The profile a setup line names (None: none), checked against its digest.

    >>> entry = builtin_profile("tournament").entry()
    >>> profile_of_setup({"profile": entry}).name
    'tournament'
    >>> profile_of_setup({"profile": {**entry, "options": {}}})
    Traceback (most recent call last):
    ...
    tabletop.engine.profile.ProfileError: setup: the profile's sha256 does not match its name and options
    """
    entry = setup.get("profile")
    if entry is None:
        return None
    if not isinstance(entry, dict) or set(entry) != {"name", "options", "sha256"} \
            or not isinstance(entry["name"], str) or not isinstance(entry["options"], dict):
        raise ProfileError('setup: profile must be {"name": ..., "options": {...}, '
                           '"sha256": ...}')
    profile = Profile(entry["name"], entry["options"])
    if entry["sha256"] != profile.sha256:
        raise ProfileError("setup: the profile's sha256 does not match its name and options")
    return profile
