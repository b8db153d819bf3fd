#!/usr/bin/env bash
# Install tabletop on a Raspberry Pi (Raspberry Pi OS bookworm, 64-bit, desktop) from this checkout.
#
#   sudo hardware/pi/install-pi.sh            # install (or upgrade) for the user who runs sudo
#   DRY_RUN=1 DESKTOP_USER=pi hardware/pi/install-pi.sh
#                                             # print every step instead of doing it
#   sudo DESKTOP_USER=pi PRINTER_SERIAL=... PANEL_SERIAL=... hardware/pi/install-pi.sh
#                                             # name the desktop's user, the printer and the panel
#
# The app runs as the DESKTOP USER, the one Raspberry Pi OS logs in on the touchscreen: it is
# DESKTOP_USER, else the user who ran sudo, else lightdm's autologin-user (never root).
#
# What it does, in order:
#   1. apt packages: picamera2 and libcamera (only packaged for the Pi), lgpio for gpiozero,
#      fonts, sound (Kivy's wheel bundles its own SDL2: no SDL packages);
#   2. the desktop user in the video, gpio, dialout, lp and render groups, with its data and
#      configuration folders; an older install's system service is disabled and removed;
#   3. a virtual environment made with --system-site-packages, so that the system's
#      picamera2 (and the numpy it was built against) is importable inside it;
#   4. tabletop with its hardware and ui extras, numpy pinned to the system's version (and
#      OpenCV to a release built for that numpy, so pip does not try them all);
#   5. the udev rule (printer, panel, GPIO, backlight), the sudoers line for a clean power-off,
#      the systemd user unit and its launcher, the desktop's autostart, screen blanking off.
#
# Who owns what: this script runs as root and runs $PREFIX/venv/bin/python again on every
# upgrade, so $PREFIX (the venv, the installed code, the launcher) stays root's and read-only
# to the desktop user; a venv someone else could have changed is set aside and made anew, never
# run. Files for root (the constraints, the sudoers line) are written in a root-only temporary
# folder, and the build reads a root-owned copy of the checkout. In the desktop user's home
# root writes nothing: what goes there is written by that user (runuser), so a link in it
# cannot lead root's writes anywhere.
set -euo pipefail
umask 022

PREFIX=${PREFIX:-/opt/tabletop}
# Where the udev rule, sudoers line, unit and desktop files are: /etc, but for a test's sandbox.
ETC=${ETC:-/etc}
# Where a logged-in user's runtime folder is (its systemd manager's socket): /run/user, likewise.
RUNTIME_ROOT=${RUNTIME_ROOT:-/run/user}
# The wrapper Raspberry Pi OS's labwc session starts labwc with (it passes -m), likewise.
LABWC_SESSION=${LABWC_SESSION:-/usr/bin/labwc-pi}
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$SOURCE/hardware/pi"
DRY_RUN=${DRY_RUN:-}
# What the build needs of the checkout (pyproject.toml's packages): copied, never built in place.
SOURCE_PARTS=(pyproject.toml README.md tabletop hardware calibration ui)

APT_PACKAGES=(
  python3-venv python3-pip python3-numpy
  python3-picamera2 python3-libcamera
  python3-lgpio
  fonts-noto-cjk
  alsa-utils espeak-ng
  xclip   # Kivy's clipboard on X (XWayland): without it Kivy logs a CRITICAL line at start
)
# The camera's command-line tools (rpicam-hello, for the acceptance checks): renamed from
# libcamera-apps-lite on bookworm; whichever apt knows.
CAMERA_APPS=(rpicam-apps-lite libcamera-apps-lite)
# video: camera, backlight; gpio: buttons; dialout: serial printer and panel; lp: USB printer;
# render: the GPU. Not input: the app takes SDL's pointer events, not the touch device itself.
DESKTOP_GROUPS=(video gpio dialout lp render)
# An install before the app ran in the desktop session ran it as this system user.
OLD_SERVICE_USER=tabletop

die() {
  echo "install-pi.sh: $*" >&2
  exit 1
}

warn() {
  echo "install-pi.sh: warning: $*" >&2
}

run() {
  if [ -n "$DRY_RUN" ]; then
    printf '+ %s\n' "$*"
  else
    "$@"
  fi
}

autologin_user() {  # the user lightdm logs in on the screen by itself (raspi-config's setting)
  local conf="$ETC/lightdm/lightdm.conf"
  [ -r "$conf" ] || return 0
  sed -n 's/^autologin-user=\(.*\)$/\1/p' "$conf" | tail -n 1 | tr -d '[:space:]'
}

AUTOLOGIN=$(autologin_user)
if [ -z "${DESKTOP_USER:-}" ]; then
  if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    DESKTOP_USER=$SUDO_USER
  elif [ -n "$AUTOLOGIN" ]; then
    DESKTOP_USER=$AUTOLOGIN
  else
    die "cannot tell who logs in on the touchscreen (no sudo user, no autologin-user= in" \
        "$ETC/lightdm/lightdm.conf): pass DESKTOP_USER=name, as in sudo DESKTOP_USER=pi $0"
  fi
fi

# The names go into sudoers, a unit and sed: refuse anything but a plain name and path
# (quoted with %q in the message, so a line break in one cannot forge a second line).
[[ "$DESKTOP_USER" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] ||
  die "DESKTOP_USER=$(printf '%q' "$DESKTOP_USER"): use a plain user name (lower-case letters, digits, _ or -)"
[ "$DESKTOP_USER" != root ] ||
  die "DESKTOP_USER=root: the app does not run as root; pass DESKTOP_USER= the user the touchscreen logs in"
[[ "$PREFIX" =~ ^(/[A-Za-z0-9._-]+)+$ && "$PREFIX" != */. && "$PREFIX" != */.. && "$PREFIX" != */../* ]] ||
  die "PREFIX=$(printf '%q' "$PREFIX"): use an absolute folder path of letters, digits, '.', '_' and '-'"

if [ -z "$DRY_RUN" ] && [ "$(id -u)" -ne 0 ]; then
  die "run it with sudo (or DRY_RUN=1 to see the steps)"
fi
if [ -z "$DRY_RUN" ] && ! id -u "$DESKTOP_USER" >/dev/null 2>&1; then
  die "DESKTOP_USER=$DESKTOP_USER: no such user here; pass DESKTOP_USER= the user the touchscreen logs in"
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
    sed -e "s|@USER@|$DESKTOP_USER|g" -e "s|@PREFIX@|$PREFIX|g" "$1" > "$WORK/$2"
  fi
}

put() {  # put FILE DEST MODE: root's, in place in one rename (never half written)
  local next
  next="$(dirname "$2")/.$(basename "$2").new"  # a dotted name: sudo, udev, systemd skip it
  if [ -n "$DRY_RUN" ]; then
    printf '+ install -m %s -o root -g root %s %s && mv -f %s %s\n' "$3" "$1" "$next" "$next" "$2"
    return
  fi
  [ -d "$(dirname "$2")" ] || install -d -o root -g root -m 0755 "$(dirname "$2")"
  install -m "$3" -o root -g root "$1" "$next"
  mv -f "$next" "$2"
}

desktop_user_can_change() {  # desktop_user_can_change PATH: PATH or a folder above it
  local path=$1 uid
  uid=$(id -u "$DESKTOP_USER")
  while :; do
    if [ -e "$path" ] || [ -L "$path" ]; then
      [ "$(stat -c %u "$path")" = "$uid" ] && return 0
      # In a sticky folder (/tmp) others can add entries but not move this one.
      if [ -d "$path" ] && [ ! -k "$path" ] && runuser -u "$DESKTOP_USER" -- test -w "$path"; then
        return 0
      fi
    fi
    [ "$path" = / ] && return 1
    path=$(dirname "$path")
  done
}

check_source() {  # root builds from the checkout: the app's user may change it only if it runs sudo
  if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" = "$DESKTOP_USER" ]; then
    # It runs this very script as root already: its own checkout is no new trust. Root builds
    # a root-owned copy of it, so the build leaves nothing of root's in the checkout.
    echo "   $DESKTOP_USER runs sudo: its checkout $SOURCE is built from a root-owned copy"
    return
  fi
  if [ -n "$DRY_RUN" ]; then
    printf '+ check that %s cannot change %s\n' "$DESKTOP_USER" "$SOURCE"
    return
  fi
  local found
  found=$(runuser -u "$DESKTOP_USER" -- find "$SOURCE" \( -writable -o -user "$DESKTOP_USER" \) \
            -print -quit 2>/dev/null || true)
  if [ -n "$found" ] || desktop_user_can_change "$SOURCE"; then
    die "$DESKTOP_USER can change ${found:-$SOURCE}, and root would build it: run the installer" \
        "as $DESKTOP_USER with sudo, or install from a checkout only an administrator can write"
  fi
}

claim_prefix() {  # $PREFIX becomes root's; a venv that was not is set aside, not run
  if [ -n "$DRY_RUN" ]; then
    printf '+ install -d -o root -g root -m 0755 %s (a venv others could change is made anew)\n' \
      "$PREFIX"
    return
  fi
  if [ -L "$PREFIX" ] || { [ -e "$PREFIX" ] && [ ! -d "$PREFIX" ]; }; then
    die "PREFIX=$PREFIX is not a folder: give the real folder"
  fi
  desktop_user_can_change "$(dirname "$PREFIX")" &&
    die "$DESKTOP_USER can change a folder above PREFIX=$PREFIX: choose a PREFIX only root can write"
  if [ -d "$PREFIX" ]; then
    local extra
    extra=$(find "$PREFIX" -mindepth 1 -maxdepth 1 ! -name venv ! -name bin ! -name constraints.txt \
              ! -name tabletop.sudoers -print -quit)
    [ -z "$extra" ] ||
      die "$PREFIX holds $extra, which this installer did not make: move it, or choose another PREFIX"
  fi
  install -d -o root -g root -m 0755 "$PREFIX"
  local untrusted
  untrusted=$(find "$PREFIX" -mindepth 1 ! -type l \( ! -user 0 -o -perm /022 \) -print -quit)
  if [ -n "$untrusted" ]; then
    local who old
    who=$(stat -c %U "$untrusted")
    [ "$who" != root ] || who="a user other than root"
    echo "   $who could change $untrusted: setting the old install aside, making it anew"
    old=$(mktemp -d "$(dirname "$PREFIX")/.tabletop-old.XXXXXX")
    find "$PREFIX" -mindepth 1 -maxdepth 1 -exec mv -t "$old" {} +
    rm -rf "$old" || warn "could not remove $old (a process still writes there): remove it later"
  fi
}

home_of() {  # home_of USER: its home folder, or nothing
  getent passwd "$1" | cut -d: -f6 || true
}

user_folders() {  # the data and configuration folders, made by the desktop user itself
  HOME_DIR=$(home_of "$DESKTOP_USER")
  [ -n "$HOME_DIR" ] || [ -z "$DRY_RUN" ] || HOME_DIR="/home/$DESKTOP_USER"
  [ -n "$HOME_DIR" ] || die "$DESKTOP_USER has no home folder: give it one (usermod --home ... --move-home)"
  # As the user, not root: its home is its own, and root must not follow its links.
  run runuser -u "$DESKTOP_USER" -- mkdir -p "$HOME_DIR/.local/share/tabletop" "$HOME_DIR/.config/tabletop"
  run runuser -u "$DESKTOP_USER" -- chmod 0700 "$HOME_DIR/.local/share/tabletop"
}

apt_knows() {  # apt_knows NAME...: the first NAME apt has a candidate version of, or nothing
  local name
  for name in "$@"; do
    if apt-cache policy "$name" 2>/dev/null | grep -q '^ *Candidate: [^(]'; then
      echo "$name"
      return 0
    fi
  done
}

retire_old_service() {  # an older install ran the app as a system user, in a system unit
  local unit="$ETC/systemd/system/tabletop.service" old_home
  if [ -e "$unit" ] || [ -L "$unit" ]; then
    echo "   an older install's system service $unit: disabling and removing it" \
         "(the app now runs in $DESKTOP_USER's desktop session)"
    run systemctl disable --now tabletop.service || warn "could not disable the old tabletop.service"
    run rm -f "$unit"
    run systemctl daemon-reload || warn "systemctl daemon-reload failed"
  fi
  old_home=$(home_of "$OLD_SERVICE_USER")
  if [ -n "$old_home" ] && [ "$OLD_SERVICE_USER" != "$DESKTOP_USER" ]; then
    echo "   the old service user $OLD_SERVICE_USER is left as it was: its games and calibration are in"
    echo "   $old_home/.local/share/tabletop, its settings in $old_home/.config/tabletop. To move them"
    echo "   to $DESKTOP_USER (before $DESKTOP_USER's first game), as $DESKTOP_USER:"
    echo "     sudo tar -C $old_home/.local/share -cf - tabletop | tar -C ~/.local/share -xf -"
    echo "     sudo tar -C $old_home/.config -cf - tabletop | tar -C ~/.config -xf -"
    echo "   and when nothing else uses it: sudo deluser --remove-home $OLD_SERVICE_USER"
  fi
}

install_tabletop() {
  SYSTEM_NUMPY=$(python3 -I -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo "")
  local constraints="$WORK/constraints.txt" pins="" pin=()
  if [ -n "$SYSTEM_NUMPY" ]; then
    pins="numpy==$SYSTEM_NUMPY"$'\n'
    # OpenCV 4.12 and later are built for numpy 2: with an older numpy pip would fetch and
    # reject one release after another (about 180 MB) before it reached 4.11.
    if [[ "${SYSTEM_NUMPY%%.*}" =~ ^[0-9]+$ ]] && [ "${SYSTEM_NUMPY%%.*}" -lt 2 ]; then
      pins+="opencv-python-headless<4.12"$'\n'
    fi
    if [ -n "$DRY_RUN" ]; then
      printf '+ write %s:\n%s' "$constraints" "$pins"
    else
      printf '%s' "$pins" > "$constraints"
    fi
    pin=(--constraint "$constraints")
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
  run "$PREFIX/venv/bin/python" -I -m pip install "${pin[@]}" "$WORK/src[hardware,ui]"
  run "$PREFIX/venv/bin/python" -I -c "import cv2, numpy, gpiozero, serial; print('OpenCV', cv2.__version__, 'numpy', numpy.__version__)"
}

device_rules() {  # the udev rule, and one per device named by its serial number
  render "$HERE/99-tabletop.rules" 99-tabletop.rules
  put "$WORK/99-tabletop.rules" "$ETC/udev/rules.d/99-tabletop.rules" 0644
  local rules=""
  [ -n "${PRINTER_SERIAL:-}" ] && rules+=$(local_rule "$PRINTER_SERIAL" tabletop-printer)$'\n'
  [ -n "${PANEL_SERIAL:-}" ] && rules+=$(local_rule "$PANEL_SERIAL" tabletop-panel)$'\n'
  if [ -n "$rules" ]; then
    if [ -n "$DRY_RUN" ]; then
      printf '+ write %s/udev/rules.d/98-tabletop-local.rules:\n%s' "$ETC" "$rules"
    else
      printf '%s' "$rules" > "$WORK/98-tabletop-local.rules"
    fi
    put "$WORK/98-tabletop-local.rules" "$ETC/udev/rules.d/98-tabletop-local.rules" 0644
  fi
  run udevadm control --reload-rules
  # Only the devices the rules name: a live table's other devices are left alone.
  run udevadm trigger --subsystem-match=tty --subsystem-match=usbmisc --subsystem-match=gpio \
    --subsystem-match=bcm2835-gpiomem --subsystem-match=backlight
}

local_rule() {  # local_rule SERIAL NAME: a stable /dev/NAME for the device with that serial
  printf 'SUBSYSTEM=="tty", ENV{ID_SERIAL}=="%s", GROUP="dialout", MODE="0660", SYMLINK+="%s"\n' "$1" "$2"
}

power_off_rule() {  # a broken sudoers file would lock sudo: check the copy that goes in place
  render "$HERE/tabletop.sudoers" tabletop.sudoers
  run chmod 0440 "$WORK/tabletop.sudoers"
  run visudo -cf "$WORK/tabletop.sudoers"
  put "$WORK/tabletop.sudoers" "$ETC/sudoers.d/tabletop" 0440
}

user_unit() {  # the app as a user service, and the launcher the desktop's autostart runs
  render "$HERE/tabletop.service" tabletop.service
  put "$WORK/tabletop.service" "$ETC/systemd/user/tabletop.service" 0644
  render "$HERE/tabletop-session" tabletop-session
  put "$WORK/tabletop-session" "$PREFIX/bin/tabletop-session" 0755
  # The journal's full check at night (a table's opening checks only what is new).
  render "$HERE/tabletop-check.service" tabletop-check.service
  put "$WORK/tabletop-check.service" "$ETC/systemd/user/tabletop-check.service" 0644
  put "$HERE/tabletop-check.timer" "$ETC/systemd/user/tabletop-check.timer" 0644
  # What systemctl --global enable does, under $ETC: every user's timers.target wants it.
  run install -d -o root -g root -m 0755 "$ETC/systemd/user/timers.target.wants"
  run ln -sfn ../tabletop-check.timer "$ETC/systemd/user/timers.target.wants/tabletop-check.timer"
}

desktop_autostart() {  # written by the desktop user, in its home (see autostart.sh)
  local merges=no wayfire_template=""
  if [ -f "$LABWC_SESSION" ] && grep -Eq -- '(^|[[:space:]])(-m|--merge-config)([[:space:]]|$)' "$LABWC_SESSION"; then
    merges=yes
  fi
  if [ -d "$ETC/wayfire" ] || [ -e "$HOME_DIR/.config/wayfire.ini" ]; then
    wayfire_template="$ETC/wayfire/template.ini"
  fi
  local args=("$HOME_DIR/.config" "$PREFIX/bin/tabletop-session" "$ETC/xdg/labwc/autostart"
              "$merges" "$wayfire_template")
  if [ -n "$DRY_RUN" ]; then
    printf '+ runuser -u %s -- bash -s --%s < %s\n' "$DESKTOP_USER" "$(printf ' %q' "${args[@]}")" \
      "$HERE/autostart.sh"
    return
  fi
  # Root reads the script and hands it over on standard input: the user need not read the checkout.
  runuser -u "$DESKTOP_USER" -- bash -s -- "${args[@]}" < "$HERE/autostart.sh" | sed 's/^/   /' ||
    warn "could not write $DESKTOP_USER's autostart (above); the app starts with: $PREFIX/bin/tabletop-session"
}

blanking_off() {  # the panel must stay lit during a game: raspi-config's Screen Blanking, off
  local raspi
  raspi=$(command -v raspi-config || true)
  if [ -z "$raspi" ]; then
    echo "   no raspi-config here: screen blanking is left as it is"
    return
  fi
  # raspi-config nonint do_blanking: 1 switches blanking off, 0 on. It edits the desktop that
  # runs now (pgrep labwc, wayfire): that desktop's files in the user's home, so as that user.
  if pgrep -x labwc >/dev/null 2>&1 || pgrep -x wayfire >/dev/null 2>&1; then
    run runuser -u "$DESKTOP_USER" -- env SUDO_USER="$DESKTOP_USER" "$raspi" nonint do_blanking 1 ||
      warn "raspi-config could not switch screen blanking off: Raspberry Pi Configuration > Display"
    return
  fi
  # No desktop runs: as root it takes its X11 branch, which writes only in /etc. Its own pgrep
  # is made to find no desktop, so one coming up meanwhile cannot turn it to the home folder.
  if [ -z "$DRY_RUN" ]; then
    mkdir -p "$WORK/no-desktop"
    printf '#!/bin/sh\nexit 1\n' > "$WORK/no-desktop/pgrep"
    chmod 0755 "$WORK/no-desktop/pgrep"
  fi
  run env PATH="$WORK/no-desktop:$PATH" SUDO_USER="$DESKTOP_USER" "$raspi" nonint do_blanking 1 ||
    warn "raspi-config could not switch screen blanking off: Raspberry Pi Configuration > Display"
  echo "   no desktop runs now: a labwc or wayfire desktop blanks only if Screen Blanking was" \
       "switched on (Raspberry Pi Configuration > Display)"
}

session_reload() {  # a logged-in user's systemd manager reads the new unit now; else at login
  local uid runtime systemctl
  uid=$(id -u "$DESKTOP_USER" 2>/dev/null || echo 1000)
  runtime="$RUNTIME_ROOT/$uid"
  if [ ! -d "$runtime" ]; then
    echo "   $DESKTOP_USER is not logged in now: the app starts at its next login (reboot)"
    return
  fi
  systemctl=$(command -v systemctl || echo /usr/bin/systemctl)
  run runuser -u "$DESKTOP_USER" -- env XDG_RUNTIME_DIR="$runtime" "$systemctl" --user daemon-reload ||
    warn "$DESKTOP_USER's systemd manager did not reload: the new unit takes effect at the next login"
  # A running app would keep the old code after an upgrade: restart it (not start: no session
  # display may have been imported yet; the autostart starts it at login).
  run runuser -u "$DESKTOP_USER" -- env XDG_RUNTIME_DIR="$runtime" "$systemctl" --user try-restart tabletop.service ||
    warn "the running app was not restarted: it runs the new code after the next login"
}

echo "== 1. system packages"
run apt-get update
CAMERA_APP=$(apt_knows "${CAMERA_APPS[@]}")
if [ -n "$CAMERA_APP" ]; then
  APT_PACKAGES+=("$CAMERA_APP")
else
  warn "apt knows none of ${CAMERA_APPS[*]}: the camera's command-line tools are left out"
fi
run apt-get install -y "${APT_PACKAGES[@]}"

echo "== 2. desktop user $DESKTOP_USER"
if [ -n "$AUTOLOGIN" ] && [ "$AUTOLOGIN" != "$DESKTOP_USER" ]; then
  echo "   note: the touchscreen logs in $AUTOLOGIN by itself, and the app shows only on" \
       "$DESKTOP_USER's desktop: pass DESKTOP_USER=$AUTOLOGIN to install it for $AUTOLOGIN"
fi
for group in "${DESKTOP_GROUPS[@]}"; do
  if getent group "$group" >/dev/null 2>&1; then
    run usermod -aG "$group" "$DESKTOP_USER"
  fi
done
user_folders
retire_old_service

echo "== 3. virtual environment in $PREFIX/venv (with the system's site packages), root's"
check_source
claim_prefix
run python3 -I -m venv --system-site-packages "$PREFIX/venv"

echo "== 4. tabletop, with numpy held at the system's version"
install_tabletop

echo "== 5. udev rule, power-off permission, user unit, autostart, screen blanking"
device_rules
power_off_rule
user_unit
# Whatever pip made, and whatever an old install left: root's, and no one else's to write.
run chown -R root:root "$PREFIX"
run chmod -R go-w "$PREFIX"
desktop_autostart
blanking_off
session_reload

cat <<EOF
Done. Installed for $DESKTOP_USER:
  the app, root's and read-only to $DESKTOP_USER: $PREFIX/venv
  its launcher, run by the desktop's autostart at each login: $PREFIX/bin/tabletop-session
  the app as $DESKTOP_USER's systemd user service: $ETC/systemd/user/tabletop.service
  the journal's full check, nightly at 4:00: $ETC/systemd/user/tabletop-check.timer
  devices and power-off: $ETC/udev/rules.d/99-tabletop.rules, $ETC/sudoers.d/tabletop
  the games and the calibration ($DESKTOP_USER's, 0700): $HOME_DIR/.local/share/tabletop
Reboot: the new groups take effect at login, and the table then opens by itself.
Logs, as $DESKTOP_USER: journalctl --user-unit tabletop -f
EOF
