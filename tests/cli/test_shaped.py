# SPDX-License-Identifier: MIT OR Apache-2.0
"""CLI tests for the shaped profiles (bitcoin, ssz, openzeppelin, bittorrent-v2): every peer
vector through `merkle root`, `merkle proof` and `merkle verify`, tampered proofs, and the
usage errors of the new options."""
import json
import unittest

from cliutil import TempDirCase, run, vectors


def lines(hexes):
    return "".join(h + "\n" for h in hexes).encode()


def read_text(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


def rev(h):
    return bytes.fromhex(h)[::-1].hex()


class Bitcoin(TempDirCase):
    @classmethod
    def setUpClass(cls):
        v = vectors("bitcoin.json")
        cls.trees = v["blocks"] + v["synthetic"]

    def test_block_100000(self):
        txids = [t for b in vectors("bitcoin.json")["blocks"] if b["name"] == "block 100000"
                 for t in b["txids"]]
        rc, out, err = run(["root", "--profile", "bitcoin", "--leaves"], stdin=lines(txids))
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, b"f3e94742aca4b5ef85488dc37c06c3282295ffec960994b2c0d5ac2a25a95766  -\n")

    def test_roots(self):
        for t in self.trees:
            f = self.path("tx", lines(t["txids"]))
            rc, out, err = run(["root", "--profile", "bitcoin", "--leaves", f])
            self.assertEqual(rc, 0, (t["name"], err))
            self.assertEqual(out.split()[0].decode(), t["root"], t["name"])
            self.assertEqual(b"mutated" in err, t["mutated"], t["name"])
            rc, out, err = run(["root", "--profile", "bitcoin", "--leaves", "--strict", f])
            self.assertEqual(rc, 1 if t["mutated"] else 0, t["name"])
            # Internal byte order in and out.
            rc, out, _ = run(["root", "--profile", "bitcoin", "--leaves", "--internal-order"],
                             stdin=lines(rev(x) for x in t["txids"]))
            self.assertEqual(rc, 0)
            self.assertEqual(out.split()[0].decode(), rev(t["root"]), t["name"])
            w = t.get("witness")
            if w:
                rc, out, _ = run(["root", "--profile", "bitcoin", "--leaves"], stdin=lines(w["wtxids"]))
                self.assertEqual(out.split()[0].decode(), w["root"])

    def test_proofs(self):
        for t in self.trees:
            f = self.path("tx", lines(t["txids"]))
            for p in t.get("proofs", []):
                i = p["index"]
                rc, out, err = run(["proof", "--profile", "bitcoin", "--leaves", "--index", str(i), f])
                self.assertEqual(rc, 0, (t["name"], err))
                j = json.loads(out)
                self.assertEqual(j["path"], p["branch"], (t["name"], i))
                self.assertEqual(j["root"], t["root"])
                self.assertEqual(j["leaf_hash"], t["txids"][i])
                self.assertEqual(j["tree_size"], len(t["txids"]))
                pf = self.path("p.json", out)
                rc, out, _ = run(["verify", pf, "--root", t["root"]])
                self.assertEqual((rc, out[:3]), (0, b"OK:"))
                rc, out, _ = run(["verify", pf, "--root", rev(t["root"])])
                self.assertEqual(rc, 1)
                # A tampered branch fails.
                if j["path"]:
                    j["path"][-1] = ("0" if j["path"][-1][0] != "0" else "1") + j["path"][-1][1:]
                    rc, out, _ = run(["verify", self.path("bad.json", json.dumps(j).encode()), "--untrusted-root"])
                    self.assertEqual(rc, 1)
                    self.assertTrue(out.startswith(b"FAILED"))
                    # A branch one hash short is refused even though it may hash somewhere.
                    j["path"] = j["path"][:-1]
                    rc, out, _ = run(["verify", self.path("bad.json", json.dumps(j).encode()), "--untrusted-root"])
                    self.assertEqual(rc, 1)
                # Binary round trip.
                rc, b, _ = run(["proof", "--profile", "bitcoin", "--leaves", "--binary", "--index", str(i), f])
                self.assertEqual(rc, 0)
                rc, out, _ = run(["verify", self.path("p.bin", b), "--root", t["root"]])
                self.assertEqual((rc, out[:3]), (0, b"OK:"))

    def test_leaf_is_the_raw_transaction(self):
        # The genesis coinbase: its txid is SHA-256d of the raw transaction.
        g = [b for b in vectors("bitcoin.json")["blocks"] if b["name"] == "Genesis Block"][0]
        f = self.path("tx", lines(g["txids"]))
        rc, out, _ = run(["proof", "--profile", "bitcoin", "--leaves", "--index", "0", f])
        pf = self.path("p.json", out)
        rc, out, _ = run(["verify", pf, "--leaf-hash", g["txids"][0], "--root", g["root"]])
        self.assertEqual((rc, out[:3]), (0, b"OK:"))
        rc, out, _ = run(["verify", pf, "--leaf-hex", "00", "--untrusted-root"])
        self.assertEqual(rc, 1)

    def test_errors(self):
        rc, _, err = run(["root", "--profile", "bitcoin"], stdin=b"")
        self.assertEqual(rc, 2)
        self.assertIn(b"--leaves", err)
        rc, _, err = run(["root", "--profile", "bitcoin", "--leaves"], stdin=b"abcd\n")
        self.assertEqual(rc, 1)
        self.assertIn(b"-:1: expected a 32-byte hash", err)
        rc, _, err = run(["root", "--profile", "bitcoin", "--leaves"], stdin=b"zz\n")
        self.assertEqual(rc, 1)
        rc, _, err = run(["root", "--profile", "bitcoin", "--leaves", "--limit", "4"], stdin=b"")
        self.assertEqual(rc, 2)
        rc, _, err = run(["root", "--internal-order", "--leaves"], stdin=b"")
        self.assertEqual(rc, 2)
        rc, _, err = run(["root", "--profile", "nope"], stdin=b"")
        self.assertEqual(rc, 2)
        rc, out, err = run(["root", "--profile", "bitcoin", "--leaves"], stdin=b"")
        self.assertEqual((rc, out), (0, b"0" * 64 + b"  -\n"))
        tx = lines(["11" * 32, "22" * 32])
        rc, _, err = run(["proof", "--profile", "bitcoin", "--leaves", "--index", "2"], stdin=tx)
        self.assertEqual(rc, 1)
        self.assertIn(b"not reached", err)
        rc, _, err = run(["proof", "--profile", "bitcoin", "--leaves", "--index", "0,1"], stdin=tx)
        self.assertEqual(rc, 2)
        rc, _, err = run(["proof", "--profile", "bitcoin", "--leaves", "--gindex", "2"], stdin=tx)
        self.assertEqual(rc, 2)
        rc, _, err = run(["proof", "--profile", "bitcoin", "--leaves", "--range", "0:1"], stdin=tx)
        self.assertEqual(rc, 2)
        rc, _, err = run(["consistency", "--profile", "bitcoin", "--leaves", "--old-size", "1"], stdin=tx)
        self.assertEqual(rc, 2)


def ssz_chunks(n):
    import hashlib
    return [hashlib.sha256(i.to_bytes(4, "little")).hexdigest() for i in range(n)]


class Ssz(TempDirCase):
    @classmethod
    def setUpClass(cls):
        cls.cases = vectors("ssz.json")["cases"]

    def opts(self, c):
        o = ["--profile", "ssz", "--leaves"]
        if c["limit"]:
            o += ["--limit", str(c["limit"])]
        if c["mix_in_length"]:
            o += ["--mix-in-length"]
        return o

    def test_roots(self):
        for c in self.cases:
            f = self.path("chunks", lines(ssz_chunks(c["n"])))
            rc, out, err = run(["root"] + self.opts(c) + [f])
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.split()[0].decode(), c["root"], c)

    def test_branches_and_multiproofs(self):
        for c in self.cases:
            f = self.path("chunks", lines(ssz_chunks(c["n"])))
            for b in c.get("branches", []):
                rc, out, err = run(["proof"] + self.opts(c) + ["--gindex", b["gindex"], f])
                self.assertEqual(rc, 0, err)
                j = json.loads(out)
                self.assertEqual((j["gindex"], j["leaf_hash"], j["path"], j["root"]),
                                 (int(b["gindex"]), b["leaf"], b["branch"], c["root"]))
                rc, out, _ = run(["verify", self.path("p.json", json.dumps(j).encode()), "--root", c["root"]])
                self.assertEqual((rc, out[:3]), (0, b"OK:"))
                j["gindex"] ^= 1
                rc, out, _ = run(["verify", self.path("p.json", json.dumps(j).encode()), "--untrusted-root"])
                self.assertEqual(rc, 0 if b["branch"] and b["branch"][0] == b["leaf"] else 1)
            for m in c.get("multiproofs", []):
                if len(m["gindices"]) < 2:
                    continue
                rc, out, err = run(["proof"] + self.opts(c) + ["--gindex", ",".join(m["gindices"]), f])
                self.assertEqual(rc, 0, err)
                j = json.loads(out)
                self.assertEqual(j["type"], "multiproof")
                self.assertEqual(j["gindices"], [int(g) for g in m["gindices"]])
                self.assertEqual(j["leaves"], m["leaves"])
                self.assertEqual(j["proof"], m["proof"])
                pf = self.path("m.json", out)
                rc, out, _ = run(["verify", pf, "--root", c["root"]])
                self.assertEqual((rc, out[:3]), (0, b"OK:"))
                rc, out, _ = run(["verify", pf, "--root", "00" * 32])
                self.assertEqual(rc, 1)
                if j["proof"]:
                    j["proof"] = j["proof"][1:]
                    rc, out, _ = run(["verify", self.path("m2.json", json.dumps(j).encode()), "--untrusted-root"])
                    self.assertEqual(rc, 1)
                    self.assertTrue(out.startswith(b"FAILED"))

    def test_index_is_leaf_gindex(self):
        f = self.path("chunks", lines(ssz_chunks(5)))
        rc, a, _ = run(["proof", "--profile", "ssz", "--leaves", "--limit", "8", "--mix-in-length", "--index", "3", f])
        rc2, b, _ = run(["proof", "--profile", "ssz", "--leaves", "--limit", "8", "--mix-in-length", "--gindex", "19", f])
        self.assertEqual((rc, rc2), (0, 0))
        self.assertEqual(a, b)

    def test_errors(self):
        f = self.path("chunks", lines(ssz_chunks(5)))
        rc, _, err = run(["root", "--profile", "ssz", "--leaves", "--limit", "4", f])
        self.assertEqual(rc, 1)
        self.assertIn(b"limit", err)
        for bad in (["--limit", "0"], ["--limit", "x"], ["--internal-order"], ["--values", "uint256"]):
            rc, _, _ = run(["root", "--profile", "ssz", "--leaves"] + bad + [f])
            self.assertEqual(rc, 2, bad)
        rc, _, err = run(["proof", "--profile", "ssz", "--leaves", "--gindex", "64", f])
        self.assertEqual(rc, 1)
        rc, _, err = run(["proof", "--profile", "ssz", "--leaves", "--gindex", "8,4", f])
        self.assertEqual(rc, 1)
        self.assertIn(b"ancestor", err)
        rc, _, err = run(["proof", "--profile", "ssz", "--leaves", "--gindex", "8,9", "--binary", f])
        self.assertEqual(rc, 2)
        rc, _, err = run(["proof", "--profile", "ssz", "--leaves", "--gindex", "8,x", f])
        self.assertEqual(rc, 2)
        rc, _, err = run(["root", "--limit", "4", "--leaves"], stdin=b"")
        self.assertEqual(rc, 2)
        # Malformed multiproofs.
        for doc in (b'{"type": "multiproof", "profile": "ssz", "leaves": []}',
                    b'{"type": "multiproof", "profile": "ssz", "gindices": [8], "leaves": [], "proof": []}',
                    b'{"type": "multiproof", "profile": "sia", "gindices": [], "leaves": [], "proof": []}',
                    b'{"type": "multiproof", "profile": "ssz", "gindices": [8], "leaves": ["zz"], "proof": []}'):
            rc, _, _ = run(["verify", self.path("bad.json", doc), "--root", "00" * 32])
            self.assertEqual(rc, 2, doc)


def oz_row(row):
    out = []
    for v in row:
        if isinstance(v, bool):
            out.append("true" if v else "false")
        else:
            out.append('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return ",".join(out)


class OpenZeppelin(TempDirCase):
    @classmethod
    def setUpClass(cls):
        v = vectors("openzeppelin.json")
        cls.simple, cls.standard = v["simple"], v["standard"]

    def check_proofs(self, c, base):
        for p in c["single"]:
            rc, out, err = run(["proof"] + base + ["--index", str(p["index"])])
            self.assertEqual(rc, 0, err)
            j = json.loads(out)
            self.assertEqual((j["index"], j["path"], j["root"]), (p["tree_index"], p["proof"], c["root"]))
            rc, out, _ = run(["verify", self.path("p.json", json.dumps(j).encode()), "--root", c["root"]])
            self.assertEqual((rc, out[:3]), (0, b"OK:"))
        for m in c["multi"]:
            rc, out, err = run(["proof"] + base + ["--index", ",".join(map(str, m["indices"]))])
            self.assertEqual(rc, 0, err)
            j = json.loads(out)
            if len(m["indices"]) == 1:
                continue  # a single index is a plain proof
            self.assertEqual((j["proof"], j["proofFlags"]), (m["proof"], m["proofFlags"]))
            if isinstance(m["leaves"][0], str):
                self.assertEqual(j["leaves"], m["leaves"])
            pf = self.path("m.json", json.dumps(j).encode())
            rc, out, _ = run(["verify", pf, "--root", c["root"]])
            self.assertEqual((rc, out[:3]), (0, b"OK:"))
            j["proofFlags"][0] = not j["proofFlags"][0]
            rc, out, _ = run(["verify", self.path("m2.json", json.dumps(j).encode()), "--untrusted-root"])
            self.assertEqual(rc, 1)

    def test_simple(self):
        for c in self.simple:
            f = self.path("leaves", lines(c["leaves"]))
            rc, out, err = run(["root", "--profile", "openzeppelin", "--leaves", f])
            self.assertEqual((rc, out.split()[0].decode()), (0, c["root"]), err)
            self.check_proofs(c, ["--profile", "openzeppelin", "--leaves", f])
            if c.get("dump"):
                want = json.dumps(c["dump"], indent=2, ensure_ascii=False) + "\n"
                d = self.path("dump.json")
                import os
                os.unlink(d)
                rc, _, err = run(["root", "--profile", "openzeppelin", "--leaves", "--dump", d, f])
                self.assertEqual(rc, 0, err)
                self.assertEqual(read_text(d), want)
                rc, out, _ = run(["root", "--profile", "openzeppelin", "--load", d])
                self.assertEqual(out.split()[0].decode(), c["root"])

    def test_standard(self):
        import os
        for c in self.standard:
            types = ",".join(c["types"])
            f = self.path("rows", "".join(oz_row(r) + "\n" for r in c["rows"]).encode())
            rc, out, err = run(["root", "--profile", "openzeppelin", "--values", types, f])
            self.assertEqual((rc, out.split()[0].decode() if out else ""), (0, c["root"]), err)
            self.check_proofs(c, ["--profile", "openzeppelin", "--values", types, f])
            # The peer's dump loads and proves the same; ours is what JSON.stringify(dump, null, 2) writes.
            pd = self.path("peer.json", json.dumps(c["dump"]).encode())
            rc, out, err = run(["root", "--profile", "openzeppelin", "--load", pd])
            self.assertEqual((rc, out.split()[0].decode() if out else ""), (0, c["root"]), err)
            self.check_proofs(c, ["--profile", "openzeppelin", "--load", pd])
            d = os.path.join(self.dir, "ours.json")
            if os.path.exists(d):
                os.unlink(d)
            rc, _, err = run(["root", "--profile", "openzeppelin", "--values", types, "--dump", d, f])
            self.assertEqual(rc, 0, err)
            self.assertEqual(read_text(d),
                             json.dumps(c["dump"], indent=2, ensure_ascii=False) + "\n")
            # Never over an existing file.
            rc, _, err = run(["root", "--profile", "openzeppelin", "--values", types, "--dump", d, f])
            self.assertEqual(rc, 1)
            self.assertIn(b"exists", err)

    def test_readme_root(self):
        rows = (b"0x1111111111111111111111111111111111111111,5000000000000000000\n"
                b"0x2222222222222222222222222222222222222222,2500000000000000000\n")
        rc, out, _ = run(["root", "--profile", "openzeppelin", "--values", "address,uint256"], stdin=rows)
        self.assertEqual(out, b"d4dee0beab2d53f2cc83e567171bd2820e49898130a22622b10ead383e90bd77  -\n")

    def test_errors(self):
        c = self.standard[0]
        dump = json.loads(json.dumps(c["dump"]))
        dump["values"][0]["value"][1] = "1"
        rc, _, err = run(["root", "--profile", "openzeppelin", "--load", self.path("bad.json", json.dumps(dump).encode())])
        self.assertEqual(rc, 1)
        self.assertIn(b"does not hash", err)
        dump = json.loads(json.dumps(c["dump"]))
        dump["tree"][0] = "0x" + "00" * 32
        rc, _, err = run(["root", "--profile", "openzeppelin", "--load", self.path("bad.json", json.dumps(dump).encode())])
        self.assertEqual(rc, 1)
        self.assertIn(b"not a valid", err)
        for doc in (b"{", b'{"format": "v9"}', b'{"format": "standard-v1", "tree": []}', b"[]"):
            rc, _, _ = run(["root", "--profile", "openzeppelin", "--load", self.path("bad.json", doc)])
            self.assertEqual(rc, 1, doc)
        rc, _, err = run(["root", "--profile", "openzeppelin", "--values", "uint8"], stdin=b"256\n")
        self.assertEqual(rc, 1)
        self.assertIn(b"-:1:", err)
        rc, _, err = run(["root", "--profile", "openzeppelin", "--values", "uint7"], stdin=b"1\n")
        self.assertEqual(rc, 1)
        rc, _, err = run(["root", "--profile", "openzeppelin", "--leaves"], stdin=b"")
        self.assertEqual(rc, 1)
        for bad in (["--values", "uint8", "--leaves"], ["--load", "--leaves"], ["--dump", "x"]):
            rc, _, _ = run(["root", "--profile", "openzeppelin"] + bad, stdin=b"")
            self.assertEqual(rc, 2, bad)
        rc, _, _ = run(["root", "--values", "uint8"], stdin=b"")
        self.assertEqual(rc, 2)
        rc, _, err = run(["proof", "--profile", "openzeppelin", "--leaves", "--index", "0,0"],
                         stdin=lines(["11" * 32, "22" * 32]))
        self.assertEqual(rc, 1)


def bt_content(size):
    return bytes((k * 31 + size) % 251 for k in range(size))


class BitTorrentV2(TempDirCase):
    @classmethod
    def setUpClass(cls):
        cls.files = vectors("bittorrent-v2.json")["files"]

    def test_pieces_roots(self):
        names = []
        for f in self.files:
            names.append(self.path("f%d" % f["size"], bt_content(f["size"])))
        for j in ("1", "2", "4"):
            rc, out, err = run(["root", "--profile", "bittorrent-v2", "-j", j] + names)
            self.assertEqual(rc, 0, err)
            got = [ln.split()[0].decode() for ln in out.splitlines()]
            self.assertEqual(got, [f["pieces_root"] for f in self.files])
        # A pipe gives the same root.
        f = self.files[-1]
        rc, out, _ = run(["root", "--profile", "bittorrent-v2"], stdin=bt_content(f["size"]))
        self.assertEqual(out, (f["pieces_root"] + "  -\n").encode())

    def test_piece_layers(self):
        for f in self.files:
            p = self.path("f", bt_content(f["size"]))
            for ps in ("16384", "32768", "65536", "262144"):
                rc, out, err = run(["root", "--profile", "bittorrent-v2", "--piece-layer", ps, p])
                self.assertEqual(rc, 0, err)
                got = [ln.split()[0].decode() for ln in out.splitlines()]
                self.assertEqual(got, f["piece_layers"].get(ps, []), (f["size"], ps))

    def test_windows(self):
        """A file past the 64 MiB window of block hashes: against a hashlib reference."""
        import hashlib
        import random
        size = 64 * 1048576 + 16384 * 3 + 5
        data = random.Random(52).randbytes(size)
        leaves = [hashlib.sha256(data[i:i + 16384]).digest() for i in range(0, size, 16384)]

        def padded_root(nodes, width):
            nodes = nodes + [bytes(32)] * (width - len(nodes))
            while len(nodes) > 1:
                nodes = [hashlib.sha256(nodes[i] + nodes[i + 1]).digest() for i in range(0, len(nodes), 2)]
            return nodes[0]

        width = 1
        while width < len(leaves):
            width *= 2
        want = padded_root(leaves, width).hex()
        p = self.path("big", data)
        for j in ("1", "2"):
            rc, out, err = run(["root", "--profile", "bittorrent-v2", "-j", j, p])
            self.assertEqual((rc, out.split()[0].decode()), (0, want), err)
        rc, out, _ = run(["root", "--profile", "bittorrent-v2", "-"], stdin=data)
        self.assertEqual(out.split()[0].decode(), want)
        per = 64  # 1 MiB pieces
        layer = [padded_root(leaves[i:i + per], per).hex() for i in range(0, len(leaves), per)]
        rc, out, _ = run(["root", "--profile", "bittorrent-v2", "--piece-layer", "1M", p])
        self.assertEqual([ln.split()[0].decode() for ln in out.splitlines()], layer)
        rc, out, _ = run(["root", "--profile", "bittorrent-v2", "--piece-layer", "1M", "-"], stdin=data)
        self.assertEqual([ln.split()[0].decode() for ln in out.splitlines()], layer)

    def test_proofs(self):
        """Block branches (BEP 52 hash requests) and multiproofs against the peer's roots."""
        for f in self.files:
            if f["size"] < 16385:
                continue
            data = bt_content(f["size"])
            p = self.path("f", data)
            nblocks = (len(data) + 16383) // 16384
            for b in sorted({0, nblocks - 1, nblocks // 2}):
                rc, out, err = run(["proof", "--profile", "bittorrent-v2", "--index", str(b), p])
                self.assertEqual(rc, 0, err)
                j = json.loads(out)
                self.assertEqual(j["root"], f["pieces_root"])
                pf = self.path("p.json", out)
                blk = self.path("blk", data[b * 16384:(b + 1) * 16384])
                rc, out, _ = run(["verify", pf, "--leaf", blk, "--root", f["pieces_root"]])
                self.assertEqual((rc, out[:3]), (0, b"OK:"))
                other = self.path("blk2", data[b * 16384:(b + 1) * 16384] + b"x")
                rc, out, _ = run(["verify", pf, "--leaf", other, "--untrusted-root"])
                self.assertEqual(rc, 1)
            rc, out, err = run(["proof", "--profile", "bittorrent-v2", "--index", "0,%d" % (nblocks - 1), p])
            self.assertEqual(rc, 0, err)
            rc, out, _ = run(["verify", self.path("m.json", out), "--root", f["pieces_root"]])
            self.assertEqual((rc, out[:3]), (0, b"OK:"))

    def test_errors(self):
        rc, _, err = run(["root", "--profile", "bittorrent-v2", self.path("empty")])
        self.assertEqual(rc, 1)
        self.assertIn(b"empty", err)
        for bad in ("1000", "8K", "x", "0"):
            rc, _, _ = run(["root", "--profile", "bittorrent-v2", "--piece-layer", bad], stdin=b"a")
            self.assertEqual(rc, 2, bad)
        rc, _, _ = run(["root", "--piece-layer", "16K"], stdin=b"a")
        self.assertEqual(rc, 2)
        rc, _, _ = run(["root", "--profile", "bittorrent-v2", "--leaf-size", "4K"], stdin=b"a")
        self.assertEqual(rc, 2)
        rc, _, _ = run(["proof", "--profile", "bittorrent-v2", "--index", "0", "--piece-layer", "16K"], stdin=b"a")
        self.assertEqual(rc, 2)
        rc, _, err = run(["proof", "--profile", "bittorrent-v2", "--index", "1"], stdin=b"a")
        self.assertEqual(rc, 1)
        self.assertIn(b"not reached", err)
        rc, _, err = run(["root", "--profile", "bittorrent-v2", self.dir])
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
