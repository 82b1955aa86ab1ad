#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Build the Debian packages from a clean copy of the source tree (the files git tracks plus
# new untracked ones, no build outputs), unpack them with `dpkg -x` into a throw-away root
# under a temporary directory, and run the checks of debian/tests/installed against the
# unpacked files (MERKLE_ROOT points them there: PATH, LD_LIBRARY_PATH, PKG_CONFIG_PATH,
# PYTHONPATH, MANPATH, XDG_DATA_DIRS). Nothing is installed into the system and packages the
# user installed are never touched. Needs no root. Used by scripts/test.sh (step 10).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
pkgs=(libmerkle1 libmerkle-dev merkle python3-merkle)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/merkle"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$work/merkle"
echo "-- dpkg-buildpackage -b -us -uc"
if ! (cd "$work/merkle" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
        dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1); then
    tail -n 60 "$work/build.log"
    echo "package build failed (log above)" >&2
    exit 1
fi
grep -E '^dpkg-gensymbols: warning|^dpkg-shlibdeps: warning|^dh_missing' "$work/build.log" || true
root=$work/root
mkdir -p "$root"
for p in "${pkgs[@]}"; do
    deb=$(ls "$work"/"${p}"_*.deb)
    echo "-- dpkg -x ${deb##*/} (throw-away root)"
    dpkg -x "$deb" "$root"
done
MERKLE_ROOT=$root bash "$src/debian/tests/installed" "$src"
echo "package build and checks of the unpacked packages passed"
