"""The board: which cell holds what, the chains' sizes, and what a placement does.

>>> from tabletop.geometry import SquareGrid
>>> grid = SquareGrid(columns=12, rows=9)
>>> board = Board(grid, chains=7, safe_size=11)
>>> board.cells[grid.parse("1A")] = LONE
>>> board.classify(grid.parse("1B"))[0] == PUT_FOUND
True
>>> board.absorb(grid.parse("1B"), chain=0), board.sizes[0]
(2, 2)

It knows nothing of money or players: the engine asks it what a tile would
do and tells it what happened.
"""

from __future__ import annotations

from tabletop.geometry import Geometry

# What a cell holds: a chain's index (0 and up), or one of these.
EMPTY, LONE, TURNOVER = -1, -2, -3
# What placing a tile would do.
PUT_LONE, PUT_FOUND, PUT_GROW, PUT_MERGE, PUT_DEAD, PUT_NO_CHAIN = range(6)


class Board:
    """Cells (``EMPTY``, ``LONE``, ``TURNOVER`` or a chain index) and chain sizes."""

    __slots__ = ("geometry", "cells", "sizes", "safe_size", "_neighbours", "_edge")

    def __init__(self, geometry: Geometry, chains: int, safe_size: int) -> None:
        self.geometry = geometry
        self.cells = [EMPTY] * geometry.size
        self.sizes = [0] * chains
        self.safe_size = safe_size
        self._neighbours = geometry.neighbours
        # A cell with fewer neighbours than the most any cell has lies on the board's edge.
        full = max(map(len, geometry.neighbours), default=0)
        self._edge = [len(near) < full for near in geometry.neighbours]

    def classify(self, cell: int) -> tuple[int, set[int]]:
        """What a tile on ``cell`` would do (a ``PUT_*`` value), and the chains it touches."""
        # The hottest function of random play: kept flat on purpose.
        cells, chains, lone = self.cells, None, False
        for near in self._neighbours[cell]:
            owner = cells[near]
            if owner >= 0:
                if chains is None:
                    chains = {owner}
                else:
                    chains.add(owner)
            elif owner == LONE:
                lone = True
        if chains is None:
            if not lone:
                return PUT_LONE, set()
            return (PUT_FOUND if 0 in self.sizes else PUT_NO_CHAIN), set()
        if len(chains) == 1:
            return PUT_GROW, chains
        sizes, safe_size = self.sizes, self.safe_size
        safe = sum(1 for chain in chains if sizes[chain] >= safe_size)
        return (PUT_DEAD if safe >= 2 else PUT_MERGE), chains

    def absorb(self, cell: int, chain: int) -> int:
        """``cell`` and every lone tile connected to it join ``chain``; its new size."""
        cells, neighbours = self.cells, self._neighbours
        cells[cell] = chain
        stack, joined = [cell], 1
        while stack:
            for near in neighbours[stack.pop()]:
                if cells[near] == LONE:
                    cells[near] = chain
                    stack.append(near)
                    joined += 1
        self.sizes[chain] += joined
        return self.sizes[chain]

    def dissolve(self, defunct: int, survivor: int) -> None:
        """Every tile of ``defunct`` joins ``survivor``."""
        cells = self.cells
        for cell, owner in enumerate(cells):
            if owner == defunct:
                cells[cell] = survivor
        self.sizes[survivor] += self.sizes[defunct]
        self.sizes[defunct] = 0

    def pockets(self) -> list[tuple[list[int], int | None]]:
        """Every connected region of empty cells, with the chain whose pocket it is, or None.

        A region is a pocket of a chain when every cell around it is one of
        that chain's tiles. The board's edge encloses nothing: a region with a
        cell on the edge is open. A region touching another chain, a lone or a
        turnover tile is no pocket either.

        >>> from tabletop.geometry import SquareGrid
        >>> board = Board(SquareGrid(columns=3, rows=3), chains=1, safe_size=11)
        >>> for label in ("1B", "2A", "3B", "2C"):
        ...     board.cells[board.geometry.parse(label)] = 0
        >>> labels = board.geometry.labels
        >>> [([labels[c] for c in region], owner) for region, owner in board.pockets()]
        [(['1A'], None), (['1C'], None), (['2B'], 0), (['3A'], None), (['3C'], None)]
        """
        cells, neighbours, edge = self.cells, self._neighbours, self._edge
        seen = [owner != EMPTY for owner in cells]
        found: list[tuple[list[int], int | None]] = []
        for start in range(len(cells)):
            if seen[start]:
                continue
            seen[start] = True
            stack, region, border, open_ = [start], [], set(), False
            while stack:
                cell = stack.pop()
                region.append(cell)
                open_ = open_ or edge[cell]
                for near in neighbours[cell]:
                    if cells[near] != EMPTY:
                        border.add(cells[near])
                    elif not seen[near]:
                        seen[near] = True
                        stack.append(near)
            # One neighbour kind, and a chain's at that (not LONE or TURNOVER), off the edge.
            owner = min(border) if len(border) == 1 and not open_ else EMPTY
            found.append((sorted(region), owner if owner >= 0 else None))
        return found

    def enclosed(self) -> list[int]:
        """Per chain, the empty cells of its pockets (see :meth:`pockets`): its territory.

        >>> from tabletop.geometry import SquareGrid
        >>> board = Board(SquareGrid(columns=4, rows=4), chains=2, safe_size=11)
        >>> for label in ("2A", "1B", "3B", "2C"):     # a ring around 2B, itself off the edge
        ...     board.cells[board.geometry.parse(label)] = 0
        >>> board.enclosed()
        [1, 0]
        >>> board.cells[board.geometry.parse("2A")] = EMPTY   # the gap opens 2B to the edge
        >>> board.enclosed()
        [0, 0]
        """
        counts = [0] * len(self.sizes)
        for region, owner in self.pockets():
            if owner is not None:
                counts[owner] += len(region)
        return counts

    def growth_left(self) -> tuple[int, int] | None:
        """A cell where a chain can still grow outside its own pockets, and that chain; or None.

        A tile may still join a chain on an empty cell that touches it, unless
        the cell lies in that chain's own pocket or would merge two safe chains
        (it can never be placed). The largest chain it touches is named.

        >>> from tabletop.geometry import SquareGrid
        >>> board = Board(SquareGrid(columns=3, rows=3), chains=1, safe_size=11)
        >>> board.cells[board.geometry.parse("2B")], board.sizes[0] = 0, 1
        >>> board.geometry.labels[board.growth_left()[0]]     # 1B, 2A, 3B and 2C are open
        '1B'
        """
        # Called at every buy of random play: a cell's region is walked only until it proves open.
        cells, sizes, walled = self.cells, self.sizes, set()
        for cell in range(len(cells)):
            if cells[cell] != EMPTY or cell in walled:
                continue
            put, chains = self.classify(cell)
            if put not in (PUT_GROW, PUT_MERGE):
                continue
            chain = max(chains, key=lambda chain: (sizes[chain], -chain))
            if len(chains) > 1 or not self._walls_in(cell, chain, walled):
                return cell, chain
        return None

    def _walls_in(self, start: int, chain: int, walled: set[int]) -> bool:
        """Whether ``start``'s empty region is a pocket of ``chain`` (then added to ``walled``)."""
        cells, neighbours, edge = self.cells, self._neighbours, self._edge
        stack, region = [start], {start}
        while stack:
            cell = stack.pop()
            if edge[cell]:
                return False
            for near in neighbours[cell]:
                owner = cells[near]
                if owner == EMPTY:
                    if near not in region:
                        region.add(near)
                        stack.append(near)
                elif owner != chain:
                    return False
        walled |= region
        return True

    def is_safe(self, chain: int) -> bool:
        return self.sizes[chain] >= self.safe_size

    def active(self) -> list[int]:
        """Chains on the board, in the rule file's order."""
        return [chain for chain, size in enumerate(self.sizes) if size]
