"""What a player sees in Chinese (and German) when the table refuses, explains or reports something.

Every sentence tabletop makes for people is a :class:`~tabletop.messages.Message`, rendered
by its template from the catalogues (:func:`ui.i18n.say`); ``tests/ui/test_catalogues.py``
fails on any template missing from a catalogue. Here a real
:class:`~tabletop.engine.game.Game`, a real :class:`~tabletop.table.assistant.Assistant`
and a real :class:`~tabletop.table.seating.Seating` are driven into refusals and
decisions, and what they then show is read in Chinese: each a Message (a plain ``str``
would stay English on the screen), with CJK text and no English word left but names,
tiles and figures. So are a real switch-off, an unplugged and a silent printer, a
runner's services, seats and taps refused, and every warning of the camera's tracker.
"""

from __future__ import annotations

import os
import re
import sys
import tty

import pytest

from tabletop.engine import actions as act
from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant, UnjournaledTable
from tabletop.engine.game import Game
from tabletop.errors import IllegalAction, TabletopError
from tabletop.messages import Message, message_of
from tabletop.table.seating import Seating
from ui.i18n import say

ZH = "zh-TW"

#: English that stays in Chinese: software names, a card's label written in the message,
#: a configuration key and a command to run.
KEPT = ("picamera2", "libcamera", "uint8", "A-1", "USB", "[printer] url", "`tabletop markers`")


def _tracker_warnings() -> list[str]:
    """What calibration/tracker.py warns of, for changes of every shape (its own wording)."""
    from calibration.tracker import MANY, StabilityTracker

    labels = [f"{n}C" for n in range(1, 13)]
    tracker = StabilityTracker(label=lambda cell: labels[cell])
    shapes = [(2, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (MANY, MANY)]
    warnings = [tracker._describe(list(range(new)), list(range(6, 6 + gone))) for new, gone in shapes]
    warnings += [tracker._doubt_warning(0, frozenset(cells)).message for cells in ({4}, {4, 5})]
    return warnings


@pytest.mark.parametrize("warning", _tracker_warnings())
def test_every_camera_warning_is_translated(warning):
    """As the assistant reports a change it will not commit ("camera: ...")."""
    assistant = Assistant(UnjournaledTable(new_game()), seen=["1A", "12I"])
    assistant.changes_seen(["5C", "6D"], [], warning)
    said = chinese(assistant.prompt.message)
    assert said.startswith("攝影機："), said


# --- by playing ---------------------------------------------------------------------------------

NAMES = {"Ann", "Bob", "Cy", "Tower", "Luxor", "American", "Worldwide", "Festival", "Imperial",
         "Continental", "Skyline", "Acquire"}


def chinese(message: str) -> str:
    """``message`` in Chinese, checked: a Message, CJK characters, none of its English words left."""
    assert message, "nothing was said"
    assert isinstance(message, Message), f"{message!r} is a plain str: the screen shows it in English"
    text = say(message, ZH)
    assert re.search(r"[\u4e00-\u9fff]", text), f"not translated: {message!r}"
    words = set(re.findall(r"(?<![0-9A-Za-z])[A-Za-z][A-Za-z_]+", message)) - NAMES - set(KEPT)
    left = [w for w in words if re.search(rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])", text)]
    assert not left, f"{left} left in {text!r} (from {message!r})"
    return text


def new_game(**options) -> Game:
    return Game("acquire", ["Ann", "Bob"], options, start_tiles={"Ann": "1A", "Bob": "12I"})


def play(game: Game, *tiles: str) -> None:
    """Each tile placed in turn: a chain it founds takes the first free name; nobody buys."""
    for tile in tiles:
        game.push(act.Place(tile=tile))
        if game.pending.kind == "found":
            game.push(act.Found(chain=game.rules.chains[game.pending.choices[0]].name))
        game.push(act.Buy())


def refusal(game: Game, action: act.Action) -> str:
    with pytest.raises(IllegalAction) as refused:
        game.push(action)
    return message_of(refused.value)


def test_a_tile_on_a_taken_cell():
    assistant = Assistant(UnjournaledTable(new_game()))
    assistant.tile_seen("1A")
    assert chinese(assistant.prompt.message) == "1A：這一格已經有地磚了。請把它從盤面拿走。"
    assert "1A 已經在盤面上了" == chinese(refusal(assistant.game, act.Place(tile="1A")))


def test_an_eighth_chain():
    game = new_game()
    # Seven chains of two tiles (1A is on the board already), then a lone tile at 9A.
    play(game, "2A", "1C", "2C", "1E", "2E", "1G", "2G", "5A", "6A", "5C", "6C", "5E", "6E", "9A")
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("10A")
    assert chinese(assistant.prompt.message).startswith("10A：它會成立新公司")
    assert "10A" in assistant.prompt.flagged
    chinese(refusal(game, act.Place(tile="10A")))


def test_an_illegal_found():
    game = new_game()
    play(game, "2A")                                   # Tower, the first free name
    game.push(act.Place(tile="1C"))
    game.push(act.Buy())
    game.push(act.Place(tile="2C"))
    text = chinese(refusal(game, act.Found(chain="Tower")))
    # The chains are named in Chinese too, those in the list as well.
    assert text.startswith("塔樓 已經在盤面上了：請從 路克索, 美國")
    assert say(refusal(game, act.Found(chain="Tower")), "de").startswith(
        "Tower ist schon auf dem Spielplan")
    chinese(refusal(game, act.Found(chain="Skyline")))        # no such chain


def test_buying_too_many_shares_or_with_too_little_cash():
    game = new_game()
    play(game, "2A")
    game.push(act.Place(tile="5E"))
    assert chinese(refusal(game, act.Buy(shares={"Tower": 4}))) == "每回合最多買 3 股，不能買 4 股"
    chinese(refusal(game, act.Buy(shares={"Luxor": 1})))                 # not on the board
    assistant = Assistant(UnjournaledTable(game))
    game.cash[game.pending.player] = 100
    assistant.set_purchase(0, 2)
    assistant.press(CONFIRM)
    assert chinese(assistant.prompt.message) == "Bob 只有 $100，這些股票要 $400"


def test_a_tile_out_of_turn_is_refused():
    game = new_game()
    game.push(act.Place(tile="5E"))
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("6E")
    assert assistant.prompt.message.startswith("6E was placed while the table is asked to buy")
    assert "6E" in assistant.prompt.flagged


def test_a_tile_out_of_turn_in_chinese():
    game = new_game()
    game.push(act.Place(tile="5E"))
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("6E")
    chinese(assistant.prompt.message)


def two_safe_chains() -> Game:
    """Tower on 1A-11A, Luxor on 1C-11C (safe at 11): 1B between them is dead."""
    game = new_game()
    play(game, *(f"{n}A" for n in range(2, 12)), *(f"{n}C" for n in range(1, 12)))
    return game


def test_a_dead_tile():
    game = two_safe_chains()
    assert chinese(refusal(game, act.Place(tile="1B"))).startswith("1B 會合併兩家安全公司：它是死磚")
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("1B")                  # proposed as dead: CONFIRM reveals it
    assistant.press(CONFIRM)
    assert chinese(assistant.prompt.message) == "1B 已出局：請把它拿走，再抽一張"
    assert chinese(refusal(game, act.Dead(tile="5E"))) == "5E 不是死磚：它不會連接兩家安全公司"


def test_a_dead_tile_not_revealed():
    assistant = Assistant(UnjournaledTable(two_safe_chains()), seen=[])
    assistant.tile_seen("1B")
    assistant.press(UNDO)                      # not revealed: it still cannot stay
    assert assistant.prompt.message.startswith("1B cannot be placed")
    assert chinese(assistant.prompt.message).startswith("1B 不能放")


def test_undo_and_confirm_with_nothing_to_do():
    assistant = Assistant(UnjournaledTable(new_game()))
    assistant.press(UNDO)
    assert chinese(assistant.prompt.message) == "沒有可以復原的動作"
    assistant.press(CONFIRM)
    assert chinese(assistant.prompt.message).startswith("還沒有可以確認的事")


def test_undo_stops_at_the_turn():
    game = new_game(incorrect_placement="same_turn")
    play(game, "5E")
    assistant = Assistant(UnjournaledTable(game))
    assistant.press(UNDO)
    assert chinese(assistant.prompt.message).startswith("已經換下一回合了")


def test_a_label_that_is_no_cell():
    assistant = Assistant(UnjournaledTable(new_game()))
    assistant.enter("13J")
    assert chinese(assistant.prompt.message) == "'13J' 不是這個盤面上的格子（格子編號為 1A..12I）"


def test_ending_too_early():
    game = new_game()
    play(game, "2A")                                   # Tower, 2 tiles: not safe
    text = chinese(refusal(game, act.End()))
    assert text == "還不能宣告結束：需要有一家公司達到 41 塊以上，或盤面上每家公司都已安全（11 塊以上）"
    game = new_game(agreed_end=False)
    assert chinese(refusal(game, act.End(agreed=True))) == "這張牌桌不採用全體同意結束"


def test_the_camera():
    assistant = Assistant(UnjournaledTable(new_game()), seen=["1A", "12I"])
    assistant.changes_seen(["5C", "6D"], [], Message(
        "{count} new tiles at once ({cells}): not committed; place one tile at a time",
        count=2, cells="5C, 6D"))
    assert chinese(assistant.prompt.message) == \
        "攝影機：同時出現 2 張新地磚（5C, 6D）：未採計；請一次只放一張"
    assistant.camera_lost(Message("camera {source} {reason}; retrying", source=0,
                                  reason=Message("gives no frames")))
    assert chinese(assistant.prompt.banner) == \
        "攝影機已關閉（攝影機 0 沒有傳來畫面；正在重試）：請點選每張地磚所在的格子來輸入"


def test_the_turn_order_draw():
    seating = Seating("acquire", ["Ann", "Bob"])
    seating.changes_seen(["5C", "9I", "1D"], [])
    assert chinese(seating.prompt.message) == "3 張地磚、2 位玩家：請拿走多出來的地磚"
    chinese(seating.prompt.title)
    seating.changes_seen([], ["1D"])
    assert chinese(seating.prompt.title) == "誰抽到 5C？"
    seating.press(CONFIRM)
    assert chinese(seating.prompt.message) == "Ann 抽到最接近 1A 的地磚：由 Ann 先開始"
    assert chinese(seating.prompt.title) == "由 Ann 先開始"

    tie = Seating("acquisitions", ["Ann", "Bob"])          # a card in each quadrant
    tie.changes_seen(["1/A-1", "2/A-1"], [])
    tie.press(CONFIRM)
    assert chinese(tie.prompt.message).endswith("；請把地磚拿走，重新抽")
    chinese(tie.prompt.title)


# --- the devices and services, for real ---------------------------------------------------------

def test_switching_off():
    from hardware.power import safe_shutdown

    def close_fails() -> None:
        raise OSError("disk I/O error")

    python = [sys.executable, "-c"]
    said = [safe_shutdown(close, command=python + [code]).message for close, code in (
        (lambda: None, "pass"), (lambda: None, "raise SystemExit(3)"),
        (lambda: None, "raise SystemExit('no poweroff here')"), (close_fails, "pass"))]
    assert [say(message, ZH) for message in said] == [
        "遊戲已儲存；正在關機", "遊戲已儲存，但關機失敗：結束代碼 3",
        "遊戲已儲存，但關機失敗：no poweroff here", "沒有關機：關閉遊戲時失敗（disk I/O error）"]
    missing = safe_shutdown(lambda: None, command=["/nonexistent/poweroff"]).message
    assert say(missing, ZH).startswith("遊戲已儲存，但關機失敗：[Errno 2]")


def test_the_printer_unplugged_or_silent():
    from hardware.printer import ReceiptPrinter

    printer = ReceiptPrinter("/dev/nonexistent-printer", retry_interval=60)
    try:
        printer.print_slip("Ann wins")
        status = printer.retry()
        assert status.state == "fault"
        assert chinese(status.message) == "印表機未連接；1 張成績單等待列印"
    finally:
        printer.close()
    device, port = os.openpty()             # a printer that never answers the paper query
    tty.setraw(port)
    printer = ReceiptPrinter(os.ttyname(port), timeout=0.05)
    try:
        assert chinese(printer.retry().message) == "印表機離線"
    finally:
        printer.close()
        os.close(device)
        os.close(port)


def test_the_results_screen_services(tmp_path, monkeypatch):
    """A real runner (a resumed game, an unplugged printer, a USB stick in a folder)."""
    from assembly.test_run import resumed_runner

    harmless = (sys.executable, "-c", "pass")
    monkeypatch.setattr("hardware.power.POWER_OFF", harmless)      # never the real one
    runner = resumed_runner(tmp_path, {"rules": "acquire", "players": ["Ann", "Bob"],
                                       "start_tiles": {"Ann": "1A", "Bob": "12I"}},
                            "/dev/nonexistent-printer")
    data = runner.data
    runner.services.power_off = harmless
    try:
        assert chinese(runner.services.print_slip()) == "遊戲結束後才能列印成績單"
        assert chinese(runner.services.printer_status().message) == "印表機：尚未檢查"
        runner.services._printer().retry()
        assert chinese(runner.services.printer_status().message) == "印表機未連接"
        media = tmp_path / "media"
        assert chinese(runner.services.export((str(media),))) == "找不到 USB 隨身碟：請插上一支再試一次"
        stick = media / "pi" / "STICK"
        stick.mkdir(parents=True)
        said = runner.services.export((str(media),), mounted=lambda folder: folder.name == "STICK")
        assert say(said, ZH) == f"第 1 局已存到 STICK（{stick / 'tabletop-exports'}）"
        said = runner.services.save_calibration(runner.loop.eyes.calibration)
        assert say(said, ZH) == f"已儲存到 {data / 'calibration.json'}"
        assert chinese(runner.services.shutdown()) == "遊戲已儲存；正在關機"
    finally:
        runner.close()


@pytest.mark.parametrize("players,expected", [
    (["Ann", "Ann"], "有兩位玩家同名"),
    (["Ann", " "], "每位玩家都需要名字"),
    (["Ann"], "{title} 需要 2-6 位玩家，不是 1 位"),
    (["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus"], "{title} 需要 2-6 位玩家，不是 7 位"),
])
def test_the_setup_screen_refusing_the_seats(players, expected):
    """What ui/setup.py shows when Start is refused: the engine's own refusal."""
    from tabletop.engine.ruleset import load_rules

    rules = load_rules("acquire")
    with pytest.raises(TabletopError) as refused:
        Game(rules, players)
    assert say(message_of(refused.value), ZH) == expected.format(title=rules.title)


def test_a_calibration_refused():
    """What ui/calibscreen.py shows when the taps make no calibration."""
    import numpy as np

    from calibration.calibrate import calibrate

    image = np.zeros((480, 640, 3), np.uint8)
    good = [(40, 40), (600, 40), (600, 440), (40, 440)]
    for picture, taps, expected in (
            (image[:, :, 0], good, "校正用的影像必須是彩色的"),
            (image, [(-5, 40), *good[1:]], "角落格子 1A 在 640x480 的影像範圍之外"),
            (image, [good[0], good[2], good[1], good[3]],
             "角落必須依 1A 12A 12I 1I 的順序點選（照盤面擺放的方向繞一圈）；這幾點交叉、摺疊或繞反了"),
            (image, [(40, 40), (44, 40), (44, 43), (40, 43)],
             "這些角落幾乎沒有圍出範圍：每一點都必須是盤面四個角落格子之一的中心，1A 12A 12I 1I"),
            # A black picture: no marker is where the board would put it.
            (image, good, "標記 0, 1, 2, 3 不在畫面中：請轉動相機或把它移遠一點，直到整個盤面和"
                          "四個標記都入鏡")):
        with pytest.raises(TabletopError) as refused:
            calibrate(picture, taps)
        assert say(message_of(refused.value), ZH) == expected


# --- everything the desk shows is a Message --------------------------------------------------------

#: Kinds whose options are chains' or players' names (the screen names a chain by chain_name).
NAMED_OPTIONS = ("found", "survivor", "next_defunct", "seat")


def shown(prompt) -> list[str]:
    """Every sentence of a prompt the table screen shows, each checked in Chinese."""
    said = [prompt.title, prompt.message, prompt.banner, *prompt.differences, *prompt.effects]
    if prompt.kind not in NAMED_OPTIONS:
        said += [option.label for option in prompt.options]
    for sentence in said:
        if sentence:
            chinese(sentence)
    return [sentence for sentence in said if sentence]


def every_option(desk) -> list[str]:
    """What NEXT shows, option by option, all the way round (each checked)."""
    seen = []
    for _ in desk.prompt.options:
        seen += shown(desk.prompt)
        desk.press(NEXT)
    return seen


def test_a_whole_turn_by_taps_is_said_in_chinese_throughout():
    """Founding, buying, a merger with two holders disposing, mis-taps, an agreed end asked."""
    game = new_game()
    assistant = Assistant(UnjournaledTable(game), seen=None)
    assistant.camera_lost(Message("none configured"))
    seen: list[str] = []
    luxor = game.rules.chain_index("Luxor")
    market = iter(f"{n}{row}" for row in "EFGH" for n in range(12, 0, -1))

    def turn(tile: str) -> None:
        seen.extend(every_option(assistant))
        assistant.enter(tile)
        seen.extend(every_option(assistant))
        assistant.press(CONFIRM)
        while assistant.prompt.kind not in ("place", "over"):
            if assistant.prompt.kind == "market":  # two players: the market's tile is drawn
                seen.extend(shown(assistant.prompt))
                assistant.enter(next(market))
            if assistant.prompt.kind == "buy":
                assistant.press(NEXT)          # "+1 ...": a basket, its effects, then nothing
                assistant.press(CONFIRM)
                seen.extend(every_option(assistant))
                assistant.press(UNDO)
            seen.extend(every_option(assistant))
            assistant.choose(0)                # buy nothing, keep all, the first chain
            assistant.press(CONFIRM)

    for tile in ("2A", "5A", "3A", "6A"):       # Ann founds Tower, Bob Luxor (5A-6A)
        turn(tile)
    game.holdings[0][luxor] += 2                 # Ann holds Luxor too: two holders dispose
    assistant.enter("1A")                        # a mis-tap on a tile of the board
    assert say(assistant.prompt.message, "de").startswith("Auf 1A liegt ein Plättchen von Tower")
    seen += shown(assistant.prompt)
    turn("4A")                                   # Ann merges Luxor into Tower
    assert any(m.template == "{player}: your {chain} shares" for m in seen
               if isinstance(m, Message))
    assistant.enter("9E")
    assistant.enter("9F")                        # out of turn while 9E waits for CONFIRM
    seen += shown(assistant.prompt)
    assistant.press(UNDO)
    assistant.propose_end()                      # too early, or asked of everyone
    seen += shown(assistant.prompt)
    assert len(seen) > 40
    assert "塔樓" in say(assistant.prompt.title, ZH) or assistant.prompt.kind == "agree"


def test_the_turn_order_draw_by_taps_in_chinese_and_german():
    seating = Seating("acquire", ["Ann", "Bob"])
    seating.camera_lost(Message("not found"))
    shown(seating.prompt)
    assert say(seating.prompt.banner, "de") == \
        "Kamera aus (nicht gefunden): tippe auf das Feld jedes gezogenen Plättchens"
    seating.enter("5C")
    seating.enter("5C")
    assert chinese(seating.prompt.message).startswith("5C")
    seating.enter("9I")
    shown(seating.prompt)
    assert say(seating.prompt.title, "de") == "Wer hat 5C gezogen?"
    seating.press(CONFIRM)
    shown(seating.prompt)
    assert say(seating.prompt.title, "de") == "Ann beginnt"


def test_the_history_and_the_merger_in_german():
    from tabletop.table.narrate import entries

    game = new_game()
    play(game, "2A", "5A")
    said = [say(entry, "de") for entry in entries(game)]
    assert said[:2] == ["Ann hat 2A gelegt", "Ann hat Tower gegründet (erhält 1 Gratisaktie)"]
    assert [say(entry, ZH) for entry in entries(game)][1] == "Ann 成立 塔樓（得 1 股免費股票）"
