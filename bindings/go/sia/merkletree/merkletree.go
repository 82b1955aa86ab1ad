// SPDX-License-Identifier: MIT OR Apache-2.0

// Package merkletree is a drop-in for Sia's merkletree (gitlab.com/NebulousLabs/merkletree,
// github.com/NebulousLabs/merkletree) on libmerkle: ReaderRoot, BuildReaderProof,
// VerifyProof, Tree (New, Push, PushSubTree, Root, SetIndex, Prove, ReadAll) and CachedTree,
// with upstream's results (a nil root for no leaves), proof sets (proofSet[0] the raw
// segment, then the sibling hashes bottom-up) and errors.
//
//	import "gitlab.com/NebulousLabs/merkletree"  ->  import "merkle.local/go/sia/merkletree"
//
// The hash.Hash argument selects the digest as upstream: SHA-256 (crypto/sha256.New()) and
// BLAKE2b-256 (golang.org/x/crypto/blake2b.New256(nil)) are recognised (by size, block size
// and a probe hashed once per call) and then computed by libmerkle; ReaderRoot and
// BuildReaderProof stream the whole input through the C library. Any other hash.Hash is
// called through its interface.
package merkletree

import (
	"bytes"
	"context"
	"errors"
	"hash"
	"io"

	core "merkle.local/go"
)

var probe = []byte("libmerkle: which digest is this hash.Hash?")

// algOf returns the libmerkle digest that h computes, or 0. h is Reset.
func algOf(h hash.Hash) core.HashAlg {
	if h == nil || h.Size() != 32 {
		return 0
	}
	h.Reset()
	h.Write(probe)
	got := h.Sum(nil)
	h.Reset()
	for _, a := range []core.HashAlg{core.SHA256, core.BLAKE2b256} {
		want, err := core.Sum(a, probe)
		if err == nil && bytes.Equal(got, want[:]) && (a != core.SHA256 || h.BlockSize() == 64) && (a != core.BLAKE2b256 || h.BlockSize() == 128) {
			return a
		}
	}
	return 0
}

// hasher hashes leaves and nodes with libmerkle (alg != 0) or through h.
type hasher struct {
	h   hash.Hash
	alg core.HashAlg
}

func newHasher(h hash.Hash) hasher { return hasher{h: h, alg: algOf(h)} }

func (x hasher) sum(parts ...[]byte) []byte {
	x.h.Reset()
	for _, p := range parts {
		x.h.Write(p)
	}
	return x.h.Sum(nil)
}

func (x hasher) leaf(data []byte) []byte {
	if x.alg != 0 {
		r, _ := core.LeafHash(x.alg, data)
		return r[:]
	}
	return x.sum([]byte{0}, data)
}

func (x hasher) node(a, b []byte) []byte {
	if x.alg != 0 && len(a) == 32 && len(b) == 32 {
		r, _ := core.NodeHash(x.alg, *(*[32]byte)(a), *(*[32]byte)(b))
		return r[:]
	}
	return x.sum([]byte{1}, a, b)
}

// ReaderRoot returns the Merkle root of the data read from r, cut into segmentSize-byte
// segments (the last one may be short); nil when r yields nothing.
func ReaderRoot(r io.Reader, h hash.Hash, segmentSize int) (root []byte, err error) {
	if alg := algOf(h); alg != 0 && segmentSize > 0 {
		rt, n, err := core.RootReader(context.Background(), core.RFC6962, alg, segmentSize, r)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, nil
		}
		return rt[:], nil
	}
	if segmentSize <= 0 {
		return nil, errors.New("merkletree: segment size must be positive")
	}
	t := New(h)
	if err := t.ReadAll(r, segmentSize); err != nil {
		return nil, err
	}
	return t.Root(), nil
}

// BuildReaderProof returns the root of the data read from r and the proof set of segment
// index: proofSet[0] is the segment, then the sibling hashes bottom-up; and the number of
// segments. An index past the end gives the error "index was not reached while creating
// proof" (with the root and count).
func BuildReaderProof(r io.Reader, h hash.Hash, segmentSize int, index uint64) (root []byte, proofSet [][]byte, numLeaves uint64, err error) {
	if alg := algOf(h); alg != 0 && segmentSize > 0 {
		path, rt, n, leaf, err := core.ProveReader(context.Background(), core.RFC6962, alg, segmentSize, r, index)
		if n > 0 {
			root = rt[:]
		}
		if errors.Is(err, core.ErrRange) {
			return root, nil, n, errors.New("index was not reached while creating proof")
		}
		if err != nil {
			return nil, nil, 0, err
		}
		proofSet = make([][]byte, 1+len(path))
		proofSet[0] = leaf
		for i := range path {
			proofSet[1+i] = path[i][:]
		}
		return root, proofSet, n, nil
	}
	if segmentSize <= 0 {
		return nil, nil, 0, errors.New("merkletree: segment size must be positive")
	}
	t := New(h)
	if err := t.SetIndex(index); err != nil {
		panic(err)
	}
	if err := t.ReadAll(r, segmentSize); err != nil {
		return nil, nil, 0, err
	}
	root, proofSet, _, numLeaves = t.Prove()
	if len(proofSet) == 0 {
		return root, nil, numLeaves, errors.New("index was not reached while creating proof")
	}
	return root, proofSet, numLeaves, nil
}

// VerifyProof tells whether proofSet (the segment, then the sibling hashes bottom-up) proves
// segment proofIndex of a tree of numLeaves segments with root merkleRoot.
func VerifyProof(h hash.Hash, merkleRoot []byte, proofSet [][]byte, proofIndex uint64, numLeaves uint64) bool {
	if merkleRoot == nil || proofIndex >= numLeaves || len(proofSet) == 0 {
		return false
	}
	x := newHasher(h)
	if x.alg != 0 && len(merkleRoot) == 32 {
		path := make([][32]byte, len(proofSet)-1)
		ok := true
		for i, p := range proofSet[1:] {
			ok = ok && len(p) == 32
			copy(path[i][:], p)
		}
		if ok {
			return core.VerifySia(x.alg, *(*[32]byte)(merkleRoot), numLeaves, proofIndex, proofSet[0], path) == nil
		}
	}
	// RFC 9162 section 2.1.3.2 over the hash.Hash, with the exact path length.
	path := proofSet[1:]
	if len(path) != core.InclusionPathLen(proofIndex, numLeaves) {
		return false
	}
	fn, sn := proofIndex, numLeaves-1
	r := x.leaf(proofSet[0])
	for _, p := range path {
		if fn&1 == 1 || fn == sn {
			r = x.node(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = x.node(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	return bytes.Equal(r, merkleRoot)
}

// sum, leafSum and nodeSum hash through h as upstream's helpers of the same names (kept for
// code written against upstream's package internals, such as its tests).
func sum(h hash.Hash, data ...[]byte) []byte  { return hasher{h: h}.sum(data...) }
func leafSum(h hash.Hash, data []byte) []byte { return sum(h, []byte{0}, data) }
func nodeSum(h hash.Hash, a, b []byte) []byte { return sum(h, []byte{1}, a, b) }
