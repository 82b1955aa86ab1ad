/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Streaming single-message MD5 (md.h) over md5_mb.c's scalar compress: one file of a
** checksum list read in pieces, or standard input.
*/
#include <string.h>

#include "hash/md.h"
#include "hash/md5_mb.h"

void merkle__md5s_init(merkle__md5s *c)
{
    c->h[0] = 0x67452301u;
    c->h[1] = 0xefcdab89u;
    c->h[2] = 0x98badcfeu;
    c->h[3] = 0x10325476u;
    c->total = 0;
}

void merkle__md5s_update(merkle__md5s *c, const void *p, size_t n)
{
    const uint8_t *in = p;
    size_t fill = (size_t)(c->total % 64);
    c->total += n;
    if (fill) {
        size_t take = 64 - fill < n ? 64 - fill : n;
        memcpy(c->buf + fill, in, take);
        in += take;
        n -= take;
        if (fill + take < 64) return;
        merkle__md5_compress(c->h, c->buf, 1);
    }
    if (n >= 64) {
        merkle__md5_compress(c->h, in, n / 64);
        in += n - n % 64;
        n %= 64;
    }
    if (n) memcpy(c->buf, in, n);
}

void merkle__md5s_final(merkle__md5s *c, uint8_t out[16])
{
    uint8_t last[128];
    size_t tail = (size_t)(c->total % 64);
    memcpy(last, c->buf, tail);
    size_t pad = merkle__md5_pad(last, tail, c->total);
    merkle__md5_compress(c->h, last, (tail + pad) / 64);
    merkle__md5_store_digest(out, c->h);
}
