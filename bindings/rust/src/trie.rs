// SPDX-License-Identifier: MIT OR Apache-2.0
//! Merkle radix tries with avalanchego merkledb node IDs, and key proofs.
use crate::error::{check, check_detail, Error, Result, Status};
use crate::{ffi, Hash};

/// A trie (`merkle_trie`): branch factor 2, 4, 16 or 256; keys and values are byte strings.
pub struct Trie {
    t: *mut ffi::merkle_trie,
}

// SAFETY: the trie is owned by this value; the library keeps no global reference to it.
unsafe impl Send for Trie {}

/// What a verified key proof states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofInfo {
    /// The branch factor of the proven trie.
    pub branch_factor: u32,
    /// The key the proof is about.
    pub key: Vec<u8>,
    /// `Some(value)` when the key is present, `None` when the proof shows it absent.
    pub value: Option<Vec<u8>>,
}

impl Trie {
    /// An empty trie with this branch factor.
    pub fn new(branch_factor: u32) -> Result<Trie> {
        let mut t = std::ptr::null_mut();
        // SAFETY: valid out pointer.
        check(unsafe { ffi::merkle_trie_alloc(&mut t, branch_factor) })?;
        Ok(Trie { t })
    }
    /// Insert or replace `key -> value`.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        // SAFETY: valid trie, key and value.
        check(unsafe { ffi::merkle_trie_put(self.t, key.as_ptr(), key.len(), value.as_ptr(), value.len()) })
    }
    /// Remove `key`; whether it was there.
    pub fn delete(&mut self, key: &[u8]) -> Result<bool> {
        let mut found = 0;
        // SAFETY: as above.
        check(unsafe { ffi::merkle_trie_delete(&mut found, self.t, key.as_ptr(), key.len()) })?;
        Ok(found != 0)
    }
    /// The value of `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let (mut len, mut found) = (0usize, 0);
        // SAFETY: a size query with cap 0 writes nothing.
        let s = unsafe { ffi::merkle_trie_get(std::ptr::null_mut(), 0, &mut len, &mut found, self.t, key.as_ptr(), key.len()) };
        if found == 0 {
            return if s == ffi::MERKLE_OK || s == -2 { Ok(None) } else { Err(Error::from_code(s)) };
        }
        let mut v = vec![0u8; len];
        // SAFETY: v holds len bytes.
        check(unsafe { ffi::merkle_trie_get(v.as_mut_ptr(), v.len(), &mut len, &mut found, self.t, key.as_ptr(), key.len()) })?;
        v.truncate(len);
        Ok(Some(v))
    }
    /// Number of keys.
    pub fn len(&self) -> u64 {
        // SAFETY: valid trie.
        unsafe { ffi::merkle_trie_size(self.t) }
    }
    /// Whether the trie holds no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The branch factor.
    pub fn branch_factor(&self) -> u32 {
        // SAFETY: valid trie.
        unsafe { ffi::merkle_trie_branch_factor(self.t) }
    }
    /// Root ID (merkledb's root node ID; 32 zero bytes when empty), hashing what changed.
    pub fn root(&mut self, threads: u32) -> Result<Hash> {
        let mut out = [0u8; 32];
        let mut e = ffi::merkle_error::new();
        // SAFETY: valid trie.
        let s = unsafe { ffi::merkle_trie_root(out.as_mut_ptr(), self.t, threads, &mut e) };
        check_detail(s, &e)?;
        Ok(out)
    }
    /// Proof (MTRP format, docs/trie.md) that `key` is present with its value, or absent.
    pub fn prove(&mut self, key: &[u8]) -> Result<Vec<u8>> {
        let mut len = 0usize;
        let mut e = ffi::merkle_error::new();
        // SAFETY: size query: cap 0, out NULL.
        let s = unsafe { ffi::merkle_trie_prove(std::ptr::null_mut(), 0, &mut len, self.t, key.as_ptr(), key.len(), &mut e) };
        if s != -2 && s != ffi::MERKLE_OK {
            return Err(Error::from_detail(s, &e));
        }
        let mut v = vec![0u8; len];
        // SAFETY: v holds len bytes.
        let s = unsafe { ffi::merkle_trie_prove(v.as_mut_ptr(), v.len(), &mut len, self.t, key.as_ptr(), key.len(), &mut e) };
        check_detail(s, &e)?;
        v.truncate(len);
        Ok(v)
    }
}

impl Drop for Trie {
    fn drop(&mut self) {
        // SAFETY: allocated by merkle_trie_alloc.
        unsafe { ffi::merkle_trie_free(self.t) };
    }
}

/// Check a key proof against a trusted root and return what it states. The caller must
/// still compare `info.key` (and the value) with what it asked about: use
/// [`verify_key_proof`] to have that checked too.
pub fn verify_proof(root: &Hash, proof: &[u8]) -> Result<ProofInfo> {
    let mut info = ffi::merkle_trie_proof_info {
        branch_factor: 0,
        present: 0,
        key: std::ptr::null(),
        key_len: 0,
        value: std::ptr::null(),
        value_len: 0,
        nodes: 0,
    };
    let mut e = ffi::merkle_error::new();
    // SAFETY: valid pointers; info's pointers point into `proof`, copied out below.
    let s = unsafe { ffi::merkle_trie_proof_verify(&mut info, root.as_ptr(), proof.as_ptr(), proof.len(), &mut e) };
    check_detail(s, &e)?;
    let copy = |p: *const u8, n: usize| if n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(p, n) }.to_vec() };
    Ok(ProofInfo {
        branch_factor: info.branch_factor,
        key: copy(info.key, info.key_len),
        value: if info.present != 0 { Some(copy(info.value, info.value_len)) } else { None },
    })
}

/// Verify that `proof` proves, under `root`, that `key` has `value` (`Some`) or is absent
/// (`None`). A valid proof of another key or another value is a [`Status::Verify`] error.
pub fn verify_key_proof(root: &Hash, proof: &[u8], key: &[u8], value: Option<&[u8]>) -> Result<()> {
    let info = verify_proof(root, proof)?;
    if info.key != key {
        return Err(Error::new(Status::Verify, "the proof is about another key"));
    }
    match (value, &info.value) {
        (Some(v), Some(w)) if v == w.as_slice() => Ok(()),
        (None, None) => Ok(()),
        (Some(_), None) => Err(Error::new(Status::Verify, "the proof shows the key absent")),
        (None, Some(_)) => Err(Error::new(Status::Verify, "the proof shows the key present")),
        (Some(_), Some(_)) => Err(Error::new(Status::Verify, "the proof is of another value")),
    }
}
