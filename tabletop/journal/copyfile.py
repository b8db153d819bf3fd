"""The journal's append-only copy (``journal.log``): read whole or streaming, written whole.

Each confirmed step is one JSON line (a :class:`~tabletop.journal.store.Record` with
its checksum), after a header line that gives the format version. The copy gets every
step before the database commits it, so after a crash at most its very last line is not
yet in the database, and a line cut short is a step whose saving never finished.
:func:`scan_log` reads it as it is, trusting nothing; :func:`stream_log` reads the same
a chunk at a time, for a copy of any length.

>>> line = Record(1, 0, "2026-03-01T14:03:22Z", '{"setup": {}}', "t").sealed().to_log()
>>> scan = scan_lines((header_line() + line + line[:9]).encode())
>>> scan.version, len(scan.records), scan.torn
(1, 1, b'{"game":1')
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable
from typing import BinaryIO
from dataclasses import dataclass, field
from pathlib import Path

from tabletop.journal.files import (CHUNK, CLOEXEC, NOFOLLOW, NONBLOCK, last_line_end, lines_of,
                                    not_regular, put_whole, read_head)
from tabletop.journal.store import HEADER_KEY, SCHEMA_VERSION, Record, _whole, now


@dataclass
class LogScan:
    """What the append-only copy holds, up to its last whole line."""

    exists: bool = False
    regular: bool = True
    version: int | None = None
    records: list[Record] = field(default_factory=list)   # whole lines whose checksums hold
    bad: list[int] = field(default_factory=list)          # numbers of damaged whole lines
    torn: bytes = b""                                     # an unfinished last line
    whole_size: int = 0                                   # bytes up to the last whole line
    unterminated: bool = False     # the torn last line is a whole record that lost its line end


def header_line() -> str:
    return json.dumps({HEADER_KEY: SCHEMA_VERSION, "created": now()}) + "\n"


def scan_log(path: Path) -> LogScan:
    """Read the copy at ``path`` (its size as it is now: a writer may be appending), every
    record whose checksum holds into the scan's list."""
    records: list[Record] = []
    scan = stream_log(path, records.append)
    scan.records = records
    return scan


def scan_lines(data: bytes, base: int = 0) -> LogScan:
    """Read the copy's bytes ``data``, which start ``base`` bytes into the file at a line's
    start (0: the whole file, its header line first). Line numbers count from ``data``'s
    first line; ``whole_size`` counts from the file's start.

    >>> line = Record(1, 0, "2026-03-01T14:03:22Z", '{"setup": {}}', "t").sealed().to_log()
    >>> scan = scan_lines((line + line[:9]).encode(), base=40)
    >>> len(scan.records), scan.torn, scan.whole_size == 40 + len(line)
    (1, b'{"game":1', True)
    """
    cut = data.rfind(b"\n") + 1
    scan = LogScan(exists=True, torn=data[cut:], whole_size=base + cut)
    read_lines(scan, data[:cut].split(b"\n")[:-1], base, scan.records.append)
    return scan


def stream_log(path: Path, keep: Callable[[Record], None]) -> LogScan:
    """:func:`scan_log` in memory that does not grow with the copy: it is read a chunk at
    a time, and each record whose checksum holds goes to ``keep`` (the scan's list stays
    empty)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return LogScan()
    if not stat.S_ISREG(info.st_mode):
        return LogScan(exists=True, regular=False)
    fd = os.open(path, os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC)
    try:
        end = last_line_end(fd, info.st_size)
        scan = LogScan(exists=True, torn=os.pread(fd, info.st_size - end, end), whole_size=end)
        read_lines(scan, lines_of(fd, end), 0, keep)
    finally:
        os.close(fd)
    return scan


def count_records(path: Path) -> int:
    """How many records whose checksums hold the copy at ``path`` has (read streaming)."""
    count = 0

    def one(record: Record) -> None:
        nonlocal count
        count += 1
    stream_log(path, one)
    return count


def read_lines(scan: LogScan, lines: Iterable[bytes], base: int,
               keep: Callable[[Record], None]) -> None:
    """Read the copy's whole ``lines`` (the first ``base`` bytes into the file) and a torn
    last line already in ``scan`` into ``scan``; each record whose checksum holds goes to
    ``keep``, in the copy's order."""
    for number, raw in enumerate(lines, start=1):
        if number == 1 and base == 0 and raw.startswith(b'{"' + HEADER_KEY.encode()):
            scan.version = _header_version(raw)
            if scan.version is None:
                scan.bad.append(number)
            continue
        try:
            record = Record.from_log(raw)
        except ValueError:
            scan.bad.append(number)
            continue
        if record.valid:
            keep(record)
        else:
            scan.bad.append(number)
    if scan.torn and scan.whole_size:
        # Only its line end is missing (damaged, or the last byte not yet written): the
        # record is whole and its checksum holds, so it is as good as any other.
        try:
            record = Record.from_log(scan.torn)
        except ValueError:
            record = None
        if record is not None and record.valid:
            keep(record)
            scan.unterminated = True


def header_version(path: Path) -> int | None:
    """The format version the copy at ``path`` says in its first line, as :func:`scan_log`
    reads it; None if it says none (or is not a regular file)."""
    if not_regular(path) is not None:
        return None
    try:
        first = read_head(path, CHUNK)
    except OSError:
        return None
    end = first.find(b"\n")
    if end < 0 or not first.startswith(b'{"' + HEADER_KEY.encode()):
        return None
    return _header_version(first[:end])


def _header_version(raw: bytes) -> int | None:
    try:
        version = json.loads(raw).get(HEADER_KEY)
    except (ValueError, AttributeError):
        return None
    return version if _whole(version) else None


def write_log(path: Path, records: Iterable[Record]) -> None:
    """Write a complete copy of ``records`` at ``path``, whole or not at all
    (:func:`~tabletop.journal.files.put_whole`), one record at a time."""
    def write(handle: BinaryIO) -> None:
        handle.write(header_line().encode("utf-8"))
        for record in records:
            handle.write(record.to_log().encode("utf-8"))
    put_whole(path, write, suffix=".rewrite")
