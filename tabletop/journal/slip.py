"""Score slips: a finished game's result, signed so that a tournament can trust it.

A slip is JSON: the table's name, the game's id, its times, rule set and
options, a digest of its table script, and for each player (best first) the
rank, the final cash, and the bonuses and share sales by chain. It is signed
with HMAC-SHA256 under the table's key (``slip.key`` in the data folder,
created on first use, readable by its owner only): one HMAC over the whole
slip and one per field, so that :func:`verify` can name exactly which field
was changed, added or removed.

>>> key = bytes(32)
>>> slip = sign({"table": "table 1", "game": 3, "players": [{"name": "Ann", "cash": 100}]}, key)
>>> str(verify(slip, key))
'valid'
>>> slip["players"][0]["cash"] = 1000
>>> str(verify(slip, key))
'invalid: field players[0].cash was changed'
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import os
import secrets
import textwrap
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from tabletop.errors import SlipError
from tabletop.journal.export import payouts_of, played_events
from tabletop.journal.store import canonical, fsync_dir

SLIP_FORMAT = 1
ALGORITHM = "HMAC-SHA256"
KEY_FILE = "slip.key"
COLUMNS = 32
FIELD_MAC_HEX = 32   # each field's HMAC, truncated to 128 bits; the whole slip's is complete


# -- the key -------------------------------------------------------------------------

def table_key(data_dir: str | Path) -> bytes:
    """The table's signing key: ``slip.key`` in ``data_dir``, made (mode 0600) on first use."""
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        _create_key(path)
    if os.name == "posix" and path.stat().st_mode & 0o077:
        raise SlipError(f"{path} can be read by other users: the table's key must be private "
                        f"(chmod 600 {path})")
    return load_key(path)


def _create_key(path: Path) -> None:
    """Make the key file whole or not at all: written and fsynced under a temporary name,
    then linked into place (never over a key another program made meanwhile)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as error:
        raise SlipError(f"cannot create the table's key {path}: {error.strerror}") from None
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)   # whatever the umask
            os.write(fd, (secrets.token_hex(32) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass   # another program made it a moment ago: theirs is the key
        except OSError:
            if not path.exists():   # a file system without hard links
                os.replace(temporary, path)
        fsync_dir(path.parent)
    except OSError as error:
        raise SlipError(f"cannot create the table's key {path}: {error.strerror}") from None
    finally:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass


def load_key(path: str | Path) -> bytes:
    """A key file's key: hexadecimal digits, 32 bytes or more."""
    try:
        text = Path(path).read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except OSError as error:
        raise SlipError(f"cannot read the key {path}: {error.strerror}") from None
    except (UnicodeDecodeError, ValueError):
        raise SlipError(f"{path} is not a slip key (it holds 64 hexadecimal digits)") from None
    if len(key) < 16:
        raise SlipError(f"{path} is too short to be a slip key")
    return key


def key_id(key: bytes) -> str:
    """A short name of a key that does not reveal it.

    >>> key_id(bytes(32))
    '66687aad'
    """
    return hashlib.sha256(key).hexdigest()[:8]


# -- making a slip ---------------------------------------------------------------------

def slip_data(info: Any, lines: list[str]) -> dict[str, Any]:
    """The unsigned slip of a finished game (``info``: its journal entry; ``lines``: its script)."""
    game, events = played_events(lines)
    if not game.over:
        raise SlipError(f"game {info.id} is not finished: a score slip is made after the final payout")
    by_seat: list[dict[str, dict[str, int]]] = [{"bonuses": {}, "sales": {}} for _ in game.names]
    for payout in payouts_of(game, events):
        part = {"bonus": "bonuses", "merger_sale": "sales", "final_sale": "sales"}.get(payout.kind)
        if part is not None:
            totals = by_seat[payout.seat][part]
            totals[payout.chain] = totals.get(payout.chain, 0) + payout.amount
    script = "".join(line + "\n" for line in lines)
    rules = game.rules
    return {
        "slip": SLIP_FORMAT, "table": info.table, "game": info.id,
        "rules": rules.name, "title": rules.title, "options": dict(game.options),
        "started": info.started, "finished": info.finished,
        "currency": rules.currency, "currency_after": rules.currency_after,
        "actions": len(lines) - 1,
        "script_sha256": hashlib.sha256(script.encode("utf-8")).hexdigest(),
        "players": [{"rank": rank, "name": game.names[seat], "seat": seat + 1,
                     "cash": game.cash[seat], **by_seat[seat]}
                    for seat, rank in game.standings],
    }


def make_slip(journal: Any, game_id: int, key: bytes) -> dict[str, Any]:
    """The signed slip of game ``game_id`` of an open journal."""
    return sign(slip_data(journal.info(game_id), journal.lines(game_id)), key)


# -- signing and verifying -----------------------------------------------------------------

def fields(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every field of a slip as ``(path, value)``; an empty object or list is one field.

    >>> list(fields({"a": 1, "p": [{"cash": 5}], "o": {}}))
    [('a', 1), ('p[0].cash', 5), ('o', {})]
    """
    if isinstance(value, dict) and value:
        for name, item in value.items():
            yield from fields(item, f"{path}.{name}" if path else str(name))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from fields(item, f"{path}[{index}]")
    else:
        yield path, value


def _mac(key: bytes, value: Any) -> str:
    return hmac.new(key, canonical(value), hashlib.sha256).hexdigest()


def _field_mac(key: bytes, path: str, value: Any) -> str:
    return _mac(key, [path, value])[:FIELD_MAC_HEX]


def sign(slip: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    """The slip with its ``signature``: the whole slip's HMAC and one HMAC per field."""
    body = {name: value for name, value in slip.items() if name != "signature"}
    signed = copy.deepcopy(body)
    signed["signature"] = {
        "algorithm": ALGORITHM, "key_id": key_id(key),
        "fields": {path: _field_mac(key, path, value) for path, value in fields(body)},
        "field_list": _mac(key, sorted(path for path, _ in fields(body))),
        "slip": _mac(key, body),
    }
    return signed


@dataclass
class Verification:
    """The verdict on a slip: ``valid``, or the problems found (each names its field)."""

    problems: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        if self.valid:
            return "valid"
        return "invalid: " + "\ninvalid: ".join(self.problems)


def verify(slip: Any, key: bytes) -> Verification:
    """Check a slip's signature under ``key``, naming each field that was changed."""
    signature = slip.get("signature") if isinstance(slip, dict) else None
    if not isinstance(signature, dict) or not isinstance(signature.get("fields"), dict) \
            or not isinstance(signature.get("slip"), str):
        return Verification(["the slip has no signature (or its signature block is malformed)"])
    if signature.get("algorithm") != ALGORITHM:
        return Verification([f"unknown signature algorithm {signature.get('algorithm')!r}"])
    body = {name: value for name, value in slip.items() if name != "signature"}
    if _same(_mac(key, body), signature["slip"]):
        return Verification()
    present = dict(fields(body))
    ours = any(isinstance(mac, str) and _same(_field_mac(key, path, present[path]), mac)
               for path, mac in signature["fields"].items() if path in present)
    if not ours:
        # Not one field's HMAC holds under this key: the slip was signed with another one
        # (its key_id, a hint only, may have been changed as well).
        return Verification([f"the slip was signed with another key (key id "
                             f"{signature.get('key_id')}; this key's id is {key_id(key)})"])
    problems = _changed_fields(body, signature["fields"], key)
    if not problems:
        listed = signature.get("field_list")
        if isinstance(listed, str) and not _same(_mac(key, sorted(signature["fields"])), listed):
            problems.append("a field was removed together with its entry in the signature")
        else:
            problems.append("the signature itself was changed")
    return Verification(problems)


def _same(mine: str, given: str) -> bool:
    return hmac.compare_digest(mine.encode(), given.encode("utf-8", "surrogatepass"))


def _changed_fields(body: dict[str, Any], signed: Mapping[str, Any], key: bytes) -> list[str]:
    present = dict(fields(body))
    problems = []
    for path, value in present.items():
        mac = signed.get(path)
        if not isinstance(mac, str):
            problems.append(f"field {path} was added")
        elif not _same(_field_mac(key, path, value), mac):
            problems.append(f"field {path} was changed")
    problems += [f"field {path} was removed" for path in signed if path not in present]
    return problems


def read_slip(path: str | Path) -> dict[str, Any]:
    """A slip file's JSON; SlipError if it cannot be read."""
    try:
        slip = json.loads(Path(path).read_text(encoding="utf-8"), object_pairs_hook=_unique)
    except OSError as error:
        raise SlipError(f"cannot read {path}: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SlipError(f"{path} is not a slip (not JSON: {error})") from None
    except _Twice as error:
        raise SlipError(f"{path} is not a valid slip: field {error} is given twice (readers "
                        f"would disagree on its value)") from None
    if not isinstance(slip, dict):
        raise SlipError(f"{path} is not a slip (a JSON object is expected)")
    return slip


class _Twice(ValueError):
    """A JSON object gives one name twice."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise _Twice(name)
        found[name] = value
    return found


# -- the receipt ---------------------------------------------------------------------------

def width(text: str) -> int:
    """Columns ``text`` takes on a receipt printer (wide East Asian characters take two).

    >>> width("Ann"), width("李")
    (3, 2)
    """
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _fit(text: str, columns: int) -> list[str]:
    """``text`` broken into lines of at most ``columns`` columns."""
    lines = []
    for line in textwrap.wrap(text, columns, break_long_words=True) or [""]:
        while width(line) > columns:
            cut = len(line)
            while width(line[:cut]) > columns:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
        lines.append(line)
    return lines


def _row(left: str, right: str, columns: int) -> list[str]:
    """``left`` and ``right`` on one line, right aligned; or ``right`` on lines of its own."""
    if width(left) + 1 + width(right) <= columns:
        return [left + " " * (columns - width(left) - width(right)) + right]
    return _fit(left, columns) + [line.rjust(columns - width(line) + len(line))
                                  for line in _fit(right, columns)]


def slip_text(slip: Mapping[str, Any], columns: int = COLUMNS) -> str:
    """The slip for a receipt printer: every line at most ``columns`` columns."""
    def money(amount: int) -> str:
        unit = slip.get("currency", "")
        return f"{amount:,}{unit}" if slip.get("currency_after") else f"{unit}{amount:,}"

    rule, thin = "=" * columns, "-" * columns
    out = [rule, "SCORE SLIP".center(columns).rstrip(), rule]
    out += _fit(str(slip.get("title") or slip.get("rules", "")), columns)
    out += _row("Table", str(slip.get("table", "")), columns)
    out += _row("Game", str(slip.get("game", "")), columns)
    out += _row("Started", _when(slip.get("started")), columns)
    out += _row("Finished", _when(slip.get("finished")), columns)
    out += _row("Actions", str(slip.get("actions", "")), columns)
    out.append(thin)
    for player in slip.get("players", []):
        out += _row(f"{player['rank']}. {player['name']}", money(player["cash"]), columns)
        for label, part in (("bonus", "bonuses"), ("sold", "sales")):
            for chain, amount in player.get(part, {}).items():
                out += _row(f"  {label} {chain}", money(amount), columns)
    out += [thin, "Options:"]
    for name, value in slip.get("options", {}).items():
        out += _fit(f"  {name}={json.dumps(value)}", columns)
    signature = slip.get("signature")
    if isinstance(signature, dict):
        out += [thin] + _fit(f"{signature.get('algorithm')} key {signature.get('key_id')}", columns)
        mac = str(signature.get("slip", ""))
        out += [mac[i:i + columns] for i in range(0, len(mac), columns)]
    out.append(rule)
    return "\n".join(out) + "\n"


def _when(stamp: Any) -> str:
    """
    >>> _when("2026-03-01T14:03:22Z"), _when(None)
    ('2026-03-01 14:03:22Z', '-')
    """
    return str(stamp).replace("T", " ") if stamp else "-"
