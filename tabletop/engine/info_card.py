"""The information card: price and bonuses by chain size, for every tier.

Laid out like the printed card: one row per share price, the chain sizes
that give that price in each tier, then the bonuses at that price.

>>> print(information_card(load_rules("acquire")).splitlines()[0])
Acquire (Classic and Tycoon modes, two-player variant, older edition): information card, classic mode
"""

from __future__ import annotations

import textwrap

from tabletop.engine.ruleset import RuleSet, load_rules  # noqa: F401  (load_rules: doctest)

WIDTH = 78


def _money(rules: RuleSet, amount: int) -> str:
    return rules.money(amount)


def _shares(rules: RuleSet) -> str:
    counts = {chain.shares for chain in rules.chains}
    if len(counts) == 1:
        return f"{counts.pop()} shares per chain"
    return "shares: " + ", ".join(f"{chain.name} {chain.shares}" for chain in rules.chains)


def size_ranges(rules: RuleSet, tier: str) -> dict[int, str]:
    """Price -> the sizes that give it, e.g. ``{600: "6-10", 1000: "41+"}``."""
    ranges, brackets = {}, rules.brackets
    for i, price in enumerate(rules.tier_prices[tier]):
        start = brackets[i]
        if i + 1 == len(brackets):
            ranges[price] = f"{start}+"
        elif brackets[i + 1] - 1 == start:
            ranges[price] = str(start)
        else:
            ranges[price] = f"{start}-{brackets[i + 1] - 1}"
    return ranges


def information_card(rules: RuleSet, mode: str | None = None) -> str:
    """The card for ``mode`` (a bonus mode; the rule set's default if None) as text."""
    mode = mode or rules.options["bonus_mode"].default
    if mode not in rules.bonus_modes:
        raise ValueError(f"{rules.name} has no mode {mode!r} (modes: {', '.join(rules.bonus_modes)})")
    bonus = rules.bonus_modes[mode]
    tiers = list(dict.fromkeys(chain.tier for chain in rules.chains))
    ranges = {tier: size_ranges(rules, tier) for tier in tiers}
    prices = sorted({p for tier in tiers for p in rules.tier_prices[tier]})
    header = [tier if len(tiers) > 3 else f"tier {tier}" for tier in tiers] + ["price"] + list(bonus.names)
    rows = [[ranges[tier].get(price, "-") for tier in tiers] + [_money(rules, price)]
            + [_money(rules, b) for b in bonus.bonuses(price)] for price in prices]
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    lines = [f"{rules.title}: information card, {mode} mode", ""]
    for tier in tiers:
        names = ", ".join(chain.name for chain in rules.chains if chain.tier == tier)
        lines.append(f"tier {tier}: {names}")
    lines.append("")
    lines.append("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    lines.extend("  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows)
    sole = " + ".join(bonus.names[p - 1] for p in bonus.sole_holder)
    prose = [f"A sole holder receives {sole}. Split bonuses are rounded up to "
             f"{_money(rules, rules.bonus_rounding)}.",
             f"Safe at {rules.safe_size}+ tiles; buy up to {rules.buy_limit} shares a turn; "
             f"{_shares(rules)}; starting cash {_money(rules, rules.starting_cash)}."]
    if rules.trade_to_buy:
        prose.append("Shares may be traded in to pay for shares when cash is short; "
                     "the limit counts shares obtained.")
    for note in rules.notes + ((bonus.provisional,) if bonus.provisional else ()):
        prose += ["", f"PROVISIONAL: {note}"]
    # Prose wraps to a terminal's width; the table's rows stay whole.
    lines.append("")
    lines.extend(textwrap.fill(line, WIDTH, subsequent_indent="  ") for line in prose)
    return "\n".join(lines)
