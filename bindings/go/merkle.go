// SPDX-License-Identifier: MIT OR Apache-2.0

// Package merkle is the Go binding of libmerkle, a C library of Merkle trees and proofs:
// roots of byte-slice lists, of buffers and of io.Readers for the RFC 6962 and Sia
// profiles, a streaming Tree (an io.Writer), RFC 6962/9162 inclusion and consistency proofs,
// Sia range proofs and compact ranges. Every digest is computed by the C library (cgo,
// linked through pkg-config: see the module's README).
//
// Errors wrap the library's status: errors.Is(err, merkle.ErrVerify) tells a proof that does
// not verify from a malformed argument (merkle.ErrArg) or an index out of range
// (merkle.ErrRange). Digests are [32]byte. No call keeps a Go pointer in C memory. The tree
// values hold no C memory; Trie, Manifest, Cache and VerifiedReader do, and have a Close.
//
// The drop-in packages under this module (cometbft/merkle, sia/merkletree,
// transparency/...) reproduce the APIs of CometBFT, Sia and transparency-dev/merkle on top
// of this package.
package merkle

/*
#include <merkle/merkle.h>
merkle_status gm_root_list(uint8_t *out, int profile, int hash, const uint8_t *base,
                            const size_t *lens, size_t n);
merkle_status gm_leaf_hashes(uint8_t *out, int hash, const uint8_t *base, const size_t *lens,
                              size_t n);
*/
import "C"

import (
	"context"
	"fmt"
	"io"
	"unsafe"
)

// Status is a libmerkle status code (merkle_status). The non-zero codes are the sentinel
// errors below; an *Error wraps one of them.
type Status int

// The library's failure statuses, usable with errors.Is.
const (
	ErrArg         Status = C.MERKLE_ERR_ARG         // an argument is invalid
	ErrBuffer      Status = C.MERKLE_ERR_BUFFER      // an output buffer is too small
	ErrFormat      Status = C.MERKLE_ERR_FORMAT      // input is malformed
	ErrVerify      Status = C.MERKLE_ERR_VERIFY      // a proof or digest did not verify
	ErrIO          Status = C.MERKLE_ERR_IO          // reading or writing failed
	ErrNoMem       Status = C.MERKLE_ERR_NOMEM       // an allocation failed
	ErrRange       Status = C.MERKLE_ERR_RANGE       // an index, size or count is out of range
	ErrLimit       Status = C.MERKLE_ERR_LIMIT       // a caller-set limit was reached
	ErrUnsupported Status = C.MERKLE_ERR_UNSUPPORTED // not available in this build or CPU
	ErrState       Status = C.MERKLE_ERR_STATE       // the object does not allow this call now
	ErrUnsafe      Status = C.MERKLE_ERR_UNSAFE      // refused: acting would overwrite what is not ours
)

// Error returns the library's static message for the status (merkle_strerror).
func (s Status) Error() string { return C.GoString(C.merkle_strerror(C.merkle_status(s))) }

// Error is a failed library call: the operation, its status and the library's detail.
type Error struct {
	Op     string // the binding's function, e.g. "RootList"
	Status Status // the library's status
	Detail string // merkle_error's message when the call gives one, else ""
}

// Error formats "merkle: Op: message[: detail]".
func (e *Error) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("merkle: %s: %s: %s", e.Op, e.Status.Error(), e.Detail)
	}
	return fmt.Sprintf("merkle: %s: %s", e.Op, e.Status.Error())
}

// Unwrap returns the Status, so that errors.Is(err, merkle.ErrVerify) works.
func (e *Error) Unwrap() error { return e.Status }

func check(op string, s C.merkle_status) error {
	if s == C.MERKLE_OK {
		return nil
	}
	return &Error{Op: op, Status: Status(s)}
}

func checkErr(op string, s C.merkle_status, e *C.merkle_error) error {
	if s == C.MERKLE_OK {
		return nil
	}
	return &Error{Op: op, Status: Status(s), Detail: C.GoString(&e.message[0])}
}

// Version is the version of the linked libmerkle ("MAJOR.MINOR.PATCH").
func Version() string { return C.GoString(C.merkle_version()) }

// HashAlg is a tree digest (merkle_hash_alg).
type HashAlg int

// The tree digests.
const (
	SHA256     HashAlg = C.MERKLE_HASH_SHA256
	BLAKE2b256 HashAlg = C.MERKLE_HASH_BLAKE2B_256
	Keccak256  HashAlg = C.MERKLE_HASH_KECCAK256 // original Keccak padding (Ethereum)
)

// String is the library's canonical name ("sha256", "blake2b-256", "keccak256").
func (h HashAlg) String() string {
	p := C.merkle_hash_alg_name(C.merkle_hash_alg(h))
	if p == nil {
		return fmt.Sprintf("HashAlg(%d)", int(h))
	}
	return C.GoString(p)
}

// Profile fixes a tree's prefixes and empty root (merkle_profile).
type Profile int

// The profiles. RFC6962 and Sia are the binary trees of this package; the others are the
// shaped trees of the C library's merkle/shape.h.
const (
	RFC6962      Profile = C.MERKLE_PROFILE_RFC6962      // RFC 6962/9162; empty root H("")
	Sia          Profile = C.MERKLE_PROFILE_SIA          // Sia crypto.MerkleRoot; empty root 32 zero bytes
	Bitcoin      Profile = C.MERKLE_PROFILE_BITCOIN      // block transaction tree
	SSZ          Profile = C.MERKLE_PROFILE_SSZ          // Ethereum hash_tree_root
	OpenZeppelin Profile = C.MERKLE_PROFILE_OPENZEPPELIN // @openzeppelin/merkle-tree
	BitTorrentV2 Profile = C.MERKLE_PROFILE_BITTORRENT_V2
)

// String is the library's canonical name ("rfc6962", "sia", ...).
func (p Profile) String() string {
	s := C.merkle_profile_name(C.merkle_profile(p))
	if s == nil {
		return fmt.Sprintf("Profile(%d)", int(p))
	}
	return C.GoString(s)
}

// Defaults returns the profile's default digest and stream leaf size.
func (p Profile) Defaults() (HashAlg, int, error) {
	var h C.merkle_hash_alg
	var ls C.size_t
	if err := check("Profile.Defaults", C.merkle_profile_defaults(&h, &ls, C.merkle_profile(p))); err != nil {
		return 0, 0, err
	}
	return HashAlg(h), int(ls), nil
}

// Sum returns the digest alg(data).
func Sum(alg HashAlg, data []byte) ([32]byte, error) {
	var out [32]byte
	err := check("Sum", C.merkle_hash(h32(&out), C.merkle_hash_alg(alg), unsafe.Pointer(u8(data)), C.size_t(len(data))))
	return out, err
}

// LeafHash returns H(0x00 || data).
func LeafHash(alg HashAlg, data []byte) ([32]byte, error) {
	var out [32]byte
	err := check("LeafHash", C.merkle_tree_leaf_hash(h32(&out), C.merkle_hash_alg(alg), unsafe.Pointer(u8(data)), C.size_t(len(data))))
	return out, err
}

// NodeHash returns H(0x01 || left || right).
func NodeHash(alg HashAlg, left, right [32]byte) ([32]byte, error) {
	var out [32]byte
	err := check("NodeHash", C.merkle_tree_node_hash(h32(&out), C.merkle_hash_alg(alg), h32(&left), h32(&right)))
	return out, err
}

// EmptyRoot returns the root of the empty tree: H("") for RFC6962, 32 zero bytes for Sia.
func EmptyRoot(p Profile, alg HashAlg) ([32]byte, error) {
	var out [32]byte
	err := check("EmptyRoot", C.merkle_tree_empty_root(h32(&out), C.merkle_profile(p), C.merkle_hash_alg(alg)))
	return out, err
}

// LeafHashes returns H(0x00 || item) of every item, in one library call (one batch call
// when the items have equal lengths).
func LeafHashes(alg HashAlg, items [][]byte) ([][32]byte, error) {
	out := make([][32]byte, len(items)+1)
	pk, err := packed(items)
	if err != nil {
		return nil, err
	}
	defer pk.free()
	err = check("LeafHashes", C.gm_leaf_hashes((*C.uint8_t)(unsafe.Pointer(&out[0])), C.int(alg), pk.buf, pk.lens, C.size_t(len(items))))
	return out[:len(items)], err
}

// RootList returns the root of the tree whose leaves are items (CometBFT's
// HashFromByteSlices for RFC6962 with SHA256). No items give the profile's empty root.
func RootList(p Profile, alg HashAlg, items [][]byte) ([32]byte, error) {
	var out [32]byte
	pk, err := packed(items)
	if err != nil {
		return out, err
	}
	defer pk.free()
	err = check("RootList", C.gm_root_list(h32(&out), C.int(p), C.int(alg), pk.buf, pk.lens, C.size_t(len(items))))
	return out, err
}

// RootBytes returns the root of data cut into leafSize-byte leaves (the last one short).
// Empty data gives the profile's empty root.
func RootBytes(p Profile, alg HashAlg, leafSize int, data []byte) ([32]byte, error) {
	var out [32]byte
	if leafSize <= 0 {
		return out, &Error{Op: "RootBytes", Status: ErrArg}
	}
	err := check("RootBytes", C.merkle_tree_root_bytes(h32(&out), C.merkle_profile(p), C.merkle_hash_alg(alg), C.size_t(leafSize), unsafe.Pointer(u8(data)), C.size_t(len(data))))
	return out, err
}

// RootBytesParallel is RootBytes on the given number of threads (the same root for every
// thread count).
func RootBytesParallel(p Profile, alg HashAlg, leafSize int, data []byte, threads int) ([32]byte, error) {
	var out [32]byte
	if leafSize <= 0 || threads < 0 {
		return out, &Error{Op: "RootBytesParallel", Status: ErrArg}
	}
	err := check("RootBytesParallel", C.merkle_tree_root_bytes_parallel(h32(&out), C.merkle_profile(p), C.merkle_hash_alg(alg), C.size_t(leafSize), unsafe.Pointer(u8(data)), C.size_t(len(data)), C.unsigned(threads)))
	return out, err
}

// readChunk is how much RootReader reads per call (a multiple of every leaf size that
// divides 1 MiB).
const readChunk = 1 << 20

// RootReader returns the root of everything r yields, cut into leafSize-byte leaves, and the
// number of leaves. It reads in 1 MiB pieces and stops early when ctx is done
// (ctx.Err() is returned).
func RootReader(ctx context.Context, p Profile, alg HashAlg, leafSize int, r io.Reader) ([32]byte, uint64, error) {
	t, err := NewTree(p, alg, leafSize)
	if err != nil {
		return [32]byte{}, 0, err
	}
	buf := make([]byte, readChunk)
	for {
		if err := ctx.Err(); err != nil {
			return [32]byte{}, 0, err
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if _, err := t.Write(buf[:n]); err != nil {
				return [32]byte{}, 0, err
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return [32]byte{}, 0, rerr
		}
	}
	count := t.Count()
	root, err := t.Root()
	return root, count, err
}

// Tree is a streaming tree builder (merkle_tree): O(log n) memory whatever the input. Push
// whole leaves (PushLeaf, PushLeafHash) or stream bytes that are cut into leaves (Write).
// The state is plain Go memory: a Tree needs no Close. A Tree is not safe for concurrent use.
type Tree struct {
	mem []uint64 // the merkle_tree struct (8-byte aligned, no Go pointers)
}

func (t *Tree) c() *C.merkle_tree { return (*C.merkle_tree)(unsafe.Pointer(&t.mem[0])) }

// NewTree starts a tree. leafSize is the cut for Write (> 0; Profile.Defaults gives the
// profile's). Only the RFC6962 and Sia profiles.
func NewTree(p Profile, alg HashAlg, leafSize int) (*Tree, error) {
	if leafSize <= 0 {
		return nil, &Error{Op: "NewTree", Status: ErrArg}
	}
	t := &Tree{mem: make([]uint64, (uintptr(C.merkle_tree_struct_size())+7)/8)}
	if err := check("NewTree", C.merkle_tree_init(t.c(), C.merkle_profile(p), C.merkle_hash_alg(alg), C.size_t(leafSize))); err != nil {
		return nil, err
	}
	return t, nil
}

// Write appends stream bytes (io.Writer); a leaf may span calls.
func (t *Tree) Write(b []byte) (int, error) {
	if err := check("Tree.Write", C.merkle_tree_write(t.c(), unsafe.Pointer(u8(b)), C.size_t(len(b)))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// PushLeaf appends one whole leaf of any length.
func (t *Tree) PushLeaf(leaf []byte) error {
	return check("Tree.PushLeaf", C.merkle_tree_push_leaf(t.c(), unsafe.Pointer(u8(leaf)), C.size_t(len(leaf))))
}

// PushLeafHash appends a leaf by its hash H(0x00 || leaf).
func (t *Tree) PushLeafHash(h [32]byte) error {
	return check("Tree.PushLeafHash", C.merkle_tree_push_leaf_hash(t.c(), h32(&h)))
}

// Count is the number of leaves so far (a started partial stream leaf counts).
func (t *Tree) Count() uint64 { return uint64(C.merkle_tree_leaf_count(t.c())) }

// Root finishes the tree and returns its root (the profile's empty root when nothing was
// pushed). After Root the Tree accepts nothing more (ErrState).
func (t *Tree) Root() ([32]byte, error) {
	var out [32]byte
	err := check("Tree.Root", C.merkle_tree_root(h32(&out), nil, t.c()))
	return out, err
}

// errArg is a convenience for argument errors found on the Go side.
func errArg(op string) error { return &Error{Op: op, Status: ErrArg} }
