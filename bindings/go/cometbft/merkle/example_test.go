// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"fmt"

	"merkle.local/go/cometbft/merkle"
)

func ExampleProofsFromByteSlices() {
	items := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	root, proofs := merkle.ProofsFromByteSlices(items)
	fmt.Printf("%x\n", merkle.HashFromByteSlices(items)[:8])
	fmt.Println(proofs[2].Total, proofs[2].Index, len(proofs[2].Aunts))
	fmt.Println(proofs[2].Verify(root, []byte("c")))
	fmt.Println(proofs[2].Verify(root, []byte("d")) != nil)
	// Output:
	// 36642e73c2540ab1
	// 3 2 1
	// <nil>
	// true
}
