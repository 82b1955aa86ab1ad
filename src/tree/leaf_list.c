/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Leaf hashes H(0x00 || leaf) of a list of byte strings, in batches.
**
** A list arrives as pointers and lengths. Hashed one at a time, each leaf pays a whole
** SHA-256 pass on one lane; the batch kernels hash 8 or 16 messages of one length at once.
** Consecutive leaves of one length form a run, hashed with one batch call (strided when they
** lie at a fixed distance in memory, as the pieces of one buffer do, else by pointer); within
** a window of mixed lengths the leaves are grouped by length first, so that lists whose
** lengths alternate still fill the lanes.
*/
#include <stdlib.h>
#include <string.h>

#include "tree/tree_impl.h"

#define WIN 256 /* leaves grouped by length at a time */

static const uint8_t k_leaf_prefix = 0x00;

typedef struct keyed {
    size_t len;
    size_t at;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = (const keyed *)a, *y = (const keyed *)b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Hash k leaves of one length len (msgs[m], or NULL when len is 0) into out[0..k). */
static void run_hash(merkle_hash_alg hash, uint8_t (*out)[MERKLE_HASH_LEN],
                     const uint8_t *const *msgs, size_t len, size_t k)
{
    if (len == 0 || k == 1) {
        (void)merkle_hash_batch_strided(out[0], hash, &k_leaf_prefix, 1, len ? msgs[0] : NULL, 0,
                                        len, 1);
        for (size_t m = 1; m < k; m++) {
            if (len)
                (void)merkle_hash_batch_strided(out[m], hash, &k_leaf_prefix, 1, msgs[m], 0, len,
                                                1);
            else
                memcpy(out[m], out[0], MERKLE_HASH_LEN);
        }
        return;
    }
    /* A fixed stride (the pieces of one buffer) goes to the strided entry, which every
    ** digest has; else SHA-256's pointer batch, else one digest per leaf. */
    ptrdiff_t stride = msgs[1] - msgs[0];
    size_t m = 2;
    while (m < k && msgs[m] - msgs[m - 1] == stride) m++;
    if (m == k && stride >= 0) {
        (void)merkle_hash_batch_strided(out[0], hash, &k_leaf_prefix, 1, msgs[0], (size_t)stride,
                                        len, k);
        return;
    }
    if (hash == MERKLE_HASH_SHA256) {
        (void)merkle_sha256_batch(out[0], &k_leaf_prefix, 1, msgs, len, k);
        return;
    }
    for (m = 0; m < k; m++)
        (void)merkle_hash_batch_strided(out[m], hash, &k_leaf_prefix, 1, msgs[m], 0, len, 1);
}

void merkle__leaf_list(merkle_hash_alg hash, uint8_t (*out)[MERKLE_HASH_LEN],
                       const uint8_t *const *leaves, const size_t *lens, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* A run of equal lengths: one batch. */
        size_t j = i + 1;
        while (j < n && lens[j] == lens[i]) j++;
        if (j - i >= 8 || j == n) {
            run_hash(hash, out + i, leaves + i, lens[i], j - i);
            i = j;
            continue;
        }
        /* Mixed lengths: group the next WIN leaves by length (sorted on length, then
        ** position), hash each group in one batch, put the digests back in place. */
        size_t w = n - i < WIN ? n - i : WIN;
        keyed key[WIN];
        for (size_t a = 0; a < w; a++) {
            key[a].len = lens[i + a];
            key[a].at = a;
        }
        qsort(key, w, sizeof *key, cmp_keyed);
        uint16_t idx[WIN];
        for (size_t a = 0; a < w; a++) idx[a] = (uint16_t)key[a].at;
        const uint8_t *msgs[WIN];
        uint8_t tmp[WIN][MERKLE_HASH_LEN];
        for (size_t a = 0; a < w; a++) msgs[a] = leaves[i + idx[a]];
        for (size_t a = 0; a < w;) {
            size_t b = a + 1;
            size_t len = lens[i + idx[a]];
            while (b < w && lens[i + idx[b]] == len) b++;
            run_hash(hash, tmp + a, msgs + a, len, b - a);
            a = b;
        }
        for (size_t a = 0; a < w; a++) memcpy(out[i + idx[a]], tmp[a], MERKLE_HASH_LEN);
        i += w;
    }
}
