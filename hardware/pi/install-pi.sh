#!/usr/bin/env bash
# Install tabletop on a Raspberry Pi (Raspberry Pi OS bookworm, 64-bit) from this checkout.
#
#   sudo hardware/pi/install-pi.sh            # install (or upgrade), enable and (re)start the service
#   DRY_RUN=1 hardware/pi/install-pi.sh       # print every step instead of doing it
#   sudo PRINTER_SERIAL=... PANEL_SERIAL=... hardware/pi/install-pi.sh
#                                             # also name the printer and panel by serial number
#
# What it does, in order:
#   1. apt packages: picamera2 and libcamera (only packaged for the Pi), lgpio for
#      gpiozero, the SDL and font packages the touchscreen app needs;
#   2. a service user in the video, gpio, dialout, input and render groups, with its
#      data and configuration folders (the only things of the install it may write);
#   3. a virtual environment made with --system-site-packages, so that the system's
#      picamera2 (and the numpy it was built against) is importable inside it;
#   4. tabletop with its hardware and ui extras, numpy pinned to the system's version
#      so that pip picks an OpenCV wheel built for that numpy;
#   5. the udev rule (printer, panel, GPIO), the sudoers line for a clean power-off,
#      and the systemd unit, enabled at boot and restarted so an upgrade takes effect.
#
# Who owns what: this script runs as root and runs $PREFIX/venv/bin/python again on
# every upgrade, so $PREFIX (the venv and the installed code) stays root's and read-only
# to the service user; a venv the service user could have changed (an older install gave
# it $PREFIX) is set aside and made anew, never run. Files for root (the constraints, the
# sudoers line) are written in a root-only temporary folder, never in a folder of the
# service user's, and the build reads a root-owned copy of the checkout.
set -euo pipefail
umask 022

PREFIX=${PREFIX:-/opt/tabletop}
SERVICE_USER=${SERVICE_USER:-tabletop}
# Where the udev rule, the sudoers line and the unit go: /etc, but for a test's sandbox.
ETC=${ETC:-/etc}
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$SOURCE/hardware/pi"
DRY_RUN=${DRY_RUN:-}
# What the build needs of the checkout (pyproject.toml's packages): copied, never built in place.
SOURCE_PARTS=(pyproject.toml README.md tabletop hardware calibration ui)

APT_PACKAGES=(
  python3-venv python3-pip python3-numpy
  python3-picamera2 python3-libcamera libcamera-apps-lite
  python3-lgpio
  libsdl2-2.0-0 libsdl2-image-2.0-0 libsdl2-ttf-2.0-0 libmtdev1
  fonts-noto-cjk
  alsa-utils espeak-ng
)

die() {
  echo "install-pi.sh: $*" >&2
  exit 1
}

run() {
  if [ -n "$DRY_RUN" ]; then
    printf '+ %s\n' "$*"
  else
    "$@"
  fi
}

# The names go into sudoers, a unit and sed: refuse anything but a plain name and path
# (quoted with %q in the message, so a line break in one cannot forge a second line).
[[ "$SERVICE_USER" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] ||
  die "SERVICE_USER=$(printf '%q' "$SERVICE_USER"): use a plain user name (lower-case letters, digits, _ or -)"
[[ "$PREFIX" =~ ^(/[A-Za-z0-9._-]+)+$ && "$PREFIX" != */. && "$PREFIX" != */.. && "$PREFIX" != */../* ]] ||
  die "PREFIX=$(printf '%q' "$PREFIX"): use an absolute folder path of letters, digits, '.', '_' and '-'"

if [ -z "$DRY_RUN" ] && [ "$(id -u)" -ne 0 ]; then
  die "run it with sudo (or DRY_RUN=1 to see the steps)"
fi

# A folder only root can enter, for every file root writes and then uses.
if [ -n "$DRY_RUN" ]; then
  WORK=/tmp/tabletop-install.XXXXXX
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/tabletop-install.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  # Python puts the current folder on its path (venv's own ensurepip run does): make it root's.
  cd "$WORK"
fi

render() {  # render SOURCE NAME: $WORK/NAME, with @USER@ and @PREFIX@ filled in
  if [ -z "$DRY_RUN" ]; then
    sed -e "s|@USER@|$SERVICE_USER|g" -e "s|@PREFIX@|$PREFIX|g" "$1" > "$WORK/$2"
  fi
}

put() {  # put FILE DEST MODE: root's, in place in one rename (never half written)
  local next
  next="$(dirname "$2")/.$(basename "$2").new"  # a dotted name: sudo, udev, systemd skip it
  if [ -n "$DRY_RUN" ]; then
    printf '+ install -m %s -o root -g root %s %s && mv -f %s %s\n' "$3" "$1" "$next" "$next" "$2"
    return
  fi
  install -m "$3" -o root -g root "$1" "$next"
  mv -f "$next" "$2"
}

service_user_can_change() {  # service_user_can_change PATH: PATH or a folder above it
  local path=$1 uid
  uid=$(id -u "$SERVICE_USER")
  while :; do
    if [ -e "$path" ] || [ -L "$path" ]; then
      [ "$(stat -c %u "$path")" = "$uid" ] && return 0
      # In a sticky folder (/tmp) others can add entries but not move this one.
      if [ -d "$path" ] && [ ! -k "$path" ] && runuser -u "$SERVICE_USER" -- test -w "$path"; then
        return 0
      fi
    fi
    [ "$path" = / ] && return 1
    path=$(dirname "$path")
  done
}

check_source() {  # root builds from the checkout: the service user must not be able to change it
  if [ -n "$DRY_RUN" ]; then
    printf '+ check that %s cannot change %s\n' "$SERVICE_USER" "$SOURCE"
    return
  fi
  local found
  found=$(runuser -u "$SERVICE_USER" -- find "$SOURCE" \( -writable -o -user "$SERVICE_USER" \) \
            -print -quit 2>/dev/null || true)
  if [ -n "$found" ] || service_user_can_change "$SOURCE"; then
    die "$SERVICE_USER can change ${found:-$SOURCE}, and root would build it:" \
        "install from a checkout only an administrator can write (git clone it into your own home)"
  fi
}

claim_prefix() {  # $PREFIX becomes root's; a venv that was not is set aside, not run
  if [ -n "$DRY_RUN" ]; then
    printf '+ install -d -o root -g root -m 0755 %s (a venv %s could change is made anew)\n' \
      "$PREFIX" "$SERVICE_USER"
    return
  fi
  if [ -L "$PREFIX" ] || { [ -e "$PREFIX" ] && [ ! -d "$PREFIX" ]; }; then
    die "PREFIX=$PREFIX is not a folder: give the real folder"
  fi
  service_user_can_change "$(dirname "$PREFIX")" &&
    die "$SERVICE_USER can change a folder above PREFIX=$PREFIX: choose a PREFIX only root can write"
  if [ -d "$PREFIX" ]; then
    local extra
    extra=$(find "$PREFIX" -mindepth 1 -maxdepth 1 ! -name venv ! -name constraints.txt \
              ! -name tabletop.sudoers -print -quit)
    [ -z "$extra" ] ||
      die "$PREFIX holds $extra, which this installer did not make: move it, or choose another PREFIX"
  fi
  install -d -o root -g root -m 0755 "$PREFIX"
  local untrusted
  untrusted=$(find "$PREFIX" -mindepth 1 ! -type l \( ! -user 0 -o -perm /022 \) -print -quit)
  if [ -n "$untrusted" ]; then
    echo "   $SERVICE_USER could change $untrusted: setting the old install aside, making it anew"
    local old
    old=$(mktemp -d "$(dirname "$PREFIX")/.tabletop-old.XXXXXX")
    find "$PREFIX" -mindepth 1 -maxdepth 1 -exec mv -t "$old" {} +
    rm -rf "$old" ||
      echo "   could not remove $old (a process of $SERVICE_USER writes there): remove it later" >&2
  fi
}

user_folders() {  # the data and configuration folders, made by the service user itself
  local home
  home=$(getent passwd "$SERVICE_USER" | cut -d: -f6 || true)
  [ -n "$home" ] || [ -z "$DRY_RUN" ] || home="/home/$SERVICE_USER"
  [ -n "$home" ] || die "$SERVICE_USER has no home folder: give it one (usermod --home ... --move-home)"
  # As the user, not root: its home is its own, and root must not follow its links.
  run runuser -u "$SERVICE_USER" -- mkdir -p "$home/.local/share/tabletop" "$home/.config/tabletop"
  run runuser -u "$SERVICE_USER" -- chmod 0700 "$home/.local/share/tabletop"
}

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
user_folders

echo "== 3. virtual environment in $PREFIX/venv (with the system's site packages), root's"
check_source
claim_prefix
run python3 -I -m venv --system-site-packages "$PREFIX/venv"

echo "== 4. tabletop, with numpy held at the system's version"
SYSTEM_NUMPY=$(python3 -I -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo "")
CONSTRAINTS="$WORK/constraints.txt"
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
if [ -n "$DRY_RUN" ]; then
  printf '+ cp -R %s (%s) %s/src\n' "$SOURCE" "${SOURCE_PARTS[*]}" "$WORK"
else
  mkdir "$WORK/src"
  for part in "${SOURCE_PARTS[@]}"; do
    if [ -e "$SOURCE/$part" ]; then cp -R "$SOURCE/$part" "$WORK/src/"; fi
  done
fi
# -I: nothing from the environment or a user's site folder joins root's Python.
run "$PREFIX/venv/bin/python" -I -m pip install --upgrade pip
run "$PREFIX/venv/bin/python" -I -m pip install "${PIN[@]}" "$WORK/src[hardware,ui]"
run "$PREFIX/venv/bin/python" -I -c "import cv2, numpy, gpiozero, serial; print('OpenCV', cv2.__version__, 'numpy', numpy.__version__)"
# Whatever pip made, and whatever an old install left: root's, and no one else's to write.
run chown -R root:root "$PREFIX"
run chmod -R go-w "$PREFIX"

echo "== 5. udev rule, power-off permission, systemd unit"
render "$HERE/99-tabletop.rules" 99-tabletop.rules
put "$WORK/99-tabletop.rules" "$ETC/udev/rules.d/99-tabletop.rules" 0644
local_rule() {  # local_rule SERIAL NAME: a stable /dev/NAME for the device with that serial
  printf 'SUBSYSTEM=="tty", ENV{ID_SERIAL}=="%s", GROUP="dialout", MODE="0660", SYMLINK+="%s"\n' "$1" "$2"
}
if [ -n "${PRINTER_SERIAL:-}${PANEL_SERIAL:-}" ]; then
  rules=""
  [ -n "${PRINTER_SERIAL:-}" ] && rules+=$(local_rule "$PRINTER_SERIAL" tabletop-printer)$'\n'
  [ -n "${PANEL_SERIAL:-}" ] && rules+=$(local_rule "$PANEL_SERIAL" tabletop-panel)$'\n'
  if [ -n "$DRY_RUN" ]; then
    printf '+ write %s/udev/rules.d/98-tabletop-local.rules:\n%s' "$ETC" "$rules"
  else
    printf '%s' "$rules" > "$WORK/98-tabletop-local.rules"
  fi
  put "$WORK/98-tabletop-local.rules" "$ETC/udev/rules.d/98-tabletop-local.rules" 0644
fi
# A broken sudoers file would lock sudo: check the copy that goes in place, in root's folder.
render "$HERE/tabletop.sudoers" tabletop.sudoers
run chmod 0440 "$WORK/tabletop.sudoers"
run visudo -cf "$WORK/tabletop.sudoers"
put "$WORK/tabletop.sudoers" "$ETC/sudoers.d/tabletop" 0440
run udevadm control --reload-rules
run udevadm trigger
render "$HERE/tabletop.service" tabletop.service
put "$WORK/tabletop.service" "$ETC/systemd/system/tabletop.service" 0644
run systemctl daemon-reload
run systemctl enable tabletop.service
# restart, not start: a running service would keep the old code after an upgrade.
run systemctl restart tabletop.service

echo "Done. Logs: journalctl -u tabletop -f"
