"""Every message of the code and every fixed string is in every catalogue, translated.

The messages are found in the sources (``Message("literal", ...)`` in ``tabletop/``,
``hardware/``, ``calibration/``, ``ui/``: :func:`ui.locale.extract.code_messages`) and
the fixed strings are :data:`ui.i18n.ENGLISH` and ``VALUE_ENGLISH``. A message missing
from a catalogue, left untranslated, or translated with other placeholders than its
English fails here by name and by where it is made; so does a ``.mo`` that is not its
``.po`` compiled. Then real refusals of a real game are read in German and Chinese.
"""

from __future__ import annotations

import re

import pytest

from tabletop.engine import actions as act
from tabletop.engine.game import Game
from tabletop.errors import IllegalAction
from tabletop.messages import Message, message_of
from ui.i18n import LANGUAGES, NAMES, PENDING, say, text
from ui.locale import CODES, entries, po_path
from ui.locale.extract import code_messages, pending, placeholders, problems, read, wanted

#: Text and catalogues only: these run with no display (the UI conftest skips the rest).
WINDOWLESS = True


def test_every_message_is_in_every_catalogue_translated():
    # Only the strings of an area still being written (ui.i18n.PENDING) may wait.
    found = problems(skip=pending())
    assert not found, "\n".join(found)


def test_the_scan_finds_the_messages():
    """The scan still finds the messages it is for (a refactor must not make the test vacuous)."""
    made = code_messages()
    files = {where.split(":")[0] for wheres in made.values() for where in wheres}
    for name in ("tabletop/engine/game.py", "tabletop/engine/merger.py", "tabletop/engine/ending.py",
                 "tabletop/engine/trade_in.py", "tabletop/engine/names.py",
                 "tabletop/assembly/services.py", "hardware/printer.py", "hardware/power.py",
                 "hardware/camera/base.py", "hardware/camera/live.py", "calibration/calibrate.py",
                 "calibration/tracker.py", "tabletop/table/assistant.py",
                 "tabletop/table/seating.py", "tabletop/table/prompts.py", "tabletop/table/narrate.py",
                 "tabletop/journal/journal.py", "tabletop/geometry/base.py",
                 "tabletop/geometry/hexgrid.py", "tabletop/engine/ruleset.py",
                 "tabletop/assembly/simcamera.py"):
        assert name in files, name
    assert "{tile} is already on the board" in made
    assert ("confirm", "CONFIRM") in wanted() and ("value:classic", "Classic") in wanted()
    assert len(made) > 250


@pytest.mark.parametrize("language", list(CODES))
def test_the_catalogue_files_are_valid(language):
    """Babel reads each .po; gettext reads its .mo; they hold the same, with the same msgids."""
    catalog = read(language)
    assert catalog.locale_identifier == CODES[language]
    held = {(m.context, m.id): m.string for m in catalog if m.id}
    assert entries(language) == {key: said for key, said in held.items() if said}
    other = next(code for code in CODES if code != language)
    assert set(held) == {(m.context, m.id) for m in read(other) if m.id}, \
        "the catalogues translate different msgids"
    assert po_path(language).with_suffix(".mo").stat().st_size > 1000


def test_placeholders_are_read_as_format_reads_them():
    assert placeholders('e.g. {{"{chain}": 2}}; not {given}') == {"chain", "given"}
    assert placeholders("{count} slips") == {"count"}


# --- rendered from a real game ---------------------------------------------------------------

def _refusal(game: Game, action: act.Action) -> Message:
    with pytest.raises(IllegalAction) as refused:
        game.push(action)
    made = message_of(refused.value)
    assert isinstance(made, Message), f"{made!r} is not a Message"
    return made


@pytest.fixture
def game() -> Game:
    played = Game("acquire", ["Ann", "Bob"], {}, start_tiles={"Ann": "1A", "Bob": "12I"})
    played.push(act.Place(tile="5C"))
    return played


def test_a_tile_already_on_the_board_in_german_and_chinese(game):
    game.push(act.Buy(shares={}))
    again = _refusal(game, act.Place(tile="5C"))
    assert again == "5C is already on the board"          # the English stays as it was
    assert say(again, "de") == "5C liegt schon auf dem Spielplan"
    assert say(again, "zh-TW") == "5C 已經在盤面上了"


def test_an_action_out_of_its_time_names_what_the_game_waits_for(game):
    early = _refusal(game, act.Place(tile="6C"))
    assert early == "place is not possible now: Ann must buy shares (or buy nothing)"
    assert say(early, "de") == "Legen ist jetzt nicht möglich: Ann muss Aktien kaufen (oder nichts kaufen)"
    assert say(early, "zh-TW") == "現在不能放地磚：Ann 必須買股票（或選擇不買）"


def test_buying_a_chain_not_on_the_board(game):
    refused = _refusal(game, act.Buy(shares={"Tower": 1}))
    assert say(refused, "de") == "Tower ist nicht auf dem Spielplan"
    assert say(refused, "zh-TW") == "塔樓 不在盤面上"          # the chain by its Chinese name


def test_a_name_refused_at_setup():
    with pytest.raises(IllegalAction) as refused:
        Game("acquire", ["Ann", "Ann"], {})
    assert say(message_of(refused.value), "de") == "zwei Spieler haben denselben Namen"


def test_a_printer_state_with_slips_waiting_in_german():
    waiting = Message("{state}; {count} slips waiting", state=Message("printer offline"), count=2)
    assert waiting == "printer offline; 2 slips waiting"
    assert say(waiting, "de") == "Drucker offline; 2 Belege warten"
    assert say(str(waiting), "de") == str(waiting)      # a plain str is shown as it is


def test_every_fixed_string_in_german_and_the_language_button_names_the_next():
    assert text("confirm", "de") == "OK" and text("turn", "de", player="Ann") == "Ann ist am Zug"
    assert "de" in LANGUAGES and NAMES["de"] == "Deutsch"
    named = [text("language", language) for language in LANGUAGES]
    assert named == [NAMES[LANGUAGES[(i + 1) % len(LANGUAGES)]] for i in range(len(LANGUAGES))]


def test_no_english_word_is_left_in_a_german_refusal(game):
    """German is a language of its own: the action names are words, not the script's."""
    early = say(_refusal(game, act.Found(chain="Tower")), "de")
    assert not re.search(r"\b(found|is not possible|must)\b", early), early
