// SPDX-License-Identifier: MIT OR Apache-2.0

// Package merkle is a drop-in for CometBFT's (and go-square's) crypto/merkle on libmerkle:
// the same names, signatures, roots, proofs and error messages, so that switching is an
// import-path change:
//
//	import "github.com/cometbft/cometbft/crypto/merkle"  ->  import "merkle.local/go/cometbft/merkle"
//
// The tree is RFC 6962's with SHA-256 (leaf H(0x00 || item), node H(0x01 || left || right),
// empty tree SHA-256("")). HashFromByteSlices is one library call; ProofsFromByteSlices
// hashes the leaves with one batch call and each level with one more, and its proofs share
// the hashes of one tree (as CometBFT's share their ProofNode hashes): do not write into
// LeafHash or Aunts of one proof unless it is yours alone.
//
// Not provided: ToProto/ProofFromProto and the ProofOp machinery (ProofRuntime, ValueOp,
// KeyPath), which need CometBFT's protobuf types.
package merkle

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"math/bits"

	core "merkle.local/go"
)

// MaxAunts is the maximum number of aunts that a Proof may hold (ValidateBasic).
const MaxAunts = 100

// Size is the length of every hash of this package (tmhash.Size).
const Size = sha256.Size

// HashFromByteSlices computes the Merkle root of items (SHA-256("") for none).
func HashFromByteSlices(items [][]byte) []byte {
	r, err := core.RootList(core.RFC6962, core.SHA256, items)
	if err != nil {
		panic(err) // only an allocation failure can get here
	}
	return r[:]
}

// HashFromByteSlicesIterative is HashFromByteSlices (CometBFT's iterative variant gives the
// same root).
func HashFromByteSlicesIterative(input [][]byte) []byte { return HashFromByteSlices(input) }

// LeafHash returns SHA-256(0x00 || leaf).
func LeafHash(leaf []byte) []byte {
	h, err := core.LeafHash(core.SHA256, leaf)
	if err != nil {
		panic(err)
	}
	return h[:]
}

// InnerHash returns SHA-256(0x01 || left || right); left and right may have any length.
func InnerHash(left, right []byte) []byte {
	if len(left) == Size && len(right) == Size {
		h, err := core.NodeHash(core.SHA256, *(*[32]byte)(left), *(*[32]byte)(right))
		if err != nil {
			panic(err)
		}
		return h[:]
	}
	buf := make([]byte, 1+len(left)+len(right))
	buf[0] = 1
	copy(buf[1:], left)
	copy(buf[1+len(left):], right)
	h, err := core.Sum(core.SHA256, buf)
	if err != nil {
		panic(err)
	}
	return h[:]
}

func emptyHash() []byte                            { h := sha256.Sum256(nil); return h[:] }
func leafHash(leaf []byte) []byte                  { return LeafHash(leaf) }
func innerHash(left, right []byte) []byte          { return InnerHash(left, right) }
func leafHashOpt(_ hash.Hash, leaf []byte) []byte  { return LeafHash(leaf) }
func innerHashOpt(_ hash.Hash, l, r []byte) []byte { return InnerHash(l, r) }

// getSplitPoint returns the largest power of two less than length (length >= 1).
func getSplitPoint(length int64) int64 {
	if length < 1 {
		panic("Trying to split a tree with size < 1")
	}
	k := int64(1) << uint(bits.Len64(uint64(length))-1)
	if k == length {
		k >>= 1
	}
	return k
}

// Proof is a Merkle inclusion proof. It includes the leaf hash, not the root.
type Proof struct {
	Total    int64    `json:"total"`           // Total number of items.
	Index    int64    `json:"index"`           // Index of item to prove.
	LeafHash []byte   `json:"leaf_hash"`       // Hash of item value.
	Aunts    [][]byte `json:"aunts,omitempty"` // Hashes from leaf's sibling to a root's child.
}

// ProofsFromByteSlices computes the root of items and the inclusion proof of every item;
// proofs[i] is the proof of items[i]. The leaves are hashed with one batch call and each
// level with one more (core.BuildLevels); the proofs' LeafHash and Aunts slices point into
// that one tree (measured twice as fast as copying every branch out of a libmerkle shape
// tree, core.AllProofs).
func ProofsFromByteSlices(items [][]byte) (rootHash []byte, proofs []*Proof) {
	if len(items) == 0 {
		return emptyHash(), []*Proof{}
	}
	leaves, err := core.LeafHashes(core.SHA256, items)
	if err != nil {
		panic(err)
	}
	lv, err := core.BuildLevels(core.SHA256, leaves)
	if err != nil {
		panic(err)
	}
	nodes, starts, sizes := lv.Slices()
	n := len(items)
	total := 0
	for i := 0; i < n; i++ {
		total += lv.PathLen(i)
	}
	arr := make([]Proof, n)
	aunts := make([][]byte, total)
	proofs = make([]*Proof, n)
	pos := 0
	for i := 0; i < n; i++ {
		begin := pos
		j := i
		for l := 0; l+1 < len(sizes); l++ {
			if s := j ^ 1; s < sizes[l] {
				aunts[pos] = nodes[starts[l]+s][:]
				pos++
			}
			j >>= 1
		}
		arr[i] = Proof{Total: int64(n), Index: int64(i), LeafHash: nodes[i][:], Aunts: aunts[begin:pos:pos]}
		if begin == pos {
			arr[i].Aunts = [][]byte{}
		}
		proofs[i] = &arr[i]
	}
	root := lv.Root()
	return root[:], proofs
}

// Verify checks that the proof proves leaf under rootHash (check Index and Total yourself
// when they matter).
func (sp *Proof) Verify(rootHash []byte, leaf []byte) error {
	if rootHash == nil {
		return fmt.Errorf("invalid root hash: cannot be nil")
	}
	if sp.Total < 0 {
		return errors.New("proof total must be positive")
	}
	if sp.Index < 0 {
		return errors.New("proof index cannot be negative")
	}
	lh := LeafHash(leaf)
	if !bytes.Equal(sp.LeafHash, lh) {
		return fmt.Errorf("invalid leaf hash: wanted %X got %X", lh, sp.LeafHash)
	}
	computed, err := sp.computeRootHash(nil)
	if err != nil {
		return fmt.Errorf("compute root hash: %w", err)
	}
	if !bytes.Equal(computed, rootHash) {
		return fmt.Errorf("invalid root hash: wanted %X got %X", rootHash, computed)
	}
	return nil
}

// ComputeRootHash returns the root that the proof gives for its LeafHash, or nil when the
// proof is malformed (index, total or number of aunts).
func (sp *Proof) ComputeRootHash() []byte {
	h, err := sp.computeRootHash(nil)
	if err != nil {
		return nil
	}
	return h
}

func (sp *Proof) computeRootHash(_ hash.Hash) ([]byte, error) {
	return computeHashFromAunts(sp.Index, sp.Total, sp.LeafHash, sp.Aunts)
}

// auntCount is the number of aunts of leaf index in a tree of total leaves.
func auntCount(index, total int64) int {
	n := 0
	for total > 1 {
		k := getSplitPoint(total)
		if index < k {
			total = k
		} else {
			index -= k
			total -= k
		}
		n++
	}
	return n
}

// computeHashFromAunts is CometBFT's rule: the root from the leaf hash and the aunts
// (bottom-up), an error when the index, the total or the number of aunts is wrong.
func computeHashFromAunts(index, total int64, leafHash []byte, innerHashes [][]byte) ([]byte, error) {
	if index >= total || index < 0 || total <= 0 {
		return nil, fmt.Errorf("invalid index %d and/or total %d", index, total)
	}
	want := auntCount(index, total)
	if len(innerHashes) > want {
		return nil, fmt.Errorf("unexpected inner hashes")
	}
	if len(innerHashes) < want {
		return nil, fmt.Errorf("expected at least one inner hash")
	}
	if total == 1 {
		return leafHash, nil
	}
	all32 := len(leafHash) == Size
	for _, a := range innerHashes {
		all32 = all32 && len(a) == Size
	}
	if all32 {
		path := make([][32]byte, len(innerHashes))
		for i, a := range innerHashes {
			copy(path[i][:], a)
		}
		r, err := core.RootFromPath(core.SHA256, uint64(total), uint64(index), *(*[32]byte)(leafHash), path)
		if err != nil {
			return nil, err
		}
		return r[:], nil
	}
	// Hashes of other lengths: CometBFT hashes them as they are; so do we, node by node.
	return hashFromAuntsSlow(index, total, leafHash, innerHashes), nil
}

func hashFromAuntsSlow(index, total int64, leaf []byte, inner [][]byte) []byte {
	if total == 1 {
		return leaf
	}
	k := getSplitPoint(total)
	last := inner[len(inner)-1]
	if index < k {
		return InnerHash(hashFromAuntsSlow(index, k, leaf, inner[:len(inner)-1]), last)
	}
	return InnerHash(last, hashFromAuntsSlow(index-k, total-k, leaf, inner[:len(inner)-1]))
}

// String implements fmt.Stringer (StringIndented("")).
func (sp *Proof) String() string { return sp.StringIndented("") }

// StringIndented renders the proof's aunts as CometBFT does.
func (sp *Proof) StringIndented(indent string) string {
	return fmt.Sprintf(`Proof{
%s  Aunts: %X
%s}`,
		indent, sp.Aunts,
		indent)
}

// ValidateBasic checks the field ranges and hash sizes (at most MaxAunts aunts).
func (sp *Proof) ValidateBasic() error {
	if sp.Total < 0 {
		return errors.New("negative Total")
	}
	if sp.Index < 0 {
		return errors.New("negative Index")
	}
	if len(sp.LeafHash) != Size {
		return fmt.Errorf("expected LeafHash size to be %d, got %d", Size, len(sp.LeafHash))
	}
	if len(sp.Aunts) > MaxAunts {
		return fmt.Errorf("expected no more than %d aunts, got %d", MaxAunts, len(sp.Aunts))
	}
	for i, auntHash := range sp.Aunts {
		if len(auntHash) != Size {
			return fmt.Errorf("expected Aunts#%d size to be %d, got %d", i, Size, len(auntHash))
		}
	}
	return nil
}

// ProofNode is a node of the trail from a leaf to the root (CometBFT's proof builder).
// Exactly one of Left and Right is set, except at the root where both are nil.
type ProofNode struct {
	Hash   []byte
	Parent *ProofNode
	Left   *ProofNode // Left sibling  (only one of Left,Right is set)
	Right  *ProofNode // Right sibling (only one of Left,Right is set)
}

// FlattenAunts returns the aunts of the leaf at spn, bottom-up.
func (spn *ProofNode) FlattenAunts() [][]byte {
	innerHashes := [][]byte{}
	for spn != nil {
		switch {
		case spn.Left != nil:
			innerHashes = append(innerHashes, spn.Left.Hash)
		case spn.Right != nil:
			innerHashes = append(innerHashes, spn.Right.Hash)
		}
		spn = spn.Parent
	}
	return innerHashes
}

// trailsFromByteSlices builds the ProofNode trails of every item and the root node, from the
// libmerkle levels (trails[i].Hash is items[i]'s leaf hash).
func trailsFromByteSlices(items [][]byte) (trails []*ProofNode, root *ProofNode) {
	if len(items) == 0 {
		return []*ProofNode{}, &ProofNode{Hash: emptyHash()}
	}
	leaves, err := core.LeafHashes(core.SHA256, items)
	if err != nil {
		panic(err)
	}
	lv, err := core.BuildLevels(core.SHA256, leaves)
	if err != nil {
		panic(err)
	}
	nodes, starts, sizes := lv.Slices()
	level := make([]*ProofNode, sizes[0])
	for i := range level {
		level[i] = &ProofNode{Hash: nodes[i][:]}
	}
	trails = level
	for l := 1; l < len(sizes); l++ {
		next := make([]*ProofNode, sizes[l])
		for i := range next {
			if 2*i+1 < len(level) {
				p := &ProofNode{Hash: nodes[starts[l]+i][:]}
				a, b := level[2*i], level[2*i+1]
				a.Parent, a.Right = p, b
				b.Parent, b.Left = p, a
				next[i] = p
			} else {
				next[i] = level[2*i] // promoted
			}
		}
		level = next
	}
	return trails, level[0]
}
