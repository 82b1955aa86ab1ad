#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Build the Debian packages from a clean copy of the source tree (the files git tracks plus
# new untracked ones, no build outputs), install them with apt-get, run the checks of
# debian/tests/installed against the installed files, and remove the packages again.
# Needs root (or sudo). Used by scripts/test.sh (step 5); about a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
pkgs=(libmerkle0 libmerkle-dev merkle python3-merkle)
work=$(mktemp -d)
purge() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${pkgs[@]}" >/dev/null 2>&1 || true
}
trap 'purge; rm -rf "$work"' EXIT
purge   # an earlier install of the same version would hide this build

mkdir -p "$work/merkle"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$work/merkle"
echo "-- dpkg-buildpackage -b -us -uc"
if ! (cd "$work/merkle" && dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1); then
    tail -n 60 "$work/build.log"
    echo "package build failed (log above)" >&2
    exit 1
fi
grep -E '^dpkg-gensymbols: warning|^dpkg-shlibdeps: warning|^dh_missing' "$work/build.log" || true
debs=()
for p in "${pkgs[@]}"; do debs+=("$(ls "$work"/"${p}"_*.deb)"); done
echo "-- apt-get install ${debs[*]##*/}"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debs[@]}" >/dev/null
bash "$src/debian/tests/installed" "$src"
echo "-- apt-get purge ${pkgs[*]}"
purge
[ ! -e /usr/bin/merkle ] || { echo "/usr/bin/merkle left behind after purge" >&2; exit 1; }
echo "package build, install and checks passed"
