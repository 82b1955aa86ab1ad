# SPDX-License-Identifier: MIT OR Apache-2.0
# Shared part of the Debian cross toolchains (aarch64, s390x, i686): included by
# cmake/toolchains/<triple>.cmake after it sets MERKLE_TRIPLE, MERKLE_DEBARCH,
# CMAKE_SYSTEM_PROCESSOR and MERKLE_QEMU. Compilers: Debian's gcc-<triple> packages. Target
# libraries for the tests (cmocka, libsodium, libcrypto): build/sysroot/<debarch>, unpacked by
# scripts/cross-sysroot.sh. Tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), the
# target's C library from /usr/<triple> (Debian's libc6-dev-<debarch>-cross).
set(CMAKE_SYSTEM_NAME Linux)
if(NOT MERKLE_MULTIARCH)
  set(MERKLE_MULTIARCH ${MERKLE_TRIPLE}) # Debian's multiarch directory (i386-linux-gnu for i686)
endif()
set(CMAKE_C_COMPILER ${MERKLE_TRIPLE}-gcc)
get_filename_component(MERKLE_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../../build/sysroot/${MERKLE_DEBARCH}" ABSOLUTE)
set(CMAKE_FIND_ROOT_PATH /usr/${MERKLE_TRIPLE} ${MERKLE_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE ${MERKLE_MULTIARCH})
# pkg-config: only the target's .pc files, their paths inside the sysroot.
set(ENV{PKG_CONFIG_LIBDIR} "${MERKLE_SYSROOT}/usr/lib/${MERKLE_MULTIARCH}/pkgconfig:${MERKLE_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${MERKLE_SYSROOT}")
# Emulator: the target's loader and libc from /usr/<triple>, the sysroot's libraries by
# LD_LIBRARY_PATH (set inside the guest: -E).
if(MERKLE_NATIVE_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR env LD_LIBRARY_PATH=${MERKLE_SYSROOT}/usr/lib/${MERKLE_MULTIARCH})
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MERKLE_QEMU} -L /usr/${MERKLE_TRIPLE}
      -E LD_LIBRARY_PATH=${MERKLE_SYSROOT}/usr/lib/${MERKLE_MULTIARCH})
endif()
# Debian's multiarch headers (openssl/opensslconf.h) sit in include/<triple>.
set(CMAKE_C_FLAGS_INIT "-isystem ${MERKLE_SYSROOT}/usr/include/${MERKLE_MULTIARCH}")
