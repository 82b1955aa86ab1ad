/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The trie's node allocator (internal): size classes of 16 bytes up to 4 KiB on free lists,
** carved from slabs that double from 64 KiB to 8 MiB (the big ones aligned and advised for
** transparent huge pages); larger blocks from malloc on a list. Everything goes at once with
** pool_release. Header-only: the allocation fast path is inlined where nodes are made.
*/
#ifndef MERKLE_TRIE_POOL_H
#define MERKLE_TRIE_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<sys/mman.h>)
#include <sys/mman.h> /* madvise: transparent huge pages where the system has them */
#endif
#endif

/* Under AddressSanitizer, free pool blocks are poisoned, so that a use after free inside the
** pool is reported like one of malloc'd memory. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POOL_POISON(p, n)   ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_GRAN    16
#define POOL_MAX     4096
#define POOL_CLASSES (POOL_MAX / POOL_GRAN)
#define SLAB_MIN     ((size_t)1 << 16)
#define SLAB_MAX     ((size_t)1 << 23)
#define HUGE_PAGE    ((size_t)1 << 21)

/* Blocks larger than POOL_MAX come from malloc with this header, on a list freed at the end. */
typedef struct big_block {
    struct big_block *prev, *next;
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned */
} big_block;

typedef struct pool {
    void *free_list[POOL_CLASSES + 1]; /* class c holds blocks of c*16 bytes */
    uint8_t *bump, *bump_end;          /* unused tail of the newest slab */
    void *slabs;                       /* singly linked by their first pointer */
    big_block *big;
    size_t bytes;     /* slab and big-block bytes held */
    size_t next_slab; /* size of the next slab: doubles from SLAB_MIN to SLAB_MAX */
} pool;

static inline void *pool_alloc(pool *p, size_t size)
{
    if (size > POOL_MAX) {
        if (size > SIZE_MAX - sizeof(big_block)) return NULL;
        big_block *b = malloc(sizeof *b + size);
        if (b == NULL) return NULL;
        b->size = size;
        b->prev = NULL;
        b->next = p->big;
        if (p->big) p->big->prev = b;
        p->big = b;
        p->bytes += sizeof *b + size;
        return b + 1;
    }
    size_t c = (size + POOL_GRAN - 1) / POOL_GRAN;
    if (c == 0) c = 1;
    void *f = p->free_list[c];
    if (f) {
        POOL_UNPOISON(f, c * POOL_GRAN);
        memcpy(&p->free_list[c], f, sizeof(void *));
        return f;
    }
    size_t need = c * POOL_GRAN;
    if ((size_t)(p->bump_end - p->bump) < need) {
        /* Slabs grow geometrically, so that a small trie stays small; big slabs are aligned
        ** to and advised for transparent huge pages: a large trie then takes a page fault
        ** per 2 MiB instead of per 4 KiB. */
        size_t ssz = p->next_slab < SLAB_MIN ? SLAB_MIN : p->next_slab;
        void *mem = NULL;
#ifdef MADV_HUGEPAGE
        if (ssz >= HUGE_PAGE) {
            if (posix_memalign(&mem, HUGE_PAGE, ssz) != 0) mem = NULL;
            if (mem) (void)madvise(mem, ssz, MADV_HUGEPAGE);
        } else {
            mem = malloc(ssz);
        }
#else
        mem = malloc(ssz); /* no huge pages to align for (freed with free either way) */
#endif
        if (mem == NULL) return NULL;
        uint8_t *s = mem;
        memcpy(s, &p->slabs, sizeof(void *));
        p->slabs = s;
        p->bytes += ssz;
        p->bump = s + POOL_GRAN; /* the first 16 bytes link the slab */
        p->bump_end = s + ssz;
        POOL_POISON(p->bump, ssz - POOL_GRAN);
        p->next_slab = ssz < SLAB_MAX ? 2 * ssz : SLAB_MAX;
    }
    void *r = p->bump;
    p->bump += need;
    POOL_UNPOISON(r, need);
    return r;
}

static inline void pool_free(pool *p, void *ptr, size_t size)
{
    if (ptr == NULL) return;
    if (size > POOL_MAX) {
        big_block *b = (big_block *)ptr - 1;
        if (b->prev)
            b->prev->next = b->next;
        else
            p->big = b->next;
        if (b->next) b->next->prev = b->prev;
        p->bytes -= sizeof *b + b->size;
        free(b);
        return;
    }
    size_t c = (size + POOL_GRAN - 1) / POOL_GRAN;
    if (c == 0) c = 1;
    memcpy(ptr, &p->free_list[c], sizeof(void *));
    p->free_list[c] = ptr;
    POOL_POISON(ptr, c * POOL_GRAN);
}

static inline void pool_release(pool *p)
{
    while (p->slabs) {
        void *next;
        memcpy(&next, p->slabs, sizeof next);
        free(p->slabs);
        p->slabs = next;
    }
    while (p->big) {
        big_block *n = p->big->next;
        free(p->big);
        p->big = n;
    }
    memset(p, 0, sizeof *p);
}

#endif
