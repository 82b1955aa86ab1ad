// SPDX-License-Identifier: MIT OR Apache-2.0
//! RFC 6962/9162 inclusion and consistency proofs over leaf hashes.
use crate::error::{check, check_detail, Error, Result, Status};
use crate::{ffi, HashAlg, Hash};

/// Number of hashes in the audit path of leaf `index` in a tree of `size` leaves (0 when
/// `index >= size`).
pub fn inclusion_path_len(index: u64, size: u64) -> usize {
    // SAFETY: pure arithmetic.
    unsafe { ffi::merkle_proof_inclusion_path_len(index, size) }
}

/// Number of hashes in the consistency proof from `old_size` to `new_size`.
pub fn consistency_path_len(old_size: u64, new_size: u64) -> usize {
    // SAFETY: pure arithmetic.
    unsafe { ffi::merkle_proof_consistency_path_len(old_size, new_size) }
}

/// The audit path (bottom-up) of leaf `index` of the tree of `leaf_hashes` (each
/// `H(0x00 || leaf)`), and the tree's root.
pub fn inclusion_path(alg: HashAlg, leaf_hashes: &[Hash], index: u64) -> Result<(Vec<Hash>, Hash)> {
    let mut path = vec![[0u8; 32]; 128];
    let mut len = 0usize;
    let mut root = [0u8; 32];
    // SAFETY: path holds 128 hashes (the longest possible path), leaf_hashes is valid.
    check(unsafe {
        ffi::merkle_proof_inclusion_path(
            path.as_mut_ptr(),
            path.len(),
            &mut len,
            root.as_mut_ptr(),
            alg.code(),
            leaf_hashes.as_ptr(),
            leaf_hashes.len() as u64,
            index,
        )
    })?;
    path.truncate(len);
    Ok((path, root))
}

/// The RFC 9162 consistency proof from the first `old_size` leaves to all of `leaf_hashes`,
/// with the old and the new root.
pub fn consistency_path(alg: HashAlg, leaf_hashes: &[Hash], old_size: u64) -> Result<(Vec<Hash>, Hash, Hash)> {
    let mut path = vec![[0u8; 32]; 128];
    let mut len = 0usize;
    let (mut old_root, mut new_root) = ([0u8; 32], [0u8; 32]);
    // SAFETY: as above.
    check(unsafe {
        ffi::merkle_proof_consistency_path(
            path.as_mut_ptr(),
            path.len(),
            &mut len,
            old_root.as_mut_ptr(),
            new_root.as_mut_ptr(),
            alg.code(),
            leaf_hashes.as_ptr(),
            leaf_hashes.len() as u64,
            old_size,
        )
    })?;
    path.truncate(len);
    Ok((path, old_root, new_root))
}

/// Verify that `leaf_hash` is leaf `index` of the tree of `size` leaves with root `root`.
/// `Ok(())` when it verifies, an error of status [`Status::Verify`] when it does not.
pub fn verify_inclusion(alg: HashAlg, root: &Hash, size: u64, index: u64, leaf_hash: &Hash, path: &[Hash]) -> Result<()> {
    let mut e = ffi::merkle_error::new();
    // SAFETY: valid pointers and lengths.
    let s = unsafe {
        ffi::merkle_proof_inclusion_verify(alg.code(), root.as_ptr(), size, index, leaf_hash.as_ptr(), path.as_ptr(), path.len(), &mut e)
    };
    check_detail(s, &e)
}

/// Verify that the tree of `old_size` leaves with `old_root` is a prefix of the tree of
/// `new_size` leaves with `new_root`.
pub fn verify_consistency(alg: HashAlg, old_root: &Hash, new_root: &Hash, old_size: u64, new_size: u64, path: &[Hash]) -> Result<()> {
    if path.len() > 128 {
        return Err(Error::new(Status::Verify, "consistency proof too long"));
    }
    let mut e = ffi::merkle_error::new();
    // SAFETY: valid pointers and lengths.
    let s = unsafe {
        ffi::merkle_proof_consistency_verify(alg.code(), old_root.as_ptr(), new_root.as_ptr(), old_size, new_size, path.as_ptr(), path.len(), &mut e)
    };
    check_detail(s, &e)
}
