# SPDX-License-Identifier: MIT OR Apache-2.0
"""Helpers for the CLI tests (python3 unittest, run by ctest with MERKLE_BIN set)."""
import json
import os
import subprocess
import tempfile
import unittest

BIN = os.environ.get("MERKLE_BIN", "merkle")
SRC = os.environ.get("MERKLE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
VECTORS = os.path.join(SRC, "tests", "vectors")


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


def decimal_leaves(n):
    return [str(i).encode() for i in range(n)]


def counter_bytes(n):
    return bytes(k % 251 for k in range(n))
