"""Players' names: the one rule every place that seats players applies.

A name is kept in Unicode NFC, so "émile" typed with a combining accent and
typed precomposed is one name. It must fit the table's narrowest places, the
7-inch screen's seat list and a line of the 32-column receipt beside a rank
and the cash: at most :data:`MAX_COLUMNS` columns, a wide character (李) taking
two. It may not hold what would break or falsify a listing or a receipt:
control characters (ESC, tab), line breaks (also U+2028/U+2029), invisible
formatting characters (U+200B, U+FEFF) and text-direction controls (U+202E
shows "Ann" reversed and can make two names look alike), private-use and
unassigned characters (no font shows them the same). A name must show
something: not only spaces, combining marks and letters that look blank (the
Hangul fillers, the blank Braille cell), and not start with a combining mark.
Two names that are equal once normalised and case-folded (``Ann``, ``ANN``) are
one name, and so are two that differ only in characters nobody sees (a
variation selector, U+034F): ``A`` and ``A\\ufe0f`` look the same.

>>> clean_name("e\\u0301mile", 1) == "\\u00e9mile"
True
>>> clean_name("Ann\\u202e", 2)
Traceback (most recent call last):
...
tabletop.errors.IllegalAction: seat 2: a name may not hold a text-direction control (U+202E)
>>> clean_names(["Ann", "ANN"])
Traceback (most recent call last):
...
tabletop.errors.IllegalAction: two players have the same name
>>> clean_names(["A", "A\\ufe0f"])
Traceback (most recent call last):
...
tabletop.errors.IllegalAction: two players have the same name
"""

from __future__ import annotations

import unicodedata
from typing import Any, Sequence

from tabletop.errors import IllegalAction
from tabletop.messages import Message

#: The widest name, in columns: 24 fit one line of the 32-column receipt after the rank
#: ("10. "; the cash goes to the next line when there is no room beside it), and the
#: 7-inch screen's seat list; a real name, even a long double-barrelled one, fits.
MAX_COLUMNS = 24

#: Line breaks among the control characters (Cc): named as line breaks, not as controls.
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85")
#: Text-direction controls (all of category Cf): named as what they do.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Letters and signs that show as an empty space (fonts draw the Hangul fillers blank):
#: a name of them alone shows nothing, and in a name they count as a space.
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
#: The default-ignorable code points that pass :func:`clean_name` (the others are Cf or
#: unassigned, refused): drawn as nothing, so two names differing in them look the same.
#: Variation selectors among them keep an emoji's look ("🎲\ufe0f"): allowed in a name,
#: ignored when telling two names apart.
IGNORABLE = frozenset(
    "\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0))))


def clean_name(text: Any, seat: int) -> str:
    """``text`` as a player's name (NFC) at ``seat`` (counted from 1), or :class:`IllegalAction`.

    >>> clean_name("  Ann", 1)
    '  Ann'
    >>> clean_name("王" * 13, 3)
    Traceback (most recent call last):
    ...
    tabletop.errors.IllegalAction: seat 3: the name is too long: at most 24 columns fit the screen and the receipt (a wide character such as 李 takes two)
    """
    if not isinstance(text, str):
        raise IllegalAction(Message("every player needs a name"))
    # Checked before normalising: NFC of a huge text is slow, and no long text is a name.
    if len(text) > 4 * MAX_COLUMNS:
        raise _too_long(seat)
    # Before the blank check: str.strip() takes U+0085 for a space, yet it is a line break.
    for char in text:
        _check_char(char, seat)
    _check_shows(text, seat)
    name = unicodedata.normalize("NFC", text)
    if columns(name) > MAX_COLUMNS:
        raise _too_long(seat)
    return name


def clean_names(names: Sequence[Any]) -> list[str]:
    """Every name of ``names`` (in seating order) cleaned; two names alike are refused.

    >>> clean_names(["Ann", "Bob"])
    ['Ann', 'Bob']
    """
    cleaned = [clean_name(name, seat) for seat, name in enumerate(names, start=1)]
    seen: set[str] = set()
    for name in cleaned:
        key = name_key(name)
        if key in seen:
            # Also "Ann" and "ANN", or "émile" typed two ways: they look the same.
            raise IllegalAction(Message("two players have the same name"))
        seen.add(key)
    return cleaned


def nfc(name: Any) -> Any:
    """``name`` as names are kept (NFC), to look a typed name up; anything else as it is.

    >>> nfc("e\u0301mile") == "\u00e9mile", nfc(3)
    (True, 3)
    """
    return unicodedata.normalize("NFC", name) if isinstance(name, str) else name


def name_key(name: str) -> str:
    """What two names must differ in: their NFC case-folded form without the characters
    drawn as nothing (:data:`IGNORABLE`), blank-looking letters as spaces, spaces collapsed.

    >>> name_key(" Émile ") == name_key("e\\u0301MILE")
    True
    >>> name_key("A\\ufe0f\\u034f"), name_key("Ann\\u3164Lee")
    ('a', 'ann lee')
    """
    # Taken out first: between a letter and its accent one would keep NFC from composing them.
    seen = "".join(char for char in name if char not in IGNORABLE)
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", seen).casefold())
    return " ".join("".join(" " if char in BLANK else char for char in folded).split())


def columns(name: str) -> int:
    """How many columns ``name`` takes on a screen or a receipt (a wide character two, an
    accent combined with its letter none).

    >>> columns("李小龍"), columns("Ann"), columns("e\\u0301")
    (6, 3, 1)
    """
    width = 0
    for char in name:
        if unicodedata.category(char) in ("Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _check_char(char: str, seat: int) -> None:
    category = unicodedata.category(char)
    if category[0] not in "CZ":
        return
    code = code_point(char)
    if char in LINE_BREAKS or category in ("Zl", "Zp"):
        raise IllegalAction(Message("seat {seat}: a name may not hold a line break ({code})",
                                    seat=seat, code=code))
    if char in BIDI:
        raise IllegalAction(Message("seat {seat}: a name may not hold a text-direction control ({code})",
                                    seat=seat, code=code))
    if category == "Cc":
        raise IllegalAction(Message("seat {seat}: a name may not hold a control character ({code})",
                                    seat=seat, code=code))
    if category in ("Cf", "Cs"):
        raise IllegalAction(Message("seat {seat}: a name may not hold an invisible character ({code})",
                                    seat=seat, code=code))
    if category == "Co":
        raise IllegalAction(Message("seat {seat}: a name may not hold a private-use character ({code})",
                                    seat=seat, code=code))
    if category == "Cn":   # also the noncharacters (U+FFFF, U+10FFFF)
        raise IllegalAction(Message("seat {seat}: a name may not hold an unassigned character ({code})",
                                    seat=seat, code=code))


def _check_shows(text: str, seat: int) -> None:
    """Refuse a name that shows nothing, or whose first character is a mark with no letter."""
    if not text.strip():
        raise IllegalAction(Message("every player needs a name"))
    if unicodedata.category(text[0])[0] == "M":
        raise IllegalAction(Message("seat {seat}: a name may not start with a combining mark "
                                    "({code})", seat=seat, code=code_point(text[0])))
    if all(_blank(char) for char in text):
        first = next(char for char in text if not char.isspace())
        raise IllegalAction(Message("seat {seat}: the name shows nothing ({code} looks blank): "
                                    "every player needs a name that can be seen", seat=seat,
                                    code=code_point(first)))


def _blank(char: str) -> bool:
    return char.isspace() or char in BLANK or unicodedata.category(char)[0] == "M"


def code_point(char: str) -> str:
    """How a message names a character.

    >>> code_point("\x1b")
    'U+001B'
    """
    return f"U+{ord(char):04X}"


def _too_long(seat: int) -> IllegalAction:
    return IllegalAction(Message("seat {seat}: the name is too long: at most {columns} columns fit "
                                 "the screen and the receipt (a wide character such as 李 takes "
                                 "two)", seat=seat, columns=MAX_COLUMNS))
