"""``tabletop screenshots`` renders the screens at every supported size in both languages, the
first-use screens among them; the phrases the assistant says come out in Chinese by their
patterns."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys

import cv2

from tabletop.assembly.screenshots import SHOTS
from ui.window import SIZES


def test_screenshots_are_written_at_every_size_in_both_languages(tmp_path):
    result = subprocess.run([sys.executable, "-m", "tabletop.cli", "screenshots", "--out",
                             str(tmp_path)], capture_output=True, text=True, timeout=600,
                            env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    written = sorted(p.name for p in tmp_path.glob("*.png"))
    assert len(written) == len(SHOTS) * len(SIZES) * 2 == 80
    for width, height in SIZES:
        for language in ("en", "zh-TW"):
            for shot in ("table-acquire", "merger-acquire", "setup-megacquire-gold",
                         "calibration-acquire", "history-acquire", "results-acquire",
                         "firstuse-acquire", "nocamera-acquire"):
                assert f"{shot}-{language}-{width}x{height}.png" in written
    assert "1280x800" not in " ".join(written)
    for name in written:
        image = cv2.imread(str(tmp_path / name))
        width, height = (int(n) for n in name.rsplit("-", 1)[1][:-4].split("x"))
        assert image.shape[:2] == (height, width)
        assert image.std() > 20                      # a drawn screen, not an empty one
    # Laid out for the size: the same screen at 1920x1080 is the 800x480 one, larger
    # (the layout scales), not a small one in a corner.
    small = cv2.imread(str(tmp_path / "setup-megacquire-gold-en-800x480.png"))
    large = cv2.imread(str(tmp_path / "setup-megacquire-gold-en-1920x1080.png"))
    shrunk = cv2.resize(large, (small.shape[1], round(large.shape[0] * 800 / 1920)),
                        interpolation=cv2.INTER_AREA)
    assert abs(shrunk.astype(int)[:400] - small.astype(int)[:400]).mean() < 25


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
