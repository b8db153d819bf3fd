"""The data folder on Raspberry Pi OS's overlay file system (every write in RAM, lost at
power-off) is found, and no game starts or resumes there; a writable partition is kept."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hardware.storage import holding, in_memory, mounts
from tabletop.assembly.config import ConfigError, load_config
from tabletop.errors import TabletopError

#: The mount table of a Pi booted with raspi-config's overlay, and a USB disk at /data.
OVERLAY_PI = """\
20 1 0:19 / / rw,noatime - overlay overlay rw,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay
21 20 179:2 / /media/root-ro ro,relatime - ext4 /dev/mmcblk0p2 ro
22 20 0:20 / /media/root-rw rw,relatime - tmpfs tmpfs-root rw
23 20 179:1 / /boot/firmware rw,relatime - vfat /dev/mmcblk0p1 rw
24 20 8:1 / /data rw,relatime - ext4 /dev/sda1 rw
"""
BOOT = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootwait boot=overlay"


def test_a_data_folder_on_the_overlay_is_refused_with_the_way_out():
    why = in_memory("/home/pi/.local/share/tabletop", OVERLAY_PI, BOOT)
    assert why is not None
    assert "/home/pi/.local/share/tabletop" in why and "lost when the power goes" in why
    assert "raspi-config" in why and "[paths] data" in why


def test_a_writable_partition_under_the_overlay_is_kept():
    assert in_memory("/data/tabletop", OVERLAY_PI, BOOT) is None
    assert holding("/data/tabletop", mounts(OVERLAY_PI)).kind == "ext4"


def test_without_the_overlay_asked_at_boot_nothing_is_refused():
    """A container's root is an overlay too, kept on a disk: only the boot's overlay is RAM."""
    assert in_memory("/home/pi/.local/share/tabletop", OVERLAY_PI, BOOT.replace(" boot=overlay", "")) is None
    assert in_memory("/x", OVERLAY_PI, "console=tty1 overlayroot=disabled") is None
    assert in_memory("/x", OVERLAY_PI, "quiet overlayroot=tmpfs") is not None


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_the_real_mount_table_finds_a_folder_kept_in_memory(tmp_path):
    where = tmp_path / "ram"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()})")
    try:
        assert in_memory(where / "tabletop" / "new", cmdline=BOOT) is not None   # not made yet
        assert in_memory(where / "tabletop", cmdline="console=tty1") is None
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _table(tmp_path: Path, monkeypatch, players: str = "") -> object:
    from tabletop.assembly import runner

    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nsource = "sim:acquire,seed=1"\n[controls]\nkind = "mock"\n'
                    f'[table]\n{players}\n[paths]\ndata = "{tmp_path / "data"}"\n')
    monkeypatch.setattr(runner, "_in_memory",
                        lambda data: in_memory(data, "1 0 0:1 / / rw - overlay overlay rw\n", BOOT))
    return runner, load_config(path=path, environ={})


def test_headless_no_game_starts_on_the_overlay_and_nothing_is_recorded(tmp_path, monkeypatch):
    runner, config = _table(tmp_path, monkeypatch, 'players = ["Ann", "Bob"]')
    with pytest.raises(ConfigError, match="lost when the power goes"):
        runner.Runner(config, out=lambda line: None)


def test_on_the_screen_the_setup_is_shown_and_start_and_resume_are_refused(tmp_path, monkeypatch):
    runner, config = _table(tmp_path, monkeypatch)
    lines: list[str] = []
    table = runner.Runner(config, on_screen=True, out=lines.append)
    try:
        assert table.loop.desk is None
        assert any("overlay file system" in line for line in lines)
        with pytest.raises(TabletopError, match="raspi-config"):
            table.new_game("acquire", ["Ann", "Bob"], {})
        with pytest.raises(TabletopError, match="raspi-config"):
            table.games.resume(1)
        assert table.journal.games() == []
    finally:
        table.close()
