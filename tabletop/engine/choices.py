"""The values every rule choice may take, declared once.

A rule file's keys (``board.dead_tiles``) and a table's options
(``defunct_order``) hold plain strings; the loader checks them against these
enums, and the engine compares against the members, so a misspelt name is an
AttributeError at once instead of a comparison that is silently false.
Members are ``str``: they equal, hash and print as their values, so rule
files, table scripts and state JSON keep their plain strings.

>>> DefunctOrder.LARGEST_FIRST == "largest_first", f"{DeadTiles.TURNOVER}"
(True, 'turnover')
>>> values(AgreedEnd)
('finish_turn', 'complete_round')
>>> ENGINE_OPTIONS["defunct_order"] is DefunctOrder
True
"""

from __future__ import annotations

from enum import StrEnum
from typing import Mapping


def values(choice: type[StrEnum]) -> tuple[str, ...]:
    """The allowed values of ``choice``, in declaration order (the order messages list)."""
    return tuple(member.value for member in choice)


# -- keys of the rule file -------------------------------------------------------
# Declaration order is the order the loader's messages list the values in.

class CurrencyPosition(StrEnum):
    """``game.currency_position``: where the unit goes ($6,000 or 120M)."""

    BEFORE = "before"
    AFTER = "after"


class StartTiles(StrEnum):
    """``board.start_tiles``: whether turn-order tiles stay on the board."""

    STAY = "stay"
    RETURN = "return"


class DeadTiles(StrEnum):
    """``board.dead_tiles``: a permanently unplayable tile leaves, or is turned face down."""

    REMOVED = "removed"
    TURNOVER = "turnover"


class Disposal(StrEnum):
    """``merger.disposal`` entries: what a holder may do with defunct shares."""

    SELL = "sell"
    TRADE = "trade"
    KEEP = "keep"


class DisposalOrder(StrEnum):
    """``merger.disposal_order``: who disposes of defunct shares first."""

    MERGEMAKER_CLOCKWISE = "mergemaker_clockwise"
    LARGEST_HOLDER_FIRST = "largest_holder_first"


class FinalCount(StrEnum):
    """``end.final_count``: tiles on the board, or tiles plus territory.

    Territory is the empty cells of the pockets a chain's own tiles alone
    enclose (never the board's edge). A territory game may also end once no
    chain can grow except into its own pockets: "when all disputed borders
    are resolved" (ACQUISITIONS).
    """

    TILES = "tiles"
    TERRITORY = "territory"


class AgreedEnd(StrEnum):
    """``end.agreed_end``: how far play goes on after an end by agreement."""

    FINISH_TURN = "finish_turn"
    COMPLETE_ROUND = "complete_round"


# -- a table's options ----------------------------------------------------------
# A rule file lists the choices it offers; they must be among these.

class FounderWhenSoldOut(StrEnum):
    """Option ``founder_when_sold_out``: a founder's due when no share is left."""

    CASH = "cash"
    NOTHING = "nothing"


class DefunctOrder(StrEnum):
    """Option ``defunct_order``: which defunct chain of a multi-chain merger goes first."""

    LARGEST_FIRST = "largest_first"
    SMALLEST_FIRST = "smallest_first"


class Disclosure(StrEnum):
    """Option ``disclosure``: what a shared screen shows, least to most."""

    HIDDEN = "hidden"
    BANK = "bank"
    PLAYERS = "players"
    OPEN = "open"


class IncorrectPlacement(StrEnum):
    """Option ``incorrect_placement``: how far back undo reaches."""

    ANY_TIME = "any_time"
    SAME_TURN = "same_turn"


class DeadReveal(StrEnum):
    """Option ``dead_reveal``: when a dead tile may be revealed (and replaced).

    ``any_time``: by any player whenever the game waits; ``end_of_turn``: by the
    player whose turn it is, once their tile is placed (the buy step), seed 001's
    "at end of turn, you may also discard any unplayable tiles".
    """

    ANY_TIME = "any_time"
    END_OF_TURN = "end_of_turn"


class TurnOrder(StrEnum):
    """Option ``turn_order``: which turn-order tile is "closest" to the first label.

    ``number_first``: lower number, then lower letter (1A < 1B < 2A);
    ``row_first``: lower letter (row), then lower number (A1 < A2 < B1).
    """

    NUMBER_FIRST = "number_first"
    ROW_FIRST = "row_first"


#: Options the engine reads as one of a fixed set of values.
ENGINE_OPTIONS: Mapping[str, type[StrEnum]] = {
    "founder_when_sold_out": FounderWhenSoldOut,
    "defunct_order": DefunctOrder,
    "disclosure": Disclosure,
    "incorrect_placement": IncorrectPlacement,
}

#: Engine options a rule file may leave out (files written before them, and games
#: recorded with such a file): the engine then plays as it did before them (any time;
#: the board's own cell order).
OPTIONAL_ENGINE_OPTIONS: Mapping[str, type[StrEnum]] = {
    "dead_reveal": DeadReveal,
    "turn_order": TurnOrder,
}

#: Options the engine reads as a plain flag or number (their default fixes the type).
ENGINE_OPTION_KINDS: Mapping[str, type] = {
    "agreed_end": bool,
    "two_player_market": bool,
    "end_size": int,
}
