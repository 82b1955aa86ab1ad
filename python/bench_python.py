# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python binding speed: merkle.root / root_file / root_leaves against the `merkle` command and
a pure-hashlib reference, medians of several runs in one process. Not a test.

    MERKLE_LIBRARY=.../libmerkle.so.0 MERKLE_BIN=.../merkle PYTHONPATH=python \
        python3 python/bench_python.py
"""
import hashlib, os, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests"))
import merkle, mtest
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
