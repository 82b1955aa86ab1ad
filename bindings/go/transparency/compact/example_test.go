// SPDX-License-Identifier: MIT OR Apache-2.0

package compact_test

import (
	"fmt"

	"merkle.local/go/transparency/compact"
	"merkle.local/go/transparency/rfc6962"
)

func ExampleRange() {
	f := &compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := f.NewEmptyRange(0)
	for _, leaf := range []string{"a", "b", "c"} {
		r.Append(rfc6962.DefaultHasher.HashLeaf([]byte(leaf)), nil)
	}
	root, _ := r.GetRootHash(nil)
	fmt.Printf("%d %d %x\n", r.End(), len(r.Hashes()), root[:8])
	// Output: 3 2 36642e73c2540ab1
}
