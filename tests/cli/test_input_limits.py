#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Size limits of the inputs the CLI reads whole or keeps (issue 23 item 5, docs/io.md "Size
limits"): leaf lists, --values lists, --load dumps, trie operation files, audit and dirroot
manifests and a line of a check manifest stop at MERKLE_INPUT_MAX (1 GiB by default) with
"NAME: larger than the N-byte limit for WHAT"; /dev/zero, a pipe of zeros and a sparse file
are refused quickly and in bounded memory. A validation cache larger than its entry count
could need is ignored with a warning (never read whole) and the check goes on."""
import hashlib
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, TempDirCase  # noqa: E402

LIMIT_1M = {"MERKLE_INPUT_MAX": "1M"}
# The old code read /dev/zero until it had 3.8 GB. Sanitizer builds (MERKLE_SANITIZE, as
# scripts/test.sh runs them) keep shadow memory and quarantines: a looser bound there.
MAX_RSS_KIB = (1024 if os.environ.get("MERKLE_SANITIZE") else 200) * 1024
HINT = b" (MERKLE_INPUT_MAX raises it)\n"


def run_bounded(args, env=None, stdin=None, cwd=None, timeout=60):
    """Run merkle; (rc, stdout, stderr, peak RSS in KiB, seconds). Killed after timeout."""
    e = dict(os.environ, LC_ALL="C", LANG="C")
    e.pop("MERKLE_INPUT_MAX", None)
    if env:
        e.update(env)
    fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
    out_path = os.path.join(cwd or ".", ".out.%d" % os.getpid())
    t0 = time.monotonic()
    with open(out_path + ".1", "wb") as fo, open(out_path + ".2", "wb") as fe:
        p = subprocess.Popen([BIN] + args, stdin=fin, stdout=fo, stderr=fe, env=e, cwd=cwd)
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > timeout:
                p.kill()
                os.wait4(p.pid, 0)
                raise AssertionError("%s: still running after %d s" % (args, timeout))
            time.sleep(0.01)
    p.returncode = os.waitstatus_to_exitcode(status)
    secs = time.monotonic() - t0
    if stdin:
        fin.close()
    with open(out_path + ".1", "rb") as f:
        out = f.read()
    with open(out_path + ".2", "rb") as f:
        err = f.read()
    os.unlink(out_path + ".1")
    os.unlink(out_path + ".2")
    return p.returncode, out, err, ru.ru_maxrss, secs


class InputLimits(TempDirCase):
    def setUp(self):
        super().setUp()
        self.state = os.path.join(self.dir, "state")

    def readers(self, src):
        """(args, exit status, message prefix) of every capped reader, reading src."""
        return [
            (["audit", src, self.dir], 2, b"merkle: %s: larger than the %%d-byte limit for "
             b"a manifest" % src.encode()),
            (["dirroot", src], 1, b"merkle: %s: larger than the %%d-byte limit for a manifest"
             % src.encode()),
            (["root", "--leaves", src], 1, b"merkle: %s: larger than the %%d-byte limit for "
             b"a leaf list" % src.encode()),
            (["proof", "--leaves", "--index", "0", src], 1, b"merkle: %s: larger than the "
             b"%%d-byte limit for a leaf list" % src.encode()),
            (["root", "--profile", "openzeppelin", "--values", "uint256", src], 1,
             b"merkle: %s: larger than the %%d-byte limit for a --values list" % src.encode()),
            (["root", "--profile", "openzeppelin", "--load", src], 1,
             b"merkle: %s: larger than the %%d-byte limit for a --load dump" % src.encode()),
            (["trie", "root", src], 1, b"merkle: trie: %s: larger than the %%d-byte limit for "
             b"an input file" % src.encode()),
            (["trie", "prove-range", src], 1, b"merkle: trie: %s: larger than the %%d-byte "
             b"limit for an input file" % src.encode()),
            (["trie", "verify", src, "--root", "0" * 64], 2, b"merkle: trie: %s: larger than "
             b"the %%d-byte limit for an input file" % src.encode()),
            (["compact", "append", self.state, src], 1, b"merkle: %s: larger than the "
             b"%%d-byte limit for a leaf list" % src.encode()),
        ]

    def assert_refused(self, args, rc_want, msg, env, stdin=None, limit=1 << 20):
        rc, out, err, rss, secs = run_bounded(args, env=env, stdin=stdin, cwd=self.dir)
        self.assertEqual(rc, rc_want, (args, err))
        if msg is not None:
            self.assertEqual(err, msg.replace(b"%d", b"%d" % limit) + HINT, args)
        else:
            self.assertIn(b"larger than the %d-byte limit for " % limit, err, args)
        self.assertLess(rss, MAX_RSS_KIB, (args, "peak RSS KiB"))
        self.assertLess(secs, 30, args)
        self.assertFalse(os.path.exists(self.state), args)  # nothing written

    @unittest.skipUnless(os.path.exists("/dev/zero"), "no /dev/zero")
    def test_dev_zero(self):
        """/dev/zero named, and the same bytes through a pipe ("-"): each reader stops one byte
        past the limit."""
        for args, rc, msg in self.readers("/dev/zero"):
            with self.subTest(args=args):
                self.assert_refused(args, rc, msg, LIMIT_1M)
        for args, rc, _ in self.readers("-"):
            if args[0] == "audit":
                continue  # the directory walk also reads nothing from stdin: below
            with self.subTest(args=args, stdin="/dev/zero"):
                self.assert_refused(args, rc, None, LIMIT_1M, stdin="/dev/zero")
        self.assert_refused(["audit", "-", self.dir], 2, None, LIMIT_1M, stdin="/dev/zero")
        # check reads its manifest a window at a time: only a line is limited
        rc, out, err, rss, secs = run_bounded(["check", "/dev/zero"], env=LIMIT_1M, cwd=self.dir)
        self.assertEqual((rc, out), (1, b""))
        self.assertEqual(err, b"merkle: /dev/zero: a line larger than the 1048576-byte limit "
                         b"for a manifest line" + HINT)
        self.assertLess(rss, MAX_RSS_KIB)
        rc, out, err, rss, secs = run_bounded(["check", "-"], env=LIMIT_1M, cwd=self.dir,
                                              stdin="/dev/zero")
        self.assertEqual(rc, 1)
        self.assertIn(b"a line larger than the 1048576-byte limit for a manifest line", err)
        self.assertLess(rss, MAX_RSS_KIB)

    def test_sparse_file_over_the_default(self):
        """A regular file over the default 1 GiB (sparse: no disk used) is refused from its
        size, before anything is read."""
        big = self.path("big")
        os.truncate(big, (1 << 30) + 1)
        for args, rc, msg in self.readers(big):
            with self.subTest(args=args):
                self.assert_refused(args, rc, msg, None, limit=1 << 30)

    def test_limit_is_raised_and_lowered(self):
        """MERKLE_INPUT_MAX sets the limit both ways; an invalid value is said and ignored."""
        leaves = "".join("%064x\n" % k for k in range(40000)).encode()  # 2.6 MB
        p = self.path("leaves", leaves)
        rc, want, err, _, _ = run_bounded(["root", "--leaves", p])
        self.assertEqual(rc, 0, err)
        self.assert_refused(["root", "--leaves", p], 1, b"merkle: %s: larger than the %%d-byte "
                            b"limit for a leaf list" % p.encode(), LIMIT_1M)
        rc, out, err, _, _ = run_bounded(["root", "--leaves", p], env={"MERKLE_INPUT_MAX": "3M"})
        self.assertEqual((rc, out, err), (0, want, b""))
        rc, out, err, _, _ = run_bounded(["root", "--leaves", p], env={"MERKLE_INPUT_MAX": "x"})
        self.assertEqual((rc, out), (0, want))
        self.assertEqual(err, b"merkle: warning: MERKLE_INPUT_MAX=x is not a size in bytes "
                         b"(digits, optionally followed by K, M, G or T): the limit stays "
                         b"1073741824 bytes\n")
        # exactly at the limit is accepted, one byte more is not
        exact = {"MERKLE_INPUT_MAX": str(len(leaves))}
        self.assertEqual(run_bounded(["root", "--leaves", p], env=exact)[:2], (0, want))
        over = {"MERKLE_INPUT_MAX": str(len(leaves) - 1)}
        self.assertEqual(run_bounded(["root", "--leaves", p], env=over)[0], 1)
        self.assertEqual(run_bounded(["root", "--leaves", "-"], env=exact, stdin=p)[:2],
                         (0, want.replace(p.encode(), b"-")))
        self.assertEqual(run_bounded(["root", "--leaves", "-"], env=over, stdin=p)[0], 1)

    def test_env_values(self):
        """Every MERKLE_INPUT_MAX value is parsed (digits with an optional K, M, G or T in
        either case, powers of 1024) or refused with a warning naming it, the default then
        standing; 0 is refused; a value above the largest limit is said and clamped; an empty
        value is the default, silently."""
        leaves = "".join("%064x\n" % k for k in range(40)).encode()  # 2600 bytes
        p = self.path("leaves", leaves)
        rc, want, err, _, _ = run_bounded(["root", "--leaves", p])
        self.assertEqual((rc, err), (0, b""))
        refused = b"merkle: %s: larger than the %%d-byte limit for a leaf list" % p.encode()
        for value, limit in (("1k", 1024), ("2K", 2048), ("2599", 2599)):
            with self.subTest(value=value):
                self.assert_refused(["root", "--leaves", p], 1, refused,
                                    {"MERKLE_INPUT_MAX": value}, limit=limit)
        for value in ("3k", "2600", "1m", "1M", "1g", "1G", "1t", "1T", "007K"):
            with self.subTest(value=value):
                rc, out, err, _, _ = run_bounded(["root", "--leaves", p],
                                                 env={"MERKLE_INPUT_MAX": value})
                self.assertEqual((rc, out, err), (0, want, b""))
        not_size = (b"merkle: warning: MERKLE_INPUT_MAX=%s is not a size in bytes (digits, "
                    b"optionally followed by K, M, G or T): the limit stays 1073741824 bytes\n")
        for value in ("garbage", "1.5G", "-1", " 5", "5 ", "2kb", "K", "0x100", "1e6", "+5"):
            with self.subTest(value=value):
                rc, out, err, _, _ = run_bounded(["root", "--leaves", p],
                                                 env={"MERKLE_INPUT_MAX": value})
                self.assertEqual((rc, out), (0, want))
                self.assertEqual(err, not_size % value.encode())
        for value in ("0", "0K", "000"):
            with self.subTest(value=value):
                rc, out, err, _, _ = run_bounded(["root", "--leaves", p],
                                                 env={"MERKLE_INPUT_MAX": value})
                self.assertEqual((rc, out), (0, want))
                self.assertEqual(err, b"merkle: warning: MERKLE_INPUT_MAX=%s: the limit must be "
                                 b"at least 1 byte: it stays 1073741824 bytes\n" % value.encode())
        top = (1 << 63) - 1 if sys.maxsize > 1 << 32 else (1 << 31) - 1  # SIZE_MAX / 2
        for value in ("99999999999999999999999", "99999999999999G", "%dT" % (1 << 30)):
            with self.subTest(value=value):
                rc, out, err, _, _ = run_bounded(["root", "--leaves", p],
                                                 env={"MERKLE_INPUT_MAX": value})
                self.assertEqual((rc, out), (0, want))
                self.assertEqual(err, b"merkle: warning: MERKLE_INPUT_MAX=%s is above the "
                                 b"largest limit: the limit is %d bytes\n"
                                 % (value.encode(), top))
        rc, out, err, _, _ = run_bounded(["root", "--leaves", p], env={"MERKLE_INPUT_MAX": ""})
        self.assertEqual((rc, out, err), (0, want, b""))
        # said once, however many inputs are read
        rc, out, err, _, _ = run_bounded(["root", "--leaves", p, p],
                                         env={"MERKLE_INPUT_MAX": "x"})
        self.assertEqual((rc, err), (0, not_size % b"x"))

    def test_data_files_read_whole(self):
        """The data files read whole (proof --all FILE, verify --leaf FILE) are capped too:
        a message naming the file and the limit, exit 1 or 2, and never OK or FAILED."""
        data = os.urandom(3 * 4096 + 100)
        d = self.path("data", data)
        rc, out, err, _, _ = run_bounded(["proof", "--all", d])
        self.assertEqual((rc, err), (0, b""))
        self.assertEqual(out.count(b"\n"), 4)
        for src, stdin in ((d, None), ("/dev/zero", None), ("-", "/dev/zero")):
            with self.subTest(src=src, stdin=stdin):
                rc, out, err, rss, _ = run_bounded(["proof", "--all", src], stdin=stdin,
                                                   env={"MERKLE_INPUT_MAX": "8K"})
                self.assertEqual((rc, out), (1, b""))
                self.assertEqual(err, b"merkle: %s: larger than the 8192-byte limit for an input "
                                 b"file" % src.encode() + HINT)
                self.assertLess(rss, MAX_RSS_KIB)
        rc, proof, err, _, _ = run_bounded(["proof", "--index", "0", d])
        self.assertEqual((rc, err), (0, b""))
        pf = self.path("p.json", proof)
        root = run_bounded(["root", d])[1].split()[0].decode()
        leaf = self.path("leaf0", data[:4096])
        ok = run_bounded(["verify", pf, "--root", root, "--leaf", leaf],
                         env={"MERKLE_INPUT_MAX": "64K"})
        self.assertEqual(ok[0], 0, ok)
        self.assertTrue(ok[1].startswith(b"OK"), ok)
        for src, stdin in (("/dev/zero", None), ("-", "/dev/zero")):
            with self.subTest(src=src, stdin=stdin):
                rc, out, err, rss, _ = run_bounded(["verify", pf, "--root", root, "--leaf", src],
                                                   stdin=stdin, env={"MERKLE_INPUT_MAX": "64K"})
                self.assertEqual((rc, out), (2, b""))
                self.assertEqual(err, b"merkle: %s: larger than the 65536-byte limit for an "
                                 b"input file" % src.encode() + HINT)
                self.assertLess(rss, MAX_RSS_KIB)
        # the proof file itself is an input file
        small = {"MERKLE_INPUT_MAX": str(len(proof) - 1)}
        rc, out, err, _, _ = run_bounded(["verify", pf, "--root", root, "--leaf", leaf],
                                         env=small)
        self.assertEqual((rc, out), (2, b""))
        self.assertEqual(err, b"merkle: %s: larger than the %d-byte limit for an input file"
                         % (pf.encode(), len(proof) - 1) + HINT)

    def test_own_format_limits(self):
        """A merkledb proof has its own 1 GiB format limit: MERKLE_INPUT_MAX lowers it (then
        named with the hint) but cannot raise it (then named without the hint)."""
        args = ["trie", "verify-range", None, "--root", "0" * 64]
        big = self.path("big")
        os.truncate(big, (1 << 30) + 1)
        for src, env, tail in (
                ("/dev/zero", LIMIT_1M, b" the 1048576-byte limit for an input file" + HINT),
                (big, None, b" 1073741824 bytes\n"),
                (big, {"MERKLE_INPUT_MAX": "2G"}, b" 1073741824 bytes\n")):
            with self.subTest(src=src, env=env):
                args[2] = src
                rc, out, err, rss, _ = run_bounded(args, env=env, cwd=self.dir)
                self.assertEqual((rc, out), (2, b""))
                self.assertEqual(err, b"merkle: trie: %s: larger than" % src.encode() + tail)
                self.assertLess(rss, MAX_RSS_KIB)

    def test_check_limits_a_line_not_the_list(self):
        """A check manifest longer than the limit is fine (read by windows); a line over it
        is not."""
        lines = []
        for k in range(300):
            name = "f%03d" % k
            with open(os.path.join(self.dir, name), "wb") as f:
                f.write(b"%d\n" % k)
            lines.append("%s  %s\n" % (hashlib.sha256(b"%d\n" % k).hexdigest(), name))
        sums = self.path("SUMS", "".join(lines).encode())
        self.assertGreater(os.path.getsize(sums), 4096)
        rc, out, err, _, _ = run_bounded(["check", "SUMS"], env={"MERKLE_INPUT_MAX": "4K"},
                                         cwd=self.dir)
        self.assertEqual((rc, out.count(b": OK\n"), err), (0, 300, b""))
        with open(sums, "ab") as f:
            f.write(b"x" * 5000 + b"\n")
        rc, out, err, _, _ = run_bounded(["check", "SUMS"], env={"MERKLE_INPUT_MAX": "4K"},
                                         cwd=self.dir)
        self.assertEqual(rc, 1)
        self.assertEqual(out.count(b": OK\n"), 300)  # the lines before it were checked
        self.assertIn(b"merkle: SUMS: a line larger than the 4096-byte limit for a manifest "
                      b"line" + HINT, err)

    def test_oversized_cache_is_ignored(self):
        """A cache file larger than its entry count could need (here: 1 entry, 1 GiB sparse)
        is not read: a warning, every file is checked, and the cache is written anew."""
        with open(os.path.join(self.dir, "a"), "wb") as f:
            f.write(b"hello\n")
        self.path("SUMS", b"%s  a\n" % hashlib.sha256(b"hello\n").hexdigest().encode())
        rc, out, err, _, _ = run_bounded(["check", "--cache", "C", "SUMS"], cwd=self.dir)
        self.assertEqual((rc, out, err), (0, b"a: OK\n", b""))
        cache = os.path.join(self.dir, "C")
        small = os.path.getsize(cache)
        os.truncate(cache, 1 << 30)
        rc, out, err, rss, secs = run_bounded(["check", "--cache", "C", "SUMS"], cwd=self.dir)
        self.assertEqual((rc, out), (0, b"a: OK\n"), err)
        self.assertEqual(err, b"merkle: warning: ignoring validation cache: C: 1073741824 bytes, "
                         b"more than its 1 entries could need: not read; checking every file\n")
        self.assertLess(rss, MAX_RSS_KIB)
        self.assertEqual(os.path.getsize(cache), small)  # saved anew
        rc, out, err, _, _ = run_bounded(["check", "--cache", "C", "SUMS"], cwd=self.dir)
        self.assertEqual((rc, out, err), (0, b"a: OK\n", b""))


if __name__ == "__main__":
    unittest.main(verbosity=2)
