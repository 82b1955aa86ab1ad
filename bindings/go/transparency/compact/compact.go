// SPDX-License-Identifier: MIT OR Apache-2.0

// Package compact is a drop-in for github.com/transparency-dev/merkle/compact: compact
// ranges (the minimal list of perfect-subtree roots covering leaves [begin, end)), their
// merging and root, and the node-ID helpers.
//
// A RangeFactory whose Hash is rfc6962.DefaultHasher.HashChildren (SHA-256; recognised by
// the method and checked on a probe) gets libmerkle's compact range: appends without a
// visitor are buffered and merged in the C library in batches, and the hashes are
// converted back when Hashes, AppendRange or a visitor needs them. Any other HashFn is
// called as upstream calls it.
package compact

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/bits"
	"reflect"

	core "merkle.local/go"
	"merkle.local/go/transparency/rfc6962"
)

// HashFn computes an internal node's hash from its children.
type HashFn func(left, right []byte) []byte

// VisitFn is called for each node of the tree that a Range computes.
type VisitFn func(id NodeID, hash []byte)

// RangeFactory creates Ranges that share one HashFn.
type RangeFactory struct {
	Hash HashFn
}

var sha256Children = reflect.ValueOf(rfc6962.DefaultHasher.HashChildren).Pointer()

// libmerkle tells whether f.Hash is the rfc6962 Hasher's HashChildren with SHA-256.
func (f *RangeFactory) libmerkle() bool {
	if f == nil || f.Hash == nil || reflect.ValueOf(f.Hash).Pointer() != sha256Children {
		return false
	}
	var l, r [32]byte
	l[0], r[31] = 1, 2
	want := sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
	return bytes.Equal(f.Hash(l[:], r[:]), want[:])
}

// NewRange creates a Range for [begin, end) from the hashes of its RangeNodes.
func (f *RangeFactory) NewRange(begin, end uint64, hashes [][]byte) (*Range, error) {
	if end < begin {
		return nil, fmt.Errorf("invalid range: end=%d, want >= %d", end, begin)
	}
	if got, want := len(hashes), RangeSize(begin, end); got != want {
		return nil, fmt.Errorf("invalid hashes: got %d values, want %d", got, want)
	}
	r := &Range{f: f, begin: begin, end: end, hashes: hashes, fast: f.libmerkle()}
	return r, nil
}

// NewEmptyRange returns the empty Range [begin, begin).
func (f *RangeFactory) NewEmptyRange(begin uint64) *Range {
	return &Range{f: f, begin: begin, end: begin, fast: f.libmerkle()}
}

// batch is how many appended leaf hashes are buffered before one library call merges them.
const batch = 1024

// Range is a compact Merkle tree range [Begin, End). The zero value is not usable: create
// Ranges with a RangeFactory.
type Range struct {
	f          *RangeFactory
	begin, end uint64
	hashes     [][]byte // the subtree roots, left to right (when !inC)

	fast    bool               // the factory hashes with libmerkle's SHA-256
	inC     bool               // the state is c + pending, not hashes
	c       *core.CompactRange // [begin, end - len(pending))
	pending [][32]byte
}

// Begin returns the first index covered by the range (inclusive).
func (r *Range) Begin() uint64 { return r.begin }

// End returns the last index covered by the range (exclusive).
func (r *Range) End() uint64 { return r.end }

// Hashes returns the subtree roots of the range, left to right (RangeNodes order). The
// slice belongs to the range.
func (r *Range) Hashes() [][]byte {
	r.toGo()
	return r.hashes
}

func (r *Range) flush() {
	if len(r.pending) > 0 {
		if err := r.c.AppendLeafHashes(r.pending); err != nil {
			panic(err) // End overflowing 2^64 - 1
		}
		r.pending = r.pending[:0]
	}
}

// toGo moves the state out of the library into r.hashes.
func (r *Range) toGo() {
	if !r.inC {
		return
	}
	r.flush()
	hs, _ := r.c.Hashes()
	r.hashes = make([][]byte, len(hs))
	for i := range hs {
		h := hs[i]
		r.hashes[i] = h[:]
	}
	r.inC = false
}

// toC moves the state into a library compact range; false when a hash is not 32 bytes.
func (r *Range) toC() bool {
	if r.inC {
		return true
	}
	for _, h := range r.hashes {
		if len(h) != 32 {
			return false
		}
	}
	c, err := core.NewCompactRange(core.SHA256, r.begin)
	if err != nil {
		return false
	}
	ids := RangeNodes(r.begin, r.end, nil)
	for i, id := range ids {
		if err := c.AppendSubtree(id.Level, *(*[32]byte)(r.hashes[i])); err != nil {
			return false
		}
	}
	r.c, r.inC, r.hashes = c, true, nil
	if r.pending == nil {
		r.pending = make([][32]byte, 0, batch)
	}
	return true
}

// Append adds a leaf hash at the end of the range; visitor (may be nil) sees the leaf and
// every node this creates.
func (r *Range) Append(hash []byte, visitor VisitFn) error {
	if r.fast && visitor == nil && len(hash) == 32 && r.toC() {
		r.pending = append(r.pending, *(*[32]byte)(hash))
		r.end++
		if len(r.pending) == batch {
			r.flush()
		}
		return nil
	}
	r.toGo()
	if visitor != nil {
		visitor(NewNodeID(0, r.end), hash)
	}
	return r.merge(r.end+1, hash, nil, visitor)
}

// AppendRange appends other, which must begin where r ends and come from the same factory.
func (r *Range) AppendRange(other *Range, visitor VisitFn) error {
	if other.f != r.f {
		return errors.New("incompatible ranges")
	}
	if got, want := other.begin, r.end; got != want {
		return fmt.Errorf("ranges are disjoint: other.begin=%d, want %d", got, want)
	}
	oh := other.Hashes()
	if len(oh) == 0 {
		return nil
	}
	r.toGo()
	return r.merge(other.end, oh[0], oh[1:], visitor)
}

// GetRootHash returns the root of [0, End) (nil for an empty range); visitor (may be nil)
// sees the nodes computed on the way. The range must begin at 0.
func (r *Range) GetRootHash(visitor VisitFn) ([]byte, error) {
	if r.begin != 0 {
		return nil, fmt.Errorf("begin=%d, want 0", r.begin)
	}
	if r.end == 0 {
		return nil, nil
	}
	if r.inC && visitor == nil {
		r.flush()
		root, err := r.c.Root()
		if err != nil {
			return nil, err
		}
		return root[:], nil
	}
	r.toGo()
	hs := r.hashes
	if len(hs) == 0 {
		return nil, nil
	}
	h := hs[len(hs)-1]
	size := r.end
	for i := len(hs) - 2; i >= 0; i-- {
		h = r.f.Hash(hs[i], h)
		if visitor != nil {
			size &= size - 1 // the node just merged ends here
			level := uint(bits.TrailingZeros64(size)) + 1
			visitor(NewNodeID(level, size>>level), h)
		}
	}
	return h, nil
}

// Equal tells whether two ranges have the same factory, bounds and hashes.
func (r *Range) Equal(other *Range) bool {
	if r.f != other.f || r.begin != other.begin || r.end != other.end {
		return false
	}
	a, b := r.Hashes(), other.Hashes()
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// merge appends the range [r.end, end) whose hashes are seed, rest... (Go form).
func (r *Range) merge(end uint64, seed []byte, rest [][]byte, visitor VisitFn) error {
	low, high := getMergePath(r.begin, r.end, end)
	if high < low {
		high = low
	}
	index := r.end >> low
	steps := high - low
	ones := bits.OnesCount64(index & (1<<steps - 1))
	if n := len(r.hashes); n < ones {
		return fmt.Errorf("corrupted lhs range: got %d hashes, want >= %d", n, ones)
	}
	if n, zeros := len(rest), int(steps)-ones; n < zeros {
		return fmt.Errorf("corrupted rhs range: got %d hashes, want >= %d", n+1, zeros+1)
	}
	left, right := len(r.hashes), 0
	for lv := low; lv < high; lv++ {
		if index&1 == 0 {
			seed = r.f.Hash(seed, rest[right])
			right++
		} else {
			left--
			seed = r.f.Hash(r.hashes[left], seed)
		}
		index >>= 1
		if visitor != nil {
			visitor(NewNodeID(lv+1, index), seed)
		}
	}
	r.hashes = append(append(r.hashes[:left], seed), rest[right:]...)
	r.end = end
	return nil
}

// getMergePath returns the levels [low, high) of the nodes that merging [begin, mid) with
// [mid, end) computes: from mid's lowest set bit up to the highest level at which the two
// ranges still meet inside one aligned subtree of [begin, end).
func getMergePath(begin, mid, end uint64) (uint, uint) {
	low := bits.TrailingZeros64(mid)
	high := 64
	if begin != 0 {
		high = bits.Len64(mid ^ (begin - 1))
	}
	if h := bits.Len64((mid - 1) ^ end); h < high {
		high = h
	}
	return uint(low), uint(high - 1)
}

// Decompose splits [begin, end) into the sizes of its left and right parts: the set bits of
// left are the sizes of the subtrees left of the split point, growing; those of right the
// sizes of the subtrees after it, shrinking.
func Decompose(begin, end uint64) (uint64, uint64) {
	if begin == 0 {
		return 0, end
	}
	xbegin := begin - 1
	d := uint(bits.Len64(xbegin^end) - 1)
	mask := uint64(1)<<d - 1
	return ^xbegin & mask, end & mask
}
