/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Internal helpers shared by every layer. Never installed.
*/
#ifndef MERKLE_INTERNAL_H
#define MERKLE_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "merkle/common.h"
#include "merkle/hash.h"

#if defined(__MINGW32__)
/* MinGW-w64 formats with its own C99 printf (__USE_MINGW_ANSI_STDIO), not msvcrt's. */
#define MERKLE_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#define MERKLE_LIKELY(x)    __builtin_expect(!!(x), 1)
#define MERKLE_UNLIKELY(x)  __builtin_expect(!!(x), 0)
#elif defined(__GNUC__)
#define MERKLE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define MERKLE_LIKELY(x)    __builtin_expect(!!(x), 1)
#define MERKLE_UNLIKELY(x)  __builtin_expect(!!(x), 0)
#else
#define MERKLE_PRINTF(f, a)
#define MERKLE_LIKELY(x)   (x)
#define MERKLE_UNLIKELY(x) (x)
#endif

/*
** Internal invariants: checked (and a violation aborts with its place) when the library is
** built with MERKLE_CHECKS (Debug builds: the sanitizer run of the test suite), compiled out
** otherwise. Never for conditions that input can cause: those are errors, not assertions.
*/
#ifdef MERKLE_CHECKS
_Noreturn void merkle__assert_fail(const char *cond, const char *file, int line);
#define MERKLE_ASSERT(c) ((c) ? (void)0 : merkle__assert_fail(#c, __FILE__, __LINE__))
#else
#define MERKLE_ASSERT(c) ((void)0)
#endif

/*
** Fill *err (if not NULL) with status, line, offset and a printf-style message, and return
** status, so that callers can write `return merkle__fail(err, MERKLE_ERR_FORMAT, ...)`.
*/
/* 1 for the digests trees accept (SHA-256, BLAKE2b-256, Keccak-256), 0 otherwise. */
int merkle__tree_hash_ok(merkle_hash_alg alg);

merkle_status merkle__fail(merkle_error *err, merkle_status status, uint64_t line, uint64_t offset,
                           const char *fmt, ...) MERKLE_PRINTF(5, 6);

/* Same, recording errno as sys_errno. */
merkle_status merkle__fail_errno(merkle_error *err, int sys_errno, const char *fmt, ...)
    MERKLE_PRINTF(3, 4);
#ifdef __clang_analyzer__
/* clang-tidy's analyzer (scripts/lint.sh) does not look into error.c: tell it what they return,
** or it follows paths where a failure returns MERKLE_OK. */
#define merkle__fail(err, status, ...) (merkle__fail(err, status, __VA_ARGS__), (status))
#define merkle__fail_errno(...)        (merkle__fail_errno(__VA_ARGS__), MERKLE_ERR_IO)
#endif

/*
** Output under the size-query convention of the API (a buffer and its capacity, and the
** length needed in every case): put writes what still fits into out[0..cap) and counts
** every byte in len, so a first call with cap 0 measures and a second one writes.
*/
typedef struct merkle__sink {
    void *out;
    size_t cap, len;
} merkle__sink;

static inline void merkle__sink_put(merkle__sink *s, const void *d, size_t n)
{
    if (s->len < s->cap) {
        size_t room = s->cap - s->len;
        memcpy((uint8_t *)s->out + s->len, d, n < room ? n : room);
    }
    s->len += n;
}

static inline void merkle__sink_puts(merkle__sink *s, const char *str)
{
    merkle__sink_put(s, str, strlen(str));
}

/* The one hex digit decoder: value 0..15 of c, or -1 (a table lookup: parsers' hot loops). */
extern const uint8_t merkle__hex_tab[256];
static inline int merkle__hex_digit(char c)
{
    uint8_t v = merkle__hex_tab[(unsigned char)c];
    return v == 255 ? -1 : (int)v;
}

/*
** The one growth helper for arrays on the heap. *pptr (a `T **` passed as void *) holds cap
** elements of elem bytes; make room for at least need elements: when need > *cap, realloc to
** the larger of need and twice *cap (at least 8), with the multiplications checked. Returns
** 0, or -1 when the size would overflow or realloc fails: *pptr and *cap are then unchanged
** (the old array is still the caller's to free). The test is inline, the growth is not.
*/
int merkle__grow_slow(void *pptr, size_t *cap, size_t need, size_t elem);
static inline int merkle__grow(void *pptr, size_t *cap, size_t need, size_t elem)
{
    if (MERKLE_LIKELY(need <= *cap)) return 0;
    return merkle__grow_slow(pptr, cap, need, elem);
}
/* Its two halves, for arrays that grow together under one capacity (parallel arrays): the
** capacity merkle__grow would pick for elements of up to elem bytes (cap itself when need <=
** cap; 0 when need elements cannot be sized), and a checked realloc of *pptr to exactly n
** elements (0, or -1 with *pptr unchanged). Also for a one-off exact reservation. */
size_t merkle__grow_cap(size_t cap, size_t need, size_t elem);
int merkle__realloc_n(void *pptr, size_t n, size_t elem);

/* Big/little-endian loads and stores. */
static inline uint32_t merkle__load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline void merkle__store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void merkle__store_be64(uint8_t *p, uint64_t v)
{
    merkle__store_be32(p, (uint32_t)(v >> 32));
    merkle__store_be32(p + 4, (uint32_t)v);
}
static inline uint64_t merkle__load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline void merkle__store_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#endif
