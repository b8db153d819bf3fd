"""Finding the desktop from the desktop user's service: the session's own variables first,
else real Unix sockets where a compositor or an X server would have them, in this user's own
runtime folder; `tabletop run --screen` waits for one, and says so when none comes."""

from __future__ import annotations

import os
import socket

import pytest

from hardware import desktop as screen
from hardware.desktop import find_screen, wait_for_screen


@pytest.fixture
def sockets(tmp_path):
    made = []

    def listen(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(path))
        made.append(sock)
        return path

    yield listen
    for sock in made:
        sock.close()


def test_a_wayland_desktop_is_found_by_its_socket_in_this_users_runtime_folder(tmp_path, sockets):
    runtime = tmp_path / "run" / str(os.getuid())           # the app runs as the desktop user
    runtime.mkdir(parents=True)
    (runtime / "wayland-0.lock").touch()                    # labwc's lock: not a socket
    sockets(tmp_path / "run" / str(os.getuid() + 1) / "wayland-1")   # another user's session
    assert find_screen({}, runtime_root=str(tmp_path / "run"), x11_root=str(tmp_path / "x")) == {}
    sockets(runtime / "wayland-0")
    assert find_screen({}, runtime_root=str(tmp_path / "run"), x11_root=str(tmp_path / "x")) == {
        "XDG_RUNTIME_DIR": str(runtime), "WAYLAND_DISPLAY": "wayland-0"}


def test_the_sessions_own_display_wins_and_the_lowest_x_display_is_found(tmp_path, sockets):
    for name in ("X10", "X1"):
        sockets(tmp_path / "x" / name)
    (tmp_path / "x" / "X0-lock").touch()
    found = find_screen({}, runtime_root=str(tmp_path / "run"), x11_root=str(tmp_path / "x"))
    assert found["DISPLAY"] == ":1"
    # The variables tabletop-session imported from the session are kept as they are.
    assert find_screen({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1"},
                       x11_root=str(tmp_path / "x")) == {}
    # Wayland alone is not enough: Kivy's SDL2 draws through XWayland, which needs DISPLAY.
    assert find_screen({"WAYLAND_DISPLAY": "wayland-1"}, x11_root=str(tmp_path / "x")) == {
        "DISPLAY": ":1"}


def test_waiting_for_the_desktop_to_come_up_and_giving_up(tmp_path, sockets):
    x11 = tmp_path / "x"
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        if len(slept) == 2:
            sockets(x11 / "X0")                             # the desktop comes up

    def find(environ):
        return find_screen(environ, runtime_root=str(tmp_path / "run"), x11_root=str(x11))

    assert wait_for_screen({}, 30, find=find, sleep=sleep)["DISPLAY"] == ":0"
    assert len(slept) == 2
    assert wait_for_screen({}, 0, find=lambda environ: {}, sleep=sleep) is None


def test_run_screen_without_a_desktop_exits_1_saying_what_to_do(tmp_path, monkeypatch, capsys):
    from tabletop.assembly.config import load_config
    from tabletop.assembly.runner import main

    for variable in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setattr(screen, "X11_ROOT", str(tmp_path / "x"))
    config = load_config(tmp_path / "config.toml", environ={})
    assert main(config, None, False, screen=True, wait=0) == 1
    assert "no desktop came up on the screen in 0 s" in capsys.readouterr().err
