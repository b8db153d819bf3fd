"""Chain colours as the markers on the table, text that reads, and Chinese drawn as Taiwan writes it.

The colour tests need no window; the glyph test renders with Kivy's text provider (on the
Xvfb display tests/ui/conftest.py starts).
"""

from __future__ import annotations

import colorsys
import itertools
import logging
import math
import os
from pathlib import Path

import pytest

from tabletop.engine.ruleset import available_rules, load_rules, rules_from_text
from ui import theme

#: Each chain's marker as its rulebook names it (MEGAcquire GOLD's contents list; ACQUISITIONS'
#: crests by their colour, Solon Clan and Lions Head by their metal; Acquire's Avalon Hill markers).
MARKERS = {
    "acquire": {"Tower": "yellow", "Luxor": "red", "American": "blue", "Worldwide": "brown",
                "Festival": "green", "Imperial": "pink", "Continental": "teal"},
    "acquisitions": {"Solon Clan": "gold", "Red Crest": "red", "Blue Crest": "blue",
                     "Green Crest": "green", "Purple Crest": "purple", "Lions Head": "bronze",
                     "White Crest": "white"},
    "megacquire-gold": {"Luster": "red", "Teton": "yellow", "Global": "brown", "Fanfare": "green",
                        "Arcadia": "blue", "Regal": "pink", "Krause": "teal", "Unity": "beige",
                        "Solon": "grey", "Helix": "orange", "Watts": "purple",
                        "Digital": "baby blue", "Physics": "burgundy", "Quasar": "charcoal"},
}

#: Named colour -> (hue ranges in degrees, lightness range, saturation range), HLS.
FAMILIES = {
    "red": ([(345, 360), (0, 12)], (0.35, 0.65), (0.5, 1)),
    "burgundy": ([(330, 360), (0, 10)], (0.15, 0.35), (0.4, 1)),
    "pink": ([(310, 345)], (0.55, 0.85), (0.5, 1)),
    "orange": ([(20, 38)], (0.4, 0.65), (0.7, 1)),
    "bronze": ([(20, 38)], (0.3, 0.5), (0.5, 1)),
    "brown": ([(15, 40)], (0.2, 0.42), (0.3, 0.8)),
    "beige": ([(30, 50)], (0.55, 0.85), (0.2, 0.65)),
    "gold": ([(38, 52)], (0.35, 0.6), (0.6, 1)),
    "yellow": ([(44, 62)], (0.4, 0.6), (0.9, 1)),
    "green": ([(100, 150)], (0.25, 0.55), (0.4, 1)),
    "teal": ([(165, 195)], (0.25, 0.55), (0.5, 1)),
    "baby blue": ([(190, 215)], (0.6, 0.85), (0.5, 1)),
    "blue": ([(210, 235)], (0.35, 0.6), (0.5, 1)),
    "purple": ([(265, 300)], (0.35, 0.6), (0.35, 1)),
    "white": ([(0, 360)], (0.88, 1), (0, 0.1)),
    "grey": ([(0, 360)], (0.6, 0.8), (0, 0.1)),
    "charcoal": ([(0, 360)], (0.35, 0.55), (0, 0.1)),
}

#: CIEDE2000 distances. About 2 is the least difference people see between two patches side
#: by side; tiles seen apart, across a table, on a small panel, by players with weaker colour
#: vision, must differ in kind, not shade: 15 keeps every pair in different colour names.
BETWEEN_CHAINS = 15
FROM_EMPTY_CELL = 15      # a chain's tile is never taken for an empty cell
FROM_BACKGROUND = 20      # nor lost in the screen around the board
DARK_BACKGROUND = theme.from_hex("#1c1f24")


def chain_colours():
    for name in available_rules():
        rules = load_rules(name)
        for chain in rules.chains:
            yield name, chain.name, theme.chain_colour(chain.index, rules)


def test_every_shipped_chain_names_its_colour():
    assert set(available_rules()) == set(MARKERS)
    for name in available_rules():
        chains = load_rules(name).chains
        assert {chain.name for chain in chains} == set(MARKERS[name])
        assert all(chain.colour.startswith("#") for chain in chains), name


@pytest.mark.parametrize("game,chain,colour", list(chain_colours()),
                         ids=[f"{g}:{c}" for g, c, _ in chain_colours()])
def test_each_chain_is_drawn_in_its_markers_colour(game, chain, colour):
    named = MARKERS[game][chain]
    hues, (low, high), (grey, vivid) = FAMILIES[named]
    hue, lightness, saturation = colorsys.rgb_to_hls(*colour[:3])
    hue *= 360
    assert any(start <= hue <= end for start, end in hues), f"{chain} ({named}): hue {hue:.0f}"
    assert low <= lightness <= high, f"{chain} ({named}): lightness {lightness:.2f}"
    assert grey <= saturation <= vivid, f"{chain} ({named}): saturation {saturation:.2f}"


def test_the_palette_contradicts_no_name_any_more():
    # The bug as players saw it: Red Crest light blue, Blue Crest green.
    rules = load_rules("acquisitions")
    red = theme.chain_colour(rules.chain_index("Red Crest"), rules)
    blue = theme.chain_colour(rules.chain_index("Blue Crest"), rules)
    assert red[0] > 2 * max(red[1:3]) and blue[2] > 2 * max(blue[:2])


@pytest.mark.parametrize("game", sorted(MARKERS))
def test_no_two_chains_of_a_game_look_alike(game):
    rules = load_rules(game)
    colours = {chain.name: theme.chain_colour(chain.index, rules) for chain in rules.chains}
    close = [(a, b, round(delta_e(colours[a], colours[b]), 1))
             for a, b in itertools.combinations(colours, 2)
             if delta_e(colours[a], colours[b]) < BETWEEN_CHAINS]
    assert close == []
    assert [name for name, c in colours.items() if delta_e(c, theme.EMPTY_CELL) < FROM_EMPTY_CELL] == []
    assert [name for name, c in colours.items()
            if min(delta_e(c, DARK_BACKGROUND), delta_e(c, theme.BACKGROUND)) < FROM_BACKGROUND] == []


@pytest.mark.parametrize("game,chain,colour", list(chain_colours()),
                         ids=[f"{g}:{c}" for g, c, _ in chain_colours()])
def test_chain_names_and_initials_read_at_4_5_to_1(game, chain, colour):
    for background in (theme.BACKGROUND, theme.PANEL, DARK_BACKGROUND):
        written = theme.readable(colour, background)
        assert theme.contrast(written, background) >= 4.5, (chain, background)
        # Still the marker's colour, only lighter: the same hue family.
        assert hue_gap(written, colour) < 8 or saturation(colour) < 0.1
    assert theme.contrast(theme.ink_on(colour), colour) >= 4.5, chain


def test_the_screens_words_read_at_4_5_to_1():
    for name in ("TEXT", "DIM", "WARNING", "HIGHLIGHT"):
        for ground in ("BACKGROUND", "PANEL"):
            ratio = theme.contrast(getattr(theme, name), getattr(theme, ground))
            assert ratio >= 4.5, f"{name} on {ground}: {ratio:.2f}"
    assert theme.contrast(theme.TEXT, theme.WARNING_FILL) >= 4.5
    assert theme.contrast(theme.ink_on(theme.LONE_CELL), theme.LONE_CELL) >= 4.5


def test_contrast_and_ink_follow_wcag():
    black, white = (0, 0, 0, 1), (1, 1, 1, 1)
    assert theme.contrast(black, white) == pytest.approx(21)
    assert theme.contrast(white, white) == pytest.approx(1)
    assert theme.contrast(theme.from_hex("#777777"), white) == pytest.approx(4.48, abs=0.01)
    assert theme.ink_on(theme.from_hex("#f5d000")) == black
    assert theme.ink_on(theme.from_hex("#1f4fd1")) == white
    # A colour that already reads is kept as it is.
    assert theme.readable(white) == white


def test_a_rule_file_without_colours_still_loads_and_draws_from_the_palette():
    text = load_rules("acquire").text
    plain = "\n".join(line for line in text.splitlines() if not line.startswith("colour ="))
    rules = rules_from_text(plain, "mine.toml")
    assert [chain.colour for chain in rules.chains] == [""] * 7
    assert [theme.chain_colour(i, rules) for i in range(7)] == [theme.chain_colour(i) for i in range(7)]
    # The index-only call the screens used keeps working.
    assert theme.chain_colour(0) == (*theme.PALETTE[0], 1.0)
    assert theme.to_hex(theme.chain_colour(0, load_rules("acquire"))) == "f2c500"


def test_every_chain_has_a_short_traditional_chinese_name():
    from ui.i18n import chain_name
    for game in available_rules():
        names = [chain_name(chain.name, "zh-TW") for chain in load_rules(game).chains]
        assert all(1 < len(name) <= 4 and all(ord(c) > 0x2e80 for c in name) for name in names), names
        assert len(set(names)) == len(names), names
        # Simplified forms would read as mainland text: none of these is one.
        assert not set("".join(names)) & set("楼乐国环庆际伦团数类级"), names
    assert chain_name("Tower", "en") == "Tower"


# --- Traditional Chinese glyphs ---------------------------------------------------------------

COLLECTION = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
#: Characters Noto CJK draws differently for Japan and Taiwan (different glyphs in its cmaps).
DIFFERING = "直骨說戶遍今令編次化"
needs_noto = pytest.mark.skipif(not COLLECTION.is_file(),
                                reason="fonts-noto-cjk is not installed (apt-get install fonts-noto-cjk)")


@pytest.fixture
def fresh_font(tmp_path, monkeypatch):
    """font_path() as a new table's first start finds it: an empty cache, no $TABLETOP_FONT."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TABLETOP_FONT", raising=False)
    monkeypatch.setattr(theme, "TC_FONTS", ())     # the collection's face, not a standalone file
    theme._font_path.cache_clear()
    yield tmp_path / "cache" / "tabletop"
    theme._font_path.cache_clear()


@needs_noto
def test_the_screens_chinese_is_drawn_with_the_traditional_chinese_face(fresh_font, tmp_path):
    """Rendered by Kivy: the screen's font draws as the collection's TC face, not its JP face."""
    import numpy as np
    from fontTools.ttLib import TTCollection
    from kivy.core.text import Label as CoreLabel
    from kivy.core.window import Window  # noqa: F401  (a GL context for the textures)

    faces = TTCollection(str(COLLECTION), lazy=True).fonts
    names = [face["name"].getDebugName(1) for face in faces]
    references = {}
    for region in ("JP", "TC"):
        path = tmp_path / f"reference-{region}.otf"
        faces[names.index(f"Noto Sans CJK {region}")].save(str(path))
        references[region] = str(path)
    cmaps = {region: faces[names.index(f"Noto Sans CJK {region}")].getBestCmap()
             for region in references}
    assert all(cmaps["JP"][ord(c)] != cmaps["TC"][ord(c)] for c in DIFFERING)

    def pixels(char: str, font: str):
        label = CoreLabel(text=char, font_name=font, font_size=48)
        label.refresh()
        return np.frombuffer(label.texture.pixels, np.uint8)

    screen = theme.font_path()
    assert screen is not None and screen.startswith(str(fresh_font))
    for char in DIFFERING:
        drawn = pixels(char, screen)
        assert np.array_equal(drawn, pixels(char, references["TC"])), char
        assert not np.array_equal(drawn, pixels(char, references["JP"])), char
    # Every chain name's characters exist in the face (none drawn as the missing-glyph box).
    from ui.strings.chains import NAMES
    missing = pixels("\U0010fffd", screen)
    chars = {c for entry in NAMES.values() for c in entry["zh-TW"]}
    assert [c for c in sorted(chars) if np.array_equal(pixels(c, screen), missing)] == []
    # Kivy given the collection itself draws its first face, Japanese: what the screen did before.
    assert np.array_equal(pixels("直", str(COLLECTION)), pixels("直", references["JP"]))


@needs_noto
def test_the_face_is_found_by_name_extracted_once_and_reused(fresh_font):
    from fontTools.ttLib import TTCollection, TTFont

    first = Path(theme.font_path())
    assert TTFont(str(first))["name"].getDebugName(1) == "Noto Sans CJK TC"
    faces = TTCollection(str(COLLECTION), lazy=True).fonts
    assert theme.face_index(faces, "TC") == 3 and theme.face_index(faces, "JP") == 0
    written = first.stat().st_mtime_ns
    theme._font_path.cache_clear()
    assert Path(theme.font_path()) == first and first.stat().st_mtime_ns == written
    # Older than the collection (a font package upgraded): extracted again.
    os.utime(first, (0, 0))
    theme._font_path.cache_clear()
    assert Path(theme.font_path()) == first and first.stat().st_mtime > 0
    assert [p.name for p in first.parent.iterdir()] == [first.name]     # no part left behind


@needs_noto
def test_a_cache_that_cannot_be_written_falls_back_with_a_reason(fresh_font, tmp_path,
                                                                 monkeypatch, caplog):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    with caplog.at_level(logging.WARNING, logger="ui.theme"):
        assert theme.font_path() == str(COLLECTION)
    assert "cannot extract the TC face" in caplog.text


def test_tabletop_font_names_the_font(fresh_font, tmp_path, monkeypatch):
    mine = tmp_path / "mine.otf"
    mine.write_bytes(b"OTTO")
    monkeypatch.setenv("TABLETOP_FONT", str(mine))
    assert theme.font_path() == str(mine)


# --- colour arithmetic for the tests ----------------------------------------------------------

def hue_gap(a, b) -> float:
    gap = abs(colorsys.rgb_to_hls(*a[:3])[0] - colorsys.rgb_to_hls(*b[:3])[0]) * 360
    return min(gap, 360 - gap)


def saturation(colour) -> float:
    return colorsys.rgb_to_hls(*colour[:3])[2]


def lab(colour) -> tuple[float, float, float]:
    """sRGB -> CIE L*a*b* (D65)."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    r, g, b = (linear(c) for c in colour[:3])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(one, two) -> float:
    """CIEDE2000 difference of two sRGB colours."""
    return delta_e_lab(lab(one), lab(two))


def delta_e_lab(one, two) -> float:
    """CIEDE2000 difference of two L*a*b* colours (Sharma, Wu and Dalal's formulation)."""
    (l1, a1, b1), (l2, a2, b2) = one, two
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = a1 * (1 + g), a2 * (1 + g)
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    big_dh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    rotation = 30 * math.exp(-((h_mean - 275) / 25) ** 2)
    rc = 2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc, sh = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    rt = -math.sin(math.radians(2 * rotation)) * rc
    dl, dc = (l2 - l1) / sl, (c2 - c1) / sc
    dhh = big_dh / sh
    return math.sqrt(dl ** 2 + dc ** 2 + dhh ** 2 + rt * dc * dhh)


def test_delta_e_matches_sharmas_published_pairs():
    # Pairs 1, 7 and 17 of Sharma, Wu and Dalal's CIEDE2000 test data.
    assert delta_e_lab((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert delta_e_lab((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert delta_e_lab((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)
    assert delta_e((0, 0, 0), (1, 1, 1)) == pytest.approx(100, abs=0.1)
