#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every public header compiles alone (and included twice), in every language mode a
consumer may use:

  C11    -pedantic -Wall -Wextra -Werror   with gcc and clang
  C++11  -pedantic -Wall -Wextra -Werror   with g++ and clang++
  C++17  -pedantic -Wall -Wextra -Werror   with g++ and clang++

Then one translation unit per language that includes every header and prints the size and
alignment of each public struct: C and C++ must agree on every layout (the library is
compiled as C). A compiler that is absent is skipped with a message; the test fails if none
of a language's compilers is present.

  check_headers.py SOURCE_DIR BUILD_INCLUDE_DIR
Exit 0 pass, 1 fail, 77 skip (no compiler at all).
"""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1])
GEN = os.path.abspath(sys.argv[2])
INCLUDE = os.path.join(SRC, "include")
WARN = ["-pedantic", "-Wall", "-Wextra", "-Werror"]

# (language, standard, [compiler names, first found wins per family])
COMPILERS = [
    ("gcc", "c", ["gcc"]),
    ("clang", "c", ["clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15",
                    "clang-14"]),
    ("g++", "c++", ["g++"]),
    ("clang++", "c++", ["clang++", "clang++-19", "clang++-18", "clang++-17", "clang++-16",
                        "clang++-15", "clang++-14"]),
]
STANDARDS = {"c": ["c11"], "c++": ["c++11", "c++17"]}


def headers():
    public = sorted(glob.glob(os.path.join(INCLUDE, "merkle", "*.h")))
    generated = sorted(glob.glob(os.path.join(GEN, "merkle", "*.h")))
    names = [os.path.basename(h) for h in public + generated]
    if len(set(names)) != len(names):
        sys.exit("a generated header has the name of a source header: %s" % names)
    return names


def compile_tu(cc, lang, std, text, out=None):
    args = [cc, "-x", lang, "-std=" + std] + WARN + ["-I" + INCLUDE, "-I" + GEN]
    args += ["-o", out] if out else ["-fsyntax-only"]
    args += ["-"]
    p = subprocess.run(args, input=text, capture_output=True, text=True)
    return p.returncode, p.stderr


def struct_names():
    """Every `typedef struct NAME {` with a body in the public headers."""
    names = []
    for h in sorted(glob.glob(os.path.join(INCLUDE, "merkle", "*.h"))):
        with open(h) as f:
            names += re.findall(r"^typedef struct (merkle_\w+) \{", f.read(), re.M)
    return names


def layout_program(structs):
    lines = ["#include <merkle/merkle.h>", "#include <stdio.h>", "#include <stddef.h>",
             "#ifdef __cplusplus", "#define ALIGNOF(t) alignof(t)", "#else",
             "#define ALIGNOF(t) _Alignof(t)", "#endif", "int main(void) {"]
    for s in structs:
        lines.append('    printf("%%s %%zu %%zu\\n", "%s", sizeof(%s), (size_t)ALIGNOF(%s));'
                     % (s, s, s))
    lines += ["    return 0;", "}", ""]
    return "\n".join(lines)


def main():
    found = []
    for family, lang, names in COMPILERS:
        exe = next((shutil.which(n) for n in names if shutil.which(n)), None)
        if exe is None:
            print("SKIP %s: not installed (tried %s)" % (family, ", ".join(names)))
        else:
            found.append((family, lang, exe))
    if not found:
        print("no C or C++ compiler found: skipped")
        return 77
    fails = 0
    for lang in ("c", "c++"):
        if not any(f[1] == lang for f in found):
            print("FAIL: no %s compiler at all" % lang)
            fails += 1

    jobs = []
    for family, lang, exe in found:
        for std in STANDARDS[lang]:
            for h in headers():
                text = "#include <merkle/%s>\n#include <merkle/%s>\n" % (h, h)
                text += "int merkle_header_test_%s;\n" % re.sub(r"\W", "_", h)
                jobs.append(("%s -std=%s: %s" % (family, std, h), exe, lang, std, text))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda j: (j[0],) + compile_tu(j[1], j[2], j[3], j[4]), jobs))
    for name, rc, err in results:
        if rc != 0:
            print("FAIL %s\n%s" % (name, err))
            fails += 1
    print("%d header compilations, %d failed" % (len(results), fails))

    structs = struct_names()
    layouts = {}
    with tempfile.TemporaryDirectory() as tmp:
        for family, lang, exe in found:
            std = STANDARDS[lang][-1]
            out = os.path.join(tmp, family.replace("+", "x"))
            text = layout_program(structs)
            rc, err = compile_tu(exe, lang, std, text, out)
            if rc != 0:
                # linking nothing from the library: only the C/C++ runtime is needed
                print("FAIL layout program with %s:\n%s" % (family, err))
                fails += 1
                continue
            layouts[family] = subprocess.run([out], capture_output=True, text=True,
                                             check=True).stdout
    if layouts:
        ref_name, ref = next(iter(layouts.items()))
        for name, got in layouts.items():
            if got != ref:
                print("FAIL struct layouts differ between %s and %s:\n%s\n%s"
                      % (ref_name, name, ref, got))
                fails += 1
        print("%d public structs, same size and alignment under %s"
              % (len(structs), ", ".join(layouts)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
