/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** CLVM node store: growable arrays of pairs and atoms (no allocation per node), accessors,
** the atom length prefix, and the per-process secret of the keyed tables.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"

#include "sexp/sexp_impl.h"

void merkle_sexp_limits_init(merkle_sexp_limits *limits)
{
    if (!limits) return;
    limits->max_input = (uint64_t)64 << 20;
    limits->max_atom = (uint64_t)64 << 20;
    limits->max_nodes = (uint64_t)1 << 26;
    limits->max_depth = (uint64_t)1 << 20;
}

merkle_status merkle_sexp_store_alloc(merkle_sexp_store **out)
{
    if (!out) return MERKLE_ERR_ARG;
    *out = calloc(1, sizeof **out);
    return *out ? MERKLE_OK : MERKLE_ERR_NOMEM;
}

void merkle_sexp_store_free(merkle_sexp_store *store)
{
    if (!store) return;
    free(store->pairs);
    free(store->atoms);
    free(store->bytes);
    free(store->pair_hash);
    free(store->atom_hash);
    free(store->pair_done);
    free(store->atom_done);
    free(store);
}

void merkle_sexp_store_clear(merkle_sexp_store *store)
{
    if (!store) return;
    store->npairs = store->natoms = store->nbytes = 0;
    /* Memo slots of the dropped nodes must not claim a hash for the next ones. */
    if (store->pair_done) memset(store->pair_done, 0, store->pair_hash_cap);
    if (store->atom_done) memset(store->atom_done, 0, store->atom_hash_cap);
}

size_t merkle_sexp_store_count(const merkle_sexp_store *store)
{
    return store ? store->npairs + store->natoms : 0;
}

merkle_status merkle_sexp_atom_new(merkle_sexp_node *out, merkle_sexp_store *st,
                                   const uint8_t *data, size_t len)
{
    if (!out || !st || (!data && len)) return MERKLE_ERR_ARG;
#if SIZE_MAX > 0xffffffffu /* a 32-bit size_t never exceeds the limit */
    if ((uint64_t)len > MERKLE_SEXP_MAX_ATOM_LEN) return MERKLE_ERR_RANGE;
#endif
    if (st->natoms + st->npairs >= MERKLE_SEXP_MAX_NODES) return MERKLE_ERR_RANGE;
    if (st->nbytes > SIZE_MAX - len) return MERKLE_ERR_RANGE;
    if (merkle__grow(&st->atoms, &st->atoms_cap, st->natoms + 1, 16) ||
        merkle__grow(&st->bytes, &st->bytes_cap, st->nbytes + len, 1))
        return MERKLE_ERR_NOMEM;
    if (len) memcpy(st->bytes + st->nbytes, data, len);
    st->atoms[2 * st->natoms] = st->nbytes;
    st->atoms[2 * st->natoms + 1] = len;
    st->nbytes += len;
    *out = (merkle_sexp_node)st->natoms | MERKLE__SEXP_ATOM_BIT;
    st->natoms++;
    return MERKLE_OK;
}

merkle_status merkle_sexp_pair_new(merkle_sexp_node *out, merkle_sexp_store *st,
                                   merkle_sexp_node left, merkle_sexp_node right)
{
    if (!out || !st || !merkle__sexp_valid(st, left) || !merkle__sexp_valid(st, right))
        return MERKLE_ERR_ARG;
    if (st->natoms + st->npairs >= MERKLE_SEXP_MAX_NODES) return MERKLE_ERR_RANGE;
    if (merkle__grow(&st->pairs, &st->pairs_cap, st->npairs + 1, 8)) return MERKLE_ERR_NOMEM;
    st->pairs[2 * st->npairs] = left;
    st->pairs[2 * st->npairs + 1] = right;
    *out = (merkle_sexp_node)st->npairs;
    st->npairs++;
    return MERKLE_OK;
}

int merkle_sexp_is_atom(merkle_sexp_node node)
{
    return (node & MERKLE__SEXP_ATOM_BIT) != 0;
}

merkle_status merkle_sexp_atom(const uint8_t **data, size_t *len, const merkle_sexp_store *st,
                               merkle_sexp_node node)
{
    if (!data || !len || !st || !(node & MERKLE__SEXP_ATOM_BIT) || !merkle__sexp_valid(st, node))
        return MERKLE_ERR_ARG;
    size_t i = node & ~MERKLE__SEXP_ATOM_BIT;
    *data = merkle__sexp_atom_data(st, i);
    *len = (size_t)st->atoms[2 * i + 1];
    return MERKLE_OK;
}

merkle_status merkle_sexp_pair(merkle_sexp_node *left, merkle_sexp_node *right,
                               const merkle_sexp_store *st, merkle_sexp_node node)
{
    if (!left || !right || !st || (node & MERKLE__SEXP_ATOM_BIT) || !merkle__sexp_valid(st, node))
        return MERKLE_ERR_ARG;
    *left = st->pairs[2 * (size_t)node];
    *right = st->pairs[2 * (size_t)node + 1];
    return MERKLE_OK;
}

size_t merkle_sexp_atom_prefix(uint8_t prefix[5], uint64_t len)
{
    if (len < 0x40) {
        prefix[0] = (uint8_t)(0x80 | len);
        return 1;
    }
    if (len < 0x2000) {
        prefix[0] = (uint8_t)(0xc0 | (len >> 8));
        prefix[1] = (uint8_t)len;
        return 2;
    }
    if (len < 0x100000) {
        prefix[0] = (uint8_t)(0xe0 | (len >> 16));
        prefix[1] = (uint8_t)(len >> 8);
        prefix[2] = (uint8_t)len;
        return 3;
    }
    if (len < 0x8000000) {
        prefix[0] = (uint8_t)(0xf0 | (len >> 24));
        prefix[1] = (uint8_t)(len >> 16);
        prefix[2] = (uint8_t)(len >> 8);
        prefix[3] = (uint8_t)len;
        return 4;
    }
    if (len < 0x400000000ULL) {
        prefix[0] = (uint8_t)(0xf8 | (len >> 32));
        prefix[1] = (uint8_t)(len >> 24);
        prefix[2] = (uint8_t)(len >> 16);
        prefix[3] = (uint8_t)(len >> 8);
        prefix[4] = (uint8_t)len;
        return 5;
    }
    return 0;
}

void merkle_sexp_buffer_free(uint8_t *buf)
{
    free(buf);
}

/* ------------------------------------------------------------------ secret */

static uint64_t g_secret[4];
static pthread_once_t g_secret_once = PTHREAD_ONCE_INIT;

static void secret_init(void)
{
    uint8_t buf[32];
    size_t got = merkle__os_random(buf, sizeof buf) == 0 ? sizeof buf : 0;
    if (got < sizeof buf) {
        /* No system generator (getrandom, /dev/urandom, BCryptGenRandom): the clock and
        ** addresses, which still differ per process (weaker, but the tables also bound probe
        ** lengths). */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t mix[4] = { (uint64_t)ts.tv_nsec, (uint64_t)ts.tv_sec, (uint64_t)getpid(),
                            (uint64_t)(uintptr_t)&got };
        merkle__sexp_sha_tagged(buf, 0, (const uint8_t *)mix, sizeof mix);
    }
    for (int i = 0; i < 4; i++) g_secret[i] = merkle__load_le64(buf + 8 * i);
    g_secret[1] |= 1; /* multipliers must be odd */
    g_secret[3] |= 1;
}

void merkle__sexp_secret(uint64_t out[4])
{
    pthread_once(&g_secret_once, secret_init);
    memcpy(out, g_secret, sizeof g_secret);
}
