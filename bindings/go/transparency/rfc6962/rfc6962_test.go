// SPDX-License-Identifier: MIT OR Apache-2.0

package rfc6962_test

import (
	"bytes"
	"crypto"
	_ "crypto/sha512"
	"fmt"
	"testing"

	"merkle.local/go/internal/reftest"
	"merkle.local/go/transparency/rfc6962"
)

func TestHasher(t *testing.T) {
	h := rfc6962.DefaultHasher
	if h.Size() != 32 || !rfc6962.IsLibmerkleSHA256(h) || rfc6962.IsLibmerkleSHA256(rfc6962.New(crypto.SHA512)) {
		t.Fatal("size / detection")
	}
	for _, l := range [][]byte{nil, {}, []byte("L123456"), bytes.Repeat([]byte{7}, 1000)} {
		if !bytes.Equal(h.HashLeaf(l), reftest.LeafHash(l)) {
			t.Errorf("leaf %x", l)
		}
	}
	a, b := reftest.LeafHash([]byte("a")), []byte("short")
	if !bytes.Equal(h.HashChildren(a, a), reftest.NodeHash(a, a)) || !bytes.Equal(h.HashChildren(a, b), reftest.NodeHash(a, b)) {
		t.Error("children")
	}
	if !bytes.Equal(h.EmptyRoot(), reftest.MTH(nil)) {
		t.Error("empty root")
	}
	// Another digest goes through crypto.Hash.
	s := rfc6962.New(crypto.SHA512)
	w := crypto.SHA512.New()
	w.Write([]byte{0, 'x'})
	if !bytes.Equal(s.HashLeaf([]byte("x")), w.Sum(nil)) || len(s.HashChildren(a, a)) != 64 {
		t.Error("sha512")
	}
}

func ExampleHasher() {
	h := rfc6962.DefaultHasher
	fmt.Printf("%x\n", h.EmptyRoot()[:8])
	fmt.Printf("%x\n", h.HashLeaf(nil)[:8])
	// Output:
	// e3b0c44298fc1c14
	// 6e340b9cffb37a98
}
