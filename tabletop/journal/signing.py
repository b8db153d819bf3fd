"""Signing score slips and checking their signatures, naming the field that was changed.

A slip of format 2 is signed with the table's Ed25519 key: its ``signature`` holds
the key's ``fingerprint``, one SHA-256 digest per field (``fields``: its path, such
as ``players[1].cash``, and value), the Ed25519 signature of that list of digests
(``fields_signature``) and the Ed25519 signature of the whole slip (``slip``). The
whole slip's signature decides; when it fails and the list of digests is still the
table's, the fields whose digests differ are the ones that were changed. Only the
table can sign; anyone with its public key can check.

Old slips (format 1) carry HMAC-SHA256s under the table's secret key instead, one
over the whole slip and one per field: they still verify with that key, and say
that anyone who holds it could have signed them.

>>> from tabletop.journal.keys import signing_key_from_seed
>>> key = signing_key_from_seed(bytes(32))
>>> slip = sign({"slip": 2, "game": 3, "players": [{"name": "Ann", "cash": 100}]}, key)
>>> slip["signature"]["fingerprint"], str(verify(slip, key.public))
('139e-3940-e64b-5491', 'valid')
>>> slip["players"][0]["cash"] = 1000
>>> str(verify(slip, key.public))
'invalid: field players[0].cash was changed'
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from tabletop.journal.keys import PublicKey, SigningKey, key_id
from tabletop.journal.seat import Seat, seat_refusal
from tabletop.journal.store import canonical

ALGORITHM = "HMAC-SHA256"     # format 1, the old kind
ED25519 = "Ed25519"           # format 2
FORMATS = {ALGORITHM: 1, ED25519: 2}
#: Each field's HMAC or digest is cut to 128 bits; the whole slip's signature is complete.
FIELD_MAC_HEX = 32
#: What each Ed25519 signature signs before the canonical JSON: neither can stand for the other.
SLIP_CONTEXT = b"tabletop score slip\x00"
FIELDS_CONTEXT = b"tabletop score slip fields\x00"
OLD_KIND = "old HMAC slip: anyone with the table's key could have signed it"

Key = bytes | PublicKey | SigningKey


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


@dataclass
class Verification:
    """The verdict on a slip: ``valid``, the problems found (each names its field), or
    ``refusal``: the signature holds but the slip is for another round or table."""

    problems: list[str] = field(default_factory=list)
    algorithm: str | None = None
    refusal: str | None = None

    @property
    def valid(self) -> bool:
        return not self.problems and self.refusal is None

    @property
    def old(self) -> bool:
        """An HMAC slip (format 1): whoever holds the table's secret key could have made it."""
        return self.algorithm == ALGORITHM

    def __str__(self) -> str:
        if self.problems:
            return "invalid: " + "\ninvalid: ".join(self.problems)
        return self.refusal if self.refusal is not None else "valid"

    @property
    def message(self) -> str:
        """What ``tabletop verify`` prints: a valid old slip says it is of the old kind."""
        return f"valid ({OLD_KIND})" if self.valid and self.old else str(self)


def sign(slip: Mapping[str, Any], key: bytes | SigningKey) -> dict[str, Any]:
    """The slip with its ``signature``: Ed25519 with a :class:`SigningKey`, the old
    HMAC with a key's bytes. A ``slip`` format number in it is set to the signature's."""
    body = {name: value for name, value in slip.items() if name != "signature"}
    algorithm = ED25519 if isinstance(key, SigningKey) else ALGORITHM
    if "slip" in body:
        body["slip"] = FORMATS[algorithm]
    signed = copy.deepcopy(body)
    signed["signature"] = _ed25519_signature(body, key) if isinstance(key, SigningKey) \
        else _hmac_signature(body, key)
    return signed


def verify(slip: Any, key: Key, expected: Seat | None = None) -> Verification:
    """Check a slip's signature under ``key`` (a table's public key, or an old HMAC key),
    naming each field that was changed; with ``expected``, a slip that names another
    tournament round or table than it is refused (a slip replayed from another round).

    A slip read from its QR code carries the whole slip's signature only
    (:func:`~tabletop.journal.slip.qr_payload`): it is valid or not, and which field
    changed cannot be said.
    """
    signature = slip.get("signature") if isinstance(slip, dict) else None
    if not isinstance(signature, dict) or not isinstance(signature.get("fields", {}), dict) \
            or not isinstance(signature.get("slip"), str):
        return Verification(["the slip has no signature (or its signature block is malformed)"])
    algorithm = signature.get("algorithm")
    if not isinstance(algorithm, str) or algorithm not in FORMATS:
        return Verification([f"unknown signature algorithm {_shown(repr(algorithm))}"])
    if isinstance(key, SigningKey):
        key = key.public
    mismatch = kind_mismatch(signature, public=isinstance(key, PublicKey))
    if mismatch is not None:
        return Verification([mismatch], algorithm)
    body = {name: value for name, value in slip.items() if name != "signature"}
    verdict = _verify_ed25519(body, signature, key) if isinstance(key, PublicKey) \
        else _verify_hmac(body, signature, key)
    verdict.algorithm = algorithm
    if verdict.valid and expected is not None:
        verdict.refusal = seat_refusal(body, expected)
    return verdict


def kind_mismatch(signature: Mapping[str, Any], public: bool) -> str | None:
    """Why a key of the kind given (``public``: a table's public key; else an old HMAC key)
    cannot check a slip of this signature's kind (None if it can)."""
    algorithm = signature.get("algorithm")
    if algorithm == ED25519 and not public:
        return (f"this slip is signed with Ed25519 by the table whose key's fingerprint is "
                f"{_shown(signature.get('fingerprint'))}: it is checked with that table's "
                f"public key (--public KEY; `tabletop key --public` on that table prints it), "
                f"not with a secret HMAC key (--key is for old slips)")
    if algorithm == ALGORITHM and public:
        return ("this is an old HMAC slip (format 1): a public key cannot check it; it is "
                "checked with the secret key of the table that signed it (--key KEYFILE: "
                "slip.key in that table's data folder), and anyone with that key could have "
                "signed it")
    return None


def _same(mine: str, given: str) -> bool:
    return hmac.compare_digest(mine.encode(), given.encode("utf-8", "surrogatepass"))


def _changed_fields(body: dict[str, Any], signed: Mapping[str, Any],
                    holds: Callable[[str, Any, str], bool]) -> list[str]:
    """The fields of ``body`` whose entry in ``signed`` does not hold, or is missing or extra."""
    present = dict(fields(body))
    problems = []
    for path, value in present.items():
        given = signed.get(path)
        if not isinstance(given, str):
            problems.append(f"field {_shown(path, 80)} was added")
        elif not holds(path, value, given):
            problems.append(f"field {_shown(path, 80)} was changed")
    problems += [f"field {_shown(path, 80)} was removed" for path in signed if path not in present]
    return problems


# -- Ed25519 (format 2) ------------------------------------------------------------------------

def _digest(path: str, value: Any) -> str:
    return hashlib.sha256(canonical([path, value])).hexdigest()[:FIELD_MAC_HEX]


def _b64(signature: bytes) -> str:
    return base64.b64encode(signature).decode("ascii")


def _ed25519_signature(body: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    digests = {path: _digest(path, value) for path, value in fields(body)}
    return {"algorithm": ED25519, "fingerprint": key.public.fingerprint, "fields": digests,
            "fields_signature": _b64(key.sign(FIELDS_CONTEXT + canonical(digests))),
            "slip": _b64(key.sign(SLIP_CONTEXT + canonical(body)))}


def _holds(key: PublicKey, message: bytes, given: Any) -> bool:
    """Whether ``given`` (base64 text) is ``key``'s signature of ``message``."""
    if not isinstance(given, str):
        return False
    try:
        raw = base64.b64decode(given.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return False
    return len(raw) == 64 and key.verifies(raw, message)


def _verify_ed25519(body: dict[str, Any], signature: Mapping[str, Any],
                    key: PublicKey) -> Verification:
    if _holds(key, SLIP_CONTEXT + canonical(body), signature["slip"]):
        return Verification()
    digests = signature.get("fields")
    if digests and _holds(key, FIELDS_CONTEXT + canonical(digests),
                          signature.get("fields_signature")):
        problems = _changed_fields(body, digests,
                                   lambda path, value, given: _same(_digest(path, value), given))
        return Verification(problems or ["the signature itself was changed"])
    return Verification([_not_this_table(signature, key)])


def _not_this_table(signature: Mapping[str, Any], key: PublicKey) -> str:
    """Why neither signature holds: another table's key, a QR code's slip changed, or forged.

    The slip's ``fingerprint`` is a hint only (it may have been changed as well).
    """
    named, mine = _shown(signature.get("fingerprint")), key.fingerprint
    if named != mine:
        return (f"the slip was signed by another table's key (fingerprint {named}; this "
                f"public key's is {mine})")
    if "fields" not in signature:
        return ("the slip does not match its signature: it was changed after it was signed "
                "(a slip read from its QR code has one signature for the whole slip, so the "
                "changed field cannot be named: compare it with the printed slip)")
    return (f"the slip names this table's key (fingerprint {mine}), but neither its signature "
            f"nor its list of signed fields holds: the slip and its signature were changed "
            f"or forged")


# -- HMAC-SHA256 (format 1, old) --------------------------------------------------------------

def _mac(key: bytes, value: Any) -> str:
    return hmac.new(key, canonical(value), hashlib.sha256).hexdigest()


def _field_mac(key: bytes, path: str, value: Any) -> str:
    return _mac(key, [path, value])[:FIELD_MAC_HEX]


def _hmac_signature(body: dict[str, Any], key: bytes) -> dict[str, Any]:
    return {"algorithm": ALGORITHM, "key_id": key_id(key),
            "fields": {path: _field_mac(key, path, value) for path, value in fields(body)},
            "field_list": _mac(key, sorted(path for path, _ in fields(body))),
            "slip": _mac(key, body)}


def _verify_hmac(body: dict[str, Any], signature: Mapping[str, Any], key: bytes) -> Verification:
    if _same(_mac(key, body), signature["slip"]):
        return Verification()
    if not signature.get("fields"):
        return Verification([_unnamed(signature, body, key)])
    present = dict(fields(body))
    ours = any(isinstance(mac, str) and _same(_field_mac(key, path, present[path]), mac)
               for path, mac in signature["fields"].items() if path in present)
    if not ours:
        return Verification([_not_ours(signature, key)])
    problems = _changed_fields(body, signature["fields"], lambda path, value, given:
                               _same(_field_mac(key, path, value), given))
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


def _shown(value: Any, limit: int = 40) -> str:
    """``value`` for a message: as it is if short and printable, else quoted and cut short.

    >>> _shown("cash"), _shown("a\\nb"), _shown("x" * 50)[-3:]
    ('cash', "'a\\\\nb'", "x'…")
    """
    text = str(value)
    if text.isprintable() and len(text) <= limit:
        return text
    return repr(text[:limit]) + ("…" if len(text) > limit else "")
