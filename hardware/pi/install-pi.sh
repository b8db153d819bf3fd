#!/usr/bin/env bash
# Install tabletop on a Raspberry Pi (Raspberry Pi OS bookworm, 64-bit) from this checkout.
#
#   sudo hardware/pi/install-pi.sh            # install, enable and start the service
#   DRY_RUN=1 hardware/pi/install-pi.sh       # print every step instead of doing it
#   sudo PRINTER_SERIAL=... PANEL_SERIAL=... hardware/pi/install-pi.sh
#                                             # also name the printer and panel by serial number
#
# What it does, in order:
#   1. apt packages: picamera2 and libcamera (only packaged for the Pi), lgpio for
#      gpiozero, the SDL and font packages the touchscreen app needs;
#   2. a service user in the video, gpio, dialout, input and render groups;
#   3. a virtual environment made with --system-site-packages, so that the system's
#      picamera2 (and the numpy it was built against) is importable inside it;
#   4. tabletop with its hardware and ui extras, numpy pinned to the system's version
#      so that pip picks an OpenCV wheel built for that numpy;
#   5. the udev rule (printer, panel, GPIO), the sudoers line for a clean power-off,
#      and the systemd unit, enabled at boot.
set -euo pipefail

PREFIX=${PREFIX:-/opt/tabletop}
SERVICE_USER=${SERVICE_USER:-tabletop}
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$SOURCE/hardware/pi"
DRY_RUN=${DRY_RUN:-}

APT_PACKAGES=(
  python3-venv python3-pip python3-numpy
  python3-picamera2 python3-libcamera libcamera-apps-lite
  python3-lgpio
  libsdl2-2.0-0 libsdl2-image-2.0-0 libsdl2-ttf-2.0-0 libmtdev1
  fonts-noto-cjk
)

run() {
  if [ -n "$DRY_RUN" ]; then
    printf '+ %s\n' "$*"
  else
    "$@"
  fi
}

install_file() {  # install_file SOURCE DEST MODE: copy with @USER@ and @PREFIX@ filled in
  if [ -n "$DRY_RUN" ]; then
    printf '+ install %s -> %s (mode %s)\n' "$1" "$2" "$3"
    return
  fi
  sed -e "s|@USER@|$SERVICE_USER|g" -e "s|@PREFIX@|$PREFIX|g" "$1" > "$2"
  chmod "$3" "$2"
}

if [ -z "$DRY_RUN" ] && [ "$(id -u)" -ne 0 ]; then
  echo "install-pi.sh: run it with sudo (or DRY_RUN=1 to see the steps)" >&2
  exit 1
fi

echo "== 1. system packages"
run apt-get update
run apt-get install -y "${APT_PACKAGES[@]}"

echo "== 2. service user $SERVICE_USER"
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  run useradd --system --create-home --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in video gpio dialout input render lp; do
  if getent group "$group" >/dev/null 2>&1; then
    run usermod -aG "$group" "$SERVICE_USER"
  fi
done

echo "== 3. virtual environment in $PREFIX/venv (with the system's site packages)"
run mkdir -p "$PREFIX"
run python3 -m venv --system-site-packages "$PREFIX/venv"

echo "== 4. tabletop, with numpy held at the system's version"
SYSTEM_NUMPY=$(python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo "")
CONSTRAINTS="$PREFIX/constraints.txt"
if [ -n "$SYSTEM_NUMPY" ]; then
  if [ -n "$DRY_RUN" ]; then
    printf '+ echo numpy==%s > %s\n' "$SYSTEM_NUMPY" "$CONSTRAINTS"
  else
    echo "numpy==$SYSTEM_NUMPY" > "$CONSTRAINTS"
  fi
  PIN=(--constraint "$CONSTRAINTS")
else
  PIN=()
fi
run "$PREFIX/venv/bin/pip" install --upgrade pip
run "$PREFIX/venv/bin/pip" install "${PIN[@]}" "$SOURCE[hardware,ui]"
run "$PREFIX/venv/bin/python" -c "import cv2, numpy, gpiozero, serial; print('OpenCV', cv2.__version__, 'numpy', numpy.__version__)"

echo "== 5. udev rule, power-off permission, systemd unit"
install_file "$HERE/99-tabletop.rules" /etc/udev/rules.d/99-tabletop.rules 0644
local_rule() {  # local_rule SERIAL NAME: a stable /dev/NAME for the device with that serial
  printf 'SUBSYSTEM=="tty", ENV{ID_SERIAL}=="%s", GROUP="dialout", MODE="0660", SYMLINK+="%s"\n' "$1" "$2"
}
if [ -n "${PRINTER_SERIAL:-}${PANEL_SERIAL:-}" ]; then
  rules=""
  [ -n "${PRINTER_SERIAL:-}" ] && rules+=$(local_rule "$PRINTER_SERIAL" tabletop-printer)$'\n'
  [ -n "${PANEL_SERIAL:-}" ] && rules+=$(local_rule "$PANEL_SERIAL" tabletop-panel)$'\n'
  if [ -n "$DRY_RUN" ]; then
    printf '+ write /etc/udev/rules.d/98-tabletop-local.rules:\n%s' "$rules"
  else
    printf '%s' "$rules" > /etc/udev/rules.d/98-tabletop-local.rules
  fi
fi
# A broken sudoers file would lock sudo: check a copy before putting it in place.
install_file "$HERE/tabletop.sudoers" "$PREFIX/tabletop.sudoers" 0440
run visudo -cf "$PREFIX/tabletop.sudoers"
run install -m 0440 "$PREFIX/tabletop.sudoers" /etc/sudoers.d/tabletop
run udevadm control --reload-rules
run udevadm trigger
install_file "$HERE/tabletop.service" /etc/systemd/system/tabletop.service 0644
run chown -R "$SERVICE_USER:$SERVICE_USER" "$PREFIX"
run systemctl daemon-reload
run systemctl enable --now tabletop.service

echo "Done. Logs: journalctl -u tabletop -f"
