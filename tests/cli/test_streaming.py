#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle check` and `merkle sum` print each line as soon as every earlier file is done
(issue 15.4), in list order, also into a pipe: the line of a file comes out while a later
file (a FIFO nobody writes to yet) is still being read."""
import hashlib
import os
import shutil
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
        """Run merkle; the first stdout line must arrive before the FIFO gets a writer."""
        p = subprocess.Popen([BIN] + args, cwd=self.dir, env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        got = {}

        def first_line():
            got["line"] = p.stdout.readline()

        t = threading.Thread(target=first_line)
        t.start()
        t.join(timeout=20)
        streamed = not t.is_alive()
        # now feed the FIFO so that the run can end either way
        with open(self.fifo, "wb") as f:
            f.write(b"late data\n")
        t.join(timeout=20)
        rest, err = p.communicate(timeout=60)
        self.assertTrue(streamed, "no output before the last file was done")
        self.assertEqual(got["line"], want_first)
        return got["line"] + rest, err, p.returncode

    def test_check_streams(self):
        sums = "%s  a\n%s  fifo\n" % (hashlib.sha256(b"first file\n").hexdigest(),
                                      hashlib.sha256(b"late data\n").hexdigest())
        with open(os.path.join(self.dir, "SUMS"), "w") as f:
            f.write(sums)
        out, err, rc = self.stream(["check", "-j", "1", "SUMS"], b"a: OK\n")
        self.assertEqual((out, rc), (b"a: OK\nfifo: OK\n", 0), err)

    def test_sum_streams(self):
        out, err, rc = self.stream(["sum", "-a", "sha256", "-j", "1", "a", "fifo"],
                                   b"%s  a\n" % hashlib.sha256(b"first file\n").hexdigest().encode())
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.split(b"\n")[1],
                         b"%s  fifo" % hashlib.sha256(b"late data\n").hexdigest().encode())


if __name__ == "__main__":
    unittest.main()
