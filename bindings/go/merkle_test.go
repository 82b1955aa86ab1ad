// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	merkle "merkle.local/go"
	"merkle.local/go/internal/reftest"
)

func hashes(b [][]byte) [][32]byte {
	out := make([][32]byte, len(b))
	for i := range b {
		copy(out[i][:], b[i])
	}
	return out
}

func alg(t *testing.T, name string) merkle.HashAlg {
	switch name {
	case "sha256":
		return merkle.SHA256
	case "blake2b-256":
		return merkle.BLAKE2b256
	}
	t.Fatalf("hash %q", name)
	return 0
}

func TestVectors(t *testing.T) {
	ran := map[string]int{}
	for _, v := range reftest.Vectors(t) {
		v := v
		in, ex := v.Input, v.Expected
		h := alg(t, v.Hash)
		switch {
		case v.Op == "root" && (v.Format == "rfc6962" || v.Format == "cometbft"):
			leaves := reftest.Leaves(t, in["leaves"])
			got, err := merkle.RootList(merkle.RFC6962, h, leaves)
			if err != nil || !bytes.Equal(got[:], reftest.HexField(t, ex, "root")) {
				t.Errorf("%s: root %x, %v", v.ID, got, err)
			}
		case v.Op == "inclusion_proof":
			leaves := reftest.Leaves(t, in["leaves"])
			lh, _ := merkle.LeafHashes(h, leaves)
			path, root, err := merkle.InclusionProof(h, lh, uint64(reftest.Int(t, in, "index")))
			if reftest.Has(ex, "error") {
				if !errors.Is(err, merkle.ErrRange) {
					t.Errorf("%s: want ErrRange, got %v", v.ID, err)
				}
				break
			}
			if err != nil || !bytes.Equal(root[:], reftest.HexField(t, ex, "root")) ||
				!equalPath(path, reftest.HexList(t, ex, "path")) {
				t.Errorf("%s: %x %x %v", v.ID, path, root, err)
			}
		case v.Op == "consistency_proof":
			leaves := reftest.Leaves(t, in["leaves"])
			lh, _ := merkle.LeafHashes(h, leaves)
			path, oldRoot, newRoot, err := merkle.ConsistencyProof(h, lh, uint64(reftest.Int(t, in, "old_size")))
			if reftest.Has(ex, "error") {
				if !errors.Is(err, merkle.ErrRange) {
					t.Errorf("%s: want ErrRange, got %v", v.ID, err)
				}
				break
			}
			if err != nil || !bytes.Equal(oldRoot[:], reftest.HexField(t, ex, "old_root")) ||
				!bytes.Equal(newRoot[:], reftest.HexField(t, ex, "new_root")) ||
				!equalPath(path, reftest.HexList(t, ex, "proof")) {
				t.Errorf("%s: %x %v", v.ID, path, err)
			}
		case v.Op == "verify_inclusion":
			root, lh, proof := reftest.HexField(t, in, "root"), reftest.HexField(t, in, "leaf_hash"), reftest.HexList(t, in, "proof")
			valid := string(ex["valid"]) == "true"
			if !all32(append([][]byte{root, lh}, proof...)) {
				continue // roots of other lengths: the transparency drop-in's tests
			}
			err := merkle.VerifyInclusion(h, *(*[32]byte)(root), uint64(reftest.Int(t, in, "tree_size")),
				uint64(reftest.Int(t, in, "index")), *(*[32]byte)(lh), hashes(proof))
			if (err == nil) != valid || (err != nil && !errors.Is(err, merkle.ErrVerify)) {
				t.Errorf("%s: valid=%v, got %v", v.ID, valid, err)
			}
		case v.Op == "verify_consistency":
			r1, r2, proof := reftest.HexField(t, in, "root1"), reftest.HexField(t, in, "root2"), reftest.HexList(t, in, "proof")
			valid := string(ex["valid"]) == "true"
			if !all32(append([][]byte{r1, r2}, proof...)) {
				continue // roots of other lengths: the transparency drop-in's tests
			}
			err := merkle.VerifyConsistency(h, *(*[32]byte)(r1), *(*[32]byte)(r2), uint64(reftest.Int(t, in, "size1")),
				uint64(reftest.Int(t, in, "size2")), hashes(proof))
			if (err == nil) != valid || (err != nil && !errors.Is(err, merkle.ErrVerify)) {
				t.Errorf("%s: valid=%v, got %v", v.ID, valid, err)
			}
		case v.Op == "reader_root" && v.Format == "sia-crypto-merkleroot":
			data := reftest.Stream(t, in["stream"])
			got, err := merkle.RootBytes(merkle.Sia, h, 64, data)
			if err != nil || !bytes.Equal(got[:], reftest.HexField(t, ex, "root")) {
				t.Errorf("%s: %x %v", v.ID, got, err)
			}
		case v.Op == "reader_root" && v.Format == "sia-merkletree" && !reftest.Has(ex, "error"):
			data := reftest.Stream(t, in["stream"])
			seg := int(reftest.Int(t, in, "segment_size"))
			want := reftest.HexField(t, ex, "root")
			got, n, err := merkle.RootReader(context.Background(), merkle.RFC6962, h, seg, bytes.NewReader(data))
			if err != nil || n != uint64(reftest.Int(t, ex, "num_leaves")) || (want != nil && !bytes.Equal(got[:], want)) {
				t.Errorf("%s: %x %d %v", v.ID, got, n, err)
			}
		case v.Op == "reader_proof":
			data := reftest.Stream(t, in["stream"])
			seg := int(reftest.Int(t, in, "segment_size"))
			idx := uint64(reftest.Int(t, in, "index"))
			path, root, n, leaf, err := merkle.ProveReader(context.Background(), merkle.RFC6962, h, seg, bytes.NewReader(data), idx)
			if n != uint64(reftest.Int(t, ex, "num_leaves")) {
				t.Errorf("%s: %d leaves", v.ID, n)
			}
			if reftest.Has(ex, "error") {
				if !errors.Is(err, merkle.ErrRange) {
					t.Errorf("%s: want ErrRange, got %v", v.ID, err)
				}
				break
			}
			set := reftest.HexList(t, ex, "proof_set")
			if err != nil || !bytes.Equal(root[:], reftest.HexField(t, ex, "root")) || !bytes.Equal(leaf, set[0]) || !equalPath(path, set[1:]) {
				t.Errorf("%s: %x %x %v", v.ID, path, root, err)
			}
			if err := merkle.VerifySia(h, root, n, idx, leaf, path); err != nil {
				t.Errorf("%s: VerifySia %v", v.ID, err)
			}
			if err := merkle.VerifySia(h, root, n, idx, append(leaf, 1), path); !errors.Is(err, merkle.ErrVerify) {
				t.Errorf("%s: VerifySia of another segment: %v", v.ID, err)
			}
		case v.Op == "range_proof":
			data := reftest.Stream(t, in["stream"])
			seg := int(reftest.Int(t, in, "segment_size"))
			var lr [2]uint64
			if err := jsonUnmarshal(in["leaf_range"], &lr); err != nil {
				t.Fatal(err)
			}
			var leaves [][]byte
			for o := 0; o < len(data); o += seg {
				e := o + seg
				if e > len(data) {
					e = len(data)
				}
				leaves = append(leaves, data[o:e])
			}
			lh, _ := merkle.LeafHashes(h, leaves)
			proof, root, err := merkle.RangeProof(h, lh, lr[0], lr[1])
			if err != nil || !bytes.Equal(root[:], reftest.HexField(t, ex, "root")) || !equalPath(proof, reftest.HexList(t, ex, "proof")) {
				t.Errorf("%s: %x %x %v", v.ID, proof, root, err)
			}
			if err := merkle.VerifyRange(h, root, uint64(len(lh)), lr[0], lr[1], lh[lr[0]:lr[1]], proof); err != nil {
				t.Errorf("%s: VerifyRange: %v", v.ID, err)
			}
		default:
			continue
		}
		ran[v.Op]++
	}
	t.Logf("vectors checked: %v", ran)
	if len(ran) < 8 {
		t.Errorf("too few kinds of vectors ran: %v", ran)
	}
}

func all32(bs [][]byte) bool {
	for _, b := range bs {
		if len(b) != 32 {
			return false
		}
	}
	return true
}

func equalPath(got [][32]byte, want [][]byte) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !bytes.Equal(got[i][:], want[i]) {
			return false
		}
	}
	return true
}

func randomLeaves(r *rand.Rand, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, r.Intn(80))
		r.Read(out[i])
	}
	return out
}

// The reference of internal/reftest (RFC 9162 written out) against the library on random
// trees: roots, every audit path, every consistency proof, and their verification.
func TestDifferentialRFC6962(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n <= 70; n++ {
		leaves := randomLeaves(r, n)
		if n%7 == 3 { // equal lengths take the batch path
			for i := range leaves {
				leaves[i] = make([]byte, 64)
				r.Read(leaves[i])
			}
		}
		want := reftest.MTH(leaves)
		got, err := merkle.RootList(merkle.RFC6962, merkle.SHA256, leaves)
		if err != nil || !bytes.Equal(got[:], want) {
			t.Fatalf("n=%d: root %x want %x (%v)", n, got, want, err)
		}
		lh, err := merkle.LeafHashes(merkle.SHA256, leaves)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			continue
		}
		lv, err := merkle.BuildLevels(merkle.SHA256, lh)
		if lr := lv.Root(); err != nil || !bytes.Equal(lr[:], want) {
			t.Fatalf("n=%d: levels root %x (%v)", n, lv.Root(), err)
		}
		aroot, alh, apaths, aoff, err := merkle.AllProofs(merkle.SHA256, leaves)
		if err != nil || aroot != got || len(aoff) != n+1 {
			t.Fatalf("n=%d: AllProofs %v", n, err)
		}
		for i := 0; i < n; i++ {
			wantPath := reftest.Path(i, leaves)
			if alh[i] != lh[i] || !equalPath(apaths[aoff[i]:aoff[i+1]], wantPath) {
				t.Fatalf("n=%d i=%d: AllProofs path %x", n, i, apaths[aoff[i]:aoff[i+1]])
			}
			path, root, err := merkle.InclusionProof(merkle.SHA256, lh, uint64(i))
			if err != nil || root != got || !equalPath(path, wantPath) {
				t.Fatalf("n=%d i=%d: path %x want %x (%v)", n, i, path, wantPath, err)
			}
			if lp := lv.AppendPath(nil, i); !equalPath(lp, wantPath) || lv.PathLen(i) != len(wantPath) {
				t.Fatalf("n=%d i=%d: Levels path %x", n, i, lp)
			}
			if err := merkle.VerifyInclusion(merkle.SHA256, root, uint64(n), uint64(i), lh[i], path); err != nil {
				t.Fatalf("n=%d i=%d: verify: %v", n, i, err)
			}
			if rr, err := merkle.RootFromPath(merkle.SHA256, uint64(n), uint64(i), lh[i], path); err != nil || rr != root {
				t.Fatalf("n=%d i=%d: RootFromPath %x %v", n, i, rr, err)
			}
			if len(path) > 0 {
				bad := append([][32]byte(nil), path...)
				bad[len(bad)-1][0] ^= 1
				if err := merkle.VerifyInclusion(merkle.SHA256, root, uint64(n), uint64(i), lh[i], bad); !errors.Is(err, merkle.ErrVerify) {
					t.Fatalf("n=%d i=%d: tampered path: %v", n, i, err)
				}
				if _, err := merkle.RootFromPath(merkle.SHA256, uint64(n), uint64(i), lh[i], path[1:]); !errors.Is(err, merkle.ErrVerify) {
					t.Fatalf("n=%d i=%d: short path: %v", n, i, err)
				}
			}
		}
		for m := 1; m <= n; m++ {
			wantProof := reftest.Proof(m, leaves)
			proof, oldRoot, newRoot, err := merkle.ConsistencyProof(merkle.SHA256, lh, uint64(m))
			if err != nil || newRoot != got || !bytes.Equal(oldRoot[:], reftest.MTH(leaves[:m])) || !equalPath(proof, wantProof) {
				t.Fatalf("n=%d m=%d: consistency %x want %x (%v)", n, m, proof, wantProof, err)
			}
			if err := merkle.VerifyConsistency(merkle.SHA256, oldRoot, newRoot, uint64(m), uint64(n), proof); err != nil {
				t.Fatalf("n=%d m=%d: verify: %v", n, m, err)
			}
		}
	}
}

func TestTreeAndCompactRange(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	data := make([]byte, 3*readChunkForTest+12345)
	r.Read(data)
	all := data
	for _, ls := range []int{1, 64, 4096, 1000} {
		data := all
		if ls == 1 {
			data = all[:100000]
		}
		want, err := merkle.RootBytes(merkle.RFC6962, merkle.SHA256, ls, data)
		if err != nil {
			t.Fatal(err)
		}
		var leaves [][]byte
		for o := 0; o < len(data); o += ls {
			e := o + ls
			if e > len(data) {
				e = len(data)
			}
			leaves = append(leaves, data[o:e])
		}
		if ls >= 64 {
			if ref := reftest.MTH(leaves); !bytes.Equal(ref, want[:]) {
				t.Fatalf("ls=%d: RootBytes %x, reference %x", ls, want, ref)
			}
		}
		got, n, err := merkle.RootReader(context.Background(), merkle.RFC6962, merkle.SHA256, ls, bytes.NewReader(data))
		if err != nil || got != want || n != uint64(len(leaves)) {
			t.Fatalf("ls=%d: RootReader %x %d %v", ls, got, n, err)
		}
		par, err := merkle.RootBytesParallel(merkle.RFC6962, merkle.SHA256, ls, data, 2)
		if err != nil || par != want {
			t.Fatalf("ls=%d: parallel %x %v", ls, par, err)
		}
		tr, _ := merkle.NewTree(merkle.RFC6962, merkle.SHA256, ls)
		for o := 0; o < len(data); o += 777 {
			e := o + 777
			if e > len(data) {
				e = len(data)
			}
			tr.Write(data[o:e])
		}
		if got, err := tr.Root(); err != nil || got != want {
			t.Fatalf("ls=%d: Tree %x %v", ls, got, err)
		}
		if _, err := tr.Write([]byte{1}); !errors.Is(err, merkle.ErrState) {
			t.Fatalf("Write after Root: %v", err)
		}
		if len(leaves) < 5000 {
			lh, _ := merkle.LeafHashes(merkle.SHA256, leaves)
			cr, _ := merkle.NewCompactRange(merkle.SHA256, 0)
			half := len(lh) / 3
			cr.AppendLeafHashes(lh[:half])
			right, _ := merkle.NewCompactRange(merkle.SHA256, uint64(half))
			for _, l := range leaves[half:] {
				right.AppendLeaf(l)
			}
			if err := cr.Merge(right); err != nil {
				t.Fatal(err)
			}
			if got, err := cr.Root(); err != nil || got != want || cr.End() != uint64(len(lh)) || cr.Begin() != 0 {
				t.Fatalf("ls=%d: compact %x %v", ls, got, err)
			}
			hs, hts := cr.Hashes()
			if len(hs) != len(hts) || len(hs) == 0 {
				t.Fatalf("Hashes %d %d", len(hs), len(hts))
			}
		}
	}
	// Errors.
	if _, err := merkle.NewTree(merkle.RFC6962, merkle.SHA256, 0); !errors.Is(err, merkle.ErrArg) {
		t.Errorf("leaf size 0: %v", err)
	}
	if _, err := merkle.NewTree(merkle.Bitcoin, merkle.SHA256, 64); !errors.Is(err, merkle.ErrArg) {
		t.Errorf("bitcoin stream: %v", err)
	}
	if _, err := merkle.RootList(merkle.RFC6962, merkle.HashAlg(99), nil); !errors.Is(err, merkle.ErrArg) {
		t.Errorf("bad hash: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := merkle.RootReader(ctx, merkle.RFC6962, merkle.SHA256, 64, bytes.NewReader(all)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	cr, _ := merkle.NewCompactRange(merkle.SHA256, 5)
	if _, err := cr.Root(); !errors.Is(err, merkle.ErrState) {
		t.Errorf("root of [5,5): %v", err)
	}
	if err := cr.AppendSubtree(1, [32]byte{}); !errors.Is(err, merkle.ErrState) {
		t.Errorf("unaligned subtree: %v", err)
	}
	if _, _, _, _, err := merkle.AllProofs(merkle.SHA256, nil); !errors.Is(err, merkle.ErrRange) {
		t.Errorf("AllProofs of nothing: %v", err)
	}
	var e *merkle.Error
	_, _, err := merkle.InclusionProof(merkle.SHA256, nil, 0)
	if !errors.As(err, &e) || e.Status != merkle.ErrRange || e.Op != "InclusionProof" || e.Error() == "" {
		t.Errorf("error value: %#v", err)
	}
}

func TestDigests(t *testing.T) {
	s, _ := merkle.Sum(merkle.SHA256, []byte("abc"))
	if want := sha256.Sum256([]byte("abc")); s != want {
		t.Errorf("sha256 %x", s)
	}
	k, _ := merkle.Sum(merkle.Keccak256, nil)
	if hexs := "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"; string(hexOf(k[:])) != hexs {
		t.Errorf("keccak256('') %x", k)
	}
	if merkle.SHA256.String() != "sha256" || merkle.BLAKE2b256.String() != "blake2b-256" || merkle.Sia.String() != "sia" {
		t.Error("names")
	}
	if h, ls, err := merkle.Sia.Defaults(); err != nil || h != merkle.BLAKE2b256 || ls != 64 {
		t.Errorf("sia defaults %v %d %v", h, ls, err)
	}
	if e, _ := merkle.EmptyRoot(merkle.Sia, merkle.BLAKE2b256); e != ([32]byte{}) {
		t.Errorf("sia empty %x", e)
	}
	l, _ := merkle.LeafHash(merkle.SHA256, []byte("x"))
	n, _ := merkle.NodeHash(merkle.SHA256, l, l)
	if !bytes.Equal(n[:], reftest.NodeHash(reftest.LeafHash([]byte("x")), reftest.LeafHash([]byte("x")))) {
		t.Error("node hash")
	}
	if merkle.Version() == "" {
		t.Error("version")
	}
}

// AppendLeafHashes (aligned blocks reduced in batches) against appends one by one, from
// begins and in chunk sizes that hit every alignment case.
func TestCompactRangeBatches(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	lh := make([][32]byte, 5000)
	for i := range lh {
		r.Read(lh[i][:])
	}
	for _, begin := range []uint64{0, 1, 3, 1024, 1000, 4097, 1 << 40} {
		one, _ := merkle.NewCompactRange(merkle.SHA256, begin)
		for _, h := range lh {
			one.AppendLeafHash(h)
		}
		many, _ := merkle.NewCompactRange(merkle.SHA256, begin)
		for i := 0; i < len(lh); {
			k := 1 + r.Intn(2100)
			if i+k > len(lh) {
				k = len(lh) - i
			}
			if err := many.AppendLeafHashes(lh[i : i+k]); err != nil {
				t.Fatal(err)
			}
			i += k
		}
		a, ah := one.Hashes()
		b, bh := many.Hashes()
		if fmt.Sprint(a, ah) != fmt.Sprint(b, bh) || one.End() != many.End() {
			t.Fatalf("begin %d: batched range differs", begin)
		}
	}
}
