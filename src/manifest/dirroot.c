/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Directory root: one RFC 6962 SHA-256 root over a manifest's entries, sorted by name bytes,
** each leaf = u32be(name length) || name || u8 algorithm || u8 digest length || digest.
*/
#include <stdlib.h>
#include <string.h>

#include "os/os.h"

#include "common/internal.h"
#include "manifest/manifest_impl.h"
#include "merkle/tree.h"

merkle_status merkle_manifest_leaf_encode(uint8_t *out, size_t cap, size_t *out_len,
                                          const merkle_manifest_entry *e)
{
    if (!out_len || !e || !e->name || !merkle__manifest_len_ok(e->alg, e->digest_len) ||
        e->name_len > UINT32_MAX)
        return MERKLE_ERR_ARG;
    size_t need = 4 + e->name_len + 2 + e->digest_len;
    *out_len = need;
    if (!out || cap < need) return MERKLE_ERR_BUFFER;
    merkle__store_be32(out, (uint32_t)e->name_len);
    memcpy(out + 4, e->name, e->name_len);
    out[4 + e->name_len] = (uint8_t)e->alg;
    out[5 + e->name_len] = (uint8_t)e->digest_len;
    memcpy(out + 6 + e->name_len, e->digest, e->digest_len);
    return MERKLE_OK;
}

static int cmp_entry(const void *a, const void *b)
{
    const merkle_manifest_entry *x = a, *y = b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c) return c;
    if (x->name_len != y->name_len) return x->name_len < y->name_len ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

merkle_status merkle_manifest_sort(merkle_manifest *m, merkle_error *error)
{
    if (!m || (!m->entries && m->count)) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL");
    if (m->count > 1) qsort(m->entries, m->count, sizeof *m->entries, cmp_entry);
    for (size_t i = 1; i < m->count; i++) {
        const merkle_manifest_entry *a = &m->entries[i - 1], *b = &m->entries[i];
        if (a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0)
            return merkle__fail(error, MERKLE_ERR_FORMAT, b->line, 0,
                                "line %llu: duplicate name (first on line %llu)",
                                (unsigned long long)b->line, (unsigned long long)a->line);
    }
    return MERKLE_OK;
}

merkle_status merkle_manifest_dirroot(uint8_t out[MERKLE_HASH_LEN], merkle_manifest *m,
                                      merkle_error *error)
{
    if (!out) return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "NULL");
    merkle_status s = merkle_manifest_sort(m, error);
    if (s != MERKLE_OK) return s;
    size_t n = m->count;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (m->entries[i].name_len > SIZE_MAX / 2 - total - 70)
            return merkle__fail(error, MERKLE_ERR_RANGE, 0, 0, "manifest too large");
        total += 6 + m->entries[i].name_len + m->entries[i].digest_len;
    }
    uint8_t *buf = malloc(total ? total : 1);
    const uint8_t **leaves = malloc((n ? n : 1) * sizeof *leaves);
    size_t *lens = malloc((n ? n : 1) * sizeof *lens);
    if (!buf || !leaves || !lens) {
        free(buf);
        free(leaves);
        free(lens);
        return merkle__fail(error, MERKLE_ERR_NOMEM, 0, 0, "out of memory");
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        s = merkle_manifest_leaf_encode(buf + off, total - off, &lens[i], &m->entries[i]);
        if (s != MERKLE_OK) break; /* lens[i] is not set */
        leaves[i] = buf + off;
        off += lens[i];
    }
    if (s == MERKLE_OK)
        s = merkle_tree_root_list(out, MERKLE_PROFILE_RFC6962, MERKLE_HASH_SHA256, leaves, lens, n);
    free(buf);
    free(leaves);
    free(lens);
    if (s != MERKLE_OK) return merkle__fail(error, s, 0, 0, "%s", merkle_strerror(s));
    return MERKLE_OK;
}
