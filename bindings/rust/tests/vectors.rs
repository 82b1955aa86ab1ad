// SPDX-License-Identifier: MIT OR Apache-2.0
//! The same reference vectors as the C, Python and Go tests: the peers' known answers of
//! tests/vectors/ (RFC 6962/CometBFT/Sia trees and proofs, merkledb, CLVM, Bitcoin, SSZ,
//! OpenZeppelin) and the real Chia programs of ../shared/vectors (skipped when absent).
mod common;
use common::*;
use merkle::{clvm, proof, shape, tree, trie, HashAlg, Profile};

fn alg(name: &str) -> HashAlg {
    match name {
        "sha256" => HashAlg::Sha256,
        "blake2b-256" => HashAlg::Blake2b256,
        other => panic!("hash {other}"),
    }
}

#[test]
fn merkle_public_trees_and_proofs() {
    let d = repo_vectors("merkle-public.json");
    let mut counted = [0usize; 6];
    for v in d.get("vectors").arr() {
        let (format, op, id) = (v.get("format").str(), v.get("op").str(), v.get("id").str());
        let a = alg(v.get("hash").str());
        let input = v.get("input");
        let exp = v.get("expected");
        match (format, op) {
            ("rfc6962" | "cometbft", "root") => {
                let l = leaves(input);
                let root = tree::root_list(Profile::Rfc6962, a, &l).unwrap();
                assert_eq!(merkle::hex(&root), exp.get("root").str(), "{id}");
                let mut t = tree::Tree::new(Profile::Rfc6962, a, 4096).unwrap();
                for leaf in &l {
                    t.push_leaf(leaf).unwrap();
                }
                assert_eq!(t.root().unwrap(), root, "{id} streaming");
                counted[0] += 1;
            }
            ("rfc6962", "inclusion_proof") | ("cometbft", "proof") => {
                let l = leaves(input);
                let hashes: Vec<_> = l.iter().map(|x| tree::leaf_hash(a, x)).collect();
                let index = input.get("index").u64();
                if exp.get("error").bool() {
                    let e = proof::inclusion_path(a, &hashes, index).unwrap_err();
                    assert_eq!(e.status(), merkle::Status::Range, "{id}");
                    counted[1] += 1;
                    continue;
                }
                let (path, root) = proof::inclusion_path(a, &hashes, index).unwrap();
                let want = if format == "cometbft" { exp.get("aunts") } else { exp.get("path") };
                let got: Vec<String> = path.iter().map(|h| merkle::hex(h)).collect();
                let want: Vec<&str> = want.arr().iter().map(|h| h.str()).collect();
                assert_eq!(got, want, "{id}");
                assert_eq!(merkle::hex(&root), exp.get("root").str(), "{id}");
                proof::verify_inclusion(a, &root, hashes.len() as u64, index, &hashes[index as usize], &path).unwrap();
                let mut bad = root;
                bad[0] ^= 1;
                assert!(proof::verify_inclusion(a, &bad, hashes.len() as u64, index, &hashes[index as usize], &path).is_err());
                counted[1] += 1;
            }
            ("rfc6962", "consistency_proof") => {
                let l = leaves(input);
                let hashes: Vec<_> = l.iter().map(|x| tree::leaf_hash(a, x)).collect();
                let m = input.get("old_size").u64();
                if exp.get("error").bool() {
                    assert_eq!(proof::consistency_path(a, &hashes, m).unwrap_err().status(), merkle::Status::Range, "{id}");
                    counted[2] += 1;
                    continue;
                }
                let (path, old_root, new_root) = proof::consistency_path(a, &hashes, m).unwrap();
                let got: Vec<String> = path.iter().map(|h| merkle::hex(h)).collect();
                let want: Vec<&str> = exp.get("proof").arr().iter().map(|h| h.str()).collect();
                assert_eq!(got, want, "{id}");
                assert_eq!(merkle::hex(&old_root), exp.get("old_root").str(), "{id}");
                assert_eq!(merkle::hex(&new_root), exp.get("new_root").str(), "{id}");
                proof::verify_consistency(a, &old_root, &new_root, m, hashes.len() as u64, &path).unwrap();
                counted[2] += 1;
            }
            ("rfc6962", "verify_inclusion") => {
                let all32 = |v: &[&Json]| v.iter().all(|h| h.str().len() == 64);
                let mut fields: Vec<&Json> = input.get("proof").arr().iter().collect();
                fields.push(input.get("root"));
                fields.push(input.get("leaf_hash"));
                if !all32(&fields) {
                    // a hash that is not 32 bytes cannot be passed to the typed API ([u8; 32])
                    continue;
                }
                let path: Vec<_> = input.get("proof").arr().iter().map(|h| h32(h.str())).collect();
                let r = proof::verify_inclusion(
                    a,
                    &h32(input.get("root").str()),
                    input.get("tree_size").u64(),
                    input.get("index").u64(),
                    &h32(input.get("leaf_hash").str()),
                    &path,
                );
                assert_eq!(r.is_ok(), exp.get("valid").bool(), "{id}");
                if let Err(e) = r {
                    assert_eq!(e.status(), merkle::Status::Verify, "{id}");
                }
                counted[3] += 1;
            }
            ("rfc6962", "verify_consistency") => {
                let mut fields: Vec<&Json> = input.get("proof").arr().iter().collect();
                fields.push(input.get("root1"));
                fields.push(input.get("root2"));
                if !fields.iter().all(|h| h.str().len() == 64) {
                    continue; // not expressible with [u8; 32] roots

                }
                let path: Vec<_> = input.get("proof").arr().iter().map(|h| h32(h.str())).collect();
                let r = proof::verify_consistency(
                    a,
                    &h32(input.get("root1").str()),
                    &h32(input.get("root2").str()),
                    input.get("size1").u64(),
                    input.get("size2").u64(),
                    &path,
                );
                assert_eq!(r.is_ok(), exp.get("valid").bool(), "{id}");
                counted[3] += 1;
            }
            ("sia-merkletree" | "sia-crypto-merkleroot", "reader_root") => {
                let seg = input.get("segment_size").u64() as usize;
                let data = counter_bytes(input.get("stream").get("len").u64());
                if exp.get("error").bool() {
                    // Go's ReaderRoot never returns for segment size 0; ours is an error
                    assert!(tree::root_reader(Profile::Sia, a, seg, &data[..]).is_err(), "{id}");
                    counted[4] += 1;
                    continue;
                }
                let root = tree::root_reader(Profile::Sia, a, seg, &data[..]).unwrap();
                match exp.get("root") {
                    Json::Null => assert!(data.is_empty(), "{id}: no root only for no data"),
                    r => assert_eq!(merkle::hex(&root), r.str(), "{id}"),
                }
                assert_eq!(tree::root_bytes(Profile::Sia, a, seg, &data).unwrap(), root, "{id} bytes");
                counted[4] += 1;
            }
            _ => counted[5] += 1,
        }
    }
    eprintln!("roots {} proofs {} consistency {} verify {} sia {} other {}", counted[0], counted[1], counted[2], counted[3], counted[4], counted[5]);
    assert!(counted[0] >= 33 && counted[1] >= 24 && counted[2] >= 11 && counted[3] >= 140 && counted[4] >= 39);
}

#[test]
fn merkledb_trie_roots_and_proofs() {
    let d = repo_vectors("tree-public.json");
    let mut n = 0;
    for v in d.get("merkledb").get("trie_root").arr() {
        let mut t = trie::Trie::new(v.get("branch_factor").u64() as u32).unwrap();
        if let Json::Arr(kv) = v.get("kv") {
            for pair in kv {
                t.put(&merkle::unhex(pair.arr()[0].str()).unwrap(), &merkle::unhex(pair.arr()[1].str()).unwrap()).unwrap();
            }
            assert_eq!(merkle::hex(&t.root(1).unwrap()), v.get("expected_root_hex").str(), "{}", v.get("id").str());
            n += 1;
            continue;
        }
        let Json::Str(gen) = v.get("kv_generator") else { continue };
        if !gen.starts_with("for i in 0..num_keys-1: key = uvarint(i)") {
            continue;
        }
        let keys: Vec<Vec<u8>> = (0..v.get("num_keys").u64())
            .map(|i| {
                let mut k = Vec::new();
                let mut x = i;
                while x >= 0x80 {
                    k.push((x as u8) | 0x80);
                    x >>= 7;
                }
                k.push(x as u8);
                k
            })
            .collect();
        for k in &keys {
            t.put(k, &merkle::hash::sha256(k)).unwrap();
        }
        let root = t.root(1).unwrap();
        assert_eq!(merkle::hex(&root), v.get("expected_root_hex").str(), "{}", v.get("id").str());
        if let Some(k) = keys.last() {
            let p = t.prove(k).unwrap();
            trie::verify_key_proof(&root, &p, k, Some(&merkle::hash::sha256(k))).unwrap();
            let e = trie::verify_key_proof(&root, &p, b"another key", None).unwrap_err();
            assert_eq!(e.status(), merkle::Status::Verify);
            let absent = t.prove(b"\xff\xff\xff\xff\xff").unwrap();
            trie::verify_key_proof(&root, &absent, b"\xff\xff\xff\xff\xff", None).unwrap();
        }
        n += 1;
    }
    assert!(n >= 3, "{n} trie vectors");
}

#[test]
fn clvm_tree_hash_and_backrefs() {
    let d = repo_vectors("tree-public.json");
    let c = d.get("clvm");
    let mut hashed = 0;
    for v in c.get("tree_hash").arr() {
        let Json::Str(hex) = v.get("canonical_hex") else { continue };
        hashed += 1;
        let b = merkle::unhex(hex).unwrap();
        let mut a = clvm::Allocator::new().unwrap();
        let n = clvm::node_from_bytes(&mut a, &b).unwrap();
        assert_eq!(merkle::hex(&clvm::tree_hash(&mut a, n).unwrap()), v.get("tree_hash_hex").str(), "{}", v.get("id").str());
        assert_eq!(clvm::node_to_bytes(&a, n).unwrap(), b);
    }
    assert!(hashed > 10, "{hashed} tree-hash vectors");
    for v in c.get("backref_decode").arr() {
        let b = merkle::unhex(v.get("input_hex").str()).unwrap();
        let mut a = clvm::Allocator::new().unwrap();
        let r = clvm::node_from_bytes_backrefs(&mut a, &b);
        let id = v.get("id").str();
        if v.get("expect").str() == "ok" {
            let n = r.unwrap_or_else(|e| panic!("{id}: {e}"));
            if let Json::Str(canon) = v.get("canonical_hex") {
                assert_eq!(merkle::hex(&clvm::node_to_bytes(&a, n).unwrap()), *canon, "{id}");
            }
        } else {
            assert!(r.is_err(), "{id} must fail");
        }
    }
}

#[test]
fn clvm_real_programs_equal_clvm_rs() {
    let Some(d) = shared_vectors("clvm-real-public.json.gz") else { return };
    let cases = d.get("cases").arr();
    assert!(!cases.is_empty());
    for v in cases {
        let canon = merkle::unhex(v.get("canonical").str()).unwrap();
        let mut a = clvm::Allocator::new().unwrap();
        let n = clvm::node_from_bytes(&mut a, &canon).unwrap();
        let br = clvm::node_to_bytes_backrefs(&mut a, n).unwrap();
        assert_eq!(merkle::hex(&br), v.get("backrefs").str(), "{}", v.get("name").str());
        assert_eq!(merkle::hex(&clvm::tree_hash(&mut a, n).unwrap()), v.get("tree_hash").str());
        // and back: the compressed form decodes to the same program
        let mut b = clvm::Allocator::new().unwrap();
        let m = clvm::node_from_bytes_backrefs(&mut b, &br).unwrap();
        assert_eq!(clvm::node_to_bytes(&b, m).unwrap(), canon);
        assert_eq!(clvm::tree_hash_from_bytes(&br).unwrap(), clvm::tree_hash(&mut a, n).unwrap());
    }
}

#[test]
fn bitcoin_ssz_openzeppelin_roots() {
    let d = repo_vectors("bitcoin.json");
    let mut n = 0;
    for b in d.get("blocks").arr() {
        // txids are shown in RPC byte order (reversed)
        let rev = |s: &str| {
            let mut h = h32(s);
            h.reverse();
            h
        };
        let txids: Vec<_> = b.get("txids").arr().iter().map(|t| rev(t.str())).collect();
        let st = shape::ShapedTree::new(Profile::Bitcoin, &txids).unwrap();
        let mut root = st.root();
        root.reverse();
        assert_eq!(merkle::hex(&root), b.get("root").str(), "{}", b.get("name").str());
        n += 1;
    }
    assert!(n > 3);
    let d = repo_vectors("openzeppelin.json");
    for c in d.get("simple").arr() {
        let leaves: Vec<_> = c.get("leaves").arr().iter().map(|h| h32(h.str())).collect();
        let t = shape::ShapedTree::new(Profile::OpenZeppelin, &leaves).unwrap();
        assert_eq!(merkle::hex(&t.root()), c.get("root").str().trim_start_matches("0x"));
        for (i, _) in leaves.iter().enumerate() {
            let (pos, path) = t.branch(i as u64).unwrap();
            t.shape().verify(&t.root(), pos, &leaves[i], &path).unwrap();
        }
    }
}
