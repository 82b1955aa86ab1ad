// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	merkle "merkle.local/go"
)

// treeVectors loads tests/vectors/tree-public.json (merkledb node IDs and trie roots, CLVM
// tree hashes and serializations produced by the peers; skipped when absent).
func treeVectors(t *testing.T) map[string]map[string][]map[string]any {
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "tests", "vectors", "tree-public.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("vectors not found (%v)", err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]map[string]any{}
	for _, sec := range []string{"merkledb", "clvm"} {
		var m map[string][]map[string]any
		if err := json.Unmarshal(doc[sec], &m); err != nil {
			t.Fatal(err)
		}
		out[sec] = m
	}
	return out
}

func hx(t *testing.T, v any) []byte {
	s, ok := v.(string)
	if !ok {
		t.Fatalf("not a hex string: %v", v)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTrieVectors(t *testing.T) {
	v := treeVectors(t)["merkledb"]
	for _, c := range v["node_id"] {
		node := c["node"].(map[string]any)
		var value []byte
		if node["value_hex"] != nil {
			value = hx(t, node["value_hex"])
			if value == nil {
				value = []byte{}
			}
		}
		var kids []merkle.TrieChild
		for _, k := range node["children"].([]any) {
			km := k.(map[string]any)
			var id [32]byte
			copy(id[:], hx(t, km["child_id_hex"]))
			kids = append(kids, merkle.TrieChild{Index: int(km["index"].(float64)), ID: id})
		}
		got, err := merkle.TrieNodeID(hx(t, node["key_hex"]), int(node["key_bit_length"].(float64)), value, kids)
		if err != nil || !bytes.Equal(got[:], hx(t, c["expected_id_hex"])) {
			t.Errorf("%s: %x %v", c["id"], got, err)
		}
		if s, err := merkle.CB58Encode(got[:]); err != nil || s != c["expected_id_cb58"] {
			t.Errorf("%s: cb58 %q %v", c["id"], s, err)
		}
	}
	for _, c := range v["cb58"] {
		b := hx(t, c["bytes_hex"])
		s, err := merkle.CB58Encode(b)
		if err != nil || s != c["cb58"] {
			t.Errorf("cb58(%x) = %q %v", b, s, err)
		}
		back, err := merkle.CB58Decode(s)
		if err != nil || !bytes.Equal(back, b) {
			t.Errorf("cb58 decode %q = %x %v", s, back, err)
		}
	}
	roots := 0
	for _, c := range v["trie_root"] {
		tr, err := merkle.NewTrie(int(c["branch_factor"].(float64)))
		if err != nil {
			t.Fatal(err)
		}
		var keys [][]byte
		if kv, ok := c["kv"].([]any); ok {
			for _, p := range kv {
				pair := p.([]any)
				k, val := hx(t, pair[0]), hx(t, pair[1])
				if val == nil {
					val = []byte{}
				}
				keys = append(keys, k)
				if err := tr.Put(k, val); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			for i := 0; i < int(c["num_keys"].(float64)); i++ {
				k := binary.AppendUvarint(nil, uint64(i))
				val := sha256.Sum256(k)
				keys = append(keys, k)
				if err := tr.Put(k, val[:]); err != nil {
					t.Fatal(err)
				}
			}
		}
		root, err := tr.Root(2)
		if err != nil || !bytes.Equal(root[:], hx(t, c["expected_root_hex"])) {
			t.Errorf("%s: root %x %v", c["id"], root, err)
		}
		if id, err := merkle.ParseTrieID(c["expected_root_cb58"].(string)); err != nil || id != root {
			t.Errorf("%s: ParseTrieID %x %v", c["id"], id, err)
		}
		// Every key's proof verifies and binds its key and value; a proof of another key
		// does not pass for this one.
		for i, k := range keys {
			proof, err := tr.Prove(k)
			if err != nil {
				t.Fatalf("%s: prove: %v", c["id"], err)
			}
			val, found, err := tr.Get(k)
			if err != nil || !found {
				t.Fatalf("%s: get %x: %v %v", c["id"], k, found, err)
			}
			if err := merkle.VerifyTrieKey(root, proof, k, val); err != nil {
				t.Errorf("%s: verify key %x: %v", c["id"], k, err)
			}
			if err := merkle.VerifyTrieKey(root, proof, k, append(append([]byte{}, val...), 1)); !errors.Is(err, merkle.ErrVerify) {
				t.Errorf("%s: another value passed: %v", c["id"], err)
			}
			if err := merkle.VerifyTrieKey(root, proof, k, nil); !errors.Is(err, merkle.ErrVerify) {
				t.Errorf("%s: absence passed for a present key: %v", c["id"], err)
			}
			if len(keys) > 1 {
				other := keys[(i+1)%len(keys)]
				if err := merkle.VerifyTrieKey(root, proof, other, val); !errors.Is(err, merkle.ErrVerify) {
					t.Errorf("%s: proof of %x passed for %x: %v", c["id"], k, other, err)
				}
			}
		}
		absent := []byte("no such key \xff")
		proof, err := tr.Prove(absent)
		if err != nil {
			t.Fatal(err)
		}
		if err := merkle.VerifyTrieKey(root, proof, absent, nil); err != nil {
			t.Errorf("%s: absence proof: %v", c["id"], err)
		}
		if len(proof) > 8 {
			bad := append([]byte{}, proof...)
			bad[len(bad)-1] ^= 1
			if _, err := merkle.VerifyTrieProof(root, bad); err == nil {
				t.Errorf("%s: a damaged proof verified", c["id"])
			}
		}
		tr.Close()
		tr.Close() // harmless
		if err := tr.Put([]byte("k"), nil); !errors.Is(err, merkle.ErrState) {
			t.Errorf("Put after Close: %v", err)
		}
		roots++
	}
	if roots == 0 {
		t.Fatal("no trie_root vector ran")
	}
}

func TestTrieEdits(t *testing.T) {
	if _, err := merkle.NewTrie(3); !errors.Is(err, merkle.ErrArg) {
		t.Errorf("branch factor 3: %v", err)
	}
	a, _ := merkle.NewTrie(16)
	b, _ := merkle.NewTrie(16)
	defer a.Close()
	defer b.Close()
	for i := 0; i < 500; i++ {
		k := []byte{byte(i), byte(i >> 8), 7}
		_ = a.Put(k, []byte{byte(i)})
		_ = b.Put(k, []byte{byte(i)})
	}
	_ = a.Put([]byte("extra"), []byte{})
	if found, err := a.Delete([]byte("extra")); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	if found, _ := a.Delete([]byte("extra")); found {
		t.Fatal("deleted twice")
	}
	ra, _ := a.Root(1)
	rb, _ := b.Root(2)
	if ra != rb || a.Len() != 500 {
		t.Fatalf("roots after delete differ: %x %x (%d keys)", ra, rb, a.Len())
	}
	_ = a.Put([]byte("empty"), []byte{})
	v, found, err := a.Get([]byte("empty"))
	if !found || err != nil || v == nil || len(v) != 0 {
		t.Fatalf("present empty value: %v %v %v", v, found, err)
	}
	if _, found, _ := a.Get([]byte("absent")); found {
		t.Fatal("absent key found")
	}
	if _, err := merkle.ParseTrieID("00\x0000"); !errors.Is(err, merkle.ErrFormat) {
		t.Errorf("NUL in an ID: %v", err)
	}
	if _, err := merkle.CB58Decode("45PJLM"); !errors.Is(err, merkle.ErrFormat) {
		t.Errorf("bad cb58 checksum: %v", err)
	}
	if _, err := merkle.VerifyTrieProof(ra, []byte("MTRP")); !errors.Is(err, merkle.ErrFormat) {
		t.Errorf("truncated proof: %v", err)
	}
}

func TestCLVMVectors(t *testing.T) {
	v := treeVectors(t)["clvm"]
	n := 0
	for _, c := range v["tree_hash"] {
		var canon []byte
		switch g, _ := c["tree_generator"].(string); {
		case c["canonical_hex"] != nil:
			canon = hx(t, c["canonical_hex"])
		case bytes.Contains([]byte(g), []byte("'atom_fill'")) && c["id"] == "atom-0x1fff-bytes":
			canon = append([]byte{0xc0 | 0x1f, 0xff}, bytes.Repeat([]byte{0xaa}, 0x1fff)...)
		case bytes.Contains([]byte(g), []byte("'atom_fill'")) && c["id"] == "atom-0x2000-bytes":
			canon = append([]byte{0xe0, 0x20, 0x00}, bytes.Repeat([]byte{0xaa}, 0x2000)...)
		default:
			continue // a generated tree this test does not rebuild
		}
		if sum, ok := c["canonical_sha256"]; ok {
			if h := sha256.Sum256(canon); !bytes.Equal(h[:], hx(t, sum)) {
				t.Fatalf("%s: rebuilt the wrong input", c["id"])
			}
		}
		got, err := merkle.CLVMTreeHash(canon, merkle.CLVMOptions{})
		if err != nil || !bytes.Equal(got[:], hx(t, c["tree_hash_hex"])) {
			t.Errorf("%s: %x %v", c["id"], got, err)
		}
		n++
	}
	for _, c := range v["backref_serialize"] {
		if c["canonical_hex"] == nil {
			continue // generated input (atom fills, the bomb): covered by the C tests
		}
		canon := hx(t, c["canonical_hex"])
		want := hx(t, c["backref_clvm_rs_head"].(map[string]any)["hex"])
		got, err := merkle.CLVMCompress(canon, merkle.CLVMOptions{})
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: compress %x %v, want %x", c["id"], got, err, want)
			continue
		}
		back, err := merkle.CLVMCanonical(got, merkle.CLVMOptions{Backrefs: true}, 1<<20)
		if err != nil || !bytes.Equal(back, canon) {
			t.Errorf("%s: expand %x %v", c["id"], back, err)
		}
		h1, _ := merkle.CLVMTreeHash(canon, merkle.CLVMOptions{})
		h2, err := merkle.CLVMTreeHash(got, merkle.CLVMOptions{Backrefs: true})
		if err != nil || h1 != h2 {
			t.Errorf("%s: tree hash of the compressed form %x %v", c["id"], h2, err)
		}
		n++
	}
	for _, c := range v["backref_decode"] {
		in := hx(t, c["input_hex"])
		got, err := merkle.CLVMCanonical(in, merkle.CLVMOptions{Backrefs: true}, 1<<20)
		if c["expect"] == "ok" {
			if err != nil || !bytes.Equal(got, hx(t, c["canonical_hex"])) {
				t.Errorf("%s: %x %v", c["id"], got, err)
			}
			h, err := merkle.CLVMTreeHash(in, merkle.CLVMOptions{Backrefs: true})
			if err != nil || !bytes.Equal(h[:], hx(t, c["tree_hash_hex"])) {
				t.Errorf("%s: tree hash %x %v", c["id"], h, err)
			}
		} else if !errors.Is(err, merkle.ErrFormat) {
			t.Errorf("%s: want ErrFormat, got %v", c["id"], err)
		}
		n++
	}
	if n < 60 {
		t.Fatalf("only %d CLVM vectors ran", n)
	}
	// Errors: back references refused unless asked for, trailing bytes, a size bound.
	if _, err := merkle.CLVMTreeHash(hx(t, "ff83666f6ffe02"), merkle.CLVMOptions{}); !errors.Is(err, merkle.ErrFormat) {
		t.Errorf("backrefs accepted without the option: %v", err)
	}
	if _, err := merkle.CLVMTreeHash([]byte{0x80, 0x80}, merkle.CLVMOptions{}); !errors.Is(err, merkle.ErrFormat) {
		t.Errorf("trailing bytes: %v", err)
	}
	if _, err := merkle.CLVMCanonical(hx(t, "ff83666f6ffe02"), merkle.CLVMOptions{Backrefs: true}, 4); !errors.Is(err, merkle.ErrLimit) {
		t.Errorf("maxLen: %v", err)
	}
	if _, err := merkle.CLVMTreeHash([]byte{0x81, 0x01}, merkle.CLVMOptions{Strict: true}); !errors.Is(err, merkle.ErrFormat) {
		t.Errorf("strict: non-minimal atom accepted: %v", err)
	}
}
