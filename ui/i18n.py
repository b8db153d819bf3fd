"""The screen's words in English, Traditional Chinese and German, switchable live.

Every translation is in the gettext catalogues of :mod:`ui.locale` (one domain,
``tabletop``); this module is the screens' way in to them, its API unchanged:

* :func:`text` a fixed string by key: the English is :data:`ENGLISH` (the msgid),
  the key its msgctxt;
* :func:`say` what the table says: a :class:`~tabletop.messages.Message` by its
  template (the msgid), its parameters put in as they are (a parameter that is a
  Message itself rendered in turn); English as it is. A plain ``str`` (a sentence
  not yet made a Message: ``tabletop/table`` until it is converted) is matched
  against the catalogue's templates instead (:func:`_by_pattern`): the second
  wave of the conversion removes that fallback;
* :func:`value_name`, :func:`chain_name`; :data:`LANGUAGES` (the language button
  cycles them), :data:`NAMES`.

The areas' strings (``ui/strings/*.py``: ``TEXTS``, ``MESSAGES`` with their own
Chinese) are still read, where a catalogue has no entry, until they move into the
catalogues (``python -m ui.locale.extract absorb``).

>>> say("Ann: place a tile", "zh-TW")
'Ann：請放一張地磚'
>>> say("+1 Tower (300)", "zh-TW")
'+1 Tower（300）'
>>> text("confirm", "zh-TW"), text("confirm", "en"), text("confirm", "de")
('確認', 'CONFIRM', 'OK')
>>> from tabletop.messages import Message
>>> say(Message("{tile} is already on the board", tile="5C"), "de")
'5C liegt schon auf dem Spielplan'
>>> say(Message("camera: {message}", message=Message("unplugged")), "zh-TW")
'攝影機：已拔除'
>>> [text("language", language) for language in LANGUAGES]
['繁體中文', 'Deutsch', 'English']
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from typing import Any

from tabletop.messages import Message
from ui.locale import entries
from ui.strings import chains, desk, screens, table, window

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
    'to_table': 'To the table',
    'new_game': 'New game',
    'add_player': '+ player',
    'start': 'Start',
    'provisional': 'Provisional tables: the rulebook does not print them all (tabletop '
                   'rules NAME says which)',
    'opt_bonus_mode': 'Mode',
    'opt_disclosure': 'Screen shows',
    'opt_founder_when_sold_out': 'Founder, no share left',
    'opt_hex_offset': 'Hex rows',
    'opt_two_player_market': 'Two players: stock market',
    'opt_agreed_end': 'End by agreement',
    'opt_incorrect_placement': 'Undo reaches',
    'bonuses_paid': '{chain} bonuses: {paid}',
    'back': 'Back',
    'undo_to': 'undo to here',
    'undo_ask': 'Take back {count} action(s), back to before\n{action}?',
    'undo_yes': 'Yes, undo',
    'undo_no': 'No',
    'results': 'Final standings',
    'results_buttons': 'CONFIRM: print the slip · NEXT: to USB · UNDO: take back the end',
    'net_worth': 'Net worth by turn',
    'paid_legend': 'by chain: bonuses + sales',
    'long_presses': 'hold NEXT: history · UNDO: table · CONFIRM: off',
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
    'True': 'yes',
    'False': 'no',
}

#: The areas' own strings (ui/strings/), until the catalogues hold them: keys no area may
#: take twice.
_AREA_TEXTS: dict[str, dict[str, str]] = {}
for _area in (window, table, screens, desk):
    assert not set(_area.TEXTS) & (set(ENGLISH) | set(_AREA_TEXTS)), \
        f"{_area.__name__} repeats a key"
    _AREA_TEXTS.update(_area.TEXTS)
ENGLISH.update({key: entry["en"] for key, entry in _AREA_TEXTS.items()})
_AREA_MESSAGES: dict[str, dict[str, str]] = {
    template: entry for _area in (window, table, screens, desk)
    for template, entry in _area.MESSAGES.items()}

#: Placeholders that hold a whole message (a plain sentence's are matched in turn).
NESTED = frozenset({"message", "basket", "waiting", "reason", "asked", "state"})


def _translated(context: str | None, english: str, language: str) -> str | None:
    """The catalogue's translation, else an area's own, else None."""
    found = entries(language).get((context, english))
    if found is None:
        area = _AREA_TEXTS.get(context, {}) if context else _AREA_MESSAGES.get(english, {})
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
    """What the table said, in ``language``: a Message by its template, else by pattern."""
    if language == "en" or not message:
        return str(message)     # a plain str: Kivy's shortening rebuilds text by its type
    if isinstance(message, Message):
        template = _translated(None, message.template, language)
        if template is not None:
            params = {name: say(value, language) if isinstance(value, Message) else value
                      for name, value in message.params.items()}
            return _fill(template, params) or str(message)
    return _by_pattern(str(message), language)


def _fill(template: str, values: dict[str, Any]) -> str | None:
    """``template`` formatted, or None if a translation's placeholders do not fit (the
    catalogue test forbids it; a screen then shows the English rather than a traceback)."""
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return None


# --- the fallback for a plain sentence (removed once every sentence is a Message) ----------

def _compile(pattern: str) -> re.Pattern[str]:
    """A template as a regular expression: a placeholder takes any text, the same again if
    it comes back; ``{{`` and ``}}`` are braces."""
    seen: set[str] = set()
    regex = []
    for literal, name, _, _ in string.Formatter().parse(pattern):
        regex.append(re.escape(literal))
        if name is None:
            continue
        regex.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
    return re.compile(f"^{''.join(regex)}$", re.DOTALL)


def _literal(template: str) -> int:
    return sum(len(literal) for literal, *_ in string.Formatter().parse(template))


@lru_cache(maxsize=None)
def _patterns(language: str) -> list[tuple[re.Pattern[str], str]]:
    """The templates with placeholders: those around a whole message first (they would
    otherwise lose to the message they hold), then by their own words, most first (a
    longer sentence before a shorter one it begins or ends like)."""
    templates = {msgid for context, msgid in entries(language) if context is None} | \
        set(_AREA_MESSAGES)
    made = [t for t in templates if any(name for _, name, _, _ in string.Formatter().parse(t))]
    made.sort(key=lambda t: (not any(n in NESTED for _, n, _, _ in string.Formatter().parse(t)),
                             -_literal(t), t))
    return [(_compile(t), t) for t in made]


@lru_cache(maxsize=4096)
def _by_pattern(message: str, language: str) -> str:
    exact = _translated(None, message, language)
    if exact is not None and "{" not in exact:
        return exact
    for regex, template in _patterns(language):
        found = regex.match(message)
        if found:
            params = {name: _by_pattern(value, language) if name in NESTED else value
                      for name, value in found.groupdict().items()}
            return _fill(_translated(None, template, language) or template, params) or message
    return message


# --- the catalogues as the screens read them before (key -> {language: text}) ----------------

def _texts() -> dict[str, dict[str, str]]:
    return {key: {language: text(key, language) if key == "language" else
                  (english if language == "en" else _translated(key, english, language) or english)
                  for language in LANGUAGES} for key, english in ENGLISH.items()}


#: Every fixed string by key and language (templates, not formatted).
TEXTS: dict[str, dict[str, str]] = _texts()
#: Every message template -> {language: template} (the catalogues', then the areas').
MESSAGES: dict[str, dict[str, str]] = {
    template: {language: _translated(None, template, language) or template
               for language in LANGUAGES if language != "en"}
    for template in {msgid for language in LANGUAGES for context, msgid in entries(language)
                     if context is None} | set(_AREA_MESSAGES)}
#: (English template, Chinese template) of every message (what ui/refusals.py and the
#: regular expressions here held before the catalogues).
PATTERNS: list[tuple[str, str]] = sorted((english, entry["zh-TW"])
                                         for english, entry in MESSAGES.items())
