// SPDX-License-Identifier: MIT OR Apache-2.0

package proof_test

import (
	"crypto/sha256"
	"errors"
	"math/rand"
	"testing"

	core "merkle.local/go"
	"merkle.local/go/internal/reftest"
	"merkle.local/go/transparency/proof"
	"merkle.local/go/transparency/rfc6962"
)

// goHasher is a LogHasher that the package does not recognise: the pure-Go path.
type goHasher struct{}

func (goHasher) EmptyRoot() []byte               { h := sha256.Sum256(nil); return h[:] }
func (goHasher) HashLeaf(l []byte) []byte        { return reftest.LeafHash(l) }
func (goHasher) HashChildren(l, r []byte) []byte { return reftest.NodeHash(l, r) }
func (goHasher) Size() int                       { return 32 }

func TestVectors(t *testing.T) {
	ran := 0
	for _, v := range reftest.Vectors(t) {
		in := v.Input
		valid := string(v.Expected["valid"]) == "true"
		for _, h := range []interface {
			EmptyRoot() []byte
			HashLeaf([]byte) []byte
			HashChildren(l, r []byte) []byte
			Size() int
		}{rfc6962.DefaultHasher, goHasher{}} {
			var err error
			switch v.Op {
			case "verify_inclusion":
				err = proof.VerifyInclusion(h, uint64(reftest.Int(t, in, "index")), uint64(reftest.Int(t, in, "tree_size")),
					reftest.HexField(t, in, "leaf_hash"), reftest.HexList(t, in, "proof"), reftest.HexField(t, in, "root"))
			case "verify_consistency":
				err = proof.VerifyConsistency(h, uint64(reftest.Int(t, in, "size1")), uint64(reftest.Int(t, in, "size2")),
					reftest.HexList(t, in, "proof"), reftest.HexField(t, in, "root1"), reftest.HexField(t, in, "root2"))
			default:
				continue
			}
			if (err == nil) != valid {
				t.Errorf("%s (%T): valid=%v, got %v", v.ID, h, valid, err)
			}
			ran++
		}
	}
	if ran < 300 {
		t.Errorf("only %d verifications", ran)
	}
}

func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for n := 1; n <= 40; n++ {
		leaves := make([][]byte, n)
		for i := range leaves {
			leaves[i] = make([]byte, r.Intn(40))
			r.Read(leaves[i])
		}
		root := reftest.MTH(leaves)
		for i := 0; i < n; i++ {
			p := reftest.Path(i, leaves)
			lh := reftest.LeafHash(leaves[i])
			for _, h := range []interface {
				EmptyRoot() []byte
				HashLeaf([]byte) []byte
				HashChildren(l, r []byte) []byte
				Size() int
			}{rfc6962.DefaultHasher, goHasher{}} {
				if err := proof.VerifyInclusion(h, uint64(i), uint64(n), lh, p, root); err != nil {
					t.Fatalf("n=%d i=%d: %v", n, i, err)
				}
				bad := append([]byte(nil), root...)
				bad[0] ^= 1
				var rm proof.RootMismatchError
				if err := proof.VerifyInclusion(h, uint64(i), uint64(n), lh, p, bad); !errors.As(err, &rm) {
					t.Fatalf("n=%d i=%d: want RootMismatchError, got %v", n, i, err)
				}
				if err := proof.VerifyInclusion(h, uint64(i), uint64(n), lh, append(p, root), root); err == nil {
					t.Fatal("long proof accepted")
				}
				if err := proof.VerifyInclusion(h, uint64(n), uint64(n), lh, p, root); err == nil {
					t.Fatal("index beyond size accepted")
				}
			}
		}
		for m := 1; m <= n; m++ {
			p := reftest.Proof(m, leaves)
			old := reftest.MTH(leaves[:m])
			for _, h := range []interface {
				EmptyRoot() []byte
				HashLeaf([]byte) []byte
				HashChildren(l, r []byte) []byte
				Size() int
			}{rfc6962.DefaultHasher, goHasher{}} {
				if err := proof.VerifyConsistency(h, uint64(m), uint64(n), p, old, root); err != nil {
					t.Fatalf("n=%d m=%d: %v", n, m, err)
				}
				got, err := proof.RootFromConsistencyProof(h, uint64(m), uint64(n), p, old)
				if err != nil || string(got) != string(root) {
					t.Fatalf("n=%d m=%d: RootFromConsistencyProof %x %v", n, m, got, err)
				}
				if len(p) > 0 {
					bad := append([][]byte(nil), p...)
					bad[0] = append([]byte(nil), p[0]...)
					bad[0][0] ^= 1
					if err := proof.VerifyConsistency(h, uint64(m), uint64(n), bad, old, root); err == nil {
						t.Fatalf("n=%d m=%d: tampered proof accepted", n, m)
					}
				}
			}
		}
	}
	for _, c := range []struct {
		s1, s2 uint64
		msg    string
	}{{0, 3, "consistency proof from empty tree is meaningless"}, {4, 3, "size2 (4) < size1 (3)"}, {2, 2, "size1=size2, but proof is not empty"}} {
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, c.s1, c.s2, [][]byte{make([]byte, 32)}, make([]byte, 32), make([]byte, 32)); err == nil || err.Error() != c.msg {
			t.Errorf("%d->%d: %v", c.s1, c.s2, err)
		}
	}
	if err := proof.VerifySubtreeInclusion(rfc6962.DefaultHasher, 5, 4, 8, reftest.LeafHash(nil), nil, nil); err == nil {
		t.Error("subtree: bad proof accepted")
	}
	if core.InclusionPathLen(0, 1) != 0 {
		t.Error("path len")
	}
}
