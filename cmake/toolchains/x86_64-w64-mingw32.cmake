# SPDX-License-Identifier: MIT OR Apache-2.0
# Cross build for 64-bit Windows with MinGW-w64 (Debian: mingw-w64, gcc-mingw-w64-x86-64), the
# programs run under wine (Debian: wine64). `cmake --preset mingw64`; docs/platforms.md.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(MERKLE_TRIPLE x86_64-w64-mingw32)
# Debian ships two thread models; the posix one (winpthreads) is the one the library needs.
find_program(MERKLE_MINGW_CC NAMES ${MERKLE_TRIPLE}-gcc-posix ${MERKLE_TRIPLE}-gcc)
set(CMAKE_C_COMPILER ${MERKLE_MINGW_CC})
set(CMAKE_RC_COMPILER ${MERKLE_TRIPLE}-windres)
# build/mingw-deps: the tests' cmocka, built for Windows by scripts/mingw-test.sh.
get_filename_component(MERKLE_MINGW_DEPS "${CMAKE_CURRENT_LIST_DIR}/../../build/mingw-deps" ABSOLUTE)
set(CMAKE_FIND_ROOT_PATH /usr/${MERKLE_TRIPLE} ${MERKLE_MINGW_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# ctest runs the programs under wine (Debian: wine64); scripts/mingw-test.sh sets WINEPREFIX.
find_program(MERKLE_WINE NAMES wine64 wine PATHS /usr/lib/wine)
if(MERKLE_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MERKLE_WINE})
endif()
# Programs and the DLL carry the compiler's runtime (libgcc, winpthreads) inside: nothing to
# ship beside them but libmerkle.dll (and that only for programs linked against the DLL).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
