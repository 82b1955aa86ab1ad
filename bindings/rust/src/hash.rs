// SPDX-License-Identifier: MIT OR Apache-2.0
//! Digests: SHA-256, BLAKE2b-256 and Keccak-256, one-shot and batched.
use crate::error::{check, Result};
use crate::{ffi, Hash};

/// A tree digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlg {
    /// SHA-256 (FIPS 180-4).
    Sha256,
    /// Unkeyed BLAKE2b with a 32-byte digest (Go `blake2b.Sum256`), not BLAKE2b-512 cut short.
    Blake2b256,
    /// Keccak-256 with the original padding (Ethereum), not SHA3-256.
    Keccak256,
}

impl HashAlg {
    pub(crate) fn code(self) -> ffi::merkle_hash_alg {
        match self {
            HashAlg::Sha256 => 3,
            HashAlg::Blake2b256 => 6,
            HashAlg::Keccak256 => 7,
        }
    }
}

/// One-shot digest of `data` with `alg`.
pub fn digest(alg: HashAlg, data: &[u8]) -> Hash {
    let mut out = [0u8; 32];
    // SAFETY: out holds 32 bytes, data is valid for data.len() bytes; the algorithm is valid,
    // so the call cannot fail.
    let s = unsafe { ffi::merkle_hash(out.as_mut_ptr(), alg.code(), data.as_ptr().cast(), data.len()) };
    debug_assert_eq!(s, 0);
    out
}

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> Hash {
    digest(HashAlg::Sha256, data)
}

/// BLAKE2b-256 of `data`.
pub fn blake2b256(data: &[u8]) -> Hash {
    digest(HashAlg::Blake2b256, data)
}

/// Keccak-256 of `data` (Solidity's `keccak256`).
pub fn keccak256(data: &[u8]) -> Hash {
    digest(HashAlg::Keccak256, data)
}

/// Batch digest: for each `len`-byte message of `data` at `stride`-byte steps, the digest of
/// `prefix || message`, computed by the multi-lane kernels (the shape of a Merkle level).
/// `prefix` is at most 64 bytes; `data` must hold `n` messages: `(n-1)*stride + len` bytes.
pub fn batch_strided(alg: HashAlg, prefix: &[u8], data: &[u8], stride: usize, len: usize) -> Result<Vec<Hash>> {
    if stride == 0 || len > stride && data.len() > len {
        return Err(crate::Error::new(crate::Status::Arg, "stride must be at least the message length"));
    }
    let n = if data.len() < len { 0 } else { (data.len() - len) / stride + 1 };
    let mut out = vec![[0u8; 32]; n];
    // SAFETY: out holds n digests; the last message ends at (n-1)*stride + len <= data.len().
    check(unsafe {
        ffi::merkle_hash_batch_strided(
            out.as_mut_ptr().cast(),
            alg.code(),
            prefix.as_ptr(),
            prefix.len(),
            data.as_ptr(),
            stride,
            len,
            n,
        )
    })?;
    Ok(out)
}

/// Name of the SHA-256 kernel in use ("shani4+avx512", "portable", ...).
pub fn sha256_backend() -> &'static str {
    // SAFETY: a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(ffi::merkle_sha256_backend()) }.to_str().unwrap_or("?")
}
