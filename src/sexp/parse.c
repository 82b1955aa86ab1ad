/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Parser for canonical and back-reference serializations (docs/formats.md section 3).
**
** Iterative: an op stack of {Parse, Cons} and a value stack of finished nodes. A back
** reference resolves a path over the value stack viewed as a CLVM list (top first). That list
** is materialised lazily and at most once per stack slot: list[i] = (value[i] . list[i-1])
** stays valid until slot i is popped, so a run of `fe 01` tokens costs linear, not quadratic,
** work. A resolved node is pushed by handle: shared subtrees are never copied or expanded.
*/
#include <stdlib.h>
#include <string.h>

#include "sexp/sexp_impl.h"

enum { OP_PARSE = 0, OP_CONS = 1 };

typedef struct parser {
    merkle_sexp_store *st;
    const uint8_t *in;
    size_t len;      /* input bytes available to the parser (min of len and max_input) */
    size_t real_len; /* input bytes given */
    size_t pos;
    unsigned flags;
    merkle_sexp_limits lim;
    uint64_t nodes;
    merkle_error *err;
    uint8_t *ops;
    size_t nops, ops_cap;
    merkle_sexp_node *vals;
    size_t nvals, vals_cap;
    merkle_sexp_node *list; /* list[i] = stack-as-list starting at vals[i] */
    size_t list_cap, list_valid;
    merkle_sexp_node nil;
    int have_nil;
} parser;

static merkle_status count_node(parser *p, size_t at)
{
    if (++p->nodes > p->lim.max_nodes)
        return merkle__fail(p->err, MERKLE_ERR_LIMIT, 0, at,
                            "node limit (%llu) reached at byte offset %zu",
                            (unsigned long long)p->lim.max_nodes, at);
    return MERKLE_OK;
}

static merkle_status truncated(parser *p, size_t at, const char *what)
{
    if (p->len < p->real_len)
        return merkle__fail(p->err, MERKLE_ERR_LIMIT, 0, at,
                            "input size limit (%llu bytes) reached in %s at byte offset %zu",
                            (unsigned long long)p->lim.max_input, what, at);
    return merkle__fail(p->err, MERKLE_ERR_FORMAT, 0, at,
                        "truncated input: %s at byte offset %zu is incomplete", what, at);
}

/* Decode the atom at p->pos (first byte not ff or fe). On success, data and n
** describe its contents (pointing into the input) and p->pos moves past it. */
static merkle_status read_atom(parser *p, const uint8_t **data, uint64_t *n, const char *what)
{
    size_t at = p->pos;
    if (at >= p->len) return truncated(p, at, what);
    uint8_t b = p->in[at];
    if (b < 0x80) {
        *data = p->in + at;
        *n = 1;
        p->pos = at + 1;
        return MERKLE_OK;
    }
    if (b == 0x80) {
        *data = p->in + at;
        *n = 0;
        p->pos = at + 1;
        return MERKLE_OK;
    }
    unsigned ones = 0;
    while (ones < 8 && (b & (0x80u >> ones))) ones++;
    if (ones >= 6)
        return merkle__fail(p->err, MERKLE_ERR_FORMAT, 0, at,
                            "bad atom prefix 0x%02x in %s at byte offset %zu", b, what, at);
    if (p->len - at < ones) return truncated(p, at, what);
    uint64_t size = (uint64_t)(b & (0xffu >> ones));
    for (unsigned i = 1; i < ones; i++) size = (size << 8) | p->in[at + i];
    if (size >= 0x400000000ULL)
        return merkle__fail(p->err, MERKLE_ERR_FORMAT, 0, at,
                            "atom length %llu too large in %s at byte offset %zu",
                            (unsigned long long)size, what, at);
    if (p->flags & MERKLE_SEXP_STRICT) {
        static const uint64_t min_for[6] = { 0, 0, 0x40, 0x2000, 0x100000, 0x8000000 };
        if (size < min_for[ones])
            return merkle__fail(p->err, MERKLE_ERR_FORMAT, 0, at,
                                "non-canonical atom encoding in %s at byte offset %zu", what, at);
    }
    if (size > p->lim.max_atom)
        return merkle__fail(p->err, MERKLE_ERR_LIMIT, 0, at,
                            "atom of %llu bytes exceeds the atom size limit (%llu) at byte "
                            "offset %zu",
                            (unsigned long long)size, (unsigned long long)p->lim.max_atom, at);
    size_t body = at + ones;
    if ((uint64_t)(p->len - body) < size) return truncated(p, at, what);
    if (p->flags & MERKLE_SEXP_STRICT && size == 1 && p->in[body] < 0x80)
        return merkle__fail(p->err, MERKLE_ERR_FORMAT, 0, at,
                            "non-canonical atom encoding in %s at byte offset %zu", what, at);
    *data = p->in + body;
    *n = size;
    p->pos = body + (size_t)size;
    return MERKLE_OK;
}

static merkle_status push_val(parser *p, merkle_sexp_node v)
{
    if (merkle__grow(&p->vals, &p->vals_cap, p->nvals + 1, sizeof *p->vals))
        return MERKLE_ERR_NOMEM;
    if (p->list_valid > p->nvals) p->list_valid = p->nvals;
    p->vals[p->nvals++] = v;
    return MERKLE_OK;
}

static merkle_status get_nil(parser *p, merkle_sexp_node *out, size_t at)
{
    if (!p->have_nil) {
        merkle_status s = count_node(p, at);
        if (s) return s;
        if ((s = merkle_sexp_atom_new(&p->nil, p->st, NULL, 0)) != MERKLE_OK) return s;
        p->have_nil = 1;
    }
    *out = p->nil;
    return MERKLE_OK;
}

/* The stack-as-list whose first element is vals[i] (i = -1: nil), materialised lazily. */
static merkle_status stack_list(parser *p, long i, merkle_sexp_node *out, size_t at)
{
    merkle_status s;
    if (i < 0) return get_nil(p, out, at);
    if (merkle__grow(&p->list, &p->list_cap, (size_t)i + 1, sizeof *p->list))
        return MERKLE_ERR_NOMEM;
    while (p->list_valid <= (size_t)i) {
        size_t k = p->list_valid;
        merkle_sexp_node rest;
        if (k == 0) {
            if ((s = get_nil(p, &rest, at)) != MERKLE_OK) return s;
        } else {
            rest = p->list[k - 1];
        }
        if ((s = count_node(p, at)) != MERKLE_OK) return s;
        if ((s = merkle_sexp_pair_new(&p->list[k], p->st, p->vals[k], rest)) != MERKLE_OK) return s;
        p->list_valid = k + 1;
    }
    *out = p->list[i];
    return MERKLE_OK;
}

/* Resolve a back-reference path (B.3) over the parse stack. */
static merkle_status resolve(parser *p, const uint8_t *path, size_t n, size_t at,
                             merkle_sexp_node *out)
{
    size_t first = 0;
    while (first < n && path[first] == 0) first++;
    if (first == n) return get_nil(p, out, at);
    /* Walk bits LSB first, from the last byte up to (excluding) the top set bit. */
    int in_stack = 1;
    long sp = (long)p->nvals - 1;
    merkle_sexp_node node = 0;
    const merkle_sexp_store *st = p->st;
    for (size_t bi = n; bi-- > first;) {
        unsigned byte = path[bi];
        int nbits = 8;
        if (bi == first) {
            nbits = 0;
            while ((byte >> (nbits + 1)) != 0) nbits++; /* bits below the top set bit */
        }
        for (int k = 0; k < nbits; k++) {
            unsigned bit = (byte >> k) & 1;
            if (in_stack) {
                if (sp < 0)
                    return merkle__fail(p->err, MERKLE_ERR_FORMAT, 0, at,
                                        "back reference at byte offset %zu goes past the "
                                        "bottom of the parse stack",
                                        at);
                if (bit) {
                    sp--;
                } else {
                    node = p->vals[sp];
                    in_stack = 0;
                }
            } else {
                if (node & MERKLE__SEXP_ATOM_BIT)
                    return merkle__fail(p->err, MERKLE_ERR_FORMAT, 0, at,
                                        "back reference at byte offset %zu walks into an atom", at);
                node = st->pairs[2 * (size_t)node + bit];
            }
        }
    }
    if (in_stack) return stack_list(p, sp, out, at);
    *out = node;
    return MERKLE_OK;
}

merkle_status merkle_sexp_parse(merkle_sexp_node *out, size_t *consumed, merkle_sexp_store *store,
                                const uint8_t *in, size_t len, uint32_t flags,
                                const merkle_sexp_limits *limits, merkle_error *error)
{
    if (!out || !store || (!in && len))
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "sexp parse: NULL argument");
    if (flags & ~(uint32_t)(MERKLE_SEXP_BACKREFS | MERKLE_SEXP_STRICT))
        return merkle__fail(error, MERKLE_ERR_ARG, 0, 0, "sexp parse: unknown flag bits");
    parser p;
    memset(&p, 0, sizeof p);
    p.st = store;
    p.in = in;
    p.real_len = len;
    p.flags = flags;
    p.err = error;
    if (limits)
        p.lim = *limits;
    else
        merkle_sexp_limits_init(&p.lim);
    p.len = (uint64_t)len > p.lim.max_input ? (size_t)p.lim.max_input : len;
    size_t save_pairs = store->npairs, save_atoms = store->natoms, save_bytes = store->nbytes;

    merkle_status s = MERKLE_OK;
    if (merkle__grow(&p.ops, &p.ops_cap, 64, 1)) {
        s = MERKLE_ERR_NOMEM;
        goto done;
    }
    p.ops[p.nops++] = OP_PARSE;
    while (p.nops) {
        uint8_t op = p.ops[--p.nops];
        if (op == OP_CONS) {
            merkle_sexp_node r = p.vals[--p.nvals], l = p.vals[--p.nvals], pr;
            if ((s = count_node(&p, p.pos)) != MERKLE_OK) goto done;
            if ((s = merkle_sexp_pair_new(&pr, store, l, r)) != MERKLE_OK) goto done;
            if ((s = push_val(&p, pr)) != MERKLE_OK) goto done;
            continue;
        }
        size_t at = p.pos;
        if (at >= p.len) {
            s = truncated(&p, at, "value");
            goto done;
        }
        MERKLE_ASSERT(in); /* at < len, and in is NULL only when len is 0 */
        uint8_t b = in[at];
        if (b == 0xff) {
            p.pos++;
            if (p.nops + 3 > p.lim.max_depth) {
                s = merkle__fail(error, MERKLE_ERR_LIMIT, 0, at,
                                 "depth limit (%llu) reached at byte offset %zu",
                                 (unsigned long long)p.lim.max_depth, at);
                goto done;
            }
            if (merkle__grow(&p.ops, &p.ops_cap, p.nops + 3, 1)) {
                s = MERKLE_ERR_NOMEM;
                goto done;
            }
            p.ops[p.nops++] = OP_CONS;
            p.ops[p.nops++] = OP_PARSE;
            p.ops[p.nops++] = OP_PARSE;
            continue;
        }
        merkle_sexp_node v;
        if (b == 0xfe) {
            if (!(flags & MERKLE_SEXP_BACKREFS)) {
                s = merkle__fail(error, MERKLE_ERR_FORMAT, 0, at,
                                 "back reference (0xfe) at byte offset %zu, but back "
                                 "references are not allowed",
                                 at);
                goto done;
            }
            p.pos++;
            if (p.pos < p.len && in[p.pos] >= 0xfe) {
                s = merkle__fail(error, MERKLE_ERR_FORMAT, 0, at,
                                 "back reference at byte offset %zu: path must be an atom", at);
                goto done;
            }
            const uint8_t *path;
            uint64_t n;
            if ((s = read_atom(&p, &path, &n, "back-reference path")) != MERKLE_OK) goto done;
            if ((s = count_node(&p, at)) != MERKLE_OK) goto done;
            if ((s = resolve(&p, path, (size_t)n, at, &v)) != MERKLE_OK) goto done;
        } else {
            const uint8_t *data;
            uint64_t n;
            if ((s = read_atom(&p, &data, &n, "atom")) != MERKLE_OK) goto done;
            if ((s = count_node(&p, at)) != MERKLE_OK) goto done;
            if ((s = merkle_sexp_atom_new(&v, store, data, (size_t)n)) != MERKLE_OK) goto done;
        }
        if ((s = push_val(&p, v)) != MERKLE_OK) goto done;
    }
    *out = p.vals[0];
    if (consumed) *consumed = p.pos;
done:
    if (s != MERKLE_OK) {
        if (s == MERKLE_ERR_NOMEM)
            merkle__fail(error, s, 0, p.pos, "out of memory while parsing");
        else if (s == MERKLE_ERR_RANGE)
            s = merkle__fail(error, MERKLE_ERR_LIMIT, 0, p.pos, "node store is full");
        store->npairs = save_pairs;
        store->natoms = save_atoms;
        store->nbytes = save_bytes;
    }
    free(p.ops);
    free(p.vals);
    free(p.list);
    return s;
}
