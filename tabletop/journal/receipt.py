"""A score slip as a receipt printer prints it: every line at most ``columns`` columns.

>>> from tabletop.journal.keys import signing_key_from_seed
>>> from tabletop.journal.signing import sign
>>> slip = sign({"slip": 2, "title": "Acquire", "table": "table 1", "game": 3,
...              "seat": {"round": 2, "table": "5"}, "currency": "$",
...              "players": [{"rank": 1, "name": "Ann", "seat": 1, "cash": 9100}]},
...             signing_key_from_seed(bytes(32)))
>>> print(slip_text(slip))   # doctest: +ELLIPSIS
================================
           SCORE SLIP
================================
Acquire
Table                    table 1
Game                           3
Round                          2
Tournament table               5
...
1. Ann (seat 1)           $9,100
...
Ed25519 key 139e-3940-e64b-5491
...
"""

from __future__ import annotations

import json
import textwrap
import unicodedata
from typing import Any, Mapping

from tabletop.errors import SlipError
from tabletop.journal.slipfile import qr_payload

COLUMNS = 32
MIN_COLUMNS, MAX_COLUMNS = 16, 200
#: The ``clock`` field of a slip whose times come from a clock no time server had set (a Pi
#: without a real-time clock, booted with no network): its times may be far off.
UNSYNCHRONISED = "unsynchronised"


def width(text: str) -> int:
    """Columns ``text`` takes on a receipt printer (wide East Asian characters take two).

    >>> width("Ann"), width("李")
    (3, 2)
    """
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _fit(text: str, columns: int) -> list[str]:
    """``text`` broken into lines of at most ``columns`` columns (2 at least: a wide
    character takes two), every line holding one character at least.

    >>> _fit("李小龍 Bob", 3)
    ['李', '小', '龍', 'Bob']
    """
    columns = max(columns, 2)
    lines = []
    for line in textwrap.wrap(text, columns, break_long_words=True) or [""]:
        while width(line) > columns:
            cut = _cut(line, columns)
            lines.append(line[:cut])
            line = line[cut:]
        lines.append(line)
    return lines


def _cut(line: str, columns: int) -> int:
    """How many of ``line``'s characters fit ``columns`` columns; one at least.

    >>> _cut("ab李c", 3), _cut("李", 1)
    (2, 1)
    """
    used = 0
    for index, character in enumerate(line):
        used += width(character)
        if used > columns:
            return max(index, 1)
    return len(line)


def _row(left: str, right: str, columns: int) -> list[str]:
    """``left`` and ``right`` on one line, right aligned; or ``right`` on lines of its own."""
    if width(left) + 1 + width(right) <= columns:
        return [left + " " * (columns - width(left) - width(right)) + right]
    return _fit(left, columns) + [line.rjust(columns - width(line) + len(line))
                                  for line in _fit(right, columns)]


def slip_text(slip: Mapping[str, Any], columns: int = COLUMNS, qr_text: bool = False) -> str:
    """The slip for a receipt printer: every line at most ``columns`` columns.

    Each player's line names the seat too: a printer that cannot print a name
    (``???``) still tells the players apart. ``qr_text``: end with the text of the
    slip's QR code (:func:`qr_payload`), which ``tabletop verify`` reads from a file.
    """
    if not MIN_COLUMNS <= columns <= MAX_COLUMNS:
        raise SlipError(f"a receipt of {columns} columns cannot hold a slip "
                        f"({MIN_COLUMNS} to {MAX_COLUMNS})")
    def money(amount: int) -> str:
        unit = slip.get("currency", "")
        return f"{amount:,}{unit}" if slip.get("currency_after") else f"{unit}{amount:,}"

    rule, thin = "=" * columns, "-" * columns
    out = [rule, "SCORE SLIP".center(columns).rstrip(), rule]
    out += _fit(str(slip.get("title") or slip.get("rules", "")), columns)
    out += _row("Table", str(slip.get("table", "")), columns)
    out += _row("Game", str(slip.get("game", "")), columns)
    out += _seat_lines(slip.get("seat"), columns)
    out += _row("Started", _when(slip.get("started")), columns)
    out += _row("Finished", _when(slip.get("finished")), columns)
    if slip.get("clock") == UNSYNCHRONISED:
        out += _fit("Times: clock not synchronised", columns)
    out += _row("Actions", str(slip.get("actions", "")), columns)
    out.append(thin)
    for player in slip.get("players", []):
        seat = f" (seat {player['seat']})" if "seat" in player else ""
        out += _row(f"{player['rank']}. {player['name']}{seat}", money(player["cash"]), columns)
        for label, part in (("bonus", "bonuses"), ("sold", "sales")):
            for chain, amount in player.get(part, {}).items():
                out += _row(f"  {label} {chain}", money(amount), columns)
    out.append(thin)
    out += _profile_lines(slip.get("profile"), columns)
    out += ["Options:"]
    for name, value in slip.get("options", {}).items():
        out += _fit(f"  {name}={json.dumps(value)}", columns)
    signature = slip.get("signature")
    if isinstance(signature, dict):
        out += [thin] + _signature_lines(signature, columns)
        if qr_text:
            out += [thin, "QR code text:"] + _chunks(qr_payload(slip), columns)
    out.append(rule)
    return "\n".join(out) + "\n"


def _profile_lines(profile: Any, columns: int) -> list[str]:
    """The profile the game was held to, and the start of its digest (none: no lines).

    >>> _profile_lines({"name": "tournament", "sha256": "ab12" * 16}, 32)
    ['Profile: tournament (held)', 'Profile sha256      ab12ab12ab12']
    """
    if not isinstance(profile, dict):
        return []
    return (_fit(f"Profile: {profile.get('name')} (held)", columns)
            + _row("Profile sha256", str(profile.get("sha256", ""))[:12], columns))


def _seat_lines(seat: Any, columns: int) -> list[str]:
    """The tournament, round and table a game was set up for (none: no lines)."""
    if not isinstance(seat, dict):
        return []
    named = _fit(f"Tournament: {seat['tournament']}", columns) if "tournament" in seat else []
    return (named + _row("Round", str(seat.get("round", "")), columns)
            + _row("Tournament table", str(seat.get("table", "")), columns))


def _signature_lines(signature: Mapping[str, Any], columns: int) -> list[str]:
    """Who signed (an Ed25519 key's fingerprint, or an old HMAC key's id) and the signature.

    >>> _signature_lines({"algorithm": "Ed25519", "fingerprint": "139e-3940-e64b-5491",
    ...                   "slip": "x" * 40}, 32)
    ['Ed25519 key 139e-3940-e64b-5491', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'xxxxxxxx']
    """
    who = signature.get("fingerprint", signature.get("key_id"))
    mac = str(signature.get("slip", ""))
    return (_fit(f"{signature.get('algorithm')} key {who}", columns)
            + [mac[i:i + columns] for i in range(0, len(mac), columns)])


def _chunks(text: str, columns: int) -> list[str]:
    """``text`` cut into lines of ``columns`` columns, every character kept (no wrapping).

    >>> _chunks('{"a":"李李"}', 5)
    ['{"a":', '"李李', '"}']
    """
    lines = []
    while text:
        cut = _cut(text, columns)
        lines.append(text[:cut])
        text = text[cut:]
    return lines


def _when(stamp: Any) -> str:
    """
    >>> _when("2026-03-01T14:03:22Z"), _when(None)
    ('2026-03-01 14:03:22Z', '-')
    """
    return str(stamp).replace("T", " ") if stamp else "-"

