// SPDX-License-Identifier: MIT OR Apache-2.0
//! The safe API: error paths, streaming against one-shot, and a pure-Rust RFC 6962 reference
//! (written here from shared/spec/merkle-formats.md) against the library on many sizes.
use merkle::{clvm, hash, proof, shape, tree, trie, HashAlg, Profile, Status};
use std::io::Write;

fn reference_root(alg: HashAlg, leaves: &[Vec<u8>]) -> [u8; 32] {
    fn mth(alg: HashAlg, l: &[Vec<u8>]) -> [u8; 32] {
        if l.len() == 1 {
            let mut m = vec![0u8];
            m.extend_from_slice(&l[0]);
            return hash::digest(alg, &m);
        }
        let mut k = 1;
        while k * 2 < l.len() {
            k *= 2;
        }
        let mut m = vec![1u8];
        m.extend_from_slice(&mth(alg, &l[..k]));
        m.extend_from_slice(&mth(alg, &l[k..]));
        hash::digest(alg, &m)
    }
    if leaves.is_empty() {
        hash::digest(alg, b"")
    } else {
        mth(alg, leaves)
    }
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn roots_match_the_reference_on_many_sizes() {
    let mut r = Lcg(7);
    for alg in [HashAlg::Sha256, HashAlg::Blake2b256] {
        for n in (0..70).chain([127, 128, 129, 255, 256, 257, 1000]) {
            let leaves: Vec<Vec<u8>> = (0..n).map(|_| (0..r.next() % 70).map(|_| r.next() as u8).collect()).collect();
            let want = reference_root(alg, &leaves);
            assert_eq!(tree::root_list(Profile::Rfc6962, alg, &leaves).unwrap(), want, "n={n}");
            let mut t = tree::Tree::new(Profile::Rfc6962, alg, 64).unwrap();
            for l in &leaves {
                t.push_leaf(l).unwrap();
            }
            assert_eq!(t.leaf_count(), n as u64);
            assert_eq!(t.root().unwrap(), want);
            if n > 0 {
                let hashes: Vec<_> = leaves.iter().map(|l| tree::leaf_hash(alg, l)).collect();
                let i = r.next() % n as u64;
                let (path, root) = proof::inclusion_path(alg, &hashes, i).unwrap();
                assert_eq!(root, want);
                assert_eq!(path.len(), proof::inclusion_path_len(i, n as u64));
                proof::verify_inclusion(alg, &root, n as u64, i, &hashes[i as usize], &path).unwrap();
                let mut other = hashes[i as usize];
                other[31] ^= 0x80;
                let e = proof::verify_inclusion(alg, &root, n as u64, i, &other, &path).unwrap_err();
                assert_eq!(e.status(), Status::Verify);
                let e = proof::verify_inclusion(alg, &root, n as u64, n as u64, &hashes[i as usize], &path).unwrap_err();
                assert_eq!(e.status(), Status::Verify, "index past the end");
            }
        }
    }
}

#[test]
fn stream_writes_in_any_pieces_give_the_bytes_root() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let want = tree::root_bytes(Profile::Rfc6962, HashAlg::Sha256, 100, &data).unwrap();
    for piece in [1, 7, 100, 333, 4096] {
        let mut t = tree::Tree::new(Profile::Rfc6962, HashAlg::Sha256, 100).unwrap();
        for c in data.chunks(piece) {
            t.write_all(c).unwrap();
        }
        assert_eq!(t.root().unwrap(), want, "pieces of {piece}");
    }
    assert_eq!(tree::root_reader(Profile::Rfc6962, HashAlg::Sha256, 100, &data[..]).unwrap(), want);
    let empty = tree::root_reader(Profile::Sia, HashAlg::Blake2b256, 64, &[][..]).unwrap();
    assert_eq!(empty, [0u8; 32]);
}

#[test]
fn error_paths() {
    assert_eq!(tree::Tree::new(Profile::Rfc6962, HashAlg::Sha256, 0).err().unwrap().status(), Status::Arg);
    assert_eq!(tree::root_list::<&[u8]>(Profile::Bitcoin, HashAlg::Sha256, &[]).unwrap_err().status(), Status::Arg);
    assert_eq!(tree::root_bytes(Profile::Sia, HashAlg::Sha256, 0, b"x").unwrap_err().status(), Status::Arg);
    let mut t = tree::Tree::new(Profile::Rfc6962, HashAlg::Sha256, 4).unwrap();
    t.write_all(b"abcdef").unwrap();
    // a partial stream leaf is pending: a whole leaf cannot be pushed now
    assert_eq!(t.push_leaf(b"x").unwrap_err().status(), Status::State);
    assert_eq!(proof::inclusion_path(HashAlg::Sha256, &[], 0).unwrap_err().status(), Status::Range);
    assert_eq!(proof::verify_consistency(HashAlg::Sha256, &[0; 32], &[0; 32], 0, 1, &[]).unwrap_err().status(), Status::Verify);
    // CLVM: truncated input, trailing bytes, back references without the flag
    let mut a = clvm::Allocator::new().unwrap();
    let e = clvm::node_from_bytes(&mut a, &[0xff, 0x01]).unwrap_err();
    assert_eq!(e.status(), Status::Format);
    assert!(!e.to_string().is_empty());
    assert_eq!(clvm::node_from_bytes(&mut a, &[0x80, 0x80]).unwrap_err().status(), Status::Format);
    assert_eq!(clvm::node_from_bytes(&mut a, &[0xff, 0x83, b'f', b'o', b'o', 0xfe, 0x02]).unwrap_err().status(), Status::Format);
    assert!(clvm::node_from_bytes_backrefs(&mut a, &[0xff, 0x83, b'f', b'o', b'o', 0xfe, 0x02]).is_ok());
    assert_eq!(trie::Trie::new(3).err().unwrap().status(), Status::Arg);
    let mut tr = trie::Trie::new(16).unwrap();
    assert_eq!(tr.root(1).unwrap(), [0u8; 32]);
    tr.put(b"k", b"v").unwrap();
    let root = tr.root(1).unwrap();
    let p = tr.prove(b"k").unwrap();
    let mut bad = p.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(trie::verify_proof(&root, &bad).is_err());
    assert_eq!(trie::verify_proof(&root, &p[..p.len() - 1]).unwrap_err().status(), Status::Format);
    assert_eq!(trie::verify_key_proof(&root, &p, b"k", Some(b"w")).unwrap_err().status(), Status::Verify);
    assert_eq!(trie::verify_key_proof(&root, &p, b"k", None).unwrap_err().status(), Status::Verify);
    assert!(shape::abi_leaf("address", "0x12").is_err());
    assert!(merkle::unhex("0xzz").is_err());
}

#[test]
fn clvm_build_and_walk() {
    let mut a = clvm::Allocator::new().unwrap();
    let foo = a.new_atom(b"foo").unwrap();
    let nil = a.nil().unwrap();
    let l = a.new_pair(foo, nil).unwrap();
    let p = a.new_pair(foo, l).unwrap();
    assert_eq!(a.sexp(foo), clvm::SExp::Atom(b"foo"));
    assert_eq!(a.sexp(p), clvm::SExp::Pair(foo, l));
    let canon = clvm::node_to_bytes(&a, p).unwrap();
    assert_eq!(canon, [0xff, 0x83, b'f', b'o', b'o', 0xff, 0x83, b'f', b'o', b'o', 0x80]);
    let br = clvm::node_to_bytes_backrefs(&mut a, p).unwrap();
    assert!(br.len() <= canon.len());
    let mut b = clvm::Allocator::new().unwrap();
    let q = clvm::node_from_bytes_backrefs(&mut b, &br).unwrap();
    assert_eq!(clvm::node_to_bytes(&b, q).unwrap(), canon);
    assert_eq!(clvm::tree_hash(&mut a, p).unwrap(), clvm::tree_hash(&mut b, q).unwrap());
}

#[test]
fn types_are_send_and_sync_where_true() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<tree::Tree>();
    send::<trie::Trie>();
    send::<clvm::Allocator>();
    send::<shape::ShapedTree>();
    sync::<shape::ShapedTree>();
    send::<merkle::Error>();
    sync::<merkle::Error>();
}
