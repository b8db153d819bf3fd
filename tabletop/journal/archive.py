"""Old games archived off the table: one self-contained file a director or a USB stick takes.

An archive is JSON lines (UTF-8): a header naming the format and the table(s), one line
per game (its id, table, title, rules, players, started, finished, its complete
``export --format jsonl`` text with that text's SHA-256, and the signed score slip of a
finished game), then a closing line holding the SHA-256 of every byte before it, so that
an archive cut short or changed on its way is refused as a whole.

>>> entry = ArchivedGame(id=3, table="table 1", title="Acquire", rules="acquire",
...                      players=["Ann", "Bob"], started="2026-12-01T20:00:00Z",
...                      finished="2026-12-01T21:00:00Z", abandoned=False,
...                      jsonl='{"setup": {}}\\n', slip=None)
>>> text = archive_text([entry], made="2026-12-02T10:00:00Z")
>>> parse_archive(text.encode(), "a.jsonl").games == [entry]
True
>>> entry.script_sha256 == hashlib.sha256(b'{"setup": {}}\\n').hexdigest()
True

The slip's ``script_sha256`` is that same digest: an archived game's slip is checked
against its archived text, long after the game left the table (:func:`slip_matches`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from tabletop.errors import JournalError
from tabletop.journal.export import to_jsonl
from tabletop.journal.files import remove_quietly
from tabletop.journal.store import fsync_dir, now

ARCHIVE_KEY = "tabletop_archive"
ARCHIVE_VERSION = 1
#: An archive larger than this is refused unread (some 10,000 long games fit in it).
MAX_ARCHIVE_BYTES = 1 << 30


@dataclass(frozen=True)
class ArchivedGame:
    """One game as the archive keeps it."""

    id: int
    table: str
    title: str
    rules: str
    players: list[str]
    started: str
    finished: str | None
    abandoned: bool                 # unfinished, archived because the user named it
    jsonl: str                      # the game's ``export --format jsonl`` text
    slip: dict[str, Any] | None     # the signed score slip of a finished game

    @property
    def script_sha256(self) -> str:
        """The SHA-256 of the game's text: a slip's ``script_sha256``."""
        return hashlib.sha256(self.jsonl.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "script_sha256": self.script_sha256}


@dataclass(frozen=True)
class Archive:
    """An archive file, read and found whole."""

    path: Path
    tables: list[str]
    made: str
    games: list[ArchivedGame]

    def game(self, game_id: int) -> ArchivedGame | None:
        return next((game for game in self.games if game.id == game_id), None)


def archive_text(games: Iterable[ArchivedGame], made: str | None = None) -> str:
    """The archive's text: header, one line per game, the closing digest line."""
    games = list(games)
    header = {ARCHIVE_KEY: ARCHIVE_VERSION, "made": made or now(),
              "tables": sorted({game.table for game in games}), "games": len(games)}
    lines = [json.dumps(header, ensure_ascii=False)]
    lines += [json.dumps(game.to_json(), ensure_ascii=False, sort_keys=True) for game in games]
    body = "".join(line + "\n" for line in lines)
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    return body + json.dumps({"end": len(games), "sha256": digest}) + "\n"


def entry(info: Any, lines: list[str], title: str, abandoned: bool,
          sign: Callable[[Any, list[str]], dict[str, Any]] | None) -> ArchivedGame:
    """A journal game (``info``: its games-list entry, ``lines``: its script) for the
    archive; ``sign`` makes the slip of a finished one."""
    slip = sign(info, lines) if info.finished is not None and sign is not None else None
    return ArchivedGame(info.id, info.table, title, info.rules, list(info.players), info.started,
                        info.finished, abandoned, to_jsonl(lines), slip)


def write_archive(path: str | Path, text: str, force: bool = False,
                  keep: Iterable[Path] = ()) -> None:
    """Put ``text`` at ``path`` whole or not at all: a fresh file beside it, fsynced, then
    linked into place (an existing file is refused unless ``force``; then it is replaced,
    never written through). ``keep``: files never replaced (the journal's own)."""
    path = Path(path)
    refusal = _refused(path, force, keep)
    if refusal:
        raise JournalError(f"will not write {path}: {refusal}; nothing was written")
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")
    except OSError as error:
        raise JournalError(f"cannot write {path}: {error.strerror}; nothing was written") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        if force:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)       # fails if a file appeared there meanwhile
            os.remove(temporary)
    except FileExistsError:
        remove_quietly(temporary)
        raise JournalError(f"will not write {path}: it exists (--force replaces it); nothing "
                           f"was written") from None
    except OSError as error:
        remove_quietly(temporary)
        raise JournalError(f"cannot write {path}: {error.strerror}; nothing was written") from None
    fsync_dir(path.parent)


def _refused(path: Path, force: bool, keep: Iterable[Path]) -> str | None:
    if not path.parent.is_dir():
        return f"there is no folder {path.parent}"
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        return "it is not a regular file"
    if any(_same(path, other) for other in keep):
        return "it is one of the journal's own files"
    return None if force else "it exists (--force replaces it)"


def _same(path: Path, other: Path) -> bool:
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False


def read_archive(path: str | Path) -> Archive:
    """The archive at ``path``; JournalError (one line) unless it is a whole archive."""
    path = Path(path)
    try:
        if not path.is_file():
            raise JournalError(f"{path} is not an archive: " +
                               ("no such file" if not os.path.lexists(path) else "not a file"))
        if path.stat().st_size > MAX_ARCHIVE_BYTES:
            raise JournalError(f"{path} is not an archive: it is larger than any archive")
        data = path.read_bytes()
    except OSError as error:
        raise JournalError(f"cannot read {path}: {error.strerror}") from None
    return parse_archive(data, str(path))


def parse_archive(data: bytes, name: str) -> Archive:
    """An archive's bytes, checked whole (its closing digest) and field by field."""
    def bad(why: str) -> JournalError:
        return JournalError(f"{name} is not a tabletop archive, or it was damaged ({why}); "
                            f"nothing was changed")

    cut = data.rstrip(b"\n").rfind(b"\n") + 1
    body, closing = data[:cut], data[cut:]
    try:
        end = json.loads(closing.decode("utf-8"))
        lines = [json.loads(line) for line in body.decode("utf-8").splitlines()]
    except (UnicodeDecodeError, ValueError):
        raise bad("a line is not JSON") from None
    if not lines or not isinstance(lines[0], dict) or ARCHIVE_KEY not in lines[0]:
        raise bad("no archive header")
    header = lines[0]
    if header[ARCHIVE_KEY] != ARCHIVE_VERSION:
        raise JournalError(f"{name} is an archive of format {header[ARCHIVE_KEY]!r}; this "
                           f"tabletop reads format {ARCHIVE_VERSION}")
    if not isinstance(end, dict) or end.get("sha256") != hashlib.sha256(body).hexdigest() \
            or end.get("end") != len(lines) - 1:
        raise bad("it was cut short or changed: its closing digest does not hold")
    try:
        games = [_game(line) for line in lines[1:]]
    except (TypeError, KeyError, ValueError) as error:
        raise bad(f"a game's entry is malformed: {error}") from None
    return Archive(Path(name), list(header.get("tables", [])), str(header.get("made", "")), games)


def _game(data: Any) -> ArchivedGame:
    if not isinstance(data, dict):
        raise ValueError("not an object")
    game = ArchivedGame(**{key: data[key] for key in ArchivedGame.__dataclass_fields__})
    if not (isinstance(game.id, int) and isinstance(game.jsonl, str)
            and isinstance(game.started, str) and isinstance(game.table, str)):
        raise ValueError(f"game {game.id!r}")
    if data.get("script_sha256") != game.script_sha256:
        raise ValueError(f"game {game.id}'s text does not match its digest")
    return game


def slip_matches(slip: dict[str, Any], archive: Archive) -> str:
    """Whether a slip's ``script_sha256`` is the archived text of its game: a sentence.

    (The slip's signature is checked apart, by ``tabletop verify``.)
    """
    game = archive.game(slip.get("game")) if isinstance(slip.get("game"), int) else None
    if game is None:
        return f"the archive holds no game {slip.get('game')!r}"
    if game.script_sha256 != slip.get("script_sha256"):
        return f"game {game.id}'s archived text is not the one the slip was made of"
    return f"game {game.id}'s archived text is the one the slip was made of"


# -- choosing and writing a journal's games --------------------------------------------

@dataclass(frozen=True)
class Selection:
    """Which games to archive: finished ones before a game id or a day, and unfinished ones
    named as abandoned."""

    before: int | None = None
    finished_before: str | None = None      # YYYY-MM-DD (UTC)
    abandoned: tuple[int, ...] = ()


def in_progress(infos: Iterable[Any]) -> set[int]:
    """The games in progress: each table's newest unfinished game (the one ``tabletop run``
    resumes); never archived, never pruned."""
    newest: dict[str, int] = {}
    for info in infos:
        if info.finished is None:
            newest[info.table] = max(info.id, newest.get(info.table, 0))
    return set(newest.values())


def choose(infos: list[Any], selection: Selection) -> tuple[list[Any], list[str]]:
    """The games ``selection`` archives, and a sentence for each game it leaves out."""
    if selection.before is None and selection.finished_before is None and not selection.abandoned:
        raise JournalError("archive: say which games: --before GAME_ID, --finished-before "
                           "YYYY-MM-DD, or --abandoned GAME_ID; nothing was written")
    by_id = {info.id: info for info in infos}
    busy = in_progress(infos)
    for game in selection.abandoned:
        if game not in by_id:
            raise JournalError(f"archive: there is no game {game} in the journal; nothing was "
                               f"written")
        if game in busy:
            raise JournalError(f"archive: game {game} is in progress (the game `tabletop run` "
                               f"resumes): a game in progress is never archived; nothing was "
                               f"written")
        if by_id[game].finished is not None:
            raise JournalError(f"archive: game {game} is finished, not abandoned: choose it "
                               f"with --before or --finished-before; nothing was written")
    chosen, notes = [], []
    for info in infos:
        if info.id in selection.abandoned:
            chosen.append(info)
        elif _chosen(info, selection):
            if info.finished is not None:
                chosen.append(info)
            else:
                why = "in progress" if info.id in busy else "not finished"
                notes.append(f"game {info.id} is {why}: left out" +
                             ("" if info.id in busy else
                              f" (--abandoned {info.id} archives it as abandoned)"))
    return chosen, notes


def _chosen(info: Any, selection: Selection) -> bool:
    if selection.before is not None and info.id < selection.before:
        return True
    return (selection.finished_before is not None and info.finished is not None
            and info.finished < selection.finished_before)


def archive_journal(journal: Any, selection: Selection, to: str | Path, force: bool = False,
                    sign: Callable[[Any, list[str]], dict[str, Any]] | None = None,
                    keep: Iterable[Path] = ()) -> tuple[list[ArchivedGame], list[str]]:
    """Write the games ``selection`` names from an open journal to the archive ``to``;
    the games written and the notes on those left out. JournalError if there is none."""
    from tabletop.journal.export import final_game

    chosen, notes = choose(journal.games(), selection)
    if not chosen:
        raise JournalError("archive: no finished game matches" +
                           (f" ({'; '.join(notes)})" if notes else "") + "; nothing was written")
    games = []
    for info in chosen:
        lines = journal.lines(info.id)
        title = final_game(lines).rules.title
        games.append(entry(info, lines, title, info.finished is None, sign))
    write_archive(to, archive_text(games), force, keep)
    return games, notes
