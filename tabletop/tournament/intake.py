"""The director's intake: each table's signed slip taken once, verified, or refused and why.

A slip is taken when, in this order:

1. the table it names (its ``seat``; the broker's topic names one too, and the two
   must agree) has a public key registered;
2. its signature holds under that key and it is for this tournament, a round
   seated and that table (:func:`tabletop.journal.signing.verify` with the
   expected seat): a slip changed in any field, signed by another key, or of
   another tournament or round is refused;
3. it is not the very slip taken before (its id, :func:`~tabletop.journal.outbox.slip_id`):
   a slip sent again is answered "already taken" and counted once;
4. that table has not handed in another slip for that round, and its players are
   the ones seated there.

Every refusal names the table. What is taken (and what was refused) is appended to
the intake's own file, one JSON line a slip, fsynced before the answer is given,
under a lock, so that ``listen`` and ``import`` may run at once and a restart
loses nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Protocol

from tabletop.errors import SlipError
from tabletop.journal.keys import PublicKey, parse_public_key
from tabletop.journal.outbox import slip_id
from tabletop.journal.seat import Seat
from tabletop.journal.store import now
from tabletop.tournament.model import Tournament, TournamentError
from tabletop.tournament.standings import GameResult

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: one intake at a time is the director's to ensure
    fcntl = None

TAKEN, ALREADY, REFUSED = "taken", "already", "refused"


class Verdict(Protocol):
    """What a slip check answers: valid or not, and why, in words (``str``)."""

    @property
    def valid(self) -> bool: ...


#: The seam to the score slips' signatures: ``verify(slip, public_key, expected_seat)``.
#: tabletop.journal.signing.verify is the one used; tests may give another.
SlipCheck = Callable[[Mapping[str, Any], PublicKey, Seat], Verdict]


def _journal_verify(slip: Mapping[str, Any], key: PublicKey, expected: Seat) -> Verdict:
    from tabletop.journal.signing import verify

    return verify(dict(slip), key, expected)


@dataclass(frozen=True)
class Outcome:
    """The intake's answer for one slip: ``kind`` (taken, already, refused), the table it
    names, the slip's id, one line for the director, and the result when it was taken."""

    kind: str
    table: str
    slip_id: str | None
    message: str
    result: GameResult | None = None
    #: False for a refusal the director can mend (no key registered, no round seated for the
    #: table): the table is not answered, and sends the slip again later.
    final: bool = True


@dataclass(frozen=True)
class Entry:
    """One line of the intake's file."""

    id: str
    outcome: str
    table: str
    slip: dict[str, Any]
    reason: str | None = None


def slips_file(tournament_file: str | Path) -> Path:
    """Where the intake of a tournament file keeps its slips: beside it, ``NAME.slips.jsonl``.

    >>> slips_file("spring/tournament.json").as_posix()
    'spring/tournament.slips.jsonl'
    """
    path = Path(tournament_file)
    return path.with_name(f"{path.stem}.slips.jsonl")


class Intake:
    """Slips taken for one tournament; ``tournament`` is re-read for each slip when given as a
    function (the director may seat a round while ``listen`` runs)."""

    def __init__(self, tournament: Tournament | Callable[[], Tournament], path: str | Path,
                 check: SlipCheck = _journal_verify) -> None:
        self._tournament = tournament
        self.path = Path(path)
        self.check = check

    @property
    def tournament(self) -> Tournament:
        given = self._tournament
        return given if isinstance(given, Tournament) else given()

    # -- reading --------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """Every line of the intake's file (a torn last line, from a crash, is left out: its
        table sends the slip again)."""
        try:
            with open(self.path, "rb") as file:
                return list(_entries(file.read()))
        except FileNotFoundError:
            return []
        except OSError as error:
            raise TournamentError(f"cannot read the slips taken, {self.path}: "
                                  f"{error.strerror}") from None

    def results(self) -> list[GameResult]:
        """The results of the slips taken, in the order taken."""
        return [GameResult.from_slip(entry.slip) for entry in self.entries()
                if entry.outcome == TAKEN]

    def missing(self, number: int) -> list[str]:
        """The tables of round ``number`` whose slip is not taken yet."""
        seated = self.tournament.round(number)
        done = {(r.round, r.table) for r in self.results()}
        return [table for table in seated.tables if (number, table) not in done]

    # -- taking ---------------------------------------------------------------------------

    def take(self, slip: Any, table: str | None = None) -> Outcome:
        """Take ``slip`` (a slip's JSON values) or refuse it; ``table``: the table the broker's
        topic names, which the slip must name too."""
        with self._locked() as file:
            raw = _read_all(file)
            taken = list(_entries(raw))
            outcome = self._judge(slip, table, taken)
            if outcome.kind == TAKEN or (outcome.final and outcome.kind == REFUSED and
                                         outcome.slip_id and
                                         all(e.id != outcome.slip_id for e in taken)):
                entry = {"id": outcome.slip_id, "outcome": outcome.kind, "at": now(),
                         "table": outcome.table, "slip": slip,
                         **({} if outcome.kind == TAKEN else {"reason": outcome.message})}
                # A line torn by a crash is ended first, or the new one would join it.
                torn = bool(raw) and not raw.endswith(b"\n")
                _append(file, entry, self.path, torn)
        return outcome

    def _judge(self, slip: Any, via: str | None, taken: list[Entry]) -> Outcome:
        if not isinstance(slip, dict):
            return _refused(via or "an unknown table", None, "this is not a slip")
        ident = slip_id(slip)
        named = _seat_table(slip)
        table = via or named or "an unnamed table"
        if via is not None and named is not None and named != via:
            return _refused(table, ident, f"the slip names table {named}, not this one")
        tournament = self.tournament
        if table not in tournament.tables:
            return _refused(table, ident, f"no public key is registered for this table "
                            f"(`tabletop director register {table} KEY`)", final=False)
        expected = self._expected(slip, table, tournament)
        if expected is None:
            return _refused(table, ident, "this table plays in no round seated so far",
                            final=False)
        try:
            key = parse_public_key(tournament.tables[table])
        except SlipError as error:
            return _refused(table, ident, f"its registered public key is not one ({error})")
        verdict = self.check(slip, key, expected)
        if not verdict.valid:
            return _refused(table, ident, _why(str(verdict)))
        if any(entry.id == ident and entry.outcome == TAKEN for entry in taken):
            return Outcome(ALREADY, table, ident, f"table {table}: slip {ident} of round "
                           f"{expected.round} was taken before (sent again: counted once)")
        return self._seated(slip, ident, table, expected, tournament, taken)

    def _seated(self, slip: dict[str, Any], ident: str, table: str, expected: Seat,
                tournament: Tournament, taken: list[Entry]) -> Outcome:
        """The last checks: one slip a table a round, by the players seated there."""
        try:
            result = GameResult.from_slip(slip)
        except TournamentError as error:
            return _refused(table, ident, str(error))
        for entry in taken:
            if entry.outcome == TAKEN and entry.table == table and \
                    entry.slip.get("seat", {}).get("round") == expected.round:
                return _refused(table, ident, f"this table handed in its slip for round "
                                f"{expected.round} already (game {entry.slip.get('game')}); "
                                f"this one is of game {result.game}")
        seated = tournament.round(expected.round).tables[table]
        if sorted(result.names) != sorted(seated):
            return _refused(table, ident, f"the slip's players ({', '.join(result.names)}) are "
                            f"not the ones seated at table {table} in round {expected.round} "
                            f"({', '.join(seated)})")
        return Outcome(TAKEN, table, ident, f"took table {table}'s slip for round "
                       f"{expected.round} (game {result.game}): {_placings(slip)}", result)

    @staticmethod
    def _expected(slip: dict[str, Any], table: str, tournament: Tournament) -> Seat | None:
        """The seat a slip of ``table`` must name: the round it claims if that round is seated
        with this table, else the latest round seated with it (the refusal then says so)."""
        claimed = slip.get("seat", {}).get("round") if isinstance(slip.get("seat"), dict) else None
        rounds = [r.number for r in tournament.rounds if table in r.tables]
        if not rounds:
            return None
        number = claimed if claimed in rounds else rounds[-1]
        return Seat(number, table, tournament.name)

    def _locked(self) -> _Locked:
        return _Locked(self.path)


class _Locked:
    """The intake's file, open for appending and locked against another intake."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> Any:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = open(self.path, "a+b")
        except OSError as error:
            raise TournamentError(f"cannot open the slips taken, {self.path}: "
                                  f"{error.strerror}") from None
        if fcntl is not None:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX)
        return self.file

    def __exit__(self, *exc: object) -> None:
        self.file.close()     # closing releases the lock


def _read_all(file: Any) -> bytes:
    file.seek(0)
    return file.read()


def _append(file: Any, entry: dict[str, Any], path: Path, torn: bool = False) -> None:
    line = "\n" * torn + json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n"
    try:
        file.seek(0, os.SEEK_END)
        file.write(line.encode("utf-8"))
        file.flush()
        os.fsync(file.fileno())
    except OSError as error:
        raise TournamentError(f"cannot write the slips taken, {path}: {error.strerror}") from None


def _entries(raw: bytes) -> Iterator[Entry]:
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            value = json.loads(line)
            yield Entry(value["id"], value["outcome"], value["table"], value["slip"],
                        value.get("reason"))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue


def _why(verdict: str) -> str:
    """A verdict as one line: ``invalid: ...`` lines become what the signature says.

    >>> _why("invalid: field a was changed\\ninvalid: field b was added")
    'its signature does not hold: field a was changed; field b was added'
    """
    lines = verdict.splitlines()
    if lines and all(line.startswith("invalid: ") for line in lines):
        return "its signature does not hold: " + "; ".join(
            line.removeprefix("invalid: ") for line in lines)
    return "; ".join(lines).removeprefix("refused: ")


def _seat_table(slip: dict[str, Any]) -> str | None:
    seat = slip.get("seat")
    table = seat.get("table") if isinstance(seat, dict) else None
    return table if isinstance(table, str) and table.isprintable() and len(table) <= 80 else None


def _refused(table: str, ident: str | None, why: str, final: bool = True) -> Outcome:
    return Outcome(REFUSED, table, ident, f"refused the slip of table {table}: {why}",
                   final=final)


def _placings(slip: Mapping[str, Any]) -> str:
    """The slip's players as the director's terminal shows them: ``1. Ann $9,100, ...``."""
    currency, after = slip.get("currency", ""), slip.get("currency_after", False)
    shown = []
    for player in slip["players"]:
        amount = f"{player['cash']:,}"
        amount = f"{amount} {currency}" if after else f"{currency}{amount}"
        shown.append(f"{player['rank']}. {player['name']} {amount}")
    return ", ".join(shown)
