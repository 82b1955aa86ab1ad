# SPDX-License-Identifier: MIT OR Apache-2.0
"""End-to-end tests of `merkle compact append|merge|root|show`: a log appended in random
batches (leaves or leaf hashes, from files or standard input) keeps the RFC 6962 root of an
independent Python reference (hashlib only) and of `merkle root --leaves`; ranges saved in
pieces merge back; `show` lists the maximal aligned blocks of [begin, end) with their roots
(what transparency-dev's compact.Range holds); the MKCR bytes follow docs/proofs.md; files
that are not compact ranges are never written over; every error path has its exit code."""
import hashlib
import json
import os
import random
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import TempDirCase, run, windows  # noqa: E402


def lh(d):
    return hashlib.sha256(b"\0" + d).digest()


def mth(hs):
    if len(hs) == 1:
        return hs[0]
    k = 1
    while k * 2 < len(hs):
        k *= 2
    return hashlib.sha256(b"\1" + mth(hs[:k]) + mth(hs[k:])).digest()


def blocks(begin, end):
    out, pos = [], begin
    while pos < end:
        size = 1
        while pos % (size * 2) == 0 and pos + size * 2 <= end:
            size *= 2
        out.append((pos, pos + size))
        pos += size
    return out


def lines(leaves):
    return b"".join(x.hex().encode() + b"\n" for x in leaves)


class CompactTest(TempDirCase):
    def append(self, state, data, *opts, file=None):
        args = ["compact", "append", *opts, state]
        if file is not None:
            args.append(file)
            rc, out, err = run(args)
        else:
            rc, out, err = run(args, stdin=data)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, b"")

    def root(self, state):
        rc, out, err = run(["compact", "root", state])
        self.assertEqual(rc, 0, err)
        return bytes.fromhex(out.decode().strip())

    def show(self, state):
        rc, out, err = run(["compact", "show", state])
        self.assertEqual(rc, 0, err)
        return json.loads(out)

    def test_log_in_random_batches(self):
        rng = random.Random(26)
        state = os.path.join(self.dir, "log.mkcr")
        leaves = []
        for step in range(25):
            batch = [rng.randbytes(rng.randrange(0, 40)) for _ in range(rng.randrange(0, 9))]
            mode = step % 3
            if mode == 0:
                self.append(state, lines(batch))
            elif mode == 1:  # leaf hashes, some with 0x and CRLF
                data = b"".join((b"0x" if i % 2 else b"") + lh(x).hex().encode() + b"\r\n"
                                for i, x in enumerate(batch))
                self.append(state, data, "--leaf-hashes")
            else:
                self.append(state, b"", file=self.path("batch%d" % step, lines(batch)))
            leaves += batch
            hs = [lh(x) for x in leaves]
            shown = self.show(state)
            self.assertEqual((shown["hash"], shown["begin"], shown["end"]),
                             ("sha256", 0, len(leaves)))
            self.assertEqual(shown["hashes"],
                             [mth(hs[a:b]).hex() for a, b in blocks(0, len(leaves))])
            if leaves:
                self.assertEqual(self.root(state), mth(hs))
                rc, out, _ = run(["root", "--leaves"], stdin=lines(leaves))
                self.assertEqual(out.split()[0].decode(), mth(hs).hex())
            else:
                self.assertEqual(self.root(state), hashlib.sha256(b"").digest())

    def test_merge_pieces(self):
        rng = random.Random(7)
        leaves = [rng.randbytes(8) for _ in range(77)]
        hs = [lh(x) for x in leaves]
        cuts = sorted(rng.sample(range(1, 77), 5))
        bounds = [0] + cuts + [77]
        names = []
        for i in range(len(bounds) - 1):
            a, b = bounds[i], bounds[i + 1]
            name = os.path.join(self.dir, "p%d" % i)
            self.append(name, lines(leaves[a:b]), "--begin", str(a))
            shown = self.show(name)
            self.assertEqual((shown["begin"], shown["end"]), (a, b))
            self.assertEqual(shown["hashes"], [mth(hs[x:y]).hex() for x, y in blocks(a, b)])
            names.append(name)
        # A range that does not begin at 0 has no root.
        rc, out, err = run(["compact", "root", names[1]])
        self.assertEqual((rc, out), (1, b""))
        self.assertIn(b"not 0", err)
        rc, _, err = run(["compact", "merge"] + names)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.root(names[0]), mth(hs))
        # The merged state keeps appending.
        self.append(names[0], lines([b"more"]))
        self.assertEqual(self.root(names[0]), mth(hs + [lh(b"more")]))

    def test_bytes_on_disk(self):
        state = os.path.join(self.dir, "s")
        leaves = [b"a", b"b", b"c", b"d", b"e", b"f"]
        self.append(state, lines(leaves[3:]), "--begin", "3")
        with open(state, "rb") as f:
            data = f.read()
        hs = [lh(x) for x in leaves]
        want = b"MKCR" + bytes([1, 1]) + struct.pack(">QQB", 3, 6, 2) + hs[3] + mth(hs[4:6])
        self.assertEqual(data, want)
        # keccak256 and blake2b-256 ranges carry their own hash byte.
        for name, byte in (("keccak256", 7), ("blake2b-256", 2)):
            p = os.path.join(self.dir, name)
            self.append(p, b"00\n", "--hash", name)
            with open(p, "rb") as f:
                self.assertEqual(f.read()[5], byte)
            self.assertEqual(self.show(p)["hash"], name)

    def test_never_writes_over_other_files(self):
        other = self.path("notes.txt", b"precious\n")
        for args in (["append", other], ["merge", other, other], ["root", other],
                     ["show", other]):
            rc, out, err = run(["compact"] + args, stdin=b"00\n")
            self.assertEqual(rc, 1, args)
            self.assertIn(b"MKCR", err)
            with open(other, "rb") as f:
                self.assertEqual(f.read(), b"precious\n")
        # A truncated or extended state file is refused and left as it is.
        state = os.path.join(self.dir, "s")
        self.append(state, b"00\n01\n02\n")
        with open(state, "rb") as f:
            good = f.read()
        for bad in (good[:-1], good + b"\0", good[:4]):
            with open(state, "wb") as f:
                f.write(bad)
            rc, _, err = run(["compact", "append", state], stdin=b"00\n")
            self.assertEqual(rc, 1)
            with open(state, "rb") as f:
                self.assertEqual(f.read(), bad)
        # A directory or a symbolic link is not a state file.
        os.mkdir(os.path.join(self.dir, "d"))
        rc, _, err = run(["compact", "append", os.path.join(self.dir, "d")], stdin=b"")
        self.assertEqual(rc, 1)
        if windows():  # POSIX only: a host symbolic link is an ordinary file to merkle.exe
            self.assertEqual(sorted(os.listdir(self.dir)), ["d", "notes.txt", "s"])
            return
        with open(state, "wb") as f:
            f.write(good)
        link = os.path.join(self.dir, "link")
        os.symlink(state, link)
        rc, _, err = run(["compact", "append", link], stdin=b"00\n")
        self.assertEqual(rc, 1)
        self.assertTrue(os.path.islink(link))
        with open(state, "rb") as f:
            self.assertEqual(f.read(), good)
        self.assertEqual(sorted(os.listdir(self.dir)), ["d", "link", "notes.txt", "s"])

    def test_bad_input_leaves_state(self):
        state = os.path.join(self.dir, "s")
        self.append(state, b"00\n")
        with open(state, "rb") as f:
            good = f.read()
        for data, opts, msg in ((b"00\nzz\n", [], b":2:"), (b"0011\n", ["--leaf-hashes"], b"32 bytes"),
                                (b"\n", ["--leaf-hashes"], b"32 bytes")):
            rc, _, err = run(["compact", "append", *opts, state], stdin=data)
            self.assertEqual(rc, 1, err)
            self.assertIn(msg, err)
            with open(state, "rb") as f:
                self.assertEqual(f.read(), good)
        # A missing FILE, and a missing STATE for merge/root/show.
        missing = os.path.join(self.dir, "nope")
        self.assertEqual(run(["compact", "append", state, missing])[0], 1)
        for args in (["merge", missing, state], ["merge", state, missing], ["root", missing],
                     ["show", missing]):
            self.assertEqual(run(["compact"] + args)[0], 1, args)
        self.assertFalse(os.path.exists(missing))
        # Non-adjacent and mixed-hash merges.
        right = os.path.join(self.dir, "r")
        self.append(right, b"00\n", "--begin", "5")
        rc, _, err = run(["compact", "merge", state, right])
        self.assertEqual(rc, 1)
        self.assertIn(b"begins at 5", err)
        k = os.path.join(self.dir, "k")
        self.append(k, b"00\n", "--begin", "1", "--hash", "keccak256")
        rc, _, err = run(["compact", "merge", state, k])
        self.assertEqual(rc, 1)
        self.assertIn(b"keccak256", err)
        with open(state, "rb") as f:
            self.assertEqual(f.read(), good)

    def test_usage_errors(self):
        state = os.path.join(self.dir, "s")
        self.append(state, b"00\n")
        for args in ([], ["frob"], ["append"], ["append", state, "a", "b"],
                     ["append", "--hash", "md5", state], ["append", "--begin", "x", state],
                     ["append", "--begin", "-1", state], ["append", "--hash", "keccak256", state],
                     ["append", "--begin", "4", state], ["merge", state], ["root"],
                     ["root", state, state], ["show"], ["append", "--bogus", state]):
            rc, out, err = run(["compact"] + args, stdin=b"")
            self.assertEqual(rc, 2, args)
            self.assertEqual(out, b"")
        # Matching --hash/--begin with an existing state are fine.
        self.append(state, b"01\n", "--hash", "sha256", "--begin", "0")
        for args in (["--help"], ["append", "--help"], ["show", "-h"]):
            rc, out, _ = run(["compact"] + args)
            self.assertEqual(rc, 0)
            self.assertIn(b"Usage: merkle compact", out)


if __name__ == "__main__":
    unittest.main()
