# SPDX-License-Identifier: MIT OR Apache-2.0
"""Helpers for the CLI tests (python3 unittest, run by ctest with MERKLE_BIN set)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BIN = os.environ.get("MERKLE_BIN", "merkle")
SRC = os.environ.get("MERKLE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
VECTORS = os.path.join(SRC, "tests", "vectors")
# Data from other projects (real chain programs, real blocks) is not in the repository: it
# lives beside it in ../shared/vectors/ (MERKLE_SHARED_VECTORS overrides the directory).
SHARED_VECTORS = os.environ.get("MERKLE_SHARED_VECTORS",
                                os.path.join(SRC, "..", "shared", "vectors"))


def windows():
    """True when the tests run merkle.exe (scripts/wine-cli-test.sh sets
    MERKLE_TEST_PLATFORM=windows): POSIX-only cases skip themselves with skip_windows."""
    return os.environ.get("MERKLE_TEST_PLATFORM") == "windows"


def skip_windows(reason):
    """Decorator: skip this test on Windows, saying why (a POSIX-only behaviour)."""
    return unittest.skipIf(windows(), "POSIX only: " + reason)


class TempDirCase(unittest.TestCase):
    """A test case with a fresh temporary directory per test (self.dir)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name, data=b""):
        """Write data to the file name in the test's directory; return its path."""
        p = os.path.join(self.dir, name)
        with open(p, "wb") as f:
            f.write(data)
        return p


def run(args, stdin=b"", env=None, cwd=None):
    """Run merkle with args; returns (returncode, stdout bytes, stderr bytes)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run([BIN] + list(args), input=stdin, capture_output=True, env=e, cwd=cwd,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


def vectors(name="merkle-public.json"):
    with open(os.path.join(VECTORS, name)) as f:
        return json.load(f)


def shared_vector_or_skip(name):
    """The path of ../shared/vectors/NAME; without it, say so and exit 77 (ctest's skip)."""
    p = os.path.join(SHARED_VECTORS, name)
    if not os.path.exists(p):
        sys.stderr.write(f"skipped: {p} is absent (data from other projects lives outside "
                         "the repository, in ../shared/vectors/)\n")
        sys.exit(77)
    return p


def decimal_leaves(n):
    return [str(i).encode() for i in range(n)]


def counter_bytes(n):
    return bytes(k % 251 for k in range(n))
