// SPDX-License-Identifier: MIT OR Apache-2.0

// Package merkle is a drop-in for the root package of github.com/transparency-dev/merkle:
// the LogHasher interface. Its subpackages rfc6962, proof and compact replace the packages
// of the same names on libmerkle:
//
//	github.com/transparency-dev/merkle/rfc6962  ->  merkle.local/go/transparency/rfc6962
//	github.com/transparency-dev/merkle/proof    ->  merkle.local/go/transparency/proof
//	github.com/transparency-dev/merkle/compact  ->  merkle.local/go/transparency/compact
//
// With rfc6962.DefaultHasher (SHA-256) the hashing is libmerkle's; any other LogHasher is
// called through the interface, as upstream does.
package merkle

// LogHasher provides the hash functions of a Merkle tree (transparency-dev/merkle's).
type LogHasher interface {
	// EmptyRoot returns the root of an empty tree.
	EmptyRoot() []byte
	// HashLeaf computes the hash of a leaf that exists.
	HashLeaf(leaf []byte) []byte
	// HashChildren computes an interior node from its children.
	HashChildren(l, r []byte) []byte
	// Size returns the number of bytes the Hash* functions return.
	Size() int
}
