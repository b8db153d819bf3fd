"""The director's screen (``tabletop director listen --web``), drawn by a real headless chromium.

A hall of 24 players at six tables, round 1 under way: the real :class:`Director` is fed
the messages the tables send (live states of real games, slips signed with each table's
own key), and its screen is served by the real Flask app on a free port. Chromium
(Debian's, ``/usr/bin/chromium``) loads the page and runs its script; the tests read
the DOM it drew, keep a page open while a slip arrives (it must show it without a
reload), and look at the page at 1280x720 and 1920x1080: nothing scrolls, the
standings' type is big. The JSON endpoint is read as a program would, and the command
itself is run with ``--web``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the tournament extra (Flask) is not installed")

import headless_chromium  # noqa: E402
from headless_chromium import Browser  # noqa: E402

from tabletop.director.listen import Director  # noqa: E402
from tabletop.director.web import Screen, WebAddress  # noqa: E402
from tabletop.engine.random_play import random_action  # noqa: E402
from tabletop.journal.journal import Journal  # noqa: E402
from tabletop.journal.keys import table_signing_key  # noqa: E402
from tabletop.journal.seat import Seat  # noqa: E402
from tabletop.journal.slip import make_slip  # noqa: E402
from tabletop.tournament import model  # noqa: E402
from tabletop.tournament.seating import first_round  # noqa: E402
from tabletop.tournament.topics import LiveState, PlayerState, slip_topic, state_topic  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAME = "Spring Open"
PLAYERS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lou",
           "Max", "Ned", "Oda", "Pat", "Quin", "Rosalind", "Sam", "Tess", "Uma", "Vic",
           "Bartholomew Fairweather", "Xavier")
#: Where the screenshots are left to be looked at (the test's own folder otherwise).
SHOTS = os.environ.get("TABLETOP_SCREEN_SHOTS")


class Table:
    """One table's game in a journal of its own, signed with its own key."""

    def __init__(self, folder: Path, name: str, players: tuple[str, ...], seed: int) -> None:
        self.name, self.data = name, folder / f"table-{name}"
        self.key = table_signing_key(self.data)
        self.journal = Journal.open(self.data / "journal.db", table_name=f"table {name}")
        seat = Seat(1, name, NAME).to_json()
        self.game_id = self.journal.start({"setup": {"rules": "acquire", "players": list(players),
                                                     "seed": seed, "seat": seat}}).id
        self.rng = random.Random(seed)

    @property
    def game(self):
        return self.journal.resume(self.game_id).game

    def play(self, actions: int | None = None) -> None:
        table, done = self.journal.resume(self.game_id), 0
        while table.game.pending is not None and (actions is None or done < actions):
            table.push(random_action(table.game, self.rng))
            done += 1

    def state(self) -> bytes:
        """The live state the table publishes (as tabletop.assembly.broker.TableLink does)."""
        game = self.game
        pending = game.pending
        return LiveState(NAME, 1, self.name, self.game_id, game.turn,
                         None if pending is None else game.names[pending.player],
                         tuple(PlayerState(n, c) for n, c in zip(game.names, game.cash)),
                         game.over, 0).to_bytes()

    def slip(self) -> dict:
        return make_slip(self.journal, self.game_id, self.key)


@dataclass
class Hall:
    folder: Path
    director: Director
    tables: dict[str, Table]
    url: str
    screen: Screen
    said: list[str] = field(default_factory=list)

    def send(self, table: str, kind: str, payload: bytes) -> None:
        topic = (state_topic if kind == "state" else slip_topic)(NAME, table)
        assert self.director.handle(topic, payload) is None or kind == "slip"

    def hand_in(self, table: str) -> dict:
        """Table ``table`` plays to the end, says so, and sends its slip; the slip."""
        self.tables[table].play()
        self.send(table, "state", self.tables[table].state())
        slip = self.tables[table].slip()
        self.send(table, "slip", json.dumps(slip).encode())
        return slip


@pytest.fixture
def hall(tmp_path: Path):
    """Round 1 of 24 players at six tables: table 1's slip taken, table 2's forged and
    refused, tables 3 to 6 playing (each has said its live state)."""
    path = tmp_path / "tournament.json"
    tournament = model.Tournament(NAME, PLAYERS, "acquire", seed=3, rounds_planned=3)
    seated = first_round(tournament)
    tables = {name: Table(tmp_path, name, players, seed=10 + int(name))
              for name, players in seated.tables.items()}
    for name, table in tables.items():
        tournament = tournament.with_table(name, table.key.public.text())
    model.save(tournament.with_round(seated), path)
    said: list[str] = []
    director = Director(path, send=lambda topic, payload: None, out=said.append)
    screen = Screen(director, WebAddress("127.0.0.1", 0), out=said.append)
    address = screen.start()
    hall = Hall(tmp_path, director, tables, address.url, screen, said)
    hall.hand_in("1")
    tables["2"].play()
    forged = tables["2"].slip()
    forged["players"][0]["cash"] += 50_000
    hall.send("2", "slip", json.dumps(forged).encode())
    hall.send("2", "state", tables["2"].state())
    for number, name in enumerate(("3", "4", "5", "6")):
        tables[name].play(actions=20 + 7 * number)
        hall.send(name, "state", tables[name].state())
    yield hall
    screen.stop()
    for table in tables.values():
        table.journal.close()


class Dom(HTMLParser):
    """The elements of chromium's DOM dump, in the page's order: each one's classes (and
    ``#id``) and its pieces of text (one a leaf element)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.open: list[tuple[str, list[str]]] = []
        self.found: list[tuple[list[str], list[str]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("meta", "br", "link", "img", "input"):
            return
        texts: list[str] = []
        values = dict(attrs)
        names = (values.get("class") or "").split() + ([f"#{values['id']}"] if "id" in values
                                                        else [])
        self.found.append((names, texts))
        self.open.append((tag, texts))

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            name, texts = self.open.pop()
            if self.open:
                self.open[-1][1].extend(texts)
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        if self.open and data.strip():
            self.open[-1][1].append(data.strip())

    def of(self, *classes: str) -> list[list[str]]:
        """The texts of every element having all of ``classes`` (``#name``: that id), in order."""
        return [texts for have, texts in self.found if set(classes) <= set(have)]


def api_view(url: str) -> dict:
    with urllib.request.urlopen(url + "api/view", timeout=10) as answer:
        assert answer.headers["Content-Type"].startswith("application/json")
        return json.load(answer)


def hand_standings(slips: list[dict]) -> list[tuple[str, int, int]]:
    """N rank points for 1st at a table of N, down to 1; total cash; players without a game
    after, by name."""
    points = dict.fromkeys(PLAYERS, 0)
    cash = dict.fromkeys(PLAYERS, 0)
    for slip in slips:
        for player in slip["players"]:
            points[player["name"]] += len(slip["players"]) + 1 - player["rank"]
            cash[player["name"]] += player["cash"]
    order = sorted(PLAYERS, key=lambda name: (-points[name], -cash[name], name))
    return [(name, points[name], cash[name]) for name in order]


def shot_path(tmp_path: Path, name: str) -> Path:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def test_the_page_drawn_by_chromium_shows_standings_tables_and_a_refused_slip(
        hall: Hall, tmp_path: Path) -> None:
    dom = Dom(headless_chromium.run(hall.url, tmp_path / "profile", "--window-size=1280,720",
                                    "--dump-dom", "--virtual-time-budget=5000"))
    slip = hall.tables["1"].slip()
    expected = hand_standings([slip])
    rows = [texts for texts in dom.of("line") if "head" not in texts and len(texts) == 4
            and texts[0].isdigit()]
    assert [(name, int(points), int(cash.replace(",", ""))) for _, name, points, cash in rows] \
        == expected
    assert rows[0][0] == "1" and rows[-1][0] == "5"     # 4 played, 20 share 5th with 0
    assert dom.of("#name") == [[NAME]]
    assert dom.of("#round") == [["Round 1 of 3"]]
    assert dom.of("in")[0] == ["In: 1"]
    assert dom.of("awaited")[0] == ["Awaited: 2, 3, 4, 5, 6"]
    refused = dom.of("slip", "refused")
    assert refused and refused[0][:2] == ["refused", "Table 2"]
    assert refused[0][2].startswith("its signature does not hold: field players[0].cash "
                                    "was changed")
    taken = dom.of("slip", "taken")
    assert taken[0][:2] == ["taken", "Table 1"] and taken[0][2].startswith("round 1: 1. ")
    cards = {texts[0]: texts for texts in dom.of("card")}
    assert set(cards) == {f"Table {n}" for n in "123456"}
    assert cards["Table 1"][1] == "slip in \u2713"
    assert cards["Table 2"][1] == "game over"            # its slip refused: not in
    four = hall.tables["4"].game
    assert cards["Table 4"][1] == f"turn {four.turn}"
    assert cards["Table 4"][2:] == [piece for name, cash in zip(four.names, four.cash)
                                    for piece in (name, f"{cash:,}")]
    to_play = [texts for texts in dom.of("player", "to-play")]
    assert [four.names[four.pending.player], f"{four.cash[four.pending.player]:,}"] in to_play
    assert len(to_play) == 4                           # one a table playing: 3, 4, 5, 6


def test_a_slip_taken_after_the_page_loaded_appears_without_a_reload(
        hall: Hall, tmp_path: Path) -> None:
    with Browser(tmp_path / "profile", 1280, 720) as browser:
        browser.open(hall.url)
        browser.wait_for("document.body.dataset.drawn >= 1")
        loaded = browser.evaluate("performance.timeOrigin")
        card = "document.querySelector('[data-table=\"3\"] .status').textContent"
        assert browser.evaluate(card).startswith("turn ")
        assert "Table 3" not in browser.evaluate("document.getElementById('slips').innerText")

        slip = hall.hand_in("3")         # table 3 finishes and hands in its slip
        browser.wait_for(f"{card} === 'slip in \\u2713'")
        lines = browser.evaluate("[...document.querySelectorAll('#slips .slip')]"
                                 ".map(line => line.innerText.replace(/\\s+/g, ' '))")
        winner = next(p for p in slip["players"] if p["rank"] == 1)
        assert lines[0].startswith(f"taken Table 3 round 1: 1. {winner['name']}")
        assert browser.evaluate("document.getElementById('progress').innerText") \
            .split() == ["In:", "1,", "3", "Awaited:", "2,", "4,", "5,", "6"]
        assert browser.evaluate("performance.timeOrigin") == loaded      # no reload
        assert browser.evaluate("Number(document.body.dataset.drawn)") >= 2
        for width, height in ((1280, 720), (1920, 1080)):
            browser.size(width, height)
            time.sleep(0.3)
            browser.screenshot(shot_path(tmp_path, f"director-screen-{width}x{height}.png"))
            fits(browser, width, height)
        hall.screen.stop()               # the director gone: the page says so, and keeps its news
        banner = browser.wait_for("!document.getElementById('stale').hidden && "
                                  "document.getElementById('stale').innerText")
        assert banner.startswith("No news from the director since ")
        assert browser.evaluate(card) == "slip in \u2713"


def fits(browser: Browser, width: int, height: int) -> None:
    """Nothing scrolls or is cut at the screen's edge, and the type reads from the back:
    standings at 1/28 of the screen's height or more, nothing under 1/40."""
    assert browser.evaluate("innerWidth") == width and browser.evaluate("innerHeight") == height
    assert browser.evaluate("document.documentElement.scrollHeight") <= height
    assert browser.evaluate("document.documentElement.scrollWidth") <= width
    bottoms = browser.evaluate("[...document.querySelectorAll('.line, .card, .slip')]"
                               ".map(e => e.getBoundingClientRect().bottom)")
    assert len(bottoms) == 25 + 6 + 3 + 1 and max(bottoms) <= height
    rows = browser.evaluate("parseFloat(getComputedStyle(document.querySelector("
                            "'.line:not(.head)')).fontSize)")
    assert rows >= height / 28, rows
    smallest = browser.evaluate(      # of the elements showing text of their own
        "Math.min(...[...document.querySelectorAll('body *')].filter(e => e.checkVisibility() "
        "&& e.tagName !== 'SCRIPT' && [...e.childNodes].some(n => n.nodeType === 3 "
        "&& n.data.trim())).map(e => parseFloat(getComputedStyle(e).fontSize)))")
    assert smallest >= height / 40, smallest
    # every line of a card lies within its card
    assert browser.evaluate("[...document.querySelectorAll('.card')].every(card => "
                            "[...card.children].every(line => line.getBoundingClientRect()"
                            ".bottom <= card.getBoundingClientRect().bottom + 1))")


def test_the_json_endpoint_gives_the_same_view(hall: Hall) -> None:
    view = api_view(hall.url)
    slip = hall.tables["1"].slip()
    assert view["tournament"] == NAME and view["round"] == 1 and view["rounds_planned"] == 3
    assert view["tables_in"] == ["1"] and view["tables_awaited"] == ["2", "3", "4", "5", "6"]
    assert [(s["name"], s["points"], s["cash"]) for s in view["standings"]] == \
        hand_standings([slip])
    assert view["games_counted"] == 1
    refused, taken = view["slips"]
    assert refused["table"] == "2" and refused["outcome"] == "refused"
    assert refused["text"].startswith("its signature does not hold: field players[0].cash")
    assert taken["table"] == "1" and taken["outcome"] == "taken" and taken["round"] == 1
    five = hall.tables["5"].game
    table = next(t for t in view["tables"] if t["table"] == "5")
    assert table["slip_taken"] is False and tuple(table["seated"]) == tuple(five.names)
    assert table["live"]["turn"] == five.turn
    assert table["live"]["to_play"] == five.names[five.pending.player]
    assert [(p["name"], p["cash"]) for p in table["live"]["players"]] == \
        list(zip(five.names, five.cash))

    # Garbage on table 6's slip topic is refused, naming the table (not kept in the file).
    hall.send("6", "slip", b"not a slip")
    first = api_view(hall.url)["slips"][0]
    assert (first["table"], first["outcome"], first["text"]) == ("6", "refused",
                                                                  "this is not a slip")
    # Table 6's key forgotten: its slip is held back (not answered; the table sends it
    # again), and taken once the key is registered.
    path = hall.folder / "tournament.json"
    registered = model.load(path)
    model.save(replace(registered, tables={t: k for t, k in registered.tables.items()
                                           if t != "6"}), path)
    second = hall.hand_in("6")
    first = api_view(hall.url)["slips"][0]
    assert (first["table"], first["outcome"]) == ("6", "unanswered")
    assert first["text"].startswith("no public key is registered for this table")
    model.save(registered, path)
    hall.send("6", "slip", json.dumps(second).encode())
    after = api_view(hall.url)
    assert after["tables_in"] == ["1", "6"] and after["slips"][0]["table"] == "6"
    assert [s["outcome"] for s in after["slips"] if s["table"] == "6"] == ["taken"]
    assert [(s["name"], s["points"], s["cash"]) for s in after["standings"]] == \
        hand_standings([slip, second])


# -- the command ----------------------------------------------------------------------------


def tabletop(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tabletop", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=60)


def test_listen_with_web_serves_the_screen_and_says_bad_addresses(tmp_path: Path) -> None:
    made = tabletop("director", "new", NAME, "--players", ",".join(PLAYERS[:8]), "--seed", "2",
                    cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = tabletop("director", "listen", "--broker", "127.0.0.1:1", "--web", str(port),
                        cwd=tmp_path)
    assert busy.returncode == 2
    assert busy.stderr == (f"tabletop: cannot serve the director's screen on 127.0.0.1:{port}: "
                           f"Address already in use\n")
    for bad in ("web", "127.0.0.1:99999", "127.0.0.1:", ":8080"):
        said = tabletop("director", "listen", "--web", bad, cwd=tmp_path)
        assert said.returncode == 2 and said.stdout == ""
        assert said.stderr == (f"tabletop: --web takes [HOST:]PORT, such as 8080 or "
                               f"0.0.0.0:8080 ({bad!r} is not one)\n")

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    director = subprocess.Popen([sys.executable, "-m", "tabletop", "director", "listen",
                                 "--broker", "127.0.0.1:1", "--web", "0"], cwd=tmp_path, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = director.stdout.readline()
        assert first.startswith("the director's screen is at http://127.0.0.1:"), first
        url = first.split(" at ", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=10) as page:
            assert "/api/view" in page.read().decode()
        assert api_view(url)["standings"][0]["name"] in PLAYERS
    finally:
        director.send_signal(signal.SIGTERM)
        out, _ = director.communicate(timeout=20)
    assert director.returncode == 0 and "Traceback" not in out
    with pytest.raises(OSError):       # the screen stopped with the command
        urllib.request.urlopen(url, timeout=2)
