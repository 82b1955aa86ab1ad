#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Quick start 1: install what is missing, build (Release), and run the main job on the
# bundled sample data: Merkle roots of a sample file and of a sample leaf list.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DMERKLE_BUILD_TESTS=OFF >/dev/null
cmake --build build/release
m=build/release/merkle
echo "== RFC 6962 root of samples/sample.bin (4096-byte leaves)"
$m root samples/sample.bin
echo "== Sia root of samples/sample.bin (BLAKE2b-256, 64-byte segments)"
$m root --profile sia samples/sample.bin
echo "== RFC 6962 root of the leaf list samples/leaves.txt (one hex leaf per line)"
$m root --leaves samples/leaves.txt
