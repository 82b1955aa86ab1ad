// SPDX-License-Identifier: MIT OR Apache-2.0

package proof_test

import (
	"fmt"

	"merkle.local/go/transparency/proof"
	"merkle.local/go/transparency/rfc6962"
)

func ExampleVerifyInclusion() {
	h := rfc6962.DefaultHasher
	a, b, c := h.HashLeaf([]byte("a")), h.HashLeaf([]byte("b")), h.HashLeaf([]byte("c"))
	ab := h.HashChildren(a, b)
	root := h.HashChildren(ab, c)
	fmt.Println(proof.VerifyInclusion(h, 2, 3, c, [][]byte{ab}, root))
	fmt.Println(proof.VerifyConsistency(h, 2, 3, [][]byte{c}, ab, root))
	fmt.Println(proof.VerifyInclusion(h, 2, 3, c, [][]byte{a}, root) != nil)
	// Output:
	// <nil>
	// <nil>
	// true
}
