"""A slip's two written forms: its JSON file, and the text of its QR code.

Both are read by :func:`read_slip` (a file) or :func:`parse_slip` (bytes), which refuse
whatever is not a slip with one clear line (too large, nested too deep, a field given
twice, not UTF-8, not JSON) and never hang on a FIFO or a device.
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any, Mapping

from tabletop.errors import SlipError
from tabletop.journal.keys import read_regular
from tabletop.journal.signing import _shown
from tabletop.journal.store import canonical

#: What a slip's QR code text begins with (see qr_payload).
QR_PREFIX = "TTSLIP1:"
#: A slip of 6 players is a few kilobytes: anything much larger is not one.
MAX_SLIP_BYTES = 1 << 20
#: A slip nests four deep (players, a player, bonuses, a chain): deeper is not a slip,
#: and would take Python's recursion (JSON, signing) to its limit.
MAX_SLIP_DEPTH = 16
#: What a QR code keeps of the signature: who signed and the whole slip's signature.
QR_SIGNATURE = ("algorithm", "key_id", "fingerprint", "slip")


def qr_payload(slip: Mapping[str, Any]) -> str:
    """The text of a signed slip's QR code: :data:`QR_PREFIX`, then the slip with its
    whole-slip signature only, compressed (raw DEFLATE) in URL-safe base64.

    The per-field digests, and the slip's JSON as it is (2 kB for six players), would not
    fit a QR code a 58 mm printer can print; the whole slip's signature covers every field.
    :func:`read_slip` reads this text back from a file, ``verify`` checks it.

    >>> from tabletop.journal.keys import signing_key_from_seed
    >>> from tabletop.journal.signing import sign, verify
    >>> key = signing_key_from_seed(bytes(32))
    >>> text = qr_payload(sign({"game": 3}, key))
    >>> text.startswith(QR_PREFIX), str(verify(slip_from_qr(text), key.public))
    (True, 'valid')
    """
    signature = slip.get("signature")
    if not isinstance(signature, dict):
        raise SlipError("the slip is not signed: it has no QR code")
    body = {name: value for name, value in slip.items() if name != "signature"}
    body["signature"] = {name: signature[name] for name in QR_SIGNATURE if name in signature}
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


class _Twice(ValueError):
    """A JSON object gives one name twice."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise _Twice(name)
        found[name] = value
    return found

