#!/usr/bin/env bash
# Install Klik's table daemon on a Raspberry Pi (Raspberry Pi OS Bookworm). Run as root from a
# checkout of the repo:
#
#     sudo firmware/install.sh            # this Pi: files, user, venv, service
#     sudo install.sh --from DIR [--sha256 HASH]
#                                         # the same from a bundle (make bundle), offline:
#                                         # its files checked against DIR/SHA256SUMS (and
#                                         # that file against HASH) before anything is done
#     firmware/install.sh --root DIR      # only the files, under DIR (an SD card's root
#                                         # mounted elsewhere, or a test's temp dir); the
#                                         # steps that change a running system are printed
#     sudo firmware/install.sh --read-only-root
#                                         # and a read-only root (step 9): the state on a
#                                         # partition of its own labelled klik-state
#
# DESTDIR=DIR works like --root DIR. KLIK_INSTALL_DRY=1 prints the system steps (user, venv,
# pip, systemctl) instead of running them; --root implies it. KLIK_VENV=DIR puts the venv
# there instead of /opt/klik/venv and makes it for real even then (a test's venv; the unit
# still names /opt/klik/venv). Safe to run again: every step checks before it changes
# anything, and the config.txt block is replaced, never doubled.
#
# What it does:
#   1. /boot/firmware/config.txt: firmware/config.txt between "# BEGIN klik" / "# END klik"
#   2. /boot/firmware/cmdline.txt: takes the serial console off the radio's UART
#   3. /etc/modules-load.d/klik.conf: i2c-dev, so /dev/i2c-* exist
#   4. /etc/klik/table.toml from firmware/table.toml, only if there is none
#   5. /etc/systemd/system/klik-table.service
#   6. groups gpio i2c spi dialout, system user klik in them
#   7. a venv in /opt/klik/venv with this checkout installed (--from: the bundle's wheels,
#      pip --no-index: no internet needed)
#   8. systemctl daemon-reload, enable klik-table; a running daemon restarts on the new
#      code, a new one starts at the reboot that the boot config changes need anyway
#   9. with --read-only-root: Raspberry Pi OS's overlay root (the overlayroot package,
#      "overlayroot=tmpfs:recurse=0" in cmdline.txt, a new initramfs), so a power cut can
#      never damage the system; /var/lib/klik on its own writable ext4 partition, labelled
#      klik-state, in /etc/fstab (between "# BEGIN klik" / "# END klik"); the daemon starts
#      only with it mounted (a drop-in: RequiresMountsFor=/var/lib/klik: a game kept in the
#      overlay's RAM would be lost at the next cut); the system journal in RAM. The
#      partition must be there (the README's "A read-only root" says how to make one); to
#      install again later, `sudo raspi-config nonint disable_overlayfs`, reboot, run this
#      again.
set -euo pipefail

# The paths as the running Pi sees them; the unit's ExecStart= names VENV_PATH/bin/klik.
KLIK_HOME=/opt/klik
VENV_PATH=/opt/klik/venv
UNIT_NAME=klik-table.service
GROUPS_NEEDED=(gpio i2c spi dialout)

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="${DESTDIR:-}"
DRY="${KLIK_INSTALL_DRY:-0}"
FROM=""
PIN=""
READ_ONLY_ROOT=0
STATE_LABEL=klik-state
STATE_PATH=/var/lib/klik
VENV_PATH="${KLIK_VENV:-$VENV_PATH}"  # a test's venv (see above)

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT="$2"; shift 2 ;;
        --root=*) ROOT="${1#--root=}"; shift ;;
        --from) [ $# -ge 2 ] || die "--from needs a directory"; FROM="$2"; shift 2 ;;
        --from=*) FROM="${1#--from=}"; shift ;;
        --sha256) [ $# -ge 2 ] || die "--sha256 needs the bundle's hash"; PIN="$2"; shift 2 ;;
        --sha256=*) PIN="${1#--sha256=}"; shift ;;
        --read-only-root) READ_ONLY_ROOT=1; shift ;;
        -h|--help) sed -n '2,42p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1'; allowed: --root DIR, --from DIR, --sha256 HASH," \
               "--read-only-root, --help" ;;
    esac
done

# A bundle is checked whole before anything is written: every file as SHA256SUMS lists it,
# no file it does not list (pip would take a stray wheel), and SHA256SUMS itself against the
# organiser's hash when given. Then its files are the source of everything installed.
check_bundle() {
    local sums="$FROM/SHA256SUMS" got listed present bad
    [ -f "$sums" ] || die "--from $FROM: no SHA256SUMS there: not a bundle (make bundle)"
    if [ -n "$PIN" ]; then
        got="$(sha256sum <"$sums")"
        got="${got%% *}"
        [ "$got" = "${PIN,,}" ] \
            || die "--from $FROM: the bundle's hash is $got, not $PIN: refused, nothing installed"
    fi
    if ! bad="$(cd "$FROM" && LC_ALL=C sha256sum --check --quiet --strict SHA256SUMS 2>&1)"; then
        die "--from $FROM: ${bad%%$'\n'*} (against SHA256SUMS): refused, nothing installed"
    fi
    listed="$(cut -c67- "$sums" | LC_ALL=C sort)"
    present="$(cd "$FROM" && find . -type f ! -path ./SHA256SUMS | cut -c3- | LC_ALL=C sort)"
    if [ "$listed" != "$present" ]; then
        bad="$(LC_ALL=C comm -13 <(echo "$listed") <(echo "$present") | head -n1)"
        die "--from $FROM: ${bad:-a file} is not in SHA256SUMS: refused, nothing installed"
    fi
    [ -n "$(klik_wheel)" ] || die "--from $FROM: no klik wheel in wheels/: not a bundle"
    got="$(sha256sum <"$sums")"
    say "bundle ${got%% *} checked: ${FROM}"
}

klik_wheel() {
    find "$FROM/wheels" -maxdepth 1 -name 'klik-*.whl' 2>/dev/null | head -n1
}

if [ -n "$FROM" ]; then
    [ -d "$FROM" ] || die "--from $FROM: no such directory"
    FROM="$(cd "$FROM" && pwd)"
    check_bundle
    SRC="$FROM"
elif [ -n "$PIN" ]; then
    die "--sha256 pins a bundle: give --from DIR too"
fi

# ROOT="" means this machine's own /. Anything else is a tree we only write files into.
ROOT="${ROOT%/}"
if [ -n "$ROOT" ]; then
    [ -d "$ROOT" ] || die "--root $ROOT: no such directory"
    ROOT="$(cd "$ROOT" && pwd)"
    [ "$ROOT" = / ] && ROOT=""
fi
if [ -n "$ROOT" ]; then
    DRY=1  # useradd, pip and systemctl would act on this machine, not on $ROOT
elif [ "$DRY" = 1 ]; then
    die "KLIK_INSTALL_DRY=1 needs --root DIR: the file steps would still change this machine"
elif [ "$(id -u)" != 0 ]; then
    die "run as root: sudo $0"
fi

# A system step: run it, or in dry mode print it for the person to run on the Pi. System
# steps name the Pi's own paths: they run only when ROOT is this machine's /.
run() {
    if [ "$DRY" = 1 ]; then
        echo "would run: $*"
    else
        "$@"
    fi
}

# Write stdin to $1 only if its content differs, atomically (temp file + rename), with mode
# $2; "-" keeps the file system's own mode (the boot partition is FAT: chmod fails there).
put() {
    local dest="$1" mode="$2" tmp
    mkdir -p "$(dirname "$dest")"
    tmp="$(mktemp "$dest.klik-new.XXXXXX")"
    cat >"$tmp"
    if [ -f "$dest" ] && cmp -s "$tmp" "$dest"; then
        rm -f "$tmp"
        say "unchanged ${dest#"$ROOT"}"
        return 0
    fi
    [ "$mode" = - ] || chmod "$mode" "$tmp"
    mv -f "$tmp" "$dest"
    say "wrote ${dest#"$ROOT"}"
}

# The first run keeps the file as it was before Klik touched it.
backup_once() {
    [ -f "$1.before-klik" ] || cp -p "$1" "$1.before-klik"
}

boot_dir() {
    # Bookworm mounts the boot partition at /boot/firmware; Bullseye and older at /boot.
    if [ -f "$ROOT/boot/firmware/config.txt" ]; then
        echo "$ROOT/boot/firmware"
    elif [ -f "$ROOT/boot/config.txt" ]; then
        echo "$ROOT/boot"
    elif [ -n "$ROOT" ]; then
        echo "$ROOT/boot/firmware"  # staging into an empty tree: see install_config_txt
    else
        die "no config.txt in /boot/firmware or /boot: is this a Raspberry Pi OS root?"
    fi
}

# 1. config.txt: replace every "# BEGIN klik" ... "# END klik" block by one fresh block, at
# the place of the first; append it when there is none. Other lines stay byte for byte.
install_config_txt() {
    local config block merged
    config="$(boot_dir)/config.txt"
    block="$(mktemp)"
    merged="$(mktemp)"
    {
        echo "# BEGIN klik"
        cat "$SRC/firmware/config.txt"
        echo "# END klik"
    } >"$block"
    if [ ! -f "$config" ]; then
        # Staging into a tree with no Pi boot files (DESTDIR=DIR): a config.txt of ours alone
        # would replace the Pi's whole file if the tree were copied over, so the block goes
        # into a file of its own for the person to add.
        local fragment="${config%/*}/klik-config.txt"
        put "$fragment" 0644 <"$block"
        say "no config.txt under $ROOT: add ${fragment#"$ROOT"} to the Pi's config.txt" \
            "(or run install.sh on the Pi)"
        rm -f "$block" "$merged"
        return 0
    fi
    backup_once "$config"
    # A config.txt saved on Windows has CRLF lines: markers match without the \r, and the
    # block gets the file's own line ends.
    awk -v block="$block" '
        function emit(  line) {
            while ((getline line < block) > 0) print line (crlf ? "\r" : "")
            close(block)
        }
        NR == 1 { crlf = /\r$/ }
        { bare = $0; sub(/\r$/, "", bare) }
        bare == "# BEGIN klik" {
            if (inside) { print "install.sh: config.txt: # BEGIN klik inside a klik block" > "/dev/stderr"; exit 3 }
            inside = 1
            if (!done) { emit(); done = 1 }
            next
        }
        bare == "# END klik" {
            if (!inside) { print "install.sh: config.txt: # END klik without # BEGIN klik" > "/dev/stderr"; exit 3 }
            inside = 0
            next
        }
        !inside { print }
        END {
            if (inside) { print "install.sh: config.txt: # BEGIN klik is never ended" > "/dev/stderr"; exit 3 }
            if (!done) { print (crlf ? "\r" : ""); emit() }
        }
    ' "$config" >"$merged" || { rm -f "$block" "$merged"; die "left $config as it was"; }
    put "$config" - <"$merged"
    rm -f "$block" "$merged"
}

# 2. cmdline.txt: without this the kernel logs to the radio and getty offers it a login.
install_cmdline_txt() {
    local cmdline
    cmdline="$(boot_dir)/cmdline.txt"
    [ -f "$cmdline" ] || { say "no ${cmdline#"$ROOT"}: skipped"; return 0; }
    backup_once "$cmdline"
    awk '{
        out = ""
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^console=(serial0|serial1|ttyAMA0|ttyS0)(,.*)?$/) continue
            out = out (out == "" ? "" : " ") $i
        }
        print out
    }' "$cmdline" | put "$cmdline" -
}

install_files() {
    printf 'i2c-dev\n' | put "$ROOT/etc/modules-load.d/klik.conf" 0644
    if [ -e "$ROOT/etc/klik/table.toml" ]; then
        say "kept /etc/klik/table.toml"
    else
        put "$ROOT/etc/klik/table.toml" 0640 <"$SRC/firmware/table.toml"
    fi
    put "$ROOT/etc/systemd/system/$UNIT_NAME" 0644 <"$SRC/systemd/$UNIT_NAME"
}

install_user() {
    local group
    # In dry mode the checks would look at this machine, not the Pi: print every step.
    for group in "${GROUPS_NEEDED[@]}"; do
        # Raspberry Pi OS has them all; plain Debian lacks gpio, i2c and spi.
        if [ "$DRY" = 1 ] || ! getent group "$group" >/dev/null; then
            run groupadd --system "$group"
        fi
    done
    if [ "$DRY" = 1 ] || ! id klik >/dev/null 2>&1; then
        run useradd --system --user-group --home-dir /var/lib/klik --no-create-home \
            --shell /usr/sbin/nologin klik
    fi
    run usermod --append --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" klik
    run chgrp klik /etc/klik /etc/klik/table.toml
    run chmod 0750 /etc/klik
}

pi_model() {
    [ -r "$ROOT/proc/device-tree/model" ] && tr -d '\0' <"$ROOT/proc/device-tree/model"
    return 0
}

install_venv() {
    local packages=(python3-venv python3-lgpio i2c-tools)
    # The rpigpio pin factory ([hardware] pin_factory) needs RPi.GPIO, which drives the GPIO
    # of a Pi 4 or older only; a Pi 5 has lgpio alone. Debian's package is built for the
    # board, and pip's would have to compile.
    case "$(pi_model)" in
        *"Raspberry Pi 5"*) ;;
        *) packages+=(python3-rpi.gpio) ;;
    esac
    if command -v apt-get >/dev/null; then
        # Debian's python3-lgpio is built against the system's liblgpio; the venv sees it
        # (and RPi.GPIO) through --system-site-packages, so pip need not compile either.
        run apt-get install -y --no-install-recommends "${packages[@]}"
    fi
    if [ -n "${KLIK_VENV:-}" ]; then
        [ -x "$VENV_PATH/bin/python" ] || in_venv python3 -m venv --system-site-packages "$VENV_PATH"
    elif [ "$DRY" = 1 ] || [ ! -x "$VENV_PATH/bin/python" ]; then
        run python3 -m venv --system-site-packages "$VENV_PATH"
    fi
    if [ -z "$FROM" ]; then
        in_venv "$VENV_PATH/bin/python" -m pip install --quiet --upgrade "$SRC"
        return 0
    fi
    # Offline: only the bundle's wheels (lgpio and RPi.GPIO are apt's, seen through the
    # system site packages). The same version again is installed again: a bundle made from
    # a newer checkout may keep the version number.
    local wheel
    wheel="$(klik_wheel)"
    in_venv "$VENV_PATH/bin/python" -m pip install --quiet --no-index \
        --find-links "$FROM/wheels" --upgrade "$wheel"
    in_venv "$VENV_PATH/bin/python" -m pip install --quiet --no-index --no-deps \
        --force-reinstall "$wheel"
}

# A venv step: KLIK_VENV names the caller's own venv, made and filled for real, dry run or not.
in_venv() {
    if [ -n "${KLIK_VENV:-}" ]; then
        "$@"
    else
        run "$@"
    fi
}

install_service() {
    # disable-bt frees the UART from Bluetooth; hciuart would still try to attach it. Pi 5
    # keeps Bluetooth on a UART of its own, so its hciuart stays.
    case "$(pi_model)" in
        *"Raspberry Pi 5"*) ;;
        *) if [ "$DRY" = 1 ] || systemctl cat hciuart.service >/dev/null 2>&1; then
               run systemctl disable hciuart.service
           fi ;;
    esac
    run systemctl daemon-reload
    run systemctl enable "$UNIT_NAME"
    # A reinstall is an upgrade: a running daemon restarts on the new code (its game is
    # journalled in /var/lib/klik); a stopped one stays stopped until the reboot.
    run systemctl try-restart "$UNIT_NAME"
}

# 9. The read-only root. The state partition is checked before anything is changed: an
# overlay root with /var/lib/klik in RAM would lose every game at the next power cut.
check_state_partition() {
    [ "$READ_ONLY_ROOT" = 1 ] || return 0
    if [ "$DRY" = 1 ]; then
        echo "would run: blkid -L $STATE_LABEL"
    elif ! blkid -L "$STATE_LABEL" >/dev/null 2>&1; then
        die "--read-only-root: no partition labelled $STATE_LABEL for $STATE_PATH" \
            "(the README, \"A read-only root\": how to make one): nothing changed"
    fi
}

install_read_only_root() {
    [ "$READ_ONLY_ROOT" = 1 ] || return 0
    local cmdline fstab merged
    cmdline="$(boot_dir)/cmdline.txt"
    if [ -f "$cmdline" ]; then
        # recurse=0: the overlay covers / alone, so the state partition stays writable.
        awk '{
            out = "overlayroot=tmpfs:recurse=0"
            for (i = 1; i <= NF; i++) if ($i !~ /^overlayroot=/) out = out " " $i
            print out
        }' "$cmdline" | put "$cmdline" -
    else
        say "no ${cmdline#"$ROOT"}: add overlayroot=tmpfs:recurse=0 to the Pi's cmdline.txt"
    fi
    fstab="$ROOT/etc/fstab"
    merged="$(mktemp)"
    {
        [ -f "$fstab" ] && awk '
            $0 == "# BEGIN klik" { inside = 1; next }
            $0 == "# END klik" { inside = 0; next }
            !inside { print }
        ' "$fstab"
        echo "# BEGIN klik"
        echo "# The table's state (games, results, outbox): writable under the read-only root."
        echo "LABEL=$STATE_LABEL $STATE_PATH ext4 defaults,noatime 0 2"
        echo "# END klik"
    } >"$merged"
    put "$fstab" 0644 <"$merged"
    rm -f "$merged"
    printf '%s\n' "# Written by firmware/install.sh --read-only-root: the daemon starts only" \
        "# with its state partition mounted (not on the overlay's RAM)." \
        "[Unit]" "RequiresMountsFor=$STATE_PATH" \
        | put "$ROOT/etc/systemd/system/$UNIT_NAME.d/read-only-root.conf" 0644
    printf '%s\n' "# Written by firmware/install.sh --read-only-root: the log lives in RAM," \
        "# as the root's changes do, and never fills it." \
        "[Journal]" "Storage=volatile" "RuntimeMaxUse=16M" \
        | put "$ROOT/etc/systemd/journald.conf.d/klik.conf" 0644
    if command -v apt-get >/dev/null; then
        run apt-get install -y --no-install-recommends overlayroot
    fi
    run update-initramfs -u
}

check_state_partition
install_config_txt
install_cmdline_txt
install_files
install_read_only_root
install_user
install_venv
install_service
if [ -n "$ROOT" ]; then
    say "done: the files above are under $ROOT; the steps marked 'would run' are for the Pi"
else
    say "done: installed in ${KLIK_HOME}; reboot so the I2C, UART and shutdown settings apply"
    [ "$READ_ONLY_ROOT" = 0 ] || say "after the reboot the root is read-only; $STATE_PATH is $STATE_LABEL"
fi
