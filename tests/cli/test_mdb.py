# SPDX-License-Identifier: MIT OR Apache-2.0
"""End-to-end tests of the merkledb proof commands (issue 24): `merkle trie prove-range`,
`prove-change`, `verify-range`, `verify-change`, and `prove`/`verify --format merkledb`.

Every request and every verification of ../shared/vectors/merkledb-proofs-public.json.gz
(produced by avalanchego's own x/merkledb code; not committed, so those tests skip when it is
absent) is run through the CLI: proof bytes identical to Go's, verdicts and exit codes as Go's
(OK / FAILED naming the sentinel of the vectors' error_kinds). The error paths (usage errors,
unreadable and malformed files, refusals) are tested without the vectors."""
import gzip
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import SHARED_VECTORS, TempDirCase, run  # noqa: E402

VEC_PATH = os.path.join(SHARED_VECTORS, "merkledb-proofs-public.json.gz")
HAVE_VECTORS = os.path.exists(VEC_PATH)
SKIP_MSG = f"{VEC_PATH} is absent (data from other projects lives outside the repository)"
VERDICT = re.compile(r"^FAILED: (.*) \(merkledb: ([A-Za-z.]+)\)\n$", re.S)

_V = None


def vecs():
    global _V
    if _V is None:
        with gzip.open(VEC_PATH, "rt") as f:
            _V = json.load(f)
    return _V


def key_arg(k):
    """A vector's hex key (never None here) as a CLI KEY."""
    return "-" if k == "" else k


def bounds(obj):
    args = []
    if obj["start"] is not None:
        args += ["--start", key_arg(obj["start"])]
    if obj["end"] is not None:
        args += ["--end", key_arg(obj["end"])]
    return args


def ops_text(kvs):
    return "".join(f"put {key_arg(k)} {key_arg(v)}\n" for k, v in kvs)


def history_text(h):
    out = []
    for step in h["steps"][1:]:  # step 0 is the empty database as created
        for op in step["ops"]:
            k = key_arg(op["key"])
            out.append(f"del {k}\n" if op["value"] is None else f"put {k} {key_arg(op['value'])}\n")
        out.append("commit\n")
    return "".join(out)


def parse_verdict(rc, out):
    """('ok', None) or (sentinel name, reason), asserting the output form."""
    if rc == 0:
        assert out == b"OK\n", out
        return "ok", None
    m = VERDICT.match(out.decode())
    assert m, out
    return m.group(2), m.group(1)


class VectorFiles:
    """Operation files for the vectors' states and histories, written once."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        v = vecs()
        self.states = {s["id"]: s for s in v["states"]}
        self.hists = {h["id"]: h for h in v["histories"]}
        self.files = {}

    def state(self, sid):
        if ("s", sid) not in self.files:
            p = os.path.join(self.tmp.name, sid)
            with open(p, "w") as f:
                f.write(ops_text(self.states[sid]["kvs"]))
            self.files[("s", sid)] = p
        return self.files[("s", sid)]

    def history(self, hid):
        if ("h", hid) not in self.files:
            p = os.path.join(self.tmp.name, hid)
            with open(p, "w") as f:
                f.write(history_text(self.hists[hid]))
            self.files[("h", hid)] = p
        return self.files[("h", hid)]

    def proof(self, data):
        p = os.path.join(self.tmp.name, "proof")
        with open(p, "wb") as f:
            f.write(data)
        return p


def expected(verdict, others):
    """The outcomes Go gave: a list of (kind or 'ok' or 'panic', stage)."""
    out = []
    for x in [verdict] + list(others or []):
        out.append(("ok", None) if x["ok"] else (x["kind"], x["stage"]))
    return out


def check_verdict(tc, rc, out, verdict, others, what):
    kind, _ = parse_verdict(rc, out)
    outs = expected(verdict, others)
    for k, stage in outs:
        if k == "ok" and kind == "ok":
            tc.assertEqual(rc, 0, what)
            return
        if stage == "panic" and kind != "ok":  # Go panics: a clean FAILED here
            tc.assertEqual(rc, 1, what)
            return
        if k == kind:
            tc.assertEqual(rc, 2 if stage == "unmarshal" else 1, what)
            return
    tc.fail(f"{what}: ours {kind} (rc {rc}: {out!r}), go {outs}")


def check_request(tc, rc, out, result, what):
    if result["ok"]:
        tc.assertEqual(rc, 0, what)
        return
    tc.assertEqual(rc, 1, what)
    kind, reason = parse_verdict(rc, out)
    tc.assertEqual(kind, result["kind"], what)
    tc.assertEqual(reason, result["error"], what)


@unittest.skipUnless(HAVE_VECTORS, SKIP_MSG)
class TestVectors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.f = VectorFiles()

    @classmethod
    def tearDownClass(cls):
        cls.f.tmp.cleanup()

    def test_range_proofs(self):
        n = 0
        for r in vecs()["range_proofs"]:
            bf = r["branch_factor"]
            args = ["trie", "prove-range", "-b", str(bf), "--max-length", str(r["max_length"])]
            args += bounds(r)
            if r.get("history"):
                h = self.f.hists[r["history"]]
                args += ["--at-root", r["at_root"], "--history-length", str(h["history_length"]),
                         self.f.history(r["history"])]
            else:
                args.append(self.f.state(r["state"]))
            rc, out, err = run(args)
            check_request(self, rc, out, r["result"], r["id"])
            if r["result"]["ok"]:
                self.assertEqual(out.hex(), r["result"]["proof"], r["id"])
            for v in r["verifications"]:
                p = self.f.proof(bytes.fromhex(v["proof"]))
                vbf = v.get("branch_factor", bf)
                rc, out, err = run(["trie", "verify-range", p, "--root", v["root"], "-b",
                                    str(vbf), "--max-length", str(v["max_length"])] + bounds(v))
                check_verdict(self, rc, out, v["verdict"], v.get("other_verdicts"),
                              f"{r['id']} {v['mutation']}")
                n += 1
        self.assertGreater(n, 1000)

    def test_change_proofs(self):
        n = 0
        for r in vecs()["change_proofs"]:
            bf = r["branch_factor"]
            h = self.f.hists[r["history"]]
            args = ["trie", "prove-change", "--from-root", r["start_root"], "--to-root",
                    r["end_root"], "-b", str(bf), "--max-length", str(r["max_length"]),
                    "--history-length", str(h["history_length"])]
            rc, out, err = run(args + bounds(r) + [self.f.history(r["history"])])
            check_request(self, rc, out, r["result"], r["id"])
            if r["result"]["ok"]:
                self.assertEqual(out.hex(), r["result"]["proof"], r["id"])
            for v in r["verifications"]:
                p = self.f.proof(bytes.fromhex(v["proof"]))
                vbf = v.get("branch_factor", bf)
                rc, out, err = run(["trie", "verify-change", p, "--db",
                                    self.f.state(v["verifier_state"]), "--root", v["root"],
                                    "-b", str(vbf), "--max-length", str(v["max_length"])] +
                                   bounds(v))
                check_verdict(self, rc, out, v["verdict"], v.get("other_verdicts"),
                              f"{r['id']} {v['mutation']}")
                n += 1
        self.assertGreater(n, 500)

    def test_key_proofs(self):
        n = 0
        for r in vecs()["key_proofs"]:
            bf = r["branch_factor"]
            rc, out, err = run(["trie", "prove", "--format", "merkledb", "-b", str(bf), "--key",
                                key_arg(r["key"]), self.f.state(r["state"])])
            check_request(self, rc, out, r["result"], r["id"])
            if r["result"]["ok"]:
                self.assertEqual(out.decode().split(), r["result"]["path"], r["id"])
            for v in r["verifications"]:
                p = self.f.proof("".join((x or "-") + "\n" for x in v["path"]).encode())
                vbf = v.get("branch_factor", bf)
                val = ["--absent"] if v["value"] is None else ["--value", key_arg(v["value"])]
                rc, out, err = run(["trie", "verify", "--format", "merkledb", p, "--root",
                                    v["root"], "--key", key_arg(v["key"]), "-b", str(vbf)] + val)
                check_verdict(self, rc, out, v["verdict"], v.get("other_verdicts"),
                              f"{r['id']} {v['mutation']}")
                n += 1
        self.assertGreater(n, 500)


OPS = b"put 61 01\nput 62 02\ncommit\n# a comment\n\nput 63 03\ndel 62\n"


class TestCommands(TempDirCase):
    """Round trips and every error path, without the vectors."""

    def setUp(self):
        super().setUp()
        self.ops = self.path("ops", OPS)
        self.old = self.path("old", b"put 61 01\nput 62 02\n")
        self.root = run(["trie", "root", self.ops])[1].split()[0].decode()
        self.old_root = run(["trie", "root", self.old])[1].split()[0].decode()

    def test_commit_is_ignored_by_root(self):
        rc, out, _ = run(["trie", "root", self.path("flat", b"put 61 01\nput 63 03\n")])
        self.assertEqual((rc, out.split()[0].decode()), (0, self.root))

    def test_range_round_trip(self):
        rc, proof, _ = run(["trie", "prove-range", self.ops])
        self.assertEqual(rc, 0)
        p = self.path("p", proof)
        self.assertEqual(run(["trie", "verify-range", p, "--root", self.root]), (0, b"OK\n", b""))
        rc, out, _ = run(["trie", "verify-range", p, "--root", self.old_root])
        self.assertEqual((rc, parse_verdict(rc, out)[0]), (1, "ErrInvalidProof"))
        rc, out, _ = run(["trie", "verify-range", p, "--root", self.root, "--max-length", "1"])
        self.assertEqual((rc, parse_verdict(rc, out)[0]), (1, "errTooManyKeys"))
        # from standard input, cb58 root
        cb = run(["trie", "root", self.ops])[1].split()[1].decode()
        self.assertEqual(run(["trie", "verify-range", "-", "--root", cb], stdin=proof)[0], 0)
        # bounded, at an older root of the history
        rc, proof2, _ = run(["trie", "prove-range", "--at-root", self.old_root, "--start", "62",
                             "--end", "62", self.ops])
        self.assertEqual(rc, 0)
        p2 = self.path("p2", proof2)
        self.assertEqual(run(["trie", "verify-range", p2, "--root", self.old_root, "--start",
                              "62", "--end", "62"])[:2], (0, b"OK\n"))

    def test_range_refusals(self):
        for args, kind in [
            (["--start", "63", "--end", "61"], "ErrStartAfterEnd"),
            (["--max-length", "0"], "ErrInvalidMaxLength"),
            (["--max-length", "-1"], "ErrInvalidMaxLength"),
            (["--at-root", self.old_root, "--history-length", "1"], "sync.ErrInsufficientHistory"),
        ]:
            rc, out, _ = run(["trie", "prove-range"] + args + [self.ops])
            self.assertEqual((rc, parse_verdict(rc, out)[0]), (1, kind), args)
        rc, out, _ = run(["trie", "prove-range", self.path("empty")])
        self.assertEqual((rc, parse_verdict(rc, out)[0]), (1, "ErrEmptyProof"))

    def test_change_round_trip_and_refusals(self):
        rc, proof, _ = run(["trie", "prove-change", "--from-root", self.old_root, "--to-root",
                            self.root, self.ops])
        self.assertEqual(rc, 0)
        p = self.path("cp", proof)
        self.assertEqual(run(["trie", "verify-change", p, "--db", self.old, "--root",
                              self.root])[:2], (0, b"OK\n"))
        rc, out, _ = run(["trie", "verify-change", p, "--db", self.old, "--root", self.old_root])
        self.assertEqual((rc, parse_verdict(rc, out)[0]), (1, "ErrInvalidProof"))
        for args, kind in [
            (["--from-root", self.root, "--to-root", self.root], "errSameRoot"),
            (["--from-root", self.old_root, "--to-root", "11" * 32], "sync.ErrNoEndRoot"),
            (["--from-root", self.old_root, "--to-root", self.root, "--start", "63", "--end",
              "61"], "ErrStartAfterEnd"),
            (["--from-root", self.old_root, "--to-root", self.root, "--history-length", "1"],
             "sync.ErrInsufficientHistory"),
        ]:
            rc, out, _ = run(["trie", "prove-change"] + args + [self.ops])
            self.assertEqual((rc, parse_verdict(rc, out)[0]), (1, kind), args)

    def test_key_round_trip(self):
        rc, out, _ = run(["trie", "prove", "--format", "merkledb", "--key", "61", self.ops])
        self.assertEqual(rc, 0)
        self.assertTrue(re.fullmatch(rb"([0-9a-f]+\n)+", out), out)
        p = self.path("kp", out)
        base = ["trie", "verify", "--format", "merkledb", p, "--root", self.root, "--key", "61"]
        self.assertEqual(run(base + ["--value", "01"])[:2], (0, b"OK\n"))
        rc, o, _ = run(base + ["--value", "02"])
        self.assertEqual((rc, parse_verdict(rc, o)[0]), (1, "ErrProofValueDoesntMatch"))
        rc, o, _ = run(base + ["--absent"])
        self.assertEqual((rc, parse_verdict(rc, o)[0]), (1, "ErrProofValueDoesntMatch"))
        # exclusion proof of a deleted key
        rc, out, _ = run(["trie", "prove", "--format", "merkledb", "--key", "62", self.ops])
        p = self.path("kp2", out)
        self.assertEqual(run(["trie", "verify", "--format", "merkledb", p, "--root", self.root,
                              "--key", "62", "--absent"])[:2], (0, b"OK\n"))
        # empty trie: refused
        rc, o, _ = run(["trie", "prove", "--format", "merkledb", "--key", "-", self.path("e")])
        self.assertEqual((rc, parse_verdict(rc, o)[0]), (1, "ErrEmptyProof"))
        # an empty PROOF is zero nodes
        rc, o, _ = run(["trie", "verify", "--format", "merkledb", self.path("z"), "--root",
                        self.root, "--key", "61", "--value", "01"])
        self.assertEqual((rc, parse_verdict(rc, o)[0]), (1, "ErrEmptyProof"))
        # the mtrp format is unchanged
        self.assertEqual(run(["trie", "prove", "--format", "mtrp", "--key", "61", self.ops])[1],
                         run(["trie", "prove", "--key", "61", self.ops])[1])

    def test_undecodable_proofs(self):
        bad = self.path("bad", b"\xff\xff\xff")
        for cmd in (["verify-range", bad, "--root", self.root],
                    ["verify-change", bad, "--db", self.old, "--root", self.root]):
            rc, out, _ = run(["trie"] + cmd)
            self.assertEqual((rc, parse_verdict(rc, out)[0]), (2, "proto"), cmd)
        for text, kind in [(b"zz\n", "proto"), (b"ff\n", "proto")]:
            rc, out, _ = run(["trie", "verify", "--format", "merkledb", self.path("k", text),
                              "--root", self.root, "--key", "61", "--absent"])
            self.assertEqual((rc, parse_verdict(rc, out)[0]), (2, kind), text)

    def test_usage_errors(self):
        p = self.path("p", b"")
        cases = [
            ["prove-range", "--branch-factor", "3", self.ops],
            ["prove-range", "--max-length", "x", self.ops],
            ["prove-range", "--history-length", "0", self.ops],
            ["prove-range", "--start", "6", self.ops],
            ["prove-range", "--end", "zz", self.ops],
            ["prove-range", "--at-root", "nothex", self.ops],
            ["prove-range", self.ops, self.ops],
            ["prove-range", "--bogus", self.ops],
            ["prove-change", "--to-root", self.root, self.ops],
            ["prove-change", "--from-root", self.root, self.ops],
            ["prove-change", "--from-root", "x", "--to-root", self.root, self.ops],
            ["verify-range", p],
            ["verify-range", "--root", self.root],
            ["verify-range", p, p, "--root", self.root],
            ["verify-range", p, "--root", "abc"],
            ["verify-change", p, "--root", self.root],
            ["verify-change", p, "--db", self.old],
            ["verify-range", os.path.join(self.dir, "missing"), "--root", self.root],
            ["verify-change", p, "--db", os.path.join(self.dir, "missing"), "--root", self.root],
            ["verify-change", p, "--db", self.path("baddb", b"put zz\n"), "--root", self.root],
            ["verify", "--format", "merkledb", p, "--root", self.root, "--key", "61"],
            ["verify", "--format", "merkledb", p, "--root", self.root, "--key", "61", "--absent",
             "--value", "01"],
            ["verify", "--format", "merkledb", p, "--root", self.root, "--absent"],
            ["verify", "--format", "merkledb", p, "--key", "61", "--absent"],
            ["verify", "--format", "merkledb", p, "--root", self.root, "--key", "6", "--absent"],
            ["verify", "--format", "merkledb", p, "--root", self.root, "--key", "61", "--value",
             "0"],
            ["verify", "--format", "json", p, "--root", self.root],
            ["verify", p, "--root", self.root, "--key", "61"],
            ["verify", "--format", "merkledb", os.path.join(self.dir, "missing"), "--root",
             self.root, "--key", "61", "--absent"],
            ["prove", "--format", "xml", "--key", "61", self.ops],
        ]
        for c in cases:
            rc, out, err = run(["trie"] + c)
            self.assertEqual(rc, 2, (c, out, err))
            self.assertEqual(out, b"", c)
            self.assertTrue(err.startswith(b"merkle"), (c, err))

    def test_bad_operation_files(self):
        for text, msg in [(b"put 61\n", b":1: put needs KEYHEX and VALUEHEX"),
                          (b"put 61 01\ncommit now\n", b":2: commit takes no field"),
                          (b"get 61\n", b":1: unknown operation 'get'"),
                          (b"put 6 01\n", b":1: bad hex key"),
                          (b"put 61 0\n", b":1: bad hex value"),
                          (b"del\n", b":1: del needs KEYHEX")]:
            f = self.path("badops", text)
            for c in (["prove-range", f], ["prove", "--format", "merkledb", "--key", "61", f],
                      ["prove-change", "--from-root", self.root, "--to-root", self.old_root, f]):
                rc, out, err = run(["trie"] + c)
                self.assertEqual((rc, out), (1, b""), (text, c))
                self.assertIn(msg, err, (text, c))
        rc, out, err = run(["trie", "prove-range", os.path.join(self.dir, "missing")])
        self.assertEqual((rc, out), (1, b""))

    def test_help(self):
        for a in ("prove-range", "prove-change", "verify-range", "verify-change"):
            rc, out, _ = run(["trie", a, "--help"])
            self.assertEqual(rc, 0)
            self.assertIn(b"Usage: merkle trie " + a.encode(), out)
        rc, _, err = run(["trie", "prove-ranges"])
        self.assertEqual(rc, 2)
        self.assertIn(b"prove-range", err)


if __name__ == "__main__":
    unittest.main()
