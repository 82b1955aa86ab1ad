// SPDX-License-Identifier: MIT OR Apache-2.0
//! Safe Rust binding of [libmerkle](https://example.invalid/merkle): binary Merkle trees over
//! lists and streams (RFC 6962/CometBFT, Sia, Bitcoin, SSZ, OpenZeppelin, BitTorrent v2) with
//! their proofs, merkledb radix tries, CLVM tree hashes and serialization.
//!
//! Every fallible call returns [`Result`]; the error carries the library's status
//! ([`Status`]) and, where the library gave one, a message and a byte offset.
//!
//! ```
//! use merkle::{tree, HashAlg, Profile};
//! let root = tree::root_list(Profile::Rfc6962, HashAlg::Sha256, &[b"a".as_ref(), b"b"]).unwrap();
//! assert_eq!(merkle::hex(&root).len(), 64);
//! ```
#![deny(missing_docs)]

mod error;
mod ffi;

pub mod clvm;
pub mod hash;
pub mod manifest;
pub mod proof;
pub mod shape;
pub mod tree;
pub mod trie;

pub use error::{Error, Result, Status};
pub use hash::HashAlg;
pub use tree::Profile;

/// A 32-byte digest: every tree hash, root and node ID of the library.
pub type Hash = [u8; 32];

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Decode hex (either case, an optional `0x` prefix) into bytes.
pub fn unhex(s: &str) -> Result<Vec<u8>> {
    let t = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if t.len() % 2 != 0 {
        return Err(Error::new(Status::Format, "odd number of hex digits"));
    }
    let digit = |c: u8, at: usize| -> Result<u8> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(Error::new(Status::Format, &format!("not a hex digit at offset {at}"))),
        }
    };
    let b = t.as_bytes();
    (0..b.len() / 2).map(|i| Ok(digit(b[2 * i], 2 * i)? << 4 | digit(b[2 * i + 1], 2 * i + 1)?)).collect()
}

/// Version of the linked C library ("MAJOR.MINOR.PATCH").
pub fn version() -> &'static str {
    // SAFETY: merkle_version returns a static NUL-terminated ASCII string.
    unsafe { std::ffi::CStr::from_ptr(ffi::merkle_version()) }.to_str().unwrap_or("?")
}

/// Compare two byte strings in time that depends only on their length.
pub fn ct_equal(a: &[u8], b: &[u8]) -> bool {
    // SAFETY: both slices are valid for a.len() bytes when the lengths match.
    a.len() == b.len() && unsafe { ffi::merkle_ct_equal(a.as_ptr().cast(), b.as_ptr().cast(), a.len()) } == 1
}
