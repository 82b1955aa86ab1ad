// SPDX-License-Identifier: MIT OR Apache-2.0

package compact

import "math/bits"

// NodeID identifies a node of a Merkle tree: Level 0 are the leaves, Index the node's
// position in its level from the left.
type NodeID struct {
	Level uint
	Index uint64
}

// NewNodeID returns the NodeID of a level and index.
func NewNodeID(level uint, index uint64) NodeID { return NodeID{Level: level, Index: index} }

// Parent returns the ID of the node's parent.
func (id NodeID) Parent() NodeID { return NewNodeID(id.Level+1, id.Index>>1) }

// Sibling returns the ID of the node's sibling.
func (id NodeID) Sibling() NodeID { return NewNodeID(id.Level, id.Index^1) }

// Coverage returns the leaf range [begin, end) under the node.
func (id NodeID) Coverage() (uint64, uint64) {
	return id.Index << id.Level, (id.Index + 1) << id.Level
}

// RangeNodes appends to ids the IDs of the subtree roots of the compact range [begin, end),
// left to right, and returns the slice.
func RangeNodes(begin, end uint64, ids []NodeID) []NodeID {
	left, right := Decompose(begin, end)
	pos := begin
	for left != 0 { // growing sizes: lowest bit first
		level := uint(bits.TrailingZeros64(left))
		ids = append(ids, NewNodeID(level, pos>>level))
		pos += 1 << level
		left &^= 1 << level
	}
	for right != 0 { // shrinking sizes: highest bit first
		level := uint(bits.Len64(right) - 1)
		ids = append(ids, NewNodeID(level, pos>>level))
		pos += 1 << level
		right &^= 1 << level
	}
	return ids
}

// RangeSize returns the number of subtree roots of the compact range [begin, end).
func RangeSize(begin, end uint64) int {
	left, right := Decompose(begin, end)
	return bits.OnesCount64(left) + bits.OnesCount64(right)
}
