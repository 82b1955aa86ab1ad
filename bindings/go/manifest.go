// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

/*
#include <stdlib.h>
#include <merkle/manifest.h>
*/
import "C"

import (
	"bytes"
	"context"
	"io"
	"strings"
	"unsafe"
)

// The checksum-list digests of manifests (md5sum, sha1sum, sha256sum (SHA256), sha512sum,
// b2sum). ManifestAuto detects the digest from each line.
const (
	ManifestAuto HashAlg = C.MERKLE_HASH_AUTO
	MD5          HashAlg = C.MERKLE_HASH_MD5
	SHA1         HashAlg = C.MERKLE_HASH_SHA1
	SHA512       HashAlg = C.MERKLE_HASH_SHA512
	BLAKE2b      HashAlg = C.MERKLE_HASH_BLAKE2B // any length 1..64 bytes; b2sum's default 64
)

// ManifestEntry is one parsed checksum line.
type ManifestEntry struct {
	Name   string
	Line   uint64 // 1-based line number in the manifest
	Alg    HashAlg
	Digest []byte
	Binary bool // GNU line with '*' before the name
	BSD    bool // BSD tag line "ALGO (NAME) = HEX"
}

// Manifest is a parsed checksum list (md5sum/sha*sum/b2sum -c rules, GNU and BSD lines). It
// holds C memory: call Close when done (there is no finalizer). Not safe for concurrent use
// while DirRoot sorts it.
type Manifest struct {
	m *C.merkle_manifest
}

// ParseManifest parses a whole manifest. alg is the digest to accept (ManifestAuto: detect
// from each line, as coreutils' -c does for BSD lines and by hex length for GNU lines);
// digestLen is, for BLAKE2b, the length in bytes to require (0: any). Malformed lines are
// not errors: they are skipped and listed by BadLines.
func ParseManifest(text []byte, alg HashAlg, digestLen int) (*Manifest, error) {
	if digestLen < 0 || digestLen > C.MERKLE_MAX_DIGEST_LEN {
		return nil, &Error{Op: "ParseManifest", Status: ErrArg}
	}
	var p C.merkle_manifest_parser
	C.merkle_manifest_parser_init(&p, C.merkle_hash_alg(alg), C.uint32_t(digestLen))
	var m *C.merkle_manifest
	var e C.merkle_error
	// The text is copied into C memory: the parser keeps names pointing into its own copy.
	s := C.merkle_manifest_parse_alloc(&m, &p, unsafe.Pointer(u8(text)), C.size_t(len(text)), 1, &e)
	if err := checkErr("ParseManifest", s, &e); err != nil {
		return nil, err
	}
	return &Manifest{m: m}, nil
}

// Close releases the manifest. Calling it twice, or on nil, is harmless.
func (m *Manifest) Close() {
	if m != nil && m.m != nil {
		C.merkle_manifest_free(m.m)
		m.m = nil
	}
}

func (m *Manifest) live(op string) error {
	if m == nil || m.m == nil {
		return &Error{Op: op, Status: ErrState, Detail: "manifest is closed"}
	}
	return nil
}

func (m *Manifest) centries() []C.merkle_manifest_entry {
	n := int(C.merkle_manifest_count(m.m))
	if n == 0 {
		return nil
	}
	return unsafe.Slice(C.merkle_manifest_entries(m.m), n)
}

// Len is the number of entries.
func (m *Manifest) Len() int {
	if m.m == nil {
		return 0
	}
	return int(C.merkle_manifest_count(m.m))
}

// Entries returns copies of the entries, in file order (in name order after DirRoot).
func (m *Manifest) Entries() []ManifestEntry {
	if m.m == nil {
		return nil
	}
	ce := m.centries()
	out := make([]ManifestEntry, len(ce))
	for i := range ce {
		e := &ce[i]
		out[i] = ManifestEntry{
			Name:   string(goBytes(unsafe.Pointer(e.name), e.name_len)),
			Line:   uint64(e.line),
			Alg:    HashAlg(e.alg),
			Digest: goBytes(unsafe.Pointer(&e.digest[0]), C.size_t(e.digest_len)),
			Binary: e.binary != 0,
			BSD:    e.bsd != 0,
		}
	}
	return out
}

// BadLines returns the 1-based numbers of the malformed lines, ascending.
func (m *Manifest) BadLines() []uint64 {
	if m.m == nil {
		return nil
	}
	var n C.size_t
	p := C.merkle_manifest_bad_lines(m.m, &n)
	out := make([]uint64, int(n))
	if n > 0 {
		for i, v := range unsafe.Slice(p, int(n)) {
			out[i] = uint64(v)
		}
	}
	return out
}

// Lines is the number of lines read (a last line without a newline counts).
func (m *Manifest) Lines() uint64 {
	if m.m == nil {
		return 0
	}
	return uint64(C.merkle_manifest_lines(m.m))
}

// DirRoot sorts the entries by name bytes and returns the directory root: the RFC 6962
// SHA-256 root of their leaves (docs/manifest.md). Duplicate names are ErrFormat.
func (m *Manifest) DirRoot() ([32]byte, error) {
	var out [32]byte
	if err := m.live("Manifest.DirRoot"); err != nil {
		return out, err
	}
	var e C.merkle_error
	err := checkErr("Manifest.DirRoot", C.merkle_manifest_dirroot(h32(&out), m.m, &e), &e)
	return out, err
}

// CheckStatus is the verdict on one file.
type CheckStatus int

// The verdicts of Check.
const (
	CheckOK       CheckStatus = C.MERKLE_CHECK_OK       // the digest matched
	CheckMismatch CheckStatus = C.MERKLE_CHECK_MISMATCH // the digest did not match
	CheckMissing  CheckStatus = C.MERKLE_CHECK_MISSING  // the file does not exist
	CheckError    CheckStatus = C.MERKLE_CHECK_ERROR    // open or read failed (Errno)
)

// CheckResult is the verdict on one entry of a manifest.
type CheckResult struct {
	Status    CheckStatus
	Errno     int    // CheckError (and CheckMissing): the system error number
	FromCache bool   // CheckOK from the validation cache, without reading the file
	Size      uint64 // bytes hashed (0 from the cache or on error)
	Digest    []byte // the digest computed (CheckOK, CheckMismatch)
}

// CheckOptions are the options of Check; the zero value checks in the current directory
// with one thread per CPU and no cache.
type CheckOptions struct {
	Dir     string // names are relative to this directory ("": the current one)
	Threads int    // 0: one per online CPU
	Cache   *Cache // optional: skip unchanged verified files, record new OKs
}

// checkBatch is how many entries one C call checks between two looks at the context.
const checkBatch = 4096

// Check hashes every listed file (many in flight, MD5 through the multi-buffer engine) and
// returns one result per entry, in entry order. Per-file failures are results, not errors.
// ctx is looked at between batches of 4,096 entries: a cancelled check returns ctx.Err()
// with the results so far.
func (m *Manifest) Check(ctx context.Context, o CheckOptions) ([]CheckResult, error) {
	if err := m.live("Manifest.Check"); err != nil {
		return nil, err
	}
	if o.Threads < 0 {
		return nil, &Error{Op: "Manifest.Check", Status: ErrArg}
	}
	var opts C.merkle_check_opts
	if err := check("Manifest.Check", C.merkle_check_opts_init(&opts, C.MERKLE_CHECK_OPTS_VERSION)); err != nil {
		return nil, err
	}
	if o.Dir != "" {
		if strings.IndexByte(o.Dir, 0) >= 0 {
			return nil, &Error{Op: "Manifest.Check", Status: ErrArg, Detail: "NUL in the directory name"}
		}
		dir := C.CString(o.Dir)
		defer C.free(unsafe.Pointer(dir))
		opts.dir = dir
	}
	opts.threads = C.unsigned(o.Threads)
	if o.Cache != nil {
		if err := o.Cache.live("Manifest.Check"); err != nil {
			return nil, err
		}
		opts.cache = o.Cache.c
	}
	ce := m.centries()
	out := make([]CheckResult, len(ce))
	res := (*C.merkle_check_result)(C.malloc(C.size_t(checkBatch) * C.size_t(unsafe.Sizeof(C.merkle_check_result{}))))
	if res == nil {
		return nil, &Error{Op: "Manifest.Check", Status: ErrNoMem}
	}
	defer C.free(unsafe.Pointer(res))
	rs := unsafe.Slice(res, checkBatch)
	for lo := 0; lo < len(ce); lo += checkBatch {
		if err := ctx.Err(); err != nil {
			return out[:lo], err
		}
		hi := lo + checkBatch
		if hi > len(ce) {
			hi = len(ce)
		}
		var e C.merkle_error
		s := C.merkle_manifest_check(res, &ce[lo], C.size_t(hi-lo), &opts, &e)
		if err := checkErr("Manifest.Check", s, &e); err != nil {
			return out[:lo], err
		}
		for i := lo; i < hi; i++ {
			r := &rs[i-lo]
			out[i] = CheckResult{Status: CheckStatus(r.status), Errno: int(r.sys_errno), FromCache: r.from_cache != 0, Size: uint64(r.size)}
			if r.status == C.MERKLE_CHECK_OK || r.status == C.MERKLE_CHECK_MISMATCH {
				out[i].Digest = goBytes(unsafe.Pointer(&r.digest[0]), C.size_t(ce[i].digest_len))
			}
		}
	}
	return out, nil
}

// Cache is a validation cache (docs/manifest.md): files whose identity and stat are
// unchanged since they verified are not read again. It holds C memory: Close it.
type Cache struct {
	c    *C.merkle_vcache
	path string
}

// OpenCache creates a cache keyed with key (nil: unkeyed; with a key every entry carries an
// HMAC-SHA-256 and entries without a valid one are ignored) and loads path into it (a
// missing file is an empty cache). A path that is not a cache (a symbolic link, a manifest,
// a directory...) is ErrUnsafe: nothing is loaded and Save refuses it too. A corrupt cache is
// ErrFormat, returned with a usable empty Cache (check everything; Save replaces it).
func OpenCache(path string, key []byte) (*Cache, error) {
	if path == "" || strings.IndexByte(path, 0) >= 0 {
		return nil, &Error{Op: "OpenCache", Status: ErrArg}
	}
	var c *C.merkle_vcache
	if err := check("OpenCache", C.merkle_vcache_alloc(&c, u8(key), C.size_t(len(key)))); err != nil {
		return nil, err
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var e C.merkle_error
	s := C.merkle_vcache_load(nil, nil, c, cp, &e)
	if s == C.MERKLE_OK || s == C.MERKLE_ERR_FORMAT {
		return &Cache{c: c, path: path}, checkErr("OpenCache", s, &e)
	}
	C.merkle_vcache_free(c)
	return nil, checkErr("OpenCache", s, &e)
}

// Len is the number of entries.
func (c *Cache) Len() int {
	if c.c == nil {
		return 0
	}
	return int(C.merkle_vcache_count(c.c))
}

// Save writes the cache back to its path, atomically and durably, when it changed (merging
// what another process saved meanwhile). It never writes over a file that is not a cache.
func (c *Cache) Save() error {
	if err := c.live("Cache.Save"); err != nil {
		return err
	}
	cp := C.CString(c.path)
	defer C.free(unsafe.Pointer(cp))
	var e C.merkle_error
	return checkErr("Cache.Save", C.merkle_vcache_save(c.c, cp, &e), &e)
}

// Close releases the cache without saving it. Calling it twice, or on nil, is harmless.
func (c *Cache) Close() {
	if c != nil && c.c != nil {
		C.merkle_vcache_free(c.c)
		c.c = nil
	}
}

func (c *Cache) live(op string) error {
	if c == nil || c.c == nil {
		return &Error{Op: op, Status: ErrState, Detail: "cache is closed"}
	}
	return nil
}

// VerifiedReader reads files of a manifest and hands out their contents only when they hash
// to the manifest's digest. Safe for concurrent use. It holds C memory: Close it.
type VerifiedReader struct {
	r *C.merkle_vreader
}

// NewVerifiedReader returns a reader over m's entries (copied: m may be closed afterwards)
// for names relative to dir ("": the current directory). budget bounds the verified
// contents kept in memory to serve unchanged files without reading them (0: keep nothing).
// Duplicate names are ErrFormat.
func NewVerifiedReader(m *Manifest, dir string, budget int) (*VerifiedReader, error) {
	if err := m.live("NewVerifiedReader"); err != nil {
		return nil, err
	}
	if budget < 0 || strings.IndexByte(dir, 0) >= 0 {
		return nil, &Error{Op: "NewVerifiedReader", Status: ErrArg}
	}
	var cdir *C.char
	if dir != "" {
		cdir = C.CString(dir)
		defer C.free(unsafe.Pointer(cdir))
	}
	var r *C.merkle_vreader
	var e C.merkle_error
	if err := checkErr("NewVerifiedReader", C.merkle_vreader_alloc(&r, m.m, cdir, C.size_t(budget), &e), &e); err != nil {
		return nil, err
	}
	return &VerifiedReader{r: r}, nil
}

// ReadFile returns the contents of the listed file name if, and only if, they hash to its
// digest: ErrVerify when they do not (nothing is returned), ErrArg for a name not listed,
// ErrIO when it cannot be read.
func (v *VerifiedReader) ReadFile(name string) ([]byte, error) {
	if v == nil || v.r == nil {
		return nil, &Error{Op: "VerifiedReader.ReadFile", Status: ErrState, Detail: "reader is closed"}
	}
	if strings.IndexByte(name, 0) >= 0 {
		return nil, &Error{Op: "VerifiedReader.ReadFile", Status: ErrArg, Detail: "NUL in the name"}
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var data *C.uint8_t
	var n C.size_t
	var buf *C.merkle_vbuf
	var e C.merkle_error
	if err := checkErr("VerifiedReader.ReadFile", C.merkle_vreader_read(&data, &n, &buf, nil, v.r, cn, &e), &e); err != nil {
		return nil, err
	}
	defer C.merkle_vbuf_free(buf)
	return goBytes(unsafe.Pointer(data), n), nil
}

// Open returns an io.Reader over the verified contents of name (see ReadFile).
func (v *VerifiedReader) Open(name string) (io.Reader, error) {
	b, err := v.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(b), nil
}

// Close releases the reader. Calling it twice, or on nil, is harmless.
func (v *VerifiedReader) Close() {
	if v != nil && v.r != nil {
		C.merkle_vreader_free(v.r)
		v.r = nil
	}
}
