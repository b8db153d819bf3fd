"""``tabletop screenshots`` renders the screens at every supported size in both languages, the
first-use screens among them; the phrases the assistant says come out in Chinese by their
patterns."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys

import cv2
import pytest

from tabletop.assembly.screenshots import SHOTS, shot_names
from ui.window import SIZES


def _take(out, *only: str) -> list[str]:
    """``tabletop screenshots --out OUT --only SHOT...``: the PNGs' names, checked as a player
    would look at them: each of its size, and drawn (not an empty screen)."""
    args = [arg for shot in only for arg in ("--only", shot)]
    result = subprocess.run([sys.executable, "-m", "tabletop.cli", "screenshots", "--out",
                             str(out), *args], capture_output=True, text=True, timeout=600,
                            env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    written = sorted(p.name for p in out.glob("*.png"))
    for name in written:
        image = cv2.imread(str(out / name))
        width, height = (int(n) for n in name.rsplit("-", 1)[1][:-4].split("x"))
        assert image.shape[:2] == (height, width)
        assert _spread(image) > 20                   # a drawn screen, not an empty one
    return written


def _spread(image) -> float:
    """The standard deviation of all the image's values, ``image.std()``'s, in OpenCV's one
    pass (numpy's, of 80 full screens, cost as much as reading them)."""
    return float(cv2.meanStdDev(image.reshape(-1, 1))[1][0, 0])


#: The shots in two runs of the command, one a worker: each run is one Kivy start-up for all
#: its shots, as `tabletop screenshots` takes every shot in one (a start-up a shot was most
#: of the cost). About as long each: the calibration screens share their picture.
HALVES = (("calibration-acquire", "firstuse-acquire", "table-acquire", "history-acquire",
           "nocamera-acquire"),
          ("table-megacquire-gold", "table-acquisitions", "merger-acquire", "results-acquire",
           "setup-megacquire-gold"))


@pytest.mark.parametrize("shots", HALVES, ids=["first-half", "second-half"])
def test_each_shot_is_written_at_every_size_in_both_languages(shots, tmp_path):
    written = _take(tmp_path, *shots)
    assert written == sorted(f"{shot}-{language}-{width}x{height}.png" for shot in shots
                             for width, height in SIZES for language in ("en", "zh-TW"))
    assert "1280x800" not in " ".join(written)
    if "setup-megacquire-gold" in shots:
        # Laid out for the size: the same screen at 1920x1080 is the 800x480 one, larger
        # (the layout scales), not a small one in a corner.
        small = cv2.imread(str(tmp_path / "setup-megacquire-gold-en-800x480.png"))
        large = cv2.imread(str(tmp_path / "setup-megacquire-gold-en-1920x1080.png"))
        shrunk = cv2.resize(large, (small.shape[1], round(large.shape[0] * 800 / 1920)),
                            interpolation=cv2.INTER_AREA)
        assert abs(shrunk.astype(int)[:400] - small.astype(int)[:400]).mean() < 25


def test_the_halves_take_every_shot_once():
    assert sorted(shot for half in HALVES for shot in half) == sorted(shot_names())


def test_every_screen_has_a_shot_and_a_typo_names_the_closest(tmp_path):
    assert len(SHOTS) * len(SIZES) * 2 == 80
    assert {name.split("-")[0] for name in shot_names()} >= {
        "table", "merger", "setup", "calibration", "history", "results", "firstuse", "nocamera"}
    result = subprocess.run([sys.executable, "-m", "tabletop.cli", "screenshots", "--out",
                             str(tmp_path), "--only", "setup-megacquire"],
                            capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert result.returncode == 2 and "did you mean setup-megacquire-gold?" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_without_a_display_screenshots_say_how_to_get_one(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run([sys.executable, "-m", "tabletop.cli", "screenshots", "--out",
                             str(tmp_path)], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 2 and "xvfb-run" in result.stderr


def test_the_translations_examples_hold():
    import ui.i18n

    assert doctest.testmod(ui.i18n).failed == 0
    from ui.i18n import say

    from tabletop.messages import Message

    bob = Message("{player}: your {chain} shares", player="Bob", chain="Tower")
    assert (say(bob, "zh-TW"), say(bob, "de")) == ("Bob：您的 塔樓 股票", "Bob: deine Tower-Aktien")
    merger = Message("{tile}: merges {defunct} into {survivor}", tile="6C", defunct="Luxor (4)",
                     survivor="American (9)")
    assert say(merger, "zh-TW") == "6C：路克索 (4) 併入 美國 (9)"      # chain names too
    assert say("Something new no catalogue knows", "zh-TW") == "Something new no catalogue knows"
