# SPDX-License-Identifier: MIT OR Apache-2.0
# Cross build for i686-linux-gnu (Debian: gcc-i686-linux-gnu, libc6-dev-i386-cross, qemu-user-static;
# scripts/cross-sysroot.sh i386 for the tests' libraries). docs/platforms.md.
set(CMAKE_SYSTEM_PROCESSOR i686)
set(MERKLE_TRIPLE i686-linux-gnu)
set(MERKLE_DEBARCH i386)
set(MERKLE_MULTIARCH i386-linux-gnu)
set(MERKLE_QEMU qemu-i386-static)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
