#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle sum` prints each line as soon as every earlier file is done (issue 15.4), in list
order, also into a pipe: the line of a file comes out while a later file (a FIFO nobody
writes to yet) is still being read. `merkle check` and `merkle audit` refuse a listed name
that is not a regular file without opening it for reading (issue 23.5): a FIFO, a device,
a directory or a socket never blocks them."""
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN  # noqa: E402

ENV = dict(os.environ, LC_ALL="C", LANG="C")


class TestStreaming(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="merkle_stream_")
        self.fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(self.fifo)
        with open(os.path.join(self.dir, "a"), "wb") as f:
            f.write(b"first file\n")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def stream(self, args, want_first):
        """Run merkle; the first len(want_first) stdout lines must arrive before the FIFO gets
        a writer."""
        p = subprocess.Popen([BIN] + args, cwd=self.dir, env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        got = {}

        def first_lines():
            got["lines"] = [p.stdout.readline() for _ in want_first]

        t = threading.Thread(target=first_lines)
        t.start()
        t.join(timeout=20)
        streamed = not t.is_alive()
        # now feed the FIFO so that the run can end either way
        with open(self.fifo, "wb") as f:
            f.write(b"late data\n")
        t.join(timeout=20)
        rest, err = p.communicate(timeout=60)
        self.assertTrue(streamed, "no output before the last file was done")
        self.assertEqual(got["lines"], want_first)
        return b"".join(got["lines"]) + rest, err, p.returncode

    def files(self, n):
        """n more small files b0..b(n-1); their names."""
        names = []
        for k in range(n):
            names.append("b%d" % k)
            with open(os.path.join(self.dir, names[-1]), "wb") as f:
                f.write(b"file %d\n" % k)
        return names

    def test_sum_streams(self):
        """sum reads a FIFO named on its command line (as md5sum does: `merkle sum <(cmd)`),
        but only after every earlier file is done and printed; with the MD5 lanes too."""
        names = ["a"] + self.files(40)
        for alg, h in (("sha256", hashlib.sha256), ("md5", hashlib.md5)):
            with self.subTest(alg=alg):
                want = [b"%s  %s\n" % (h(open(os.path.join(self.dir, n), "rb").read())
                                       .hexdigest().encode(), n.encode()) for n in names]
                out, err, rc = self.stream(["sum", "-a", alg, "-j", "1"] + names + ["fifo"],
                                           want)
                self.assertEqual(rc, 0, err)
                self.assertEqual(out.split(b"\n")[len(names)],
                                 b"%s  fifo" % h(b"late data\n").hexdigest().encode())

    def check(self, args, timeout=30):
        p = subprocess.run([BIN] + args, cwd=self.dir, env=ENV, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def test_check_refuses_what_is_not_a_file(self):
        """check and audit read only regular files: a listed FIFO (no writer), a symbolic link
        to /dev/zero, /dev/null, a directory and a socket (which open(2) itself refuses) are refused unread, each with its
        own verdict line, and never block; every other file is still checked (200 of them
        before the FIFO, for the MD5 engine and the others, -j 1 and -j 2)."""
        names = self.files(200)
        os.symlink("/dev/zero", os.path.join(self.dir, "zero"))
        os.symlink("/dev/null", os.path.join(self.dir, "null"))
        os.mkdir(os.path.join(self.dir, "dir"))
        sock = socket.socket(socket.AF_UNIX)
        self.addCleanup(sock.close)
        sock.bind(os.path.join(self.dir, "sock"))
        odd = {"fifo": "not a regular file", "zero": "not a regular file",
               "null": "not a regular file", "dir": "Is a directory",
               "sock": "No such device or address"}  # open(2) of a socket: ENXIO
        for alg, h in (("md5", hashlib.md5), ("sha256", hashlib.sha256)):
            lines = ["%s  %s\n" % (h(b"file %d\n" % k).hexdigest(), n)
                     for k, n in enumerate(names)]
            lines.insert(100, "%s  zero\n" % h(b"").hexdigest())
            lines += ["%s  %s\n" % (h(b"").hexdigest(), n) for n in odd if n != "zero"]
            lines.append("%s  %s\n" % (h(b"file 0\n").hexdigest(), "b0"))
            with open(os.path.join(self.dir, "SUMS"), "w") as f:
                f.write("".join(lines))
            want = []
            for ln in lines:
                name = ln.split("  ", 1)[1][:-1]
                want.append(b"%s: %s\n" % (name.encode(),
                                            b"FAILED open or read" if name in odd else b"OK"))
            for j in ("1", "2"):
                with self.subTest(alg=alg, j=j):
                    rc, out, err = self.check(["check", "-j", j, "SUMS"])
                    self.assertEqual((rc, out), (1, b"".join(want)), err)
                    for name, msg in odd.items():
                        self.assertIn(b"merkle: %s: %s\n" % (name.encode(), msg.encode()), err)
                    self.assertIn(b"WARNING: 5 listed files could not be read", err)
                    # audit: the same entries unreadable (exit 2), no hang
                    rc, out, err = self.check(["audit", "-j", j, "SUMS", "."])
                    self.assertEqual((rc, out), (2, b"new: a\n"), err)
                    for name, msg in odd.items():
                        self.assertIn(b"merkle: %s: %s\n" % (name.encode(), msg.encode()), err)
                    self.assertIn(b" 5 unreadable", err)


if __name__ == "__main__":
    unittest.main()
