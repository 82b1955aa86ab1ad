#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# CLVM bench against clvm_wasm (npm) in the same run:
#   bench/clvm_bench.sh [BUILD_DIR] [bench_clvm options]
# Installs clvm_wasm@0.7.0 into a temporary directory (never into the tree), then runs
# BUILD_DIR/bench/bench_clvm (default build/rel), which runs bench/clvm_wasm_bench.js with node
# on the same generated tree and prints the ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/rel}
[ $# -gt 0 ] && shift
version=${CLVM_WASM_VERSION:-0.7.0}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
npm install --silent --no-audit --no-fund --prefix "$dir" "clvm_wasm@$version" >/dev/null
CLVM_WASM="$dir/node_modules/clvm_wasm" MERKLE_CLVM_WASM_DRIVER="$here/clvm_wasm_bench.js" \
  "$build/bench/bench_clvm" "$@"
