// SPDX-License-Identifier: MIT OR Apache-2.0

package compact_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"merkle.local/go/internal/reftest"
	"merkle.local/go/transparency/compact"
	"merkle.local/go/transparency/rfc6962"
)

var factories = map[string]*compact.RangeFactory{
	"libmerkle": {Hash: rfc6962.DefaultHasher.HashChildren},
	"go":        {Hash: func(l, r []byte) []byte { return reftest.NodeHash(l, r) }},
}

// mth of leaves [lo, hi) when that is a perfect aligned subtree.
func subtree(leaves [][]byte, id compact.NodeID) []byte {
	b, e := id.Coverage()
	return reftest.MTH(leaves[b:e])
}

func TestRanges(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	leaves := make([][]byte, 300)
	for i := range leaves {
		leaves[i] = []byte(fmt.Sprint(i))
	}
	for name, f := range factories {
		for n := 0; n <= 300; n += 1 + n/7 {
			// [0, n) by appends, the root against the reference.
			cr := f.NewEmptyRange(0)
			for i := 0; i < n; i++ {
				if err := cr.Append(reftest.LeafHash(leaves[i]), nil); err != nil {
					t.Fatal(err)
				}
			}
			root, err := cr.GetRootHash(nil)
			if n == 0 {
				if root != nil || err != nil {
					t.Fatalf("%s: empty root %x %v", name, root, err)
				}
				continue
			}
			if err != nil || !bytes.Equal(root, reftest.MTH(leaves[:n])) || cr.End() != uint64(n) {
				t.Fatalf("%s n=%d: root %x %v", name, n, root, err)
			}
			// Hashes are the RangeNodes' subtree roots.
			ids := compact.RangeNodes(0, uint64(n), nil)
			hs := cr.Hashes()
			if len(hs) != len(ids) || len(ids) != compact.RangeSize(0, uint64(n)) {
				t.Fatalf("%s n=%d: %d hashes, %d ids", name, n, len(hs), len(ids))
			}
			for i, id := range ids {
				if !bytes.Equal(hs[i], subtree(leaves, id)) {
					t.Fatalf("%s n=%d: hash %d (%v)", name, n, i, id)
				}
			}
			// A split at a random point, merged, with a visitor on one side.
			m := r.Intn(n + 1)
			a, b := f.NewEmptyRange(0), f.NewEmptyRange(uint64(m))
			for i := 0; i < m; i++ {
				a.Append(reftest.LeafHash(leaves[i]), nil)
			}
			visited := 0
			for i := m; i < n; i++ {
				b.Append(reftest.LeafHash(leaves[i]), func(id compact.NodeID, h []byte) {
					visited++
					if !bytes.Equal(h, subtree(leaves, id)) {
						t.Fatalf("%s: visitor %v", name, id)
					}
				})
			}
			if n > m && visited < n-m {
				t.Fatalf("%s: %d visits", name, visited)
			}
			if err := a.AppendRange(b, nil); err != nil {
				t.Fatal(err)
			}
			if !a.Equal(cr) {
				t.Fatalf("%s n=%d m=%d: merged range differs", name, n, m)
			}
			// NewRange from hashes, then the root with a visitor.
			nr, err := f.NewRange(0, uint64(n), append([][]byte(nil), hs...))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := nr.GetRootHash(func(id compact.NodeID, h []byte) {
				b, e := id.Coverage() // an ephemeral node: the part of its subtree below n
				if e > uint64(n) {
					e = uint64(n)
				}
				if !bytes.Equal(h, reftest.MTH(leaves[b:e])) {
					t.Fatalf("%s: root visitor %v", name, id)
				}
			})
			if !bytes.Equal(got, root) {
				t.Fatalf("%s: NewRange root", name)
			}
		}
	}
	f := factories["libmerkle"]
	a, b := f.NewEmptyRange(0), f.NewEmptyRange(3)
	if err := a.AppendRange(b, nil); err == nil || err.Error() != "ranges are disjoint: other.begin=3, want 0" {
		t.Errorf("disjoint: %v", err)
	}
	if err := a.AppendRange(factories["go"].NewEmptyRange(0), nil); err == nil {
		t.Error("incompatible ranges merged")
	}
	if _, err := b.GetRootHash(nil); err == nil {
		t.Error("root of a range not at 0")
	}
	if _, err := f.NewRange(0, 3, nil); err == nil {
		t.Error("NewRange with too few hashes")
	}
	if l, rr := compact.Decompose(3, 9); l != 5 || rr != 1 { // [3,4) [4,8) | [8,9)
		t.Errorf("Decompose(3, 9) = %d, %d", l, rr)
	}
	id := compact.NewNodeID(2, 3)
	if b, e := id.Coverage(); b != 12 || e != 16 || id.Parent() != compact.NewNodeID(3, 1) || id.Sibling() != compact.NewNodeID(2, 2) {
		t.Error("NodeID")
	}
}

func BenchmarkAppend(b *testing.B) {
	hashes := make([][]byte, 1<<16)
	for i := range hashes {
		hashes[i] = reftest.LeafHash([]byte(fmt.Sprint(i)))
	}
	for _, name := range []string{"libmerkle", "go"} {
		f := factories[name]
		b.Run(name, func(b *testing.B) {
			cr := f.NewEmptyRange(0)
			for i := 0; i < b.N; i++ {
				cr.Append(hashes[i&(1<<16-1)], nil)
			}
			cr.GetRootHash(nil)
		})
	}
}
