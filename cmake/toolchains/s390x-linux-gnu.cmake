# SPDX-License-Identifier: MIT OR Apache-2.0
# Cross build for s390x-linux-gnu (Debian: gcc-s390x-linux-gnu, libc6-dev-s390x-cross, qemu-user-static;
# scripts/cross-sysroot.sh s390x for the tests' libraries). docs/platforms.md.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(MERKLE_TRIPLE s390x-linux-gnu)
set(MERKLE_DEBARCH s390x)
set(MERKLE_QEMU qemu-s390x-static)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
