#!/usr/bin/env bash
# The install on the real target, emulated: the README's first command and docs/raspberry-pi.md's
# steps 3-6 inside an arm64 Debian 12 (bookworm) made by debootstrap and run by qemu-user-static,
# Debian's packages only, with the project's `pi` extra; the native engine core built there; the
# daemon started on the simulated board; one move played through the page's HTTP API. Prints the
# time of each step and what pip built from source (its "Building wheel for ..." lines).
#
# Slow (tens of minutes: every arm64 instruction is emulated) and needs root: not run in CI.
#
#   sudo apt-get install -y qemu-user-static binfmt-support debootstrap
#   sudo tools/arm64_check.sh            # ROOT=/var/tmp/tafl-arm64 by default; KEEP=1 keeps it
#
# What differs on Raspberry Pi OS (bookworm, arm64): pip also asks piwheels.org (pre-built
# wheels for the Pi; /etc/pip.conf there names it), so fewer packages are built from source;
# python3-lgpio and python3-spidev are preinstalled or one apt-get away and used through the
# venv's --system-site-packages (docs/raspberry-pi.md step 3), so the `pi` extra's lgpio and
# spidev need not be built; and /dev/gpiochip*, /dev/spidev* and I2C exist (here they do not:
# the daemon runs the simulated board).
set -euo pipefail

ROOT=${ROOT:-/var/tmp/tafl-arm64}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PORT=${PORT:-18090}
PIN=${PIN:-24681357}
SRC=$(cd "$(dirname "$0")/.." && pwd)
LOG=${LOG:-$ROOT.log}

say() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$LOG"; }
fail() { say "FAILED: $*"; exit 1; }
declare -A TOOK
timed() {  # timed NAME COMMAND...: run it, keep its seconds
    local name=$1 t0; shift
    t0=$(date +%s)
    say "== $name"
    "$@" >>"$LOG" 2>&1 || fail "$name (see $LOG)"
    TOOK[$name]=$(( $(date +%s) - t0 ))
    say "   $name: ${TOOK[$name]} s"
}

[ "$(id -u)" = 0 ] || fail "run as root (debootstrap and chroot)"
command -v debootstrap >/dev/null || fail "no debootstrap: apt-get install debootstrap"
QEMU=$(command -v qemu-aarch64-static || true)
[ -n "$QEMU" ] || fail "no qemu-aarch64-static: apt-get install qemu-user-static binfmt-support"
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
        || fail "binfmt_misc cannot be mounted (a container without it): arm64 programs cannot run"
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
fi
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] \
    || fail "no binfmt_misc entry for arm64 (update-binfmts --enable qemu-aarch64)"

: >>"$LOG"
say "arm64 check of $SRC in $ROOT (log: $LOG)"
started=$(date +%s)

mounted=()
cleanup() {
    for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
    if [ -n "${DAEMON_PID:-}" ]; then kill "$DAEMON_PID" 2>/dev/null || true; fi
    if [ "${KEEP:-0}" != 1 ]; then rm -rf "$ROOT"; fi
}
trap cleanup EXIT

if [ ! -x "$ROOT/bin/bash" ] || [ -d "$ROOT/debootstrap" ]; then  # none, or an unfinished one
    rm -rf "$ROOT"
    timed debootstrap debootstrap --arch=arm64 --variant=minbase \
        --include=ca-certificates,sudo bookworm "$ROOT" "$MIRROR"
fi
for m in proc sys dev dev/pts; do
    mkdir -p "$ROOT/$m"
    mount --bind "/$m" "$ROOT/$m"
    mounted=("$ROOT/$m" "${mounted[@]}")
done
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# A host behind a TLS-inspecting proxy trusts the proxy's CA through its own bundle (PIP_CERT or
# SSL_CERT_FILE); the chroot's ca-certificates does not know it, and pip there fails with
# "certificate verify failed". The host's bundle goes in beside the chroot's, for pip only.
CA_ENV=()
HOST_CA=${PIP_CERT:-${SSL_CERT_FILE:-}}
if [ -n "$HOST_CA" ] && [ -f "$HOST_CA" ]; then
    cp "$HOST_CA" "$ROOT/etc/ssl/host-ca-bundle.crt"
    CA_ENV=(PIP_CERT=/etc/ssl/host-ca-bundle.crt SSL_CERT_FILE=/etc/ssl/host-ca-bundle.crt)
fi
in_root() { chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 "${CA_ENV[@]}" /bin/bash -c "$1"; }
in_root 'uname -m; cat /etc/debian_version' | tee -a "$LOG"  # (python3 comes with the README's command)
[ "$(in_root 'uname -m')" = aarch64 ] || fail "the chroot does not run arm64"

# the release archive, as docs/raspberry-pi.md step 3 makes it
git -C "$SRC" archive --format=tar.gz --prefix=tafl-companion/ -o "$ROOT/root/tafl-companion.tar.gz" HEAD
in_root 'cd /root && rm -rf tafl-companion && tar xzf tafl-companion.tar.gz'

# The README's first command, without its last part (`tafl-companion run` runs until stopped;
# started below as the service would start it)
timed readme in_root 'cd /root/tafl-companion && apt-get update && apt-get install -y python3-venv espeak-ng && python3 -m venv .venv && .venv/bin/pip install .'

# docs/raspberry-pi.md step 3 with the `pi` extra from PyPI (not the system's lgpio/spidev:
# Debian 12 has no python3-lgpio; Raspberry Pi OS has), and a C compiler for the native core
timed pi-step3 in_root 'apt-get install -y python3-venv python3-dev gcc swig avahi-daemon liblgpio-dev || apt-get install -y python3-venv python3-dev gcc swig avahi-daemon; cd /root && python3 -m venv --system-site-packages /opt/tafl-companion && /opt/tafl-companion/bin/pip install "./tafl-companion[pi]"'
in_root '/opt/tafl-companion/bin/tafl-companion rules variants' | head -3 | tee -a "$LOG"

# the native engine core, built by pip above: it must load, and search
timed native in_root '/opt/tafl-companion/bin/python -c "from companion.engine import native; ok, why = native.available(); print(\"native core:\", ok, why); raise SystemExit(0 if ok else 1)"'

# step 4 (the service user) and a daemon started on the simulated board as the unit would
in_root 'adduser --system --group --no-create-home --home /var/lib/tafl-companion tafl >/dev/null 2>&1 || true; mkdir -p /var/lib/tafl-companion && chown tafl:tafl /var/lib/tafl-companion'
t0=$(date +%s)
chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
    /opt/tafl-companion/bin/tafl-companion run --board sim --host 127.0.0.1 --port "$PORT" \
    --pin "$PIN" --data-dir /var/lib/tafl-companion >>"$LOG" 2>&1 &
DAEMON_PID=$!
base="http://127.0.0.1:$PORT"
for _ in $(seq 1 600); do
    curl -fsS "$base/api/state" >/dev/null 2>&1 && break
    kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon ended (see $LOG)"
    sleep 1
done
TOOK[daemon-start]=$(( $(date +%s) - t0 ))
say "   daemon answers after ${TOOK[daemon-start]} s"
ctl() { curl -fsS -X POST -H 'Content-Type: application/json' -H 'X-Tafl-Request: 1' \
    -H "X-Tafl-Pin: $PIN" -d "$2" "$base/api/$1" >/dev/null; }
ctl click '{"square": "d1"}' && ctl click '{"square": "d4"}'
for _ in $(seq 1 120); do
    moves=$(curl -fsS "$base/api/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["moves"])')
    [ "$moves" = "['d1-d4']" ] && break
    sleep 1
done
[ "$moves" = "['d1-d4']" ] || fail "the move was not played (moves: $moves)"
say "   the move d1-d4 was played through the page's API"
kill "$DAEMON_PID"; wait "$DAEMON_PID" || true; DAEMON_PID=

say "== built from source by pip (no wheel for arm64 on PyPI):"
grep -o 'Building wheel for [^ ]*' "$LOG" | sort -u | tee -a "$LOG" || say "   nothing"
say "== times (s): ${TOOK[*]@K}"
say "total: $(( $(date +%s) - started )) s"
