// SPDX-License-Identifier: MIT OR Apache-2.0

// Package rfc6962 is a drop-in for github.com/transparency-dev/merkle/rfc6962: the RFC 6962
// tree hasher. With crypto.SHA256 (DefaultHasher) every hash is computed by libmerkle; any
// other crypto.Hash goes through the standard library's implementation of it.
package rfc6962

import (
	"crypto"
	_ "crypto/sha256" // SHA256 is the default algorithm.

	core "merkle.local/go"
)

// Domain separation prefixes of RFC 6962.
const (
	RFC6962LeafHashPrefix = 0
	RFC6962NodeHashPrefix = 1
)

// DefaultHasher is the SHA-256 RFC 6962 hasher.
var DefaultHasher = New(crypto.SHA256)

// Hasher implements the RFC 6962 tree hashing algorithm (merkle.LogHasher).
type Hasher struct {
	crypto.Hash
}

// New creates a Hasher for the given digest.
func New(h crypto.Hash) *Hasher {
	return &Hasher{Hash: h}
}

// EmptyRoot returns the root of an empty tree, H("").
func (t *Hasher) EmptyRoot() []byte {
	if t.Hash == crypto.SHA256 {
		r, _ := core.Sum(core.SHA256, nil)
		return r[:]
	}
	return t.New().Sum(nil)
}

// HashLeaf returns H(0x00 || leaf).
func (t *Hasher) HashLeaf(leaf []byte) []byte {
	if t.Hash == crypto.SHA256 {
		r, _ := core.LeafHash(core.SHA256, leaf)
		return r[:]
	}
	h := t.New()
	h.Write([]byte{RFC6962LeafHashPrefix})
	h.Write(leaf)
	return h.Sum(nil)
}

// HashChildren returns H(0x01 || l || r).
func (t *Hasher) HashChildren(l, r []byte) []byte {
	if t.Hash == crypto.SHA256 && len(l) == 32 && len(r) == 32 {
		out, _ := core.NodeHash(core.SHA256, *(*[32]byte)(l), *(*[32]byte)(r))
		return out[:]
	}
	h := t.New()
	h.Write([]byte{RFC6962NodeHashPrefix})
	h.Write(l)
	h.Write(r)
	return h.Sum(nil)
}

// IsLibmerkleSHA256 reports whether h hashes with libmerkle's SHA-256 (the proof and compact
// packages then verify and merge in the C library).
func IsLibmerkleSHA256(h interface{}) bool {
	t, ok := h.(*Hasher)
	return ok && t != nil && t.Hash == crypto.SHA256
}
