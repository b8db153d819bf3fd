"""What a confirmed action did, in words: the line a log gives it once it is done.

The prompt (:mod:`tabletop.table.prompts`) tells what an option would do before
CONFIRM; these say what it did, with the chain's size once the tile is in
("7I: grows Tower to 4 tiles"), and which actions a log may leave out.
"""

from __future__ import annotations

from tabletop.engine import actions as act
from tabletop.engine.game import Game
from tabletop.messages import Message
from tabletop.table.prompts import tiles_joined


def done(game: Game, action: act.Action, events: list[dict], label: str) -> str:
    """What a confirmed action did, for the line logged after it ("7I: grows Tower to 4 tiles",
    the size once the tile is in, where :func:`proposal_label` told what it would do); ``game``
    is the game after it, ``events`` the engine's; ``label``, the option confirmed, where that
    said it all ("6C: a lone tile")."""
    said = {event["event"]: event for event in events}
    if "merger" in said:
        merger, sizes = said["merger"], said["merger"]["sizes"]
        # The survivor grows once every holder has disposed: until then its tile lies alone.
        size = said["grew"]["size"] if "grew" in said else \
            sum(sizes.values()) + tiles_joined(game, game.merger.cell)
        return Message("{tile}: merges {defunct} into {survivor}, which grows to {size} tiles",
                       tile=_last_tile(game), survivor=merger["survivor"], size=size,
                       defunct=", ".join(f"{c} ({sizes[c]})" for c in merger["defunct"]))
    if "founded" in said:
        return Message("{tile}: founds {chain} ({size} tiles)", tile=_last_tile(game),
                       chain=said["founded"]["chain"], size=said["founded"]["size"])
    if isinstance(action, act.Place) and "grew" in said:
        return Message("{tile}: grows {chain} to {size} tiles", tile=said["placed"]["tile"],
                       chain=said["grew"]["chain"], size=said["grew"]["size"])
    if "disposed" in said:
        return _disposed(game, said)
    if isinstance(action, act.Buy):
        return _bought(game, said.get("bought"), [e for e in events if e["event"] == "traded_in"])
    if isinstance(action, act.End) and not action.agreed:
        return Message("ends the game") if "end_declared" in said else \
            Message("places no more closing tiles: the game is scored")
    if isinstance(action, act.Dead):
        return Message("reveals the dead tile {tile}", tile=said["dead"]["tile"])
    if isinstance(action, act.NextDefunct):
        return Message("chooses {chain} to be merged next", chain=action.chain)
    return Message("has no playable tile") if isinstance(action, act.NoTile) else label


def folded(game: Game, events: list[dict]) -> bool:
    """Whether a log may leave out a confirmed action's line, the next line or none saying
    all a reader needs: a tile founding a chain (its choice says next "8A: founds Continental
    (2 tiles)"), a holder keeping every share of a merged chain."""
    if game.pending is not None and game.pending.kind == "found":
        return any(event["event"] == "placed" for event in events)
    return any(event["event"] == "disposed" and not event["sold"] and not event["traded"]
               for event in events)


def _last_tile(game: Game) -> str:
    """The tile of the last placement: the one a founding or a merger's choice is about."""
    return game.canonical(max(i for i, action in enumerate(game.history)
                              if isinstance(action, act.Place))).tile


def _disposed(game: Game, said: dict[str, dict]) -> Message:
    """"sells 2 Luxor for $1,200, trades 2 Luxor for 1 Tower, keeps 1 Luxor"."""
    event, chain = said["disposed"], said["disposed"]["chain"]
    parts = [Message("sells {count} {chain} for {cash}", count=event["sold"], chain=chain,
                     cash=game.rules.money(event["cash"]))] if event["sold"] else []
    if event["traded"]:
        survivor = said["defunct"]["into"] if "defunct" in said else \
            game.rules.chains[game.merger.survivor].name
        parts.append(Message("trades {count} {chain} for {received} {survivor}",
                             count=event["traded"], chain=chain, received=event["received"],
                             survivor=survivor))
    if event["kept"] or not parts:
        parts.append(Message("keeps {count} {chain}", count=event["kept"], chain=chain))
    line = parts[0]
    for part in parts[1:]:
        line = Message("{first}, {then}", first=line, then=part)
    return line


def _bought(game: Game, bought: dict | None, traded: list[dict]) -> Message:
    if bought is None:
        return Message("buys nothing")
    money, shares = game.rules.money, ", ".join(f"{n} {c}" for c, n in bought["shares"].items())
    if traded:
        return Message("buys {shares} for {cost}, trading in {traded} for {cash}", shares=shares,
                       cost=money(bought["cost"]), cash=money(sum(e["cash"] for e in traded)),
                       traded=", ".join(f"{e['shares']} {e['chain']}" for e in traded))
    return Message("buys {shares} for {cost}", shares=shares, cost=money(bought["cost"]))
