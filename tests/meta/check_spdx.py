# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every tracked source file carries the project's SPDX line near its top.

Data (vectors, corpora, samples), documentation and packaging metadata are exempt; a new
kind of source file must be added to SOURCE_SUFFIXES or EXEMPT explicitly, so nothing slips
through unclassified."""
import os
import subprocess
import sys

TAG = b"SPDX-License-Identifier: MIT OR Apache-2.0"
SOURCE_SUFFIXES = (".c", ".cpp", ".h", ".in", ".py", ".pyi", ".sh", ".js", ".bash", ".fish", ".cmake",
                   ".toml", ".cfg", ".rs", ".ts", ".go")
SOURCE_NAMES = ("CMakeLists.txt", "_merkle", "run", "rules", "installed", "go.mod")
EXEMPT_PREFIXES = ("fuzz/corpus/", "tests/vectors/", "samples/", "docs/", "LICENSE")
EXEMPT_SUFFIXES = (".md", ".json", ".json.gz", ".txt", ".scd", ".typed", ".install", ".symbols",
                   ".abi")
EXEMPT_NAMES = (".gitignore", ".clang-format", ".clang-format-files", ".clang-tidy", "changelog",
                "control", "copyright", "format", "CMakePresets.json")


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    try:
        files = subprocess.run(["git", "-C", top, "ls-files"], check=True, capture_output=True,
                               text=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError) as e:
        print("check_spdx: not a git checkout, skipped (%s)" % e)
        return 77
    missing, unknown = [], []
    for f in filter(None, files):
        base = os.path.basename(f)
        if f.startswith(EXEMPT_PREFIXES) or base in EXEMPT_NAMES:
            continue
        if base.endswith(SOURCE_SUFFIXES) or base in SOURCE_NAMES:
            path = os.path.join(top, f)
            if not os.path.exists(path):
                continue
            with open(path, "rb") as fh:
                if TAG not in fh.read(800):
                    missing.append(f)
        elif not base.endswith(EXEMPT_SUFFIXES):
            unknown.append(f)
    for f in missing:
        print("missing SPDX line: " + f)
    for f in unknown:
        print("unclassified file (add it to check_spdx.py): " + f)
    return 1 if missing or unknown else 0


if __name__ == "__main__":
    sys.exit(main())
