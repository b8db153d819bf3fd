"""The translations as gettext catalogues: one domain, ``tabletop``, one catalogue per language.

Where: ``ui/locale/<code>/LC_MESSAGES/tabletop.po`` is what a translator edits (``zh_TW``,
``de``); ``tabletop.mo`` beside it is the same compiled, which is what the table reads.

What a catalogue holds (the English is the source's, so there is no English catalogue):

* a message made in the code, ``Message("{tile} is already on the board", tile=label)``:
  msgid = its template, with its ``{named}`` placeholders; msgstr = the template in
  that language, with the same placeholders;
* a fixed string of a screen, looked up by key (``text("confirm", language)``):
  msgctxt = the key, msgid = its English (:data:`ui.i18n.ENGLISH`); an option's value
  on the setup screen (:func:`ui.i18n.value_name`): msgctxt ``value:<value>``.

Why the ``.mo`` files are committed: the table then needs only the standard library's
:mod:`gettext` (no Babel on a Pi), and a catalogue is read once, in a few milliseconds.
``python -m ui.locale.extract compile`` (Babel) remakes them after a ``.po`` changes, and
``tests/ui/test_catalogues.py`` fails when a ``.mo`` does not say what its ``.po`` says,
when a message of the code or a fixed string is missing or untranslated in a catalogue,
or when a translation's placeholders differ from the English.

A new language is a folder here, a :data:`CODES` entry and a name in :data:`ui.i18n.NAMES`.

>>> entries("de")[(None, "{tile} is already on the board")]
'{tile} liegt schon auf dem Spielplan'
>>> entries("zh-TW")[("confirm", "CONFIRM")]
'確認'
"""

from __future__ import annotations

import gettext
from functools import lru_cache
from pathlib import Path

LOCALE = Path(__file__).resolve().parent
DOMAIN = "tabletop"
#: The app's language codes and their catalogues' folders (gettext's locale names).
CODES = {"zh-TW": "zh_TW", "de": "de"}


def po_path(language: str) -> Path:
    """The ``.po`` file of an app language (``"zh-TW"``)."""
    return LOCALE / CODES[language] / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=None)
def catalogue(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``language``; an empty one for English or a language without."""
    if language not in CODES:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, str(LOCALE), languages=[CODES[language]], fallback=True)


@lru_cache(maxsize=None)
def entries(language: str) -> dict[tuple[str | None, str], str]:
    """Every translation of ``language``: (msgctxt or None, msgid) -> msgstr."""
    # gettext keeps them as "context\x04msgid"; it has no public way to list them.
    found: dict[tuple[str | None, str], str] = {}
    for key, value in getattr(catalogue(language), "_catalog", {}).items():
        if not isinstance(key, str) or not key or not value:
            continue            # the header, or a plural form (none are used)
        context, _, msgid = key.rpartition("\x04")
        found[(context or None, msgid)] = value
    return found
