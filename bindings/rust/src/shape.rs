// SPDX-License-Identifier: MIT OR Apache-2.0
//! Trees of other shapes (Bitcoin, SSZ, OpenZeppelin, BitTorrent v2) over level-0 nodes,
//! with branches (single proofs), and OpenZeppelin's ABI leaves.
use crate::error::{check, check_detail, Error, Result, Status};
use crate::{ffi, Hash, Profile};
use std::alloc::{self, Layout};
use std::ffi::CString;

/// A profile's shape description (merkle/shape.h `merkle_shape`), opaque here.
pub struct Shape {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: plain data owned by this value, only read by the library.
unsafe impl Send for Shape {}
unsafe impl Sync for Shape {}

impl Shape {
    /// The shape of a profile.
    pub fn new(profile: Profile) -> Result<Shape> {
        // SAFETY: no preconditions.
        let (size, align) = unsafe { (ffi::merkle_shape_struct_size(), ffi::merkle_shape_struct_align()) };
        let layout = Layout::from_size_align(size, align).map_err(|_| Error::new(Status::Arg, "bad layout"))?;
        // SAFETY: size > 0.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::new(Status::NoMem, "out of memory"));
        }
        let s = Shape { ptr, layout };
        // SAFETY: ptr is a merkle_shape-sized, aligned buffer.
        check(unsafe { ffi::merkle_shape_init(s.ptr.cast(), 1, profile.code()) })?;
        Ok(s)
    }

    /// Root of the tree of `nodes` (leaf hashes, txids, chunks).
    pub fn root(&self, nodes: &[Hash]) -> Result<Hash> {
        let mut out = [0u8; 32];
        let mut e = ffi::merkle_error::new();
        // SAFETY: valid pointers.
        let s = unsafe { ffi::merkle_shape_root(out.as_mut_ptr(), std::ptr::null_mut(), self.ptr.cast(), nodes.as_ptr(), nodes.len() as u64, &mut e) };
        check_detail(s, &e)?;
        Ok(out)
    }

    /// Verify a branch: `leaf` at position `pos` hashes with `path` up to `root`.
    pub fn verify(&self, root: &Hash, pos: u64, leaf: &Hash, path: &[Hash]) -> Result<()> {
        let mut e = ffi::merkle_error::new();
        // SAFETY: valid pointers.
        let s = unsafe { ffi::merkle_shape_verify(self.ptr.cast(), root.as_ptr(), pos, leaf.as_ptr(), path.as_ptr(), path.len(), &mut e) };
        check_detail(s, &e)
    }
}

impl Drop for Shape {
    fn drop(&mut self) {
        // SAFETY: allocated in new with this layout.
        unsafe { alloc::dealloc(self.ptr, self.layout) };
    }
}

/// A whole shaped tree in memory, for branches.
pub struct ShapedTree {
    t: *mut ffi::merkle_shape_tree,
    shape: Shape,
}

// SAFETY: the tree is only read after construction.
unsafe impl Send for ShapedTree {}
unsafe impl Sync for ShapedTree {}

impl ShapedTree {
    /// Build the tree of `nodes` for `profile`.
    pub fn new(profile: Profile, nodes: &[Hash]) -> Result<ShapedTree> {
        let shape = Shape::new(profile)?;
        let mut t = std::ptr::null_mut();
        let mut e = ffi::merkle_error::new();
        // SAFETY: valid pointers; on success t owns a tree freed in Drop.
        let s = unsafe { ffi::merkle_shape_tree_alloc(&mut t, std::ptr::null_mut(), shape.ptr.cast(), nodes.as_ptr(), nodes.len() as u64, &mut e) };
        check_detail(s, &e)?;
        Ok(ShapedTree { t, shape })
    }
    /// The root.
    pub fn root(&self) -> Hash {
        let mut out = [0u8; 32];
        // SAFETY: a valid tree.
        unsafe { ffi::merkle_shape_tree_root(out.as_mut_ptr(), self.t) };
        out
    }
    /// Number of level-0 nodes.
    pub fn len(&self) -> u64 {
        // SAFETY: a valid tree.
        unsafe { ffi::merkle_shape_tree_count(self.t) }
    }
    /// Whether the tree has no level-0 node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Position (gindex or heap index) of input node `index`.
    pub fn position(&self, index: u64) -> Result<u64> {
        let mut pos = 0;
        // SAFETY: a valid tree.
        check(unsafe { ffi::merkle_shape_tree_position(&mut pos, self.t, index) })?;
        Ok(pos)
    }
    /// Branch (bottom-up siblings) of input node `index`, with its position.
    pub fn branch(&self, index: u64) -> Result<(u64, Vec<Hash>)> {
        let pos = self.position(index)?;
        let mut path = vec![[0u8; 32]; 130];
        let mut len = 0;
        // SAFETY: path holds 130 hashes, more than any depth (64 + mix-in).
        check(unsafe { ffi::merkle_shape_tree_branch(path.as_mut_ptr(), path.len(), &mut len, self.t, pos) })?;
        path.truncate(len);
        Ok((pos, path))
    }
    /// The shape the tree was built with.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }
}

impl Drop for ShapedTree {
    fn drop(&mut self) {
        // SAFETY: allocated by merkle_shape_tree_alloc.
        unsafe { ffi::merkle_shape_tree_free(self.t) };
    }
}

/// OpenZeppelin `StandardMerkleTree` leaf: `keccak256(keccak256(abi.encode(types, row)))`;
/// `types` like `"address,uint256"`, `row` like `"0x1111...,5000000000000000000"`.
pub fn abi_leaf(types: &str, row: &str) -> Result<Hash> {
    let t = CString::new(types).map_err(|_| Error::new(Status::Arg, "NUL in types"))?;
    let mut out = [0u8; 32];
    let mut e = ffi::merkle_error::new();
    // SAFETY: valid pointers; row is passed with its length.
    let s = unsafe { ffi::merkle_shape_abi_leaf(out.as_mut_ptr(), t.as_ptr(), row.as_ptr().cast(), row.len(), &mut e) };
    check_detail(s, &e)?;
    Ok(out)
}
