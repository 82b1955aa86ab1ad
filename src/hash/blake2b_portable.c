/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** BLAKE2b (RFC 7693), portable C: unkeyed, any digest length 1..64. The streaming state of
** merkle_blake2b and the per-message batch kernel "portable"; the tests compare it with
** libsodium.
*/
#include <string.h>

#include "hash/blake2b_impl.h"
#include "hash/blake2b_sigma.h"

static inline uint64_t ror64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

#define G(a, b, c, d, x, y)                                                                        \
    do {                                                                                           \
        a = a + b + (x);                                                                           \
        d = ror64(d ^ a, 32);                                                                      \
        c = c + d;                                                                                 \
        b = ror64(b ^ c, 24);                                                                      \
        a = a + b + (y);                                                                           \
        d = ror64(d ^ a, 16);                                                                      \
        c = c + d;                                                                                 \
        b = ror64(b ^ c, 63);                                                                      \
    } while (0)

static void compress(uint64_t h[8], const uint8_t block[128], uint64_t t0, uint64_t t1, int last)
{
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = load_le64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = merkle__blake2b_IV[i];
    }
    v[12] ^= t0;
    v[13] ^= t1;
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = b2_sigma[r];
        G(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
        G(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
        G(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
        G(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
        G(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
        G(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
        G(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
        G(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

void merkle__b2p_init(merkle__b2p *s, size_t out_len)
{
    memset(s, 0, sizeof *s);
    memcpy(s->h, merkle__blake2b_IV, sizeof s->h);
    s->h[0] ^= 0x01010000u ^ (uint64_t)out_len; /* depth 1, fanout 1, no key */
    s->out_len = out_len;
}

void merkle__b2p_update(merkle__b2p *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n) {
        /* The last block is compressed by final (with the last-block flag): a full buffer
        ** waits until more input shows that it is not the last. */
        if (s->fill == 128) {
            s->t0 += 128;
            if (s->t0 < 128) s->t1++;
            compress(s->h, s->buf, s->t0, s->t1, 0);
            s->fill = 0;
        }
        if (s->fill == 0) {
            while (n > 128) { /* whole blocks in place, never the final one */
                s->t0 += 128;
                if (s->t0 < 128) s->t1++;
                compress(s->h, p, s->t0, s->t1, 0);
                p += 128;
                n -= 128;
            }
        }
        size_t take = 128 - s->fill < n ? 128 - s->fill : n;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take;
        p += take;
        n -= take;
    }
}

void merkle__b2p_final(merkle__b2p *s, uint8_t *out)
{
    s->t0 += s->fill;
    if (s->t0 < s->fill) s->t1++;
    memset(s->buf + s->fill, 0, 128 - s->fill);
    compress(s->h, s->buf, s->t0, s->t1, 1);
    uint8_t full[64];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) full[8 * i + j] = (uint8_t)(s->h[i] >> (8 * j));
    memcpy(out, full, s->out_len);
}

static void batch_portable(uint8_t *out, const uint8_t *const *msgs, size_t n,
                           const uint8_t *prefix, size_t prefix_len, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        merkle__b2p st;
        merkle__b2p_init(&st, 32);
        if (prefix_len) merkle__b2p_update(&st, prefix, prefix_len);
        if (len) merkle__b2p_update(&st, msgs[i], len);
        merkle__b2p_final(&st, out + 32 * i);
    }
}

static int always(void)
{
    return 1;
}

const merkle__blake2b_impl merkle__blake2b_portable = { "portable", always, batch_portable, 1 };
