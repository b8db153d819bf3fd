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

import base64
import copy
import hashlib
import hmac
import json
import os
import secrets
import stat
import textwrap
import unicodedata
import zlib
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
#: What a slip's QR code text begins with (see qr_payload).
QR_PREFIX = "TTSLIP1:"
MIN_COLUMNS, MAX_COLUMNS = 16, 200
FIELD_MAC_HEX = 32   # each field's HMAC, truncated to 128 bits; the whole slip's is complete
MAX_KEY_BYTES = 4096
#: A slip of 6 players is a few kilobytes: anything much larger is not one.
MAX_SLIP_BYTES = 1 << 20
#: A slip nests four deep (players, a player, bonuses, a chain): deeper is not a slip,
#: and would take Python's recursion (JSON, signing) to its limit.
MAX_SLIP_DEPTH = 16


# -- the key -------------------------------------------------------------------------

def table_key(data_dir: str | Path) -> bytes:
    """The table's signing key: ``slip.key`` in ``data_dir``, made (mode 0600) on first use."""
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        _create_key(path)
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
    """A key file's key: hexadecimal digits, 32 bytes or more, in a file only its owner reads.

    Whether it is the data folder's key or one named with ``--key``: a key others can
    read lets them sign slips of games never played.
    """
    try:
        text = read_regular(path, MAX_KEY_BYTES, "the key", private=True).decode("ascii").strip()
        key = bytes.fromhex(text)
    except (UnicodeDecodeError, ValueError):
        raise SlipError(f"{path} is not a slip key (it holds 64 hexadecimal digits)") from None
    if len(key) < 16:
        raise SlipError(f"{path} is too short to be a slip key")
    return key


def read_regular(path: str | Path, limit: int, what: str, private: bool = False) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them; SlipError if not.

    Opened without blocking and checked before reading: a FIFO or a device named as a
    slip or a key would otherwise hang the command or read without end. ``private``:
    refused if others may read it (``chmod 600``).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise SlipError(f"cannot read {what} {path}: {error.strerror}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise SlipError(f"cannot read {what} {path}: not a regular file")
        if private and os.name == "posix" and status.st_mode & 0o077:
            raise SlipError(f"{path} can be read by other users: the table's key must be private "
                            f"(chmod 600 {path})")
        if status.st_size > limit:
            raise SlipError(f"{path} is too large to be {what} ({status.st_size:,} bytes; "
                            f"at most {limit:,})")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise SlipError(f"cannot read {what} {path}: {error.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:   # it grew while being read
        raise SlipError(f"{path} is too large to be {what} (more than {limit:,} bytes)")
    return b"".join(chunks)


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
        # The rules the result was worked out by (a rule file's text is recorded with its
        # game): two slips of one script under different rules differ here. Slips made
        # before this field verify as they did (a field is signed only if present).
        "rules_sha256": rules.sha256,
        "players": [{"rank": rank, "name": game.names[seat], "seat": seat + 1,
                     "cash": game.cash[seat], **by_seat[seat]}
                    for seat, rank in game.standings],
    }


#: The ``clock`` field of a slip whose times come from a clock no time server had set (a Pi
#: without a real-time clock, booted with no network): its times may be far off.
UNSYNCHRONISED = "unsynchronised"


def make_slip(journal: Any, game_id: int, key: bytes,
              clock_synchronised: bool | None = None) -> dict[str, Any]:
    """The signed slip of game ``game_id`` of an open journal; its times are marked
    :data:`UNSYNCHRONISED` (a signed field) when ``clock_synchronised`` is False."""
    body = slip_data(journal.info(game_id), journal.lines(game_id))
    if clock_synchronised is False:
        body["clock"] = UNSYNCHRONISED
    return sign(body, key)


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
    """Check a slip's signature under ``key``, naming each field that was changed.

    A slip read from its QR code carries the whole slip's signature only
    (:func:`qr_payload`): it is valid or not, and which field changed cannot be said.
    """
    signature = slip.get("signature") if isinstance(slip, dict) else None
    if not isinstance(signature, dict) or not isinstance(signature.get("fields", {}), dict) \
            or not isinstance(signature.get("slip"), str):
        return Verification(["the slip has no signature (or its signature block is malformed)"])
    if signature.get("algorithm") != ALGORITHM:
        return Verification([f"unknown signature algorithm {_shown(repr(signature.get('algorithm')))}"])
    body = {name: value for name, value in slip.items() if name != "signature"}
    if _same(_mac(key, body), signature["slip"]):
        return Verification()
    if not signature.get("fields"):
        return Verification([_unnamed(signature, body, key)])
    present = dict(fields(body))
    ours = any(isinstance(mac, str) and _same(_field_mac(key, path, present[path]), mac)
               for path, mac in signature["fields"].items() if path in present)
    if not ours:
        return Verification([_not_ours(signature, key)])
    problems = _changed_fields(body, signature["fields"], key)
    if not problems:
        listed = signature.get("field_list")
        if isinstance(listed, str) and not _same(_mac(key, sorted(signature["fields"])), listed):
            problems.append("a field was removed together with its entry in the signature")
        else:
            problems.append("the signature itself was changed")
    return Verification(problems)


def _not_ours(signature: Mapping[str, Any], key: bytes) -> str:
    """Why not one field's HMAC holds under ``key``: another key, or the signature replaced.

    The slip's ``key_id`` is a hint only (it may have been changed as well).
    """
    named, mine = _shown(signature.get("key_id")), key_id(key)
    if named == mine:
        return (f"not one field of the slip matches its signature, although the slip names "
                f"this key (key id {mine}): the signature was replaced or forged")
    return f"the slip was signed with another key (key id {named}; this key's id is {mine})"


def _unnamed(signature: Mapping[str, Any], body: dict[str, Any], key: bytes) -> str:
    """Why a slip without per-field HMACs fails: its QR form, or those HMACs were removed."""
    named, mine = _shown(signature.get("key_id")), key_id(key)
    whose = (f"the slip names this key (key id {mine})" if named == mine else
             f"the slip names key id {named}; this key's id is {mine}")
    if "fields" not in signature:
        return (f"the slip does not match its signature: it was changed after it was signed, "
                f"or signed with another key ({whose}); a slip read from its QR code has one "
                f"signature for the whole slip, so the changed field cannot be named: compare "
                f"it with the printed slip")
    listed = signature.get("field_list")
    if isinstance(listed, str) and _same(_mac(key, sorted(dict(fields(body)))), listed):
        return ("the slip's signed fields were removed from its signature, and a field's value "
                "was changed (the slip was signed with this key)")
    return (f"the slip's signed fields were removed from its signature, and the slip does not "
            f"match the rest of it: it was changed after it was signed, or signed with another "
            f"key ({whose})")


def qr_payload(slip: Mapping[str, Any]) -> str:
    """The text of a signed slip's QR code: :data:`QR_PREFIX`, then the slip with its
    whole-slip signature only, compressed (raw DEFLATE) in URL-safe base64.

    The per-field HMACs, and the slip's JSON as it is (2 kB for six players), would not
    fit a QR code a 58 mm printer can print; the whole slip's HMAC covers every field.
    :func:`read_slip` reads this text back from a file, :func:`verify` checks it.

    >>> text = qr_payload(sign({"game": 3}, bytes(32)))
    >>> text.startswith(QR_PREFIX), str(verify(slip_from_qr(text), bytes(32)))
    (True, 'valid')
    """
    signature = slip.get("signature")
    if not isinstance(signature, dict):
        raise SlipError("the slip is not signed: it has no QR code")
    body = {name: value for name, value in slip.items() if name != "signature"}
    body["signature"] = {name: signature[name] for name in ("algorithm", "key_id", "slip")
                         if name in signature}
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(canonical(body)) + packer.flush()
    return QR_PREFIX + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def slip_from_qr(text: str) -> Any:
    """The slip in a QR code's text (:func:`qr_payload`), as JSON values; SlipError if not one."""
    code = "".join(text.split())[len(QR_PREFIX):]   # a printed copy may be cut into lines
    try:
        packed = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        unpacker = zlib.decompressobj(-15)
        raw = unpacker.decompress(packed, MAX_SLIP_BYTES)
    except (ValueError, zlib.error):
        raise SlipError("the QR code's text is damaged (a character is missing or wrong)") from None
    if unpacker.unconsumed_tail or unpacker.unused_data or not unpacker.eof:
        raise SlipError("the QR code's text is damaged or holds more than a slip")
    try:
        return _parse(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SlipError("the QR code's text is damaged (not a slip)") from None


def _same(mine: str, given: str) -> bool:
    return hmac.compare_digest(mine.encode(), given.encode("utf-8", "surrogatepass"))


def _changed_fields(body: dict[str, Any], signed: Mapping[str, Any], key: bytes) -> list[str]:
    present = dict(fields(body))
    problems = []
    for path, value in present.items():
        mac = signed.get(path)
        if not isinstance(mac, str):
            problems.append(f"field {_shown(path, 80)} was added")
        elif not _same(_field_mac(key, path, value), mac):
            problems.append(f"field {_shown(path, 80)} was changed")
    problems += [f"field {_shown(path, 80)} was removed" for path in signed if path not in present]
    return problems


def read_slip(path: str | Path) -> dict[str, Any]:
    """A slip file's JSON; SlipError if it cannot be read.

    The file may hold the slip's JSON as ``tabletop slip`` writes it, or the text of its
    QR code (:func:`qr_payload`) as a phone's or a scanner's QR reader gives it.
    """
    return parse_slip(read_regular(path, MAX_SLIP_BYTES, "the slip"), str(path))


def parse_slip(raw: bytes, path: str) -> dict[str, Any]:
    """A slip from a file's bytes (JSON, or its QR code's text); ``path`` names the file."""
    if len(raw) > MAX_SLIP_BYTES:
        raise SlipError(f"{path} is too large to be a slip (more than {MAX_SLIP_BYTES:,} bytes)")
    try:
        text = raw.decode("utf-8-sig")
        slip = slip_from_qr(text) if text.lstrip().startswith(QR_PREFIX) else _parse(text)
    except SlipError as error:
        raise SlipError(f"{path}: {error}") from None
    except _Twice as error:
        raise SlipError(f"{path} is not a valid slip: field {_shown(error)} is given twice "
                        f"(readers would disagree on its value)") from None
    except UnicodeDecodeError as error:
        raise SlipError(f"{path} is not a slip (not UTF-8 text: byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise SlipError(f"{path} is not a slip (not JSON: {error})") from None
    except RecursionError:
        raise SlipError(f"{path} is not a slip (nested deeper than any slip)") from None
    except _NotANumber as error:
        raise SlipError(f"{path} is not a slip ({error})") from None
    except ValueError:   # Python reads no integer of more than 4,300 digits
        raise SlipError(f"{path} is not a slip (it holds a number of thousands of digits)") from None
    if not isinstance(slip, dict):
        raise SlipError(f"{path} is not a slip (a JSON object is expected)")
    if _depth(slip) > MAX_SLIP_DEPTH:
        raise SlipError(f"{path} is not a slip (nested deeper than any slip)")
    return slip


def _parse(text: str) -> Any:
    """JSON, or the QR code's text as a receipt prints it: cut into lines (joined again)."""
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except json.JSONDecodeError:
        lines = text.strip().splitlines()
        if len(lines) < 2:
            raise
        try:
            return json.loads("".join(lines), object_pairs_hook=_unique,
                              parse_constant=_no_constant)
        except json.JSONDecodeError:
            pass
        raise


class _NotANumber(ValueError):
    """NaN or Infinity: JSON has no such numbers, though Python's reader takes them."""


def _no_constant(name: str) -> None:
    raise _NotANumber(f"{name} is not a number a slip holds")


def _depth(value: Any) -> int:
    """How deep objects and lists nest in ``value`` (counted without recursion).

    >>> _depth({"a": [1, {"b": 2}]}), _depth(3)
    (3, 0)
    """
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_SLIP_DEPTH:
                break
            stack.extend((inner, depth + 1) for inner in
                         (item.values() if isinstance(item, dict) else item))
    return deepest


def _shown(value: Any, limit: int = 40) -> str:
    """``value`` for a message: as it is if short and printable, else quoted and cut short.

    >>> _shown("cash"), _shown("a\\nb"), _shown("x" * 50)[-3:]
    ('cash', "'a\\\\nb'", "x'…")
    """
    text = str(value)
    if text.isprintable() and len(text) <= limit:
        return text
    return repr(text[:limit]) + ("…" if len(text) > limit else "")


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
    out += [thin, "Options:"]
    for name, value in slip.get("options", {}).items():
        out += _fit(f"  {name}={json.dumps(value)}", columns)
    signature = slip.get("signature")
    if isinstance(signature, dict):
        out += [thin] + _fit(f"{signature.get('algorithm')} key {signature.get('key_id')}", columns)
        mac = str(signature.get("slip", ""))
        out += [mac[i:i + columns] for i in range(0, len(mac), columns)]
        if qr_text:
            out += [thin, "QR code text:"] + _chunks(qr_payload(slip), columns)
    out.append(rule)
    return "\n".join(out) + "\n"


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
