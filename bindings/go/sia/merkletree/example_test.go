// SPDX-License-Identifier: MIT OR Apache-2.0

package merkletree_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"merkle.local/go/sia/merkletree"
)

func ExampleBuildReaderProof() {
	data := bytes.Repeat([]byte("sia!"), 100) // 400 bytes: 7 segments of 64
	root, _ := merkletree.ReaderRoot(bytes.NewReader(data), sha256.New(), 64)
	r2, proofSet, n, err := merkletree.BuildReaderProof(bytes.NewReader(data), sha256.New(), 64, 6)
	fmt.Println(bytes.Equal(root, r2), n, len(proofSet), len(proofSet[0]), err)
	fmt.Println(merkletree.VerifyProof(sha256.New(), root, proofSet, 6, n))
	// Output:
	// true 7 3 16 <nil>
	// true
}

func ExampleTree() {
	t := merkletree.New(sha256.New())
	t.SetIndex(1)
	for _, s := range []string{"a", "b", "c"} {
		t.Push([]byte(s))
	}
	root, proofSet, index, leaves := t.Prove()
	fmt.Printf("%x %q %d %d %v\n", root[:8], proofSet[0], index, leaves, merkletree.VerifyProof(sha256.New(), root, proofSet, index, leaves))
	// Output: 36642e73c2540ab1 "b" 1 3 true
}
