// SPDX-License-Identifier: MIT OR Apache-2.0

package merkletree

import (
	"errors"
	"hash"
	"io"
)

// subtree is a perfect subtree of 2^height leaves.
type subtree struct {
	height int
	sum    []byte
}

// Tree is Sia's streaming Merkle tree: push segments (or cached subtree roots), take the
// root at any time, and with SetIndex collect the proof of one segment on the way. It keeps
// one root per perfect subtree (O(log n)); hashing is libmerkle's for SHA-256 and
// BLAKE2b-256.
type Tree struct {
	x            hasher
	stack        []subtree // oldest (largest) first; heights strictly decrease, but for the top two while joining
	currentIndex uint64    // leaves so far (upstream's name)

	proofTree  bool
	proofIndex uint64
	proofSet   [][]byte // [segment, siblings...] collected while joining

	cached bool // Push takes subtree sums (CachedTree)
}

// New returns an empty Tree hashing with h.
func New(h hash.Hash) *Tree { return &Tree{x: newHasher(h)} }

// SetIndex selects the segment whose proof Prove returns. Only on an empty tree.
func (t *Tree) SetIndex(i uint64) error {
	if len(t.stack) != 0 {
		return errors.New("cannot call SetIndex on Tree if Tree has not been reset")
	}
	t.proofTree = true
	t.proofIndex = i
	return nil
}

// Push appends a segment (in a CachedTree: the root of a cached subtree).
func (t *Tree) Push(data []byte) {
	if t.proofTree && t.currentIndex == t.proofIndex {
		t.proofSet = append(t.proofSet, data)
	}
	sum := data
	if !t.cached {
		sum = t.x.leaf(data)
	}
	t.stack = append(t.stack, subtree{height: 0, sum: sum})
	t.currentIndex++
	t.join()
}

// PushSubTree appends the root of a perfect subtree of 2^height leaves; height may not
// exceed the smallest subtree's, and the subtree may not hold the segment to prove.
func (t *Tree) PushSubTree(height int, sum []byte) error {
	end := t.currentIndex + 1<<uint64(height)
	if t.proofTree && (t.currentIndex == t.proofIndex || (t.currentIndex < t.proofIndex && t.proofIndex < end)) {
		return errors.New("the cached tree shouldn't contain the element to prove")
	}
	if n := len(t.stack); n > 0 && height > t.stack[n-1].height {
		return errors.New("can't add a subtree that is larger than the smallest subtree")
	}
	t.stack = append(t.stack, subtree{height: height, sum: sum})
	t.currentIndex = end
	t.join()
	return nil
}

// join merges the two newest subtrees while they have the same height, collecting the
// sibling of the proved segment's subtree when it is one of them.
func (t *Tree) join() {
	for n := len(t.stack); n >= 2 && t.stack[n-1].height == t.stack[n-2].height; n = len(t.stack) {
		left, right := t.stack[n-2], t.stack[n-1]
		if h := right.height; len(t.proofSet) > 0 && h == len(t.proofSet)-1 {
			rightStart := t.currentIndex - 1<<uint(h) // right covers [rightStart, count)
			if t.proofIndex < rightStart {
				t.proofSet = append(t.proofSet, right.sum)
			} else {
				t.proofSet = append(t.proofSet, left.sum)
			}
		}
		t.stack = append(t.stack[:n-2], subtree{height: left.height + 1, sum: t.x.node(left.sum, right.sum)})
	}
}

// fold returns the root of stack[i:], joined from the newest.
func (t *Tree) fold(i int) []byte {
	s := t.stack[len(t.stack)-1].sum
	for k := len(t.stack) - 2; k >= i; k-- {
		s = t.x.node(t.stack[k].sum, s)
	}
	return s
}

// Root returns the current root (nil for an empty tree). The tree can still grow.
func (t *Tree) Root() []byte {
	if len(t.stack) == 0 {
		return nil
	}
	return t.fold(0)
}

// Prove returns the root, the proof set of the index given to SetIndex (nil when that
// segment has not been pushed), the index and the number of leaves. It panics without
// SetIndex, as upstream.
func (t *Tree) Prove() (merkleRoot []byte, proofSet [][]byte, proofIndex uint64, numLeaves uint64) {
	if !t.proofTree {
		panic("wrong usage: can't call prove on a tree if SetIndex wasn't called")
	}
	if len(t.stack) == 0 || len(t.proofSet) == 0 {
		return t.Root(), nil, t.proofIndex, t.currentIndex
	}
	// The subtree holding the proved segment; those after it fold into its right sibling,
	// those before it are its left siblings further up.
	p, start := 0, uint64(0)
	for ; p < len(t.stack); p++ {
		size := uint64(1) << uint(t.stack[p].height)
		if t.proofIndex < start+size {
			break
		}
		start += size
	}
	proofSet = append([][]byte(nil), t.proofSet...)
	if p+1 < len(t.stack) {
		proofSet = append(proofSet, t.fold(p+1))
	}
	for k := p - 1; k >= 0; k-- {
		proofSet = append(proofSet, t.stack[k].sum)
	}
	return t.Root(), proofSet, t.proofIndex, t.currentIndex
}

// ReadAll pushes everything r yields, cut into segmentSize-byte segments (the last may be
// short).
func (t *Tree) ReadAll(r io.Reader, segmentSize int) error {
	if segmentSize <= 0 {
		return errors.New("merkletree: segment size must be positive")
	}
	for {
		segment := make([]byte, segmentSize)
		n, err := io.ReadFull(r, segment)
		if err == io.EOF {
			return nil
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			return err
		}
		t.Push(segment[:n])
		if err == io.ErrUnexpectedEOF {
			return nil
		}
	}
}

// CachedTree is a Tree whose Push takes the roots of cached subtrees of 2^cachedNodeHeight
// segments; Prove joins the proof inside the cached subtree with the rest.
type CachedTree struct {
	cachedNodeHeight uint64
	trueProofIndex   uint64
	Tree
}

// NewCachedTree returns an empty CachedTree of cached subtrees of 2^cachedNodeHeight
// segments.
func NewCachedTree(h hash.Hash, cachedNodeHeight uint64) *CachedTree {
	return &CachedTree{cachedNodeHeight: cachedNodeHeight, Tree: Tree{x: newHasher(h), cached: true}}
}

// SetIndex selects the segment (in segments, not cached nodes) to prove.
func (ct *CachedTree) SetIndex(i uint64) error {
	if len(ct.stack) != 0 {
		return errors.New("cannot call SetIndex on Tree if Tree has not been reset")
	}
	ct.trueProofIndex = i
	return ct.Tree.SetIndex(i / (1 << ct.cachedNodeHeight))
}

// Prove returns the root and the proof of the selected segment: cachedProofSet (its proof
// inside its cached subtree, segment first) followed by the siblings above that subtree.
func (ct *CachedTree) Prove(cachedProofSet [][]byte) (merkleRoot []byte, proofSet [][]byte, proofIndex uint64, numLeaves uint64) {
	numLeaves = (uint64(1) << ct.cachedNodeHeight) * ct.currentIndex
	merkleRoot, tail, _, _ := ct.Tree.Prove()
	if len(tail) < 1 {
		return merkleRoot, nil, ct.trueProofIndex, numLeaves
	}
	proofSet = append(cachedProofSet, tail[1:]...)
	return merkleRoot, proofSet, ct.trueProofIndex, numLeaves
}
