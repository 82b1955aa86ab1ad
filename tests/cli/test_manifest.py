# SPDX-License-Identifier: MIT OR Apache-2.0
"""merkle sum / check / audit / dirroot against the real coreutils tools.

Differential: the same directory and manifest go to md5sum/sha1sum/sha256sum/sha512sum/b2sum and
to merkle; stdout must be byte-identical, stderr identical after the program name before the
first colon, exit codes equal. Names are awkward on purpose (spaces, backslashes, newlines,
CR, leading '*' and spaces, quotes, non-UTF-8 bytes).
"""
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, run  # noqa: E402

TOOLS = {"md5": "md5sum", "sha1": "sha1sum", "sha256": "sha256sum", "sha512": "sha512sum",
         "blake2b": "b2sum"}
ENV = {"LC_ALL": "C", "LANG": "C"}

AWKWARD = [b"plain.txt", b"with space", b"back\\slash", b"new\nline", b"cr\rname", b"*star",
           b" lead space", b"trail space ", b"quote'apos", b'dq"x', b"colon:x", b"\xff\xfe bytes",
           b"caf\xc3\xa9", b"tab\tx", b"#hash", b"~tilde", b"a)b(c", b"MD5 (x) = y", b"$dollar",
           b"x\\n", b"-dash", b"sub/inner file"]


def tool(alg, args, cwd, stdin=b""):
    p = subprocess.run([TOOLS[alg]] + args, cwd=cwd, input=stdin, capture_output=True,
                       env=dict(os.environ, **ENV), timeout=300)
    return p.returncode, p.stdout, p.stderr


# strerror texts that differ between C libraries for the same errno (musl, glibc): the
# comparison with GNU md5sum is about the message, not the libc's wording of errno.
LIBC_WORDING = [(b"Filename too long", b"File name too long")]


def strip_prog(err):
    """Drop the program name before the first colon of every stderr line."""
    for theirs, glibc in LIBC_WORDING:
        err = err.replace(theirs, glibc)
    return [l.split(b":", 1)[1] if b":" in l else l for l in err.split(b"\n")]


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="merkle_manifest_")
        self.rng = random.Random(1234)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def p(self, name):
        return os.path.join(self.dir.encode(), name)

    def write(self, name, data):
        path = self.p(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def populate(self, names=AWKWARD):
        for i, n in enumerate(names):
            self.write(n, bytes(self.rng.getrandbits(8) for _ in range(self.rng.choice([0, 1, 63, 64, 65, 1000, 5000 + i]))))

    def merkle(self, args, stdin=b"", cwd=None):
        return run(args, stdin=stdin, env=ENV, cwd=cwd or self.dir)

    def same(self, alg, tool_args, merkle_args, stdin=b"", msg=""):
        t = tool(alg, tool_args, self.dir, stdin)
        m = self.merkle(merkle_args, stdin)
        self.assertEqual(m[1], t[1], "stdout differs %s %r" % (msg, tool_args))
        self.assertEqual(strip_prog(m[2]), strip_prog(t[2]), "stderr differs %s %r" % (msg, tool_args))
        self.assertEqual(m[0], t[0], "exit code differs %s %r: %r" % (msg, tool_args, m[2]))
        return m


class TestSum(Base):
    def test_sum_all_algorithms_and_options(self):
        self.populate()
        names = [n.decode("latin1") for n in AWKWARD]
        # Pass names as bytes through os.fsencode-compatible argv.
        bnames = [os.fsdecode(n) for n in AWKWARD]
        for alg in TOOLS:
            for opts in ([], ["--tag"], ["-z"], ["--tag", "-z"], ["-b"], ["-t"], ["--tag", "-b"],
                         ["-t", "--tag"], ["-b", "-z"]):
                self.same(alg, opts + ["--"] + bnames, ["sum", "-a", alg] + opts + ["--"] + bnames,
                          msg=alg)
        for bits in ("8", "128", "256", "512", "0"):
            for opts in ([], ["--tag"]):
                self.same("blake2b", ["-l", bits] + opts + ["--"] + bnames,
                          ["sum", "-a", "blake2b", "-l", bits] + opts + ["--"] + bnames)
        self.assertTrue(names)

    def test_sum_stdin_missing_directory(self):
        self.populate([b"a"])
        os.mkdir(self.p(b"d"))
        for alg in ("md5", "sha256", "blake2b"):
            self.same(alg, [], ["sum", "-a", alg], stdin=b"hello\n")
            self.same(alg, ["-", "a"], ["sum", "-a", alg, "-", "a"], stdin=b"x" * 100000)
            self.same(alg, ["a", "missing file", "d", "a"], ["sum", "-a", alg, "a", "missing file", "d", "a"])

    def test_sum_threads_same_output(self):
        for i in range(300):
            self.write(b"f%03d" % i, os.urandom(self.rng.choice([0, 10, 4096, 70000])))
        names = sorted(os.listdir(self.dir))
        ref = tool("md5", names, self.dir)
        for j in ("1", "2", "3", "0"):
            m = self.merkle(["sum", "-j", j] + names)
            self.assertEqual(m[1], ref[1])
            self.assertEqual(m[0], 0)

    def test_error_name_quoting_random(self):
        """Names in error messages are quoted exactly as coreutils quotes them, in the C locale
        and in a UTF-8 locale (valid printable UTF-8 kept, other bytes escaped)."""
        pieces = [bytes([b]) for b in range(1, 128) if b != 0x2f] + [
            b"\xc3\xa9", b"\xe2\x80\x8b", b"\xc2\xa0", b"\xc2\x85", b"\xff", b"\xc3", b"\xe2\x82",
            b"\xf0\x9f\x98\x80", b"'", b"''", b" ", b"\\", b"\n"]
        names = [bytes([b]) for b in range(1, 256) if b != 0x2f]
        for _ in range(400):
            names.append(b"".join(self.rng.choice(pieces) for _ in range(self.rng.randrange(1, 6))))
        names = [n for n in names if n not in (b".", b"..", b"-") and not n.startswith(b"-")]
        args = [os.fsdecode(n) for n in names]
        for loc in ("C", "C.UTF-8"):
            env = {"LC_ALL": loc, "LANG": loc}
            t = subprocess.run(["md5sum", "--"] + args, cwd=self.dir, capture_output=True,
                               env=dict(os.environ, **env), timeout=60)
            m = run(["sum", "--"] + args, env=env, cwd=self.dir)
            self.assertEqual(strip_prog(m[2]), strip_prog(t.stderr), loc)
            self.assertEqual(m[0], t.returncode)

    def test_sum_usage_errors(self):
        for args in (["-l", "12", "-a", "blake2b"], ["-l", "520", "-a", "blake2b"], ["-l", "128"],
                     ["-a", "crc32"], ["--tag", "-t"], ["--bogus"], ["-j", "x"]):
            rc, out, err = self.merkle(["sum"] + args + ["x"])
            self.assertEqual(rc, 1, args)  # md5sum's usage status
            self.assertEqual(out, b"")
            self.assertIn(b"merkle sum:", err)


CHECK_OPTS = [[], ["--quiet"], ["--status"], ["--strict"], ["-w"], ["--ignore-missing"],
              ["-w", "--strict"], ["--quiet", "--ignore-missing"], ["--status", "--strict", "-w"],
              ["--status", "--ignore-missing"]]


class TestCheck(Base):
    def make_manifest(self, alg, names, extra=b"", tag=False):
        args = (["--tag"] if tag else []) + ["--"] + [os.fsdecode(n) for n in names]
        rc, out, err = tool(alg, args, self.dir)
        self.assertEqual(rc, 0, err)
        with open(self.p(b"SUMS"), "wb") as f:
            f.write(out + extra)
        return out

    def damage(self, names):
        """Modify, truncate, delete, make a directory out of some files."""
        self.write(names[1], b"changed contents")
        with open(self.p(names[2]), "r+b") as f:
            f.truncate(0)
        os.unlink(self.p(names[3]))
        os.unlink(self.p(names[4]))
        os.mkdir(self.p(names[4]))

    def test_check_differential_all_algorithms(self):
        self.populate()
        for alg in TOOLS:
            for tag in (False, True):
                self.make_manifest(alg, AWKWARD, tag=tag)
                for opts in CHECK_OPTS:
                    self.same(alg, ["-c"] + opts + ["SUMS"], ["check", "-a", alg] + opts + ["SUMS"], msg="clean")
                    # without -a: detected from the first line (128 hex digits untagged are
                    # SHA-512, so b2sum's untagged lists need -a blake2b: documented)
                    if alg == "blake2b" and not tag:
                        continue
                    self.same(alg, ["-c"] + opts + ["SUMS"], ["check"] + opts + ["SUMS"], msg="auto")

    def test_check_damaged_and_broken_manifest(self):
        self.populate()
        names = AWKWARD
        extra = (b"not a checksum line\n\n# comment\n0123  short\n" +
                 b"d41d8cd98f00b204e9800998ecf8427e  \n" +
                 b"\\d41d8cd98f00b204e9800998ecf8427e  bad\\escape\n" +
                 b"D41D8CD98F00B204E9800998ECF8427E  upper-missing\r\n" +
                 b"MD5 (tagged missing) = d41d8cd98f00b204e9800998ecf8427e\n" +
                 b"MD5(x)=zz\n" + b"d41d8cd98f00b204e9800998ecf8427e\tx\n")
        for alg in ("md5", "sha256", "blake2b", "sha1", "sha512"):
            self.populate()
            self.make_manifest(alg, names, extra=extra)
            self.damage(names)
            for opts in CHECK_OPTS:
                self.same(alg, ["-c"] + opts + ["SUMS"], ["check", "-a", alg] + opts + ["SUMS"], msg=alg)
            os.rmdir(self.p(names[4]))

    def test_check_special_manifests(self):
        self.populate([b"a", b"b"])
        self.make_manifest("md5", [b"a", b"b"])
        with open(self.p(b"SUMS"), "rb") as f:
            good = f.read()
        cases = {
            b"empty": b"",
            b"garbage": b"garbage\nmore garbage\n",
            b"all-missing": b"d41d8cd98f00b204e9800998ecf8427e  nope1\nd41d8cd98f00b204e9800998ecf8427e  nope2\n",
            b"noeol": good.rstrip(b"\n"),
            b"reversed": b"\n".join(l.replace(b"  ", b" ", 1) for l in good.split(b"\n")),
            b"mixed": good + b"d41d8cd98f00b204e9800998ecf8427e x\n",
            b"nul": b"d41d8cd98f00b204e9800998ecf8427e  a\x00b\n",
            b"crlf": good.replace(b"\n", b"\r\n"),
            b"lead-ws": b"  \t" + good,
        }
        for name, text in cases.items():
            with open(self.p(name), "wb") as f:
                f.write(text)
            for opts in (["-w"], ["--strict"], ["--ignore-missing"], ["--status"]):
                self.same("md5", ["-c"] + opts + [os.fsdecode(name)],
                          ["check", "-a", "md5"] + opts + [os.fsdecode(name)], msg=name)
        # several manifests, one missing, and a directory as manifest
        os.mkdir(self.p(b"dir"))
        self.same("md5", ["-c", "SUMS", "nonexistent", "garbage", "dir", "SUMS"],
                  ["check", "-a", "md5", "SUMS", "nonexistent", "garbage", "dir", "SUMS"])
        # manifest on stdin; a "-" name in it is improperly formatted
        self.same("md5", ["-c", "-w"], ["check", "-a", "md5", "-w"],
                  stdin=good + b"d41d8cd98f00b204e9800998ecf8427e  -\n")
        self.same("md5", ["-c", "-"], ["check", "-a", "md5", "-"], stdin=good)
        # a "-" name in a manifest file is standard input
        with open(self.p(b"dash"), "wb") as f:
            f.write(b"b1946ac92492d2347c6235b4d2611184  -\n" + good)
        self.same("md5", ["-c", "dash"], ["check", "-a", "md5", "dash"], stdin=b"hello\n")
        self.same("md5", ["-c", "dash"], ["check", "-a", "md5", "dash"], stdin=b"other\n")

    def test_check_random_lines(self):
        """Mutated checksum lines: every parse decision must match coreutils."""
        self.populate([b"a", b"b c", b"x)y"])
        rng = self.rng
        algs = ("md5", "sha256", "blake2b")
        for round_ in range(12):
            alg = algs[round_ % 3]
            rc, good, _ = tool(alg, ["a", "b c", "x)y"], self.dir)
            rc, goodtag, _ = tool(alg, ["--tag", "a", "b c", "x)y"], self.dir)
            lines = (good + goodtag).split(b"\n")[:-1]
            out = []
            for _ in range(60):
                l = bytearray(rng.choice(lines))
                for _ in range(rng.choice([0, 1, 1, 2, 3])):
                    op = rng.randrange(6)
                    pos = rng.randrange(len(l) + 1)
                    if op == 0 and l:
                        del l[min(pos, len(l) - 1)]
                    elif op == 1:
                        l[pos:pos] = bytes([rng.choice(b" \t*\\()=-0aAfF\r#nrx8")])
                    elif op == 2 and l:
                        l[min(pos, len(l) - 1)] = rng.choice(b" \t*\\()=0aG")
                    elif op == 3:
                        l[pos:pos] = b"\\"
                    elif op == 4:
                        l = bytearray(b" " * rng.randrange(3)) + l
                    else:
                        l = l.replace(b"BLAKE2b", b"BLAKE2b-%d" % rng.choice([8, 16, 128, 256, 512, 520, 12, 0]), 1)
                out.append(bytes(l))
            text = b"\n".join(out) + b"\n"
            with open(self.p(b"R"), "wb") as f:
                f.write(text)
            for opts in (["-w"], ["-w", "--strict"]):
                self.same(alg, ["-c"] + opts + ["R"], ["check", "-a", alg] + opts + ["R"], msg=text)

    def test_check_threads_and_large(self):
        names = []
        for i in range(200):
            n = b"f%03d" % i
            names.append(n)
            self.write(n, os.urandom(self.rng.choice([0, 1, 64, 4096, 100000, 300000])))
        self.make_manifest("md5", names)
        self.write(names[7], b"modified")
        os.unlink(self.p(names[8]))
        ref = tool("md5", ["-c", "SUMS"], self.dir)
        for j in ("1", "2", "4", "0"):
            m = self.merkle(["check", "-j", j, "SUMS"])
            self.assertEqual((m[0], m[1], strip_prog(m[2])), (ref[0], ref[1], strip_prog(ref[2])))

    @unittest.skipIf(os.geteuid() == 0, "root reads mode-000 files")
    def test_check_unreadable_file(self):
        self.populate([b"a", b"b"])
        self.make_manifest("md5", [b"a", b"b"])
        os.chmod(self.p(b"a"), 0)
        for opts in ([], ["--status"], ["--quiet"]):
            self.same("md5", ["-c"] + opts + ["SUMS"], ["check"] + opts + ["SUMS"])

    def test_check_usage(self):
        for args in (["-a", "nope", "x"], ["--cache-key", "k", "x"], ["--bogus"], ["-j", "-1"]):
            rc, out, err = self.merkle(["check"] + args)
            self.assertEqual(rc, 1, args)  # md5sum -c's usage status


class TestLongManifest(Base):
    """Manifests longer than one read window (1 MiB of text) are read and checked a window at
    a time: same output as md5sum -c (line numbers of malformed lines, names, summaries), also
    when a line is longer than a window, and bounded memory."""

    def long_manifest(self, lines_per_file=1, bad_every=0, extra=b""):
        names = [b"f%03d" % i for i in range(300)]
        for n in names:
            self.write(n, b"data of %s\n" % n)
        self.write(b"f007", b"changed")  # one FAILED
        good = []
        for n in names:
            d = hashlib.md5(b"data of %s\n" % n).hexdigest().encode()
            good.append(d + b"  " + n + b"\n")
        out = []
        k = 0
        for _ in range(lines_per_file):
            for ln in good:
                k += 1
                out.append(ln)
                if bad_every and k % bad_every == 0:
                    out.append(b"not a checksum line %d\n" % k)
        with open(self.p(b"LONG"), "wb") as f:
            f.write(b"".join(out) + extra)

    def test_windows_match_md5sum(self):
        self.long_manifest(lines_per_file=120, bad_every=9973)  # 36,000 lines, 1.5 MiB
        self.assertGreater(os.path.getsize(self.p(b"LONG")), 1 << 20)
        for args in (["-c", "-w", "LONG"], ["-c", "--quiet", "LONG"], ["-c", "--strict", "LONG"]):
            self.same("md5", args, ["check"] + args[1:], msg="long")
        for j in ("1", "2"):
            self.same("md5", ["-c", "LONG"], ["check", "-j", j, "LONG"], msg="long -j")
        with open(self.p(b"LONG"), "rb") as f:
            data = f.read()
        self.same("md5", ["-c", "-w", "-"], ["check", "-w", "-"], stdin=data, msg="stdin")

    def test_line_longer_than_a_window(self):
        self.long_manifest(lines_per_file=60,
                           extra=b"0" * 32 + b"  " + b"y" * (3 << 20) + b"\n" + b"tail\n")
        self.same("md5", ["-c", "-w", "LONG"], ["check", "-w", "LONG"], msg="long line")

    def test_read_error(self):
        """A list that cannot be read (a directory: EISDIR on the first read) is reported as
        md5sum -c reports it, alone and among other lists."""
        self.long_manifest(lines_per_file=1)
        os.mkdir(self.p(b"adir"))
        for args in (["adir"], ["LONG", "adir", "LONG"]):
            self.same("md5", ["-c", "--quiet"] + args, ["check", "--quiet"] + args, msg="dir")

    def test_memory_bounded(self):
        if os.environ.get("MERKLE_SANITIZE"):
            self.skipTest("sanitizer builds keep shadow memory and quarantines: RSS means nothing")
        self.long_manifest(lines_per_file=1500)  # 450,000 lines, 18 MiB of text
        code = ("import resource, subprocess, sys; "
                "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
                "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        p = subprocess.run([sys.executable, "-c", code, BIN, "check", "-j", "2", "--quiet", "LONG"],
                           cwd=self.dir, capture_output=True, env=dict(os.environ, **ENV), timeout=600)
        rc, kib = map(int, p.stdout.split())
        self.assertEqual(rc, 1)  # f007 FAILED
        self.assertLess(kib, 32 * 1024, "peak RSS %d KiB for 450,000 lines" % kib)


class TestCache(Base):
    def setup_data(self, n=20):
        names = [b"c%02d" % i for i in range(n)]
        past = time.time() - 100
        for k in names:
            self.write(k, os.urandom(3000))
            os.utime(self.p(k), (past, past))
        rc, out, _ = tool("md5", [os.fsdecode(k) for k in names], self.dir)
        with open(self.p(b"SUMS"), "wb") as f:
            f.write(out)
        time.sleep(0.05)  # ctime of the new files strictly older than the first check
        return names

    def check(self, *extra):
        return self.merkle(["check", "--cache", "cache"] + list(extra) + ["SUMS"])

    def test_cache_same_output_and_detects_changes(self):
        names = self.setup_data()
        first = self.check()
        self.assertEqual(first[0], 0)
        self.assertTrue(os.path.exists(self.p(b"cache")))
        second = self.check()
        self.assertEqual(second, first)
        # modified, mtime restored
        st = os.stat(self.p(names[0]))
        with open(self.p(names[0]), "r+b") as f:
            b = f.read(1)  # flip the first byte (a fixed b"X" was already there 1 time in 256)
            f.seek(0)
            f.write(bytes([b[0] ^ 0xFF]))
        os.utime(self.p(names[0]), ns=(st.st_atime_ns, st.st_mtime_ns))
        # replaced by rename, same size and mtime
        tmp = self.p(b"tmpfile")
        with open(tmp, "wb") as f:
            f.write(os.urandom(3000))
        st = os.stat(self.p(names[1]))
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.rename(tmp, self.p(names[1]))
        # truncated, mtime restored
        st = os.stat(self.p(names[2]))
        os.truncate(self.p(names[2]), 0)
        os.utime(self.p(names[2]), ns=(st.st_atime_ns, st.st_mtime_ns))
        ref = tool("md5", ["-c", "SUMS"], self.dir)
        for _ in range(2):
            m = self.check()
            self.assertEqual((m[0], m[1], strip_prog(m[2])), (ref[0], ref[1], strip_prog(ref[2])))
            self.assertIn(b"c00: FAILED", m[1])
            self.assertIn(b"c01: FAILED", m[1])
            self.assertIn(b"c02: FAILED", m[1])

    def test_cache_never_turns_failed_into_ok(self):
        names = self.setup_data()
        self.check()
        # The manifest changes its expectation: the cached digest no longer matches it.
        with open(self.p(b"SUMS"), "rb") as f:
            text = f.read()
        text = text.replace(text[:32], b"0" * 32, 1)
        with open(self.p(b"SUMS"), "wb") as f:
            f.write(text)
        m = self.check()
        self.assertEqual(m[0], 1)
        self.assertIn(b"c00: FAILED", m[1])
        self.assertTrue(names)

    def test_cache_corrupt_truncated_foreign(self):
        self.setup_data()
        first = self.check()
        with open(self.p(b"cache"), "rb") as f:
            good = f.read()
        for bad in (good[:len(good) // 2], good[:-1] + bytes([good[-1] ^ 1]),
                    good[:40] + bytes([good[40] ^ 0x10]) + good[41:]):
            with open(self.p(b"cache"), "wb") as f:
                f.write(bad)
            m = self.check()
            self.assertEqual(m[0], first[0])
            self.assertEqual(m[1], first[1])
            self.assertIn(b"ignoring validation cache", m[2])
            # rewritten and valid again
            m = self.check()
            self.assertEqual(m[2], first[2])
        # not a cache at all (no magic): refused before any file is checked, left as it was
        for other in (b"", b"garbage" * 10):
            with open(self.p(b"cache"), "wb") as f:
                f.write(other)
            m = self.check()
            self.assertEqual((m[0], m[1]), (2, b""))
            self.assertIn(b"refusing --cache", m[2])
            with open(self.p(b"cache"), "rb") as f:
                self.assertEqual(f.read(), other)

    def test_cache_unwritable_and_unreadable(self):
        self.setup_data(3)
        ref = self.merkle(["check", "SUMS"])
        m = self.merkle(["check", "--cache", "no/such/dir/cache", "SUMS"])
        self.assertEqual((m[0], m[1]), (ref[0], ref[1]))
        self.assertIn(b"could not write the validation cache", m[2])
        os.mkdir(self.p(b"cachedir"))
        m = self.merkle(["check", "--cache", "cachedir", "SUMS"])
        self.assertEqual((m[0], m[1]), (2, b""))
        self.assertIn(b"is a directory, not a validation cache", m[2])
        self.assertEqual(self.merkle(["check", "--cache", "c", "--cache-key", "nokey", "SUMS"])[0], 2)

    def test_cache_key(self):
        self.setup_data()
        with open(self.p(b"key"), "wb") as f:
            f.write(b"k" * 32)
        with open(self.p(b"key2"), "wb") as f:
            f.write(b"j" * 32)
        a = self.check("--cache-key", "key")
        self.assertEqual(a[0], 0)
        b = self.check("--cache-key", "key")
        self.assertEqual(b, a)
        c = self.check("--cache-key", "key2")
        self.assertEqual(c[0], 0)
        self.assertIn(b"failed authentication", c[2])
        # an unkeyed cache read with a key: entries rejected, full check, same answer
        os.unlink(self.p(b"cache"))
        self.check()
        d = self.check("--cache-key", "key")
        self.assertEqual((d[0], d[1]), (a[0], a[1]))
        with open(self.p(b"short"), "wb") as f:
            f.write(b"abc")
        self.assertEqual(self.check("--cache-key", "short")[0], 2)

    def test_concurrent_modification(self):
        names = self.setup_data(40)
        stop = threading.Event()

        def writer():
            r = random.Random(5)
            while not stop.is_set():
                k = names[r.randrange(len(names))]
                with open(self.p(k), "wb") as f:
                    f.write(os.urandom(3000))
        t = threading.Thread(target=writer)
        t.start()
        try:
            for _ in range(5):
                m = self.check("-j", "2")
                self.assertIn(m[0], (0, 1))
        finally:
            stop.set()
            t.join()
        # After the dust settles, the cached check must agree with md5sum -c exactly.
        time.sleep(0.05)
        ref = tool("md5", ["-c", "SUMS"], self.dir)
        m = self.check()
        self.assertEqual((m[0], m[1]), (ref[0], ref[1]))


def rfc6962_root(leaves):
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + rfc6962_root(leaves[:k]) + rfc6962_root(leaves[k:])).digest()


class TestAuditDirroot(Base):
    def test_audit(self):
        names = [b"a", b"b", b"sub/c", b"sub/deep/d", b"we ird\nname"]
        self.populate(names)
        rc, out, _ = tool("md5", [os.fsdecode(n) for n in names], self.dir)
        with open(os.path.join(self.dir, "..", os.path.basename(self.dir) + ".md5"), "wb") as f:
            f.write(out)
        mpath = os.path.join(self.dir, "..", os.path.basename(self.dir) + ".md5")
        try:
            rc, o, e = run(["audit", mpath, self.dir])
            self.assertEqual((rc, o), (0, b""), e)
            self.write(b"b", b"changed")
            os.unlink(self.p(b"sub/c"))
            self.write(b"sub/new", b"new")
            rc, o, e = run(["audit", "-j", "2", mpath, self.dir])
            self.assertEqual(rc, 1)
            self.assertEqual(o, b"changed: b\nmissing: sub/c\nnew: sub/new\n")
            self.assertIn(b"3 ok, 1 changed, 1 missing, 0 moved, 1 new, 0 unreadable", e)
            rc, o, e = run(["audit", mpath, os.path.join(self.dir, "nonexistent")])
            self.assertEqual(rc, 2)
            rc, o, e = run(["audit", mpath])
            self.assertEqual(rc, 2)
            # the manifest inside the directory is not "new"
            with open(self.p(b"MD5SUMS"), "wb") as f:
                f.write(out)
            os.unlink(self.p(b"sub/new"))
            self.write(b"b", b"")
            os.unlink(self.p(b"b"))
            self.populate([b"b", b"sub/c"])
            # a listed file that cannot be read is an error (exit 2)
            os.unlink(self.p(b"a"))
            os.mkdir(self.p(b"a"))
            rc, o, e = run(["audit", mpath, self.dir])
            self.assertEqual(rc, 2)
            self.assertIn(b"a: Is a directory", e)
            # malformed manifest lines are errors
            with open(self.p(b"bad.md5"), "wb") as f:
                f.write(b"junk\n")
            rc, o, e = run(["audit", self.p(b"bad.md5"), self.dir])
            self.assertEqual(rc, 2)
            self.assertIn(b"bad.md5:1: improperly formatted", e)
        finally:
            os.unlink(mpath)

    def audit_setup(self, alg, files):
        """Write files (name -> bytes) and a manifest of them outside the directory."""
        for n, data in files.items():
            self.write(n, data)
        rc, out, _ = tool(alg, [os.fsdecode(n) for n in sorted(files)], self.dir)
        self.assertEqual(rc, 0)
        mpath = "%s.%s.%d" % (self.dir, alg, len(files))
        with open(mpath, "wb") as f:
            f.write(out)
        self.addCleanup(os.unlink, mpath)
        return mpath

    def move(self, old, new):
        os.makedirs(os.path.dirname(self.p(new)), exist_ok=True)
        os.rename(self.p(old), self.p(new))

    def test_audit_moved(self):
        files = {b"a": b"alpha", b"b": b"bravo", b"sub/c": b"charlie", b"dup1": b"same",
                 b"dup2": b"same", b"back\\slash": b"special", b"keep": b"keep"}
        mpath = self.audit_setup("md5", files)
        rc, o, e = run(["audit", mpath, self.dir])
        self.assertEqual((rc, o), (0, b""), e)
        self.assertIn(b"7 ok, 0 changed, 0 missing, 0 moved, 0 new, 0 unreadable", e)
        # a plain rename, into another directory
        self.move(b"a", b"other/a.renamed")
        rc, o, e = run(["audit", mpath, self.dir])
        self.assertEqual(rc, 1, e)
        self.assertEqual(o, b"moved: a -> other/a.renamed\n")
        self.assertIn(b"6 ok, 0 changed, 0 missing, 1 moved, 0 new, 0 unreadable", e)
        # renamed and changed: missing + new, not moved
        self.move(b"sub/c", b"c2")
        self.write(b"c2", b"charlie, edited")
        # two missing files with one content, three candidates: paired in name order
        self.move(b"dup2", b"m1")
        self.move(b"dup1", b"m3")
        self.write(b"m2", b"same")
        # special characters: the line is escaped as a whole
        self.move(b"back\\slash", b"new\nline")
        # a changed file stays "changed"
        self.write(b"b", b"bravo!")
        rc, o, e = run(["audit", "-j", "2", mpath, self.dir])
        self.assertEqual(rc, 1, e)
        self.assertEqual(o, b"changed: b\n"
                            b"missing: sub/c\n"
                            b"moved: a -> other/a.renamed\n"
                            b"\\moved: back\\\\slash -> new\\nline\n"
                            b"moved: dup1 -> m1\n"
                            b"moved: dup2 -> m2\n"
                            b"new: c2\n"
                            b"new: m3\n")
        self.assertIn(b"1 ok, 1 changed, 1 missing, 4 moved, 2 new, 0 unreadable", e)
        # the same with one thread
        self.assertEqual(run(["audit", "-j", "1", mpath, self.dir])[1], o)
        # a name listed twice pairs once: both listings moved to the same file
        with open(mpath, "ab") as f:
            f.write(b"%s  a\n" % hashlib.md5(b"alpha").hexdigest().encode())
        rc, o2, e = run(["audit", mpath, self.dir])
        # (moved lines come in manifest order: the second listing is the last line)
        self.assertEqual(o2, o.replace(b"moved: dup2 -> m2\n",
                                       b"moved: dup2 -> m2\nmoved: a -> other/a.renamed\n"))
        self.assertIn(b"1 ok, 1 changed, 1 missing, 5 moved, 2 new, 0 unreadable", e)

    def test_audit_moved_sha256_and_unreadable(self):
        files = {b"one": b"1" * 5000, b"two": b"2" * 100, b"three": b""}
        mpath = self.audit_setup("sha256", files)
        self.move(b"one", b"uno")
        self.move(b"three", b"tres")
        self.write(b"zzz", b"unrelated")
        rc, o, e = run(["audit", mpath, self.dir])
        self.assertEqual(rc, 1, e)
        self.assertEqual(o, b"moved: one -> uno\nmoved: three -> tres\nnew: zzz\n")
        self.assertIn(b"1 ok, 0 changed, 0 missing, 2 moved, 1 new, 0 unreadable", e)
        if os.geteuid() != 0:
            # a new file that cannot be read stays new (and is no error)
            os.chmod(self.p(b"uno"), 0)
            rc, o, e = run(["audit", mpath, self.dir])
            os.chmod(self.p(b"uno"), 0o644)
            self.assertEqual(rc, 1, e)
            self.assertEqual(o, b"missing: one\nmoved: three -> tres\nnew: uno\nnew: zzz\n")

    def test_dirroot_matches_reference(self):
        names = [b"z", b"a", b"ab", b"a b", b"\xff", b"new\nline", b"sub/x"]
        self.populate(names)
        for alg, algid in (("md5", 1), ("sha256", 3), ("blake2b", 5)):
            rc, out, _ = tool(alg, [os.fsdecode(n) for n in names], self.dir)
            with open(self.p(b"M"), "wb") as f:
                f.write(out)
            leaves = []
            for n in sorted(names):
                with open(self.p(n), "rb") as f:
                    data = f.read()
                d = {"md5": hashlib.md5, "sha256": hashlib.sha256,
                     "blake2b": hashlib.blake2b}[alg](data).digest()
                leaves.append(len(n).to_bytes(4, "big") + n + bytes([algid, len(d)]) + d)
            # without -a, 128 hex digits mean SHA-512: b2sum lists need -a blake2b
            rc, o, e = self.merkle(["dirroot", "-a", alg, "M"])
            self.assertEqual((rc, o.decode().strip()), (0, rfc6962_root(leaves).hex()), e)
            # order of the manifest does not matter
            lines = out.split(b"\n")[:-1]
            self.rng.shuffle(lines)
            with open(self.p(b"M2"), "wb") as f:
                f.write(b"\n".join(lines) + b"\n")
            self.assertEqual(self.merkle(["dirroot", "-a", alg, "M2"])[1], o)
            rc, lo, e = self.merkle(["dirroot", "-a", alg, "--leaves", "M"])
            self.assertEqual(rc, 0)
            self.assertEqual([bytes.fromhex(l.decode()) for l in lo.split(b"\n")[:-1]], leaves)
            # the tree code, fed the same leaves, gives the same root
            rc, ro, e = self.merkle(["root", "--leaves"], stdin=lo)
            self.assertEqual((rc, ro.split(b" ")[0]), (0, o.strip()), e)
        with open(self.p(b"dup"), "wb") as f:
            f.write(out + out.split(b"\n")[0] + b"\n")
        self.assertEqual(self.merkle(["dirroot", "dup"])[0], 1)
        with open(self.p(b"bad"), "wb") as f:
            f.write(b"junk\n")
        self.assertEqual(self.merkle(["dirroot", "bad"])[0], 1)
        for args in (["dirroot"], ["dirroot", "a", "b"], ["dirroot", "nonexistent"], ["dirroot", "-a", "x", "M"]):
            self.assertIn(self.merkle(args)[0], (1, 2), args)
        with open(self.p(b"empty"), "wb") as f:
            f.write(b"")
        self.assertEqual(self.merkle(["dirroot", "empty"])[1].strip().decode(), hashlib.sha256(b"").hexdigest())


if __name__ == "__main__":
    unittest.main()
