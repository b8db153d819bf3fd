"""Score slips: a finished game's result, signed so that a tournament can trust it.

A slip is JSON: the table's name, the game's id, the tournament round and table
it was set up for (if any), its times, rule set and options, a digest of its
table script, and for each player (best first) the rank, the final cash, and the
bonuses and share sales by chain. It is signed with the table's Ed25519 key
(``slip-ed25519.key`` in the data folder, made on first use, readable by its
owner only): anyone with the table's public key can check it, only the table can
sign it, and :func:`verify` names the field that was changed. Old slips (format 1,
HMAC under ``slip.key``) still verify with that key.

This module is the slips' public face; the work is done in ``keys`` (key files),
``signing`` (signatures), ``seat`` (tournament seats), ``slipfile`` (a slip's file
and QR code text) and ``receipt`` (the printed slip).

>>> key = signing_key_from_seed(bytes(32))
>>> slip = sign({"table": "table 1", "game": 3, "players": [{"name": "Ann", "cash": 100}]}, key)
>>> str(verify(slip, key.public))
'valid'
>>> slip["players"][0]["cash"] = 1000
>>> str(verify(slip, key.public))
'invalid: field players[0].cash was changed'
"""

from __future__ import annotations

import hashlib
import json
import os  # noqa: F401 - tests patch slip.os.write to fail a key's creation
from pathlib import Path
from typing import Any

from tabletop.errors import SlipError
from tabletop.journal.export import payouts_of, played_events
from tabletop.journal.keys import (KEY_FILE, MAX_KEY_BYTES, SIGNING_KEY_FILE, PublicKey,
                                   SigningKey, key_id, load_any_key, load_key,
                                   load_signing_key, parse_public_key, public_key_text,
                                   read_public_key, read_regular, signing_key_from_seed,
                                   table_key, table_signing_key)
from tabletop.journal.receipt import COLUMNS, UNSYNCHRONISED, slip_text, width
from tabletop.journal.seat import Seat, seat_of_setup, seat_refusal
from tabletop.journal.signing import (ALGORITHM, ED25519, FIELD_MAC_HEX, Verification, _shown,
                                      fields, kind_mismatch, sign, verify)
from tabletop.journal.slipfile import (MAX_SLIP_BYTES, MAX_SLIP_DEPTH, QR_PREFIX, parse_slip,
                                       qr_payload, read_slip, slip_from_qr)

__all__ = [
    "ALGORITHM", "COLUMNS", "ED25519", "FIELD_MAC_HEX", "KEY_FILE", "MAX_KEY_BYTES",
    "MAX_SLIP_BYTES", "MAX_SLIP_DEPTH", "QR_PREFIX", "SIGNING_KEY_FILE", "SLIP_FORMAT",
    "UNSYNCHRONISED", "PublicKey", "Seat", "SigningKey", "Verification", "fields",
    "key_id", "kind_mismatch", "load_any_key", "load_key", "load_signing_key", "make_slip",
    "parse_public_key", "parse_slip", "public_key_text", "qr_payload", "read_public_key",
    "read_regular", "read_slip", "seat_of_setup", "seat_refusal", "sign", "signing_key_from_seed",
    "slip_data", "slip_from_qr", "slip_text", "table_fingerprint", "table_key",
    "table_signing_key", "verify", "verifying_key", "width",
]

#: The format of the slips made today (Ed25519); :func:`sign` sets a slip's format to its
#: signature's: 1 for the old HMAC.
SLIP_FORMAT = 2


def verifying_key(slip: Any, data_dir: str | Path, public: str | None = None,
                  key_file: str | Path | None = None) -> bytes | PublicKey:
    """The key ``slip`` is checked with: ``public`` (a public key's text or file), else the
    old HMAC key in ``key_file``, else the data folder's own key of the slip's kind (its
    signing key's public half for an Ed25519 slip, ``slip.key`` for an old one). SlipError
    when there is none, or when the key given cannot check a slip of this kind."""
    signature = slip.get("signature") if isinstance(slip, dict) else None
    signature = signature if isinstance(signature, dict) else {}
    # The slip's kind is told before any key is read: a key of the wrong kind is no use.
    mismatch = kind_mismatch(signature, public=public is not None or (
        key_file is None and signature.get("algorithm") == ED25519))
    if mismatch is not None:
        raise SlipError(f"cannot check the slip: {mismatch}")
    if public is not None:
        key: bytes | PublicKey = read_public_key(public)
    elif key_file is not None or signature.get("algorithm") != ED25519:
        path = Path(key_file) if key_file is not None else Path(data_dir) / KEY_FILE
        if not path.exists() and not path.is_symlink():
            raise SlipError(_no_key(path, given=key_file is not None))
        key = load_key(path)
    else:
        path = Path(data_dir) / SIGNING_KEY_FILE
        if not path.exists() and not path.is_symlink():
            raise SlipError(f"this slip is signed by the table whose key's fingerprint is "
                            f"{_shown(signature.get('fingerprint'))}, and this data folder has "
                            f"no signing key: give that table's public key with --public KEY "
                            f"(`tabletop key --public` on that table prints it)")
        key = load_signing_key(path).public
    return key


def _no_key(path: Path, given: bool) -> str:
    """What to do without the key an old slip is checked with: it is the key of the table that
    signed the slip (``slip.key`` in that table's data folder, made with its first slip)."""
    if given:
        return (f"no key at {path}: give --key the key file of the table that signed the "
                f"slip (slip.key in that table's data folder)")
    return (f"no key at {path}: an old HMAC slip is checked with the key of the table that "
            f"signed it, and this data folder has none; run verify on that table, or give its "
            f"key with --key KEYFILE (slip.key in its data folder); a slip signed with "
            f"Ed25519 is checked with --public KEY")


def table_fingerprint(data_dir: str | Path) -> str:
    """The fingerprint of the table's public key (made on first use), for a setup screen to
    show beside the table's name: a director compares it with the one on their list."""
    return table_signing_key(data_dir).public.fingerprint


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
        "slip": SLIP_FORMAT, "table": info.table, "game": info.id, **_seat(info.id, lines[0]),
        "rules": rules.name, "title": rules.title, "options": dict(game.options),
        **_profile(lines[0]),
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


def _seat(game_id: int, setup: str) -> dict[str, Any]:
    """The slip's ``seat`` field: the tournament round and table the game was set up for."""
    try:
        seat = seat_of_setup(json.loads(setup))
    except SlipError as error:
        raise SlipError(f"game {game_id} was set up with a seat that is not one: {error}") from None
    return {} if seat is None else {"seat": seat.to_json()}


def _profile(setup: str) -> dict[str, Any]:
    """The slip's ``profile`` field: the name and digest of the profile the game was held to
    (its values are the slip's options); none when the table chose its own options."""
    entry = json.loads(setup)["setup"].get("profile")
    return {} if entry is None else {"profile": {"name": entry["name"], "sha256": entry["sha256"]}}


def make_slip(journal: Any, game_id: int, key: bytes | SigningKey,
              clock_synchronised: bool | None = None) -> dict[str, Any]:
    """The signed slip of game ``game_id`` of an open journal (signed with Ed25519 under a
    :class:`SigningKey`, with the old HMAC under a key's bytes); its times are marked
    :data:`UNSYNCHRONISED` (a signed field) when ``clock_synchronised`` is False."""
    body = slip_data(journal.info(game_id), journal.lines(game_id))
    if clock_synchronised is False:
        body["clock"] = UNSYNCHRONISED
    return sign(body, key)

