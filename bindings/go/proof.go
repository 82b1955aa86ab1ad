// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

/*
#include <stdlib.h>
#include <merkle/merkle.h>
merkle_status gm_levels(uint8_t *buf, int hash, uint64_t n, uint64_t *total);
merkle_status gm_root_from_path(uint8_t *out, int hash, uint64_t index, uint64_t size,
                                const uint8_t *leaf, const uint8_t *path, size_t len);
merkle_status gm_compact_append_hashes(merkle_compact_range *r, const uint8_t *hashes, size_t n);
merkle_status gm_all_proofs(uint8_t *root, uint8_t *leaf_hashes, uint8_t *paths, size_t cap,
                            uint64_t *offsets, int hash, const uint8_t *base, const size_t *lens,
                            size_t n);
*/
import "C"

import (
	"context"
	"io"
	"math/bits"
	"unsafe"
)

// InclusionProof returns the RFC 9162 audit path (bottom-up) of leaf index among the given
// leaf hashes, and the root. ErrRange when index >= len(leafHashes).
func InclusionProof(alg HashAlg, leafHashes [][32]byte, index uint64) (path [][32]byte, root [32]byte, err error) {
	n := uint64(len(leafHashes))
	want := C.merkle_proof_inclusion_path_len(C.uint64_t(index), C.uint64_t(n))
	path = make([][32]byte, want+1)
	var plen C.size_t
	err = check("InclusionProof", C.merkle_proof_inclusion_path(hs(path), C.size_t(len(path)), &plen, h32(&root), C.merkle_hash_alg(alg), hs(leafHashes), C.uint64_t(n), C.uint64_t(index)))
	if err != nil {
		return nil, [32]byte{}, err
	}
	return path[:plen], root, nil
}

// ConsistencyProof returns the RFC 9162 consistency proof from the first oldSize leaves to
// all of leafHashes, with the two roots. ErrRange for oldSize 0 or > len(leafHashes).
func ConsistencyProof(alg HashAlg, leafHashes [][32]byte, oldSize uint64) (path [][32]byte, oldRoot, newRoot [32]byte, err error) {
	n := uint64(len(leafHashes))
	want := C.merkle_proof_consistency_path_len(C.uint64_t(oldSize), C.uint64_t(n))
	path = make([][32]byte, want+1)
	var plen C.size_t
	err = check("ConsistencyProof", C.merkle_proof_consistency_path(hs(path), C.size_t(len(path)), &plen, h32(&oldRoot), h32(&newRoot), C.merkle_hash_alg(alg), hs(leafHashes), C.uint64_t(n), C.uint64_t(oldSize)))
	if err != nil {
		return nil, [32]byte{}, [32]byte{}, err
	}
	return path[:plen], oldRoot, newRoot, nil
}

// VerifyInclusion checks that leafHash is leaf index of the tree of size leaves with the
// given root (RFC 9162, exact path length). nil or an error wrapping ErrVerify.
func VerifyInclusion(alg HashAlg, root [32]byte, size, index uint64, leafHash [32]byte, path [][32]byte) error {
	var e C.merkle_error
	return checkErr("VerifyInclusion", C.merkle_proof_inclusion_verify(C.merkle_hash_alg(alg), h32(&root), C.uint64_t(size), C.uint64_t(index), h32(&leafHash), hs(path), C.size_t(len(path)), &e), &e)
}

// VerifyConsistency checks an RFC 9162 consistency proof between two tree heads. nil or an
// error wrapping ErrVerify (oldSize 0 included).
func VerifyConsistency(alg HashAlg, oldRoot, newRoot [32]byte, oldSize, newSize uint64, path [][32]byte) error {
	var e C.merkle_error
	return checkErr("VerifyConsistency", C.merkle_proof_consistency_verify(C.merkle_hash_alg(alg), h32(&oldRoot), h32(&newRoot), C.uint64_t(oldSize), C.uint64_t(newSize), hs(path), C.size_t(len(path)), &e), &e)
}

// RootFromPath returns the root that an audit path gives for leafHash at index in a tree of
// size leaves (RFC 9162 section 2.1.3.2). ErrVerify when index >= size or the path has the
// wrong length for them.
func RootFromPath(alg HashAlg, size, index uint64, leafHash [32]byte, path [][32]byte) ([32]byte, error) {
	var out [32]byte
	var p *C.uint8_t
	if len(path) > 0 {
		p = (*C.uint8_t)(unsafe.Pointer(&path[0]))
	}
	err := check("RootFromPath", C.gm_root_from_path(h32(&out), C.int(alg), C.uint64_t(index), C.uint64_t(size), h32(&leafHash), p, C.size_t(len(path))))
	return out, err
}

// Levels is a whole RFC 6962 tree in memory, built bottom-up with one batch hash call per
// level; it gives every leaf's audit path without rehashing.
type Levels struct {
	nodes  [][32]byte // level 0, then level 1, ...
	starts []int      // starts[l]: index of level l's first node
	sizes  []int
}

// BuildLevels builds the tree over the leaf hashes (at least one).
func BuildLevels(alg HashAlg, leafHashes [][32]byte) (*Levels, error) {
	n := len(leafHashes)
	if n == 0 {
		return nil, &Error{Op: "BuildLevels", Status: ErrRange}
	}
	nodes := make([][32]byte, 2*n+64)
	copy(nodes, leafHashes)
	var total C.uint64_t
	if err := check("BuildLevels", C.gm_levels((*C.uint8_t)(unsafe.Pointer(&nodes[0])), C.int(alg), C.uint64_t(n), &total)); err != nil {
		return nil, err
	}
	lv := &Levels{nodes: nodes[:total]}
	for start, m := 0, n; ; {
		lv.starts = append(lv.starts, start)
		lv.sizes = append(lv.sizes, m)
		if m == 1 {
			break
		}
		start += m
		m = (m + 1) / 2
	}
	return lv, nil
}

// Root is the tree's root.
func (lv *Levels) Root() [32]byte { return lv.nodes[len(lv.nodes)-1] }

// Count is the number of leaves.
func (lv *Levels) Count() int { return lv.sizes[0] }

// PathLen is the number of hashes in leaf i's audit path.
func (lv *Levels) PathLen(i int) int {
	k := 0
	for l := 0; l+1 < len(lv.sizes); l++ {
		if i^1 < lv.sizes[l] {
			k++
		}
		i >>= 1
	}
	return k
}

// AppendPath appends leaf i's audit path (bottom-up) to dst and returns it.
func (lv *Levels) AppendPath(dst [][32]byte, i int) [][32]byte {
	for l := 0; l+1 < len(lv.sizes); l++ {
		if j := i ^ 1; j < lv.sizes[l] {
			dst = append(dst, lv.nodes[lv.starts[l]+j])
		}
		i >>= 1
	}
	return dst
}

// Node returns node i of level l (level 0: the leaf hashes).
func (lv *Levels) Node(l, i int) [32]byte { return lv.nodes[lv.starts[l]+i] }

// RangeProof returns the Sia range proof of leaves [start, end): the roots of the subtrees
// left of start, then right of end, left to right; and the root. The input is the leaf
// hashes of the whole tree.
func RangeProof(alg HashAlg, leafHashes [][32]byte, start, end uint64) (proof [][32]byte, root [32]byte, err error) {
	var p C.merkle_prover
	if err = check("RangeProof", C.merkle_prover_init(&p, C.MERKLE_PROOF_RANGE, C.merkle_hash_alg(alg), 64, C.uint64_t(start), C.uint64_t(end))); err != nil {
		return nil, root, err
	}
	return proveHashes("RangeProof", &p, leafHashes)
}

func proveHashes(op string, p *C.merkle_prover, leafHashes [][32]byte) ([][32]byte, [32]byte, error) {
	var root [32]byte
	for i := range leafHashes {
		if err := check(op, C.merkle_prover_push_leaf_hash(p, h32(&leafHashes[i]))); err != nil {
			return nil, root, err
		}
	}
	pr := (*C.merkle_proof)(C.malloc(C.sizeof_merkle_proof))
	defer C.free(unsafe.Pointer(pr))
	if err := check(op, C.merkle_prover_finish(pr, p, C.MERKLE_PROFILE_RFC6962)); err != nil {
		return nil, root, err
	}
	out := make([][32]byte, int(pr.path_len))
	for i := range out {
		out[i] = *(*[32]byte)(unsafe.Pointer(&pr.path[i]))
	}
	root = *(*[32]byte)(unsafe.Pointer(&pr.root))
	return out, root, nil
}

// VerifyRange checks a Sia range proof: leafHashes are the hashes of leaves [start, end),
// proof the subtree roots left to right. size 0 accepts any tree size (as Sia's verifier);
// another size also requires the exact proof length of a tree of that size.
func VerifyRange(alg HashAlg, root [32]byte, size, start, end uint64, leafHashes, proof [][32]byte) error {
	if uint64(len(leafHashes)) != end-start || start >= end {
		return &Error{Op: "VerifyRange", Status: ErrRange}
	}
	var e C.merkle_error
	return checkErr("VerifyRange", C.merkle_proof_range_verify(C.merkle_hash_alg(alg), h32(&root), C.uint64_t(size), C.uint64_t(start), C.uint64_t(end), hs(leafHashes), hs(proof), C.size_t(len(proof)), &e), &e)
}

// CompactRange is the minimal list of perfect-subtree roots covering leaves [Begin, End)
// (merkle_compact_range). Ranges merge; from Begin 0 the root follows. Plain Go memory: no
// Close. Not safe for concurrent use.
type CompactRange struct {
	mem []uint64
}

func (r *CompactRange) c() *C.merkle_compact_range {
	return (*C.merkle_compact_range)(unsafe.Pointer(&r.mem[0]))
}

// NewCompactRange returns the empty range [begin, begin).
func NewCompactRange(alg HashAlg, begin uint64) (*CompactRange, error) {
	r := &CompactRange{mem: make([]uint64, (C.sizeof_merkle_compact_range+7)/8)}
	if err := check("NewCompactRange", C.merkle_compact_range_init(r.c(), C.merkle_hash_alg(alg), C.uint64_t(begin))); err != nil {
		return nil, err
	}
	return r, nil
}

// Begin is the first leaf index covered.
func (r *CompactRange) Begin() uint64 { return uint64(r.c().begin) }

// End is one past the last leaf index covered.
func (r *CompactRange) End() uint64 { return uint64(r.c().end) }

// AppendLeaf appends a leaf (hashed as H(0x00 || data)).
func (r *CompactRange) AppendLeaf(data []byte) error {
	return check("CompactRange.AppendLeaf", C.merkle_compact_range_append_leaf(r.c(), unsafe.Pointer(u8(data)), C.size_t(len(data))))
}

// AppendLeafHash appends a leaf by its hash.
func (r *CompactRange) AppendLeafHash(h [32]byte) error {
	return check("CompactRange.AppendLeafHash", C.merkle_compact_range_append_leaf_hash(r.c(), h32(&h)))
}

// AppendLeafHashes appends many leaf hashes in one library call.
func (r *CompactRange) AppendLeafHashes(hashes [][32]byte) error {
	if len(hashes) == 0 {
		return nil
	}
	return check("CompactRange.AppendLeafHashes", C.gm_compact_append_hashes(r.c(), (*C.uint8_t)(unsafe.Pointer(&hashes[0])), C.size_t(len(hashes))))
}

// AppendSubtree appends the root of the aligned perfect subtree of 2^height leaves that
// starts at End (ErrState when End is not a multiple of 2^height).
func (r *CompactRange) AppendSubtree(height uint, h [32]byte) error {
	return check("CompactRange.AppendSubtree", C.merkle_compact_range_append_subtree(r.c(), C.unsigned(height), h32(&h)))
}

// Merge appends right, which must begin where r ends (ErrState otherwise).
func (r *CompactRange) Merge(right *CompactRange) error {
	if r == right {
		return errArg("CompactRange.Merge")
	}
	return check("CompactRange.Merge", C.merkle_compact_range_merge(r.c(), right.c()))
}

// Root is the root of leaves [0, End): the range must begin at 0 and be non-empty
// (ErrState otherwise).
func (r *CompactRange) Root() ([32]byte, error) {
	var out [32]byte
	err := check("CompactRange.Root", C.merkle_compact_range_root(h32(&out), r.c()))
	return out, err
}

// Hashes returns the subtree roots, left to right, with their heights (entry i covers
// 2^heights[i] leaves).
func (r *CompactRange) Hashes() (hashes [][32]byte, heights []uint8) {
	c := r.c()
	n := int(c.count)
	hashes = make([][32]byte, n)
	heights = make([]uint8, n)
	for i := 0; i < n; i++ {
		hashes[i] = *(*[32]byte)(unsafe.Pointer(&c.hashes[i]))
		heights[i] = uint8(c.heights[i])
	}
	return hashes, heights
}

// Clone returns an independent copy.
func (r *CompactRange) Clone() *CompactRange {
	return &CompactRange{mem: append([]uint64(nil), r.mem...)}
}

// Slices exposes the tree's storage: all nodes level after level, each level's first index
// and size. The slices alias the Levels; do not modify them.
func (lv *Levels) Slices() (nodes [][32]byte, starts, sizes []int) {
	return lv.nodes, lv.starts, lv.sizes
}

// InclusionPathLen is the number of hashes in the audit path of leaf index in a tree of size
// leaves (0 when index >= size).
func InclusionPathLen(index, size uint64) int {
	return int(C.merkle_proof_inclusion_path_len(C.uint64_t(index), C.uint64_t(size)))
}

// ConsistencyPathLen is the number of hashes in the RFC 9162 consistency proof from oldSize
// to newSize (0 when they are equal or invalid).
func ConsistencyPathLen(oldSize, newSize uint64) int {
	return int(C.merkle_proof_consistency_path_len(C.uint64_t(oldSize), C.uint64_t(newSize)))
}

// AllProofs returns the root, the leaf hashes and the audit path of every leaf of the RFC
// 6962 tree over items (at least one), from one libmerkle tree with every level kept:
// paths[offsets[i]:offsets[i+1]] is the path of leaf i, bottom-up.
func AllProofs(alg HashAlg, items [][]byte) (root [32]byte, leafHashes [][32]byte, paths [][32]byte, offsets []uint64, err error) {
	n := len(items)
	if n == 0 {
		return root, nil, nil, nil, &Error{Op: "AllProofs", Status: ErrRange}
	}
	total := 0
	for i := 0; i < n; i++ { // merkle_proof_inclusion_path_len, without a cgo call per leaf
		inner := bits.Len64(uint64(i) ^ uint64(n-1))
		total += inner + bits.OnesCount64(uint64(i)>>uint(inner))
	}
	pk, err := packed(items)
	if err != nil {
		return root, nil, nil, nil, err
	}
	defer pk.free()
	leafHashes = make([][32]byte, n)
	paths = make([][32]byte, total+1)
	offsets = make([]uint64, n+1)
	err = check("AllProofs", C.gm_all_proofs(h32(&root), (*C.uint8_t)(unsafe.Pointer(&leafHashes[0])),
		(*C.uint8_t)(unsafe.Pointer(&paths[0])), C.size_t(len(paths)), (*C.uint64_t)(unsafe.Pointer(&offsets[0])),
		C.int(alg), pk.buf, pk.lens, C.size_t(n)))
	if err != nil {
		return root, nil, nil, nil, err
	}
	return root, leafHashes, paths[:total], offsets, nil
}

// ProveReader streams r, cut into leafSize-byte leaves, through libmerkle's prover and
// returns the inclusion proof of leaf index: the audit path (bottom-up), the root, the
// number of leaves and a copy of the leaf's bytes (Sia's proofSet[0]). When the stream ends
// before the leaf, the error wraps ErrRange and the root and count are still returned.
// ctx is checked between 1 MiB reads.
func ProveReader(ctx context.Context, p Profile, alg HashAlg, leafSize int, r io.Reader, index uint64) (path [][32]byte, root [32]byte, leaves uint64, leaf []byte, err error) {
	if leafSize <= 0 {
		return nil, root, 0, nil, errArg("ProveReader")
	}
	mem := make([]uint64, (uintptr(C.merkle_prover_struct_size())+7)/8)
	pr := (*C.merkle_prover)(unsafe.Pointer(&mem[0]))
	if err = check("ProveReader", C.merkle_prover_init(pr, C.MERKLE_PROOF_INCLUSION, C.merkle_hash_alg(alg), C.size_t(leafSize), C.uint64_t(index), 0)); err != nil {
		return nil, root, 0, nil, err
	}
	// Also a tree, for the root and count when the leaf is never reached.
	t, err := NewTree(p, alg, leafSize)
	if err != nil {
		return nil, root, 0, nil, err
	}
	ls := uint64(leafSize)
	lo := index * ls // the leaf's bytes: [lo, lo+ls) of the stream
	if index > (^uint64(0))/ls {
		lo = ^uint64(0)
	}
	buf := make([]byte, readChunk)
	var off uint64
	for {
		if err = ctx.Err(); err != nil {
			return nil, root, 0, nil, err
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			chunk := buf[:n]
			if e := check("ProveReader", C.merkle_prover_write(pr, unsafe.Pointer(&chunk[0]), C.size_t(n))); e != nil {
				return nil, root, 0, nil, e
			}
			if _, e := t.Write(chunk); e != nil {
				return nil, root, 0, nil, e
			}
			if end := off + uint64(n); end > lo && off < lo+ls {
				a, b := uint64(0), uint64(n)
				if lo > off {
					a = lo - off
				}
				if lo+ls < end {
					b = lo + ls - off
				}
				leaf = append(leaf, chunk[a:b]...)
			}
			off += uint64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return nil, root, 0, nil, rerr
		}
	}
	leaves = t.Count()
	if root, err = t.Root(); err != nil {
		return nil, root, leaves, nil, err
	}
	out := (*C.merkle_proof)(C.malloc(C.sizeof_merkle_proof))
	defer C.free(unsafe.Pointer(out))
	if err = check("ProveReader", C.merkle_prover_finish(out, pr, C.merkle_profile(p))); err != nil {
		return nil, root, leaves, nil, err
	}
	path = make([][32]byte, int(out.path_len))
	for i := range path {
		path[i] = *(*[32]byte)(unsafe.Pointer(&out.path[i]))
	}
	if leaf == nil {
		leaf = []byte{}
	}
	return path, root, leaves, leaf, nil
}

// VerifySia checks a Sia single-leaf proof: segment is the raw leaf (proofSet[0]), path the
// hashes after it (bottom-up). nil or an error wrapping ErrVerify.
func VerifySia(alg HashAlg, root [32]byte, numLeaves, index uint64, segment []byte, path [][32]byte) error {
	var e C.merkle_error
	return checkErr("VerifySia", C.merkle_proof_sia_verify(C.merkle_hash_alg(alg), h32(&root), C.uint64_t(numLeaves), C.uint64_t(index), unsafe.Pointer(u8(segment)), C.size_t(len(segment)), hs(path), C.size_t(len(path)), &e), &e)
}
