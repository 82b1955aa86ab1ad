/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle/common.h: status codes, error detail, hex, constant-time compare, version.
**
** Every fallible function of the library returns a merkle_status: MERKLE_OK (0) on success,
** a negative code on failure. merkle_strerror() turns a code into a static message. Where a
** caller wants more (a line number, what was wrong), functions take an optional
** merkle_error pointer that they fill in; it is never a global.
*/
#ifndef MERKLE_COMMON_H
#define MERKLE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "merkle/export.h"
#include "merkle/version.h"

/* Alignment of a struct member, spelled for the language including the header: C11's
** _Alignas is not C++ (whose alignas is a keyword from C++11 on), and older C or C++ get the
** compiler's attribute. Every spelling gives the same layout. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define MERKLE_ALIGNAS(n) alignas(n)
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define MERKLE_ALIGNAS(n) _Alignas(n)
#elif defined(_MSC_VER)
#define MERKLE_ALIGNAS(n) __declspec(align(n))
#else
#define MERKLE_ALIGNAS(n) __attribute__((aligned(n)))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Length in bytes of every tree digest in this library (SHA-256, BLAKE2b-256). */
#define MERKLE_HASH_LEN 32
/* Largest digest any API returns (SHA-512, BLAKE2b-512 in manifests). */
#define MERKLE_MAX_DIGEST_LEN 64
/* Depth of the subtree-root stack of a streaming tree: enough for 2^64 - 1 leaves. */
#define MERKLE_MAX_DEPTH 64

typedef enum merkle_status {
    MERKLE_OK = 0,
    MERKLE_ERR_ARG = -1,         /* an argument is invalid (NULL, zero leaf size, bad enum) */
    MERKLE_ERR_BUFFER = -2,      /* the output buffer is too small; the needed size is reported */
    MERKLE_ERR_FORMAT = -3,      /* input is malformed (bad hex, bad encoding, truncated) */
    MERKLE_ERR_VERIFY = -4,      /* a proof or digest did not verify */
    MERKLE_ERR_IO = -5,          /* reading or writing a file failed (errno in merkle_error) */
    MERKLE_ERR_NOMEM = -6,       /* an allocation failed */
    MERKLE_ERR_RANGE = -7,       /* an index, size or count is out of range or would overflow */
    MERKLE_ERR_LIMIT = -8,       /* a caller-set limit (size, depth, node count) was reached */
    MERKLE_ERR_UNSUPPORTED = -9, /* not available (algorithm, CPU feature, build option) */
    MERKLE_ERR_STATE = -10,      /* the object is not in a state that allows this call */
    MERKLE_ERR_UNSAFE = -11      /* refused: acting would overwrite or follow what is not ours
                                 ** (a --cache path that is not a cache, a symbolic link) */
} merkle_status;

/* Optional detail about a failure. Zero-initialise it (or leave it untouched: functions
** overwrite all fields when they fail). `line` is 1-based, 0 when not applicable;
** `offset` is a byte offset into the input, `sys_errno` the errno of a failed system call. */
typedef struct merkle_error {
    merkle_status status;
    uint64_t line;
    uint64_t offset;
    int sys_errno;
    char message[200];
} merkle_error;

/*
** Static, human-readable message for a status code. Never NULL; unknown codes give
** "unknown error". Thread-safe.
*/
MERKLE_API const char *merkle_strerror(merkle_status status);

/*
** Compare n bytes of a and b in time that depends only on n. Returns 1 when equal, 0 when
** not. Use it for every digest comparison that decides whether something verifies.
*/
MERKLE_API int merkle_ct_equal(const void *a, const void *b, size_t n);

/*
** Write the lowercase hex of in[0..n) to out, followed by a NUL: out must hold 2*n + 1
** bytes. in may be NULL when n is 0.
*/
MERKLE_API void merkle_hex_encode(char *out, const uint8_t *in, size_t n);

/*
** Decode hex (upper or lower case, no separators) of length hex_len into out (capacity cap).
** *out_len receives the decoded length (hex_len / 2) in every case where it is known.
** Errors: MERKLE_ERR_FORMAT for an odd length or a non-hex character (err->offset is the
** position of the bad character), MERKLE_ERR_BUFFER when cap < hex_len / 2, MERKLE_ERR_ARG
** for NULL pointers with non-zero lengths. error may be NULL.
*/
MERKLE_API merkle_status merkle_hex_decode(uint8_t *out, size_t cap, size_t *out_len,
                                           const char *hex, size_t hex_len, merkle_error *err);

/* Version string of the library that is linked ("MAJOR.MINOR.PATCH"). */
MERKLE_API const char *merkle_version(void);

#ifdef __cplusplus
}
#endif
#endif
