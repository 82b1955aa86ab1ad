// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checksum manifests as `md5sum`, `sha1sum`, `sha256sum`, `sha512sum` and `b2sum` write them
//! (GNU and BSD tag lines), checked with the library's many-files engine and optionally a
//! validation cache (docs/manifest.md).
//!
//! ```
//! use merkle::manifest::{Alg, Manifest};
//! let m = Manifest::parse(b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc\n").unwrap();
//! assert_eq!(m.len(), 1);
//! let e = m.entries().next().unwrap();
//! assert_eq!((e.name(), e.alg()), (&b"abc"[..], Alg::Sha256));
//! assert_eq!(e.digest(), &merkle::hash::sha256(b"abc")[..]);
//! ```
use std::ffi::CString;
use std::os::raw::c_char;
use std::path::Path;

use crate::error::{check, check_detail, Error, Result, Status};
use crate::ffi;

/// A checksum-list digest (the library's `merkle_hash_alg` values for manifests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    /// MD5 (`md5sum`).
    Md5,
    /// SHA-1 (`sha1sum`).
    Sha1,
    /// SHA-256 (`sha256sum`).
    Sha256,
    /// SHA-512 (`sha512sum`).
    Sha512,
    /// BLAKE2b of any length 1..64 bytes (`b2sum`: 64).
    Blake2b,
}

impl Alg {
    fn code(self) -> ffi::merkle_hash_alg {
        match self {
            Alg::Md5 => 1,
            Alg::Sha1 => 2,
            Alg::Sha256 => 3,
            Alg::Sha512 => 4,
            Alg::Blake2b => 5,
        }
    }
    fn from_code(c: ffi::merkle_hash_alg) -> Option<Alg> {
        Some(match c {
            1 => Alg::Md5,
            2 => Alg::Sha1,
            3 => Alg::Sha256,
            4 => Alg::Sha512,
            5 => Alg::Blake2b,
            _ => return None,
        })
    }
    /// The digest length in bytes (BLAKE2b: `b2sum`'s default, 64).
    pub fn digest_len(self) -> usize {
        match self {
            Alg::Md5 => 16,
            Alg::Sha1 => 20,
            Alg::Sha256 => 32,
            Alg::Sha512 | Alg::Blake2b => 64,
        }
    }
}

fn cpath(p: &Path) -> Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(p.as_os_str().as_bytes()).map_err(|_| Error::new(Status::Arg, "path holds a NUL byte"))
}

/// A parsed manifest. Malformed lines are skipped and listed by [`Manifest::bad_lines`], as
/// `md5sum -c` warns about them and goes on.
pub struct Manifest {
    m: *mut ffi::merkle_manifest,
}

// SAFETY: a merkle_manifest is plain memory owned by this value; the library keeps no
// reference to it and no thread-affine state.
unsafe impl Send for Manifest {}
// SAFETY: the accessors used through &Manifest only read.
unsafe impl Sync for Manifest {}

impl Drop for Manifest {
    fn drop(&mut self) {
        // SAFETY: m came from merkle_manifest_parse_alloc and is freed once.
        unsafe { ffi::merkle_manifest_free(self.m) }
    }
}

impl Manifest {
    /// Parse `text` with every algorithm accepted (a BSD line names its own, a GNU line's
    /// hex length decides: 32 MD5, 40 SHA-1, 64 SHA-256, 128 SHA-512).
    pub fn parse(text: &[u8]) -> Result<Manifest> {
        Manifest::parse_inner(text, 0, 0)
    }

    /// Parse `text` accepting only `alg` lines (as `sha256sum -c` does); for BLAKE2b
    /// `digest_len` bytes (0: any length).
    pub fn parse_with(text: &[u8], alg: Alg, digest_len: usize) -> Result<Manifest> {
        if digest_len > 0 {
            checked_len(alg, digest_len)?;
        }
        Manifest::parse_inner(text, alg.code(), digest_len as u32)
    }

    fn parse_inner(text: &[u8], alg: ffi::merkle_hash_alg, digest_len: u32) -> Result<Manifest> {
        let mut p = ffi::merkle_manifest_parser { alg: 0, digest_len: 0, bsd_reversed: 0, reject_dash: 0 };
        let mut m = std::ptr::null_mut();
        let mut e = ffi::merkle_error::new();
        // SAFETY: p is a valid parser struct; text is valid for text.len() bytes; m receives
        // a new manifest or NULL.
        let s = unsafe {
            ffi::merkle_manifest_parser_init(&mut p, alg, digest_len);
            ffi::merkle_manifest_parse_alloc(&mut m, &mut p, text.as_ptr().cast(), text.len(), 1, &mut e)
        };
        check_detail(s, &e)?;
        Ok(Manifest { m })
    }

    fn raw(&self) -> &[ffi::merkle_manifest_entry] {
        // SAFETY: the library returns an array of merkle_manifest_count entries that lives as
        // long as the manifest (it is never sorted through this binding).
        unsafe {
            let n = ffi::merkle_manifest_count(self.m);
            if n == 0 {
                return &[];
            }
            std::slice::from_raw_parts(ffi::merkle_manifest_entries(self.m), n)
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.raw().len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries in file order.
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        self.raw().iter().map(|e| Entry { e })
    }

    /// Line numbers (1-based) of the malformed lines.
    pub fn bad_lines(&self) -> &[u64] {
        let mut n = 0usize;
        // SAFETY: the array of n line numbers lives as long as the manifest.
        unsafe {
            let p = ffi::merkle_manifest_bad_lines(self.m, &mut n);
            if n == 0 || p.is_null() {
                return &[];
            }
            std::slice::from_raw_parts(p, n)
        }
    }

    /// Number of lines read.
    pub fn lines(&self) -> u64 {
        // SAFETY: m is a valid manifest.
        unsafe { ffi::merkle_manifest_lines(self.m) }
    }

    /// Check every entry against the file it names, relative to `dir` (None: the current
    /// directory), with `threads` threads (0: one per CPU) and an optional validation cache.
    /// Per-file failures are [`CheckStatus`] values, never errors.
    pub fn check(&self, dir: Option<&Path>, threads: u32, cache: Option<&mut Cache>) -> Result<Vec<CheckResult>> {
        let entries = self.raw();
        let cdir = dir.map(cpath).transpose()?;
        // SAFETY: merkle_check_opts is plain data; merkle_check_opts_init fills every field.
        let mut o: ffi::merkle_check_opts = unsafe { std::mem::zeroed() };
        // SAFETY: o is a valid struct of the version this binding declares.
        check(unsafe { ffi::merkle_check_opts_init(&mut o, ffi::MERKLE_CHECK_OPTS_VERSION) })?;
        o.dir = cdir.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        o.threads = threads;
        o.cache = cache.map_or(std::ptr::null_mut(), |c| c.c);
        // SAFETY: zeroed results are valid merkle_check_result values.
        let mut out: Vec<ffi::merkle_check_result> = (0..entries.len()).map(|_| unsafe { std::mem::zeroed() }).collect();
        let mut e = ffi::merkle_error::new();
        // SAFETY: out holds one result per entry; entries, o and the strings it points to
        // outlive the call.
        let s = unsafe { ffi::merkle_manifest_check(out.as_mut_ptr(), entries.as_ptr(), entries.len(), &o, &mut e) };
        check_detail(s, &e)?;
        Ok(out
            .iter()
            .zip(entries)
            .map(|(r, en)| CheckResult {
                status: match r.status {
                    0 => CheckStatus::Ok,
                    1 => CheckStatus::Mismatch,
                    2 => CheckStatus::Missing,
                    _ => CheckStatus::Error(r.sys_errno),
                },
                from_cache: r.from_cache != 0,
                size: r.size,
                digest: r.digest[..en.digest_len as usize].to_vec(),
            })
            .collect())
    }
}

/// One checksum line.
#[derive(Clone, Copy)]
pub struct Entry<'a> {
    e: &'a ffi::merkle_manifest_entry,
}

impl<'a> Entry<'a> {
    /// The file name as written (unescaped), as bytes: names need not be UTF-8.
    pub fn name(&self) -> &'a [u8] {
        // SAFETY: name points at name_len bytes inside the manifest.
        unsafe { std::slice::from_raw_parts(self.e.name.cast::<u8>(), self.e.name_len) }
    }
    /// The 1-based line number.
    pub fn line(&self) -> u64 {
        self.e.line
    }
    /// The digest algorithm of the line.
    pub fn alg(&self) -> Alg {
        Alg::from_code(self.e.alg).unwrap_or(Alg::Sha256)
    }
    /// The expected digest.
    pub fn digest(&self) -> &'a [u8] {
        &self.e.digest[..self.e.digest_len as usize]
    }
    /// A GNU line with `*` (binary mode) before the name.
    pub fn binary(&self) -> bool {
        self.e.binary != 0
    }
    /// A BSD tag line (`SHA256 (name) = hex`).
    pub fn bsd(&self) -> bool {
        self.e.bsd != 0
    }
}

/// What checking one entry found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckStatus {
    /// The digest matched.
    Ok,
    /// The digest did not match.
    Mismatch,
    /// The file does not exist.
    Missing,
    /// Opening or reading failed with this errno.
    Error(i32),
}

/// The result of checking one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckResult {
    /// The verdict.
    pub status: CheckStatus,
    /// OK from the validation cache, without reading the file.
    pub from_cache: bool,
    /// Bytes hashed (0 from the cache or on error).
    pub size: u64,
    /// The digest computed (empty when the file could not be read or came from the cache).
    pub digest: Vec<u8>,
}

/// A validation cache: files verified OK before and unchanged since (same identity, size and
/// times, docs/manifest.md) are not read again. With a key every entry carries an
/// HMAC-SHA-256 and entries without a valid one are ignored.
pub struct Cache {
    c: *mut ffi::merkle_vcache,
}

// SAFETY: the cache is owned by this value; the library locks it internally when the check
// engine's threads use it, and &mut is required to hand it to a check.
unsafe impl Send for Cache {}

impl Drop for Cache {
    fn drop(&mut self) {
        // SAFETY: c came from merkle_vcache_alloc and is freed once.
        unsafe { ffi::merkle_vcache_free(self.c) }
    }
}

impl Cache {
    /// An empty cache, keyed or not.
    pub fn new(key: Option<&[u8]>) -> Result<Cache> {
        let mut c = std::ptr::null_mut();
        let (k, n) = key.map_or((std::ptr::null(), 0), |k| (k.as_ptr(), k.len()));
        // SAFETY: k is valid for n bytes (or NULL/0); c receives the new cache.
        check(unsafe { ffi::merkle_vcache_alloc(&mut c, k, n) })?;
        Ok(Cache { c })
    }

    /// Load a cache file: the number of entries loaded. A missing file loads nothing; a path
    /// that is not a cache (a link, a manifest, a device) is [`Status::Unsafe`].
    pub fn load(&mut self, path: &Path) -> Result<usize> {
        let p = cpath(path)?;
        let (mut loaded, mut rejected) = (0usize, 0usize);
        let mut e = ffi::merkle_error::new();
        // SAFETY: the cache, the path and the counters are valid for the call.
        let s = unsafe { ffi::merkle_vcache_load(&mut loaded, &mut rejected, self.c, p.as_ptr(), &mut e) };
        check_detail(s, &e)?;
        Ok(loaded)
    }

    /// Save atomically and durably; only ever written over nothing or a cache file.
    pub fn save(&mut self, path: &Path) -> Result<()> {
        let p = cpath(path)?;
        let mut e = ffi::merkle_error::new();
        // SAFETY: the cache and the path are valid for the call.
        let s = unsafe { ffi::merkle_vcache_save(self.c, p.as_ptr(), &mut e) };
        check_detail(s, &e)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        // SAFETY: c is a valid cache.
        unsafe { ffi::merkle_vcache_count(self.c) }
    }

    /// Whether the cache holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The digest length to use: `digest_len` (BLAKE2b), or the algorithm's own when 0; at most
/// 64 bytes (the one check of every entry point that takes a length).
fn checked_len(alg: Alg, digest_len: usize) -> Result<usize> {
    let len = if digest_len == 0 { alg.digest_len() } else { digest_len };
    if len > ffi::MERKLE_MAX_DIGEST_LEN {
        return Err(Error::new(Status::Arg, "digest length over 64 bytes"));
    }
    Ok(len)
}

/// The digest of a file (read to the end, constant memory); `digest_len` only for BLAKE2b
/// (0: 64 bytes).
pub fn digest_file(path: &Path, alg: Alg, digest_len: usize) -> Result<Vec<u8>> {
    let p = cpath(path)?;
    let len = checked_len(alg, digest_len)?;
    let mut out = vec![0u8; ffi::MERKLE_MAX_DIGEST_LEN];
    let mut size = 0u64;
    let mut e = ffi::merkle_error::new();
    // SAFETY: out holds 64 bytes; the path is NUL-terminated.
    let s = unsafe { ffi::merkle_manifest_digest_file(out.as_mut_ptr(), alg.code(), len, p.as_ptr(), &mut size, &mut e) };
    check_detail(s, &e)?;
    out.truncate(len);
    Ok(out)
}

/// The digest of `data` as a checksum list records it.
pub fn digest(alg: Alg, data: &[u8], digest_len: usize) -> Result<Vec<u8>> {
    let len = checked_len(alg, digest_len)?;
    let mut out = vec![0u8; ffi::MERKLE_MAX_DIGEST_LEN];
    // SAFETY: out holds 64 bytes; data is valid for its length.
    check(unsafe { ffi::merkle_manifest_digest(out.as_mut_ptr(), alg.code(), len, data.as_ptr().cast(), data.len()) })?;
    out.truncate(len);
    Ok(out)
}

/// One checksum line exactly as the coreutils tools print it (newline included); `tag`: BSD
/// tag form (`--tag`), `binary`: `*` before the name (`-b`).
pub fn format_line(alg: Alg, digest: &[u8], name: &str, tag: bool, binary: bool) -> Result<String> {
    let cname = CString::new(name).map_err(|_| Error::new(Status::Arg, "name holds a NUL byte"))?;
    let flags = (tag as u32) | ((binary as u32) << 1);
    let mut need = 0usize;
    // SAFETY: a NULL output with cap 0 only reports the length.
    let s = unsafe {
        ffi::merkle_manifest_format_line(std::ptr::null_mut(), 0, &mut need, alg.code(), digest.as_ptr(), digest.len(), cname.as_ptr(), flags)
    };
    if s != ffi::MERKLE_OK && s != -2 {
        check(s)?;
    }
    let mut buf = vec![0u8; need];
    // SAFETY: buf holds need bytes.
    check(unsafe {
        ffi::merkle_manifest_format_line(buf.as_mut_ptr().cast::<c_char>(), need, &mut need, alg.code(), digest.as_ptr(), digest.len(), cname.as_ptr(), flags)
    })?;
    buf.truncate(need);
    String::from_utf8(buf).map_err(|_| Error::new(Status::Format, "line is not UTF-8"))
}
