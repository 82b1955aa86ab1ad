# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python binding speed: merkle.root / root_file / root_leaves against the `merkle` command and
a pure-hashlib reference, medians of several runs in one process. Not a test.

    MERKLE_LIBRARY=.../libmerkle.so.1 MERKLE_BIN=.../merkle PYTHONPATH=python \
        python3 python/bench_python.py
    VENV/bin/python python/bench_python.py --calls     # per-call cost on 32-byte inputs
"""
import hashlib, os, statistics, subprocess, sys, tempfile, time
if sys.argv[1:] == ["--calls"] and sys.path[0] == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)  # the merkle being measured is the installed one (or PYTHONPATH's)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests"))
import merkle, mtest
if sys.argv[1:] == ["--calls"]:
    # Per-call cost on small inputs (docs/python.md "Call overhead"): the compiled fast paths
    # when this merkle has them (pip install), the ctypes code otherwise, against hashlib.
    import timeit
    d = bytes(range(32))
    keys = [i.to_bytes(8, "big") for i in range(100000)]
    def per_call(stmt, n=100000):
        return statistics.median(timeit.repeat(stmt, globals=globals(), number=n, repeat=7)) / n * 1e9
    def per_put(put):
        def loop():
            for k in keys:
                put(k, d)
        loop()  # first pass inserts; the timed passes replace (call cost, not node allocation)
        return statistics.median(timeit.repeat(loop, number=1, repeat=5)) / len(keys) * 1e9
    t = merkle.Trie()
    native = getattr(merkle, "_native", None) or getattr(merkle, "_speedups", None)
    print("compiled binding: %s" % (native.__name__ if native else "no (ctypes only)"))
    d128 = bytes(range(128))
    four = [d, d, d, d]
    rows = [("merkle.root(32 B)", per_call("merkle.root(d)")),
            ("merkle.leaf_hash(32 B)", per_call("merkle.leaf_hash(d)")),
            ("merkle.root(128 B, leaf_size=32): 4 leaves", per_call("merkle.root(d128, leaf_size=32)")),
            ("merkle.root_leaves(4 x 32 B)", per_call("merkle.root_leaves(four)")),
            ("hashlib.sha256(32 B).digest()", per_call("hashlib.sha256(d).digest()")),
            ("merkle.root(32 B, profile='sia')", per_call("merkle.root(d, profile='sia')")),
            ("hashlib.blake2b(32 B, digest_size=32)", per_call("hashlib.blake2b(d, digest_size=32).digest()")),
            ("Trie.put (replace, 8 B key, 32 B value)", per_put(t.put)),
            ("dict[key] = value", per_put({}.__setitem__))]
    for name, ns in rows:
        print("%-42s %7.0f ns" % (name, ns))
    print("ratio merkle.root / hashlib.sha256 = %.2f" % (rows[0][1] / rows[4][1]))
    sys.exit(0)
def med(f, n=5):
    t = []
    for _ in range(n):
        a = time.perf_counter(); f(); t.append(time.perf_counter() - a)
    return statistics.median(t)
data = os.urandom(64 << 20)
leaves = [os.urandom(32) for _ in range(100000)]
with tempfile.NamedTemporaryFile() as f:
    f.write(data); f.flush()
    cli = os.environ["MERKLE_BIN"]
    r = {}
    r["py root(64 MiB, 4 KiB leaves)"] = med(lambda: merkle.root(data))
    r["py root_file(64 MiB)"] = med(lambda: merkle.root_file(f.name))
    r["CLI merkle root -j1 (64 MiB file)"] = med(lambda: subprocess.run([cli, "root", "-j", "1", f.name], check=True, capture_output=True))
    r["hashlib reference root(64 MiB)"] = med(lambda: mtest.ref_root_bytes(data, 4096), 3)
    r["py root_leaves(100k x 32 B)"] = med(lambda: merkle.root_leaves(leaves))
    r["hashlib reference root_leaves(100k)"] = med(lambda: mtest.ref_root_leaves(leaves), 3)
    assert merkle.root(data) == mtest.ref_root_bytes(data, 4096)
    assert merkle.root_leaves(leaves) == mtest.ref_root_leaves(leaves)
for k, v in r.items():
    print("%-40s %8.1f ms" % (k, v * 1000))
print("ratio root: hashlib/py = %.2f, cli/py = %.2f" % (r["hashlib reference root(64 MiB)"] / r["py root(64 MiB, 4 KiB leaves)"], r["CLI merkle root -j1 (64 MiB file)"] / r["py root(64 MiB, 4 KiB leaves)"]))
print("ratio leaves: hashlib/py = %.2f" % (r["hashlib reference root_leaves(100k)"] / r["py root_leaves(100k x 32 B)"]))
