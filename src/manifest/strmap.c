/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Keyed string hash table for names from manifests (attacker-chosen): SipHash-2-4 with a
** per-process random key, linear probing, power-of-two capacity.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/secure.h"
#include "manifest/manifest_impl.h"

struct merkle__strmap_slot {
    const char *key; /* NULL = empty */
    size_t len;
    size_t value;
    uint64_t hash;
};

static uint8_t g_key[16];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void key_init(void)
{
    if (merkle__random_bytes(g_key, sizeof g_key) != 0) {
        /* Without the OS's generator there is no secret: fall back to the address-space
        ** layout, which is still unknown to a remote attacker. */
        uintptr_t a = (uintptr_t)&g_key;
        memcpy(g_key, &a, sizeof a < sizeof g_key ? sizeof a : sizeof g_key);
    }
}

static uint64_t hash_key(const char *key, size_t len)
{
    pthread_once(&g_once, key_init);
    return merkle__siphash24(g_key, key, len);
}

void merkle__strmap_init(merkle__strmap *m)
{
    m->slots = NULL;
    m->cap = m->count = 0;
}

void merkle__strmap_free(merkle__strmap *m)
{
    free(m->slots);
    merkle__strmap_init(m);
}

/* Rehash into a table of nc slots (a power of two, more than count). */
static int rehash(merkle__strmap *m, size_t nc)
{
    struct merkle__strmap_slot *ns = calloc(nc, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].key) continue;
        size_t j = (size_t)m->slots[i].hash & (nc - 1);
        while (ns[j].key) j = (j + 1) & (nc - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = nc;
    return 0;
}

static int grow(merkle__strmap *m)
{
    return rehash(m, m->cap ? 2 * m->cap : 64);
}

int merkle__strmap_reserve(merkle__strmap *m, size_t n)
{
    if (n > SIZE_MAX / 8) return -1;
    size_t nc = m->cap ? m->cap : 64;
    while (n * 4 > nc * 3) nc *= 2;
    return nc == m->cap ? 0 : rehash(m, nc);
}

/* Slot of key (hash h): its slot, or the empty slot where it would go. */
static struct merkle__strmap_slot *slot_of(const merkle__strmap *m, const char *key, size_t len,
                                           uint64_t h)
{
    size_t j = (size_t)h & (m->cap - 1);
    while (m->slots[j].key) {
        const struct merkle__strmap_slot *sl = &m->slots[j];
        if (sl->hash == h && sl->len == len && memcmp(sl->key, key, len) == 0) break;
        j = (j + 1) & (m->cap - 1);
    }
    return &m->slots[j];
}

int merkle__strmap_put(merkle__strmap *m, const char *key, size_t len, size_t value)
{
    if ((m->count + 1) * 4 > m->cap * 3 && grow(m) != 0) return -1;
    uint64_t h = hash_key(key, len);
    struct merkle__strmap_slot *sl = slot_of(m, key, len, h);
    if (!sl->key) {
        sl->len = len;
        sl->hash = h;
        m->count++;
    }
    sl->key = key;
    sl->value = value;
    return 0;
}

int merkle__strmap_get_or_put(merkle__strmap *m, const char *key, size_t len, size_t value,
                              size_t *found)
{
    if ((m->count + 1) * 4 > m->cap * 3 && grow(m) != 0) return -1;
    uint64_t h = hash_key(key, len);
    struct merkle__strmap_slot *sl = slot_of(m, key, len, h);
    if (sl->key) {
        *found = sl->value;
        return 1;
    }
    sl->key = key;
    sl->len = len;
    sl->hash = h;
    sl->value = value;
    m->count++;
    return 0;
}

int merkle__strmap_get(const merkle__strmap *m, const char *key, size_t len, size_t *value)
{
    if (!m->cap) return 0;
    const struct merkle__strmap_slot *sl = slot_of(m, key, len, hash_key(key, len));
    if (!sl->key) return 0;
    *value = sl->value;
    return 1;
}
