// SPDX-License-Identifier: MIT OR Apache-2.0

// Package reftest is test support for the module's packages: it loads the shared
// known-answer vectors (tests/vectors/merkle-public.json) and holds a pure-Go reference of
// the RFC 6962/9162 tree written from the specification (crypto/sha256 only), against which
// the tests compare libmerkle's results.
package reftest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// Vector is one entry of merkle-public.json.
type Vector struct {
	ID       string                     `json:"id"`
	Format   string                     `json:"format"`
	Hash     string                     `json:"hash"`
	Op       string                     `json:"op"`
	Input    map[string]json.RawMessage `json:"input"`
	Expected map[string]json.RawMessage `json:"expected"`
}

// Vectors loads tests/vectors/merkle-public.json of the repository (the test is skipped
// when it is absent, e.g. in a module copied out of the repository).
func Vectors(t testing.TB) []Vector {
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "tests", "vectors", "merkle-public.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("shared vectors not found (%v)", err)
	}
	var doc struct {
		Vectors []Vector `json:"vectors"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Vectors
}

// Leaves decodes a "leaves" generator (decimal or hex-list).
func Leaves(t testing.TB, raw json.RawMessage) [][]byte {
	var g struct {
		Gen   string   `json:"gen"`
		N     int      `json:"n"`
		Items []string `json:"leaves"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	switch g.Gen {
	case "decimal":
		out := make([][]byte, g.N)
		for i := range out {
			out[i] = []byte(strconv.Itoa(i))
		}
		return out
	case "hex-list":
		out := make([][]byte, len(g.Items))
		for i, h := range g.Items {
			out[i] = Hex(t, h)
		}
		return out
	}
	t.Fatalf("unknown leaves generator %q (%s)", g.Gen, raw)
	return nil
}

// Stream decodes a "stream" generator (counter-bytes: byte k = k mod 251).
func Stream(t testing.TB, raw json.RawMessage) []byte {
	var g struct {
		Gen string `json:"gen"`
		Len int    `json:"len"`
	}
	if err := json.Unmarshal(raw, &g); err != nil || g.Gen != "counter-bytes" {
		t.Fatalf("unknown stream generator %s", raw)
	}
	out := make([]byte, g.Len)
	for k := range out {
		out[k] = byte(k % 251)
	}
	return out
}

// Hex decodes hex or fails the test.
func Hex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Str, Int, HexField and HexList decode fields of a vector.
func Str(t testing.TB, m map[string]json.RawMessage, k string) string {
	var s string
	if err := json.Unmarshal(m[k], &s); err != nil {
		t.Fatalf("field %s: %v", k, err)
	}
	return s
}

// Int decodes an integer field (a value above 2^63 - 1 wraps to a negative int64: convert
// it back with uint64()).
func Int(t testing.TB, m map[string]json.RawMessage, k string) int64 {
	var num json.Number
	if err := json.Unmarshal(m[k], &num); err != nil {
		t.Fatalf("field %s: %v", k, err)
	}
	if v, err := strconv.ParseInt(string(num), 10, 64); err == nil {
		return v
	}
	v, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil {
		t.Fatalf("field %s: %v", k, err)
	}
	return int64(v)
}

// HexField decodes a hex string field; nil for JSON null.
func HexField(t testing.TB, m map[string]json.RawMessage, k string) []byte {
	var s *string
	if err := json.Unmarshal(m[k], &s); err != nil {
		t.Fatalf("field %s: %v", k, err)
	}
	if s == nil {
		return nil
	}
	return Hex(t, *s)
}

// HexList decodes a list of hex strings.
func HexList(t testing.TB, m map[string]json.RawMessage, k string) [][]byte {
	var ss []string
	if err := json.Unmarshal(m[k], &ss); err != nil {
		t.Fatalf("field %s: %v", k, err)
	}
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = Hex(t, s)
	}
	return out
}

// Has tells whether a field is present.
func Has(m map[string]json.RawMessage, k string) bool { _, ok := m[k]; return ok }

// ---------------------------------------------------------------- the reference (RFC 9162 2.1)

// LeafHash is SHA-256(0x00 || d).
func LeafHash(d []byte) []byte {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(d)
	return h.Sum(nil)
}

// NodeHash is SHA-256(0x01 || l || r).
func NodeHash(l, r []byte) []byte {
	h := sha256.New()
	h.Write([]byte{1})
	h.Write(l)
	h.Write(r)
	return h.Sum(nil)
}

// split is the largest power of two smaller than n (n >= 2).
func split(n int) int {
	k := 1 << (bits.Len(uint(n)) - 1)
	if k == n {
		k >>= 1
	}
	return k
}

// MTH is the Merkle Tree Hash of the leaves (RFC 9162 2.1.1); SHA-256("") for none.
func MTH(d [][]byte) []byte {
	switch len(d) {
	case 0:
		h := sha256.Sum256(nil)
		return h[:]
	case 1:
		return LeafHash(d[0])
	}
	k := split(len(d))
	return NodeHash(MTH(d[:k]), MTH(d[k:]))
}

// Path is the audit path PATH(m, D[n]) of RFC 9162 2.1.3.1, bottom-up.
func Path(m int, d [][]byte) [][]byte {
	if len(d) <= 1 {
		return nil
	}
	k := split(len(d))
	if m < k {
		return append(Path(m, d[:k]), MTH(d[k:]))
	}
	return append(Path(m-k, d[k:]), MTH(d[:k]))
}

// Proof is the consistency proof PROOF(m, D[n]) of RFC 9162 2.1.4.1.
func Proof(m int, d [][]byte) [][]byte { return subproof(m, d, true) }

func subproof(m int, d [][]byte, b bool) [][]byte {
	n := len(d)
	if m == n {
		if b {
			return nil
		}
		return [][]byte{MTH(d)}
	}
	k := split(n)
	if m <= k {
		return append(subproof(m, d[:k], b), MTH(d[k:]))
	}
	return append(subproof(m-k, d[k:], false), MTH(d[:k]))
}
