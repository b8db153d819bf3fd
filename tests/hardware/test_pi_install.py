"""The Raspberry Pi install files: the script's steps, the unit, the udev rule, power-off."""

from __future__ import annotations

import atexit
import configparser
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st

from hardware.power import safe_shutdown

PI = Path(__file__).resolve().parents[2] / "hardware" / "pi"


def write_shims(folder: Path, **scripts: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in scripts.items():
        (folder / name).write_text("#!/bin/sh\n" + body)
        (folder / name).chmod(0o755)
    return folder


@functools.lru_cache(maxsize=None)
def plain_path() -> str:
    """This machine's PATH behind an ``apt-cache`` that knows none of the Pi's packages, as on
    stock Debian: what this machine's apt knows is none of these tests' business (and the real
    one takes half a second a question, twice a dry run)."""
    folder = Path(tempfile.mkdtemp(prefix="tabletop-test-apt-"))
    atexit.register(shutil.rmtree, folder, True)
    write_shims(folder, **{"apt-cache": "exit 0\n"})
    return f"{folder}:{os.environ['PATH']}"


def shims(folder: Path, **scripts: str) -> str:
    """A PATH that finds these stand-in commands first (name: body of a sh script)."""
    return f"{write_shims(folder, **scripts)}:{plain_path()}"


def install(**env: str) -> subprocess.CompletedProcess:
    """The installer's dry run; nothing of this machine's sudo, lightdm or apt leaks in."""
    base = {k: v for k, v in os.environ.items() if k not in ("SUDO_USER", "DESKTOP_USER")}
    base.update({"DRY_RUN": "1", "PREFIX": "/opt/tt", "ETC": "/nonexistent/etc",
                 "PATH": plain_path()})
    return subprocess.run(["bash", str(PI / "install-pi.sh")], capture_output=True, text=True,
                          env={**base, **env}, timeout=60)


def dry_run(**env: str) -> str:
    done = install(**{"DESKTOP_USER": "pi", **env})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_install_script_is_valid_bash():
    for script in ("install-pi.sh", "autostart.sh"):
        assert subprocess.run(["bash", "-n", str(PI / script)]).returncode == 0
    assert subprocess.run(["sh", "-n", str(PI / "tabletop-session")]).returncode == 0


#: The system python3 of a Pi, whose picamera2 brings Debian's numpy (a stock Debian machine
#: running these tests has none: the constraint step is written only where numpy is).
PI_PYTHON = 'if [ "$*" = "-I -c import numpy; print(numpy.__version__)" ]; then echo 1.24.2; fi\n'


def test_install_puts_picamera2_inside_a_venv_that_sees_the_system_packages(tmp_path):
    steps = dry_run(PATH=shims(tmp_path, python3=PI_PYTHON))
    assert "python3-picamera2" in steps
    assert "python3 -I -m venv --system-site-packages /opt/tt/venv" in steps
    order = [steps.index(s) for s in ("apt-get install", "venv --system-site-packages",
                                      "pip install --constraint", "/etc/systemd/user/tabletop.service",
                                      "runuser -u pi -- bash -s")]
    assert order == sorted(order)


def test_install_drops_the_sdl_and_mtdev_packages_kivys_wheel_does_not_use():
    install_line = next(line for line in dry_run().splitlines() if "apt-get install" in line)
    assert "libsdl2" not in install_line and "libmtdev" not in install_line
    for package in ("python3-lgpio", "python3-libcamera", "fonts-noto-cjk", "espeak-ng"):
        assert package in install_line


def test_install_takes_whichever_camera_apps_package_apt_knows(tmp_path):
    policy = ('if [ "$2" = "{known}" ]; then echo "{known}:"; echo "  Candidate: 1.5.0-1"; '
              'else echo "$2:"; echo "  Candidate: (none)"; fi\n')
    for known in ("rpicam-apps-lite", "libcamera-apps-lite"):
        path = shims(tmp_path / known, **{"apt-cache": policy.format(known=known)})
        install_line = next(line for line in dry_run(PATH=path).splitlines() if "apt-get install" in line)
        assert install_line.endswith(f" {known}") and install_line.count("apps-lite") == 1
    # Neither: a warning, not an abort under set -e.
    done = install(DESKTOP_USER="pi", PATH=shims(tmp_path / "none", **{"apt-cache": "exit 0\n"}))
    assert done.returncode == 0 and "apps-lite" not in done.stdout.split("== 2.")[0].split("install -y")[1]
    assert "the camera's command-line tools are left out" in done.stderr


def test_install_holds_numpy_at_the_systems_version_for_the_opencv_wheel(tmp_path):
    answer = 'if [ "$*" = "-I -c import numpy; print(numpy.__version__)" ]; then echo {v}; exit 0; fi\n'
    old = dry_run(PATH=shims(tmp_path / "old", python3=answer.format(v="1.24.2")))
    assert "numpy==1.24.2\nopencv-python-headless<4.12\n" in old
    # Written in root's temporary folder, not in $PREFIX (see test_pi_privilege.py).
    assert "--constraint /tmp/tabletop-install.XXXXXX/constraints.txt" in old
    assert "/tmp/tabletop-install.XXXXXX/src[hardware,ui]" in old
    new = dry_run(PATH=shims(tmp_path / "new", python3=answer.format(v="2.2.4")))
    assert "numpy==2.2.4\n" in new and "opencv-python-headless" not in new


def test_install_refuses_to_run_without_root_unless_dry():
    if os.geteuid() == 0:
        return  # CI runs as root; the refusal is for a user who forgot sudo
    done = subprocess.run(["bash", str(PI / "install-pi.sh")], capture_output=True, text=True,
                          env={**os.environ, "DESKTOP_USER": "pi"})
    assert done.returncode == 1 and "sudo" in done.stderr


def test_the_app_runs_for_the_desktop_user_sudo_names_or_the_screen_logs_in(tmp_path):
    etc = tmp_path / "etc"
    (etc / "lightdm").mkdir(parents=True)
    (etc / "lightdm" / "lightdm.conf").write_text(
        "[Seat:*]\n#autologin-user=\nautologin-user=kiosk\nautologin-session=LXDE-pi-labwc\n")
    assert "== 2. desktop user kiosk" in install(ETC=str(etc)).stdout
    assert "== 2. desktop user kiosk" in install(ETC=str(etc), SUDO_USER="root").stdout
    by_sudo = install(ETC=str(etc), SUDO_USER="ann").stdout
    assert "== 2. desktop user ann" in by_sudo
    assert "pass DESKTOP_USER=kiosk to install it for kiosk" in by_sudo   # not silently wrong
    assert "== 2. desktop user bob" in install(ETC=str(etc), SUDO_USER="ann", DESKTOP_USER="bob").stdout
    # No useradd any more: the desktop user exists, and gets the device groups.
    assert "useradd" not in by_sudo and "usermod -aG input" not in by_sudo


def test_without_a_desktop_user_to_find_the_installer_says_to_name_one():
    done = install()
    assert done.returncode == 1 and done.stdout == ""
    assert "pass DESKTOP_USER=" in done.stderr and done.stderr.count("\n") == 1
    root = install(DESKTOP_USER="root")
    assert root.returncode == 1 and "does not run as root" in root.stderr


def test_the_journal_is_checked_in_full_each_night_behind_the_table():
    # A table's opening checks only what is new: older records' damage is found by this.
    units = {}
    for name in ("tabletop-check.service", "tabletop-check.timer"):
        units[name] = configparser.ConfigParser(strict=False, interpolation=None)
        units[name].optionxform = str
        units[name].read(PI / name)
    service, timer = units["tabletop-check.service"]["Service"], units["tabletop-check.timer"]
    assert service["ExecStart"] == "@PREFIX@/venv/bin/tabletop check --if-recorded"    # reads, never repairs
    assert service["Type"] == "oneshot" and service["Nice"] == "19"
    assert service["IOSchedulingClass"] == "idle"
    assert timer["Timer"]["OnCalendar"] == "*-*-* 04:00:00"
    assert timer["Timer"]["Persistent"] == "false"      # a night missed is never made up at boot
    assert timer["Install"]["WantedBy"] == "timers.target"
    steps = dry_run(ETC="/etc")
    for unit in ("tabletop-check.service", "tabletop-check.timer"):
        assert f"/etc/systemd/user/{unit}" in steps
    enabled = "ln -sfn ../tabletop-check.timer /etc/systemd/user/timers.target.wants/tabletop-check.timer"
    assert enabled in steps
    assert steps.index("/etc/systemd/user/tabletop-check.timer") < steps.index(enabled)


def test_user_unit_starts_the_app_on_xwayland_and_restarts_it_on_failure():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(PI / "tabletop.service")
    service = unit["Service"]
    assert service["ExecStart"] == "@PREFIX@/venv/bin/tabletop run --screen"
    assert service["Restart"] == "on-failure"
    # Exit 75 (a camera that cannot heal) is a failure to restart from, never a success.
    assert "75" in service["RestartForceExitStatus"].split()
    assert "75" not in service.get("SuccessExitStatus", "").split()
    environment = (PI / "tabletop.service").read_text()
    # The camera and the buttons are the user's to choose in config.toml (a variable would win).
    assert "Environment=TABLETOP_CAMERA" not in environment
    assert "Environment=TABLETOP_CONTROLS" not in environment
    for setting in ("SDL_VIDEODRIVER=x11", "KIVY_NO_ARGS=1"):
        assert f"\nEnvironment={setting}\n" in environment
    assert int(service["TimeoutStopSec"]) >= 10
    # A user manager cannot switch users or groups, and has no graphical.target.
    for system_only in ("User", "Group", "SupplementaryGroups"):
        assert system_only not in service
    assert "Install" not in unit and "graphical.target" not in environment.split("[Unit]")[1]


def test_the_session_launcher_hands_the_display_over_then_restarts_the_app(tmp_path):
    calls = tmp_path / "calls"
    path = shims(tmp_path / "bin", systemctl=f'echo "$* DISPLAY=$DISPLAY" >> {calls}\n')
    done = subprocess.run(["sh", str(PI / "tabletop-session")], capture_output=True, text=True,
                          env={"PATH": path, "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"})
    assert done.returncode == 0, done.stderr
    assert calls.read_text().splitlines() == [
        "--user import-environment DISPLAY WAYLAND_DISPLAY XDG_RUNTIME_DIR XAUTHORITY DISPLAY=:0",
        "--user restart tabletop.service DISPLAY=:0"]


def test_udev_rules_cover_the_printer_the_panel_gpio_and_the_backlight():
    lines = [line for line in (PI / "99-tabletop.rules").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    for line in lines:
        for pair in line.split(", "):
            assert "==" in pair or "=" in pair or "+=" in pair, line
    text = "\n".join(lines)
    assert 'KERNEL=="ttyUSB[0-9]*", GROUP="dialout"' in text
    assert 'SYMLINK+="tabletop-panel"' in text
    assert 'KERNEL=="gpiochip[0-9]*", GROUP="gpio"' in text
    # A vendor id cannot tell a printer's USB-serial chip from an Arduino clone's.
    assert "tabletop-printer" not in text
    backlight = next(line for line in lines if 'SUBSYSTEM=="backlight"' in line)
    assert 'RUN+="/usr/bin/chgrp video /sys%p/brightness"' in backlight
    assert 'RUN+="/usr/bin/chmod g+w /sys%p/brightness"' in backlight
    assert 'ACTION=="add"' not in backlight   # udevadm trigger sends "change"


def test_install_names_the_printer_and_panel_by_their_serial_numbers():
    steps = dry_run(PRINTER_SERIAL="1a86_USB_Serial_A1", PANEL_SERIAL="Arduino_B2")
    assert ('ENV{ID_SERIAL}=="1a86_USB_Serial_A1", GROUP="dialout", MODE="0660", '
            'SYMLINK+="tabletop-printer"') in steps
    assert 'ENV{ID_SERIAL}=="Arduino_B2"' in steps and 'SYMLINK+="tabletop-panel"' in steps


def test_sudoers_is_checked_before_it_is_put_in_place():
    steps = dry_run(ETC="/etc")
    checked = "/tmp/tabletop-install.XXXXXX/tabletop.sudoers"
    assert steps.index(f"visudo -cf {checked}") < steps.index(
        f"install -m 0440 -o root -g root {checked} /etc/sudoers.d/.tabletop.new && "
        f"mv -f /etc/sudoers.d/.tabletop.new /etc/sudoers.d/tabletop")
    assert (PI / "tabletop.sudoers").read_text().splitlines()[-1] == \
        "@USER@ ALL=(root) NOPASSWD: /usr/bin/systemctl poweroff"


def test_install_refuses_a_desktop_user_or_prefix_that_is_not_a_plain_name():
    for variable, value in (("DESKTOP_USER", "x ALL=(ALL) NOPASSWD: ALL #"),
                            ("PREFIX", "opt/relative"), ("PREFIX", "/opt/../etc")):
        done = install(**{"DESKTOP_USER": "pi", variable: value})
        assert done.returncode == 1 and variable in done.stderr, (value, done.stderr)
        assert done.stdout == ""


NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@settings(max_examples=25, deadline=None)
@given(user=st.one_of(NAMES, st.from_regex(r"[a-z_][a-z0-9_-]{0,31}", fullmatch=True)),
       prefix=st.one_of(NAMES, st.from_regex(r"(/[A-Za-z0-9._-]{1,8}){1,3}", fullmatch=True)))
def test_install_takes_only_plain_names_into_sudoers_and_the_unit(user, prefix):
    """Whatever DESKTOP_USER and PREFIX say: a clean one-line refusal naming the variable, or a
    name that cannot break out of the sudoers line, the unit or sed (dry run: nothing is done)."""
    done = install(DESKTOP_USER=user, PREFIX=prefix)
    prefix = prefix or "/opt/tabletop"   # empty: the default
    plain_user = re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", user) and user != "root"
    plain_prefix = re.fullmatch(r"(/[A-Za-z0-9._-]+)+", prefix) and not re.search(
        r"/\.\.?(/|$)", prefix)
    if plain_user and plain_prefix:
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith("install-pi.sh: ") and done.stderr.count("\n") == 1
        assert ("DESKTOP_USER=" if not plain_user else "PREFIX=") in done.stderr


def autostart(config: Path, system: Path, merges: str = "yes", template: str = "",
              launcher: str = "/opt/tt/bin/tabletop-session") -> str:
    """autostart.sh as this (unprivileged, for the test) user, as install-pi.sh runs it."""
    done = subprocess.run(["bash", str(PI / "autostart.sh"), str(config), launcher, str(system),
                           merges, template], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


LABWC_SYSTEM = ("/usr/bin/lwrespawn /usr/bin/pcmanfm --desktop --profile LXDE-pi &\n"
                "/usr/bin/lwrespawn /usr/bin/wf-panel-pi &\n/usr/bin/kanshi &\n"
                "/usr/bin/lxsession-xdg-autostart\n")
LAUNCH = "/opt/tt/bin/tabletop-session &  # the table app (tabletop's hardware/pi/install-pi.sh)"


def test_labwc_with_merged_configs_gets_one_line_and_a_second_run_changes_nothing(tmp_path):
    system = tmp_path / "xdg-autostart"
    system.write_text(LABWC_SYSTEM)
    config = tmp_path / "config"
    autostart(config, system, merges="yes")
    user_file = config / "labwc" / "autostart"
    # labwc -m runs the system file too: copying it would start a second panel.
    assert user_file.read_text() == LAUNCH + "\n"
    assert "already starts the app" in autostart(config, system, merges="yes")
    assert user_file.read_text() == LAUNCH + "\n"


def test_labwc_reading_one_file_keeps_the_desktops_own_lines(tmp_path):
    system = tmp_path / "xdg-autostart"
    system.write_text(LABWC_SYSTEM)
    config = tmp_path / "config"
    autostart(config, system, merges="no")
    assert (config / "labwc" / "autostart").read_text() == LABWC_SYSTEM + LAUNCH + "\n"
    # A user's own file (it already replaced the system one) is kept as it is, plus the line.
    mine = tmp_path / "mine"
    (mine / "labwc").mkdir(parents=True)
    (mine / "labwc" / "autostart").write_text("swaybg -i ~/table.png &")   # no final newline
    autostart(mine, system, merges="no")
    assert (mine / "labwc" / "autostart").read_text() == "swaybg -i ~/table.png &\n" + LAUNCH + "\n"


def test_an_older_installs_line_is_replaced_not_doubled_and_links_are_written_through(tmp_path):
    config = tmp_path / "config"
    (config / "labwc").mkdir(parents=True)
    dotfile = tmp_path / "dotfiles-autostart"
    dotfile.write_text("kanshi &\n/opt/old/bin/tabletop-session &  # the table app\n")
    (config / "labwc" / "autostart").symlink_to(dotfile)
    autostart(config, tmp_path / "none", merges="no")
    assert (config / "labwc" / "autostart").is_symlink()   # the user's own link, kept
    assert dotfile.read_text() == "kanshi &\n" + LAUNCH + "\n"


def test_wayfire_gets_an_autostart_entry_once_in_a_file_begun_from_the_template(tmp_path):
    template = tmp_path / "template.ini"
    template.write_text("[command]\nbinding_terminal = <ctrl> <alt> KEY_T\n\n[input]\nxkb_layout = gb\n")
    config = tmp_path / "config"
    config.mkdir()
    autostart(config, tmp_path / "none", template=str(template))
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(config / "wayfire.ini")
    assert ini["autostart"]["tabletop"] == "/opt/tt/bin/tabletop-session"
    assert ini["input"]["xkb_layout"] == "gb"   # the template's settings stay
    first = (config / "wayfire.ini").read_text()
    autostart(config, tmp_path / "none", template=str(template))
    assert (config / "wayfire.ini").read_text() == first
    # An [autostart] of the user's own gets the line inside it; an older install's goes.
    (config / "wayfire.ini").write_text("[autostart]\nclock = foot\ntabletop = /opt/old/bin/tabletop-session\n"
                                        "\n[idle]\ndpms_timeout = -1\n")
    autostart(config, tmp_path / "none", template=str(template),
              launcher="/opt/new/bin/tabletop-session")
    assert (config / "wayfire.ini").read_text() == (
        "[autostart]\ntabletop = /opt/new/bin/tabletop-session\nclock = foot\n\n[idle]\ndpms_timeout = -1\n")
    # No wayfire on this Pi (no template given): no wayfire.ini is made.
    bare = tmp_path / "bare"
    autostart(bare, tmp_path / "none")
    assert not (bare / "wayfire.ini").exists()


def test_shutdown_closes_the_game_before_the_power_goes(tmp_path):
    journal = tmp_path / "journal-closed"
    powered_off = tmp_path / "powered-off"
    # The "power-off" only happens if the journal was closed before it ran.
    power_off = (f"import pathlib, sys\n"
                 f"if not pathlib.Path({str(journal)!r}).exists(): sys.exit(3)\n"
                 f"pathlib.Path({str(powered_off)!r}).touch()\n")
    status = safe_shutdown(lambda: journal.write_text("closed"),
                           command=[sys.executable, "-c", power_off])
    assert status.ok, status.message
    assert powered_off.exists()


def test_shutdown_keeps_the_power_on_when_closing_fails(tmp_path):
    powered_off = tmp_path / "powered-off"

    def fail():
        raise OSError("disk full")

    status = safe_shutdown(fail, command=["touch", str(powered_off)])
    assert not status.ok and "disk full" in status.message
    assert not powered_off.exists()


def test_shutdown_reports_a_refused_power_off():
    status = safe_shutdown(lambda: None, command=["false"])
    assert status.state == "fault" and "power-off failed" in status.message


def test_wiring_table_matches_the_default_pins():
    from hardware.controls import CONFIRM, DEFAULT_PINS, NEXT, UNDO
    wiring = (PI / "WIRING.md").read_text()
    for part, key in (("CONFIRM button", CONFIRM), ("UNDO button", UNDO), ("NEXT button", NEXT),
                      ("status LED", "LED"), ("buzzer (optional)", "BUZZER")):
        row = next(line for line in wiring.splitlines() if line.startswith(f"| {part} |"))
        assert f"| GPIO{DEFAULT_PINS[key]} |" in row, row
