# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python bindings of the merkledb range and change proofs (merkle.mdb, issue 24): every request
and verification of ../shared/vectors/merkledb-proofs-public.json.gz (produced by avalanchego's
own x/merkledb code; outside the repository, so those tests skip when it is absent) through
MerkleDB.prove_range/prove_change and verify_range/verify_change (proof bytes equal to Go's,
the same verdict kind), and round trips and every error path without the vectors."""
import gzip
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtest  # noqa: E402,F401
import merkle  # noqa: E402

HAVE_MDB = hasattr(merkle, "MerkleDB")
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("MERKLE_SHARED_VECTORS",
                        os.path.join(HERE, "..", "..", "..", "shared", "vectors"))
VEC = os.path.join(SHARED, "merkledb-proofs-public.json.gz")


def hx(s):
    return None if s is None else bytes.fromhex(s)


def expected(v):
    return [("ok", None) if x["ok"] else (x["kind"], x["stage"])
            for x in [v["verdict"]] + list(v.get("other_verdicts") or [])]


@unittest.skipUnless(HAVE_MDB, "this libmerkle has no merkledb proofs")
class TestMerkleDB(unittest.TestCase):
    def setUp(self):
        self.db = merkle.MerkleDB(16)
        self.empty = self.db.root()
        self.old = self.db.commit([(b"a", b"\x01"), (b"b", b"\x02")])
        self.new = self.db.commit([(b"c", b"\x03"), (b"b", None)])

    def tearDown(self):
        self.db.close()

    def test_roots_equal_the_trie(self):
        self.assertEqual(self.empty, bytes(32))
        self.assertEqual(self.old, merkle.trie_root({b"a": b"\x01", b"b": b"\x02"}))
        self.assertEqual(self.new, merkle.trie_root({b"a": b"\x01", b"c": b"\x03"}))

    def test_range_round_trip(self):
        p = self.db.prove_range()
        self.assertTrue(merkle.mdb.verify_range(p, self.new))
        self.assertTrue(merkle.mdb.verify_range(bytearray(p), self.new.hex()))
        with self.assertRaises(merkle.MerkleDBError) as cm:
            merkle.mdb.verify_range(p, self.old)
        self.assertEqual((cm.exception.status, cm.exception.kind),
                         (merkle.ERR_VERIFY, "ErrInvalidProof"))
        self.assertIn("(merkledb: ErrInvalidProof)", cm.exception.detail)
        with self.assertRaises(merkle.MerkleDBError) as cm:
            merkle.mdb.verify_range(p, self.new, max_length=1)
        self.assertEqual(cm.exception.kind, "errTooManyKeys")
        # bounded, at the older root
        p2 = self.db.prove_range(start=b"b", end=b"b", at_root=self.old)
        self.assertTrue(merkle.mdb.verify_range(p2, self.old, start=b"b", end=b"b"))
        # the same bytes as the CLI's proof of the same request
        b = mtest.merkle_bin()
        if b:
            import subprocess
            ops = b"put 61 01\nput 62 02\ncommit\nput 63 03\ndel 62\n"
            out = subprocess.run([b, "trie", "prove-range", "--start", "62"], input=ops,
                                 capture_output=True, check=True).stdout
            self.assertEqual(out, self.db.prove_range(start=b"b"))

    def test_change_round_trip(self):
        p = self.db.prove_change(self.old, self.new)
        verifier = merkle.Trie(16, {b"a": b"\x01", b"b": b"\x02"})
        self.assertTrue(merkle.mdb.verify_change(p, verifier, self.new))
        with self.assertRaises(merkle.MerkleDBError) as cm:
            merkle.mdb.verify_change(p, verifier, self.old)
        self.assertEqual((cm.exception.status, cm.exception.kind),
                         (merkle.ERR_VERIFY, "ErrInvalidProof"))
        # a MerkleDB as the verifier database: its current state
        with merkle.MerkleDB(16) as vdb:
            vdb.commit([(b"a", b"\x01"), (b"b", b"\x02")])
            self.assertTrue(merkle.mdb.verify_change(p, vdb, self.new))

    def test_key_round_trip(self):
        path, value = self.db.prove_key(b"a")
        self.assertEqual(value, b"\x01")
        self.assertGreater(len(path), 1)
        self.assertTrue(all(isinstance(x, bytes) and x for x in path))
        self.assertTrue(merkle.mdb.verify_key(path, self.new, b"a", b"\x01"))
        self.assertTrue(merkle.mdb.verify_key([bytearray(x) for x in path], self.new.hex(),
                                              b"a", memoryview(b"\x01")))
        # an exclusion proof (b was deleted), on a Trie of the same state
        with merkle.Trie(16, {b"a": b"\x01", b"c": b"\x03"}) as t:
            apath, avalue = merkle.mdb.prove_key(t, b"b")
            self.assertEqual(merkle.mdb.prove_key(t, b"a"), (path, value))
        self.assertIsNone(avalue)
        self.assertTrue(merkle.mdb.verify_key(apath, self.new, b"b", None))
        # a present empty value is not absence
        with merkle.Trie(16, {b"e": b""}) as t:
            epath, evalue = merkle.mdb.prove_key(t, b"e")
            self.assertEqual(evalue, b"")
            self.assertTrue(merkle.mdb.verify_key(epath, t.root(), b"e", b""))
            with self.assertRaises(merkle.MerkleDBError) as cm:
                merkle.mdb.verify_key(epath, t.root(), b"e", None)
            self.assertEqual(cm.exception.kind, "ErrProofValueDoesntMatch")
        # the CLI's lines for the same key
        b = mtest.merkle_bin()
        if b:
            import subprocess
            ops = b"put 61 01\nput 62 02\ncommit\nput 63 03\ndel 62\n"
            for key, want in ((b"a", path), (b"b", apath)):
                out = subprocess.run([b, "trie", "prove", "--format", "merkledb", "--key",
                                      key.hex()], input=ops, capture_output=True,
                                     check=True).stdout
                self.assertEqual(out.decode().split(), [x.hex() for x in want])

    def test_key_verdicts(self):
        path, _ = self.db.prove_key(b"a")
        apath, _ = self.db.prove_key(b"b")
        for args, kind in [
            ((path, self.new, b"a", b"\x02"), "ErrProofValueDoesntMatch"),  # another value
            ((path, self.new, b"a", None), "ErrProofValueDoesntMatch"),  # claims absence
            ((apath, self.new, b"b", b"\x02"), "ErrExclusionProofUnexpectedValue"),  # presence
            ((path, self.old, b"a", b"\x01"), "ErrInvalidProof"),  # another root
            ((path, self.new, b"c", b"\x03"), "ErrExclusionProofUnexpectedValue"),  # key
            (([], self.new, b"a", b"\x01"), "ErrEmptyProof"),
            ((path[:1], self.new, b"a", b"\x01"), "ErrExclusionProofUnexpectedValue"),
            (([path[0]] + path, self.new, b"a", b"\x01"), "ErrNonIncreasingProofNodes"),
            ((path[::-1], self.new, b"a", None), "ErrProofNodeNotForKey"),
        ]:
            with self.assertRaises(merkle.MerkleDBError, msg=kind) as cm:
                merkle.mdb.verify_key(*args)
            self.assertEqual((cm.exception.status, cm.exception.kind),
                             (merkle.ERR_VERIFY, kind), args[2:])
        # another branch factor than the prover's: Go panics, a clean ErrInvalidProof here
        with self.assertRaises(merkle.MerkleDBError) as cm:
            merkle.mdb.verify_key(path, self.new, b"a", b"\x01", branch_factor=2)
        self.assertEqual((cm.exception.status, cm.exception.kind),
                         (merkle.ERR_VERIFY, "ErrInvalidProof"))
        # undecodable nodes: ERR_FORMAT naming the sentinel
        for bad, kind in (([b"\xff\xff\xff"], "proto"), ([path[0], b"\x0a"], "proto")):
            with self.assertRaises(merkle.MerkleDBError) as cm:
                merkle.mdb.verify_key(bad, self.new, b"a", b"\x01")
            self.assertEqual((cm.exception.status, cm.exception.kind), (merkle.ERR_FORMAT, kind))
        # argument errors
        with merkle.MerkleDB(16) as empty:
            with self.assertRaises(merkle.MerkleDBError) as cm:
                empty.prove_key(b"a")
            self.assertEqual((cm.exception.status, cm.exception.kind),
                             (merkle.ERR_STATE, "ErrEmptyProof"))
        for call in (lambda: merkle.mdb.verify_key(path[0], self.new, b"a", b"\x01"),
                     lambda: merkle.mdb.verify_key([p.hex() for p in path], self.new, b"a", b""),
                     lambda: merkle.mdb.verify_key(path, self.new, "a", b"\x01"),
                     lambda: merkle.mdb.verify_key(path, self.new, b"a", "01"),
                     lambda: self.db.prove_key("a")):
            with self.assertRaises(TypeError):
                call()
        for call in (lambda: merkle.mdb.verify_key(path, self.new[:31], b"a", b"\x01"),
                     lambda: merkle.mdb.verify_key(path, self.new, b"a", b"\x01", 3)):
            with self.assertRaises(merkle.MerkleError) as cm:
                call()
            self.assertEqual(cm.exception.status, merkle.ERR_ARG)

    def test_refusals(self):
        for call, kind in [
            (lambda: self.db.prove_range(start=b"c", end=b"a"), "ErrStartAfterEnd"),
            (lambda: self.db.prove_range(max_length=0), "ErrInvalidMaxLength"),
            (lambda: self.db.prove_change(self.new, self.new), "errSameRoot"),
            (lambda: self.db.prove_change(self.old, b"\x11" * 32), "sync.ErrNoEndRoot"),
            (lambda: merkle.MerkleDB(16).prove_range(), "ErrEmptyProof"),
        ]:
            with self.assertRaises(merkle.MerkleDBError) as cm:
                call()
            self.assertEqual((cm.exception.status, cm.exception.kind), (merkle.ERR_STATE, kind))
        with merkle.MerkleDB(16, history_length=1) as short:
            old = short.commit([(b"a", b"1")])
            new = short.commit([(b"a", b"2")])
            with self.assertRaises(merkle.MerkleDBError) as cm:
                short.prove_range(at_root=old)
            self.assertEqual(cm.exception.kind, "sync.ErrInsufficientHistory")
            self.assertTrue(merkle.mdb.verify_range(short.prove_range(at_root=new), new))

    def test_errors(self):
        for bad in (b"\xff\xff\xff", b"\x0a"):
            with self.assertRaises(merkle.MerkleDBError) as cm:
                merkle.mdb.verify_range(bad, self.new)
            self.assertEqual((cm.exception.status, cm.exception.kind), (merkle.ERR_FORMAT, "proto"))
            with self.assertRaises(merkle.MerkleDBError) as cm:
                merkle.mdb.verify_change(bad, merkle.Trie(), self.new)
            self.assertEqual(cm.exception.status, merkle.ERR_FORMAT)
        p = self.db.prove_range()
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.mdb.verify_range(p, b"\x00" * 31)
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.mdb.verify_range(p, self.new, max_length=1 << 63)
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(merkle.MerkleError) as cm:
            merkle.mdb.verify_range(p, self.new, branch_factor=3)
        self.assertEqual(cm.exception.status, merkle.ERR_ARG)
        with self.assertRaises(merkle.MerkleError):
            merkle.MerkleDB(3)
        with self.assertRaises(TypeError):
            self.db.prove_range(start="a")
        with self.assertRaises(TypeError):
            self.db.commit([("a", b"1")])
        self.db.close()
        self.db.close()
        with self.assertRaises(merkle.MerkleError) as cm:
            self.db.root()
        self.assertEqual(cm.exception.status, merkle.ERR_STATE)
        self.assertEqual(merkle.mdb.kind_name(0), "ok")


# What the vectors hold (the figures of issue 24: 450 requests, 3,316 verifications; the file's
# own "counts" says the same). Every one of them must be run: a count that differs fails.
EXPECTED = {"range_proofs": (200, 1730), "change_proofs": (106, 615), "key_proofs": (144, 971)}


@unittest.skipUnless(HAVE_MDB, "this libmerkle has no merkledb proofs")
@unittest.skipUnless(os.path.exists(VEC), "%s is absent (outside the repository)" % VEC)
class TestVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with gzip.open(VEC, "rt") as f:
            cls.v = json.load(f)
        cls.states = {s["id"]: s for s in cls.v["states"]}
        cls.hists = {h["id"]: h for h in cls.v["histories"]}

    def setUp(self):
        self.requests = self.verifications = 0
        self.outcomes = set()  # (ok or kind) of our verdicts: both must occur

    def counted(self, section):
        reqs, vers = EXPECTED[section]
        self.assertEqual((self.requests, self.verifications), (reqs, vers), section)
        self.assertEqual(len(self.v[section]), reqs)
        self.assertIn("ok", self.outcomes)
        self.assertIn("ErrInvalidProof", self.outcomes)
        self.assertGreater(len(self.outcomes), 3, self.outcomes)

    def test_totals(self):
        self.assertEqual(self.v["counts"]["verifications"], 3316)
        self.assertEqual(sum(r for r, _ in EXPECTED.values()), 450)
        self.assertEqual(sum(n for _, n in EXPECTED.values()), 3316)
        for section, (reqs, vers) in EXPECTED.items():
            self.assertEqual(self.v["counts"][section], reqs, section)
            self.assertEqual(sum(len(r["verifications"]) for r in self.v[section]), vers)

    def history_db(self, hid, bf):
        h = self.hists[hid]
        db = merkle.MerkleDB(bf, h["history_length"])
        for step in h["steps"][1:]:
            db.commit([(hx(op["key"]), hx(op["value"])) for op in step["ops"]])
        return db

    def state_trie(self, sid, bf):
        return merkle.Trie(bf, [(hx(k), hx(v)) for k, v in self.states[sid]["kvs"]])

    def state_db(self, sid, bf):
        db = merkle.MerkleDB(bf)
        db.commit([(hx(k), hx(v)) for k, v in self.states[sid]["kvs"]])
        return db

    def request(self, call, result, what):
        """One request: Go's proof (or path and value), or Go's refusal (kind and text)."""
        self.requests += 1
        try:
            out = call()
        except merkle.MerkleDBError as e:
            self.assertFalse(result["ok"], (what, e))
            self.assertEqual(e.status, merkle.ERR_STATE, what)
            self.assertEqual(e.kind, result["kind"], what)
            self.assertEqual(e.detail, "%s (merkledb: %s)" % (result["error"], result["kind"]))
            return
        self.assertTrue(result["ok"], what)
        if "path" in result:
            path, value = out
            self.assertEqual([x.hex() for x in path], result["path"], what)
            self.assertEqual(None if value is None else value.hex(), result["value"], what)
        else:
            self.assertEqual(out.hex(), result["proof"], what)

    def verdict(self, call, v, what):
        """One verification: our verdict is one of Go's outcomes (a Go panic: any refusal)."""
        self.verifications += 1
        try:
            self.assertIs(call(), True, what)
            kind, status = "ok", None
        except merkle.MerkleDBError as e:
            kind, status = e.kind, e.status
        self.outcomes.add(kind)
        for k, stage in expected(v):
            if k == "ok" and kind == "ok":
                return
            if stage == "panic" and kind != "ok":
                self.assertEqual(status, merkle.ERR_VERIFY, what)
                return
            if k == kind:
                self.assertEqual(status, merkle.ERR_FORMAT if stage == "unmarshal"
                                 else merkle.ERR_VERIFY, what)
                return
        self.fail("%s: ours %s, go %s" % (what, kind, expected(v)))

    def test_range_proofs(self):
        for r in self.v["range_proofs"]:
            bf = r["branch_factor"]
            if r.get("history"):
                db = self.history_db(r["history"], bf)
                at = hx(r["at_root"])
            else:
                db, at = self.state_db(r["state"], bf), None
            with db:
                self.request(lambda: db.prove_range(hx(r["start"]), hx(r["end"]),
                                                    r["max_length"], at), r["result"], r["id"])
            for v in r["verifications"]:
                self.verdict(lambda: merkle.mdb.verify_range(
                    hx(v["proof"]), hx(v["root"]), hx(v["start"]), hx(v["end"]),
                    v["max_length"], v.get("branch_factor", bf)), v,
                    "%s %s" % (r["id"], v["mutation"]))
        self.counted("range_proofs")

    def test_change_proofs(self):
        tries = {}
        for r in self.v["change_proofs"]:
            bf = r["branch_factor"]
            with self.history_db(r["history"], bf) as db:
                self.request(lambda: db.prove_change(hx(r["start_root"]), hx(r["end_root"]),
                                                     hx(r["start"]), hx(r["end"]),
                                                     r["max_length"]), r["result"], r["id"])
            for v in r["verifications"]:
                key = (v["verifier_state"], v.get("branch_factor", bf))
                if key not in tries:
                    tries[key] = self.state_trie(*key)
                self.verdict(lambda: merkle.mdb.verify_change(
                    hx(v["proof"]), tries[key], hx(v["root"]), hx(v["start"]), hx(v["end"]),
                    v["max_length"]), v, "%s %s" % (r["id"], v["mutation"]))
        self.counted("change_proofs")

    def test_key_proofs(self):
        for r in self.v["key_proofs"]:
            bf = r["branch_factor"]
            with self.state_trie(r["state"], bf) as t:
                self.request(lambda: merkle.mdb.prove_key(t, hx(r["key"])), r["result"], r["id"])
            for v in r["verifications"]:
                self.verdict(lambda: merkle.mdb.verify_key(
                    [hx(x) for x in v["path"]], hx(v["root"]), hx(v["key"]), hx(v["value"]),
                    v.get("branch_factor", bf)), v, "%s %s" % (r["id"], v["mutation"]))
        self.counted("key_proofs")


if __name__ == "__main__":
    unittest.main()
