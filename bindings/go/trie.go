// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

/*
#include <stdlib.h>
#include <merkle/trie.h>
*/
import "C"

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"
)

// TrieIDLen is the length of a trie node ID (SHA-256).
const TrieIDLen = C.MERKLE_TRIE_ID_LEN

// Trie is a Merkle radix trie whose root IDs are byte-compatible with avalanchego
// x/merkledb (merkle/trie.h). Its nodes live in C memory: call Close when done (there is no
// finalizer). A Trie is not safe for concurrent use by several goroutines when one of them
// modifies it; Get and Len may run concurrently with each other.
type Trie struct {
	t *C.merkle_trie
}

// NewTrie returns an empty trie with branch factor 2, 4, 16 (merkledb's default) or 256.
func NewTrie(branchFactor int) (*Trie, error) {
	if branchFactor <= 0 {
		return nil, &Error{Op: "NewTrie", Status: ErrArg}
	}
	var t *C.merkle_trie
	if err := check("NewTrie", C.merkle_trie_alloc(&t, C.unsigned(branchFactor))); err != nil {
		return nil, err
	}
	return &Trie{t: t}, nil
}

// Close releases the trie's memory. Calling it twice, or on nil, is harmless; any other
// method after Close returns ErrState (or panics for the methods without an error).
func (t *Trie) Close() {
	if t != nil && t.t != nil {
		C.merkle_trie_free(t.t)
		t.t = nil
	}
}

func (t *Trie) live(op string) error {
	if t == nil || t.t == nil {
		return &Error{Op: op, Status: ErrState, Detail: "trie is closed"}
	}
	return nil
}

// BranchFactor is the branch factor the trie was created with.
func (t *Trie) BranchFactor() int { return int(C.merkle_trie_branch_factor(t.t)) }

// Len is the number of keys present.
func (t *Trie) Len() uint64 {
	if t.t == nil {
		return 0
	}
	return uint64(C.merkle_trie_size(t.t))
}

// Put inserts or replaces key -> value. An empty (non-nil or nil) value is a present, empty
// value, which is not the same as an absent key. The bytes are copied.
func (t *Trie) Put(key, value []byte) error {
	if err := t.live("Trie.Put"); err != nil {
		return err
	}
	return check("Trie.Put", C.merkle_trie_put(t.t, u8(key), C.size_t(len(key)), u8(value), C.size_t(len(value))))
}

// Delete removes key and reports whether it was present.
func (t *Trie) Delete(key []byte) (bool, error) {
	if err := t.live("Trie.Delete"); err != nil {
		return false, err
	}
	var found C.int
	err := check("Trie.Delete", C.merkle_trie_delete(&found, t.t, u8(key), C.size_t(len(key))))
	return found != 0, err
}

// Get returns the value of key and whether it is present.
func (t *Trie) Get(key []byte) ([]byte, bool, error) {
	if err := t.live("Trie.Get"); err != nil {
		return nil, false, err
	}
	var n C.size_t
	var found C.int
	s := C.merkle_trie_get(nil, 0, &n, &found, t.t, u8(key), C.size_t(len(key)))
	if found == 0 {
		return nil, false, check("Trie.Get", s)
	}
	if s != C.MERKLE_OK && s != C.MERKLE_ERR_BUFFER {
		return nil, false, check("Trie.Get", s)
	}
	out := make([]byte, int(n)+1) // +1: a non-empty buffer even for an empty value
	s = C.merkle_trie_get(u8(out), C.size_t(len(out)), &n, &found, t.t, u8(key), C.size_t(len(key)))
	if err := check("Trie.Get", s); err != nil {
		return nil, false, err
	}
	return out[:n:n], true, nil
}

// Root returns the root ID (32 zero bytes for an empty trie), hashing the nodes changed
// since the last call on up to threads threads (0 or 1: the calling thread).
func (t *Trie) Root(threads int) ([32]byte, error) {
	var out [32]byte
	if err := t.live("Trie.Root"); err != nil {
		return out, err
	}
	if threads < 0 {
		return out, &Error{Op: "Trie.Root", Status: ErrArg}
	}
	var e C.merkle_error
	err := checkErr("Trie.Root", C.merkle_trie_root(h32(&out), t.t, C.unsigned(threads), &e), &e)
	return out, err
}

// Prove returns a proof (the MTRP format of docs/trie.md) that key is present with its value,
// or absent, in the trie as it is now.
func (t *Trie) Prove(key []byte) ([]byte, error) {
	if err := t.live("Trie.Prove"); err != nil {
		return nil, err
	}
	var n C.size_t
	var e C.merkle_error
	s := C.merkle_trie_prove(nil, 0, &n, t.t, u8(key), C.size_t(len(key)), &e)
	if s != C.MERKLE_ERR_BUFFER && s != C.MERKLE_OK {
		return nil, checkErr("Trie.Prove", s, &e)
	}
	out := make([]byte, int(n))
	s = C.merkle_trie_prove(u8(out), C.size_t(len(out)), &n, t.t, u8(key), C.size_t(len(key)), &e)
	if err := checkErr("Trie.Prove", s, &e); err != nil {
		return nil, err
	}
	return out[:n], nil
}

// TrieProof is what a verified trie proof states. Key and Value are copies.
type TrieProof struct {
	BranchFactor int
	Present      bool   // the key is in the trie (with Value); false: the key is absent
	Key          []byte // the key the proof is about
	Value        []byte // Present only
	Nodes        int    // nodes on the path
}

// VerifyTrieProof checks a proof against a trusted root ID and returns what it states. It
// does not check which key the proof is about: use VerifyTrieKey to bind the key and the
// value. errors.Is(err, ErrVerify): well-formed but does not verify against root;
// ErrFormat: not a well-formed proof.
func VerifyTrieProof(root [32]byte, proof []byte) (TrieProof, error) {
	var info C.merkle_trie_proof_info
	var e C.merkle_error
	s := C.merkle_trie_proof_verify(&info, h32(&root), u8(proof), C.size_t(len(proof)), &e)
	if err := checkErr("VerifyTrieProof", s, &e); err != nil {
		return TrieProof{}, err
	}
	p := TrieProof{BranchFactor: int(info.branch_factor), Present: info.present != 0, Nodes: int(info.nodes)}
	p.Key = goBytes(unsafe.Pointer(info.key), info.key_len)
	if p.Present {
		p.Value = goBytes(unsafe.Pointer(info.value), info.value_len)
	}
	return p, nil
}

// VerifyTrieKey checks that proof proves, against the trusted root, that key maps to value
// (value non-nil; an empty non-nil value is a present, empty value) or that key is absent
// (value nil). A valid proof of another key, another value or the other presence is
// ErrVerify, like a proof that does not verify.
func VerifyTrieKey(root [32]byte, proof, key, value []byte) error {
	p, err := VerifyTrieProof(root, proof)
	if err != nil {
		return err
	}
	switch {
	case !bytes.Equal(p.Key, key):
		return &Error{Op: "VerifyTrieKey", Status: ErrVerify, Detail: fmt.Sprintf("the proof is about key %x", p.Key)}
	case value == nil && p.Present:
		return &Error{Op: "VerifyTrieKey", Status: ErrVerify, Detail: "the key is present"}
	case value != nil && !p.Present:
		return &Error{Op: "VerifyTrieKey", Status: ErrVerify, Detail: "the key is absent"}
	case value != nil && !bytes.Equal(p.Value, value):
		return &Error{Op: "VerifyTrieKey", Status: ErrVerify, Detail: "the key has another value"}
	}
	return nil
}

// TrieChild is a child entry of TrieNodeID: token index (< 256) and the child's ID.
type TrieChild struct {
	Index int
	ID    [32]byte
}

// TrieNodeID is the ID of one node as merkledb's sha256Hasher.HashNode computes it: key is the
// node's full key of keyBits bits (unused low bits of the last byte zero); value nil is
// maybe.Nothing, a non-nil value (possibly empty) is Some(value); children in strictly
// ascending index order.
func TrieNodeID(key []byte, keyBits int, value []byte, children []TrieChild) ([32]byte, error) {
	var out [32]byte
	if keyBits < 0 || len(children) > 256 {
		return out, &Error{Op: "TrieNodeID", Status: ErrArg}
	}
	n := len(children)
	cs := (*C.merkle_trie_child)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof(C.merkle_trie_child{}))))
	if cs == nil {
		return out, &Error{Op: "TrieNodeID", Status: ErrNoMem}
	}
	defer C.free(unsafe.Pointer(cs))
	arr := unsafe.Slice(cs, n+1)
	for i, c := range children {
		if c.Index < 0 || c.Index > 255 {
			return out, &Error{Op: "TrieNodeID", Status: ErrArg}
		}
		arr[i].index = C.uint32_t(c.Index)
		for j := 0; j < 32; j++ {
			arr[i].id[j] = C.uint8_t(c.ID[j])
		}
	}
	has := C.int(0)
	if value != nil {
		has = 1
	}
	err := check("TrieNodeID", C.merkle_trie_hash_node(h32(&out), u8(key), C.size_t(keyBits), has, u8(value), C.size_t(len(value)), cs, C.size_t(n)))
	return out, err
}

// CB58Encode returns the cb58 string (avalanchego ids.ID form) of b (at most 1,024 bytes).
func CB58Encode(b []byte) (string, error) {
	buf := make([]byte, 2*len(b)+16)
	var n C.size_t
	s := C.merkle_trie_cb58_encode((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &n, u8(b), C.size_t(len(b)))
	if err := check("CB58Encode", s); err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// CB58Decode checks the alphabet and checksum of a cb58 string and returns its payload.
func CB58Decode(s string) ([]byte, error) {
	in := []byte(s)
	if len(in) == 0 {
		return nil, &Error{Op: "CB58Decode", Status: ErrFormat, Detail: "empty string"}
	}
	out := make([]byte, len(in)+1)
	var n C.size_t
	var e C.merkle_error
	st := C.merkle_trie_cb58_decode(u8(out), C.size_t(len(out)), &n, (*C.char)(unsafe.Pointer(u8(in))), C.size_t(len(in)), &e)
	if err := checkErr("CB58Decode", st, &e); err != nil {
		return nil, err
	}
	return out[:n:n], nil
}

// ParseTrieID parses an ID given as 64 hex digits or as its cb58 string.
func ParseTrieID(s string) ([32]byte, error) {
	var out [32]byte
	if strings.IndexByte(s, 0) >= 0 {
		return out, &Error{Op: "ParseTrieID", Status: ErrFormat, Detail: "NUL in the ID"}
	}
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	var e C.merkle_error
	err := checkErr("ParseTrieID", C.merkle_trie_id_parse(h32(&out), cs, &e), &e)
	return out, err
}
