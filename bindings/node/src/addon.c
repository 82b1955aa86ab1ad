/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The N-API addon of the Node.js package: thin calls into libmerkle. Every function checks
** its arguments' types and sizes and throws a JavaScript Error (with a `code` naming the
** library's status) instead of returning a wrong result. Built against Node-API version 8
** with the headers of the node-api-headers npm package (scripts/build.js).
*/
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <merkle/merkle.h>

#include "addon.h"

#define CHECK_NAPI(env, call)                                                                      \
    do {                                                                                           \
        if ((call) != napi_ok) {                                                                   \
            napi_throw_error((env), "EINTERNAL", "merkle: Node-API call failed: " #call);          \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)

static const char *status_code(merkle_status s)
{
    switch (s) {
    case MERKLE_ERR_ARG: return "MERKLE_ERR_ARG";
    case MERKLE_ERR_BUFFER: return "MERKLE_ERR_BUFFER";
    case MERKLE_ERR_FORMAT: return "MERKLE_ERR_FORMAT";
    case MERKLE_ERR_VERIFY: return "MERKLE_ERR_VERIFY";
    case MERKLE_ERR_IO: return "MERKLE_ERR_IO";
    case MERKLE_ERR_NOMEM: return "MERKLE_ERR_NOMEM";
    case MERKLE_ERR_RANGE: return "MERKLE_ERR_RANGE";
    case MERKLE_ERR_LIMIT: return "MERKLE_ERR_LIMIT";
    case MERKLE_ERR_UNSUPPORTED: return "MERKLE_ERR_UNSUPPORTED";
    case MERKLE_ERR_STATE: return "MERKLE_ERR_STATE";
    case MERKLE_ERR_UNSAFE: return "MERKLE_ERR_UNSAFE";
    default: return "MERKLE_ERR";
    }
}

/* Throw for a failed library call (the detail's message when there is one); returns NULL. */
napi_value throw_status(napi_env env, merkle_status s, const merkle_error *e)
{
    char msg[260];
    if (e && e->message[0])
        snprintf(msg, sizeof msg, "%s", e->message);
    else
        snprintf(msg, sizeof msg, "%s", merkle_strerror(s));
    napi_throw_error(env, status_code(s), msg);
    return NULL;
}

napi_value throw_type(napi_env env, const char *msg)
{
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return NULL;
}

/* argv[i] as bytes (any TypedArray or Buffer). Returns 0 and throws when it is not. */
int get_bytes(napi_env env, napi_value v, const uint8_t **p, size_t *len)
{
    bool is_ta = false;
    if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta) {
        throw_type(env, "merkle: expected a Uint8Array or Buffer");
        return 0;
    }
    napi_typedarray_type type;
    size_t n = 0, off = 0;
    void *data = NULL;
    napi_value ab;
    if (napi_get_typedarray_info(env, v, &type, &n, &data, &ab, &off) != napi_ok) {
        throw_type(env, "merkle: unreadable typed array");
        return 0;
    }
    size_t elem = 1;
    switch (type) {
    case napi_int16_array:
    case napi_uint16_array: elem = 2; break;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array: elem = 4; break;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array: elem = 8; break;
    default: break;
    }
    *p = data ? (const uint8_t *)data : (const uint8_t *)"";
    *len = n * elem;
    return 1;
}

static int get_hash(napi_env env, napi_value v, const uint8_t **p)
{
    size_t len;
    if (!get_bytes(env, v, p, &len)) return 0;
    if (len != MERKLE_HASH_LEN) {
        napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "merkle: a hash must be 32 bytes");
        return 0;
    }
    return 1;
}

int get_u32(napi_env env, napi_value v, uint32_t *out)
{
    double d;
    if (napi_get_value_double(env, v, &d) != napi_ok || d < 0 || d > 4294967295.0 ||
        d != (double)(uint32_t)d) {
        throw_type(env, "merkle: expected an unsigned 32-bit integer");
        return 0;
    }
    *out = (uint32_t)d;
    return 1;
}

/* An index or size: a safe integer (JavaScript numbers hold integers up to 2^53 exactly) or a
** BigInt of at most 64 bits. */
static int get_u64(napi_env env, napi_value v, uint64_t *out)
{
    napi_valuetype t;
    if (napi_typeof(env, v, &t) == napi_ok && t == napi_bigint) {
        bool lossless = false;
        if (napi_get_value_bigint_uint64(env, v, out, &lossless) != napi_ok || !lossless) {
            throw_type(env, "merkle: expected a BigInt in [0, 2^64)");
            return 0;
        }
        return 1;
    }
    double d;
    if (napi_get_value_double(env, v, &d) != napi_ok || d < 0 || d > 9007199254740991.0 ||
        d != (double)(uint64_t)d) {
        throw_type(env, "merkle: expected a non-negative safe integer");
        return 0;
    }
    *out = (uint64_t)d;
    return 1;
}

napi_value new_buffer(napi_env env, const void *src, size_t len)
{
    napi_value out;
    void *dst;
    if (napi_create_buffer_copy(env, len, src ? src : "", &dst, &out) != napi_ok) {
        napi_throw_error(env, "MERKLE_ERR_NOMEM", "merkle: out of memory");
        return NULL;
    }
    return out;
}

/* A Buffer of len bytes to fill; *p receives its memory (NULL when len is 0). */
static napi_value alloc_buffer(napi_env env, size_t len, uint8_t **p)
{
    napi_value out;
    void *d = NULL;
    if (napi_create_buffer(env, len, &d, &out) != napi_ok) {
        napi_throw_error(env, "MERKLE_ERR_NOMEM", "merkle: out of memory");
        return NULL;
    }
    *p = d;
    return out;
}

#define ARGS(n)                                                                                    \
    size_t argc = (n);                                                                             \
    napi_value argv[(n) > 0 ? (n) : 1];                                                            \
    CHECK_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));                         \
    if (argc < (n)) return throw_type(env, "merkle: missing arguments");

/* hash(alg, data) -> Buffer(32) */
static napi_value js_hash(napi_env env, napi_callback_info info)
{
    ARGS(2);
    uint32_t alg;
    const uint8_t *p;
    size_t len;
    if (!get_u32(env, argv[0], &alg) || !get_bytes(env, argv[1], &p, &len)) return NULL;
    uint8_t out[32];
    merkle_status s = merkle_hash(out, (merkle_hash_alg)alg, p, len);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    return new_buffer(env, out, 32);
}

/* rootList(profile, alg, leaves: Uint8Array[]) -> Buffer(32) */
static napi_value js_root_list(napi_env env, napi_callback_info info)
{
    ARGS(3);
    uint32_t profile, alg, n;
    bool is_arr = false;
    if (!get_u32(env, argv[0], &profile) || !get_u32(env, argv[1], &alg)) return NULL;
    CHECK_NAPI(env, napi_is_array(env, argv[2], &is_arr));
    if (!is_arr) return throw_type(env, "merkle: leaves must be an array of Uint8Array");
    CHECK_NAPI(env, napi_get_array_length(env, argv[2], &n));
    const uint8_t **ptrs = malloc((n ? n : 1) * sizeof *ptrs);
    size_t *lens = malloc((n ? n : 1) * sizeof *lens);
    if (!ptrs || !lens) {
        free(ptrs);
        free(lens);
        return throw_status(env, MERKLE_ERR_NOMEM, NULL);
    }
    for (uint32_t i = 0; i < n; i++) {
        napi_value el;
        if (napi_get_element(env, argv[2], i, &el) != napi_ok ||
            !get_bytes(env, el, &ptrs[i], &lens[i])) {
            free(ptrs);
            free(lens);
            return NULL;
        }
    }
    uint8_t out[32];
    merkle_status s =
        merkle_tree_root_list(out, (merkle_profile)profile, (merkle_hash_alg)alg, ptrs, lens, n);
    free(ptrs);
    free(lens);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    return new_buffer(env, out, 32);
}

/* rootBytes(profile, alg, leafSize, data) -> Buffer(32) */
static napi_value js_root_bytes(napi_env env, napi_callback_info info)
{
    ARGS(4);
    uint32_t profile, alg, leaf;
    const uint8_t *p;
    size_t len;
    if (!get_u32(env, argv[0], &profile) || !get_u32(env, argv[1], &alg) ||
        !get_u32(env, argv[2], &leaf) || !get_bytes(env, argv[3], &p, &len))
        return NULL;
    uint8_t out[32];
    merkle_status s =
        merkle_tree_root_bytes(out, (merkle_profile)profile, (merkle_hash_alg)alg, leaf, p, len);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    return new_buffer(env, out, 32);
}

/* leafHash(alg, data) -> H(0x00 || data) */
static napi_value js_leaf_hash(napi_env env, napi_callback_info info)
{
    ARGS(2);
    uint32_t alg;
    const uint8_t *p;
    size_t len;
    if (!get_u32(env, argv[0], &alg) || !get_bytes(env, argv[1], &p, &len)) return NULL;
    uint8_t out[32];
    merkle_status s = merkle_tree_leaf_hash(out, (merkle_hash_alg)alg, p, len);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    return new_buffer(env, out, 32);
}

static int get_hashes(napi_env env, napi_value v, const uint8_t (**h)[32], size_t *n)
{
    const uint8_t *p;
    size_t len;
    if (!get_bytes(env, v, &p, &len)) return 0;
    if (len % 32) {
        napi_throw_range_error(env, "ERR_OUT_OF_RANGE",
                               "merkle: hashes must be a multiple of 32 bytes");
        return 0;
    }
    *h = (const uint8_t(*)[32])p;
    *n = len / 32;
    return 1;
}

/* inclusionPath(alg, leafHashes, index) -> [path Buffer, root Buffer] */
static napi_value js_inclusion_path(napi_env env, napi_callback_info info)
{
    ARGS(3);
    uint32_t alg;
    uint64_t index;
    const uint8_t(*h)[32];
    size_t n;
    if (!get_u32(env, argv[0], &alg) || !get_hashes(env, argv[1], &h, &n) ||
        !get_u64(env, argv[2], &index))
        return NULL;
    uint8_t path[MERKLE_PROOF_MAX_PATH][32], root[32];
    size_t plen = 0;
    merkle_status s = merkle_proof_inclusion_path(path, MERKLE_PROOF_MAX_PATH, &plen, root,
                                                  (merkle_hash_alg)alg, h, n, index);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    napi_value arr, a, b;
    CHECK_NAPI(env, napi_create_array_with_length(env, 2, &arr));
    if (!(a = new_buffer(env, path, plen * 32)) || !(b = new_buffer(env, root, 32))) return NULL;
    napi_set_element(env, arr, 0, a);
    napi_set_element(env, arr, 1, b);
    return arr;
}

/* consistencyPath(alg, leafHashes, oldSize) -> [path, oldRoot, newRoot] */
static napi_value js_consistency_path(napi_env env, napi_callback_info info)
{
    ARGS(3);
    uint32_t alg;
    uint64_t m;
    const uint8_t(*h)[32];
    size_t n;
    if (!get_u32(env, argv[0], &alg) || !get_hashes(env, argv[1], &h, &n) ||
        !get_u64(env, argv[2], &m))
        return NULL;
    uint8_t path[MERKLE_PROOF_MAX_PATH][32], r1[32], r2[32];
    size_t plen = 0;
    merkle_status s = merkle_proof_consistency_path(path, MERKLE_PROOF_MAX_PATH, &plen, r1, r2,
                                                    (merkle_hash_alg)alg, h, n, m);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    napi_value arr, a, b, c;
    CHECK_NAPI(env, napi_create_array_with_length(env, 3, &arr));
    if (!(a = new_buffer(env, path, plen * 32)) || !(b = new_buffer(env, r1, 32)) ||
        !(c = new_buffer(env, r2, 32)))
        return NULL;
    napi_set_element(env, arr, 0, a);
    napi_set_element(env, arr, 1, b);
    napi_set_element(env, arr, 2, c);
    return arr;
}

static napi_value bool_value(napi_env env, int b)
{
    napi_value v;
    napi_get_boolean(env, b, &v);
    return v;
}

/* Map a verifier's status to true / false, throwing for argument errors. */
static napi_value verdict(napi_env env, merkle_status s)
{
    if (s == MERKLE_OK) return bool_value(env, 1);
    if (s == MERKLE_ERR_VERIFY) return bool_value(env, 0);
    return throw_status(env, s, NULL);
}

/* verifyInclusion(alg, root, size, index, leafHash, path) -> boolean */
static napi_value js_verify_inclusion(napi_env env, napi_callback_info info)
{
    ARGS(6);
    uint32_t alg;
    uint64_t size, index;
    const uint8_t *root, *leaf;
    const uint8_t(*path)[32];
    size_t plen;
    if (!get_u32(env, argv[0], &alg) || !get_hash(env, argv[1], &root) ||
        !get_u64(env, argv[2], &size) || !get_u64(env, argv[3], &index) ||
        !get_hash(env, argv[4], &leaf) || !get_hashes(env, argv[5], &path, &plen))
        return NULL;
    return verdict(env, merkle_proof_inclusion_verify((merkle_hash_alg)alg, root, size, index, leaf,
                                                      path, plen, NULL));
}

/* verifyConsistency(alg, oldRoot, newRoot, oldSize, newSize, path) -> boolean */
static napi_value js_verify_consistency(napi_env env, napi_callback_info info)
{
    ARGS(6);
    uint32_t alg;
    uint64_t m, n;
    const uint8_t *r1, *r2;
    const uint8_t(*path)[32];
    size_t plen;
    if (!get_u32(env, argv[0], &alg) || !get_hash(env, argv[1], &r1) ||
        !get_hash(env, argv[2], &r2) || !get_u64(env, argv[3], &m) || !get_u64(env, argv[4], &n) ||
        !get_hashes(env, argv[5], &path, &plen))
        return NULL;
    return verdict(
        env, merkle_proof_consistency_verify((merkle_hash_alg)alg, r1, r2, m, n, path, plen, NULL));
}

/*
** doubleKeccak(data, stride | offsets) -> Buffer(32 n): keccak256(keccak256(message i)) for each
** message of data, the StandardMerkleTree leaf hash of ABI encodings laid end to end. With a
** number, the messages are stride bytes each and go through the 8-lane batch kernel; with a
** Float64Array of n + 1 ascending offsets, message i is data[offsets[i]..offsets[i+1]) and is
** hashed alone.
*/
static napi_value js_double_keccak(napi_env env, napi_callback_info info)
{
    ARGS(2);
    const uint8_t *data;
    size_t len;
    if (!get_bytes(env, argv[0], &data, &len)) return NULL;
    uint32_t stride;
    /* argv[1] is either a number (fixed stride) or an offsets array */
    napi_valuetype t;
    CHECK_NAPI(env, napi_typeof(env, argv[1], &t));
    uint8_t *out;
    napi_value res;
    if (t == napi_number) {
        if (!get_u32(env, argv[1], &stride)) return NULL;
        if (stride == 0 || len % stride)
            return throw_type(env, "merkle: data length is not a multiple of the stride");
        size_t n = len / stride;
        if (!(res = alloc_buffer(env, n * 32, &out))) return NULL;
        if (n) {
            uint8_t *tmp = malloc(n * 32);
            if (!tmp) return throw_status(env, MERKLE_ERR_NOMEM, NULL);
            merkle_status s = merkle_keccak256_batch_strided(tmp, NULL, 0, data, stride, stride, n);
            if (s == MERKLE_OK) s = merkle_keccak256_batch_strided(out, NULL, 0, tmp, 32, 32, n);
            free(tmp);
            if (s != MERKLE_OK) return throw_status(env, s, NULL);
        }
        return res;
    }
    napi_typedarray_type type;
    size_t count, off;
    void *od;
    napi_value ab;
    bool is_ta = false;
    CHECK_NAPI(env, napi_is_typedarray(env, argv[1], &is_ta));
    if (!is_ta) return throw_type(env, "merkle: offsets must be a Float64Array");
    CHECK_NAPI(env, napi_get_typedarray_info(env, argv[1], &type, &count, &od, &ab, &off));
    if (type != napi_float64_array || count == 0)
        return throw_type(env, "merkle: offsets must be a non-empty Float64Array");
    const double *o = od;
    size_t n = count - 1;
    if (!(res = alloc_buffer(env, n * 32, &out))) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(o[i] >= 0 && o[i] <= o[i + 1] && o[i + 1] <= (double)len))
            return throw_type(env, "merkle: offsets must ascend within the data");
        uint8_t h[32];
        merkle_keccak256_hash(h, data + (size_t)o[i], (size_t)o[i + 1] - (size_t)o[i]);
        merkle_keccak256_hash(out + 32 * i, h, 32);
    }
    return res;
}

struct sort_item {
    const uint8_t *h;
    uint32_t index;
};

static int cmp_item(const void *a, const void *b)
{
    const struct sort_item *x = a, *y = b;
    int c = memcmp(x->h, y->h, 32);
    if (c) return c;
    return (x->index > y->index) - (x->index < y->index); /* stable, as Array.prototype.sort */
}

/*
** ozBuild(leafHashes, sortLeaves) -> [tree Buffer(32 (2n-1)), treeIndex Float64Array(n)]: the
** @openzeppelin/merkle-tree array (leaf k of the sorted order at 2n-2-k, node i the
** sorted-pair Keccak-256 of 2i+1 and 2i+2) and each input leaf's array index. Equal leaf
** hashes keep their input order, as OpenZeppelin's stable sort does.
*/
static napi_value js_oz_build(napi_env env, napi_callback_info info)
{
    ARGS(2);
    const uint8_t(*h)[32];
    size_t n;
    bool sort = true;
    if (!get_hashes(env, argv[0], &h, &n)) return NULL;
    CHECK_NAPI(env, napi_get_value_bool(env, argv[1], &sort));
    if (n == 0) {
        napi_throw_error(env, "MERKLE_ERR_RANGE", "Expected non-zero number of leaves");
        return NULL;
    }
    if (n > 0x7fffffff) return throw_status(env, MERKLE_ERR_RANGE, NULL);
    struct sort_item *items = malloc(n * sizeof *items);
    if (!items) return throw_status(env, MERKLE_ERR_NOMEM, NULL);
    for (size_t i = 0; i < n; i++) {
        items[i].h = h[i];
        items[i].index = (uint32_t)i;
    }
    if (sort) qsort(items, n, sizeof *items, cmp_item);
    size_t total = 2 * n - 1;
    uint8_t *tree;
    napi_value tbuf, ibuf, iab;
    if (!(tbuf = alloc_buffer(env, total * 32, &tree))) {
        free(items);
        return NULL;
    }
    double *tidx;
    if (napi_create_arraybuffer(env, n * sizeof(double), (void **)&tidx, &iab) != napi_ok ||
        napi_create_typedarray(env, napi_float64_array, n, iab, 0, &ibuf) != napi_ok) {
        free(items);
        return throw_status(env, MERKLE_ERR_NOMEM, NULL);
    }
    for (size_t k = 0; k < n; k++) {
        memcpy(tree + 32 * (total - 1 - k), items[k].h, 32);
        tidx[items[k].index] = (double)(total - 1 - k);
    }
    free(items);
    merkle_shape shape;
    merkle_shape_init(&shape, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_OPENZEPPELIN);
    for (size_t i = total - n; i-- > 0;)
        merkle_shape_node(tree + 32 * i, &shape, tree + 32 * (2 * i + 1), tree + 32 * (2 * i + 2));
    napi_value arr;
    CHECK_NAPI(env, napi_create_array_with_length(env, 2, &arr));
    napi_set_element(env, arr, 0, tbuf);
    napi_set_element(env, arr, 1, ibuf);
    return arr;
}

/*
** hashPairs(alg, nodes, sortPairs) -> Buffer: for nodes = m 32-byte nodes end to end, the
** floor(m/2) hashes of the concatenated pairs (2i, 2i+1), each pair in ascending byte order
** first when sortPairs is true (merkletreejs's sortPairs); one batch call for the layer.
*/
static napi_value js_hash_pairs(napi_env env, napi_callback_info info)
{
    ARGS(3);
    uint32_t alg;
    const uint8_t *p;
    size_t len;
    bool sort = false;
    if (!get_u32(env, argv[0], &alg) || !get_bytes(env, argv[1], &p, &len)) return NULL;
    CHECK_NAPI(env, napi_get_value_bool(env, argv[2], &sort));
    if (len % 32) return throw_type(env, "merkle: nodes must be 32-byte hashes end to end");
    size_t n = len / 64;
    uint8_t *out;
    napi_value res;
    if (!(res = alloc_buffer(env, n * 32, &out))) return NULL;
    if (n == 0) return res;
    const uint8_t *src = p;
    uint8_t *tmp = NULL;
    if (sort) {
        if (!(tmp = malloc(n * 64))) return throw_status(env, MERKLE_ERR_NOMEM, NULL);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *a = p + 64 * i, *b = a + 32;
            int swap = memcmp(a, b, 32) > 0;
            memcpy(tmp + 64 * i, swap ? b : a, 32);
            memcpy(tmp + 64 * i + 32, swap ? a : b, 32);
        }
        src = tmp;
    }
    merkle_status s = merkle_hash_batch_strided(out, (merkle_hash_alg)alg, NULL, 0, src, 64, 64, n);
    free(tmp);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    return res;
}

/* ozNode(a, b) -> keccak256(sorted a || b) */
static napi_value js_oz_node(napi_env env, napi_callback_info info)
{
    ARGS(2);
    const uint8_t *a, *b;
    if (!get_hash(env, argv[0], &a) || !get_hash(env, argv[1], &b)) return NULL;
    merkle_shape shape;
    merkle_shape_init(&shape, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_OPENZEPPELIN);
    uint8_t out[32];
    merkle_shape_node(out, &shape, a, b);
    return new_buffer(env, out, 32);
}

/* ozProcessProof(leaf, proof) -> the root the proof leads to */
static napi_value js_oz_process_proof(napi_env env, napi_callback_info info)
{
    ARGS(2);
    const uint8_t *leaf;
    const uint8_t(*path)[32];
    size_t n;
    if (!get_hash(env, argv[0], &leaf) || !get_hashes(env, argv[1], &path, &n)) return NULL;
    merkle_shape shape;
    merkle_shape_init(&shape, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_OPENZEPPELIN);
    uint8_t acc[32];
    memcpy(acc, leaf, 32);
    for (size_t i = 0; i < n; i++) {
        uint8_t next[32]; /* the output must not alias an input */
        merkle_shape_node(next, &shape, acc, path[i]);
        memcpy(acc, next, 32);
    }
    return new_buffer(env, acc, 32);
}

/* ozValidTree(tree) -> boolean: every interior node is the sorted-pair hash of its children */
static napi_value js_oz_valid_tree(napi_env env, napi_callback_info info)
{
    ARGS(1);
    const uint8_t(*t)[32];
    size_t n;
    if (!get_hashes(env, argv[0], &t, &n)) return NULL;
    if (n == 0 || n % 2 == 0) return bool_value(env, 0);
    merkle_shape shape;
    merkle_shape_init(&shape, MERKLE_SHAPE_VERSION, MERKLE_PROFILE_OPENZEPPELIN);
    for (size_t i = 0; 2 * i + 2 < n; i++) {
        uint8_t h[32];
        merkle_shape_node(h, &shape, t[2 * i + 1], t[2 * i + 2]);
        if (!merkle_ct_equal(h, t[i], 32)) return bool_value(env, 0);
    }
    return bool_value(env, 1);
}

/* ---------------------------------------------------------------- CLVM */

static merkle_status sexp_load(merkle_sexp_store **st, merkle_sexp_node *node, const uint8_t *p,
                               size_t len, merkle_error *e)
{
    merkle_status s = merkle_sexp_store_alloc(st);
    if (s != MERKLE_OK) return s;
    size_t used = 0;
    s = merkle_sexp_parse(node, &used, *st, p, len, MERKLE_SEXP_BACKREFS, NULL, e);
    if (s == MERKLE_OK && used != len) {
        s = MERKLE_ERR_FORMAT;
        snprintf(e->message, sizeof e->message, "%zu trailing bytes after the value", len - used);
    }
    return s;
}

/* clvm(op, bytes): op 0 tree hash, 1 canonical bytes, 2 back-reference bytes */
static napi_value js_clvm(napi_env env, napi_callback_info info)
{
    ARGS(2);
    uint32_t op;
    const uint8_t *p;
    size_t len;
    if (!get_u32(env, argv[0], &op) || !get_bytes(env, argv[1], &p, &len)) return NULL;
    merkle_sexp_store *st = NULL;
    merkle_sexp_node node;
    merkle_error e;
    memset(&e, 0, sizeof e);
    merkle_status s = sexp_load(&st, &node, p, len, &e);
    napi_value res = NULL;
    if (s == MERKLE_OK && op == 0) {
        uint8_t h[32];
        s = merkle_sexp_tree_hash(h, st, node);
        if (s == MERKLE_OK) res = new_buffer(env, h, 32);
    } else if (s == MERKLE_OK && op == 1) {
        uint64_t n = 0;
        s = merkle_sexp_serialized_length(&n, st, node);
        if (s == MERKLE_OK && n > ((size_t)1 << 31))
            s = MERKLE_ERR_LIMIT; /* larger than a Buffer may be */
        uint8_t *out;
        if (s == MERKLE_OK && (res = alloc_buffer(env, (size_t)n, &out))) {
            size_t w;
            s = merkle_sexp_serialize(out, (size_t)n, &w, st, node);
        }
    } else if (s == MERKLE_OK && op == 2) {
        uint8_t *out = NULL;
        size_t n = 0;
        s = merkle_sexp_serialize_backrefs_alloc(&out, &n, st, node, 0, &e);
        if (s == MERKLE_OK) res = new_buffer(env, out, n);
        merkle_sexp_buffer_free(out);
    } else if (s == MERKLE_OK) {
        s = MERKLE_ERR_ARG;
    }
    merkle_sexp_store_free(st);
    if (s != MERKLE_OK) return throw_status(env, s, &e);
    return res;
}

/* ---------------------------------------------------------------- trie */

static void trie_finalize(napi_env env, void *data, void *hint)
{
    (void)env;
    (void)hint;
    merkle_trie_free(data);
}

static merkle_trie *this_trie(napi_env env, napi_value obj)
{
    void *t = NULL;
    if (napi_unwrap(env, obj, &t) != napi_ok || !t) {
        throw_type(env, "merkle: not a Trie, or a closed one");
        return NULL;
    }
    return t;
}

/* trieNew(branchFactor) -> an object wrapping a merkle_trie (freed by close() or the GC) */
static napi_value js_trie_new(napi_env env, napi_callback_info info)
{
    ARGS(1);
    uint32_t bf;
    if (!get_u32(env, argv[0], &bf)) return NULL;
    merkle_trie *t;
    merkle_status s = merkle_trie_alloc(&t, bf);
    if (s != MERKLE_OK) return throw_status(env, s, NULL);
    napi_value obj;
    CHECK_NAPI(env, napi_create_object(env, &obj));
    if (napi_wrap(env, obj, t, trie_finalize, NULL, NULL) != napi_ok) {
        merkle_trie_free(t);
        return throw_status(env, MERKLE_ERR_NOMEM, NULL);
    }
    return obj;
}

static napi_value js_trie_close(napi_env env, napi_callback_info info)
{
    ARGS(1);
    void *t = NULL;
    if (napi_remove_wrap(env, argv[0], &t) == napi_ok && t) merkle_trie_free(t);
    return NULL;
}

/* trieOp(handle, op, key[, value]): 0 put, 1 get, 2 delete, 3 root, 4 prove, 5 size */
static napi_value js_trie_op(napi_env env, napi_callback_info info)
{
    size_t argc = 4;
    napi_value argv[4];
    CHECK_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    if (argc < 2) return throw_type(env, "merkle: missing arguments");
    merkle_trie *t = this_trie(env, argv[0]);
    uint32_t op;
    if (!t || !get_u32(env, argv[1], &op)) return NULL;
    const uint8_t *k = NULL, *v = NULL;
    size_t kl = 0, vl = 0;
    if (op <= 2 || op == 4) {
        if (argc < 3 || !get_bytes(env, argv[2], &k, &kl))
            return argc < 3 ? throw_type(env, "merkle: missing key") : NULL;
    }
    merkle_error e;
    memset(&e, 0, sizeof e);
    merkle_status s = MERKLE_OK;
    switch (op) {
    case 0:
        if (argc < 4 || !get_bytes(env, argv[3], &v, &vl))
            return argc < 4 ? throw_type(env, "merkle: missing value") : NULL;
        s = merkle_trie_put(t, k, kl, v, vl);
        if (s != MERKLE_OK) return throw_status(env, s, NULL);
        return NULL;
    case 1: {
        size_t len = 0;
        int found = 0;
        s = merkle_trie_get(NULL, 0, &len, &found, t, k, kl);
        if (!found) {
            napi_value u;
            napi_get_null(env, &u);
            return u;
        }
        uint8_t *out;
        napi_value res = alloc_buffer(env, len, &out);
        if (!res) return NULL;
        s = merkle_trie_get(out, len, &len, &found, t, k, kl);
        return s == MERKLE_OK ? res : throw_status(env, s, NULL);
    }
    case 2: {
        int found = 0;
        s = merkle_trie_delete(&found, t, k, kl);
        return s == MERKLE_OK ? bool_value(env, found) : throw_status(env, s, NULL);
    }
    case 3: {
        uint8_t out[32];
        s = merkle_trie_root(out, t, 1, &e);
        return s == MERKLE_OK ? new_buffer(env, out, 32) : throw_status(env, s, &e);
    }
    case 4: {
        size_t len = 0;
        s = merkle_trie_prove(NULL, 0, &len, t, k, kl, &e);
        if (s != MERKLE_OK && s != MERKLE_ERR_BUFFER) return throw_status(env, s, &e);
        uint8_t *out;
        napi_value res = alloc_buffer(env, len, &out);
        if (!res) return NULL;
        s = merkle_trie_prove(out, len, &len, t, k, kl, &e);
        return s == MERKLE_OK ? res : throw_status(env, s, &e);
    }
    case 5: {
        napi_value n;
        napi_create_double(env, (double)merkle_trie_size(t), &n);
        return n;
    }
    default: return throw_status(env, MERKLE_ERR_ARG, NULL);
    }
}

/* trieVerify(root, proof) -> {key, value|null} or throws (MERKLE_ERR_VERIFY / _FORMAT) */
static napi_value js_trie_verify(napi_env env, napi_callback_info info)
{
    ARGS(2);
    const uint8_t *root, *p;
    size_t len;
    if (!get_hash(env, argv[0], &root) || !get_bytes(env, argv[1], &p, &len)) return NULL;
    merkle_trie_proof_info pi;
    merkle_error e;
    memset(&e, 0, sizeof e);
    merkle_status s = merkle_trie_proof_verify(&pi, root, p, len, &e);
    if (s != MERKLE_OK) return throw_status(env, s, &e);
    napi_value obj, key, val;
    CHECK_NAPI(env, napi_create_object(env, &obj));
    if (!(key = new_buffer(env, pi.key, pi.key_len))) return NULL;
    if (pi.present) {
        if (!(val = new_buffer(env, pi.value, pi.value_len))) return NULL;
    } else {
        napi_get_null(env, &val);
    }
    napi_set_named_property(env, obj, "key", key);
    napi_set_named_property(env, obj, "value", val);
    return obj;
}

static napi_value js_version(napi_env env, napi_callback_info info)
{
    (void)info;
    napi_value v;
    napi_create_string_utf8(env, merkle_version(), NAPI_AUTO_LENGTH, &v);
    return v;
}

static napi_value init(napi_env env, napi_value exports)
{
    static const struct {
        const char *name;
        napi_callback fn;
    } fns[] = {
        { "version", js_version },
        { "hash", js_hash },
        { "rootList", js_root_list },
        { "rootBytes", js_root_bytes },
        { "leafHash", js_leaf_hash },
        { "inclusionPath", js_inclusion_path },
        { "consistencyPath", js_consistency_path },
        { "verifyInclusion", js_verify_inclusion },
        { "verifyConsistency", js_verify_consistency },
        { "doubleKeccak", js_double_keccak },
        { "hashPairs", js_hash_pairs },
        { "ozBuild", js_oz_build },
        { "ozNode", js_oz_node },
        { "ozProcessProof", js_oz_process_proof },
        { "ozValidTree", js_oz_valid_tree },
        { "clvm", js_clvm },
        { "trieNew", js_trie_new },
        { "trieClose", js_trie_close },
        { "trieOp", js_trie_op },
        { "trieVerify", js_trie_verify },
    };
    if (!merkle_node_manifest_init(env, exports)) return NULL;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        napi_value f;
        if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f) !=
                napi_ok ||
            napi_set_named_property(env, exports, fns[i].name, f) != napi_ok)
            return NULL;
    }
    return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
