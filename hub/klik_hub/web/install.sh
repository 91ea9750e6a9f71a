#!/bin/sh
# Klik: install or update this table from the hub's bundle (make bundle; klik hub --bundle DIR),
# with no internet: only the hub on the venue's network. On the table, one line (the hub's
# console, Stoły tab, and its printed install card give it with both hashes filled in):
#
#     curl -fsSk @HUB@/install -o klik-install.sh && echo "SCRIPT  klik-install.sh" | sha256sum -c - && sudo sh klik-install.sh HASH
#
# SCRIPT is the SHA-256 of this script as the hub serves it at @HUB@: checked before anything
# runs as root, so an impostor answering at the hub's address (curl -k trusts any certificate)
# runs nothing. HASH is the bundle's hash as `make bundle` printed it (the SHA-256 of its
# SHA256SUMS). SHA256SUMS is fetched first and must have that hash, or nothing else is
# fetched; every file is then fetched by the path it lists and checked by firmware/install.sh
# --from (again against HASH) before anything is installed.
set -eu

HUB='@HUB@'

die() { echo "klik install: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "give the bundle's hash: sudo sh klik-install.sh HASH (the hub's console, Stoły tab, gives the whole line)"
HASH="$1"
shift
case "$HASH" in
    *[!0-9a-f]*) die "$HASH: the bundle's hash is 64 hex digits (make bundle prints it)" ;;
esac
[ "${#HASH}" -eq 64 ] || die "$HASH: the bundle's hash is 64 hex digits (make bundle prints it)"
command -v curl >/dev/null || die "curl is needed: sudo apt-get install curl"

DIR="$(mktemp -d "${TMPDIR:-/tmp}/klik-bundle.XXXXXX")"
trap 'rm -rf "$DIR"' EXIT

fetch() {
    curl -fsSk --retry 3 -o "$DIR/$1" "$HUB/install/files/$1" \
        || die "$HUB/install/files/$1: could not be fetched"
}

fetch SHA256SUMS
GOT="$(sha256sum <"$DIR/SHA256SUMS")"
GOT="${GOT%% *}"
[ "$GOT" = "$HASH" ] || die "the hub's bundle is $GOT, not $HASH: refused, nothing installed"

# Each line is "SHA-256  path"; a path is plain words, never absolute, never upwards.
while IFS= read -r line; do
    path="${line#*  }"
    case "$path" in
        /* | *..* | *[!A-Za-z0-9._+/-]* | '') die "SHA256SUMS names '$path': refused" ;;
    esac
    mkdir -p "$DIR/$(dirname "$path")"
    fetch "$path"
done <"$DIR/SHA256SUMS"

echo "klik install: bundle $HASH fetched from $HUB"
bash "$DIR/firmware/install.sh" --from "$DIR" --sha256 "$HASH" "$@"
