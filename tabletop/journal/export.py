"""A journaled game for other programs: its table script, one JSON document, or CSV payouts.

>>> lines = ['{"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}}',
...          '{"do": "place", "player": "Ann", "tile": "6C"}', '{"do": "undo"}']
>>> print(to_jsonl(lines), end="")
{"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}}
{"do": "place", "player": "Ann", "tile": "6C"}
{"do": "undo"}
>>> print(to_csv(7, lines), end="")
game,player,seat,chain,kind,shares,amount

- ``jsonl``: the table script of docs/design.md as the journal confirmed it, ``undo``
  lines included (``clean=True``: without the undone actions and the undos).
  ``tabletop replay`` gives back the same state.
- ``json``: the game's entry (id, table, rules, players, times), the setup,
  every action with its sequence number and time, and the final state JSON.
- ``csv``: one row per payout to a player, in the order they were paid:
  ``kind`` is ``bonus``, ``merger_sale`` (defunct shares sold in a merger),
  ``final_sale`` (shares sold at the end), ``founder_cash`` (a founder paid in
  cash when the bank has no share left) or ``trade_in`` (shares handed back to
  pay for a purchase, at their price). Undone actions pay nothing.
  A text cell a spreadsheet would read as a formula (a player named
  ``=HYPERLINK(...)``) is written with a leading ``'``; the numbers stay numbers.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Sequence

from tabletop.engine.actions import parse_action
from tabletop.engine.game import Game
from tabletop.errors import JournalError
from tabletop.engine.table_script import game_from_setup, replay

FORMATS = ("jsonl", "json", "csv")
CSV_COLUMNS = ("game", "player", "seat", "chain", "kind", "shares", "amount")
#: What makes a spreadsheet read a cell as a formula (OWASP's list, and the full-width
#: signs some spreadsheets take for the same).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


@dataclass(frozen=True)
class Payout:
    """Money a player received for a chain: a bonus or a sale of shares."""

    player: str
    seat: int
    chain: str
    kind: str
    shares: int | None
    amount: int


def final_game(lines: Sequence[str]) -> Game:
    """The game the lines leave, every line applied; JournalError if one does not apply."""
    result = replay(lines)
    if result.errors:
        number, reason = result.errors[0]
        raise JournalError(f"line {number} of the game does not replay: {reason}")
    return result.game


def played_events(lines: Sequence[str]) -> tuple[Game, list[dict[str, Any]]]:
    """The final game and the events of every action that stands (undone ones excluded)."""
    script = final_game(lines).script()
    game = game_from_setup(script[0])
    events: list[dict[str, Any]] = []
    for line in script[1:]:
        events.extend(game.push(parse_action(line)))
    return game, events


def payouts(lines: Sequence[str]) -> list[Payout]:
    """Every payout to a player in the game, in the order paid."""
    return payouts_of(*played_events(lines))


def payouts_of(game: Game, events: Sequence[dict[str, Any]]) -> list[Payout]:
    """The payouts to players among ``events`` of ``game``."""
    seats = {name: seat for seat, name in enumerate(game.names)}
    found: list[Payout] = []
    for event in events:
        payout = _payout(event)
        if payout is not None and payout[0] in seats:   # the 2-player market is not a player
            player, chain, kind, shares, amount = payout
            found.append(Payout(player, seats[player], chain, kind, shares, amount))
    return found


def _payout(event: dict[str, Any]) -> tuple[str, str, str, int | None, int] | None:
    kind = event["event"]
    if kind == "bonus":
        return event["player"], event["chain"], "bonus", None, event["amount"]
    if kind == "disposed" and event.get("sold"):
        return event["player"], event["chain"], "merger_sale", event["sold"], event["cash"]
    if kind == "sold":
        return event["player"], event["chain"], "final_sale", event["shares"], event["cash"]
    if kind == "founder_cash":
        return event["player"], event["chain"], "founder_cash", None, event["amount"]
    if kind == "traded_in":
        return event["player"], event["chain"], "trade_in", event["shares"], event["cash"]
    return None


def to_jsonl(lines: Sequence[str], clean: bool = False) -> str:
    """The table script: the lines as confirmed, or (``clean``) the game without undone actions."""
    if clean:
        lines = [json.dumps(line, ensure_ascii=False) for line in final_game(lines).script()]
    return "".join(line + "\n" for line in lines)


def to_json(info: Any, records: Sequence[Any]) -> dict[str, Any]:
    """One document: the game's entry, setup, actions with their times, and the final state."""
    from tabletop.engine.state import state_json

    game = final_game([record.line for record in records])
    return {
        "game": info.id, "table": info.table, "rules": info.rules, "players": info.players,
        "started": info.started, "finished": info.finished,
        "setup": json.loads(records[0].line)["setup"],
        "actions": [{"seq": record.seq, "at": record.at, "line": json.loads(record.line)}
                    for record in records[1:]],
        "state": state_json(game),
    }


def to_csv(game_id: int, lines: Sequence[str]) -> str:
    """One row per payout to a player (see the module's description of ``kind``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # The writer quotes a cell holding its line end (\n) but not a lone \r, which readers
    # take for one too: a row with one has its text quoted, so no name can forge a row.
    quoting = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(CSV_COLUMNS)
    for payout in payouts(lines):
        # Only the text columns come from what people typed (names, a rule file's chains);
        # the numeric ones are ints from the engine, kept as numbers (-300 stays -300).
        row = [game_id, csv_text(payout.player), payout.seat + 1, csv_text(payout.chain),
               csv_text(payout.kind), "" if payout.shares is None else payout.shares,
               payout.amount]
        carriage = any(isinstance(cell, str) and "\r" in cell for cell in row)
        (quoting if carriage else writer).writerow(row)
    return out.getvalue()


def csv_text(text: str) -> str:
    """A text cell that no spreadsheet runs as a formula: a leading ``'`` where it would.

    >>> print(csv_text('=HYPERLINK("http://x","click")'), csv_text("@SUM(A1)"), csv_text("Ann"))
    '=HYPERLINK("http://x","click") '@SUM(A1) Ann
    >>> print(csv_text("-300"))     # a name, not a number: the numeric columns never come here
    '-300
    """
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def export_game(journal: Any, game_id: int, fmt: str = "jsonl", clean: bool = False) -> str:
    """Game ``game_id`` of an open :class:`~tabletop.journal.journal.Journal` as text in ``fmt``."""
    if fmt not in FORMATS:
        raise JournalError(f"unknown export format {fmt!r} (formats: {', '.join(FORMATS)})")
    records = journal.records(game_id)
    lines = [record.line for record in records]
    if fmt == "jsonl":
        return to_jsonl(lines, clean)
    if fmt == "csv":
        return to_csv(game_id, lines)
    return json.dumps(to_json(journal.info(game_id), records), indent=2, ensure_ascii=False) + "\n"
