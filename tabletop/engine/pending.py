"""What a game waits for: who must decide what, with the legal choices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

#: Every kind of decision a game may wait for (docs/design.md's ``pending.kind``): the
#: state JSON's contract, hence plain strings, typed for a checker's sake.
PendingKind = Literal["place", "found", "survivor", "next_defunct", "market", "dispose", "buy",
                      "closing"]
KINDS: tuple[PendingKind, ...] = get_args(PendingKind)


@dataclass(slots=True)
class Pending:
    """What the game waits for: ``kind``, the seat to act, and the legal choices.

    ``choices`` are chain indexes (found, survivor, next_defunct); ``chain``
    is the chain a market draw or a disposal is about; ``cell`` the tile
    that founds a chain. -1 where they do not apply.
    """

    kind: PendingKind
    player: int
    choices: tuple[int, ...] = ()
    chain: int = -1
    cell: int = -1
