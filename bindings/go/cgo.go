// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

/*
#cgo pkg-config: merkle
#include <stdlib.h>
#include <string.h>
#include <merkle/merkle.h>

// Root of n leaves stored back to back in base (lens[i] bytes each). The pointer array lives
// in C memory for the duration of the call only (no Go pointer is kept).
merkle_status gm_root_list(uint8_t *out, int profile, int hash, const uint8_t *base,
                                  const size_t *lens, size_t n) {
	if (n == 0)
		return merkle_tree_root_list(out, (merkle_profile)profile, (merkle_hash_alg)hash, NULL,
		                             NULL, 0);
	int same = lens[0] > 0;
	for (size_t i = 1; i < n && same; i++)
		same = lens[i] == lens[0];
	if (same) // equal, non-empty leaves back to back: the root of that buffer, no pointer array
		return merkle_tree_root_bytes(out, (merkle_profile)profile, (merkle_hash_alg)hash, lens[0],
		                              base, lens[0] * n);
	const uint8_t **ptrs = malloc(n * sizeof *ptrs);
	if (!ptrs)
		return MERKLE_ERR_NOMEM;
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		ptrs[i] = base + off;
		off += lens[i];
	}
	merkle_status s = merkle_tree_root_list(out, (merkle_profile)profile, (merkle_hash_alg)hash,
	                                        ptrs, lens, n);
	free(ptrs);
	return s;
}

// Leaf hashes H(0x00 || leaf) of n leaves stored back to back (equal lengths: one batch call).
merkle_status gm_leaf_hashes(uint8_t *out, int hash, const uint8_t *base,
                                    const size_t *lens, size_t n) {
	static const uint8_t zero = 0;
	int same = 1;
	for (size_t i = 1; i < n && same; i++)
		same = lens[i] == lens[0];
	if (n > 0 && same)
		return merkle_hash_batch_strided(out, (merkle_hash_alg)hash, &zero, 1, base, lens[0],
		                                 lens[0], n);
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		merkle_status s = merkle_tree_leaf_hash(out + 32 * i, (merkle_hash_alg)hash, base + off,
		                                        lens[i]);
		if (s != MERKLE_OK)
			return s;
		off += lens[i];
	}
	return MERKLE_OK;
}

// All levels of the RFC 6962 tree over the n >= 1 leaf hashes at buf[0..32n): level l+1
// follows level l (pairs hashed with one batch call, an odd last node promoted). buf holds
// 2n - 1 + depth nodes at most; the number of nodes written is returned in *total.
merkle_status gm_levels(uint8_t *buf, int hash, uint64_t n, uint64_t *total) {
	static const uint8_t one = 1;
	uint8_t *lvl = buf;
	uint64_t m = n, sum = n;
	while (m > 1) {
		uint8_t *next = lvl + 32 * m;
		uint64_t pairs = m / 2;
		merkle_status s = merkle_hash_batch_strided(next, (merkle_hash_alg)hash, &one, 1, lvl, 64,
		                                            64, pairs);
		if (s != MERKLE_OK)
			return s;
		if (m & 1)
			memcpy(next + 32 * pairs, lvl + 32 * (m - 1), 32);
		lvl = next;
		m = pairs + (m & 1);
		sum += m;
	}
	*total = sum;
	return MERKLE_OK;
}

// RFC 9162 section 2.1.3.2: the root that an audit path gives for leaf `index` of a tree of
// `size` leaves. MERKLE_ERR_VERIFY when index >= size or the path has the wrong length.
merkle_status gm_root_from_path(uint8_t *out, int hash, uint64_t index, uint64_t size,
                                       const uint8_t *leaf, const uint8_t *path, size_t len) {
	if (index >= size)
		return MERKLE_ERR_VERIFY;
	uint64_t fn = index, sn = size - 1;
	uint8_t r[32];
	memcpy(r, leaf, 32);
	for (size_t i = 0; i < len; i++) {
		const uint8_t *p = path + 32 * i;
		merkle_status s;
		if (sn == 0)
			return MERKLE_ERR_VERIFY;
		if ((fn & 1) || fn == sn) {
			s = merkle_tree_node_hash(r, (merkle_hash_alg)hash, p, r);
			if (!(fn & 1))
				while (fn != 0 && !(fn & 1)) {
					fn >>= 1;
					sn >>= 1;
				}
		} else {
			s = merkle_tree_node_hash(r, (merkle_hash_alg)hash, r, p);
		}
		if (s != MERKLE_OK)
			return s;
		fn >>= 1;
		sn >>= 1;
	}
	if (sn != 0)
		return MERKLE_ERR_VERIFY;
	memcpy(out, r, 32);
	return MERKLE_OK;
}

// n appends of leaf hashes to a compact range in one call. Where the range's end is aligned,
// blocks of up to 1024 leaves are reduced level by level with one batch hash call per level
// and appended as one subtree (what the appends one by one would have merged to).
merkle_status gm_compact_append_hashes(merkle_compact_range *r, const uint8_t *hashes, size_t n) {
	static const uint8_t one = 1;
	uint8_t a[512][32], b[256][32];
	size_t i = 0;
	while (i < n) {
		unsigned k = 0;
		while (k < 10 && ((r->end >> k) & 1) == 0 && ((size_t)2 << k) <= n - i)
			k++;
		merkle_status s;
		if (k == 0) {
			s = merkle_compact_range_append_leaf_hash(r, hashes + 32 * i);
			i++;
		} else {
			size_t m = (size_t)1 << k;
			s = merkle_hash_batch_strided(&a[0][0], r->hash, &one, 1, hashes + 32 * i, 64, 64,
			                              m / 2);
			uint8_t(*src)[32] = a, (*dst)[32] = b;
			for (m /= 2; s == MERKLE_OK && m > 1; m /= 2) {
				s = merkle_hash_batch_strided(&dst[0][0], r->hash, &one, 1, &src[0][0], 64, 64,
				                              m / 2);
				uint8_t(*t)[32] = src;
				src = dst;
				dst = t;
			}
			if (s == MERKLE_OK)
				s = merkle_compact_range_append_subtree(r, k, src[0]);
			i += (size_t)1 << k;
		}
		if (s != MERKLE_OK)
			return s;
	}
	return MERKLE_OK;
}

// Every leaf hash, every audit path and the root of the RFC 6962 tree over n >= 1 leaves
// stored back to back (CometBFT's ProofsFromByteSlices), from one libmerkle shape tree
// (merkle_shape_tree_alloc_leaves + merkle_shape_tree_branches). paths holds cap hashes,
// offsets n + 1 entries.
merkle_status gm_all_proofs(uint8_t *root, uint8_t *leaf_hashes, uint8_t *paths, size_t cap,
                            uint64_t *offsets, int hash, const uint8_t *base, const size_t *lens,
                            size_t n) {
	merkle_shape sh;
	merkle_status s = merkle_shape_init(&sh, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_RFC6962);
	if (s != MERKLE_OK)
		return s;
	sh.hash = (merkle_hash_alg)hash;
	const uint8_t **ptrs = malloc((n ? n : 1) * sizeof *ptrs);
	if (!ptrs)
		return MERKLE_ERR_NOMEM;
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		ptrs[i] = base + off;
		off += lens[i];
	}
	merkle_shape_tree *t = NULL;
	s = merkle_shape_tree_alloc_leaves(&t, &sh, ptrs, lens, n, NULL);
	free(ptrs);
	if (s != MERKLE_OK)
		return s;
	merkle_shape_tree_root(root, t);
	size_t total = 0;
	s = merkle_shape_tree_branches((uint8_t(*)[32])paths, cap, &total, offsets, t);
	for (size_t i = 0; s == MERKLE_OK && i < n; i++) {
		uint64_t pos;
		s = merkle_shape_tree_position(&pos, t, i);
		if (s == MERKLE_OK)
			s = merkle_shape_tree_node(leaf_hashes + 32 * i, t, pos);
	}
	merkle_shape_tree_free(t);
	return s;
}
*/
import "C"

import "unsafe"

// u8 returns a C pointer to the first byte of b (nil for an empty slice). b holds no Go
// pointers, so passing it to C is allowed by the cgo rules.
func u8(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// h32 returns a C pointer to a digest.
func h32(h *[32]byte) *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(&h[0])) }

// hs returns a C pointer to the first digest of a list (nil when empty).
func hs(h [][32]byte) *[32]C.uint8_t {
	if len(h) == 0 {
		return nil
	}
	return (*[32]C.uint8_t)(unsafe.Pointer(&h[0]))
}

// cpack is a list of items copied back to back into C memory with their lengths: malloc'd,
// so Go neither zeroes it first nor scans it (a make([]byte) of the same size cost more than
// hashing it). The caller frees it with free.
type cpack struct {
	block unsafe.Pointer // lens (n+1 size_t) then the bytes
	lens  *C.size_t
	buf   *C.uint8_t
}

// packed copies items into one C block; it fails only when malloc does.
func packed(items [][]byte) (cpack, error) {
	total := 0
	for _, it := range items {
		total += len(it)
	}
	n := len(items)
	head := C.size_t(n+1) * C.size_t(unsafe.Sizeof(C.size_t(0)))
	block := C.malloc(head + C.size_t(total) + 1) // +1: never a zero-byte allocation
	if block == nil {
		return cpack{}, &Error{Op: "pack", Status: ErrNoMem}
	}
	lens := unsafe.Slice((*C.size_t)(block), n+1)
	bytes := unsafe.Slice((*byte)(unsafe.Add(block, uintptr(head))), total+1)
	off := 0
	for i, it := range items {
		copy(bytes[off:], it)
		off += len(it)
		lens[i] = C.size_t(len(it))
	}
	return cpack{block: block, lens: &lens[0], buf: (*C.uint8_t)(unsafe.Pointer(&bytes[0]))}, nil
}

func (p cpack) free() { C.free(p.block) }

// goBytes copies n bytes of C memory into a new Go slice (C.GoBytes takes an int32 length).
func goBytes(p unsafe.Pointer, n C.size_t) []byte {
	out := make([]byte, int(n))
	if n > 0 {
		copy(out, unsafe.Slice((*byte)(p), int(n)))
	}
	return out
}
