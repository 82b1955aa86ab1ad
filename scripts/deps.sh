#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Install the Debian packages the build and tests need, only those that are missing.
# Usage: scripts/deps.sh [build|test|all]   (default: build)
set -euo pipefail
what=${1:-build}
pkgs=(cmake ninja-build gcc pkgconf libssl-dev libsodium-dev python3)
if [ "$what" != build ]; then
  pkgs+=(libcmocka-dev clang-14 libclang-rt-14-dev libfuzzer-14-dev openssl coreutils)
  # the ABI check (abidw, abidiff: scripts/abi.sh) and the static checks (scripts/lint.sh)
  pkgs+=(abigail-tools binutils clang-tidy-14 clang-format-14)
fi
if [ -f "$(dirname "$0")/deps-extra.txt" ] && [ "$what" != build ]; then
  # More packages some areas need for their tests (one per line, # comments).
  while read -r p; do [ -n "$p" ] && pkgs+=("$p"); done < <(sed 's/#.*//' "$(dirname "$0")/deps-extra.txt")
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
