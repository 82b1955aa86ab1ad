// SPDX-License-Identifier: MIT OR Apache-2.0

package merkletree

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"math/rand"
	"testing"

	core "merkle.local/go"
	"merkle.local/go/internal/reftest"
)

// blake2b256 is a hash.Hash over libmerkle's BLAKE2b-256 (the standard library has none;
// callers pass golang.org/x/crypto/blake2b.New256).
type blake2b256 struct{ buf []byte }

func (b *blake2b256) Write(p []byte) (int, error) { b.buf = append(b.buf, p...); return len(p), nil }
func (b *blake2b256) Sum(in []byte) []byte {
	s, _ := core.Sum(core.BLAKE2b256, b.buf)
	return append(in, s[:]...)
}
func (b *blake2b256) Reset()         { b.buf = b.buf[:0] }
func (b *blake2b256) Size() int      { return 32 }
func (b *blake2b256) BlockSize() int { return 128 }

// opaque hides a hash.Hash's identity (block size 1): the pure-Go path.
type opaque struct{ hash.Hash }

func (opaque) BlockSize() int { return 1 }

func hasherFor(t *testing.T, name string, goPath bool) hash.Hash {
	var h hash.Hash
	switch name {
	case "sha256":
		h = sha256.New()
	case "blake2b-256":
		h = &blake2b256{}
	default:
		t.Fatalf("hash %s", name)
	}
	if goPath {
		return opaque{h}
	}
	return h
}

func TestVectors(t *testing.T) {
	ran := 0
	for _, v := range reftest.Vectors(t) {
		if v.Format != "sia-merkletree" {
			continue
		}
		for _, goPath := range []bool{false, true} {
			h := hasherFor(t, v.Hash, goPath)
			if (algOf(h) != 0) == goPath {
				t.Fatalf("%s: detection (go path %v)", v.ID, goPath)
			}
			data := reftest.Stream(t, v.Input["stream"])
			seg := int(reftest.Int(t, v.Input, "segment_size"))
			switch v.Op {
			case "reader_root":
				root, err := ReaderRoot(bytes.NewReader(data), h, seg)
				if reftest.Has(v.Expected, "error") {
					if err == nil {
						t.Errorf("%s: no error", v.ID)
					}
					break
				}
				if err != nil || !bytes.Equal(root, reftest.HexField(t, v.Expected, "root")) {
					t.Errorf("%s (go %v): %x %v", v.ID, goPath, root, err)
				}
				tr := New(h)
				tr.ReadAll(bytes.NewReader(data), seg)
				if !bytes.Equal(tr.Root(), root) {
					t.Errorf("%s: Tree.ReadAll root", v.ID)
				}
			case "reader_proof":
				idx := uint64(reftest.Int(t, v.Input, "index"))
				root, set, n, err := BuildReaderProof(bytes.NewReader(data), h, seg, idx)
				if n != uint64(reftest.Int(t, v.Expected, "num_leaves")) {
					t.Errorf("%s: %d leaves", v.ID, n)
				}
				if reftest.Has(v.Expected, "error") {
					if err == nil || err.Error() != reftest.Str(t, v.Expected, "go_error") {
						t.Errorf("%s: error %v", v.ID, err)
					}
					break
				}
				want := reftest.HexList(t, v.Expected, "proof_set")
				if err != nil || !bytes.Equal(root, reftest.HexField(t, v.Expected, "root")) || fmt.Sprint(set) != fmt.Sprint(want) {
					t.Errorf("%s (go %v): %x %x %v", v.ID, goPath, root, set, err)
				}
				if !VerifyProof(h, root, set, idx, n) {
					t.Errorf("%s: VerifyProof", v.ID)
				}
				tr := New(h)
				tr.SetIndex(idx)
				tr.ReadAll(bytes.NewReader(data), seg)
				r2, s2, i2, n2 := tr.Prove()
				if !bytes.Equal(r2, root) || fmt.Sprint(s2) != fmt.Sprint(want) || i2 != idx || n2 != n {
					t.Errorf("%s: Tree.Prove %x", v.ID, s2)
				}
			default:
				continue
			}
			ran++
		}
	}
	if ran < 60 {
		t.Errorf("only %d sia vectors", ran)
	}
}

func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for n := 0; n <= 40; n++ {
		leaves := make([][]byte, n)
		for i := range leaves {
			leaves[i] = make([]byte, r.Intn(70))
			r.Read(leaves[i])
		}
		for _, goPath := range []bool{false, true} {
			h := hasherFor(t, "sha256", goPath)
			tr := New(h)
			for _, l := range leaves {
				tr.Push(l)
			}
			want := reftest.MTH(leaves)
			if n == 0 {
				want = nil
			}
			if !bytes.Equal(tr.Root(), want) {
				t.Fatalf("n=%d: root", n)
			}
			for i := 0; i <= n; i++ {
				tr := New(h)
				if err := tr.SetIndex(uint64(i)); err != nil {
					t.Fatal(err)
				}
				for _, l := range leaves {
					tr.Push(l)
				}
				root, set, idx, num := tr.Prove()
				if i == n {
					if set != nil {
						t.Fatalf("n=%d: proof of a leaf past the end", n)
					}
					continue
				}
				wantSet := append([][]byte{leaves[i]}, reftest.Path(i, leaves)...)
				if !bytes.Equal(root, want) || fmt.Sprint(set) != fmt.Sprint(wantSet) || idx != uint64(i) || num != uint64(n) {
					t.Fatalf("n=%d i=%d (go %v): %x", n, i, goPath, set)
				}
				if !VerifyProof(h, root, set, uint64(i), uint64(n)) {
					t.Fatalf("n=%d i=%d: VerifyProof", n, i)
				}
				bad := append([][]byte{append([]byte{1}, set[0]...)}, set[1:]...)
				if VerifyProof(h, root, bad, uint64(i), uint64(n)) || VerifyProof(h, root, set[:len(set)-1], uint64(i), uint64(n)) && len(set) > 1 ||
					VerifyProof(h, root, set, uint64(n), uint64(n)) || VerifyProof(h, nil, set, uint64(i), uint64(n)) {
					t.Fatalf("n=%d i=%d: bad proof accepted", n, i)
				}
				if tr.SetIndex(0) == nil {
					t.Fatal("SetIndex on a used tree")
				}
			}
		}
	}
}

// Cached subtrees of 4 segments: the same roots and proofs as the whole tree.
func TestCachedTreeAndSubTrees(t *testing.T) {
	h := sha256.New()
	leaves := make([][]byte, 32)
	for i := range leaves {
		leaves[i] = []byte(fmt.Sprint(i))
	}
	for _, idx := range []uint64{0, 5, 31} {
		ct := NewCachedTree(h, 2)
		if err := ct.SetIndex(idx); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 8; k++ {
			ct.Push(reftest.MTH(leaves[4*k : 4*k+4]))
		}
		inner := append([][]byte{leaves[idx]}, reftest.Path(int(idx%4), leaves[idx/4*4:idx/4*4+4])...)
		root, set, pi, n := ct.Prove(inner)
		want := append([][]byte{leaves[idx]}, reftest.Path(int(idx), leaves)...)
		if !bytes.Equal(root, reftest.MTH(leaves)) || fmt.Sprint(set) != fmt.Sprint(want) || pi != idx || n != 32 {
			t.Fatalf("idx %d: cached proof %x", idx, set)
		}
	}
	// PushSubTree next to pushed leaves.
	tr := New(h)
	tr.SetIndex(9)
	for i := 0; i < 8; i++ {
		tr.Push(leaves[i])
	}
	if err := tr.PushSubTree(2, reftest.MTH(leaves[8:12])); err == nil {
		t.Fatal("subtree holding the proved leaf accepted")
	}
	for i := 8; i < 12; i++ {
		tr.Push(leaves[i])
	}
	if err := tr.PushSubTree(3, reftest.MTH(leaves[16:24])); err == nil { // smallest is 2 (8..12)
		t.Fatal("larger subtree accepted")
	}
	if err := tr.PushSubTree(2, reftest.MTH(leaves[12:16])); err != nil {
		t.Fatal(err)
	}
	root, set, _, n := tr.Prove()
	if !bytes.Equal(root, reftest.MTH(leaves[:16])) || n != 16 || fmt.Sprint(set) != fmt.Sprint(append([][]byte{leaves[9]}, reftest.Path(9, leaves[:16])...)) {
		t.Fatalf("PushSubTree proof %x", set)
	}
	defer func() {
		if recover() == nil {
			t.Error("Prove without SetIndex did not panic")
		}
	}()
	New(h).Prove()
}

func BenchmarkReaderRoot(b *testing.B) {
	data := make([]byte, 64<<20)
	rand.Read(data)
	b.SetBytes(int64(len(data)))
	for _, name := range []string{"libmerkle", "pure-go-tree"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if name == "libmerkle" {
					ReaderRoot(bytes.NewReader(data), &blake2b256{}, 64)
				} else {
					ReaderRoot(bytes.NewReader(data), opaque{&blake2b256{}}, 64)
				}
			}
		})
	}
}
