"""What ``tabletop demo`` prints: the title, each confirmed action, the cash after each turn,
the board now and then, the bonuses paid, the final standings and what each adds up to.
Everything fits 80 columns.

Plain text unless ``Style(colour=True)`` (the command asks for it on a terminal only):
a file or a pipe gets no escape codes.

>>> from tabletop.engine.game import Game
>>> game = Game("acquire", ["Ann", "Bob"], start_tiles={"Ann": "1A", "Bob": "12I"})
>>> cash_lines(game)
['    cash  Ann $6,000  Bob $6,000  | 94 tiles left']
>>> chain_letters(["Tower", "Luxor", "Tiger", "T"])
('T', 'L', 'I', 'A')
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence, TextIO

from tabletop.engine.board import EMPTY, LONE, TURNOVER
from tabletop.engine.choices import DeadTiles
from tabletop.engine.game import Game
from tabletop.engine.ruleset import RuleSet
from tabletop.table.narrate import final_accounts

WIDTH = 80
#: Where the action lines' text starts ("turn  12  "): the lines below them align to it.
GUTTER = 10
_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
_AXIS = re.compile(r"^(?:[0-9]+/)?([0-9]*)\W*([A-Za-z]*)\W*([0-9]*)$")


@dataclass(frozen=True)
class Style:
    """Colour for a terminal, nothing for a file or a pipe."""

    colour: bool = False

    def paint(self, text: str, colour: str) -> str:
        """``text`` in ``colour`` (``#rrggbb``; "" leaves it as it is)."""
        if not self.colour or not colour:
            return text
        red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return f"\x1b[1;38;2;{red};{green};{blue}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m" if self.colour else text


def wants_colour(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """Colour only on a terminal, and never where NO_COLOR is set or the terminal is dumb."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not environ.get("NO_COLOR") and \
        environ.get("TERM", "") != "dumb"


def visible(text: str) -> int:
    """How many columns ``text`` takes on the screen (escape codes take none)."""
    return len(_ESCAPE.sub("", text))


def chain_letters(names: Sequence[str]) -> tuple[str, ...]:
    """One distinct capital letter per chain: its initial, else another of its letters."""
    taken: list[str] = []
    for name in names:
        words = name.split()
        candidates = [word[0] for word in words] + list(name.replace(" ", ""))
        letter = next((c.upper() for c in candidates if c.isalpha() and c.upper() not in taken),
                      None)
        if letter is None:       # every letter of the name is taken: any free one
            letter = next(chr(c) for c in range(65, 91) if chr(c) not in taken)
        taken.append(letter)
    return tuple(taken)


def title_lines(rules: RuleSet, options: Mapping[str, Any], names: Sequence[str],
                seed: int) -> list[str]:
    """The rule set, the mode played and its bonuses, the players and the seed."""
    mode = options["bonus_mode"]
    bonuses = ", ".join(rules.bonus_mode(mode).names)
    changed = [f"{name}={value}" for name, value in options.items()
               if name != "bonus_mode" and value != rules.options[name].default]
    others = ", ".join(changed) if changed else "the rule set's defaults"
    # The title's parenthesis lists every mode and variant the rule set has, not the ones
    # played: the lines below say those.
    return [f"{rules.title.partition(' (')[0]} (the {rules.name} rule set)",
            f"  mode: {mode.capitalize()} (bonuses: {bonuses})",
            f"  other options: {others}",
            f"  players: {len(names)} bots, {_listed(list(names))}",
            f"  seed: {seed} (the same seed plays the same game)"]


def cash_lines(game: Game, width: int = WIDTH) -> list[str]:
    """Each player's cash and the tiles left in the bag, wrapped to ``width``."""
    money = game.rules.money
    entries = [f"{name} {money(cash)}" for name, cash in zip(game.names, game.cash)]
    entries.append(f"| {game.tiles_left} tiles left")
    return _wrap(entries, "cash".rjust(GUTTER - 2) + "  ", " " * GUTTER, width)


def action_lines(turn: int, what: str, width: int = WIDTH) -> list[str]:
    """A confirmed action under its turn number, a long one wrapped under its text."""
    return textwrap.wrap(what, width, initial_indent=f"turn {turn:>3}  ",
                         subsequent_indent=" " * (GUTTER + 2), break_on_hyphens=False)


def bonus_lines(game: Game, events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The stockholder bonuses an action paid, one line per chain."""
    paid: dict[str, list[str]] = {}
    for event in events:
        if event.get("event") == "bonus":
            paid.setdefault(event["chain"], []).append(
                f"{event['player']} {game.rules.money(event['amount'])}")
    return [line for chain, entries in paid.items()
            for line in _wrap(entries, " " * GUTTER + f"{chain} pays bonuses: ",
                              " " * (GUTTER + 4), WIDTH)]


def board_lines(game: Game, style: Style, heading: str, legend: bool = False) -> list[str]:
    """The board with, beside it (or under it when they do not fit side by side), the
    chains on it and each player's cash and shares."""
    filled = sum(1 for owner in game.board.cells if owner != EMPTY)
    lines = [style.bold(f"{heading}: {filled} of {game.geometry.size} cells filled, "
                        f"{game.tiles_left} tiles left in the bag")]
    left = grid_lines(game, style)
    left_width = max(visible(line) for line in left)
    right = _books(game, style, WIDTH - left_width - 3)
    if left_width + 3 + max(visible(line) for line in right) <= WIDTH:
        for row in range(max(len(left), len(right))):
            board = left[row] if row < len(left) else ""
            beside = right[row] if row < len(right) else ""
            lines.append((board + " " * (left_width + 3 - visible(board)) + beside).rstrip())
    else:
        lines += left + [""] + _books(game, style, WIDTH - 2)
    if legend:
        turnover = "   x turned over" if game.rules.dead_tiles == DeadTiles.TURNOVER else ""
        lines += [f"  . empty   o lone tile{turnover}   a letter: its chain's tile"]
    return lines


# --- the board --------------------------------------------------------------------------------


def grid_lines(game: Game, style: Style) -> list[str]:
    """The board as it lies on the table: square cells three columns wide; hex rows two
    wide, every other row shoved by half a cell; quadrants apart."""
    geometry = game.geometry
    at = {geometry.grid_position(cell): cell for cell in range(geometry.size)}
    rows, columns = geometry.rows, geometry.columns
    hexed = geometry.offset is not None
    width = 2 if hexed else 3
    shoved = 1 if geometry.offset == "odd-r" else 0
    row_names = [_axis(geometry.labels[at[row, 0]])[0] for row in range(rows)]
    numbers = [_axis(geometry.labels[at[0, column]])[1] for column in range(columns)]
    # A quadrant board's numbering starts again in each quadrant: a gap shows where.
    gap_before = {c for c in range(1, columns) if int(numbers[c] or 0) < int(numbers[c - 1] or 0)}
    row_gap = {r for r in range(1, rows) if row_names[r] < row_names[r - 1]}
    label_width = max(len(name) for name in row_names) + 1
    lines = _header(numbers, width, gap_before, label_width)
    letters = chain_letters([chain.name for chain in game.rules.chains])
    for row in range(rows):
        if row in row_gap:
            lines.append("")
        text = row_names[row].ljust(label_width) + (" " if hexed and row % 2 == shoved else "")
        for column in range(columns):
            text += (" " if column in gap_before else "") + " " * (width - 1)
            text += _cell(game, at.get((row, column)), letters, style)
        lines.append(text.rstrip())
    return lines


def _header(numbers: list[str], width: int, gap_before: set[int], label_width: int) -> list[str]:
    """Column numbers over the cells; two-digit ones in two rows where a cell is narrow."""
    digits = max(len(number) for number in numbers)
    rows = 1 if digits < width else digits
    lines = []
    for position in range(rows):
        text = " " * label_width
        for column, number in enumerate(numbers):
            text += " " if column in gap_before else ""
            if rows == 1:
                text += number.rjust(width)
            else:
                text += " " * (width - 1) + number.rjust(digits)[position]
        lines.append(text.rstrip())
    return lines


def _cell(game: Game, cell: int | None, letters: Sequence[str], style: Style) -> str:
    owner = EMPTY if cell is None else game.board.cells[cell]
    if owner == EMPTY:
        return "."
    if owner == LONE:
        return "o"
    if owner == TURNOVER:
        return "x"
    return style.paint(letters[owner], game.rules.chains[owner].colour)


def _axis(label: str) -> tuple[str, str]:
    """A label's row letter and column number: "12A", "C-7" and "3/C-4" alike."""
    match = _AXIS.match(label)
    if match is None:
        return label, ""
    before, letter, after = match.groups()
    return letter.upper(), before or after


# --- the chains and the players' books ----------------------------------------------------------


def _books(game: Game, style: Style, width: int) -> list[str]:
    """The chains on the board (size, share price, safe), then each player's cash and shares."""
    rules, sizes = game.rules, game.board.sizes
    letters = chain_letters([chain.name for chain in rules.chains])
    active = [c for c, size in enumerate(sizes) if size]
    gone = _merged_away(game)
    name_width = max([len(rules.chains[c].name) for c in active + gone] or [4])
    price_width = max([len(rules.money(game.price(c))) for c in active] + [len("price")])
    lines = [f"{'chains'.ljust(name_width + 2)} size  {'price'.rjust(price_width)}"]
    for c in active:
        chain = rules.chains[c]
        safe = " safe" if game.board.is_safe(c) else ""
        lines.append(f"{style.paint(letters[c], chain.colour)} {chain.name.ljust(name_width)} "
                     f"{sizes[c]:>4}  {rules.money(game.price(c)).rjust(price_width)}{safe}")
    # A letter held but off the board would be a riddle: its chain was merged away.
    lines += [f"{style.paint(letters[c], rules.chains[c].colour)} "
              f"{rules.chains[c].name.ljust(name_width)}  merged away" for c in gone]
    if not active and not gone:
        lines.append("(none founded yet)")
    lines += ["", "cash and shares"]
    name_width = max(len(name) for name in game.names)
    cash_width = max(len(rules.money(cash)) for cash in game.cash)
    for seat, name in enumerate(game.names):
        held = game.holdings[seat]
        shares = [f"{style.paint(letters[c], rules.chains[c].colour)}{held[c]}"
                  for c in active if held[c]] + \
            [f"{style.paint(letters[c], rules.chains[c].colour)}{held[c]} (merged)"
             for c in gone if held[c]]
        first = f"{name.ljust(name_width)} {rules.money(game.cash[seat]).rjust(cash_width)}  "
        lines += _wrap(shares or ["-"], first, " " * len(first), width)
    return lines


def _merged_away(game: Game) -> list[int]:
    """Chains off the board whose shares someone still holds: merged away, not founded again."""
    return [c for c, size in enumerate(game.board.sizes)
            if not size and any(held[c] for held in game.holdings)]


# --- the end ------------------------------------------------------------------------------------


def standings_lines(game: Game) -> list[str]:
    """Each player's rank and total, and what it adds up to: the cash before the final payout,
    the final bonuses, the shares sold at the end (the engine's figures, as the journal has
    them: :func:`~tabletop.table.narrate.final_accounts`)."""
    accounts, money = final_accounts(game), game.rules.money
    name_width = max(len(account.player) for account in accounts)

    def column(figure: str) -> int:
        return max(len(money(getattr(account, figure))) for account in accounts)

    widths = {figure: column(figure) for figure in ("total", "cash_before", "bonuses", "sales")}
    return [f"{account.rank}. {account.player.ljust(name_width)}  "
            f"{money(account.total).rjust(widths['total'])} = "
            f"{money(account.cash_before).rjust(widths['cash_before'])} cash + "
            f"{money(account.bonuses).rjust(widths['bonuses'])} bonuses + "
            f"{money(account.sales).rjust(widths['sales'])} shares sold"
            for account in accounts]


def worthless_lines(game: Game) -> list[str]:
    """The shares still held at the end: of chains merged away, they are worth nothing."""
    chains, gone = game.rules.chains, _merged_away(game)
    if not gone:
        return []
    held = [(name, [f"{shares[c]} {chains[c].name}" for c in gone if shares[c]])
            for name, shares in zip(game.names, game.holdings)]
    return ["Worth nothing: the shares of chains merged away, still held at the end:"] + \
        [line for name, what in held if what
         for line in _wrap([f"{entry}," for entry in what[:-1]] + what[-1:], f"  {name}: ",
                           " " * (len(name) + 4), WIDTH, gap=" ")]


def _wrap(entries: list[str], first: str, indent: str, width: int,
          gap: str = "  ") -> list[str]:
    """``entries`` ``gap`` apart after ``first``, a new line (after ``indent``) where the next
    would pass ``width``."""
    lines, line, empty = [], first, True
    for entry in entries:
        if not empty and visible(line) + len(gap) + visible(entry) > width:
            lines.append(line)
            line, empty = indent, True
        line += ("" if empty else gap) + entry
        empty = False
    lines.append(line)
    return lines


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
