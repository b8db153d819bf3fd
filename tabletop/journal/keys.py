"""The keys a table signs its score slips with, and the files that hold them.

Two kinds. The table's **signing key** (Ed25519, ``slip-ed25519.key`` in the data
folder) signs today's slips: it never leaves the table, and its public half,
which anyone may hold, checks them (:class:`PublicKey`; ``tabletop key --public``
prints it). The **old HMAC key** (``slip.key``) signed slips of format 1: it is
kept so that those still verify, but whoever holds it can sign as the table.

Both are made on first use, readable by their owner only, whole or not at all.
The public key's text form is ``ed25519:`` and its 32 bytes in base64; its
fingerprint is the first 8 bytes of their SHA-256, in four groups of hex:

>>> key = signing_key_from_seed(bytes(32))
>>> key.public.text()
'ed25519:O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik='
>>> key.public.fingerprint
'139e-3940-e64b-5491'
>>> parse_public_key(key.public.text()) == key.public
True
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabletop.errors import SlipError
from tabletop.journal.store import fsync_dir

KEY_FILE = "slip.key"
SIGNING_KEY_FILE = "slip-ed25519.key"
MAX_KEY_BYTES = 4096
PUBLIC_PREFIX = "ed25519:"
#: The first line of a signing key file: it tells the file from an old key or a public key.
SIGNING_HEADER = "# tabletop table signing key (Ed25519): keep it private"
NO_CRYPTOGRAPHY = ("Ed25519 slips need the Python package cryptography, which tabletop "
                   "installs with it: pip install cryptography (Debian, Raspberry Pi OS: "
                   "apt install python3-cryptography)")


# -- reading and writing key files --------------------------------------------------------

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


def create_key_file(path: Path, content: bytes) -> None:
    """Make a key file whole or not at all: written and fsynced under a temporary name,
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
            written = 0
            while written < len(content):   # a short write would leave a torn key
                written += os.write(fd, content[written:])
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


# -- the old HMAC key -----------------------------------------------------------------------

def table_key(data_dir: str | Path) -> bytes:
    """The table's old HMAC key: ``slip.key`` in ``data_dir``, made (mode 0600) on first use."""
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        create_key_file(path, (secrets.token_hex(32) + "\n").encode("ascii"))
    return load_key(path)


def load_key(path: str | Path) -> bytes:
    """An HMAC key file's key: hexadecimal digits, 32 bytes or more, in a file only its owner reads.

    Whether it is the data folder's key or one named with ``--key``: a key others can
    read lets them sign slips of games never played.
    """
    text = _key_text(path)
    if text.startswith(SIGNING_HEADER):
        raise SlipError(f"{path} is a table signing key (Ed25519), not an old HMAC slip key")
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise SlipError(f"{path} is not a slip key (it holds 64 hexadecimal digits)") from None
    if len(key) < 16:
        raise SlipError(f"{path} is too short to be a slip key")
    return key


def _key_text(path: str | Path) -> str:
    try:
        return read_regular(path, MAX_KEY_BYTES, "the key", private=True).decode("ascii")
    except UnicodeDecodeError:
        raise SlipError(f"{path} is not a slip key (it is not text)") from None


def key_id(key: bytes) -> str:
    """A short name of an HMAC key that does not reveal it.

    >>> key_id(bytes(32))
    '66687aad'
    """
    return hashlib.sha256(key).hexdigest()[:8]


# -- the table's Ed25519 signing key ---------------------------------------------------------

def _ed25519() -> Any:
    """cryptography's Ed25519 module; SlipError saying how to install it when it is missing."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise SlipError(NO_CRYPTOGRAPHY) from None
    return ed25519


@dataclass(frozen=True)
class PublicKey:
    """The public half of a table's signing key: it checks slips and cannot sign them."""

    raw: bytes

    @property
    def fingerprint(self) -> str:
        """Short enough to compare by eye, on a slip and on a director's list."""
        digest = hashlib.sha256(self.raw).hexdigest()[:16]
        return "-".join(digest[i:i + 4] for i in range(0, 16, 4))

    def text(self) -> str:
        """The form a director pastes or saves: ``ed25519:`` and the key in base64."""
        return PUBLIC_PREFIX + base64.b64encode(self.raw).decode("ascii")

    def verifies(self, signature: bytes, message: bytes) -> bool:
        """Whether ``signature`` is this key's signature of ``message``."""
        from cryptography.exceptions import InvalidSignature

        try:
            _ed25519().Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class SigningKey:
    """A table's private signing key (its 32-byte seed is never shown, not even by repr)."""

    seed: bytes = field(repr=False)
    public: PublicKey

    def sign(self, message: bytes) -> bytes:
        return _ed25519().Ed25519PrivateKey.from_private_bytes(self.seed).sign(message)


def signing_key_from_seed(seed: bytes) -> SigningKey:
    """The signing key of a 32-byte seed (tests and doctests use fixed ones)."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    private = _ed25519().Ed25519PrivateKey.from_private_bytes(seed)
    return SigningKey(seed, PublicKey(private.public_key().public_bytes(Encoding.Raw,
                                                                         PublicFormat.Raw)))


def new_signing_key() -> SigningKey:
    return signing_key_from_seed(secrets.token_bytes(32))


def signing_key_text(key: SigningKey) -> str:
    """A signing key file's text: the seed, and the public key it must give (so that a
    damaged seed, which is still 32 bytes, is told from a whole one)."""
    return (f"{SIGNING_HEADER}\nprivate {key.seed.hex()}\npublic {key.public.text()}\n"
            f"fingerprint {key.public.fingerprint}\n")


def table_signing_key(data_dir: str | Path) -> SigningKey:
    """The table's signing key: ``slip-ed25519.key`` in ``data_dir``, made (mode 0600) on
    first use."""
    path = Path(data_dir) / SIGNING_KEY_FILE
    if not path.exists() and not path.is_symlink():
        create_key_file(path, signing_key_text(new_signing_key()).encode("ascii"))
    return load_signing_key(path)


def load_signing_key(path: str | Path) -> SigningKey:
    """A signing key file's key; SlipError if it is not whole, or others can read it."""
    text = _key_text(path)
    if not text.startswith(SIGNING_HEADER):
        raise SlipError(f"{path} is not a table signing key: it is empty or damaged, or "
                        f"another file (its first line is not {SIGNING_HEADER!r})")
    values = _named_lines(text)
    try:
        seed = bytes.fromhex(values.get("private", ""))
    except ValueError:
        seed = b""
    key = signing_key_from_seed(seed) if len(seed) == 32 else None
    if key is None or values.get("public") != key.public.text() \
            or values.get("fingerprint") != key.public.fingerprint:
        raise SlipError(
            f"{path} is damaged (its private key and the public key written with it disagree, "
            f"or a line is missing): the table cannot sign with it. Restore it from a backup; "
            f"or move it away, and a new key is made with the next slip (then give the "
            f"directors the new public key: `tabletop key --public`)")
    return key


def load_any_key(path: str | Path) -> bytes | SigningKey:
    """The key in a file named with ``--key``: a signing key, or an old HMAC key."""
    text = _key_text(path)
    return load_signing_key(path) if text.startswith(SIGNING_HEADER) else load_key(path)


def _named_lines(text: str) -> dict[str, str]:
    """``name value`` lines (``#`` comments left out; a name given twice keeps its first).

    >>> _named_lines("# c\\npublic ed25519:AA==\\nfingerprint: 1c9b-db81\\n")
    {'public': 'ed25519:AA==', 'fingerprint': '1c9b-db81'}
    """
    found: dict[str, str] = {}
    for line in text.splitlines():
        name, _, value = line.strip().partition(" ")
        if name and not name.startswith("#"):
            found.setdefault(name.rstrip(":").lower(), value.strip())
    return found


# -- public keys as a director gives them ---------------------------------------------------

def public_key_text(key: PublicKey) -> str:
    """What ``tabletop key --public`` prints, and :func:`parse_public_key` reads back."""
    return f"{key.text()}\nfingerprint: {key.fingerprint}\n"


def parse_public_key(text: str) -> PublicKey:
    """A public key from a director's text: ``ed25519:BASE64`` (with the ``fingerprint:``
    line ``tabletop key --public`` prints, which is then checked), the bare base64, or PEM.

    >>> parse_public_key("ed25519:AAAA")   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    tabletop.errors.SlipError: the public key is damaged: an Ed25519 public key is 32 bytes ...
    """
    text = text.strip()
    if text.startswith(SIGNING_HEADER):
        raise SlipError("that is the table's private signing key, which must not leave the "
                        "table: give its public key (`tabletop key --public` prints it)")
    if "-----BEGIN" in text:
        return _pem_public_key(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    given = next((line for line in lines if line.startswith(PUBLIC_PREFIX)), first)
    given = given.removeprefix(PUBLIC_PREFIX).strip()
    try:
        raw = base64.b64decode(given, validate=True)
    except (binascii.Error, ValueError):
        raise SlipError("the public key is not one: expected ed25519: and base64, as "
                        "`tabletop key --public` prints it") from None
    if len(raw) != 32:
        raise SlipError(f"the public key is damaged: an Ed25519 public key is 32 bytes "
                        f"(this text gives {len(raw)})")
    key = PublicKey(raw)
    named = _named_lines(text).get("fingerprint")
    if named is not None and named != key.fingerprint:
        raise SlipError(f"the public key and its fingerprint disagree (the key gives "
                        f"{key.fingerprint}, the text says {named}): it was copied wrong")
    return key


def _pem_public_key(text: str) -> PublicKey:
    from cryptography.hazmat.primitives.serialization import (Encoding, PublicFormat,
                                                              load_pem_public_key)

    try:
        loaded = load_pem_public_key(text.encode("ascii", "replace"))
    except (ValueError, TypeError):
        raise SlipError("the PEM public key is damaged or not one") from None
    if not isinstance(loaded, _ed25519().Ed25519PublicKey):
        raise SlipError("the PEM public key is not an Ed25519 key (a table signs with Ed25519)")
    return PublicKey(loaded.public_bytes(Encoding.Raw, PublicFormat.Raw))


def read_public_key(given: str) -> PublicKey:
    """``--public KEY``: the text of a public key, or a file holding it."""
    if given.strip().startswith((PUBLIC_PREFIX, "-----BEGIN")) or not _file_like(given):
        return parse_public_key(given)
    raw = read_regular(given, MAX_KEY_BYTES, "the public key")
    try:
        return parse_public_key(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise SlipError(f"{given} is not a public key (it is not text)") from None
    except SlipError as error:
        raise SlipError(f"{given}: {error}") from None


def _file_like(given: str) -> bool:
    """Whether ``--public``'s value names a file: it exists, or it cannot be a key's text."""
    if os.path.lexists(given):
        return True
    try:
        return len(base64.b64decode(given.strip(), validate=True)) != 32
    except (binascii.Error, ValueError):
        return True
