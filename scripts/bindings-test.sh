#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The language bindings against the library of a CMake build tree (step 10 of scripts/test.sh):
#   scripts/bindings-test.sh BUILD_DIR [rust] [node] [go]      (default: all three)
# Each binding finds libmerkle through the merkle.pc that BUILD_DIR holds (PKG_CONFIG_PATH).
#   rust: cargo test --offline in bindings/rust (the crate has no crates.io dependency) and
#         cargo clippy -D warnings when clippy is installed; target dir BUILD_DIR/bindings/rust
#   node: npm ci (from package-lock.json) + npm test in bindings/node: the N-API addon is built
#         by scripts/build.js, the tests compare with @openzeppelin/merkle-tree and merkletreejs
#   go:   gofmt -l (must list nothing), go vet ./... and go test -race ./... with GODEBUG=cgocheck=2 in bindings/go (cgo; no
#         module outside the standard library, GOPROXY=off), GOCACHE/GOPATH under BUILD_DIR,
#         linked with an rpath to BUILD_DIR (CGO_LDFLAGS) so the tests find libmerkle.so.1
# A toolchain that is absent is reported as SKIPPED (cargo is looked for in ~/.cargo/bin too);
# a binding whose tests fail fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/bindings-test.sh BUILD_DIR [rust] [node] [go]" >&2; exit 2; }
build=$(cd "$1" && pwd); shift
[ -f "$build/merkle.pc" ] || { echo "bindings-test: $build/merkle.pc not found (build the library first)" >&2; exit 2; }
which=("$@"); [ ${#which[@]} -gt 0 ] || which=(rust node go)
export PKG_CONFIG_PATH="$build${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
top=$PWD
skipped=()

for b in "${which[@]}"; do
  case $b in
  rust)
    cargo=$(command -v cargo || true)
    [ -n "$cargo" ] || { [ -x "$HOME/.cargo/bin/cargo" ] && cargo=$HOME/.cargo/bin/cargo; } || true
    if [ -z "$cargo" ] || [ ! -d bindings/rust ]; then skipped+=(rust); continue; fi
    echo "-- rust: cargo test --offline (bindings/rust)"
    (cd bindings/rust && CARGO_TARGET_DIR="$build/bindings/rust" "$cargo" test --offline --quiet)
    if "$cargo" clippy --version >/dev/null 2>&1; then
      echo "-- rust: cargo clippy --offline --all-targets -D warnings"
      (cd bindings/rust && CARGO_TARGET_DIR="$build/bindings/rust" \
        "$cargo" clippy --offline --quiet --all-targets -- -D warnings)
    fi
    ;;
  node)
    if ! command -v npm >/dev/null || [ ! -d bindings/node ]; then skipped+=(node); continue; fi
    echo "-- node: npm ci + npm test (bindings/node)"
    (cd bindings/node && npm ci --no-audit --no-fund --loglevel=error && npm test)
    ;;
  go)
    if ! command -v go >/dev/null || [ ! -d bindings/go ]; then skipped+=(go); continue; fi
    echo "-- go: go vet ./... + go test -race ./... with GODEBUG=cgocheck=2 (bindings/go)"
    (cd bindings/go && export GOCACHE="$build/bindings/go/cache" GOPATH="$build/bindings/go/path" \
      GOFLAGS=-mod=mod GOPROXY=off CGO_ENABLED=1 \
      CGO_LDFLAGS="-Wl,-rpath,$build${CGO_LDFLAGS:+ $CGO_LDFLAGS}" &&
      { unformatted=$(gofmt -l .); [ -z "$unformatted" ] || { echo "gofmt: not formatted: $unformatted" >&2; false; }; } &&
      go vet ./... && GODEBUG=cgocheck=2 go test -race -count=1 ./...)
    ;;
  *) echo "bindings-test: unknown binding '$b' (rust, node, go)" >&2; exit 2 ;;
  esac
done
cd "$top"
if [ ${#skipped[@]} -gt 0 ]; then
  echo "-- SKIPPED (toolchain or binding absent): ${skipped[*]}"
fi
