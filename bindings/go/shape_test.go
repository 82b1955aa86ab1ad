// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	merkle "merkle.local/go"
)

func repoJSON(t *testing.T, name string, v any) {
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "tests", "vectors", name))
	if err != nil {
		t.Skipf("vectors not found (%v)", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func h32(t *testing.T, s string, reverse bool) [32]byte {
	var h [32]byte
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hash %q", s)
	}
	copy(h[:], b)
	if reverse {
		for i := 0; i < 16; i++ {
			h[i], h[31-i] = h[31-i], h[i]
		}
	}
	return h
}

func TestShapeBitcoin(t *testing.T) {
	var doc struct {
		Blocks, Synthetic []struct {
			Name    string   `json:"name"`
			Txids   []string `json:"txids"`
			Root    string   `json:"root"`
			Mutated bool     `json:"mutated"`
			Proofs  []struct {
				Index  uint64   `json:"index"`
				Branch []string `json:"branch"`
			} `json:"proofs"`
		}
	}
	repoJSON(t, "bitcoin.json", &doc) // bitcoinjs-lib 7.0.5 / merkle-lib 2.0.10
	shape, err := merkle.ShapeOf(merkle.Bitcoin)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range append(doc.Blocks, doc.Synthetic...) {
		// txids and roots are in RPC (display) byte order: reversed
		var txids [][32]byte
		for _, x := range b.Txids {
			txids = append(txids, h32(t, x, true))
		}
		root, mutated, err := shape.Root(txids)
		if err != nil || root != h32(t, b.Root, true) || mutated != b.Mutated {
			t.Errorf("%s: root %x mutated %v %v", b.Name, root, mutated, err)
			continue
		}
		tr, tm, err := shape.Tree(txids)
		if err != nil || tm != b.Mutated {
			t.Fatalf("%s: tree %v %v", b.Name, tm, err)
		}
		if r, _ := tr.Root(); r != root {
			t.Errorf("%s: tree root %x", b.Name, r)
		}
		for _, p := range b.Proofs {
			pos, path, err := tr.Proof(p.Index)
			if err != nil || len(path) != len(p.Branch) {
				t.Fatalf("%s: proof %d: %d hashes %v", b.Name, p.Index, len(path), err)
			}
			for i := range path {
				if path[i] != h32(t, p.Branch[i], true) {
					t.Errorf("%s: proof %d hash %d", b.Name, p.Index, i)
				}
			}
			if err := shape.Verify(root, pos, txids[p.Index], path); err != nil {
				t.Errorf("%s: verify %d: %v", b.Name, p.Index, err)
			}
			if len(path) > 0 {
				path[0][0] ^= 1
				if err := shape.Verify(root, pos, txids[p.Index], path); !errors.Is(err, merkle.ErrVerify) {
					t.Errorf("%s: a damaged branch: %v", b.Name, err)
				}
			}
		}
		tr.Close()
		tr.Close()
		if _, err := tr.Root(); !errors.Is(err, merkle.ErrState) {
			t.Errorf("Root after Close: %v", err)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("only %d Bitcoin vectors ran", n)
	}
}

func TestShapeSSZ(t *testing.T) {
	var doc struct {
		Cases []struct {
			N           int    `json:"n"`
			Limit       uint64 `json:"limit"`
			MixInLength bool   `json:"mix_in_length"`
			Root        string `json:"root"`
			Branches    []struct {
				Gindex string   `json:"gindex"`
				Leaf   string   `json:"leaf"`
				Branch []string `json:"branch"`
			} `json:"branches"`
		} `json:"cases"`
	}
	repoJSON(t, "ssz.json", &doc) // @chainsafe/ssz 1.9.0, persistent-merkle-tree 1.3.1
	base, _ := merkle.ShapeOf(merkle.SSZ)
	n := 0
	for _, c := range doc.Cases {
		// The file holds the peer's branches (leaf, gindex, siblings) but not every chunk:
		// each branch is verified against the peer's root.
		if len(c.Branches) == 0 {
			continue
		}
		shape := base.WithLimit(c.Limit).WithMixInLength(c.MixInLength)
		for _, b := range c.Branches {
			g, err := strconv.ParseUint(b.Gindex, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			var path [][32]byte
			for _, x := range b.Branch {
				path = append(path, h32(t, x, false))
			}
			if err := shape.Verify(h32(t, c.Root, false), g, h32(t, b.Leaf, false), path); err != nil {
				t.Errorf("n=%d limit=%d gindex %d: %v", c.N, c.Limit, g, err)
			}
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d SSZ branches ran", n)
	}
	var r [32]byte
	if got := merkle.MixInLength(r, 0); got == r {
		t.Error("mix_in_length changed nothing")
	}
}

func TestShapeOpenZeppelin(t *testing.T) {
	var doc struct {
		Simple []struct {
			Leaves []string `json:"leaves"`
			Root   string   `json:"root"`
			Single []struct {
				Index     uint64   `json:"index"`
				TreeIndex uint64   `json:"tree_index"`
				Proof     []string `json:"proof"`
			} `json:"single"`
		} `json:"simple"`
	}
	repoJSON(t, "openzeppelin.json", &doc) // @openzeppelin/merkle-tree 1.0.8
	shape, _ := merkle.ShapeOf(merkle.OpenZeppelin)
	n := 0
	for _, c := range doc.Simple {
		var leaves [][32]byte
		for _, x := range c.Leaves {
			leaves = append(leaves, h32(t, x, false))
		}
		tr, _, err := shape.Tree(leaves)
		if err != nil {
			t.Fatal(err)
		}
		root, _ := tr.Root()
		if root != h32(t, c.Root, false) {
			t.Errorf("n=%d: root %x", len(leaves), root)
		}
		paths, offs, err := tr.Branches()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.Single {
			pos, path, err := tr.Proof(s.Index)
			if err != nil || pos != s.TreeIndex || len(path) != len(s.Proof) {
				t.Fatalf("n=%d index %d: pos %d %v", len(leaves), s.Index, pos, err)
			}
			for i := range path {
				if path[i] != h32(t, s.Proof[i], false) || paths[offs[s.Index]+uint64(i)] != path[i] {
					t.Errorf("n=%d index %d: hash %d", len(leaves), s.Index, i)
				}
			}
			if err := shape.Verify(root, pos, leaves[s.Index], path); err != nil {
				t.Errorf("verify: %v", err)
			}
			n++
		}
		tr.Close()
	}
	if n < 10 {
		t.Fatalf("only %d OpenZeppelin proofs ran", n)
	}
}
