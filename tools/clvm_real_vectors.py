#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Build a corpus of real Chia programs with the bytes of the clvm_rs HEAD back-reference
encoder (node_to_bytes_backrefs), e.g. for bench/clvm_native_bench.py --corpus. The programs
come from other projects, so the output is never committed (issue 25): write it outside the
repository.

Programs come from two public repositories (Apache-2.0), read from local git clones:
  chia_rs  generator-tests/*.txt (first line: a block generator, hex),
           generator-tests/*.clsp.hex, test-bundles/*.bundle (every puzzle reveal and
           solution of every coin spend, streamable format, duplicates dropped)
  clvm_rs  benches/{0..4}.generator and benches/block_af9c3d98.bin (back-reference form; the
           .bin has a trailing newline, dropped), benchmark/block-2000.hex and
           benchmark/compressed-2000.hex from the commit before they were removed (d478eeb^)

The expected bytes come from an external command ORACLE (never part of this repository):
clvm_rs HEAD's src/serde/{ser_br,read_cache_lookup,object_cache,serialized_length,
write_atom}.rs compiled with rustc and a small shim (allocator, sha256, bitvec), which
  ORACLE FILE          prints node_to_bytes_backrefs(FILE) in hex
  ORACLE FILE --info   prints "<tree hash hex> <canonical length>" (clvm_rs ObjectCache)
where FILE holds a serialization in hex (canonical or with back references).

Each case stores the clvm_rs output itself as the input: decoding it gives the program's
tree, and encoding that tree must give the same bytes again (the test also checks the tree
hash and the canonical length, both from clvm_rs).

usage: tools/clvm_real_vectors.py --chia-rs GITDIR --clvm-rs GITDIR --oracle CMD
                                  [--cache DIR] --out FILE
"""
import argparse
import gzip
import json
import os
import shlex
import struct
import subprocess
import tempfile


def git(repo, *a):
    r = subprocess.run(["git", "-C", repo] + list(a), capture_output=True)
    return r.stdout if r.returncode == 0 else None


def sexp_end(b, p):
    """Offset just past the serialization starting at p (canonical or back references)."""
    todo = 1
    while todo:
        todo -= 1
        c = b[p]
        if c == 0xFF:
            p += 1
            todo += 2
            continue
        if c == 0xFE:
            p += 1
            c = b[p]
        if c <= 0x80:
            p += 1
            continue
        n, m = 0, 0x80
        while c & m:
            n += 1
            m >>= 1
        ln = c & (0xFF >> (n + 1))
        for k in range(1, n):
            ln = (ln << 8) | b[p + k]
        p += n + ln
    return p


def programs(chia, clvm):
    chia_head = git(chia, "rev-parse", "HEAD").decode().strip()
    clvm_head = git(clvm, "rev-parse", "HEAD").decode().strip()
    for p in git(chia, "ls-tree", "-r", "--name-only", "HEAD", "generator-tests").decode().split():
        if "/expected" in p or not (p.endswith(".txt") or p.endswith(".hex")):
            continue
        t = git(chia, "show", "HEAD:" + p)
        if t is None:  # file not in the local clone
            continue
        name = os.path.basename(p).replace(".txt", "").replace(".clsp.hex", "")
        yield "gen_" + name, f"chia_rs {chia_head[:12]} {p} (first line)", t.decode().split("\n")[0].strip()
    for f in ["0.generator", "1.generator", "2.generator", "3.generator", "4.generator",
              "block_af9c3d98.bin"]:
        b = git(clvm, "show", "HEAD:benches/" + f)
        if b is None:
            continue
        if f.endswith(".bin"):
            b = b.rstrip(b"\n")
        yield "bench_" + f.split(".")[0].replace("block_", "block-"), f"clvm_rs {clvm_head[:12]} benches/{f}", b.hex()
    old = git(clvm, "rev-parse", "d478eeb^")
    if old is not None:
        old = old.decode().strip()
        for f in ["block-2000.hex", "compressed-2000.hex"]:
            t = git(clvm, "show", f"{old}:benchmark/{f}")
            if t is not None:
                yield "bench_" + f[:-4], f"clvm_rs {old[:12]} benchmark/{f}", t.decode().strip()
    seen = set()
    for p in git(chia, "ls-tree", "-r", "--name-only", "HEAD", "test-bundles").decode().split():
        b = git(chia, "show", "HEAD:" + p)
        if b is None:
            continue
        short = os.path.basename(p).split(".")[0][:8]
        (n,) = struct.unpack(">I", b[:4])
        q = 4
        for i in range(n):
            q += 72  # coin: parent id, puzzle hash, amount
            for kind in ("puz", "sol"):
                e = sexp_end(b, q)
                prog, q = b[q:e], e
                if prog in seen or len(prog) < 8:
                    continue
                seen.add(prog)
                what = "puzzle reveal" if kind == "puz" else "solution"
                yield f"bundle_{short}_{i}_{kind}", f"chia_rs {chia_head[:12]} {p} spend {i} {what}", prog.hex()
        assert q + 96 == len(b), p  # aggregated signature


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chia-rs", required=True)
    ap.add_argument("--clvm-rs", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--cache", help="directory of NAME.br oracle outputs already computed")
    ap.add_argument("--out", required=True, help="output file (outside the repository)")
    a = ap.parse_args()
    oracle = shlex.split(a.oracle)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, source, hexprog in programs(a.chia_rs, a.clvm_rs):
            f = os.path.join(tmp, name + ".hex")
            with open(f, "w") as fh:
                fh.write(hexprog)
            cached = a.cache and os.path.join(a.cache, name + ".br")
            if cached and os.path.exists(cached):
                br = open(cached).read().strip()
            else:
                br = subprocess.run(oracle + [f], capture_output=True, check=True, text=True).stdout.strip()
            th, cl = subprocess.run(oracle + [f, "--info"], capture_output=True, check=True,
                                    text=True).stdout.split()
            cases.append({"name": name, "source": source, "backrefs": br, "tree_hash": th,
                          "canonical_len": int(cl)})
    cases.sort(key=lambda c: c["name"])
    doc = {
        "schema": "clvm_rs HEAD node_to_bytes_backrefs hex (also the input: decode, re-encode, "
                  "compare) + clvm_rs ObjectCache tree hash and canonical serialized length",
        "source": "see tools/clvm_real_vectors.py; programs from chia_rs and clvm_rs (Apache-2.0)",
        "cases": cases,
    }
    with gzip.GzipFile(a.out, "wb", compresslevel=9, mtime=0) as g:
        g.write(json.dumps(doc, indent=0).encode())
    print(f"{len(cases)} programs -> {a.out}")


if __name__ == "__main__":
    main()
