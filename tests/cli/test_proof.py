# SPDX-License-Identifier: MIT OR Apache-2.0
"""CLI tests for merkle proof / consistency / verify: every public proof vector end to end
(path arrays compared element by element), both encodings, and the error paths."""
import json
import os
import unittest

from cliutil import TempDirCase, run, vectors, decimal_leaves, counter_bytes


def leaves_file(n):
    return "".join(l.hex() + "\n" for l in decimal_leaves(n)).encode()


class ProofVectors(TempDirCase):
    @classmethod
    def setUpClass(cls):
        cls.vs = vectors()["vectors"]

    def test_inclusion_and_cometbft(self):
        n_checked = 0
        for v in self.vs:
            if v["op"] not in ("inclusion_proof", "proof"):
                continue
            inp, ex = v["input"], v["expected"]
            n, idx = inp["leaves"]["n"], inp["index"]
            rc, out, err = run(["proof", "--index", str(idx), "--leaves", "--hash", v["hash"]],
                               stdin=leaves_file(n))
            if ex.get("error"):
                self.assertEqual(rc, 1, v["id"])
                self.assertIn(b"out of range", err, v["id"])
                continue
            self.assertEqual(rc, 0, (v["id"], err))
            j = json.loads(out)
            want_path = ex["path"] if v["op"] == "inclusion_proof" else ex["aunts"]
            self.assertEqual(j["path"], want_path, v["id"])
            self.assertEqual(j["root"], ex["root"], v["id"])
            self.assertEqual(j["leaf_hash"], ex["leaf_hash"], v["id"])
            self.assertEqual(j["tree_size"], n)
            self.assertEqual(j["index"], idx)
            self.assertEqual(j["profile"], "rfc6962")
            self.assertEqual(j["hash"], v["hash"])
            self.assertEqual(bytes.fromhex(j["leaf"]), str(idx).encode())
            pf = self.path("p.json", out)
            rc, out2, _ = run(["verify", pf, "--root", ex["root"]])
            self.assertEqual((rc, out2[:3]), (0, b"OK:"), v["id"])
            # CometBFT-style: the raw leaf.
            rc, out2, _ = run(["verify", pf, "--root", ex["root"], "--leaf-hex", str(idx).encode().hex()])
            self.assertEqual((rc, out2[:3]), (0, b"OK:"), v["id"])
            rc, out2, _ = run(["verify", pf, "--root", ex["root"], "--leaf-hex", "ff"])
            self.assertEqual(rc, 1, v["id"])
            self.assertTrue(out2.startswith(b"FAILED: "), v["id"])
            n_checked += 1
        self.assertGreaterEqual(n_checked, 15)

    def test_consistency(self):
        n_checked = 0
        for v in self.vs:
            if v["op"] != "consistency_proof":
                continue
            inp, ex = v["input"], v["expected"]
            n, m = inp["leaves"]["n"], inp["old_size"]
            rc, out, err = run(["consistency", "--old-size", str(m), "--leaves"], stdin=leaves_file(n))
            if ex.get("error"):
                self.assertNotEqual(rc, 0, v["id"])
                self.assertTrue(err, v["id"])
                continue
            self.assertEqual(rc, 0, (v["id"], err))
            j = json.loads(out)
            self.assertEqual(j["path"], ex["proof"], v["id"])
            self.assertEqual(j["old_root"], ex["old_root"], v["id"])
            self.assertEqual(j["new_root"], ex["new_root"], v["id"])
            self.assertEqual((j["old_size"], j["new_size"]), (m, n))
            pf = self.path("c.json", out)
            rc, out2, _ = run(["verify", pf, "--root", ex["new_root"], "--old-root", ex["old_root"]])
            self.assertEqual((rc, out2[:3]), (0, b"OK:"), v["id"])
            n_checked += 1
        self.assertGreaterEqual(n_checked, 8)

    def test_reader_and_range(self):
        n_checked = 0
        for v in self.vs:
            if v["op"] not in ("reader_proof", "range_proof"):
                continue
            inp, ex = v["input"], v["expected"]
            data = counter_bytes(inp["stream"]["len"])
            seg = inp["segment_size"]
            f = self.path("s.bin", data)
            if v["op"] == "reader_proof":
                args = ["proof", "--index", str(inp["index"])]
            else:
                s, e = inp["leaf_range"]
                args = ["proof", "--range", "%d:%d" % (s, e)]
            args += ["--profile", "sia", "--hash", v["hash"], "--leaf-size", str(seg), f]
            rc, out, err = run(args)
            if ex.get("error"):
                self.assertEqual(rc, 1, v["id"])
                self.assertIn(b"out of range", err)
                continue
            self.assertEqual(rc, 0, (v["id"], err))
            j = json.loads(out)
            self.assertEqual(j["root"], ex["root"], v["id"])
            if v["op"] == "reader_proof":
                self.assertEqual(j["path"], ex["proof_set"][1:], v["id"])
                self.assertEqual(j["leaf"], ex["proof_set"][0], v["id"])
                self.assertEqual(j["proof_set"], ex["proof_set"], v["id"])
                self.assertEqual(j["tree_size"], ex["num_leaves"])
                pf = self.path("p.json", out)
                rc, o2, _ = run(["verify", pf, "--root", ex["root"], "--leaf-hex", ex["proof_set"][0]])
                self.assertEqual((rc, o2[:3]), (0, b"OK:"), v["id"])
                seg_file = self.path("seg", bytes.fromhex(ex["proof_set"][0]))
                rc, o2, _ = run(["verify", pf, "--root", ex["root"], "--leaf", seg_file])
                self.assertEqual((rc, o2[:3]), (0, b"OK:"), v["id"])
                # The range form of the same leaf.
                i = inp["index"]
                rc, out3, _ = run(["proof", "--range", "%d:%d" % (i, i + 1), "--profile", "sia",
                                   "--hash", v["hash"], "--leaf-size", str(seg), f])
                self.assertEqual(json.loads(out3)["path"], ex["range_proof_order"], v["id"])
            else:
                self.assertEqual(j["path"], ex["proof"], v["id"])
                s, e = inp["leaf_range"]
                pf = self.path("r.json", out)
                lf = self.path("leaves.bin", data[s * seg:e * seg])
                rc, o2, _ = run(["verify", pf, "--root", ex["root"], "--leaf", lf])
                self.assertEqual((rc, o2[:3]), (0, b"OK:"), v["id"])
                bad = bytearray(data[s * seg:e * seg])
                bad[0] ^= 1
                lf = self.path("leaves.bin", bytes(bad))
                rc, o2, _ = run(["verify", pf, "--root", ex["root"], "--leaf", lf])
                self.assertEqual(rc, 1, v["id"])
            n_checked += 1
        self.assertGreaterEqual(n_checked, 20)

    def test_verify_vectors(self):
        n_checked = 0
        for v in self.vs:
            if v["op"] not in ("verify_inclusion", "verify_consistency"):
                continue
            inp = v["input"]
            if v["op"] == "verify_inclusion":
                doc = {"type": "inclusion", "index": inp["index"], "tree_size": inp["tree_size"],
                       "leaf_hash": inp["leaf_hash"], "root": inp["root"], "path": inp["proof"]}
            else:
                doc = {"type": "consistency", "old_size": inp["size1"], "new_size": inp["size2"],
                       "old_root": inp["root1"], "new_root": inp["root2"], "path": inp["proof"]}
            pf = self.path("v.json", json.dumps(doc).encode())
            rc, out, err = run(["verify", pf, "--untrusted-root"])
            if v["expected"]["valid"]:
                self.assertEqual((rc, out[:3]), (0, b"OK:"), (v["id"], out, err))
            else:
                self.assertEqual(rc, 1, (v["id"], out, err))
                self.assertTrue(out.startswith(b"FAILED: "), v["id"])
            n_checked += 1
        self.assertEqual(n_checked, 196)


class ProofCli(TempDirCase):

    def test_binary_round_trip_and_stdin(self):
        data = counter_bytes(100000)
        f = self.path("d", data)
        for args in (["proof", "--index", "77"], ["proof", "--range", "5:50"],
                     ["consistency", "--old-size", "13"]):
            rc, js, _ = run(args + ["--leaf-size", "1000", f])
            self.assertEqual(rc, 0)
            rc, binp, _ = run(args + ["--leaf-size", "1000", "--binary", f])
            self.assertEqual(rc, 0)
            self.assertEqual(binp[:4], b"MRKP")
            rc2, js2, _ = run(args + ["--leaf-size", "1000", "-"], stdin=data)
            self.assertEqual((rc2, js2), (0, js))
            root = json.loads(js).get("root") or json.loads(js)["new_root"]
            extra = []
            if args[1] == "--range":
                extra = ["--leaf", self.path("rl", data[5000:50000])]
            if args[0] == "consistency":
                extra = ["--old-root", json.loads(js)["old_root"]]
            for enc in (js, binp):
                pf = self.path("p", enc)
                rc, out, err = run(["verify", pf, "--root", root] + extra)
                self.assertEqual((rc, out[:3]), (0, b"OK:"), (args, err))
                rc, out, _ = run(["verify", "-", "--root", root] + extra, stdin=enc)
                self.assertEqual((rc, out[:3]), (0, b"OK:"), args)
            # Single-bit flips all over the binary proof are refused (exit 1 or 2), never OK.
            # (Bytes 33..40 hold the advisory leaf_size, which no proof covers; a Sia range
            # proof does not bind the tree size either -- bytes 9..16 -- beyond its length.)
            for pos in range(0, len(binp), max(1, len(binp) // 16)):
                if 33 <= pos <= 40 or (args[1] == "--range" and 9 <= pos <= 16):
                    continue
                for bit in (pos % 8,):
                    bad = bytearray(binp)
                    bad[pos] ^= 1 << bit
                    pf = self.path("bad", bytes(bad))
                    rc, out, _ = run(["verify", pf, "--root", root] + extra)
                    self.assertIn(rc, (1, 2), (args, pos, bit))
                    self.assertFalse(out.startswith(b"OK"))
            # A wrong trusted root fails.
            other = ("00" if root[:2] != "00" else "11") + root[2:]
            rc, out, _ = run(["verify", self.path("p", js), "--root", other] + extra)
            self.assertEqual(rc, 1)
            self.assertTrue(out.startswith(b"FAILED: "))

    def test_same_root_as_merkle_root(self):
        data = counter_bytes(300000)
        f = self.path("d", data)
        for prof in ("rfc6962", "sia"):
            rc, out, _ = run(["root", "--profile", prof, f])
            want = out.split()[0].decode()
            rc, js, _ = run(["proof", "--profile", prof, "--index", "3", f])
            self.assertEqual(json.loads(js)["root"], want)

    def test_two_threads_same_proof(self):
        # Regular files of 8 MiB and more: -j2 proves one half of the tree while another
        # thread hashes the other half. Same bytes as one thread, either half, any leaf size.
        data = counter_bytes(9 * 1024 * 1024 + 777)
        f = self.path("big", data)
        for prof, ls in (("rfc6962", 64), ("sia", 1000), ("rfc6962", 4096)):
            n = (len(data) + ls - 1) // ls
            k = 1 << ((n - 1).bit_length() - 1)
            for i in (0, k - 1, k, n - 1, n // 3):
                base = ["proof", "--profile", prof, "--leaf-size", str(ls), "--index", str(i)]
                r1 = run(base + ["-j1", f])
                r2 = run(base + ["-j2", f])
                self.assertEqual(r1[0], 0)
                self.assertEqual(r1[:2], r2[:2], (prof, ls, i))
        rc, _, err = run(["proof", "-j2", "--index", str(10 ** 9), "--leaf-size", "64", f])
        self.assertEqual(rc, 1)
        self.assertIn(b"out of range", err)

    def test_short_last_segment_range(self):
        data = counter_bytes(1000)  # 16 segments of 64, the last 40 bytes
        f = self.path("d", data)
        rc, js, _ = run(["proof", "--range", "10:16", "--profile", "sia", f])
        self.assertEqual(rc, 0)
        pf = self.path("p", js)
        rc, out, _ = run(["verify", pf, "--leaf", self.path("l", data[640:]), "--untrusted-root"])
        self.assertEqual((rc, out[:3]), (0, b"OK:"))
        rc, out, _ = run(["verify", pf, "--leaf", self.path("l", data[640:] + b"x"), "--untrusted-root"])
        self.assertEqual(rc, 1)

    def test_errors(self):
        f = self.path("d", counter_bytes(1000))
        cases = [
            (["proof", f], 2),
            (["proof", "--index", "1", "--range", "1:2", f], 2),
            (["proof", "--index", "x", f], 2),
            (["proof", "--index", "-1", f], 2),
            (["proof", "--range", "5:5", f], 2),
            (["proof", "--range", "5", f], 2),
            (["proof", "--index", "1", "--leaf-size", "0", f], 2),
            (["proof", "--index", "1", "--leaves", "--leaf-size", "4", f], 2),
            (["proof", "--index", "1", f, f], 2),
            (["proof", "--index", "1", "--bogus", f], 2),
            (["proof", "--index"], 2),
            (["proof", "--index", "1", "/nonexistent/x"], 1),
            (["proof", "--index", "1", self.tmp.name], 1),
            (["proof", "--index", "1"], 1),          # empty stdin: no leaf 1
            (["proof", "--range", "0:2", "--leaf-size", "1000", f], 1),
            (["consistency", f], 2),
            (["consistency", "--old-size", "0", f], 2),
            (["consistency", "--old-size", "2", "--leaf-size", "1000", f], 1),
            (["verify"], 2),
            (["verify", "/nonexistent/p"], 2),
            (["verify", f], 2),                     # not a proof
            (["verify", f, f], 2),
        ]
        for args, want in cases:
            rc, out, err = run(args)
            self.assertEqual(rc, want, (args, err))
            self.assertTrue(err, args)
        rc, out, err = run(["proof", "--index", "3", "--leaves"], stdin=b"00\nzz\n")
        self.assertEqual(rc, 1)
        self.assertIn(b":2:", err)
        for h in (["proof", "--help"], ["consistency", "--help"], ["verify", "--help"]):
            rc, out, _ = run(h)
            self.assertEqual(rc, 0)
            self.assertIn(b"Usage: merkle " + h[0].encode(), out)

    def test_verify_errors(self):
        rc, js, _ = run(["proof", "--index", "2", "--leaves"], stdin=leaves_file(5))
        pf = self.path("p", js)
        j = json.loads(js)
        cases = [
            (["verify", pf, "--root", "zz"], 2, b""),
            (["verify", pf, "--root", "00"], 1, b"FAILED: "),
            (["verify", pf, "--leaf-hash", "00"], 1, b"FAILED: "),
            (["verify", pf, "--leaf-hash", j["leaf_hash"], "--leaf-hex", "00"], 2, b""),
            (["verify", pf, "--leaf-hash", "11" * 32, "--root", j["root"]], 1, b"FAILED: "),
            (["verify", pf, "--leaf-hash", j["leaf_hash"], "--root", j["root"]], 0, b"OK: "),
            # No trusted root: a usage error, whatever the proof (issue 23 item 6).
            (["verify", pf, "--leaf-hash", j["leaf_hash"]], 2, b""),
            (["verify", pf, "--leaf-hash", j["leaf_hash"], "--untrusted-root"], 0, b"OK: "),
        ]
        for args, want, prefix in cases:
            rc, out, err = run(args)
            self.assertEqual(rc, want, (args, out, err))
            self.assertTrue(out.startswith(prefix), (args, out))
        # Malformed JSON proofs: exit 2 with a message naming the file.
        for bad in (b"", b"{", b"[1]", b"{\"tree_size\": 1}", js[:-10],
                    js.replace(b"\"path\"", b"\"path\": 1, \"x\"")):
            rc, out, err = run(["verify", self.path("bad", bad), "--untrusted-root"])
            self.assertEqual(rc, 2, bad)
            self.assertIn(b"malformed proof", err)
        # [] is an (empty) OpenZeppelin proof array: it states no root to trust.
        rc, out, err = run(["verify", self.path("bad", b"[]"), "--untrusted-root"])
        self.assertEqual((rc, out), (2, b""))
        self.assertIn(b"the proof has no root", err)
        # Wrong length path: FAILED.
        d = dict(j)
        d["path"] = d["path"] + [d["root"]]
        rc, out, _ = run(["verify", self.path("bad", json.dumps(d).encode()), "--untrusted-root"])
        self.assertEqual(rc, 1)
        self.assertIn(b"hashes", out)
        # Index out of range: FAILED.
        d = dict(j)
        d["index"] = 5
        rc, out, _ = run(["verify", self.path("bad", json.dumps(d).encode()), "--untrusted-root"])
        self.assertEqual(rc, 1)
        # A range proof needs leaves; a consistency proof takes none.
        rc, js2, _ = run(["proof", "--range", "1:3", "--leaves"], stdin=leaves_file(5))
        rc, out, err = run(["verify", self.path("r", js2), "--untrusted-root"])
        self.assertEqual(rc, 2)
        rc, out, _ = run(["verify", self.path("r", js2), "--leaf", self.path("l", leaves_file(3)[3:]), "--untrusted-root"])
        self.assertEqual((rc, out[:3]), (0, b"OK:"))
        rc, js3, _ = run(["consistency", "--old-size", "2", "--leaves"], stdin=leaves_file(5))
        rc, out, err = run(["verify", self.path("c", js3), "--leaf-hex", "00", "--untrusted-root"])
        self.assertEqual(rc, 2)

    def test_verify_empty_range(self):
        """A range proof whose end is not after its start, with --leaf-hash: FAILED, exit 1
        (it crashed: the leaf hash was copied into a slot the empty range never had; found
        by clang-tidy's analyzer, scripts/lint.sh)."""
        rc, js, _ = run(["proof", "--range", "1:3", "--leaves"], stdin=leaves_file(5))
        self.assertEqual(rc, 0)
        d = json.loads(js)
        d["end"] = d["start"]
        rc, binp, _ = run(["proof", "--range", "1:3", "--leaves", "--binary"], stdin=leaves_file(5))
        self.assertEqual(rc, 0)
        self.assertEqual(binp[:4], b"MRKP")
        binp = binp[:25] + binp[17:25] + binp[33:]  # the end field (bytes 25..33) = start
        for name, proof in (("j", json.dumps(d).encode()), ("b", binp)):
            rc, out, err = run(["verify", self.path(name, proof), "--leaf-hash", "11" * 32, "--untrusted-root"])
            self.assertEqual(rc, 1, (name, out, err))
            self.assertTrue(out.startswith(b"FAILED: "), (name, out))


if __name__ == "__main__":
    unittest.main()
