// SPDX-License-Identifier: MIT OR Apache-2.0
//! CLVM trees in the form `clvm_rs` users know: an [`Allocator`] of atoms and pairs,
//! [`NodePtr`] handles, [`node_from_bytes`] / [`node_from_bytes_backrefs`],
//! [`node_to_bytes`] / [`node_to_bytes_backrefs`] and [`tree_hash`] — byte for byte the
//! output of clvm_rs (its HEAD back-reference encoder), and safe against DAG bombs: a shared
//! subtree is never expanded, and canonical serialization checks the expanded size first.
//!
//! ```
//! use merkle::clvm::{Allocator, node_from_bytes, node_to_bytes_backrefs, tree_hash};
//! let mut a = Allocator::new().unwrap();
//! let n = node_from_bytes(&mut a, &[0xff, 0x01, 0x80]).unwrap(); // (1 . ())
//! assert_eq!(node_to_bytes_backrefs(&mut a, n).unwrap(), vec![0xff, 0x01, 0x80]);
//! assert_eq!(merkle::hex(&tree_hash(&mut a, n).unwrap())[..8], *"ba4484b9");
//! ```
use crate::error::{check, check_detail, Error, Result, Status};
use crate::{ffi, Hash};

/// A node of an [`Allocator`]: an atom or a pair, valid for the life of its allocator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodePtr(u32);

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SExp<'a> {
    /// An atom and its bytes.
    Atom(&'a [u8]),
    /// A pair (first . rest).
    Pair(NodePtr, NodePtr),
}

/// An arena of atoms and pairs (`merkle_sexp_store`). Pairs refer to earlier nodes only, so
/// shared subtrees stay shared. Tree hashes are memoised per node.
pub struct Allocator {
    s: *mut ffi::merkle_sexp_store,
}

// SAFETY: the store is owned by this value and the library keeps no global reference to it.
unsafe impl Send for Allocator {}

impl Allocator {
    /// A new empty allocator.
    pub fn new() -> Result<Allocator> {
        let mut s = std::ptr::null_mut();
        // SAFETY: valid out pointer.
        check(unsafe { ffi::merkle_sexp_store_alloc(&mut s) })?;
        Ok(Allocator { s })
    }
    /// A new atom holding a copy of `data`.
    pub fn new_atom(&mut self, data: &[u8]) -> Result<NodePtr> {
        let mut n = 0;
        // SAFETY: valid store and data.
        check(unsafe { ffi::merkle_sexp_atom_new(&mut n, self.s, data.as_ptr(), data.len()) })?;
        Ok(NodePtr(n))
    }
    /// A new pair `(first . rest)`; both must be nodes of this allocator.
    pub fn new_pair(&mut self, first: NodePtr, rest: NodePtr) -> Result<NodePtr> {
        let mut n = 0;
        // SAFETY: handles are checked by the library.
        check(unsafe { ffi::merkle_sexp_pair_new(&mut n, self.s, first.0, rest.0) })?;
        Ok(NodePtr(n))
    }
    /// The empty atom `()` (nil).
    pub fn nil(&mut self) -> Result<NodePtr> {
        self.new_atom(&[])
    }
    /// What `node` is. Panics on a handle that is not of this allocator (a programming error).
    pub fn sexp(&self, node: NodePtr) -> SExp<'_> {
        // SAFETY: the handle's kind is in its top bit; the library checks the index.
        if unsafe { ffi::merkle_sexp_is_atom(node.0) } != 0 {
            let mut p = std::ptr::null();
            let mut len = 0;
            // SAFETY: valid store; p points into it until the next mutation, which &self forbids.
            check(unsafe { ffi::merkle_sexp_atom(&mut p, &mut len, self.s, node.0) }).expect("node of another allocator");
            let bytes = if len == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(p, len) } };
            SExp::Atom(bytes)
        } else {
            let (mut l, mut r) = (0, 0);
            // SAFETY: valid store.
            check(unsafe { ffi::merkle_sexp_pair(&mut l, &mut r, self.s, node.0) }).expect("node of another allocator");
            SExp::Pair(NodePtr(l), NodePtr(r))
        }
    }
    /// Atoms plus pairs held.
    pub fn len(&self) -> usize {
        // SAFETY: valid store.
        unsafe { ffi::merkle_sexp_store_count(self.s) }
    }
    /// Whether the allocator holds no node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Allocator {
    fn drop(&mut self) {
        // SAFETY: allocated by merkle_sexp_store_alloc.
        unsafe { ffi::merkle_sexp_store_free(self.s) };
    }
}

fn parse(a: &mut Allocator, b: &[u8], flags: u32) -> Result<NodePtr> {
    let mut n = 0;
    let mut used = 0usize;
    let mut e = ffi::merkle_error::new();
    // SAFETY: valid store and input; limits NULL = the defaults for untrusted input.
    let s = unsafe { ffi::merkle_sexp_parse(&mut n, &mut used, a.s, b.as_ptr(), b.len(), flags, std::ptr::null(), &mut e) };
    check_detail(s, &e)?;
    if used != b.len() {
        return Err(Error::new(Status::Format, &format!("{} trailing bytes after the value", b.len() - used)));
    }
    Ok(NodePtr(n))
}

/// Parse a canonical serialization (no back references), as clvm_rs `node_from_bytes`.
/// Trailing bytes are an error.
pub fn node_from_bytes(a: &mut Allocator, b: &[u8]) -> Result<NodePtr> {
    parse(a, b, 0)
}

/// Parse a serialization that may contain back references (`0xfe`), as clvm_rs
/// `node_from_bytes_backrefs`. Shared subtrees stay shared (never expanded).
pub fn node_from_bytes_backrefs(a: &mut Allocator, b: &[u8]) -> Result<NodePtr> {
    parse(a, b, ffi::MERKLE_SEXP_BACKREFS)
}

/// Canonical serialization of `node`, as clvm_rs `node_to_bytes`. The expanded length is
/// computed first: a DAG whose expansion exceeds `isize::MAX` bytes is an error, not an
/// out-of-memory abort.
pub fn node_to_bytes(a: &Allocator, node: NodePtr) -> Result<Vec<u8>> {
    let mut len = 0u64;
    // SAFETY: valid store.
    check(unsafe { ffi::merkle_sexp_serialized_length(&mut len, a.s, node.0) })?;
    if len > isize::MAX as u64 {
        return Err(Error::new(Status::Range, "serialization larger than memory can hold"));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(len as usize).map_err(|_| Error::new(Status::NoMem, "out of memory"))?;
    let mut written = 0usize;
    // SAFETY: out has capacity len; the library writes at most cap bytes and reports how many.
    check(unsafe { ffi::merkle_sexp_serialize(out.as_mut_ptr(), len as usize, &mut written, a.s, node.0) })?;
    // SAFETY: the library wrote `written` (== len) bytes.
    unsafe { out.set_len(written) };
    Ok(out)
}

/// Back-reference serialization of `node`, as clvm_rs `node_to_bytes_backrefs` (byte for
/// byte the output of its HEAD encoder).
pub fn node_to_bytes_backrefs(a: &mut Allocator, node: NodePtr) -> Result<Vec<u8>> {
    let mut p = std::ptr::null_mut();
    let mut len = 0usize;
    let mut e = ffi::merkle_error::new();
    // SAFETY: valid store; on success p is a library buffer of len bytes freed below.
    let s = unsafe { ffi::merkle_sexp_serialize_backrefs_alloc(&mut p, &mut len, a.s, node.0, 0, &mut e) };
    check_detail(s, &e)?;
    // SAFETY: p is valid for len bytes until freed.
    let v = if len == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(p, len) }.to_vec() };
    // SAFETY: allocated by the library.
    unsafe { ffi::merkle_sexp_buffer_free(p) };
    Ok(v)
}

/// Tree hash (`sha256tree`) of `node`: `H(1 || atom)`, `H(2 || left || right)`; each shared
/// node hashed once.
pub fn tree_hash(a: &mut Allocator, node: NodePtr) -> Result<Hash> {
    let mut out = [0u8; 32];
    // SAFETY: valid store.
    check(unsafe { ffi::merkle_sexp_tree_hash(out.as_mut_ptr(), a.s, node.0) })?;
    Ok(out)
}

/// Tree hash of a serialized program (back references accepted), without building anything
/// the caller keeps.
pub fn tree_hash_from_bytes(b: &[u8]) -> Result<Hash> {
    let mut a = Allocator::new()?;
    let n = node_from_bytes_backrefs(&mut a, b)?;
    tree_hash(&mut a, n)
}
