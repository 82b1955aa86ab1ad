/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Count heap allocations: malloc/calloc/realloc are interposed for the whole process (glibc
** exports the real ones as __libc_*), so allocations inside libcrypto/libsodium count too.
** Include in exactly one file of an executable. Under AddressSanitizer, which owns malloc,
** nothing is interposed and MERKLE_ASAN is defined instead (g_allocs then stays 0).
*/
#ifndef MERKLE_ALLOC_COUNT_H
#define MERKLE_ALLOC_COUNT_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define MERKLE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MERKLE_ASAN 1
#endif
#endif

static volatile size_t g_allocs __attribute__((unused));

#ifndef MERKLE_ASAN
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n);
void *calloc(size_t a, size_t b);
void *realloc(void *p, size_t n);
void *malloc(size_t n)
{
    g_allocs++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    g_allocs++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    g_allocs++;
    return __libc_realloc(p, n);
}
#endif

#endif
