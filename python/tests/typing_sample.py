# SPDX-License-Identifier: MIT OR Apache-2.0
"""Typed use of the public API, checked by `mypy --strict` against the package's stubs
(ctest python_typecheck). Also runnable: every call here is valid."""
from typing import List, Optional, Tuple

import merkle
from merkle import clvm, manifest


def roots(data: bytes) -> List[bytes]:
    out: List[bytes] = [merkle.root(data), merkle.root(bytearray(data), leaf_size=64,
                                                         profile="sia", hash="sha256")]
    t = merkle.Tree(leaf_size=4)
    t.write(memoryview(data))
    out.append(t.root())
    out.append(merkle.root_leaves([b"0", b"1", b"2"]))
    out.append(merkle.leaf_hash(b"x"))
    return out


def proofs(leaves: List[bytes]) -> bool:
    r = merkle.root_leaves(leaves)
    p: merkle.Proof = merkle.inclusion_proof(leaves, 1)
    path: List[bytes] = p.path
    size: int = p.tree_size
    ok = merkle.verify_inclusion(merkle.leaf_hash(leaves[1]), 1, size, path, r)
    again = merkle.Proof.decode(p.encode())
    return ok and again.verify(root=r, leaf=leaves[1])


def trie() -> Tuple[bytes, Optional[bytes], bool]:
    with merkle.Trie(branch_factor=16) as t:
        t.put(b"k", b"v")
        t[b"a"] = b""
        value: Optional[bytes] = t.get(b"k")
        proof = t.prove(b"k")
        info: merkle.TrieProof = merkle.trie_verify(proof, t.root())
        return merkle.trie_root({b"k": b"v"}), value, info.present


def merkledb() -> bool:
    with merkle.MerkleDB(16) as db:
        old = db.commit([(b"a", b"1"), (b"b", b"2")])
        new = db.commit([(b"b", None)])
        rp: bytes = db.prove_range(start=b"a", max_length=10)
        cp: bytes = db.prove_change(old, new)
        path, value = db.prove_key(b"a")
        try:
            ok = merkle.mdb.verify_range(rp, new, start=b"a", max_length=10)
            ok = ok and merkle.mdb.verify_change(cp, merkle.Trie(16, {b"a": b"1", b"b": b"2"}),
                                                 new.hex())
            return ok and merkle.mdb.verify_key(path, new, b"a", value)
        except merkle.MerkleDBError as e:
            kind: str = e.kind
            return kind == "ok"


def manifests(text: bytes) -> int:
    m = manifest.parse(text)
    names: List[bytes] = [e.name for e in m.entries]
    return len(names) + len(m.bad_lines)


def clvm_hash() -> bytes:
    return clvm.tree_hash(bytes.fromhex("ff01ff0280"))


if __name__ == "__main__":
    print(len(roots(b"abc" * 40)), proofs([b"0", b"1", b"2"]), trie()[2], merkledb(),
          manifests(b"d41d8cd98f00b204e9800998ecf8427e  empty\n"), clvm_hash().hex())
