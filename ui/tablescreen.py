"""The table screen: the board mirror, what the table is asked, the chains and the players.

It reads the desk (the seating, then the assistant) and the game's books as
the disclosure level lets a shared screen show them (:func:`tabletop.engine.state.view`):
nothing more, ever. Taps on the buttons, the choices and the board go to the desk.

Laid out for an 800x480 panel at arm's length (issue 16): the figures a
player acts on at 18 px or more, nothing to read under 12 px, every target at
least 48x48 px and 8 px from the next. A board too fine to tap cell by cell
is tapped near the cell, then in a zoomed region (:mod:`ui.picker`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from kivy.app import App
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from tabletop.engine import actions as act
from tabletop.engine.board import LONE
from tabletop.engine.choices import Disposal
from tabletop.engine.state import LEVELS, state_json, view
from tabletop.table.assistant import Assistant
from tabletop.table.seating import Seating
from ui import theme
from ui.boardview import EMPTY, BoardMirror  # noqa: F401 - the .kv uses BoardMirror
from ui.choices import ChoiceList  # noqa: F401 - the .kv file uses it
from ui.i18n import chain_name, say, text
from ui.mergerpanel import MergerPanel  # noqa: F401 - the .kv file uses it
from ui.picker import CellPicker  # noqa: F401 - the .kv file uses it

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: Decisions shown as a list of options to tap (a tap chooses, CONFIRM applies).
LISTED = ("found", "survivor", "next_defunct", "dispose", "agree", "seat")
#: A stepper's button (48 px and more at density 1) and the count between its two buttons.
STEP, COUNT = 50, 24


class TableScreen(Screen):
    """One table's screen (see the module's docstring)."""

    desk = ObjectProperty(None, allownone=True)
    language = StringProperty("en")
    disclosure = StringProperty("open")
    fault = BooleanProperty(False)
    device = StringProperty("")        # a device fault to show (the printer), or ""
    #: Why the game on the screen goes no further (the demo stopped), or "": shown instead
    #: of the prompt.
    stopped = ObjectProperty("")
    #: The board's share of the width.
    board_share = NumericProperty(0.5)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._peek = ""                      # the player holding their own name, if any
        self._spare: list[Label] = []        # cells off the screen, to show other words

    # --- taps -----------------------------------------------------------------------------------

    def press(self, button: str) -> None:
        if self.desk is not None:
            self.desk.press(button)
        self.refresh()

    def open_menu(self) -> None:
        from ui.menu import open_menu

        self.menu = open_menu(App.get_running_app())

    def cell_tapped(self, label: str) -> None:
        """A tile the camera missed or misread, entered by hand."""
        if self.desk is not None:
            self.desk.enter(label)
        self.refresh()

    def choose(self, index: int) -> None:
        """An option of the list tapped: chosen (CONFIRM applies it)."""
        desk = self.desk
        if desk is None:
            return
        if hasattr(desk, "choose"):
            desk.choose(index)
        else:       # a desk without taps on options: NEXT to it, as the buttons would
            for _ in range(len(desk.prompt.options)):
                if desk.prompt.index == index:
                    break
                desk.press("next")
        self.refresh()

    def zoom(self, cell: int) -> None:
        """The board tapped near ``cell``: that region at finger size, to tap the cell in."""
        board = self.ids.board
        if board.geometry is None:
            return
        fills = [board._fill(owner) for owner in board.cells]
        names = [self._cell_name(board, cell_, owner) for cell_, owner in enumerate(board.cells)]
        board.disabled, board.opacity = True, 0
        self.ids.picker.open(board.geometry, board.cells, fills, names, cell,
                             text("whole_board", self.language), self._font())

    def unzoom(self) -> None:
        board = self.ids.board
        board.disabled, board.opacity = False, 1

    @staticmethod
    def _cell_name(board: BoardMirror, cell: int, owner: int) -> str:
        label = board.geometry.labels[cell]
        if owner >= 0 and owner < len(board.chain_names):
            return f"{theme.initials(board.chain_names[owner])}\n{label}"
        return label

    # --- showing --------------------------------------------------------------------------------

    def refresh(self, *_: Any) -> None:
        """Show the desk and the game as they are now."""
        desk, language = self.desk, self.language
        if desk is None:
            return
        ids, prompt = self.ids, desk.prompt
        assistant = desk if isinstance(desk, Assistant) else None
        game = assistant.game if assistant is not None else None
        self._labels()
        self._top(game, prompt)
        self.fault = bool(prompt.banner or self.device)
        ids.banner.text = say(prompt.banner, language) if prompt.banner else \
            say(self.device, language) if self.device else ""
        # A game that goes no further says so in the prompt's place: nothing waits for a move.
        ids.title.text = say(self.stopped or prompt.title, language)
        ids.chosen.text = "" if self.stopped else self._chosen(game, prompt)
        ids.effects.text = "" if self.stopped else "\n".join(say(e, language)
                                                               for e in prompt.effects)
        # Read once: each reading of the desk's figures builds its prompt again.
        figures = assistant.figures if assistant is not None else None
        ids.figures.text = self._figures(desk, figures, language)
        ids.merger.show(game, language)
        ids.message.text = "\n".join(self._notes(assistant, game, prompt))
        listed = prompt.kind in LISTED and len(prompt.options) > 0
        self._middle(listed)
        self._tools(game, prompt, figures)
        self._choices(game, prompt, figures, listed)
        self._board(desk, game, prompt)
        if game is not None:
            # The game's own disclosure option rules; the screen's may only show less.
            level = min(game.options.get("disclosure", "open"), self.disclosure, key=LEVELS.index)
            full = state_json(game)
            shown = view(full, level)
            if self._peek:
                # A player holding their own name sees their own figures, while they hold it.
                shown["players"] = [next(p for p in full["players"] if p["name"] == self._peek)
                                    if entry["name"] == self._peek else entry
                                    for entry in shown["players"]]
            if not listed:
                self._chains(game, shown, prompt, figures)
            self._players(shown, game)
        else:
            self._seated(desk)

    def _labels(self) -> None:
        ids, language = self.ids, self.language
        ids.undo.text, ids.next.text, ids.confirm.text = (
            text(key, language) for key in ("undo", "next", "confirm"))
        ids.language.text = text("language", language)
        ids.history.text = text("history", language)
        ids.menu.text = text("menu", language)
        ids.scores.text = text("table_scores", language)
        ids.card.text = text("table_card", language)
        ids.hints.text = text("long_presses", language)

    def _top(self, game: Any, prompt: Any) -> None:
        """Whose turn it is, large; and who decides now, when that is another player."""
        language = self.language
        if game is None:
            self.ids.turn.text = text("draw_banner", language)
            self.ids.decider.text = ""
            return
        turn = game.names[game.current] if game.pending is not None else ""
        self.ids.turn.text = text("turn", language, player=turn) if turn else \
            say(prompt.title, language)
        deciding = prompt.player if prompt.player and prompt.player != turn else ""
        self.ids.decider.text = text("decides", language, player=deciding) if deciding else ""

    def _chosen(self, game: Any, prompt: Any) -> str:
        """The option chosen now (a chain in its colour); no "(1/3)" counters."""
        language = self.language
        if prompt.chosen is None:
            return ""
        chosen = say(prompt.chosen.label, language)
        if game is not None and prompt.kind in ("found", "survivor", "next_defunct"):
            index = game.rules.chain_index(prompt.chosen.label)
            colour = theme.to_hex(theme.readable(theme.chain_colour(index, game.rules), theme.PANEL))
            chosen = f"[color={colour}][b]{chain_name(prompt.chosen.label, language)}[/b][/color]"
        return chosen

    def _notes(self, assistant: Any, game: Any, prompt: Any) -> list[str]:
        language = self.language
        notes = [say(prompt.message, language)] if prompt.message else []
        if prompt.flagged:
            notes.append(text("take_off", language, tiles=", ".join(prompt.flagged)))
        notes += [say(d, language) for d in prompt.differences]
        return notes

    def _middle(self, listed: bool) -> None:
        """The choices to tap take the chain table's place while a choice is asked."""
        ids = self.ids
        shown, hidden = (ids.choice_rows, ids.table_box) if listed else \
            (ids.table_box, ids.choice_rows)
        shown.size_hint_y, shown.opacity = 1, 1
        hidden.size_hint_y, hidden.height, hidden.opacity = None, 0, 0
        if listed:
            self._clear(ids.chain_heads, ids.chains)

    def _figures(self, desk: Any, figures: dict | None, language: str) -> str:
        """The acting player's own figures for the decision in hand (shown only then)."""
        if not figures:
            return ""
        money = desk.game.rules.money
        shown = {key: money(value) if key in ("cash", "cost", "raised", "after") else str(value)
                 for key, value in figures.items()}
        if "cost" in figures:
            line = text("buy_figures", language, **shown)
            return line + (f"; {text('traded_in', language, **shown)}" if figures["raised"] else "")
        game = desk.game
        if Disposal.TRADE not in game.rules.disposal:      # sell or keep: no trade to speak of
            return text("sell_figures", language, **shown)
        survivor = chain_name(game.rules.chains[game.merger.survivor].name, language)
        return text("dispose_figures", language, survivor=survivor, **shown)

    # --- choices --------------------------------------------------------------------------------

    def _choices(self, game: Any, prompt: Any, figures: dict | None, listed: bool) -> None:
        choices = self.ids.choices
        if not listed:
            choices.clear_widgets()
            return
        items = [self._item(game, prompt, option, figures) for option in prompt.options]
        choices.show(items, prompt.index, self.choose, self._font())

    def _item(self, game: Any, prompt: Any, option: Any,
              figures: dict | None) -> tuple[str, Sequence[float] | None]:
        """One option as its button reads: a chain with its price a share, a disposal by counts."""
        language, action = self.language, option.action
        if game is not None and prompt.kind in ("found", "survivor", "next_defunct") and \
                isinstance(getattr(action, "chain", None), str):
            index = game.rules.chain_index(action.chain)
            size = self._founded_size(game) if prompt.kind == "found" else \
                game.board.sizes[index]
            price = game.rules.money(game.rules.price(index, size))
            return (text("chain_choice", language, chain=chain_name(action.chain, language),
                         price=price), theme.chain_colour(index, game.rules))
        if isinstance(action, act.Dispose) and figures:
            keep = figures["held"] - action.sell - action.trade
            return (text("dispose_choice", language, sell=str(action.sell),
                         trade=str(action.trade), keep=str(keep)), None)
        return say(option.label, language), None

    @staticmethod
    def _founded_size(game: Any) -> int:
        """The size of the chain the pending tile founds: it and the lone tiles joined to it."""
        cell, cells = game.pending.cell, game.board.cells
        if cell < 0:
            return 2
        seen, stack = {cell}, [cell]
        while stack:
            for near in game.geometry.neighbours[stack.pop()]:
                if near not in seen and cells[near] == LONE:
                    seen.add(near)
                    stack.append(near)
        return len(seen)

    def _tools(self, game: Any, prompt: Any, figures: dict | None) -> None:
        """While a holder disposes: steppers to sell and trade, shown live."""
        tools, language = self.ids.tools, self.language
        tools.clear_widgets()
        if not figures or prompt.kind != "dispose" or not isinstance(self.desk, Assistant):
            return
        sell, trade = figures["sell"], figures["trade"]
        row = BoxLayout(size_hint_y=None, height=dp(STEP), spacing=dp(8))
        self._tool(row, text("sell", language), self._steps(
            sell, lambda n: self.desk.set_disposal(n, trade)))
        if Disposal.TRADE in game.rules.disposal:
            self._tool(row, text("trade", language), self._steps(
                trade, lambda n: self.desk.set_disposal(sell, n), game.rules.trade_ratio or 1))
        tools.add_widget(row)

    def _tool(self, row: BoxLayout, caption: str, steps: BoxLayout) -> None:
        """A caption as wide as its words, then its stepper, on the disposal row."""
        # A new label, never a spare: one sized before for a cell would be measured at that size.
        label = self._filled(self._new_cell(), caption, theme.TEXT, 1.0, "16sp")
        label.size_hint_x = None
        label.texture_update()
        label.width = label.texture_size[0] + dp(4)
        row.add_widget(label)
        steps.size_hint_x, steps.width = None, dp(2 * STEP + COUNT + 16)
        row.add_widget(steps)

    # --- the board ------------------------------------------------------------------------------

    def _board(self, desk: Any, game: Any, prompt: Any) -> None:
        """The game's board; during the turn-order draw the seating's, its tiles as lone ones."""
        board = self.ids.board
        if game is not None:
            rules, geometry, cells = game.rules, game.geometry, list(game.board.cells)
            placed = [a for a in game.history if getattr(a, "kind", "") == "place"]
            board.last = game.geometry.parse(placed[-1].tile) if placed else -1
            action = prompt.chosen.action if prompt.chosen is not None else None
            board.proposed = getattr(action, "tile", "") if prompt.kind in ("place", "closing") \
                else ""
        elif isinstance(desk, Seating):
            rules, geometry = desk.rules, desk.geometry
            drawn = {geometry.parse(label) for label in desk.tiles}
            cells = [LONE if cell in drawn else EMPTY for cell in range(geometry.size)]
            board.last, board.proposed = -1, ""
        else:
            return
        board.rules = rules
        board.chain_names = [chain.name for chain in rules.chains]
        board.geometry = geometry
        board.cells = cells
        board.flagged = list(prompt.flagged)

    #: The chain table's columns and their shares of its width.
    WIDTHS = {"chain": 0.3, "size": 0.12, "price": 0.2, "bonuses": 0.38, "trade_head": 0.4,
              "bank": 0.12, "safe": 0.12, "buy_head": 0.38}

    def _chains(self, game: Any, shown: dict, prompt: Any, figures: dict | None) -> None:
        heads, grid, language = self.ids.chain_heads, self.ids.chains, self.language
        self._clear(heads, grid)
        with_bank = any("bank_shares" in c for c in shown["chains"].values())
        buying = prompt.kind == "buy" and isinstance(self.desk, Assistant)
        trading = buying and self._trading(game, figures)
        # While buying, steppers take the size's and the bonuses' place (a safe chain keeps
        # its `*`); when the purchase needs shares traded in, the price goes beside the name.
        columns = ["chain"] + ([] if buying else ["size"]) + ([] if trading else ["price"]) + \
            (["trade_head"] if trading else [] if buying else ["bonuses"]) + \
            (["bank"] if with_bank else [] if buying else ["safe"]) + \
            (["buy_head"] if buying else [])
        heads.cols = grid.cols = len(columns)
        grid.row_default_height = dp(STEP) if buying else dp(30)
        grid.spacing = (dp(4), dp(8)) if buying else (dp(4), 0)
        for key in columns:
            heads.add_widget(self._cell(text(key, language), theme.DIM, self.WIDTHS[key], "13sp"))
        if not shown["chains"]:
            grid.add_widget(self._cell(text("no_chains", language), theme.DIM, 1.0))
            for key in columns[1:]:
                grid.add_widget(self._cell("", width=self.WIDTHS[key]))
            return
        for name, chain in shown["chains"].items():
            for key in columns:
                grid.add_widget(self._chain_cell(game, name, chain, key, buying, trading))

    def _chain_cell(self, game: Any, name: str, chain: dict, key: str, buying: bool,
                    trading: bool) -> Any:
        money, desk, language = game.rules.money, self.desk, self.language
        index, safe = game.rules.chain_index(name), "*" if chain["safe"] else ""
        width = self.WIDTHS[key]
        if key == "trade_head":
            return self._trade_stepper(game, index, width)
        if key == "buy_head":
            bought = list(desk.basket).count(index) - list(desk.traded).count(index)
            steps = self._steps(bought, lambda n: desk.set_purchase(index, n))
            steps.size_hint_x = width
            return steps
        if key == "chain":
            colour = theme.readable(theme.chain_colour(index, game.rules), theme.BACKGROUND)
            price = f"  [color=f2f2f2]{money(chain['price'])}[/color]" if trading else ""
            words = f"[b]{_escape(chain_name(name, language))}[/b]{safe if buying else ''}{price}"
            return self._cell(words, colour, width, "16sp")
        bonuses = chain["bonuses"]
        words, size = {
            "size": (f"{chain['size']}{safe}", "18sp"),
            "price": (money(chain["price"]), "18sp"),
            # Tycoon's three bonuses close up to fit where Classic's two are spaced.
            "bonuses": (("/" if len(bonuses) > 2 else " / ").join(map(money, bonuses)),
                        "13sp" if len(bonuses) > 2 else "15sp"),
            "bank": (str(chain.get("bank_shares", "")), "15sp"),
            "safe": (text("safe", language) if safe else "", "15sp")}[key]
        return self._cell(words, theme.TEXT, width, size)

    def _trading(self, game: Any, figures: dict | None) -> bool:
        """Whether shares may be traded in now: the rules allow it and the cash falls short."""
        return bool(game.rules.trade_to_buy and isinstance(self.desk, Assistant) and figures
                    and (figures["cost"] > figures["cash"] or figures["raised"]))

    def _trade_stepper(self, game: Any, chain: int, width: float) -> Any:
        """The acting player's own shares of ``chain`` to trade in (shown only while they buy)."""
        desk = self.desk
        if not game.holdings[game.pending.player][chain] or chain in \
                desk.basket[: len(desk.basket) - len(desk.traded)]:
            return self._cell("", width=width)
        steps = self._steps(list(desk.traded).count(chain), lambda n: desk.set_trade_in(chain, n))
        steps.size_hint_x = width
        return steps

    # --- the players ----------------------------------------------------------------------------

    def _players(self, shown: dict, game: Any) -> None:
        grid, language, money = self.ids.players, self.language, game.rules.money
        self._clear(grid)
        if self.ids.merger.height:
            grid.height = 0         # the merger's summary has their place until the next turn
            return
        hidden = text("hidden", language)
        peeking = any(e.get("cash") is None or e.get("shares") is None or e["name"] == self._peek
                      for e in shown["players"])
        # Names to hold are buttons: 48 px rows, 8 px apart, two players a row.
        grid.cols = 4 if peeking else 3
        grid.row_default_height = dp(STEP) if peeking else dp(30)
        grid.spacing = (dp(8), dp(8)) if peeking else (dp(4), 0)
        for entry in shown["players"]:
            cash, shares = entry.get("cash"), entry.get("shares")
            held = ", ".join(f"{n} {chain_name(c, language)}" for c, n in shares.items()) \
                if shares is not None else None
            if peeking:
                grid.add_widget(self._peek_button(entry["name"]))
                words = " · ".join(w for w in (money(cash) if cash is not None else None, held)
                                   if w) or hidden
                grid.add_widget(self._cell(words, theme.TEXT if words != hidden else theme.DIM,
                                           0.3, "15sp"))
                continue
            # Whose turn it is, in the list as on the top bar: the order of play is read there.
            playing = entry["name"] == game.names[game.current]
            grid.add_widget(self._cell(f"[b]{'▶ ' if playing else ''}{_escape(entry['name'])}[/b]",
                                       theme.TURN if playing else theme.TEXT, 0.2, "16sp"))
            grid.add_widget(self._cell(money(cash), theme.TEXT, 0.22, "18sp"))
            grid.add_widget(self._cell(held, theme.TEXT, 0.58, "13sp"))

    def _seated(self, desk: Seating) -> None:
        """During the turn-order draw: the players seated, and who drew which tile so far."""
        grid = self.ids.players
        self._clear(grid)
        grid.cols, grid.row_default_height, grid.spacing = 2, dp(30), (dp(4), 0)
        drawn = {name: label for label, name in desk.drawn.items()}
        for name in desk.players:
            grid.add_widget(self._cell(f"[b]{_escape(name)}[/b]", width=0.5, size="16sp"))
            grid.add_widget(self._cell(drawn.get(name, ""), theme.TEXT, 0.5, "18sp"))
        self._clear(self.ids.chain_heads, self.ids.chains)

    # --- widgets --------------------------------------------------------------------------------

    def _steps(self, count: int, setter: Any, step: int = 1) -> BoxLayout:
        """− count + : ``setter`` is called with the new count (the desk keeps it within bounds)."""
        font = self._font()
        box = BoxLayout(spacing=dp(8))
        for label, change in (("-", -step), (str(count), 0), ("+", step)):
            if change == 0:
                box.add_widget(Label(text=label, font_size="18sp", bold=True, font_name=font,
                                     size_hint_x=None, width=dp(COUNT)))
                continue
            button = Button(text=label, font_size="22sp", bold=True, font_name=font,
                            size_hint=(None, None), size=(dp(STEP), dp(STEP)),
                            pos_hint={"center_y": 0.5})
            button.bind(on_release=lambda _, n=count + change: self.step(setter, n))
            box.add_widget(button)
        return box

    def step(self, setter: Any, count: int) -> None:
        setter(count)
        self.refresh()

    def _peek_button(self, name: str) -> Button:
        """The player's name: held, it shows that player's own cash and holdings."""
        button = Button(text=f"[b]{_escape(name)}[/b]", markup=True, size_hint_x=0.2,
                        font_size="16sp", font_name=self._font())
        button.bind(on_press=lambda _: self.peek(name), on_release=lambda _: self.peek(""))
        return button

    def peek(self, name: str) -> None:
        self._peek = name
        self.refresh()

    def _cell(self, words: str, colour: Sequence[float] = theme.TEXT, width: float = 1.0,
              size: str = "15sp") -> Label:
        """A figure of the chains' or the players' table: a cell taken off by the last refresh
        if there is one (its words, colour, size and width given again), else a new one."""
        return self._filled(self._spare.pop() if self._spare else self._new_cell(), words,
                            colour, width, size)

    def _filled(self, label: Label, words: str, colour: Sequence[float], width: float,
                size: str) -> Label:
        label.text, label.color, label.font_size = words, colour, size
        label.font_name, label.size_hint_x = self._font(), width
        return label

    @staticmethod
    def _new_cell() -> Label:
        label = Label(markup=True, halign="left", valign="middle", shorten=True,
                      shorten_from="right")
        label.bind(size=lambda widget, size: setattr(widget, "text_size", size))
        label.spare_cell = True
        return label

    def _clear(self, *grids: Any) -> None:
        """Empty ``grids``, their cells kept for the next: the tables are made again at every
        refresh, mostly with the same cells, and a label made costs a Pi's refresh far more
        than one given new words."""
        for grid in grids:
            self._spare += [w for w in grid.children if getattr(w, "spare_cell", False)]
            grid.clear_widgets()

    @staticmethod
    def _font() -> str:
        app = App.get_running_app()
        return app.font_name if app else "Roboto"


def _escape(words: str) -> str:
    """Words shown as they are inside Kivy markup (a player called "[b]" stays "[b]")."""
    return words.replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")
