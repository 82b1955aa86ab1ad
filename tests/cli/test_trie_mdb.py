# SPDX-License-Identifier: MIT OR Apache-2.0
"""End-to-end tests of the merkledb proofs of `merkle trie` (issue 24): every request and
verification of ../shared/vectors/merkledb-proofs-public.json.gz (produced by avalanchego's
x/merkledb) through prove-range, prove-change, verify-range, verify-change and
prove/verify --format merkledb, comparing the proof bytes, the exit codes and the sentinel
named in 'FAILED: ... (merkledb: NAME)'; then the operation-file syntax ('commit') and the
usage errors. Without the shared vectors only the latter run (and the test exits 77)."""
import gzip
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import SHARED_VECTORS, TempDirCase, run  # noqa: E402

VEC = os.path.join(SHARED_VECTORS, "merkledb-proofs-public.json.gz")
DATA = None
if os.path.exists(VEC):
    with gzip.open(VEC, "rt") as f:
        DATA = json.load(f)


def hx(b):
    return "-" if b == "" else b


def ops_text(batches):
    """An operation file: each batch's ops, then 'commit'."""
    out = []
    for ops in batches:
        for k, v in ops:
            out.append("del %s" % hx(k) if v is None else "put %s %s" % (hx(k), hx(v)))
        out.append("commit")
    return ("\n".join(out) + "\n").encode()


def kind_of(stdout):
    line = stdout.decode().strip().splitlines()[-1] if stdout.strip() else ""
    if line == "OK":
        return "ok"
    if line.startswith("FAILED: ") and line.endswith(")") and "(merkledb: " in line:
        return line[line.rindex("(merkledb: ") + len("(merkledb: "):-1]
    return "?" + line


def accepted(v):
    """Go's outcomes: (exit code, kind) pairs; a panic accepts any failure."""
    out = []
    for x in [v["verdict"]] + v.get("other_verdicts", []):
        if x["ok"]:
            out.append((0, "ok"))
        elif x["stage"] == "panic":
            out.append((1, "*"))
        else:
            out.append((2 if x["stage"] == "unmarshal" else 1, x["kind"]))
    return out


def matches(rc, kind, acc):
    return any(rc == r and (k == "*" or k == kind) for r, k in acc)


class Vectors(TempDirCase):
    def setUp(self):
        super().setUp()
        if DATA is None:
            self.skipTest("no " + VEC)
        self.states = {s["id"]: s for s in DATA["states"]}
        self.hist = {h["id"]: h for h in DATA["histories"]}
        self.files = {}

    def state_file(self, sid):
        if sid not in self.files:
            self.files[sid] = self.path(sid + ".ops", ops_text([self.states[sid]["kvs"]]))
        return self.files[sid]

    def hist_file(self, hid):
        if hid not in self.files:
            steps = self.hist[hid]["steps"][1:]
            batches = [[(o["key"], o["value"]) for o in s["ops"]] for s in steps]
            self.files[hid] = self.path(hid + ".ops", ops_text(batches))
        return self.files[hid]

    def bounds(self, o):
        a = []
        if o.get("start") is not None:
            a += ["--start", hx(o["start"])]
        if o.get("end") is not None:
            a += ["--end", hx(o["end"])]
        return a

    def check_request(self, r, args, what):
        rc, out, err = run(args)
        res = r["result"]
        if res["ok"]:
            self.assertEqual(rc, 0, (what, err))
            self.assertEqual(out.hex(), res["proof"], what)
        else:
            self.assertEqual((rc, kind_of(out)), (1, res["kind"]), what)

    def test_range_proofs(self):
        bad = []
        for r in DATA["range_proofs"]:
            bf = str(r["branch_factor"])
            if r["max_length"] <= 0:
                continue  # not expressible on the command line (the C test covers it)
            if r.get("history"):
                h = self.hist[r["history"]]
                f = self.hist_file(r["history"])
                args = ["trie", "prove-range", "-b", bf, "--history-length",
                        str(h["history_length"])]
                if r.get("at_root"):
                    args += ["--at-root", r["at_root"]]
            else:
                f = self.state_file(r["state"])
                args = ["trie", "prove-range", "-b", bf]
            self.check_request(r, args + self.bounds(r) + ["--max-length", str(r["max_length"]),
                                                           f], r["id"])
            for i, v in enumerate(r["verifications"]):
                if v["max_length"] < 0:
                    continue
                p = self.path("p.bin", bytes.fromhex(v["proof"]))
                rc, out, _ = run(["trie", "verify-range", p, "--root", v["root"], "-b",
                                  str(v.get("branch_factor", r["branch_factor"])),
                                  "--max-length", str(v["max_length"])] + self.bounds(v))
                if not matches(rc, kind_of(out), accepted(v)):
                    bad.append((r["id"], v["mutation"], rc, out))
        self.assertEqual(bad, [])

    def test_change_proofs(self):
        bad = []
        for r in DATA["change_proofs"]:
            if r["max_length"] <= 0:
                continue
            h = self.hist[r["history"]]
            args = ["trie", "prove-change", "-b", str(r["branch_factor"]), "--history-length",
                    str(h["history_length"]), "--from-root", r["start_root"], "--to-root",
                    r["end_root"], "--max-length", str(r["max_length"])] + self.bounds(r)
            self.check_request(r, args + [self.hist_file(r["history"])], r["id"])
            for v in r["verifications"]:
                if v["max_length"] < 0:
                    continue
                p = self.path("p.bin", bytes.fromhex(v["proof"]))
                rc, out, _ = run(["trie", "verify-change", p, "--db",
                                  self.state_file(v["verifier_state"]), "--root", v["root"],
                                  "-b", str(r["branch_factor"]), "--max-length",
                                  str(v["max_length"])] + self.bounds(v))
                if not matches(rc, kind_of(out), accepted(v)):
                    bad.append((r["id"], v["mutation"], rc, out))
        self.assertEqual(bad, [])

    def test_key_proofs(self):
        bad = []
        for r in DATA["key_proofs"]:
            bf = str(r["branch_factor"])
            rc, out, _ = run(["trie", "prove", "--format", "merkledb", "-b", bf, "--key",
                              hx(r["key"]), self.state_file(r["state"])])
            if r["result"]["ok"]:
                self.assertEqual(rc, 0, r["id"])
                self.assertEqual(out.decode().split(), r["result"]["path"], r["id"])
            else:
                self.assertEqual((rc, kind_of(out)), (1, r["result"]["kind"]), r["id"])
            for v in r["verifications"]:
                p = self.path("k.txt", ("\n".join(v["path"]) + "\n").encode())
                claim = ["--absent"] if v["value"] is None else ["--value", hx(v["value"])]
                rc, out, _ = run(["trie", "verify", "--format", "merkledb", p, "--root",
                                  v["root"], "--key", hx(v["key"]), "-b",
                                  str(v.get("branch_factor", r["branch_factor"]))] + claim)
                if not matches(rc, kind_of(out), accepted(v)):
                    bad.append((r["id"], v["mutation"], rc, out))
        self.assertEqual(bad, [])


class Syntax(TempDirCase):
    def test_commit_batches_and_history(self):
        f = self.path("ops", b"put 61 01\nput 6162 02\n# c\ncommit\n\nput 62 03\ndel 61\n")
        first = self.path("first", b"put 61 01\nput 6162 02\n")
        final = self.path("final", b"put 6162 02\nput 62 03\n")
        r0 = run(["trie", "root", first])[1].decode().split()[0]
        r1 = run(["trie", "root", final])[1].decode().split()[0]
        rc, cp, _ = run(["trie", "prove-change", "--from-root", r0, "--to-root", r1, f])
        self.assertEqual(rc, 0)
        p = self.path("cp", cp)
        self.assertEqual(run(["trie", "verify-change", p, "--db", first, "--root", r1])[:2],
                         (0, b"OK\n"))
        rc, out, _ = run(["trie", "verify-change", p, "--db", first, "--root", r0])
        self.assertEqual((rc, kind_of(out)), (1, "ErrInvalidProof"))
        # The first state is still in the history: a range proof at it.
        rc, rp, _ = run(["trie", "prove-range", "--at-root", r0, f])
        self.assertEqual(rc, 0)
        p = self.path("rp", rp)
        self.assertEqual(run(["trie", "verify-range", p, "--root", r0])[:2], (0, b"OK\n"))
        # With a history of one entry it is gone.
        rc, out, _ = run(["trie", "prove-range", "--history-length", "1", "--at-root", r0, f])
        self.assertEqual((rc, kind_of(out)), (1, "sync.ErrInsufficientHistory"))
        rc, out, _ = run(["trie", "prove-change", "--from-root", r1, "--to-root", r1, f])
        self.assertEqual((rc, kind_of(out)), (1, "errSameRoot"))
        rc, out, _ = run(["trie", "prove-range", "--start", "62", "--end", "61", f])
        self.assertEqual((rc, kind_of(out)), (1, "ErrStartAfterEnd"))
        rc, out, _ = run(["trie", "prove-range", self.path("empty", b"")])
        self.assertEqual((rc, kind_of(out)), (1, "ErrEmptyProof"))
        # A proof that cannot be decoded: exit 2, naming the sentinel.
        rc, out, _ = run(["trie", "verify-range", self.path("junk", b"\x0a\x05"), "--root", r1])
        self.assertEqual((rc, kind_of(out)), (2, "proto"))

    def test_key_proof_claims(self):
        f = self.path("ops", b"put 61 01\nput 6162 02\n")
        root = run(["trie", "root", f])[1].decode().split()[0]
        rc, out, _ = run(["trie", "prove", "--format", "merkledb", "--key", "6162", f])
        self.assertEqual(rc, 0)
        p = self.path("kp", out)
        base = ["trie", "verify", "--format", "merkledb", p, "--root", root, "--key", "6162"]
        self.assertEqual(run(base + ["--value", "02"])[:2], (0, b"OK\n"))
        rc, out, _ = run(base + ["--value", "03"])
        self.assertEqual((rc, kind_of(out)), (1, "ErrProofValueDoesntMatch"))
        rc, out, _ = run(base + ["--absent"])
        self.assertEqual((rc, kind_of(out)), (1, "ErrProofValueDoesntMatch"))
        # MTRP proofs with the same claim options.
        rc, mp, _ = run(["trie", "prove", "--key", "6162", f])
        m = self.path("m", mp)
        self.assertEqual(run(["trie", "verify", m, "--root", root, "--key", "6162", "--value",
                              "02"])[0], 0)
        self.assertEqual(run(["trie", "verify", m, "--root", root, "--key", "61"])[0], 1)
        self.assertEqual(run(["trie", "verify", m, "--root", root, "--key", "6162",
                              "--absent"])[0], 1)

    def test_usage_errors(self):
        f = self.path("ops", b"put 61 01\n")
        bad_file = self.path("bad", b"put 61\n")
        for args in (["trie", "prove-change", f],
                     ["trie", "prove-change", "--from-root", "00", "--to-root", "11", f],
                     ["trie", "verify-range", "--root", "00" * 32],
                     ["trie", "verify-range", f, f, "--root", "00" * 32],
                     ["trie", "verify-change", f, "--root", "00" * 32],
                     ["trie", "prove-range", "--start", "zz", f],
                     ["trie", "prove-range", "--max-length", "-3", f],
                     ["trie", "prove-range", "-b", "3", f],
                     ["trie", "verify", "--format", "merkledb", f, "--root", "00" * 32],
                     ["trie", "verify", "--format", "merkledb", f, "--root", "00" * 32,
                      "--key", "61", "--value", "01", "--absent"],
                     ["trie", "prove", "--format", "json", "--key", "61", f]):
            self.assertEqual(run(args)[0], 2, args)
        rc, _, err = run(["trie", "prove-range", bad_file])
        self.assertEqual(rc, 1)
        self.assertIn(b"bad:1:", err)


if __name__ == "__main__":
    prog = unittest.main(exit=False)
    ok = prog.result.wasSuccessful()
    sys.exit(0 if ok and DATA is not None else (77 if ok else 1))
