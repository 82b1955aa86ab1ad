# SPDX-License-Identifier: MIT OR Apache-2.0
"""OpenZeppelin by value (issue 26 item 5): merkle proof --value (getProof(value) through
leafLookup), merkle verify --values/--value (StandardMerkleTree.verify), --load's validate()
and merkle root --render (render()), against what @openzeppelin/merkle-tree 1.0.8 answers on
random trees (tests/vectors/openzeppelin-parity.json, gen_openzeppelin_parity.js)."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import TempDirCase, run, vectors  # noqa: E402

CASES = vectors("openzeppelin-parity.json")["cases"]
OZ = ["--profile", "openzeppelin"]


def hx(h):
    return h if h.startswith("0x") else "0x" + h


class OzCase(TempDirCase):
    def inputs(self, c):
        """The ways of giving the case's tree: its rows or leaves, and OZ's own dump."""
        dump = ["--load", self.path("dump.json", c["dump"].encode())]
        if c["kind"] == "standard":
            rows = self.path("rows", "".join(r + "\n" for r in c["rows"]).encode())
            return [["--values", c["types"], rows], dump]
        leaves = self.path("leaves", "".join(v[2:] + "\n" for v in c["leaves"]).encode())
        return [["--leaves", leaves], dump]

    def typed(self, c):
        return ["--values", c["types"]] if c["kind"] == "standard" else []


class TestRender(OzCase):
    def test_render_equals_oz(self):
        for k, c in enumerate(CASES):
            for inp in self.inputs(c):
                with self.subTest(case=k, input=inp[0]):
                    rc, out, err = run(["root"] + OZ + ["--render"] + inp)
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(out.decode(), c["render"] + "\n")

    def test_render_usage(self):
        c = CASES[2]
        rows = self.inputs(c)[0]
        rc, out, err = run(["root"] + OZ + ["--render", "--dump", self.path("d")] + rows)
        self.assertEqual((rc, out), (2, b""))
        self.assertIn(b"--render", err)
        rc, out, err = run(["root", "--profile", "ssz", "--render", "--leaves", rows[-1]])
        self.assertEqual((rc, out), (2, b""))
        self.assertIn(b"openzeppelin", err)
        # An empty list has no tree to render (OZ throws too).
        rc, out, err = run(["root"] + OZ + ["--render", "--leaves", self.path("empty")])
        self.assertEqual((rc, out), (1, b""))


class TestProofByValue(OzCase):
    def test_get_proof_value(self):
        for k, c in enumerate(CASES):
            for inp in self.inputs(c):
                for lk in c["lookups"]:
                    with self.subTest(case=k, input=inp[0], value=lk["value"]):
                        rc, out, err = run(["proof"] + OZ + ["--value", lk["row"]] + inp)
                        self.assertEqual(rc, 0, err)
                        p = json.loads(out)
                        self.assertEqual([hx(h) for h in p["path"]], lk["proof"])
                        self.assertEqual(p["index"], lk["tree_index"])
                        self.assertEqual(hx(p["root"]), c["root"])

    def test_repeated_value_found_where_oz_finds_it(self):
        seen = 0
        for c in CASES:
            vals = c["rows"] if c["kind"] == "standard" else c["leaves"]
            for lk in c["lookups"]:
                if vals.count(vals[lk["value"]]) > 1:
                    seen += 1
                    # OZ's lookup is the last occurrence of the value in the input.
                    self.assertEqual(lk["lookup"], len(vals) - 1 - vals[::-1].index(vals[lk["value"]]))
        self.assertGreater(seen, 0, "the vectors have no repeated value")

    def test_multiproof_of_values(self):
        for k, c in enumerate(CASES):
            if c["kind"] != "standard" or len(c["multi"]["rows"]) < 2:
                continue
            for inp in self.inputs(c):
                with self.subTest(case=k, input=inp[0]):
                    args = []
                    for r in c["multi"]["rows"]:
                        args += ["--value", r]
                    rc, out, err = run(["proof"] + OZ + args + inp)
                    self.assertEqual(rc, 0, err)
                    m = json.loads(out)
                    self.assertEqual([hx(h) for h in m["proof"]], c["multi"]["proof"])
                    self.assertEqual(m["proofFlags"], c["multi"]["proofFlags"])
                    self.assertEqual([hx(h) for h in m["leaves"]], c["multi"]["leaves"])
                    f = self.path("m.json", out)
                    rc, vout, err = run(["verify", f, "--root", c["root"]])
                    self.assertEqual(rc, 0, (vout, err))

    def test_value_not_in_tree(self):
        for k, c in enumerate(CASES):
            self.assertEqual(c["missing"]["error"], "Leaf is not in tree")
            for inp in self.inputs(c):
                with self.subTest(case=k, input=inp[0]):
                    rc, out, err = run(["proof"] + OZ + ["--value", c["missing"]["row"]] + inp)
                    self.assertEqual((rc, out), (1, b""))
                    self.assertIn(b"not in the tree", err)

    def test_usage_errors(self):
        c = CASES[2]
        inp = self.inputs(c)[0]
        row = c["lookups"][0]["row"]
        for args, want in (
                (OZ + ["--value", row, "--index", "0"] + inp, b"not both"),
                (["--profile", "ssz", "--value", "00" * 32, "--leaves", inp[-1]], b"openzeppelin"),
                (["--value", "00", inp[-1]], b"openzeppelin"),
                (OZ + ["--value", row, "--value", row, "--binary"] + inp, b"JSON only")):
            with self.subTest(args=args):
                rc, out, err = run(["proof"] + args)
                self.assertEqual((rc, out), (2, b""), err)
                self.assertIn(want, err)
        # A row that does not fit the types, a leaf that is not 32 bytes: exit 1, named.
        rc, out, err = run(["proof"] + OZ + ["--value", "notanumber"] + inp)
        self.assertEqual((rc, out), (1, b""))
        self.assertIn(b"--value 'notanumber'", err)
        leaves = self.inputs(CASES[3])[0]
        rc, out, err = run(["proof"] + OZ + ["--value", "abcd"] + leaves)
        self.assertEqual((rc, out), (1, b""))
        self.assertIn(b"32 bytes", err)
        # The same value twice: a multiproof of one leaf twice is refused, as OZ refuses it.
        rc, out, err = run(["proof"] + OZ + ["--value", row, "--value", row] + inp)
        self.assertEqual((rc, out), (1, b""))
        self.assertIn(b"distinct", err)


class TestNestedTypes(OzCase):
    """Arrays and tuples in leaf types: the errors (the values are checked above against
    the peer on the nested cases of the vectors)."""

    def test_bad_type_lists(self):
        rows = self.path("r", b"1\n")
        for t in ("uint256[", "uint256[0]", "(uint256", "uint256[]]", "(uint256,bool", "()",
                  "uint7[]", "(uint256,foo)"):
            with self.subTest(types=t):
                rc, out, err = run(["root"] + OZ + ["--values", t, rows])
                self.assertEqual((rc, out), (1, b""))
                self.assertIn(b"--values: unsupported ABI type list", err)

    def test_bad_values(self):
        for types, row, want in (
                ("uint256[2]", "[1]", b"1 values for an array of 2"),
                ("uint256[]", "1", b"an array or tuple value is written"),
                ("uint256[]", "[1,2,3", b"malformed value list"),
                ("uint256[]", "[1,,2]", b"malformed value list"),
                ("(uint256,bool)", "(1)", b"1 values for 2 types"),
                ("uint256[]", "[[1]]", b"not a valid uint"),
                # An elementary value holding an unquoted comma: one value, not two (this
                # overflowed a one-value array before; found by fuzz_shape_docs).
                ("uint256[]", "[[1,2]]", b"malformed value"),
                ("(string,uint8)", "([a,b,c],1)", b"malformed value"),
                ("uint8[]", "[256]", b"not a valid uint"),
                ("(bool,string)[]", "[(true,x),(1,y)]", b"not a valid bool")):
            with self.subTest(types=types, row=row):
                rc, out, err = run(["root"] + OZ + ["--values", types,
                                                    self.path("r", row.encode() + b"\n")])
                self.assertEqual((rc, out), (1, b""), err)
                self.assertIn(b"r:1: ", err)
                self.assertIn(want, err)

    def test_quoted_commas_and_brackets_in_strings(self):
        # A string element may hold commas and brackets inside quotes; an empty array is [].
        r1 = self.path("r1", b'["a,b","[x]"],[]\n')
        r2 = self.path("r2", b'[ "a,b" , "[x]" ] , [ ]\n')
        roots = []
        for r in (r1, r2):
            rc, out, err = run(["root"] + OZ + ["--values", "string[],uint8[]", r])
            self.assertEqual(rc, 0, err)
            roots.append(out.split()[0])
        self.assertEqual(roots[0], roots[1])


class TestVerifyByValue(OzCase):
    def test_verify_value(self):
        for k, c in enumerate(CASES):
            inp = self.inputs(c)[0]
            for lk in c["lookups"]:
                with self.subTest(case=k, value=lk["value"]):
                    rc, out, err = run(["proof"] + OZ + ["--value", lk["row"]] + inp)
                    self.assertEqual(rc, 0, err)
                    f = self.path("p.json", out)
                    self.assertTrue(lk["verify"])
                    rc, vout, err = run(["verify", f, "--root", c["root"]] + self.typed(c)
                                        + ["--value", lk["row"]])
                    self.assertEqual(rc, 0, (vout, err))
                    self.assertTrue(vout.startswith(b"OK: leaf %d " % lk["tree_index"]), vout)
                    if c["kind"] != "standard":
                        continue
                    # OZ's verify of another value with this proof is false: FAILED, exit 1.
                    self.assertFalse(lk["verify_other"])
                    rc, vout, _ = run(["verify", f, "--root", c["root"], "--values", c["types"],
                                       "--value", lk["other_row"]])
                    self.assertEqual(rc, 1)
                    self.assertTrue(vout.startswith(b"FAILED"), vout)
                    # The right value under another root: FAILED.
                    rc, vout, _ = run(["verify", f, "--root", "0x" + "11" * 32, "--values",
                                       c["types"], "--value", lk["row"]])
                    self.assertEqual(rc, 1)

    def test_verify_bare_proof_array(self):
        # OZ's own getProof() output, a bare ["0x..", ...] array, as StandardMerkleTree.verify
        # (root, types, value, proof) takes it: the same verdicts as OZ 1.0.8's.
        n = 0
        for k, c in enumerate(CASES):
            for lk in c["lookups"]:
                with self.subTest(case=k, value=lk["value"]):
                    f = self.path("bare.json", json.dumps(lk["proof"]).encode())
                    rc, vout, err = run(["verify", f, "--root", c["root"]] + self.typed(c)
                                        + ["--value", lk["row"]])
                    self.assertEqual((rc, lk["verify"]), (0, True), (vout, err))
                    self.assertIn(b"a bare proof array: no position", vout)
                    if "leaf_hash" in lk:  # standard trees: OZ's leafHash(value)
                        self.assertIn(lk["leaf_hash"][2:].encode(), vout)
                    n += 1
                    if c["kind"] != "standard":
                        continue
                    rc, vout, _ = run(["verify", f, "--root", c["root"], "--values", c["types"],
                                       "--value", lk["other_row"]])
                    self.assertEqual((rc, lk["verify_other"]), (1, False), vout)
                    self.assertTrue(vout.startswith(b"FAILED"), vout)
                    rc, vout, _ = run(["verify", f, "--root", "0x" + "11" * 32, "--values",
                                       c["types"], "--value", lk["row"]])
                    self.assertEqual(rc, 1, vout)
        self.assertGreater(n, 10)

    def test_verify_oz_multiproof_object(self):
        # getMultiProof()'s own object {leaves: values, proof, proofFlags}, as
        # StandardMerkleTree.verifyMultiProof(root, types, multiproof) takes it: OZ says true.
        n = 0
        for k, c in enumerate(CASES):
            if c["kind"] != "standard":
                continue
            mu = c["multi"]
            self.assertTrue(mu["verify"])
            f = self.path("mp.json", json.dumps(mu["oz"]).encode())
            with self.subTest(case=k, types=c["types"]):
                rc, out, err = run(["verify", f, "--root", c["root"], "--values", c["types"]])
                self.assertEqual(rc, 0, (out, err))
                self.assertIn(b"openzeppelin multiproof: its %d leaves" % len(mu["leaves"]), out)
                n += 1
                # One of the proven values, bound: OK; a value not in the tree: FAILED.
                rc, out, err = run(["verify", f, "--root", c["root"], "--values", c["types"],
                                    "--value", mu["rows"][0]])
                self.assertEqual(rc, 0, (out, err))
                self.assertIn(b"among them", out)
                rc, out, err = run(["verify", f, "--root", c["root"], "--values", c["types"],
                                    "--value", c["missing"]["row"]])
                self.assertEqual(rc, 1, (out, err))
                self.assertIn(b"not among the proof's leaves", out)
                # Another root, or a changed value: FAILED.
                rc, out, _ = run(["verify", f, "--root", "0x" + "11" * 32, "--values", c["types"]])
                self.assertEqual(rc, 1, out)
                bad = dict(mu["oz"], leaves=[c["missing"]["value"]] + mu["oz"]["leaves"][1:])
                g = self.path("mp2.json", json.dumps(bad).encode())
                rc, out, _ = run(["verify", g, "--root", c["root"], "--values", c["types"]])
                self.assertEqual(rc, 1, out)
                # Without --values the values are not leaf hashes: a malformed proof, exit 2.
                rc, out, err = run(["verify", f, "--root", c["root"]])
                self.assertEqual((rc, out), (2, b""), err)
                # A value that does not fit the types: exit 2, naming its place.
                bad = dict(mu["oz"], leaves=[["x"] * 9] + mu["oz"]["leaves"][1:])
                g = self.path("mp3.json", json.dumps(bad).encode())
                rc, out, err = run(["verify", g, "--root", c["root"], "--values", c["types"]])
                self.assertEqual((rc, out), (2, b""), err)
                self.assertIn(b"malformed proof", err)
        self.assertGreater(n, 10)

    def test_bare_proof_array_errors(self):
        c = CASES[2]
        lk = next(x for x in c["lookups"] if x["proof"])
        h = lk["proof"][0]
        base = ["--root", c["root"]] + self.typed(c) + ["--value", lk["row"]]
        for text, args, want in (
                ('[%s,]' % json.dumps(h), base, b"a proof array is"),
                ('[%s %s]' % (json.dumps(h), json.dumps(h)), base, b"a proof array is"),
                ('[%s] x' % json.dumps(h), base, b"a proof array is"),
                ('[1]', base, b"a proof array is"),
                ('["0x12"]', base, b"element 0 of the proof array is not a 32-byte hex"),
                ('["%s"]' % ("zz" * 32), base, b"element 0"),
                ('[%s]' % ",".join([json.dumps(h)] * 129), base, b"more than 128 hashes"),
                (json.dumps(lk["proof"]), base + ["--index", "0"], b"states no index"),
                (json.dumps(lk["proof"]), base + ["--tree-size", "3"], b"states no tree size"),
                (json.dumps(lk["proof"]), ["--untrusted-root"] + self.typed(c)
                 + ["--value", lk["row"]], b"the proof has no root"),
                (json.dumps(lk["proof"]), ["--root", c["root"]], b"the proof has no leaf")):
            with self.subTest(text=text[:40], args=args[-2:]):
                f = self.path("bad.json", text.encode())
                rc, vout, err = run(["verify", f] + args)
                self.assertEqual((rc, vout), (2, b""), err)
                self.assertIn(want, err)

    def test_verify_usage(self):
        c = CASES[2]
        lk = c["lookups"][0]
        rc, out, err = run(["proof"] + OZ + ["--value", lk["row"]] + self.inputs(c)[0])
        f = self.path("p.json", out)
        for args, want in (
                (["--values", c["types"]], b"--values TYPES types a --value ROW"),
                (["--values", c["types"], "--value", lk["row"], "--leaf-hash", "00" * 32],
                 b"at most one"),
                (["--values", c["types"], "--value", "x,y,z"], b"--value 'x,y,z'"),
                (["--value", "zz"], b"not hex")):
            with self.subTest(args=args):
                rc, vout, err = run(["verify", f, "--root", c["root"]] + args)
                self.assertEqual(rc, 2, (vout, err))
                self.assertIn(want, err)
        # A --leaves leaf of the wrong length: FAILED, as --leaf-hash says it.
        rc, vout, err = run(["verify", f, "--root", c["root"], "--value", "abcd"])
        self.assertEqual(rc, 1)
        self.assertIn(b"FAILED: --value has 2 bytes", vout)
        # Not an openzeppelin proof.
        leaves = self.path("l", b"aa\nbb\n")
        rc, out, err = run(["proof", "--index", "0", "--leaves", leaves])
        f = self.path("r.json", out)
        rc, vout, err = run(["verify", f, "--untrusted-root", "--value", "00" * 32])
        self.assertEqual(rc, 2)
        self.assertIn(b"openzeppelin", err)


class TestValidate(OzCase):
    def test_tampered_dumps_refused(self):
        for k, c in enumerate(CASES):
            for t in c.get("tampered", []):
                with self.subTest(case=k, what=t["what"]):
                    self.assertIn(t["error"], ("Merkle tree does not contain the expected value",
                                               "Merkle tree is invalid"))
                    d = self.path("t.json", t["dump"].encode())
                    for cmd in (["root"], ["root", "--render"], ["proof", "--index", "0"]):
                        rc, out, err = run(cmd + OZ + ["--load", d])
                        self.assertEqual((rc, out), (1, b""), (cmd, err))

    def test_dump_equals_oz(self):
        """--dump writes the peer's dump() byte for byte (arrays and tuples included)."""
        nested = 0
        for k, c in enumerate(CASES):
            if c["kind"] != "standard":
                continue
            nested += "[" in c["types"] or "(" in c["types"]
            with self.subTest(case=k):
                out = os.path.join(self.dir, "dump%d.json" % k)
                rc, _, err = run(["root"] + OZ + ["--dump", out] + self.inputs(c)[0])
                self.assertEqual(rc, 0, err)
                with open(out) as f:
                    self.assertEqual(f.read(), c["dump"] + "\n")
        self.assertGreaterEqual(nested, 6)

    def test_oz_dump_loads(self):
        for k, c in enumerate(CASES):
            with self.subTest(case=k):
                rc, out, err = run(["root"] + OZ + ["--load", self.path("d", c["dump"].encode())])
                self.assertEqual(rc, 0, err)
                self.assertEqual(hx(out.split()[0].decode()), c["root"])


if __name__ == "__main__":
    unittest.main()
