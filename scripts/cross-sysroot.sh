#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Unpack Debian's target libraries that the cross builds' tests link (cmocka, libsodium,
# OpenSSL's libcrypto) into build/sysroot/DEBARCH, without installing them: `apt-get download`
# and `dpkg -x`, so the host's packages are untouched and no multiarch version skew between
# the host and the foreign architectures matters (Debian's mirrors may hold different
# OpenSSL versions for amd64 and s390x). The cross toolchain files (cmake/toolchains/) look
# there. Usage: scripts/cross-sysroot.sh DEBARCH...   (arm64 s390x i386)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(libcmocka0 libcmocka-dev libsodium23 libsodium-dev libssl3 libssl-dev)
for arch in "$@"; do
  dest=$root/build/sysroot/$arch
  if [ -f "$dest/.done" ]; then continue; fi
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO dpkg --add-architecture "$arch"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  fi
  tmp=$(mktemp -d)
  chmod 755 "$tmp"  # apt-get download runs as _apt
  (cd "$tmp" && apt-get download -qq "${pkgs[@]/%/:$arch}" >/dev/null)
  mkdir -p "$dest"
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest"; done
  rm -rf "$tmp"
  # The -dev packages' .so links are absolute (/usr/lib/...): point them into the sysroot.
  find "$dest" -type l | while read -r l; do
    t=$(readlink "$l")
    case $t in /*) ln -sf "$dest$t" "$l" ;; esac
  done
  touch "$dest/.done"
done
