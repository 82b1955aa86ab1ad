# SPDX-License-Identifier: MIT OR Apache-2.0
# Cross build for aarch64-linux-gnu (Debian: gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user-static;
# scripts/cross-sysroot.sh arm64 for the tests' libraries). docs/platforms.md.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(MERKLE_TRIPLE aarch64-linux-gnu)
set(MERKLE_DEBARCH arm64)
set(MERKLE_QEMU qemu-aarch64-static;-cpu;max)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
