"""Stockholder bonuses: the one algorithm of docs/rules.md (Bonuses).

>>> share_bonuses({"Ann": 5, "Bob": 5, "Cy": 2}, bonuses=(6000, 3000), sole=6000 + 3000, rounding=100)
{'Ann': 4500, 'Bob': 4500}
>>> share_bonuses({"Ann": 3}, bonuses=(6000, 3000), sole=9000, rounding=100)
{'Ann': 9000}
>>> share_bonuses({"Ann": 4, "Bob": 2, "Cy": 2, "Di": 2}, (7000, 3500), sole=10500, rounding=100)
{'Ann': 7000, 'Bob': 1200, 'Cy': 1200, 'Di': 1200}
"""

from __future__ import annotations

from typing import Hashable, Mapping, Sequence, TypeVar

Holder = TypeVar("Holder", bound=Hashable)


def share_bonuses(holdings: Mapping[Holder, int], bonuses: Sequence[int], sole: int,
                  rounding: int) -> dict[Holder, int]:
    """What each holder of a chain receives.

    ``holdings`` maps holders to share counts (holders with none are ignored);
    ``bonuses`` is ``(b1, b2, ...)``; ``sole`` what an only holder gets. Holders
    are ranked into groups of equal count; walking from the top with a position
    ``p``, a group of ``k`` shares ``b[p] + ... + b[p+k-1]`` equally, each share
    rounded up to ``rounding``. Holders that win nothing are left out.
    """
    ranked = sorted(((count, holder) for holder, count in holdings.items() if count > 0),
                    key=lambda pair: -pair[0])
    if not ranked:
        return {}
    if len(ranked) == 1:
        return {ranked[0][1]: sole}
    paid: dict[Holder, int] = {}
    position, start = 0, 0
    while start < len(ranked) and position < len(bonuses):
        count = ranked[start][0]
        end = start
        while end < len(ranked) and ranked[end][0] == count:
            end += 1
        group = end - start
        pot = sum(bonuses[position:position + group])
        each = -(-pot // (group * rounding)) * rounding
        for _, holder in ranked[start:end]:
            paid[holder] = each
        position += group
        start = end
    return paid
