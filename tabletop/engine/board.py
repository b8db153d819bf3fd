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

    __slots__ = ("geometry", "cells", "sizes", "safe_size", "_neighbours")

    def __init__(self, geometry: Geometry, chains: int, safe_size: int) -> None:
        self.geometry = geometry
        self.cells = [EMPTY] * geometry.size
        self.sizes = [0] * chains
        self.safe_size = safe_size
        self._neighbours = geometry.neighbours

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

    def enclosed(self) -> list[int]:
        """Empty cells enclosed by one chain's border, per chain: its territory.

        An empty region counts for a chain when every tile around it belongs
        to that chain; the board's edge encloses too, as in Go. A lone or a
        turnover tile on the border leaves the region undecided.

        >>> from tabletop.geometry import SquareGrid
        >>> board = Board(SquareGrid(columns=3, rows=3), chains=2, safe_size=11)
        >>> for label in ("2A", "2B", "2C"):
        ...     board.cells[board.geometry.parse(label)] = 0
        >>> board.enclosed()  # the columns either side: three cells each
        [6, 0]
        """
        cells, neighbours = self.cells, self._neighbours
        counts = [0] * len(self.sizes)
        seen = [owner != EMPTY for owner in cells]
        for start in range(len(cells)):
            if seen[start]:
                continue
            seen[start] = True
            stack, region, border = [start], 0, set()
            while stack:
                region += 1
                for near in neighbours[stack.pop()]:
                    if cells[near] != EMPTY:
                        border.add(cells[near])
                    elif not seen[near]:
                        seen[near] = True
                        stack.append(near)
            if len(border) == 1 and min(border) >= 0:
                counts[min(border)] += region
        return counts

    def is_safe(self, chain: int) -> bool:
        return self.sizes[chain] >= self.safe_size

    def active(self) -> list[int]:
        """Chains on the board, in the rule file's order."""
        return [chain for chain, size in enumerate(self.sizes) if size]
