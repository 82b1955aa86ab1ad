// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"merkle.local/go/internal/reftest"
)

func TestVectors(t *testing.T) {
	ran := 0
	for _, v := range reftest.Vectors(t) {
		if v.Format != "cometbft" {
			continue
		}
		leaves := reftest.Leaves(t, v.Input["leaves"])
		root := reftest.HexField(t, v.Expected, "root")
		switch v.Op {
		case "root":
			if got := HashFromByteSlices(leaves); !bytes.Equal(got, root) {
				t.Errorf("%s: %x", v.ID, got)
			}
		case "proof":
			idx := reftest.Int(t, v.Input, "index")
			gotRoot, proofs := ProofsFromByteSlices(leaves)
			if !bytes.Equal(gotRoot, root) || len(proofs) != len(leaves) {
				t.Errorf("%s: root %x", v.ID, gotRoot)
			}
			if reftest.Has(v.Expected, "error") {
				p := &Proof{Total: int64(len(leaves)), Index: idx, LeafHash: LeafHash(nil)}
				want := reftest.Str(t, v.Expected, "go_error")
				err := p.Verify(root, nil)
				if err == nil || !strings.HasSuffix(want, err.Error()) {
					t.Errorf("%s: error %v, upstream %q", v.ID, err, want)
				}
				break
			}
			p := proofs[idx]
			aunts := reftest.HexList(t, v.Expected, "aunts")
			if p.Total != reftest.Int(t, v.Expected, "total") || p.Index != idx ||
				!bytes.Equal(p.LeafHash, reftest.HexField(t, v.Expected, "leaf_hash")) || fmt.Sprint(p.Aunts) != fmt.Sprint(aunts) {
				t.Errorf("%s: proof %+v", v.ID, p)
			}
			if err := p.Verify(root, leaves[idx]); err != nil {
				t.Errorf("%s: %v", v.ID, err)
			}
		}
		ran++
	}
	if ran < 20 {
		t.Errorf("only %d cometbft vectors", ran)
	}
}

// reference is CometBFT's recursive rule from its documentation, on crypto/sha256.
func referenceTrails(items [][]byte) (root []byte, aunts [][][]byte) {
	aunts = make([][][]byte, len(items))
	var rec func(lo, hi int) []byte
	rec = func(lo, hi int) []byte {
		if hi-lo == 1 {
			return reftest.LeafHash(items[lo])
		}
		k := lo + int(getSplitPoint(int64(hi-lo)))
		l, r := rec(lo, k), rec(k, hi)
		for i := lo; i < k; i++ {
			aunts[i] = append(aunts[i], r)
		}
		for i := k; i < hi; i++ {
			aunts[i] = append(aunts[i], l)
		}
		return reftest.NodeHash(l, r)
	}
	if len(items) == 0 {
		return reftest.MTH(nil), nil
	}
	return rec(0, len(items)), aunts
}

func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for n := 0; n < 100; n++ {
		items := make([][]byte, n)
		for i := range items {
			items[i] = make([]byte, r.Intn(100))
			r.Read(items[i])
		}
		wantRoot, wantAunts := referenceTrails(items)
		if got := HashFromByteSlices(items); !bytes.Equal(got, wantRoot) {
			t.Fatalf("n=%d root", n)
		}
		root, proofs := ProofsFromByteSlices(items)
		if !bytes.Equal(root, wantRoot) {
			t.Fatalf("n=%d proofs root", n)
		}
		trails, rootNode := trailsFromByteSlices(items)
		if !bytes.Equal(rootNode.Hash, wantRoot) || len(trails) != n {
			t.Fatalf("n=%d trails", n)
		}
		for i, p := range proofs {
			if len(p.Aunts) != len(wantAunts[i]) || fmt.Sprint(p.Aunts) != fmt.Sprint(wantAunts[i]) ||
				fmt.Sprint(trails[i].FlattenAunts()) != fmt.Sprint(wantAunts[i]) {
				t.Fatalf("n=%d i=%d aunts", n, i)
			}
			if err := p.Verify(root, items[i]); err != nil {
				t.Fatalf("n=%d i=%d: %v", n, i, err)
			}
			if err := p.ValidateBasic(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p.ComputeRootHash(), root) {
				t.Fatalf("n=%d i=%d ComputeRootHash", n, i)
			}
			// The error paths, with CometBFT's messages.
			bad := *p
			bad.Aunts = append(append([][]byte{}, p.Aunts...), root)
			if err := bad.Verify(root, items[i]); err == nil || err.Error() != "compute root hash: unexpected inner hashes" {
				t.Fatalf("long: %v", err)
			}
			if bad.ComputeRootHash() != nil {
				t.Fatal("long ComputeRootHash")
			}
			if len(p.Aunts) > 0 {
				bad.Aunts = p.Aunts[1:]
				if err := bad.Verify(root, items[i]); err == nil || err.Error() != "compute root hash: expected at least one inner hash" {
					t.Fatalf("short: %v", err)
				}
				bad.Aunts = append([][]byte{}, p.Aunts...)
				bad.Aunts[0] = make([]byte, 32)
				if err := bad.Verify(root, items[i]); err == nil || !strings.HasPrefix(err.Error(), "invalid root hash: wanted") {
					t.Fatalf("tampered: %v", err)
				}
				// Aunts of another length are hashed as they are (as CometBFT does).
				bad.Aunts[0] = []byte{1, 2, 3}
				if bad.ComputeRootHash() == nil {
					t.Fatal("odd-length aunt")
				}
			}
			if err := p.Verify(root, append(items[i], 0)); err == nil || !strings.HasPrefix(err.Error(), "invalid leaf hash") {
				t.Fatalf("leaf: %v", err)
			}
		}
	}
	p := &Proof{Total: 1, Index: 0, LeafHash: LeafHash(nil)}
	if p.Verify(nil, nil) == nil || (&Proof{Total: -1}).Verify([]byte{}, nil) == nil || (&Proof{Index: -1}).Verify([]byte{}, nil) == nil {
		t.Error("nil root / negative fields")
	}
	if (&Proof{LeafHash: []byte{1}}).ValidateBasic() == nil || (&Proof{LeafHash: make([]byte, 32), Aunts: make([][]byte, 101)}).ValidateBasic() == nil {
		t.Error("ValidateBasic")
	}
	if !bytes.Equal(InnerHash([]byte("ab"), []byte("c")), reftest.NodeHash([]byte("ab"), []byte("c"))) {
		t.Error("InnerHash of other lengths")
	}
	if !strings.Contains(p.String(), "Aunts") {
		t.Error("String")
	}
}

func BenchmarkHashFromByteSlices(b *testing.B) {
	items := make([][]byte, 100000)
	for i := range items {
		items[i] = make([]byte, 64)
		rand.Read(items[i])
	}
	b.Run("libmerkle", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			HashFromByteSlices(items)
		}
	})
	b.Run("pure-go-reference", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			reftest.MTH(items)
		}
	})
}

func BenchmarkProofsFromByteSlices(b *testing.B) {
	items := make([][]byte, 10000)
	for i := range items {
		items[i] = make([]byte, 64)
		rand.Read(items[i])
	}
	b.Run("libmerkle", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ProofsFromByteSlices(items)
		}
	})
	b.Run("pure-go-reference", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			referenceTrails(items)
		}
	})
}
