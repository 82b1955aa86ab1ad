# SPDX-License-Identifier: MIT OR Apache-2.0
"""Shared helpers of the Python binding tests (stdlib unittest).

Environment: MERKLE_LIBRARY (the libmerkle.so to test; unset = the installed one),
MERKLE_VECTOR_DIR (default: tests/vectors of this source tree), MERKLE_BIN (the merkle
command, for agreement checks; optional), MERKLE_EXPECT_INSTALLED=1 or =ROOT (fail unless the
imported module and library are the installed ones, used by the packaging step).
"""
import hashlib
import json
import os
import shutil
import subprocess

import merkle

HERE = os.path.dirname(os.path.abspath(__file__))
VECTOR_DIR = os.environ.get("MERKLE_VECTOR_DIR",
                            os.path.join(HERE, "..", "..", "tests", "vectors"))


def vectors(name="merkle-public.json"):
    with open(os.path.join(VECTOR_DIR, name)) as f:
        return json.load(f)


def decimal_leaves(n):
    return [str(i).encode() for i in range(n)]


def counter_bytes(n):
    return (bytes(range(251)) * (n // 251 + 1))[:n]


def merkle_bin():
    """Path of the merkle command to compare against, or None."""
    b = os.environ.get("MERKLE_BIN")
    if b:
        return b
    return shutil.which("merkle")


def run_cli(args, stdin=b""):
    p = subprocess.run([merkle_bin()] + list(args), input=stdin, capture_output=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


# ------------------------------------------------------------ independent reference (hashlib)

def H(hash_name, data):
    if hash_name == "sha256":
        return hashlib.sha256(data).digest()
    return hashlib.blake2b(data, digest_size=32).digest()


def ref_root_leaves(leaves, hash_name="sha256", empty=None):
    """RFC 6962 MTH, recursive, straight from the definition."""
    if not leaves:
        return H(hash_name, b"") if empty is None else empty
    if len(leaves) == 1:
        return H(hash_name, b"\x00" + leaves[0])
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return H(hash_name, b"\x01" + ref_root_leaves(leaves[:k], hash_name)
             + ref_root_leaves(leaves[k:], hash_name))


def ref_root_bytes(data, leaf_size, hash_name="sha256", profile="rfc6962"):
    leaves = [data[i:i + leaf_size] for i in range(0, len(data), leaf_size)]
    empty = bytes(32) if profile == "sia" else None
    return ref_root_leaves(leaves, hash_name, empty)


def check_installed(testcase):
    # "1": the Debian package installed in the system; a directory: the packages unpacked
    # into that root (scripts/package-test.sh).
    expect = os.environ.get("MERKLE_EXPECT_INSTALLED")
    if expect:
        root = "" if expect == "1" else expect.rstrip("/")
        testcase.assertTrue(merkle.__file__.startswith(root + "/usr/lib/python3/"), merkle.__file__)
        testcase.assertNotIn("MERKLE_LIBRARY", os.environ)
