// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"bytes"
	"context"
	"fmt"

	merkle "merkle.local/go"
)

func ExampleRootList() {
	leaves := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	root, err := merkle.RootList(merkle.RFC6962, merkle.SHA256, leaves)
	fmt.Printf("%x %v\n", root[:8], err)
	// Output: 36642e73c2540ab1 <nil>
}

func ExampleInclusionProof() {
	leaves := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	hashes, _ := merkle.LeafHashes(merkle.SHA256, leaves)
	path, root, _ := merkle.InclusionProof(merkle.SHA256, hashes, 2)
	fmt.Println(len(path), merkle.VerifyInclusion(merkle.SHA256, root, 3, 2, hashes[2], path))
	// Output: 1 <nil>
}

func ExampleRootReader() {
	data := bytes.Repeat([]byte{7}, 1000)
	root, leaves, err := merkle.RootReader(context.Background(), merkle.Sia, merkle.BLAKE2b256, 64, bytes.NewReader(data))
	same, _ := merkle.RootBytes(merkle.Sia, merkle.BLAKE2b256, 64, data)
	fmt.Println(leaves, err, root == same)
	// Output: 16 <nil> true
}

func ExampleTree() {
	t, _ := merkle.NewTree(merkle.RFC6962, merkle.SHA256, 4096)
	for _, leaf := range []string{"a", "b", "c"} {
		t.PushLeaf([]byte(leaf))
	}
	root, _ := t.Root()
	fmt.Printf("%x\n", root[:8])
	// Output: 36642e73c2540ab1
}
