// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

/*
#include <merkle/shape.h>
*/
import "C"

import "unsafe"

// Shape describes how a tree is made from its level-0 nodes (merkle/shape.h): the Bitcoin
// transaction tree (SHA-256d, the last node of an odd level doubled), SSZ hash_tree_root
// (padded with zero chunks to a power of two or to a limit, optionally the length mixed in),
// @openzeppelin/merkle-tree (Keccak-256, sorted pairs, a heap layout), BitTorrent v2 piece
// trees, and the RFC 6962 and Sia trees. A Shape is a plain value: copy it and change it
// with the With methods.
type Shape struct {
	c C.merkle_shape
}

// ShapeOf returns the description of a profile.
func ShapeOf(p Profile) (Shape, error) {
	var s Shape
	err := check("ShapeOf", C.merkle_shape_init(&s.c, C.MERKLE_SHAPE_VERSION, C.merkle_profile(p)))
	return s, err
}

// Profile is the profile the shape was made from.
func (s Shape) Profile() Profile { return Profile(s.c.profile) }

// WithLimit returns the shape padding to limit leaves (SSZ List[..., limit]; padding shapes only:
// the tree functions refuse it for others).
func (s Shape) WithLimit(limit uint64) Shape { s.c.limit = C.uint64_t(limit); return s }

// WithMixInLength returns the shape with (on) or without SSZ's mix_in_length of the leaf count.
func (s Shape) WithMixInLength(on bool) Shape {
	if on {
		s.c.flags |= C.MERKLE_SHAPE_MIX_IN_LENGTH
	} else {
		s.c.flags &^= C.MERKLE_SHAPE_MIX_IN_LENGTH
	}
	return s
}

// WithHash returns the shape with another digest.
func (s Shape) WithHash(h HashAlg) Shape { s.c.hash = C.merkle_hash_alg(h); return s }

// Node returns the interior node of left and right (prefix, sorted pairs, double hashing as the
// shape says).
func (s Shape) Node(left, right [32]byte) ([32]byte, error) {
	var out [32]byte
	err := check("Shape.Node", C.merkle_shape_node(h32(&out), &s.c, h32(&left), h32(&right)))
	return out, err
}

// Root returns the root of the tree of nodes (txids, leaf hashes, chunks) and, for Bitcoin,
// whether two equal sibling nodes were seen (CVE-2012-2459's "mutated").
func (s Shape) Root(nodes [][32]byte) (root [32]byte, mutated bool, err error) {
	var flags C.uint32_t
	var e C.merkle_error
	err = checkErr("Shape.Root", C.merkle_shape_root(h32(&root), &flags, &s.c, hs(nodes), C.uint64_t(len(nodes)), &e), &e)
	return root, flags&C.MERKLE_SHAPE_MUTATED != 0, err
}

// Verify checks that leaf at position pos (a generalized index for level trees; an array index
// for OpenZeppelin's heap, where the order comes from the bytes) hashes with path up to root.
// errors.Is(err, ErrVerify) when it does not.
func (s Shape) Verify(root [32]byte, pos uint64, leaf [32]byte, path [][32]byte) error {
	var e C.merkle_error
	return checkErr("Shape.Verify", C.merkle_shape_verify(&s.c, h32(&root), C.uint64_t(pos), h32(&leaf), hs(path), C.size_t(len(path)), &e), &e)
}

// MixInLength returns SHA-256(root || uint256_le(length)) (SSZ lists).
func MixInLength(root [32]byte, length uint64) [32]byte {
	var out [32]byte
	C.merkle_shape_mix_in_length(h32(&out), h32(&root), C.uint64_t(length))
	return out
}

// ShapeTree is a whole shaped tree in memory, for proofs. It holds C memory: call Close.
type ShapeTree struct {
	t     *C.merkle_shape_tree
	shape Shape
}

// Tree builds the tree of nodes (every level kept, each hashed with one batch call) and says
// whether it is mutated (Bitcoin).
func (s Shape) Tree(nodes [][32]byte) (*ShapeTree, bool, error) {
	var t *C.merkle_shape_tree
	var flags C.uint32_t
	var e C.merkle_error
	if err := checkErr("Shape.Tree", C.merkle_shape_tree_alloc(&t, &flags, &s.c, hs(nodes), C.uint64_t(len(nodes)), &e), &e); err != nil {
		return nil, false, err
	}
	return &ShapeTree{t: t, shape: s}, flags&C.MERKLE_SHAPE_MUTATED != 0, nil
}

// Close releases the tree. Calling it twice, or on nil, is harmless.
func (t *ShapeTree) Close() {
	if t != nil && t.t != nil {
		C.merkle_shape_tree_free(t.t)
		t.t = nil
	}
}

func (t *ShapeTree) live(op string) error {
	if t == nil || t.t == nil {
		return &Error{Op: op, Status: ErrState, Detail: "tree is closed"}
	}
	return nil
}

// Shape is the shape the tree was built with.
func (t *ShapeTree) Shape() Shape { return t.shape }

// Root is the tree's root (with the mix-in when the shape has it).
func (t *ShapeTree) Root() ([32]byte, error) {
	var out [32]byte
	if err := t.live("ShapeTree.Root"); err != nil {
		return out, err
	}
	C.merkle_shape_tree_root(h32(&out), t.t)
	return out, nil
}

// Count is the number of level-0 nodes.
func (t *ShapeTree) Count() uint64 {
	if t.t == nil {
		return 0
	}
	return uint64(C.merkle_shape_tree_count(t.t))
}

// Position returns the position of level-0 node index (input order): its generalized index,
// or its array index in a heap tree.
func (t *ShapeTree) Position(index uint64) (uint64, error) {
	if err := t.live("ShapeTree.Position"); err != nil {
		return 0, err
	}
	var out C.uint64_t
	err := check("ShapeTree.Position", C.merkle_shape_tree_position(&out, t.t, C.uint64_t(index)))
	return uint64(out), err
}

// Branch returns the siblings of the node at pos, bottom-up (Bitcoin's merkle branch, the SSZ
// single proof, OpenZeppelin's getProof).
func (t *ShapeTree) Branch(pos uint64) ([][32]byte, error) {
	if err := t.live("ShapeTree.Branch"); err != nil {
		return nil, err
	}
	path := make([][32]byte, 65)
	var n C.size_t
	s := C.merkle_shape_tree_branch((*[32]C.uint8_t)(unsafe.Pointer(&path[0])), C.size_t(len(path)), &n, t.t, C.uint64_t(pos))
	if err := check("ShapeTree.Branch", s); err != nil {
		return nil, err
	}
	return path[:n:n], nil
}

// Proof returns the position of level-0 node index and its branch.
func (t *ShapeTree) Proof(index uint64) (uint64, [][32]byte, error) {
	pos, err := t.Position(index)
	if err != nil {
		return 0, nil, err
	}
	path, err := t.Branch(pos)
	return pos, path, err
}

// Branches returns every level-0 node's branch at once, in input order: node i's branch is
// paths[offsets[i]:offsets[i+1]]. No hashing: one pass over the kept levels.
func (t *ShapeTree) Branches() (paths [][32]byte, offsets []uint64, err error) {
	if err := t.live("ShapeTree.Branches"); err != nil {
		return nil, nil, err
	}
	offsets = make([]uint64, t.Count()+1)
	var total C.size_t
	s := C.merkle_shape_tree_branches(nil, 0, &total, (*C.uint64_t)(unsafe.Pointer(&offsets[0])), t.t)
	if s != C.MERKLE_OK && s != C.MERKLE_ERR_BUFFER {
		return nil, nil, check("ShapeTree.Branches", s)
	}
	paths = make([][32]byte, int(total)+1)
	s = C.merkle_shape_tree_branches((*[32]C.uint8_t)(unsafe.Pointer(&paths[0])), C.size_t(len(paths)), &total, (*C.uint64_t)(unsafe.Pointer(&offsets[0])), t.t)
	if err := check("ShapeTree.Branches", s); err != nil {
		return nil, nil, err
	}
	return paths[:total:total], offsets, nil
}
