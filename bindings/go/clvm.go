// SPDX-License-Identifier: MIT OR Apache-2.0

package merkle

/*
#include <merkle/sexp.h>
*/
import "C"

import "unsafe"

// CLVMOptions says how a serialized CLVM program is read.
type CLVMOptions struct {
	Backrefs bool // accept back references (the fe token of the "compressed" serialization)
	Strict   bool // reject non-minimal atom encodings (8101, c001...)
}

func (o CLVMOptions) flags() C.uint32_t {
	var f C.uint32_t
	if o.Backrefs {
		f |= C.MERKLE_SEXP_BACKREFS
	}
	if o.Strict {
		f |= C.MERKLE_SEXP_STRICT
	}
	return f
}

// clvm parses one whole program (trailing bytes are ErrFormat) into a new store and calls f
// with it; the store is freed when f returns. Parsing uses the library's default limits for
// untrusted input (64 MiB, 2^26 nodes); a shared subtree is never expanded.
func clvm(op string, program []byte, o CLVMOptions, f func(*C.merkle_sexp_store, C.merkle_sexp_node) error) error {
	var st *C.merkle_sexp_store
	if err := check(op, C.merkle_sexp_store_alloc(&st)); err != nil {
		return err
	}
	defer C.merkle_sexp_store_free(st)
	var node C.merkle_sexp_node
	var used C.size_t
	var e C.merkle_error
	s := C.merkle_sexp_parse(&node, &used, st, u8(program), C.size_t(len(program)), o.flags(), nil, &e)
	if err := checkErr(op, s, &e); err != nil {
		return err
	}
	if int(used) != len(program) {
		return &Error{Op: op, Status: ErrFormat, Detail: "trailing bytes after the program"}
	}
	return f(st, node)
}

// CLVMTreeHash returns the tree hash (sha256tree: H(01 || atom), H(02 || left || right)) of
// one serialized program, canonical or, with o.Backrefs, compressed.
func CLVMTreeHash(program []byte, o CLVMOptions) ([32]byte, error) {
	var out [32]byte
	err := clvm("CLVMTreeHash", program, o, func(st *C.merkle_sexp_store, n C.merkle_sexp_node) error {
		return check("CLVMTreeHash", C.merkle_sexp_tree_hash(h32(&out), st, n))
	})
	return out, err
}

// CLVMCanonical returns the canonical serialization of a program (with o.Backrefs, a
// compressed one is expanded). maxLen bounds the output: a few bytes of back references can
// describe an exponentially large tree; a longer result is ErrLimit.
func CLVMCanonical(program []byte, o CLVMOptions, maxLen int) ([]byte, error) {
	var out []byte
	err := clvm("CLVMCanonical", program, o, func(st *C.merkle_sexp_store, n C.merkle_sexp_node) error {
		var l C.uint64_t
		if err := check("CLVMCanonical", C.merkle_sexp_serialized_length(&l, st, n)); err != nil {
			return err
		}
		if maxLen < 0 || uint64(l) > uint64(maxLen) {
			return &Error{Op: "CLVMCanonical", Status: ErrLimit, Detail: "the canonical form is longer than maxLen"}
		}
		out = make([]byte, int(l)+1)
		var w C.size_t
		if err := check("CLVMCanonical", C.merkle_sexp_serialize(u8(out), C.size_t(len(out)), &w, st, n)); err != nil {
			return err
		}
		out = out[:w:w]
		return nil
	})
	return out, err
}

// CLVMCompress returns the back-reference serialization of a program: clvm_rs's encoder
// output byte for byte (docs/formats.md section 3), never longer than the canonical form.
func CLVMCompress(program []byte, o CLVMOptions) ([]byte, error) {
	var out []byte
	err := clvm("CLVMCompress", program, o, func(st *C.merkle_sexp_store, n C.merkle_sexp_node) error {
		var buf *C.uint8_t
		var l C.size_t
		var e C.merkle_error
		if err := checkErr("CLVMCompress", C.merkle_sexp_serialize_backrefs_alloc(&buf, &l, st, n, 0, &e), &e); err != nil {
			return err
		}
		defer C.merkle_sexp_buffer_free(buf)
		out = goBytes(unsafe.Pointer(buf), l)
		return nil
	})
	return out, err
}
