// SPDX-License-Identifier: MIT OR Apache-2.0

// Package proof is a drop-in for the verifiers of github.com/transparency-dev/merkle/proof:
// VerifyInclusion, VerifyConsistency, RootFromInclusionProof, RootFromConsistencyProof,
// VerifySubtreeInclusion and RootMismatchError, with upstream's rules (exact proof lengths,
// 0 < size1 <= size2) and error messages. With rfc6962.DefaultHasher and 32-byte hashes a
// proof is verified by libmerkle in one call; a proof that fails (or another hasher) goes
// through the RFC 9162 algorithm written here in Go over the LogHasher, which also words
// the error.
//
// Not provided: the proof builders (Inclusion, Consistency, Nodes) and the subtree
// consistency functions of recent upstream versions.
package proof

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"

	core "merkle.local/go"
	merkle "merkle.local/go/transparency"
	"merkle.local/go/transparency/rfc6962"
)

// RootMismatchError occurs when a proof gives a root other than the expected one.
type RootMismatchError struct {
	ExpectedRoot   []byte
	CalculatedRoot []byte
}

// Error prints both roots.
func (e RootMismatchError) Error() string {
	return fmt.Sprintf("calculated root:\n%v\n does not match expected root:\n%v", e.CalculatedRoot, e.ExpectedRoot)
}

func match(calculated, expected []byte) error {
	if !bytes.Equal(calculated, expected) {
		return RootMismatchError{ExpectedRoot: expected, CalculatedRoot: calculated}
	}
	return nil
}

func fast(hasher merkle.LogHasher, hs ...[]byte) bool {
	if !rfc6962.IsLibmerkleSHA256(hasher) {
		return false
	}
	for _, h := range hs {
		if len(h) != 32 {
			return false
		}
	}
	return true
}

func path32(proof [][]byte) ([][32]byte, bool) {
	out := make([][32]byte, len(proof))
	for i, p := range proof {
		if len(p) != 32 {
			return nil, false
		}
		copy(out[i][:], p)
	}
	return out, true
}

// VerifyInclusion verifies the inclusion proof of the leaf with hash leafHash at index in
// the tree of the given size and root. Requires 0 <= index < size.
func VerifyInclusion(hasher merkle.LogHasher, index, size uint64, leafHash []byte, proof [][]byte, root []byte) error {
	if fast(hasher, leafHash, root) {
		if p, ok := path32(proof); ok && core.VerifyInclusion(core.SHA256, *(*[32]byte)(root), size, index, *(*[32]byte)(leafHash), p) == nil {
			return nil
		}
	}
	calc, err := RootFromInclusionProof(hasher, index, size, leafHash, proof)
	if err != nil {
		return err
	}
	return match(calc, root)
}

// VerifySubtreeInclusion verifies an inclusion proof of the leaf at index relative to the
// subtree [start, end) with root root. start must be a multiple of the smallest power of
// two >= end - start.
func VerifySubtreeInclusion(hasher merkle.LogHasher, index, start, end uint64, leafHash []byte, proof [][]byte, root []byte) error {
	if err := subtreeValid(start, end); err != nil {
		return fmt.Errorf("subtree invalid: %v", err)
	}
	if index < start || index >= end {
		return fmt.Errorf("index %d out of bounds for subtree [%d, %d)", index, start, end)
	}
	return VerifyInclusion(hasher, index-start, end-start, leafHash, proof, root)
}

func subtreeValid(start, end uint64) error {
	// [start, end) must be a node's leftmost leaves: start a multiple of the smallest power
	// of two >= end - start (an empty range, or one from 0, always is).
	switch {
	case start > end:
		return fmt.Errorf("start %d must be less than or equal to end %d", start, end)
	case start == 0 || start == end:
		return nil
	case end-start > 1<<63:
		return fmt.Errorf("start %d must be 0 when subtree length %d > 1<<63", start, end-start)
	}
	ceil := uint64(1)
	if n := end - start; n > 1 {
		ceil = 1 << uint(bits.Len64(n-1))
	}
	if start&(ceil-1) != 0 {
		return fmt.Errorf("start %d not a multiple of bit_ceil(end - start) = %d", start, ceil)
	}
	return nil
}

// RootFromInclusionProof returns the root that the inclusion proof gives for the leaf hash
// at index in a tree of size leaves. Requires 0 <= index < size.
func RootFromInclusionProof(hasher merkle.LogHasher, index, size uint64, leafHash []byte, proof [][]byte) ([]byte, error) {
	if index >= size {
		return nil, fmt.Errorf("index is beyond size: %d >= %d", index, size)
	}
	if got, want := len(leafHash), hasher.Size(); got != want {
		return nil, fmt.Errorf("leafHash has unexpected size %d, want %d", got, want)
	}
	if got, want := len(proof), core.InclusionPathLen(index, size); got != want {
		return nil, fmt.Errorf("wrong proof size %d, want %d", got, want)
	}
	if fast(hasher, leafHash) {
		if p, ok := path32(proof); ok {
			r, err := core.RootFromPath(core.SHA256, size, index, *(*[32]byte)(leafHash), p)
			if err == nil {
				return r[:], nil
			}
		}
	}
	// RFC 9162 section 2.1.3.2, over the LogHasher.
	fn, sn := index, size-1
	r := leafHash
	for _, p := range proof {
		if fn&1 == 1 || fn == sn {
			r = hasher.HashChildren(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = hasher.HashChildren(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	return r, nil
}

// VerifyConsistency checks the consistency proof between the trees of size1 and size2
// leaves with roots root1 and root2. Requires 0 < size1 <= size2.
func VerifyConsistency(hasher merkle.LogHasher, size1, size2 uint64, proof [][]byte, root1, root2 []byte) error {
	if size1 != size2 && fast(hasher, root1, root2) {
		if p, ok := path32(proof); ok && core.VerifyConsistency(core.SHA256, *(*[32]byte)(root1), *(*[32]byte)(root2), size1, size2, p) == nil {
			return nil
		}
	}
	hash2, err := RootFromConsistencyProof(hasher, size1, size2, proof, root1)
	if err != nil {
		return err
	}
	return match(hash2, root2)
}

// RootFromConsistencyProof returns the root of the tree of size2 leaves that the proof gives
// from the tree of size1 leaves with root root1 (and checks that the proof also gives root1).
// Requires 0 < size1 <= size2.
func RootFromConsistencyProof(hasher merkle.LogHasher, size1, size2 uint64, proof [][]byte, root1 []byte) ([]byte, error) {
	switch {
	case size2 < size1:
		return nil, fmt.Errorf("size2 (%d) < size1 (%d)", size1, size2)
	case size1 == 0:
		return nil, errors.New("consistency proof from empty tree is meaningless")
	case size1 == size2:
		if len(proof) > 0 {
			return nil, errors.New("size1=size2, but proof is not empty")
		}
		return root1, nil
	case len(proof) == 0:
		return nil, errors.New("empty proof")
	}
	if got, want := len(proof), core.ConsistencyPathLen(size1, size2); got != want {
		return nil, fmt.Errorf("wrong proof size %d, want %d", got, want)
	}
	// RFC 9162 section 2.1.4.2, over the LogHasher.
	path := proof
	if size1&(size1-1) == 0 { // a power of two: the old root is the first node
		path = append([][]byte{root1}, proof...)
	}
	fn, sn := size1-1, size2-1
	for fn&1 == 1 {
		fn >>= 1
		sn >>= 1
	}
	fr, sr := path[0], path[0]
	for _, c := range path[1:] {
		if fn&1 == 1 || fn == sn {
			fr = hasher.HashChildren(c, fr)
			sr = hasher.HashChildren(c, sr)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			sr = hasher.HashChildren(sr, c)
		}
		fn >>= 1
		sn >>= 1
	}
	if err := match(fr, root1); err != nil {
		return nil, err
	}
	return sr, nil
}
