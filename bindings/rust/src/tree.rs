// SPDX-License-Identifier: MIT OR Apache-2.0
//! Binary Merkle trees of the RFC 6962 shape (and Sia's): roots of lists, buffers and streams.
use crate::error::{check, Error, Result, Status};
use crate::{ffi, HashAlg, Hash};
use std::alloc::{self, Layout};
use std::io::{self, Read, Write};

/// A tree profile (merkle/tree.h): which prefixes, empty root and shape a tree has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// RFC 6962/9162 (CometBFT `HashFromByteSlices`, go-square, transparency-dev).
    Rfc6962,
    /// Sia `merkletree` (BLAKE2b-256, 64-byte segments, empty root of 32 zero bytes).
    Sia,
    /// Bitcoin's block transaction tree (SHA-256d, odd node duplicated).
    Bitcoin,
    /// Ethereum SSZ `hash_tree_root` (zero-hash padding).
    Ssz,
    /// `@openzeppelin/merkle-tree` (Keccak-256, sorted pairs, heap layout).
    OpenZeppelin,
    /// BEP 52 pieces root.
    BittorrentV2,
}

impl Profile {
    pub(crate) fn code(self) -> ffi::merkle_profile {
        match self {
            Profile::Rfc6962 => 1,
            Profile::Sia => 2,
            Profile::Bitcoin => 3,
            Profile::Ssz => 4,
            Profile::OpenZeppelin => 5,
            Profile::BittorrentV2 => 6,
        }
    }
    /// The profile's default digest and stream leaf size.
    pub fn defaults(self) -> (HashAlg, usize) {
        let mut h = 0;
        let mut size = 0usize;
        // SAFETY: valid out pointers and a valid profile.
        unsafe { ffi::merkle_profile_defaults(&mut h, &mut size, self.code()) };
        let alg = match h {
            6 => HashAlg::Blake2b256,
            7 => HashAlg::Keccak256,
            _ => HashAlg::Sha256,
        };
        (alg, size)
    }
}

fn streaming(profile: Profile) -> Result<()> {
    match profile {
        Profile::Rfc6962 | Profile::Sia => Ok(()),
        _ => Err(Error::new(Status::Arg, "this profile has no streaming tree: use merkle::shape")),
    }
}

/// Leaf hash `H(0x00 || data)`.
pub fn leaf_hash(alg: HashAlg, data: &[u8]) -> Hash {
    let mut out = [0u8; 32];
    // SAFETY: valid pointers; a valid algorithm cannot fail.
    unsafe { ffi::merkle_tree_leaf_hash(out.as_mut_ptr(), alg.code(), data.as_ptr().cast(), data.len()) };
    out
}

/// Interior node hash `H(0x01 || left || right)`.
pub fn node_hash(alg: HashAlg, left: &Hash, right: &Hash) -> Hash {
    let mut out = [0u8; 32];
    // SAFETY: three 32-byte buffers.
    unsafe { ffi::merkle_tree_node_hash(out.as_mut_ptr(), alg.code(), left.as_ptr(), right.as_ptr()) };
    out
}

/// Root of the empty tree: `H("")` for rfc6962, 32 zero bytes for sia.
pub fn empty_root(profile: Profile, alg: HashAlg) -> Result<Hash> {
    streaming(profile)?;
    let mut out = [0u8; 32];
    // SAFETY: out holds 32 bytes.
    check(unsafe { ffi::merkle_tree_empty_root(out.as_mut_ptr(), profile.code(), alg.code()) })?;
    Ok(out)
}

/// Root of a list of byte strings, each one leaf (CometBFT `HashFromByteSlices` for
/// `Rfc6962` + SHA-256).
pub fn root_list<T: AsRef<[u8]>>(profile: Profile, alg: HashAlg, leaves: &[T]) -> Result<Hash> {
    streaming(profile)?;
    let ptrs: Vec<*const u8> = leaves.iter().map(|l| l.as_ref().as_ptr()).collect();
    let lens: Vec<usize> = leaves.iter().map(|l| l.as_ref().len()).collect();
    let mut out = [0u8; 32];
    // SAFETY: ptrs[i] is valid for lens[i] bytes for the duration of the call.
    check(unsafe {
        ffi::merkle_tree_root_list(out.as_mut_ptr(), profile.code(), alg.code(), ptrs.as_ptr(), lens.as_ptr(), leaves.len())
    })?;
    Ok(out)
}

/// Root of `data` cut into `leaf_size`-byte leaves (the last one may be short).
pub fn root_bytes(profile: Profile, alg: HashAlg, leaf_size: usize, data: &[u8]) -> Result<Hash> {
    streaming(profile)?;
    let mut out = [0u8; 32];
    // SAFETY: data valid for data.len() bytes.
    check(unsafe {
        ffi::merkle_tree_root_bytes(out.as_mut_ptr(), profile.code(), alg.code(), leaf_size, data.as_ptr().cast(), data.len())
    })?;
    Ok(out)
}

/// Root of everything `reader` yields, cut into `leaf_size`-byte leaves, in constant memory
/// (Sia `ReaderRoot` for `Sia` + BLAKE2b-256 + 64).
pub fn root_reader<R: Read>(profile: Profile, alg: HashAlg, leaf_size: usize, mut reader: R) -> io::Result<Hash> {
    let mut t = Tree::new(profile, alg, leaf_size)?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        t.write_all(&buf[..n])?;
    }
    Ok(t.root()?)
}

/// A streaming tree builder: O(log n) memory, no allocation after `new`. Push whole leaves
/// or write a byte stream (it implements [`std::io::Write`]); then take the root.
pub struct Tree {
    ptr: *mut u8,
    layout: Layout,
    finished: bool,
}

// SAFETY: the builder is plain data owned by this value; the library keeps no reference to
// it between calls, so it may move between threads. It is not Sync (calls mutate it).
unsafe impl Send for Tree {}

impl Tree {
    /// A builder for `profile` (rfc6962 or sia) with `alg` and stream leaf size `leaf_size` (> 0).
    pub fn new(profile: Profile, alg: HashAlg, leaf_size: usize) -> Result<Tree> {
        streaming(profile)?;
        // SAFETY: size/align queries have no preconditions.
        let (size, align) = unsafe { (ffi::merkle_tree_struct_size(), ffi::merkle_tree_struct_align()) };
        let layout = Layout::from_size_align(size, align).map_err(|_| Error::new(Status::Arg, "bad layout"))?;
        // SAFETY: size > 0.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::new(Status::NoMem, "out of memory"));
        }
        let t = Tree { ptr, layout, finished: false };
        // SAFETY: ptr is a suitably sized and aligned merkle_tree.
        check(unsafe { ffi::merkle_tree_init(t.ptr.cast(), profile.code(), alg.code(), leaf_size) })?;
        Ok(t)
    }
    /// Append one leaf of any length.
    pub fn push_leaf(&mut self, data: &[u8]) -> Result<()> {
        // SAFETY: self.ptr is an initialised builder.
        check(unsafe { ffi::merkle_tree_push_leaf(self.ptr.cast(), data.as_ptr().cast(), data.len()) })
    }
    /// Append a leaf whose hash `H(0x00 || data)` the caller already has.
    pub fn push_leaf_hash(&mut self, hash: &Hash) -> Result<()> {
        // SAFETY: as above.
        check(unsafe { ffi::merkle_tree_push_leaf_hash(self.ptr.cast(), hash.as_ptr()) })
    }
    /// Leaves so far (a started stream leaf counts).
    pub fn leaf_count(&self) -> u64 {
        // SAFETY: as above.
        unsafe { ffi::merkle_tree_leaf_count(self.ptr.cast()) }
    }
    /// Finish: the root (the profile's empty root when nothing was added).
    pub fn root(mut self) -> Result<Hash> {
        let mut out = [0u8; 32];
        self.finished = true;
        // SAFETY: as above; after this only init may be called, and self is consumed.
        check(unsafe { ffi::merkle_tree_root(out.as_mut_ptr(), std::ptr::null_mut(), self.ptr.cast()) })?;
        Ok(out)
    }
}

impl Write for Tree {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: as above.
        check(unsafe { ffi::merkle_tree_write(self.ptr.cast(), buf.as_ptr().cast(), buf.len()) })?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = self.finished;
        // SAFETY: allocated in new with this layout.
        unsafe { alloc::dealloc(self.ptr, self.layout) };
    }
}
