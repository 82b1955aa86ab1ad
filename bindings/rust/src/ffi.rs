// SPDX-License-Identifier: MIT OR Apache-2.0
//! The C declarations of `<merkle/merkle.h>` this crate calls, written by hand and checked
//! against the headers by `tests/ffi_layout.rs` (struct sizes, enum values) and by every
//! test that calls through them. Private to the crate: use the safe API.
#![allow(non_camel_case_types, dead_code)]

use std::os::raw::{c_char, c_int, c_uint, c_void};

pub type merkle_status = c_int;
pub const MERKLE_OK: merkle_status = 0;

pub const HASH_LEN: usize = 32;
pub type Hash = [u8; HASH_LEN];

#[repr(C)]
pub struct merkle_error {
    pub status: merkle_status,
    pub line: u64,
    pub offset: u64,
    pub sys_errno: c_int,
    pub message: [c_char; 200],
}

impl merkle_error {
    pub fn new() -> Self {
        merkle_error { status: 0, line: 0, offset: 0, sys_errno: 0, message: [0; 200] }
    }
}

// merkle_hash_alg / merkle_profile values (never change: see merkle/hash.h, merkle/tree.h)
pub type merkle_hash_alg = c_int;
pub type merkle_profile = c_int;

#[repr(C)]
pub struct merkle_sexp_limits {
    pub max_input: u64,
    pub max_atom: u64,
    pub max_nodes: u64,
    pub max_depth: u64,
}

#[repr(C)]
pub struct merkle_trie_proof_info {
    pub branch_factor: c_uint,
    pub present: c_int,
    pub key: *const u8,
    pub key_len: usize,
    pub value: *const u8,
    pub value_len: usize,
    pub nodes: usize,
}

pub enum merkle_sexp_store {}
pub enum merkle_trie {}
pub enum merkle_shape_tree {}
pub type merkle_sexp_node = u32;

pub const MERKLE_SEXP_BACKREFS: c_uint = 1;
pub const MERKLE_SEXP_STRICT: c_uint = 2;

extern "C" {
    pub fn merkle_strerror(status: merkle_status) -> *const c_char;
    pub fn merkle_version() -> *const c_char;
    pub fn merkle_ct_equal(a: *const c_void, b: *const c_void, n: usize) -> c_int;

    // hash.h
    pub fn merkle_hash(out: *mut u8, alg: merkle_hash_alg, data: *const c_void, len: usize)
        -> merkle_status;
    pub fn merkle_hash_batch_strided(
        out: *mut u8,
        alg: merkle_hash_alg,
        prefix: *const u8,
        prefix_len: usize,
        base: *const u8,
        stride: usize,
        len: usize,
        n: usize,
    ) -> merkle_status;
    pub fn merkle_sha256_backend() -> *const c_char;

    // tree.h
    pub fn merkle_profile_defaults(
        hash: *mut merkle_hash_alg,
        leaf_size: *mut usize,
        profile: merkle_profile,
    ) -> merkle_status;
    pub fn merkle_tree_empty_root(out: *mut u8, profile: merkle_profile, hash: merkle_hash_alg)
        -> merkle_status;
    pub fn merkle_tree_leaf_hash(
        out: *mut u8,
        hash: merkle_hash_alg,
        data: *const c_void,
        len: usize,
    ) -> merkle_status;
    pub fn merkle_tree_node_hash(
        out: *mut u8,
        hash: merkle_hash_alg,
        left: *const u8,
        right: *const u8,
    ) -> merkle_status;
    pub fn merkle_tree_init(
        t: *mut c_void,
        profile: merkle_profile,
        hash: merkle_hash_alg,
        leaf_size: usize,
    ) -> merkle_status;
    pub fn merkle_tree_push_leaf(t: *mut c_void, data: *const c_void, len: usize) -> merkle_status;
    pub fn merkle_tree_push_leaf_hash(t: *mut c_void, hash: *const u8) -> merkle_status;
    pub fn merkle_tree_write(t: *mut c_void, data: *const c_void, len: usize) -> merkle_status;
    pub fn merkle_tree_leaf_count(t: *const c_void) -> u64;
    pub fn merkle_tree_struct_size() -> usize;
    pub fn merkle_tree_struct_align() -> usize;
    pub fn merkle_tree_root(out: *mut u8, is_empty: *mut c_int, t: *mut c_void) -> merkle_status;
    pub fn merkle_tree_root_list(
        out: *mut u8,
        profile: merkle_profile,
        hash: merkle_hash_alg,
        leaves: *const *const u8,
        lens: *const usize,
        n: usize,
    ) -> merkle_status;
    pub fn merkle_tree_root_bytes(
        out: *mut u8,
        profile: merkle_profile,
        hash: merkle_hash_alg,
        leaf_size: usize,
        data: *const c_void,
        len: usize,
    ) -> merkle_status;

    // proof.h
    pub fn merkle_proof_inclusion_path_len(index: u64, size: u64) -> usize;
    pub fn merkle_proof_consistency_path_len(old_size: u64, new_size: u64) -> usize;
    pub fn merkle_proof_inclusion_path(
        path: *mut Hash,
        cap: usize,
        path_len: *mut usize,
        root: *mut u8,
        hash: merkle_hash_alg,
        leaf_hashes: *const Hash,
        n: u64,
        index: u64,
    ) -> merkle_status;
    pub fn merkle_proof_consistency_path(
        path: *mut Hash,
        cap: usize,
        path_len: *mut usize,
        old_root: *mut u8,
        new_root: *mut u8,
        hash: merkle_hash_alg,
        leaf_hashes: *const Hash,
        n: u64,
        old_size: u64,
    ) -> merkle_status;
    pub fn merkle_proof_inclusion_verify(
        hash: merkle_hash_alg,
        root: *const u8,
        size: u64,
        index: u64,
        leaf_hash: *const u8,
        path: *const Hash,
        path_len: usize,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_proof_consistency_verify(
        hash: merkle_hash_alg,
        old_root: *const u8,
        new_root: *const u8,
        old_size: u64,
        new_size: u64,
        path: *const Hash,
        path_len: usize,
        err: *mut merkle_error,
    ) -> merkle_status;

    // shape.h
    pub fn merkle_shape_struct_size() -> usize;
    pub fn merkle_shape_struct_align() -> usize;
    pub fn merkle_shape_init(shape: *mut c_void, version: u32, profile: merkle_profile)
        -> merkle_status;
    pub fn merkle_shape_root(
        out: *mut u8,
        out_flags: *mut u32,
        shape: *const c_void,
        nodes: *const Hash,
        n: u64,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_shape_tree_alloc(
        out: *mut *mut merkle_shape_tree,
        out_flags: *mut u32,
        shape: *const c_void,
        nodes: *const Hash,
        n: u64,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_shape_tree_free(t: *mut merkle_shape_tree);
    pub fn merkle_shape_tree_root(out: *mut u8, t: *const merkle_shape_tree);
    pub fn merkle_shape_tree_count(t: *const merkle_shape_tree) -> u64;
    pub fn merkle_shape_tree_position(out: *mut u64, t: *const merkle_shape_tree, index: u64)
        -> merkle_status;
    pub fn merkle_shape_tree_branch(
        path: *mut Hash,
        cap: usize,
        path_len: *mut usize,
        t: *const merkle_shape_tree,
        pos: u64,
    ) -> merkle_status;
    pub fn merkle_shape_verify(
        shape: *const c_void,
        root: *const u8,
        pos: u64,
        leaf: *const u8,
        path: *const Hash,
        path_len: usize,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_shape_abi_leaf(
        out: *mut u8,
        types: *const c_char,
        row: *const c_char,
        row_len: usize,
        err: *mut merkle_error,
    ) -> merkle_status;

    // sexp.h
    pub fn merkle_sexp_limits_init(limits: *mut merkle_sexp_limits);
    pub fn merkle_sexp_store_alloc(out: *mut *mut merkle_sexp_store) -> merkle_status;
    pub fn merkle_sexp_store_free(store: *mut merkle_sexp_store);
    pub fn merkle_sexp_store_count(store: *const merkle_sexp_store) -> usize;
    pub fn merkle_sexp_atom_new(
        out: *mut merkle_sexp_node,
        store: *mut merkle_sexp_store,
        data: *const u8,
        len: usize,
    ) -> merkle_status;
    pub fn merkle_sexp_pair_new(
        out: *mut merkle_sexp_node,
        store: *mut merkle_sexp_store,
        left: merkle_sexp_node,
        right: merkle_sexp_node,
    ) -> merkle_status;
    pub fn merkle_sexp_is_atom(node: merkle_sexp_node) -> c_int;
    pub fn merkle_sexp_atom(
        data: *mut *const u8,
        len: *mut usize,
        store: *const merkle_sexp_store,
        node: merkle_sexp_node,
    ) -> merkle_status;
    pub fn merkle_sexp_pair(
        left: *mut merkle_sexp_node,
        right: *mut merkle_sexp_node,
        store: *const merkle_sexp_store,
        node: merkle_sexp_node,
    ) -> merkle_status;
    pub fn merkle_sexp_parse(
        out: *mut merkle_sexp_node,
        consumed: *mut usize,
        store: *mut merkle_sexp_store,
        input: *const u8,
        len: usize,
        flags: c_uint,
        limits: *const merkle_sexp_limits,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_sexp_tree_hash(
        out: *mut u8,
        store: *mut merkle_sexp_store,
        node: merkle_sexp_node,
    ) -> merkle_status;
    pub fn merkle_sexp_serialized_length(
        len: *mut u64,
        store: *const merkle_sexp_store,
        node: merkle_sexp_node,
    ) -> merkle_status;
    pub fn merkle_sexp_serialize(
        out: *mut u8,
        cap: usize,
        out_len: *mut usize,
        store: *const merkle_sexp_store,
        node: merkle_sexp_node,
    ) -> merkle_status;
    pub fn merkle_sexp_serialize_backrefs_alloc(
        out: *mut *mut u8,
        out_len: *mut usize,
        store: *mut merkle_sexp_store,
        node: merkle_sexp_node,
        max_out: u64,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_sexp_buffer_free(buf: *mut u8);

    // trie.h
    pub fn merkle_trie_alloc(out: *mut *mut merkle_trie, branch_factor: c_uint) -> merkle_status;
    pub fn merkle_trie_free(t: *mut merkle_trie);
    pub fn merkle_trie_branch_factor(t: *const merkle_trie) -> c_uint;
    pub fn merkle_trie_size(t: *const merkle_trie) -> u64;
    pub fn merkle_trie_put(
        t: *mut merkle_trie,
        key: *const u8,
        key_len: usize,
        value: *const u8,
        value_len: usize,
    ) -> merkle_status;
    pub fn merkle_trie_delete(
        found: *mut c_int,
        t: *mut merkle_trie,
        key: *const u8,
        key_len: usize,
    ) -> merkle_status;
    pub fn merkle_trie_get(
        value: *mut u8,
        cap: usize,
        value_len: *mut usize,
        found: *mut c_int,
        t: *const merkle_trie,
        key: *const u8,
        key_len: usize,
    ) -> merkle_status;
    pub fn merkle_trie_root(
        out: *mut u8,
        t: *mut merkle_trie,
        threads: c_uint,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_trie_prove(
        out: *mut u8,
        cap: usize,
        out_len: *mut usize,
        t: *mut merkle_trie,
        key: *const u8,
        key_len: usize,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_trie_proof_verify(
        info: *mut merkle_trie_proof_info,
        root: *const u8,
        proof: *const u8,
        len: usize,
        err: *mut merkle_error,
    ) -> merkle_status;
}

// ---- checksum manifests (merkle/manifest.h)
pub const MERKLE_MAX_DIGEST_LEN: usize = 64;

#[repr(C)]
pub struct merkle_manifest_entry {
    pub name: *const c_char,
    pub name_len: usize,
    pub line: u64,
    pub alg: merkle_hash_alg,
    pub digest_len: u32,
    pub digest: [u8; MERKLE_MAX_DIGEST_LEN],
    pub binary: u8,
    pub bsd: u8,
}

#[repr(C)]
pub struct merkle_manifest_parser {
    pub alg: merkle_hash_alg,
    pub digest_len: u32,
    pub bsd_reversed: c_int,
    pub reject_dash: c_int,
}

pub enum merkle_manifest {}
pub enum merkle_vcache {}

#[repr(C)]
pub struct merkle_check_result {
    pub status: c_int,
    pub sys_errno: c_int,
    pub from_cache: u8,
    pub size: u64,
    pub digest: [u8; MERKLE_MAX_DIGEST_LEN],
}

pub const MERKLE_CHECK_OPTS_VERSION: u32 = 1;

#[repr(C)]
pub struct merkle_check_opts {
    pub version: u32,
    pub dir: *const c_char,
    pub threads: c_uint,
    pub cache: *mut merkle_vcache,
    pub dash_is_stdin: c_int,
    pub progress: Option<unsafe extern "C" fn(*mut c_void, u64, u64)>,
    pub progress_ctx: *mut c_void,
    pub on_result: Option<unsafe extern "C" fn(*mut c_void, usize, *const merkle_check_result)>,
    pub result_ctx: *mut c_void,
}

extern "C" {
    pub fn merkle_manifest_parser_init(p: *mut merkle_manifest_parser, alg: merkle_hash_alg, digest_len: u32);
    pub fn merkle_manifest_parse_alloc(
        out: *mut *mut merkle_manifest,
        p: *mut merkle_manifest_parser,
        text: *const c_void,
        len: usize,
        first_line: u64,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_manifest_free(m: *mut merkle_manifest);
    pub fn merkle_manifest_count(m: *const merkle_manifest) -> usize;
    pub fn merkle_manifest_entries(m: *const merkle_manifest) -> *const merkle_manifest_entry;
    pub fn merkle_manifest_bad_lines(m: *const merkle_manifest, count: *mut usize) -> *const u64;
    pub fn merkle_manifest_lines(m: *const merkle_manifest) -> u64;
    pub fn merkle_manifest_format_line(
        out: *mut c_char,
        cap: usize,
        out_len: *mut usize,
        alg: merkle_hash_alg,
        digest: *const u8,
        digest_len: usize,
        name: *const c_char,
        flags: u32,
    ) -> merkle_status;
    pub fn merkle_manifest_digest_file(
        out: *mut u8,
        alg: merkle_hash_alg,
        digest_len: usize,
        path: *const c_char,
        size: *mut u64,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_manifest_digest(
        out: *mut u8,
        alg: merkle_hash_alg,
        digest_len: usize,
        data: *const c_void,
        len: usize,
    ) -> merkle_status;
    pub fn merkle_check_opts_init(o: *mut merkle_check_opts, version: u32) -> merkle_status;
    pub fn merkle_manifest_check(
        results: *mut merkle_check_result,
        entries: *const merkle_manifest_entry,
        n: usize,
        opts: *const merkle_check_opts,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_vcache_alloc(out: *mut *mut merkle_vcache, key: *const u8, key_len: usize) -> merkle_status;
    pub fn merkle_vcache_free(c: *mut merkle_vcache);
    pub fn merkle_vcache_load(
        loaded: *mut usize,
        rejected: *mut usize,
        c: *mut merkle_vcache,
        path: *const c_char,
        err: *mut merkle_error,
    ) -> merkle_status;
    pub fn merkle_vcache_save(c: *mut merkle_vcache, path: *const c_char, err: *mut merkle_error) -> merkle_status;
    pub fn merkle_vcache_count(c: *const merkle_vcache) -> usize;
}
