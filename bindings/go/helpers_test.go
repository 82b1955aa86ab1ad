// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle_test

import (
	"encoding/hex"
	"encoding/json"
)

const readChunkForTest = 1 << 20

func jsonUnmarshal(b []byte, v interface{}) error { return json.Unmarshal(b, v) }

func hexOf(b []byte) []byte { return []byte(hex.EncodeToString(b)) }
