"""The state JSON of docs/design.md, and the disclosure levels as views of it.

``state_json(game)`` is everything (virtual-mode hands included): what
``tabletop replay`` prints. ``view(state, level)`` is what a shared screen may
show at a disclosure level:

==========  ==================================================
``hidden``  board, chains, prices, bonuses; no bank or player figures
``bank``    and the shares left in the bank
``players`` and each player's holdings
``open``    and each player's cash
==========  ==================================================

Tiles in hands are never shown on a shared screen. Final standings are public.
Once the game is over each player also has ``worthless``: the shares still
held, of chains not on the board, which the final count valued at nothing
(shown with the holdings, from ``players`` up).
"""

from __future__ import annotations

import copy
from typing import Any

from tabletop.engine.board import EMPTY, LONE, TURNOVER
from tabletop.engine.choices import Disclosure, values
from tabletop.engine.game import Game

#: The disclosure levels, least to most shown (plain strings: the CLI offers them).
LEVELS = values(Disclosure)


def state_json(game: Game) -> dict[str, Any]:
    """The full state of ``game`` as docs/design.md's state JSON."""
    rules, names = game.rules, game.names
    chain_names = [chain.name for chain in rules.chains]
    labels = game.geometry.labels
    board: dict[str, Any] = {}
    for cell, owner in enumerate(game.board.cells):
        if owner == EMPTY:
            continue
        board[labels[cell]] = (None if owner == LONE else "dead" if owner == TURNOVER
                               else chain_names[owner])
    chains = {
        chain_names[c]: {"size": size, "price": game.price(c),
                         "safe": game.board.is_safe(c), "bank_shares": game.bank[c],
                         "bonuses": list(game.bonuses(c))}
        for c, size in enumerate(game.board.sizes) if size}
    if game.territory is not None:
        # ACQUISITIONS' final count: the enclosed empty hexes priced in at the end.
        for c, size in enumerate(game.board.sizes):
            if size:
                chains[chain_names[c]]["territory"] = game.territory[c]
    players = []
    for seat, name in enumerate(names):
        entry: dict[str, Any] = {
            "name": name, "cash": game.cash[seat],
            "shares": {chain_names[c]: n for c, n in enumerate(game.holdings[seat]) if n}}
        if game.virtual:
            entry["tiles"] = [game.geometry.tile_labels[t] for t in sorted(game.hands[seat])]
        if game.standings is not None:
            entry["worthless"] = _worthless(game, seat)
        players.append(entry)
    standings = None
    if game.standings is not None:
        standings = [{"name": names[seat], "cash": game.cash[seat], "rank": rank}
                     for seat, rank in game.standings]
    return {
        "rules": rules.name,
        "turn": game.turn,
        "current": names[game.current],
        "pending": pending_json(game),
        "board": board,
        "chains": chains,
        "players": players,
        "tiles_left": game.tiles_left,
        "end_allowed": game.end_allowed(),
        "standings": standings,
        "mode": "virtual" if game.virtual else "physical",
        "options": dict(game.options),
        "dead_tiles": [labels[c] for c in game.dead],
        "end_declared": game.end_declared,
    }


def _worthless(game: Game, seat: int) -> dict[str, int]:
    """Once the game is over: ``seat``'s shares of chains not on the board, worth nothing.

    Every share of a chain on the board was sold in the final count; these
    were not, and count 0 towards the player's cash.

    >>> from tabletop.engine.table_script import replay
    >>> lines = ['{"setup": {"rules": "acquire", "players": ["Ann", "Bob"]}}',
    ...          '{"do": "end", "agreed": true}', '{"do": "no_tile"}',
    ...          '{"do": "buy", "shares": {}}']
    >>> game = replay(lines).game
    >>> game.over
    True
    >>> game.holdings[0][0] = 2         # Ann kept 2 Tower shares of a chain merged away
    >>> _worthless(game, 0), _worthless(game, 1)
    ({'Tower': 2}, {})
    """
    chains = game.rules.chains
    return {chains[c].name: held for c, held in enumerate(game.holdings[seat])
            if held and not game.board.sizes[c]}


def pending_json(game: Game) -> dict[str, Any] | None:
    """What the game waits for, with the legal choices."""
    pending = game.pending
    if pending is None:
        return None
    chains, labels = game.rules.chains, game.geometry.labels
    out: dict[str, Any] = {"kind": pending.kind, "player": game.names[pending.player]}
    kind = pending.kind
    if kind == "place":
        if game.virtual:
            out["tiles"] = [labels[c] for c in sorted(set(game.playable(pending.player)))]
    elif kind == "found":
        out["tile"] = labels[pending.cell]
        out["choices"] = [chains[c].name for c in pending.choices]
    elif kind == "survivor":
        out["choices"] = [chains[c].name for c in pending.choices]
    elif kind == "next_defunct":
        out["survivor"] = chains[game.merger.survivor].name
        out["choices"] = [chains[c].name for c in pending.choices]
    elif kind == "market":
        out["chain"] = chains[pending.chain].name
    elif kind == "dispose":
        merger = game.merger
        out.update({"chain": chains[merger.defunct].name, "survivor": chains[merger.survivor].name,
                    "shares": game.holdings[pending.player][merger.defunct],
                    "price": merger.price, "trade_max": game.trade_max(pending.player)})
    elif kind == "buy":
        out["limit"] = game.rules.buy_limit
        if game.rules.trade_to_buy:
            out["trade_in"] = True
    elif kind == "closing" and game.virtual:
        out["tiles"] = [labels[c] for c in game.remaining_cells()]
    return out


def view(state: dict[str, Any], level: str | None = None) -> dict[str, Any]:
    """``state`` as a shared screen may show it at disclosure ``level``.

    With no level, the table's own choice (option ``disclosure``): what the
    shared screen uses. An explicit level is for a referee's tools.

    >>> from tabletop.engine.game import Game
    >>> state = state_json(Game("acquire", ["Ann", "Bob", "Cy"], {"disclosure": "players"}))
    >>> shown = view(state)
    >>> shown["view"], sorted(shown["players"][0])
    ('players', ['name', 'shares'])
    """
    if level is None:
        level = state["options"]["disclosure"]
    if level not in LEVELS:
        raise ValueError(f"unknown disclosure level {level!r} (levels: {', '.join(LEVELS)})")
    shown = copy.deepcopy(state)
    rank = LEVELS.index(level)
    for player in shown["players"]:
        player.pop("tiles", None)
        if rank < LEVELS.index(Disclosure.OPEN):
            player.pop("cash", None)
        if rank < LEVELS.index(Disclosure.PLAYERS):
            player.pop("shares", None)
            player.pop("worthless", None)
    if rank < LEVELS.index(Disclosure.BANK):
        for chain in shown["chains"].values():
            chain.pop("bank_shares", None)
    pending = shown.get("pending")
    if pending:
        pending.pop("tiles", None)
        if rank < LEVELS.index(Disclosure.PLAYERS):
            for key in ("shares", "trade_max"):
                pending.pop(key, None)
    shown["view"] = level
    return shown
