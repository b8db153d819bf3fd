"""The Raspberry Pi install files: the script's steps, the unit, the udev rule, power-off."""

from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

from hardware.power import safe_shutdown

PI = Path(__file__).resolve().parents[2] / "hardware" / "pi"


def dry_run() -> str:
    env = {**os.environ, "DRY_RUN": "1", "PREFIX": "/opt/tt", "SERVICE_USER": "tabletop"}
    done = subprocess.run(["bash", str(PI / "install-pi.sh")], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_install_script_is_valid_bash():
    assert subprocess.run(["bash", "-n", str(PI / "install-pi.sh")]).returncode == 0


def test_install_puts_picamera2_inside_a_venv_that_sees_the_system_packages():
    steps = dry_run()
    assert "python3-picamera2" in steps
    assert "python3 -I -m venv --system-site-packages /opt/tt/venv" in steps
    order = [steps.index(s) for s in ("apt-get install", "venv --system-site-packages",
                                      "pip install --constraint", "systemctl enable tabletop",
                                      "systemctl restart tabletop")]
    assert order == sorted(order)


def test_install_holds_numpy_at_the_systems_version_for_the_opencv_wheel():
    import numpy
    steps = dry_run()
    assert f"numpy=={numpy.__version__}" in steps
    # Written in root's temporary folder, not in $PREFIX (see test_pi_privilege.py).
    assert "--constraint /tmp/tabletop-install.XXXXXX/constraints.txt" in steps
    assert "/tmp/tabletop-install.XXXXXX/src[hardware,ui]" in steps


def test_install_refuses_to_run_without_root_unless_dry():
    if os.geteuid() == 0:
        return  # CI runs as root; the refusal is for a user who forgot sudo
    done = subprocess.run(["bash", str(PI / "install-pi.sh")], capture_output=True, text=True)
    assert done.returncode == 1 and "sudo" in done.stderr


def test_service_starts_the_app_at_boot_and_restarts_it_on_failure():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(PI / "tabletop.service")
    service = unit["Service"]
    assert service["ExecStart"] == "@PREFIX@/venv/bin/tabletop run --screen"
    assert service["Restart"] == "on-failure"
    assert "gpio" in service["SupplementaryGroups"] and "dialout" in service["SupplementaryGroups"]
    assert unit["Install"]["WantedBy"] == "graphical.target"


def test_udev_rules_cover_the_printer_the_panel_and_gpio():
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


def test_install_names_the_printer_and_panel_by_their_serial_numbers():
    env = {**os.environ, "DRY_RUN": "1", "PREFIX": "/opt/tt",
           "PRINTER_SERIAL": "1a86_USB_Serial_A1", "PANEL_SERIAL": "Arduino_B2"}
    steps = subprocess.run(["bash", str(PI / "install-pi.sh")], capture_output=True, text=True,
                           env=env, timeout=60).stdout
    assert ('ENV{ID_SERIAL}=="1a86_USB_Serial_A1", GROUP="dialout", MODE="0660", '
            'SYMLINK+="tabletop-printer"') in steps
    assert 'ENV{ID_SERIAL}=="Arduino_B2"' in steps and 'SYMLINK+="tabletop-panel"' in steps


def test_sudoers_is_checked_before_it_is_put_in_place():
    steps = dry_run()
    checked = "/tmp/tabletop-install.XXXXXX/tabletop.sudoers"
    assert steps.index(f"visudo -cf {checked}") < steps.index(
        f"install -m 0440 -o root -g root {checked} /etc/sudoers.d/.tabletop.new && "
        f"mv -f /etc/sudoers.d/.tabletop.new /etc/sudoers.d/tabletop")


def test_install_refuses_a_service_user_or_prefix_that_is_not_a_plain_name():
    for variable, value in (("SERVICE_USER", "x ALL=(ALL) NOPASSWD: ALL #"),
                            ("PREFIX", "opt/relative"), ("PREFIX", "/opt/../etc")):
        env = {**os.environ, "DRY_RUN": "1", "PREFIX": "/opt/tt", variable: value}
        done = subprocess.run(["bash", str(PI / "install-pi.sh")], capture_output=True,
                              text=True, env=env, timeout=60)
        assert done.returncode == 1 and variable in done.stderr, (value, done.stderr)
        assert done.stdout == ""


NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@settings(max_examples=25, deadline=None)
@given(user=st.one_of(NAMES, st.from_regex(r"[a-z_][a-z0-9_-]{0,31}", fullmatch=True)),
       prefix=st.one_of(NAMES, st.from_regex(r"(/[A-Za-z0-9._-]{1,8}){1,3}", fullmatch=True)))
def test_install_takes_only_plain_names_into_sudoers_and_the_unit(user, prefix):
    """Whatever SERVICE_USER and PREFIX say: a clean refusal naming the variable, or a name
    that cannot break out of the sudoers line, the unit or sed (dry run: nothing is done)."""
    env = {**os.environ, "DRY_RUN": "1", "SERVICE_USER": user, "PREFIX": prefix}
    user, prefix = user or "tabletop", prefix or "/opt/tabletop"   # empty: the defaults
    done = subprocess.run(["bash", str(PI / "install-pi.sh")], capture_output=True,
                          env=env, timeout=60)
    plain_user = re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", user)
    plain_prefix = re.fullmatch(r"(/[A-Za-z0-9._-]+)+", prefix) and not re.search(
        r"/\.\.?(/|$)", prefix)
    if plain_user and plain_prefix:
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode == 1 and done.stdout == b""
        error = done.stderr.decode(errors="replace")
        assert error.startswith("install-pi.sh: ") and error.count("\n") == 1
        assert ("SERVICE_USER=" if not plain_user else "PREFIX=") in error


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
