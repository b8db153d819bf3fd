"""What the table is asked: a :class:`Prompt` of :class:`Option` s, and the options of each decision.

The assistant (:mod:`tabletop.table.assistant`) decides *which* question is asked;
this module builds the answers a decision offers, so that three buttons
(NEXT cycles, CONFIRM applies) reach every legal choice: the disposal presets
of a merger, and purchases put together one share at a time. It also says what
the chosen option would do to prices and cash (:func:`effects`, worked out from
the books without playing anything) and what a tapped cell already holds
(:func:`occupant`).

>>> from tabletop.engine.game import Game
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> for action in (act.Place(tile="1B"), act.Found(chain="Tower"), act.Buy(), act.Place(tile="5E")):
...     _ = game.push(action)
>>> [option.label for option in purchases(game, [])]
['buy nothing', '+1 Tower (200)']
>>> [option.label for option in purchases(game, [0, 0])]
['buy 2 Tower', '+1 Tower (200)']
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.engine import actions as act
from tabletop.engine.board import EMPTY, LONE, PUT_FOUND, PUT_GROW, PUT_MERGE, TURNOVER
from tabletop.engine.choices import Disposal, FounderWhenSoldOut
from tabletop.engine.game import Game
from tabletop.messages import Message


@dataclass(frozen=True)
class Option:
    """One answer to a prompt: what the screen says, and the action CONFIRM applies.

    An option without an action only waits (CONFIRM does nothing): a stray press
    must never declare "no playable tile" while the table is placing one. An
    option with ``add`` (or ``trade``) puts a share of that chain (index) into
    the purchase being put together instead (or among the shares traded in for it).
    """

    label: str
    action: act.Action | None
    add: int = -1
    trade: int = -1
    #: An instruction to the assistant itself (settling differences), not an action.
    command: str = ""

    @property
    def builds(self) -> bool:
        """Whether CONFIRM adds to a purchase rather than applying an action."""
        return self.add >= 0 or self.trade >= 0


@dataclass(frozen=True)
class Prompt:
    """What the table is asked now: ``options`` (NEXT cycles, CONFIRM applies ``options[index]``).

    ``kind`` is the game's pending kind (or ``settle``, ``draw``, ``seat``,
    ``over``); ``message`` explains the last thing refused or seen;
    ``flagged`` lists tiles on the board the rules refused, to be taken off;
    ``banner`` is a standing fault (the camera is off: enter tiles by hand);
    ``differences`` what the camera sees that the game does not hold, or the reverse;
    ``effects`` what the chosen option does to prices and cash (see :func:`effects`).
    """

    kind: str
    player: str | None
    title: str
    options: tuple[Option, ...]
    index: int = 0
    message: str = ""
    flagged: tuple[str, ...] = ()
    banner: str = ""
    differences: tuple[str, ...] = ()
    effects: tuple[str, ...] = ()

    @property
    def chosen(self) -> Option | None:
        return self.options[self.index] if self.options else None


def disposals(game: Game, chosen: tuple[int, int] | None = None) -> list[Option]:
    """The disposal presets NEXT offers: keep all, sell all, trade the most and sell or keep the rest.

    ``chosen`` (sell, trade), the steppers' disposal, comes first when given.
    """
    seat, ratio, rules = game.pending.player, game.rules.trade_ratio, game.rules
    held = game.holdings[seat][game.merger.defunct]
    trade = (game.trade_max(seat) // ratio) * ratio if ratio else 0
    options, seen = [], set()
    if chosen is not None:
        sell, traded = chosen
        seen.add(chosen)
        options.append(Option(Message("sell {sell}, trade {trade}, keep {keep}", sell=sell,
                                      trade=traded, keep=held - sell - traded),
                              act.Dispose(sell=sell, trade=traded)))
    candidates = [(_sell_all, held, 0), (_trade_sell, held - trade, trade)]
    if Disposal.KEEP in rules.disposal:
        candidates = [(_keep_all, 0, 0)] + candidates + [(_trade_keep, 0, trade)]
    for label, sell, traded in candidates:
        if (sell, traded) in seen or (traded and not trade):
            continue
        seen.add((sell, traded))
        options.append(Option(label(sell, traded), act.Dispose(sell=sell, trade=traded)))
    return options


# Each preset written out whole, so that each is translated as one sentence.
def _keep_all(sell: int, trade: int) -> Message:
    return Message("keep all (sell {sell}, trade {trade})", sell=sell, trade=trade)


def _sell_all(sell: int, trade: int) -> Message:
    return Message("sell all (sell {sell}, trade {trade})", sell=sell, trade=trade)


def _trade_sell(sell: int, trade: int) -> Message:
    return Message("trade the most, sell the rest (sell {sell}, trade {trade})", sell=sell,
                   trade=trade)


def _trade_keep(sell: int, trade: int) -> Message:
    return Message("trade the most, keep the rest (sell {sell}, trade {trade})", sell=sell,
                   trade=trade)


def counts(game: Game, basket: list[int]) -> dict[str, int]:
    """``{chain name: shares}`` of a basket of chain indices, in chain order."""
    chains = game.rules.chains
    return {chains[c].name: basket.count(c) for c in sorted(set(basket))}


def describe(game: Game, basket: list[int], traded: list[int]) -> str:
    """"2 Tower, trading in 1 Luxor", or "nothing" (a Message: the screen translates it)."""
    bought = ", ".join(f"{n} {name}" for name, n in counts(game, basket).items())
    handed = ", ".join(f"{n} {name}" for name, n in counts(game, traded).items())
    if handed:
        return Message("{basket}, trading in {traded}", basket=bought or Message("nothing"),
                       traded=handed)
    return bought or Message("nothing")


def purchases(game: Game, basket: list[int], traded: list[int] = ()) -> list[Option]:
    """Buy what the basket holds, or add a share to it (one per CONFIRM), or end the game.

    Built a share at a time, so three buttons reach any purchase without a list
    of every combination (MEGAcquire's six shares of fourteen companies).
    Where the rules allow trading shares in to pay (only when cash is short),
    "trade in 1 X" options appear once the basket costs more than the cash.
    """
    seat, chains, traded = game.pending.player, game.rules.chains, list(traded)
    cash = game.cash[seat]
    spent = sum(game.price(c) for c in basket)
    raised = sum(game.price(c) for c in traded)
    tradeable = _tradeable(game, seat, basket, traded) if game.rules.trade_to_buy else {}
    reach = cash + raised + sum(game.price(c) * n for c, n in tradeable.items())
    label = describe(game, basket, traded)
    options = [Option(Message("buy {basket}", basket=label) if basket else Message("buy nothing"),
                      act.Buy(shares=counts(game, basket), trade_in=counts(game, traded)))]
    if len(basket) < game.rules.buy_limit:
        for chain in game.board.active():
            price = game.price(chain)
            if chain not in traded and basket.count(chain) < game.bank[chain] and \
                    spent + price <= reach:
                options.append(Option(Message("+1 {chain} ({price})", chain=chains[chain].name,
                                              price=price), None, add=chain))
    if spent > cash + raised:
        for chain, left in tradeable.items():
            if left and chain not in basket:
                options.append(Option(Message("trade in 1 {chain} ({price})",
                                              chain=chains[chain].name, price=game.price(chain)),
                                      None, trade=chain))
    options.extend(endings(game))
    return options


def _tradeable(game: Game, seat: int, basket: list[int], traded: list[int]) -> dict[int, int]:
    """Shares ``seat`` could still trade in: of chains on the board, not being bought."""
    return {chain: game.holdings[seat][chain] - traded.count(chain)
            for chain in game.board.active() if chain not in basket}


def endings(game: Game) -> list[Option]:
    """Ending the game now, when the rules allow the current player to declare it.

    An end by agreement is never an option to cycle to (one player could then end
    the game alone): :meth:`~tabletop.table.assistant.Assistant.propose_end` asks everyone.
    """
    return [Option(Message("end the game"), act.End())] if game.end_allowed() else []


def question(game: Game, kind: str, player: str, basket: list[int], traded: list[int],
             disposal: tuple[int, int] | None, manual: bool) -> tuple[str, list[Option]]:
    """The title and options of the decision ``kind`` the game waits for from ``player``.

    ``basket`` and ``traded`` are the purchase put together so far, ``disposal``
    the steppers' (sell, trade); ``manual`` says tiles are tapped in (no camera).
    """
    chains = game.rules.chains
    if kind in ("found", "survivor", "next_defunct"):
        action = {"found": act.Found, "survivor": act.Survivor,
                  "next_defunct": act.NextDefunct}[kind]
        return (_choosing(kind, player),
                [Option(chains[c].name, action(chain=chains[c].name)) for c in game.pending.choices])
    if kind == "dispose":
        return (Message("{player}: your {chain} shares", player=player,
                        chain=chains[game.merger.defunct].name), disposals(game, disposal))
    if kind == "buy":
        return (Message("{player}: buy shares (so far {basket})", player=player,
                        basket=describe(game, basket, traded)), purchases(game, basket, traded))
    if kind == "market":
        return Message("{player}: draw a tile for the stock market and place it", player=player), []
    if kind == "place":
        waiting = Message("waiting: place a tile (tap its cell)") if manual else \
            Message("waiting: place a tile")
        options = [Option(waiting, None), Option(Message("no playable tile"), act.NoTile())]
        return Message("{player}: place a tile", player=player), options + endings(game)
    waiting = Message("waiting: place a closing tile (tap its cell)") if manual else \
        Message("waiting: place a closing tile")
    options = [Option(waiting, None),
               Option(Message("no more closing tiles: score the game"), act.End())]
    return Message("{player}: place a closing tile", player=player), options


def _choosing(kind: str, player: str) -> Message:
    if kind == "found":
        return Message("{player}: which chain to found?", player=player)
    if kind == "survivor":
        return Message("{player}: which chain to keep as the survivor?", player=player)
    return Message("{player}: which chain to dispose of next?", player=player)


def asked(title: str) -> str:
    """What a prompt's title asks, without the player it is asked of ("buy shares (so far
    nothing)" of "Ann: buy shares (so far nothing)"), for a sentence that puts it in its own.

    >>> asked(Message("{player}: your {chain} shares", player="Ann", chain="Tower")).template
    'your {chain} shares'
    """
    bare = _ASKED.get(getattr(title, "template", None))
    if bare is None:
        return title.split(": ", 1)[-1]
    return bare(**{name: value for name, value in title.params.items() if name != "player"})


# Each question written out whole without its player (a catalogue translates each as one).
_ASKED = {
    "{player}: place a tile": lambda: Message("place a tile"),
    "{player}: place a closing tile": lambda: Message("place a closing tile"),
    "{player}: buy shares (so far {basket})":
        lambda basket: Message("buy shares (so far {basket})", basket=basket),
    "{player}: which chain to found?": lambda: Message("which chain to found?"),
    "{player}: which chain to keep as the survivor?":
        lambda: Message("which chain to keep as the survivor?"),
    "{player}: which chain to dispose of next?": lambda: Message("which chain to dispose of next?"),
    "{player}: your {chain} shares": lambda chain: Message("your {chain} shares", chain=chain),
    "{player}: draw a tile for the stock market and place it":
        lambda: Message("draw a tile for the stock market and place it"),
    "{player}: the market draws {tile}": lambda tile: Message("the market draws {tile}", tile=tile),
}


def proposal_title(proposal: act.Action, player: str) -> str:
    """The title of a proposed tile's prompt: who placed, revealed or drew it for the market."""
    if isinstance(proposal, act.Place):
        return Message("{player} placed {tile}: CONFIRM plays it, UNDO refuses it", player=player,
                       tile=proposal.tile)
    if isinstance(proposal, act.Dead):
        return Message("{player} reveals {tile}", player=proposal.player or player,
                       tile=proposal.tile)
    return Message("{player}: the market draws {tile}", player=player, tile=proposal.tile)


def proposal_label(game: Game, action: act.Action) -> str:
    """What a proposed tile does, as its option says: "1E: founds a chain", "6C: a lone tile"."""
    tile = action.tile
    if isinstance(action, act.Market):
        return Message("the market gets the shares of {tile}", tile=tile)
    if isinstance(action, act.Dead):
        return Message("{tile} is dead (it would merge two safe chains): reveal it, draw another",
                       tile=tile)
    what, touched = game.board.classify(game.geometry.parse(tile))
    chains, sizes = game.rules.chains, game.board.sizes
    if what == PUT_FOUND:
        return Message("{tile}: founds a chain", tile=tile)
    if what == PUT_GROW:
        (chain,) = touched
        return Message("{tile}: grows {chain}, {size} tiles so far", tile=tile,
                       chain=chains[chain].name, size=sizes[chain])
    if what == PUT_MERGE:
        order = sorted(touched, key=lambda c: -sizes[c])
        big = order[0]
        sized = [f"{chains[c].name} ({sizes[c]})" for c in order]
        if sizes[order[1]] == sizes[big]:
            return Message("{tile}: merges {chains}: a tie, the survivor to be chosen", tile=tile,
                           chains=", ".join(sized))
        return Message("{tile}: merges {defunct} into {survivor}", tile=tile,
                       defunct=", ".join(sized[1:]), survivor=sized[0])
    return Message("{tile}: a lone tile", tile=tile)


# --- what an option does to prices ------------------------------------------------------------

def effects(game: Game, option: Option | None, basket: list[int] = (),
            traded: list[int] = ()) -> tuple[Message, ...]:
    """What ``option`` would do to prices and cash, read off the books (nothing is played).

    ``basket`` and ``traded`` are the purchase put together so far: an option
    adding a share shows the purchase it makes.

    >>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
    >>> effects(game, Option("1B: founds a chain", act.Place(tile="1B")))
    ('founds a chain of 2 tiles: $200 to $400 a share, by the chain chosen',)
    """
    if option is None or game.pending is None:
        return ()
    basket, traded, action = list(basket), list(traded), option.action
    if option.add >= 0 or option.trade >= 0:
        basket, traded = (basket + [option.add], traded) if option.add >= 0 \
            else (basket, traded + [option.trade])
        return _buying(game, basket, traded)
    if isinstance(action, act.Buy):
        index = game.rules.chain_index
        return _buying(game, [index(n) for n, k in action.shares.items() for _ in range(k)],
                       [index(n) for n, k in action.trade_in.items() for _ in range(k)])
    if isinstance(action, act.Place):
        return _placing(game, game.geometry.parse(action.tile))
    if isinstance(action, act.Found):
        return (_founding(game, game.rules.chain_index(action.chain)),)
    if isinstance(action, act.Survivor):
        merger = game.merger
        return _merging(game, merger.cell, merger.touching, game.rules.chain_index(action.chain))
    if isinstance(action, act.NextDefunct):
        return (_paying(game, game.rules.chain_index(action.chain)),)
    if isinstance(action, act.Dispose):
        return _disposing(game, action)
    return ()


def tiles_joined(game: Game, cell: int) -> int:
    """How many tiles a chain gains from a tile on ``cell``: it and the lone tiles it connects."""
    cells, neighbours = game.board.cells, game.geometry.neighbours
    seen, stack = {cell}, [cell]
    while stack:
        for near in neighbours[stack.pop()]:
            if near not in seen and cells[near] == LONE:
                seen.add(near)
                stack.append(near)
    return len(seen)


def _growing(game: Game, chain: int, size: int) -> list[Message]:
    """``chain`` grown to ``size`` tiles: its price before and after, and whether it becomes safe."""
    rules, money = game.rules, game.rules.money
    name, before, after = rules.chains[chain].name, game.price(chain), rules.price(chain, size)
    said = [Message("grows {chain} to {size}: {before} -> {after}", chain=name, size=size,
                    before=money(before), after=money(after)) if after != before else
            Message("grows {chain} to {size}: {price} a share, unchanged", chain=name, size=size,
                    price=money(after))]
    if game.board.sizes[chain] < game.board.safe_size <= size:
        said.append(Message("{chain} becomes safe", chain=name))
    return said


def _placing(game: Game, cell: int) -> tuple[Message, ...]:
    board, chains = game.board, game.rules.chains
    if board.cells[cell] != EMPTY:
        return ()
    what, touched = board.classify(cell)
    if what == PUT_GROW or game.pending.kind == "closing":   # closing tiles only grow a chain
        if len(touched) != 1:
            return ()
        (chain,) = touched
        return tuple(_growing(game, chain, board.sizes[chain] + tiles_joined(game, cell)))
    if what == PUT_FOUND:
        size, money = tiles_joined(game, cell), game.rules.money
        prices = sorted({game.rules.price(c, size) for c, n in enumerate(board.sizes) if not n})
        if len(prices) == 1:
            return (Message("founds a chain of {size} tiles at {price} a share", size=size,
                            price=money(prices[0])),)
        return (Message("founds a chain of {size} tiles: {low} to {high} a share, by the chain "
                        "chosen", size=size, low=money(prices[0]), high=money(prices[-1])),)
    if what == PUT_MERGE:
        largest = max(board.sizes[c] for c in touched)
        tied = [c for c in sorted(touched) if board.sizes[c] == largest]
        if len(tied) == 1:
            return _merging(game, cell, tuple(sorted(touched)), tied[0])
        return (Message("a tie between {chains}: {player} chooses the survivor",
                        chains=", ".join(f"{chains[c].name} ({largest})" for c in tied),
                        player=game.names[game.pending.player]),) + \
            tuple(_paying(game, c) for c in sorted(touched, key=lambda c: -board.sizes[c]))
    return ()


def _merging(game: Game, cell: int, touching: tuple[int, ...], survivor: int) -> tuple[Message, ...]:
    """A merger into ``survivor``: each defunct chain merged and paying, the survivor grown."""
    board, chains = game.board, game.rules.chains
    defuncts = sorted((c for c in touching if c != survivor), key=lambda c: -board.sizes[c])
    said: list[Message] = []
    for chain in defuncts:
        said.append(Message("merges {defunct} ({size}) into {survivor}", defunct=chains[chain].name,
                            size=board.sizes[chain], survivor=chains[survivor].name))
        said.append(_paying(game, chain))
    # The tile on the cell may already be down (LONE) while the merger waits for a choice.
    joined = tiles_joined(game, cell)
    size = sum(board.sizes[c] for c in touching) + joined
    return tuple(said + _growing(game, survivor, size))


def _paying(game: Game, chain: int) -> Message:
    """A defunct chain's bonuses by position and the price its shares sell at."""
    money = game.rules.money
    return Message("{chain} pays bonuses of {bonuses}; its shares sell at {price}",
                   chain=game.rules.chains[chain].name,
                   bonuses=" / ".join(money(b) for b in game.bonuses(chain)),
                   price=money(game.price(chain)))


def _founding(game: Game, chain: int) -> Message:
    pending, rules = game.pending, game.rules
    size = tiles_joined(game, pending.cell)
    name, price = rules.chains[chain].name, rules.money(rules.price(chain, size))
    player = game.names[pending.player]
    if game.bank[chain]:
        return Message("founds {chain} at {price} a share, with a free share for {player}",
                       chain=name, price=price, player=player)
    if game.options["founder_when_sold_out"] == FounderWhenSoldOut.CASH:
        return Message("founds {chain} at {price} a share, with {price} for {player} "
                       "(no share left)", chain=name, price=price, player=player)
    return Message("founds {chain} at {price} a share", chain=name, price=price)


def _disposing(game: Game, action: act.Dispose) -> tuple[Message, ...]:
    merger, chains, money = game.merger, game.rules.chains, game.rules.money
    seat, ratio = game.pending.player, game.rules.trade_ratio or 1
    defunct, survivor = chains[merger.defunct].name, chains[merger.survivor].name
    cash = game.cash[seat]
    said = []
    if action.sell:
        said.append(Message("sells {count} {chain} for {amount}; cash {before} -> {after}",
                            count=action.sell, chain=defunct,
                            amount=money(action.sell * merger.price), before=money(cash),
                            after=money(cash + action.sell * merger.price)))
    if action.trade:
        said.append(Message("trades {count} {chain} for {received} {survivor}",
                            count=action.trade, chain=defunct, received=action.trade // ratio,
                            survivor=survivor))
    return tuple(said)


def _buying(game: Game, basket: list[int], traded: list[int]) -> tuple[Message, ...]:
    if not basket:
        return ()
    money, seat = game.rules.money, game.pending.player
    cash = game.cash[seat]
    cost = sum(game.price(c) for c in basket)
    raised = sum(game.price(c) for c in traded)
    bought = describe(game, basket, [])
    if traded:
        return (Message("buys {shares} for {cost}, trading in {traded} worth {raised}; "
                        "cash {before} -> {after}", shares=bought, cost=money(cost),
                        traded=describe(game, traded, []), raised=money(raised),
                        before=money(cash), after=money(cash + raised - cost)),)
    return (Message("buys {shares} for {cost}; cash {before} -> {after}", shares=bought,
                    cost=money(cost), before=money(cash), after=money(cash - cost)),)


# --- what a cell holds -----------------------------------------------------------------------

def occupant(game: Game, label: str) -> Message | None:
    """What a cell already holds, said for a table that tapped it by mistake; None if empty.

    >>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
    >>> occupant(game, "1A"), occupant(game, "2A")
    ('1A holds a lone tile, drawn by Ann for the turn order', None)
    """
    cell = game.geometry.parse(label)
    owner = game.board.cells[cell]
    if owner == EMPTY:
        return None
    player, how = _placer(game, cell)
    if owner >= 0:
        return _chain_tile(label, game.rules.chains[owner].name, player, how)
    if owner == TURNOVER:
        return Message("{tile} holds a turned-over tile, placed by {player}", tile=label,
                       player=player) if how else \
            Message("{tile} holds a turned-over tile", tile=label)
    if how == "placed":
        return Message("{tile} holds a lone tile, placed by {player}", tile=label, player=player)
    if how == "drawn":
        return Message("{tile} holds a lone tile, drawn by {player} for the turn order",
                       tile=label, player=player)
    return Message("{tile} holds a lone tile", tile=label)


def _chain_tile(label: str, chain: str, player: str, how: str) -> Message:
    # Written out whole (not put together), so that each sentence is translated as one.
    if how == "placed":
        return Message("{tile} holds a tile of {chain}, placed by {player}", tile=label,
                       chain=chain, player=player)
    if how == "drawn":
        return Message("{tile} holds a tile of {chain}, drawn by {player} for the turn order",
                       tile=label, chain=chain, player=player)
    return Message("{tile} holds a tile of {chain}", tile=label, chain=chain)


def _placer(game: Game, cell: int) -> tuple[str, str]:
    """Who put the tile on ``cell`` down, and how: "placed", "drawn" (for the turn order), or ""."""
    parse = game.geometry.parse
    for index, action in enumerate(game.history):
        if isinstance(action, (act.Place, act.Dead)) and parse(action.tile) == cell:
            return game.canonical(index).player, "placed"
    if game.rules.start_tiles_stay:
        for seat, tile in game.start_tiles.items():
            if game.geometry.cells_of[tile][0] == cell:
                return game.names[seat], "drawn"
    return "", ""


def screen_lines(prompt: Prompt) -> list[str]:
    """A prompt as a headless screen shows it: banner, title, the chosen option, notes.

    >>> screen_lines(Prompt("place", "Ann", "Ann: place a tile",
    ...                     (Option("waiting: place a tile", None),), message="5C: refused"))
    ['Ann: place a tile  [waiting: place a tile]', '  ! 5C: refused']
    """
    lines = [f"** {prompt.banner} **"] if prompt.banner else []
    chosen = f"  [{prompt.chosen.label}]" if prompt.chosen is not None else ""
    lines.append(f"{prompt.title}{chosen}")
    lines += [f"  ! {prompt.message}"] if prompt.message else []
    lines += [f"  - {difference}" for difference in prompt.differences]
    lines += [f"  take off: {', '.join(prompt.flagged)}"] if prompt.flagged else []
    return lines
