/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The reference search of the back-reference encoder: clvm_rs's find_path, a breadth-first
** search upwards over per-id parent-entry lists (backref.c's opening comment). Tests and
** fuzzing run it (merkle__sexp_br_opts.reference, .crosscheck); the encoder's default is
** the indexed search of backref.c, which must give the same path.
*/
#include <stdlib.h>
#include <string.h>

#include "sexp/backref_impl.h"

/* ------------------------------------------------------------------ reference search */

/* Path bytes of BFS entry i at depth `steps` into buf (length (steps+8)/8). */
static void encode_path(const enc *e, size_t i, size_t steps, uint8_t *buf)
{
    size_t nb = (steps + 1 + 7) / 8;
    memset(buf, 0, nb);
    size_t k = 0;
    while (k < steps) {
        if (e->ref.bside[i]) buf[nb - 1 - k / 8] |= (uint8_t)(1u << (k % 8));
        i = e->ref.bprev[i];
        k++;
    }
    buf[nb - 1 - steps / 8] |= (uint8_t)(1u << (steps % 8));
}

static merkle_status bfs_reserve(enc *e, size_t need)
{
    if (need <= e->ref.b_cap) return MERKLE_OK;
    size_t c1 = e->ref.b_cap, c2 = e->ref.b_cap2, c3 = e->ref.b_cap3;
    if (merkle__grow(&e->ref.bnode, &c1, need, 4) || merkle__grow(&e->ref.bprev, &c2, need, 4) ||
        merkle__grow(&e->ref.bside, &c3, need, 1))
        return MERKLE_ERR_NOMEM;
    e->ref.b_cap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    e->ref.b_cap2 = c2;
    e->ref.b_cap3 = c3;
    return MERKLE_OK;
}

/* clvm_rs find_path itself (breadth-first over the entry lists): reference mode. */
merkle_status merkle__br_ref_find(enc *e, uint32_t h, uint64_t sl, int *found)
{
    *found = 0;
    e->sr.cut = 0;
    if (sl < MIN_SL) return MERKLE_OK;
    if (++e->ref.rstamp == 0) { /* wrapped: clear the stamps */
        memset(e->ref.seen, 0, e->ids.nids * sizeof *e->ref.seen);
        e->ref.rstamp = 1;
    }
    merkle_status s = bfs_reserve(e, 1);
    if (s) return s;
    uint32_t root = e->walk.spine[e->walk.m];
    e->ref.seen[h] = e->ref.rstamp;
    e->ref.bnode[0] = h;
    e->ref.bprev[0] = NONE;
    e->ref.bside[0] = 0;
    size_t n = 1, lo = 0, hi = 1, steps = 0;
    while (lo < hi) {
        /* Expanding a level is useless once its children could not be referenced (clvm_rs
        ** goes deeper but accepts nothing there); the level itself is scanned to its end
        ** for the root. */
        int expand = allowed(steps + 1, sl);
        for (size_t i = lo; i < hi; i++) {
            uint32_t node = e->ref.bnode[i];
            if (node == root) { /* the root is one node: found once per search */
                size_t nb = (steps + 8) / 8;
                if (nb > e->sr.path_cap) {
                    size_t c = e->sr.path_cap;
                    if (merkle__grow(&e->sr.path, &c, nb, 1)) return MERKLE_ERR_NOMEM;
                    e->sr.path_cap = c;
                }
                encode_path(e, i, steps, e->sr.path);
                e->sr.path_len = nb;
                *found = 1;
                return MERKLE_OK;
            }
            if (!expand) continue;
            for (uint32_t k = e->ref.head[node]; k != NONE; k = e->ref.ent_next[k]) {
                if (!work(e)) return MERKLE_OK;
                uint32_t parent = e->ref.ent_parent[k] & ~SIDE_BIT;
                if (e->ids.count[parent] == 0 || e->ref.seen[parent] == e->ref.rstamp) continue;
                if ((s = bfs_reserve(e, n + 1)) != MERKLE_OK) return s;
                e->ref.bnode[n] = parent;
                e->ref.bprev[n] = (uint32_t)i;
                e->ref.bside[n] = (uint8_t)(e->ref.ent_parent[k] >> 31);
                n++;
                e->ref.seen[parent] = e->ref.rstamp;
            }
        }
        if (!expand) return MERKLE_OK;
        lo = hi;
        hi = n;
        steps++;
    }
    return MERKLE_OK;
}
