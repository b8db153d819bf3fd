"""The screen's words in English, Traditional Chinese and German, switchable live.

Every translation is in the gettext catalogues of :mod:`ui.locale` (one domain,
``tabletop``); this module is the screens' way in to them:

* :func:`text` a fixed string by key: the English is :data:`ENGLISH` (the msgid),
  the key its msgctxt;
* :func:`say` what the table says: a :class:`~tabletop.messages.Message` by its
  template (the msgid), its parameters put in: a parameter that is a Message itself
  rendered in turn, a chain's name (:data:`CHAIN_PARAMS`, :data:`SHARES_PARAMS`) by
  :func:`chain_name`, any other value as it is. English is the Message as made; a
  plain ``str`` is shown as it is, in every language (a name, a figure: what tabletop
  says for people is made as a Message);
* :func:`value_name`, :func:`chain_name`; :data:`LANGUAGES` (the language button
  cycles them), :data:`NAMES`.

An area of new strings still being written may keep its own ``TEXTS`` and ``MESSAGES``
(``ui/strings/<area>.py``, listed in :data:`PENDING`) until
``python -m ui.locale.extract absorb`` moves them into the catalogues.

>>> from tabletop.messages import Message
>>> say(Message("{player}: place a tile", player="Ann"), "zh-TW")
'Ann：請放一張地磚'
>>> say(Message("+1 {chain} ({price})", chain="Tower", price=300), "zh-TW")
'+1 塔樓（300）'
>>> text("confirm", "zh-TW"), text("confirm", "en"), text("confirm", "de")
('確認', 'CONFIRM', 'OK')
>>> say(Message("{tile} is already on the board", tile="5C"), "de")
'5C liegt schon auf dem Spielplan'
>>> say(Message("camera: {message}", message=Message("unplugged")), "zh-TW")
'攝影機：已拔除'
>>> say(Message("{tile}: merges {defunct} into {survivor}", tile="5C", defunct="Luxor (2), "
...             "American (3)", survivor="Tower (5)"), "zh-TW")
'5C：路克索 (2), 美國 (3) 併入 塔樓 (5)'
>>> say(Message("{player}: buy shares (so far {basket})", player="Ann", basket="2 Tower"), "zh-TW")
'Ann：買股票（目前：2 塔樓）'
>>> say("Ann", "de"), say(Message("the game is over"), "en")
('Ann', 'the game is over')
>>> [text("language", language) for language in LANGUAGES]
['繁體中文', 'Deutsch', 'English']
"""

from __future__ import annotations

from typing import Any

from tabletop.messages import Message
from ui.locale import entries
from ui.strings import chains

LANGUAGES = ("en", "zh-TW", "de")
NAMES = {"en": "English", "zh-TW": "繁體中文", "de": "Deutsch"}

#: The fixed strings' English by key (each a msgid, its key the msgctxt). "language" is
#: not translated: the language button names the next language (:func:`text`).
ENGLISH: dict[str, str] = {
    'confirm': 'CONFIRM',
    'next': 'NEXT',
    'undo': 'UNDO',
    'chain': 'Chain',
    'size': 'Size',
    'price': 'Price',
    'bonuses': 'Bonuses',
    'bank': 'Bank',
    'safe': 'safe',
    'player': 'Player',
    'cash': 'Cash',
    'shares': 'Shares',
    'hidden': 'hidden',
    'no_chains': 'No chain on the board yet',
    'language': '中文',
    'take_off': 'Take off the board: {tiles}',
    'differences': 'Board and game differ:',
    'turn': '{player} to play',
    'history': 'History',
    'buy_head': 'Buy',
    'tier': 'tier {tier}',
    'calibrate': 'Calibrate camera',
    'calib_tap': 'Tap the centre of cell {cell}',
    'calib_grid': 'The grid as the camera will read it',
    'calib_flip': 'Flip rows',
    'calib_test': 'Test',
    'calib_save': 'Save',
    'calib_first': 'Tap the four corner cells first',
    'calib_done': 'Calibrated: check the dots lie on the cells, then save',
    'calib_markers': 'markers seen: {seen}',
    'print_slip': 'Print slip',
    'export': 'To USB',
    'shutdown': 'Switch off',
    'shutdown_ask': 'Save the game and switch the table off?',
    'no_devices': 'not at this table: it has no printer, USB stick or power switch',
    'buy_figures': 'cash {cash}, these cost {cost}, left {after}; {shares} of {limit} shares',
    'traded_in': 'traded in {raised}',
    'dispose_figures': 'gets {gets} {survivor}, cash after {after}; holds {held}, may trade '
                       '{trade_cap}',
    'sell_figures': 'cash after {after}; holds {held}, keeps {keep}',
    'sell': 'Sell',
    'trade': 'Trade',
    'keep': 'Keep {count}',
    'trade_head': 'Trade in',
    'menu': 'Menu',
    'resume': 'Resume a game',
    'resume_entry': '#{game} {rules}: {players} (turn {turn})',
    'resume_newer': 'Newer',
    'resume_older': 'Older',
    'resume_page': '{page} of {pages}',
    'to_table': 'To the table',
    'new_game': 'New game',
    'add_player': '+ player',
    'start': 'Start',
    'provisional': 'Some tables are provisional: tabletop rules NAME says which',
    'opt_bonus_mode': 'Mode',
    'opt_disclosure': 'Screen shows',
    'opt_founder_when_sold_out': 'Founder, no share left',
    'opt_hex_offset': 'Hex rows',
    'opt_two_player_market': 'Two players: stock market',
    'opt_agreed_end': 'End by agreement',
    'opt_incorrect_placement': 'Undo reaches',
    'opt_dead_reveal': 'Dead tiles revealed',
    'opt_turn_order': 'Turn order',
    'profile_held': 'Profile {profile}: options held',
    # The setup screen's line of the table's key and its tournament seat (ui/setup.py).
    'table_key': 'Table key {fingerprint}',
    'tournament_seat': '{tournament} · table {table} · round',
    'bonuses_paid': '{chain} bonuses: {paid}',
    'back': 'Back',
    'undo_to': 'undo to here',
    'undo_ask': 'Take back {count} action(s), back to before\n{action}?',
    'undo_yes': 'Yes, undo',
    'undo_no': 'No',
    'results': 'Final standings',
    'results_buttons': 'CONFIRM: print the slip · NEXT: to USB · UNDO: take back the end',
    'net_worth': 'Net worth by turn',
    'paid_legend': 'paid over the whole game, by chain: bonuses + sales',
    'long_presses': 'Hold NEXT: history · UNDO: back to table · CONFIRM: switch off',
    'do_place': 'place',
    'do_found': 'found',
    'do_survivor': 'survivor',
    'do_next_defunct': 'next defunct',
    'do_market': 'market draws',
    'do_dispose': 'sell / trade',
    'do_buy': 'buy',
    'do_buy_nothing': 'buys nothing',
    'do_dead': 'reveals dead',
    'do_no_tile': 'no playable tile',
    'do_end': 'ends the game',
    # The table screen's top bar, its zoomed picker, options as buttons to tap.
    'table_scores': 'Scores',
    'table_card': 'Card',
    'decides': '{player} decides',
    'draw_banner': 'Turn-order draw',
    'whole_board': 'Whole board',
    'chain_choice': '{chain} · {price}',
    'dispose_choice': 'sell {sell} · trade {trade} · keep {keep}',
    # The history, the merger summary, the results.
    'merger_heading': '{player} merged {defunct} ({size} tiles) into {survivor}',
    'merger_market': 'Stock market',
    'merger_bonus': '{place} bonus {amount}',
    'merger_place_sole': "sole holder's",
    'merger_place_first': '1st',
    'merger_place_second': '2nd',
    'merger_place_third': '3rd',
    'merger_place_fourth': '4th',
    'merger_place_fifth': '5th',
    'merger_place_sixth': '6th',
    'merger_sold': 'sold {count} for {cash}',
    'merger_traded': 'traded {count} for {received} {chain}',
    'merger_kept': 'kept {count}',
    'history_undo_to': 'Undo to here',
    'history_empty': 'Nothing played yet',
    'results_player': 'Player',
    'results_rank': '#',
    'results_cash_before': 'Cash',
    'results_bonuses': '+ Bonuses',
    'results_sales': '+ Sales',
    'results_total': '= Total',
    'results_turn': 'turn',
    'results_money': 'net worth',
    # The score sheet (ui/scoresheet.py) and the information card (ui/infocard.py); the
    # card's bonus names are the rule files' (Classic, Tycoon, MEGAcquire, ACQUISITIONS).
    'scores_title': 'Score sheet',
    'scores_player': 'Player',
    'scores_cash': 'Cash',
    'scores_worth': 'Net worth',
    'scores_size': 'Size',
    'scores_price': 'Price',
    'scores_bank': 'Bank shares',
    'scores_safe_row': 'Safe',
    'scores_safe': 'safe',
    'scores_hidden': 'hidden',
    'scores_turn': '{player} to play',
    'scores_decides': '{player} decides now',
    'scores_seating': 'Drawing for the turn order',
    'scores_no_game': 'No game on the table yet',
    'card_title': 'Information card',
    'card_mode_classic': 'Classic',
    'card_mode_tycoon': 'Tycoon',
    'card_tier': 'tier {tier}',
    'card_price': 'Price',
    'card_sole': 'Sole holder: {bonuses}',
    'card_safe': 'Safe at {size}+ tiles',
    'card_rounding': 'split bonuses rounded up to {unit}',
    'card_no_game': 'No game on the table yet',
    'card_bonus_majority': 'majority',
    'card_bonus_minority': 'minority',
    'card_bonus_primary': 'primary',
    'card_bonus_secondary': 'secondary',
    'card_bonus_tertiary': 'tertiary',
    'card_bonus_1st majority': '1st majority',
    'card_bonus_2nd majority': '2nd majority',
    'card_bonus_King/Queen': 'King/Queen',
    'card_bonus_Prince/Princess': 'Prince/Princess',
    'calib_steps': 'Steps',
    'calib_steps_title': 'First use: set up the camera',
    'calib_step_print': 'Print the four markers: run [color=ffd866]tabletop markers --out markers.png[/color] on this Pi or any computer with tabletop; print at 100% (actual size).',
    'calib_step_stick': 'Stick one marker near each corner of the board, outside the grid, where no tile or money will cover it.',
    'calib_step_camera': 'Put the camera above the board: the whole board and all four markers in the picture (seen: {seen}). Take every tile off.',
    'calib_step_tap': 'Tap the centre of the corner cells on the picture, in this order: {corners}.',
    'calib_step_save': "Check that the dots lie on the cells, then tap Save. The game's setup comes next.",
    'calib_no_camera': 'No camera: the table plays by taps',
    'calib_waiting': "Waiting for the camera's picture",
    'menu_end_agreed': 'End the game by agreement',
}
VALUE_ENGLISH: dict[str, str] = {
    'classic': 'Classic',
    'tycoon': 'Tycoon',
    'open': 'cash and holdings',
    'players': 'holdings',
    'bank': 'bank shares',
    'hidden': 'nothing private',
    'cash': 'paid in cash',
    'nothing': 'nothing',
    'odd-r': 'B, D... shifted',
    'even-r': 'A, C... shifted',
    'any_time': 'any time',
    'same_turn': 'this turn only',
    'end_of_turn': 'at the end of own turn',
    'number_first': 'number first (1A, 1B ... 2A)',
    'row_first': 'row first (A1, A2 ... B1)',
    'True': 'yes',
    'False': 'no',
}

#: Areas of ui/strings whose strings are not in the catalogues yet (being written): their
#: ``TEXTS`` (key -> {"en": ..., "zh-TW": ...}) and ``MESSAGES`` (template -> {"zh-TW": ...})
#: are read where a catalogue has no entry. ``python -m ui.locale.extract absorb`` moves them.
PENDING: tuple = ()
_PENDING_TEXTS: dict[str, dict[str, str]] = {}
for _area in PENDING:
    assert not set(_area.TEXTS) & (set(ENGLISH) | set(_PENDING_TEXTS)), \
        f"{_area.__name__} repeats a key"
    _PENDING_TEXTS.update(_area.TEXTS)
ENGLISH.update({key: entry["en"] for key, entry in _PENDING_TEXTS.items()})
_PENDING_MESSAGES: dict[str, dict[str, str]] = {
    template: entry for _area in PENDING for template, entry in _area.MESSAGES.items()}

#: Parameters of a Message that name chains: a name, "Tower (5)", or a list of them
#: ("Luxor (2), American (3)"); each name is shown in the screen's language.
CHAIN_PARAMS = frozenset({"chain", "survivor", "defunct", "chains"})
#: Parameters that hold shares counted by chain ("2 Tower, 1 Luxor"): the names likewise.
SHARES_PARAMS = frozenset({"shares", "basket", "traded"})


def _translated(context: str | None, english: str, language: str) -> str | None:
    """The catalogue's translation, else a pending area's own, else None."""
    found = entries(language).get((context, english))
    if found is None:
        area = _PENDING_TEXTS.get(context, {}) if context else _PENDING_MESSAGES.get(english, {})
        found = area.get(language)
    return found


def _next_language(language: str) -> str:
    index = LANGUAGES.index(language) if language in LANGUAGES else 0
    return LANGUAGES[(index + 1) % len(LANGUAGES)]


def text(key: str, language: str, **values: Any) -> str:
    """A fixed string of the screen in ``language`` (English if it has none)."""
    if key == "language":
        return NAMES[_next_language(language)]
    english = ENGLISH[key]
    template = english if language == "en" else _translated(key, english, language) or english
    return _fill(template, values) or english.format(**values)


def value_name(value: object, language: str) -> str:
    """An option's value as the setup screen shows it."""
    english = VALUE_ENGLISH.get(str(value))
    if english is None:
        return str(value)
    return english if language == "en" else \
        entries(language).get((f"value:{value}", english), english)


def chain_name(name: str, language: str) -> str:
    """A chain's (a company's) name in ``language``: the rule file's English if it has none."""
    if language == "en":
        return name
    return entries(language).get(("chain", name)) or chains.NAMES.get(name, {}).get(language, name)


def say(message: str, language: str) -> str:
    """What the table said, in ``language``: a Message by its template; a plain str as it is.

    A Message whose template no catalogue holds is shown in English (the catalogue test
    fails on it): never half translated.
    """
    if language == "en" or not isinstance(message, Message):
        return str(message)     # a plain str: Kivy's shortening rebuilds text by its type
    template = _translated(None, message.template, language)
    if template is None:
        return str(message)
    params = {name: _param(name, value, language) for name, value in message.params.items()}
    return _fill(template, params) or str(message)


def _param(name: str, value: Any, language: str) -> Any:
    if isinstance(value, Message):
        return say(value, language)
    if name in CHAIN_PARAMS and isinstance(value, str):
        return ", ".join(_chain_named(part, language) for part in value.split(", "))
    if name in SHARES_PARAMS and isinstance(value, str):
        return ", ".join(_shares_named(part, language) for part in value.split(", "))
    return value


def _chain_named(part: str, language: str) -> str:
    """"Tower" or "Tower (5)" with the chain's name in ``language``."""
    name, sep, rest = part.partition(" (")
    return chain_name(name, language) + sep + rest


def _shares_named(part: str, language: str) -> str:
    """"2 Tower" with the chain's name in ``language`` (anything else as it is)."""
    count, sep, name = part.partition(" ")
    return count + sep + chain_name(name, language) if count.isdigit() and name else part


def _fill(template: str, values: dict[str, Any]) -> str | None:
    """``template`` formatted, or None if a translation's placeholders do not fit (the
    catalogue test forbids it; a screen then shows the English rather than a traceback)."""
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return None


# --- the catalogues as the screens read them (key -> {language: text}) ----------------------

def _texts() -> dict[str, dict[str, str]]:
    return {key: {language: text(key, language) if key == "language" else
                  (english if language == "en" else _translated(key, english, language) or english)
                  for language in LANGUAGES} for key, english in ENGLISH.items()}


#: Every fixed string by key and language (templates, not formatted).
TEXTS: dict[str, dict[str, str]] = _texts()
#: Every message template -> {language: template} (the catalogues', then the pending areas').
MESSAGES: dict[str, dict[str, str]] = {
    template: {language: _translated(None, template, language) or template
               for language in LANGUAGES if language != "en"}
    for template in {msgid for language in LANGUAGES for context, msgid in entries(language)
                     if context is None} | set(_PENDING_MESSAGES)}
#: (English template, Chinese template) of every message.
PATTERNS: list[tuple[str, str]] = sorted((english, entry["zh-TW"])
                                         for english, entry in MESSAGES.items())
