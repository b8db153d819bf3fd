"""The journal's files on the disk: never opened through a link, private, in a folder of our own.

Whoever can write beside the journal could plant a link named like one of its files
(``journal.db.lock -> /home/ann/thesis.odt``) and have the journal overwrite what it
points at. So every journal file is opened with ``O_NOFOLLOW`` (a link is refused,
never followed), made with ``O_EXCL`` or under a fresh ``mkstemp`` name, readable by
its owner only (0600), and a folder that others can write to is refused. Nothing is
opened before its kind is known: a pipe would block, some devices act when opened.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from typing import BinaryIO
from pathlib import Path

from tabletop.errors import JournalError

try:
    import fcntl
except ImportError:        # not on POSIX: no writer lock to look at
    fcntl = None  # type: ignore[assignment]

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)   # a pipe opened by mistake must not wait for a writer
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def not_regular(path: Path) -> str | None:
    """What is at ``path`` when it is not a regular file ("a folder", ...), without opening
    it; None for a regular file or nothing at all.

    >>> not_regular(Path("/")), not_regular(Path("/no/such/file"))
    ('a folder', None)
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"a file that cannot be examined ({error.strerror})"
    return next((kind for test, kind in _KINDS if test(mode)),
                None if stat.S_ISREG(mode) else "not a regular file")


def odd_file(path: Path) -> str | None:
    """What is wrong with ``path`` as one of the journal's files, without opening it: not a
    regular file (see :func:`not_regular`), or a regular file with another name too (a hard
    link: writing it, or letting SQLite write it, would change that other file); None if
    it is a regular file of one name, or nothing at all.

    >>> odd_file(Path("/")), odd_file(Path("/no/such/file"))
    ('a folder', None)
    """
    kind = not_regular(path)
    if kind is not None:
        return kind
    try:
        links = os.lstat(path).st_nlink
    except FileNotFoundError:
        return None
    return f"a file with {links} names (hard links): it may be another file's" if links > 1 else None


def read_head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of the regular file at ``path`` (OSError if it is none)."""
    fd = os.open(path, os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return os.pread(fd, size, 0)
    finally:
        os.close(fd)


def refuse_links(*paths: Path) -> None:
    """JournalError if any of ``paths`` is a symbolic link: the journal never writes
    through one (a planted link would make it overwrite whatever it points at)."""
    for path in paths:
        if os.path.islink(path):
            raise JournalError(
                f"{path} is a symbolic link (to {os.readlink(path)}): the journal never "
                f"follows a link, which could make it overwrite another file; nothing was "
                f"changed: remove the link and try again")


def check_folder(folder: Path) -> None:
    """JournalError unless ``folder`` belongs to us and no one else can write to it.

    Whoever can write beside the journal can plant a link where the journal will write.
    """
    if os.name != "posix":
        return
    info = os.stat(folder)
    if info.st_uid != os.geteuid():
        why, fix = f"it belongs to another user (uid {info.st_uid})", "run as its owner"
    elif info.st_mode & 0o022:
        why = f"other users can write to it (mode {stat.filemode(info.st_mode)})"
        fix = f"chmod go-w {folder}"
    else:
        return
    raise JournalError(f"the journal's folder {folder} is not private: {why}; whoever can "
                       f"write there could make the journal overwrite another file: {fix}, or "
                       f"use a folder of your own (nothing was changed)")


def open_private(path: Path, flags: int) -> int:
    """``os.open`` of a journal file: never through a link, made readable by its owner only;
    a regular file must have no other name (a hard link to another file)."""
    fd = os.open(path, flags | NOFOLLOW | CLOEXEC, 0o600)
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            raise OSError(errno.EMLINK, f"{path} has {info.st_nlink} names (hard links): it "
                          f"may be another file's; nothing was written to it")
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_private(path: Path) -> bool:
    """Make an empty file at ``path`` readable by its owner only, unless something is there."""
    refuse_links(path)
    try:
        os.close(open_private(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def remove_quietly(path: str | Path) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def hold_unless_written(path: Path) -> int | None:
    """None if a writer holds ``journal.db.lock``; else a descriptor holding our lock shared (so that
    no writer starts), or -1 when there is no lock file (no writer ever made one)."""
    lock = Path(f"{path}.lock")
    if fcntl is None:
        return -1
    fd = -1
    if os.path.lexists(lock):
        fd = os.open(lock, os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
    return fd


def copy_private(source: Path, target: Path) -> None:
    """Copy a regular file, never through a link, into a new file readable by us only."""
    fd = os.open(source, os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"{source.name} is not a regular file")
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600)
        with os.fdopen(out, "wb") as handle:
            while chunk := os.read(fd, 1 << 20):
                handle.write(chunk)
    finally:
        os.close(fd)


#: How much of a file is read at a time when it is read line by line.
CHUNK = 1 << 20


def lines_of(fd: int, end: int, chunk: int = 0) -> Iterator[bytes]:
    """The lines (without their line ends) of the file open at ``fd`` up to byte ``end``,
    which ends a line, read ``chunk`` bytes (default :data:`CHUNK`) at a time: the file is
    never held whole."""
    offset, rest, chunk = 0, b"", chunk or CHUNK
    while offset < end:
        data = os.pread(fd, min(chunk, end - offset), offset)
        if not data:
            break
        offset += len(data)
        *whole_lines, rest = (rest + data).split(b"\n")
        yield from whole_lines


def last_line_end(fd: int, size: int, limit: int | None = None, chunk: int = 0) -> int:
    """Where the last line end among the first ``size`` bytes of ``fd`` is, plus one; 0 if
    there is none (in its last ``limit`` bytes, when given). Read backwards a chunk at a time."""
    chunk = chunk or CHUNK
    stop = 0 if limit is None else max(0, size - limit)
    end = size
    while end > stop:
        start = max(stop, end - chunk)
        found = os.pread(fd, end - start, start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        end = start
    return 0


def fsync_dir(folder: Path) -> None:
    """Make a file's creation or renaming durable (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def put_whole(path: Path, write: Callable[[BinaryIO], object], suffix: str = ".new") -> bool:
    """Put what ``write(handle)`` writes at ``path``, whole or not at all.

    It is written to a fresh file beside ``path`` (``mkstemp``: made by us, readable by
    its owner only, never a planted link), fsynced, renamed over ``path`` (which replaces
    a link, never writes through it), and the folder fsynced. ``write`` returning False
    means there is nothing to put: the fresh file goes and ``path`` stays as it was.
    Whether it was put; whatever ``write`` or the disk raises is raised, the fresh file
    removed.
    """
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            if write(handle) is False:
                handle.close()
                remove_quietly(temporary)
                return False
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        remove_quietly(temporary)
        raise
    fsync_dir(path.parent)
    return True
