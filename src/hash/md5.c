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

static void md5_blocks(void *h, const uint8_t *blocks, size_t n)
{
    merkle__md5_compress((uint32_t *)h, blocks, n);
}

void merkle__md5s_update(merkle__md5s *c, const void *p, size_t n)
{
    merkle__md_update(c->h, c->buf, 64, &c->total, p, n, md5_blocks);
}

void merkle__md5s_final(merkle__md5s *c, uint8_t out[16])
{
    uint8_t last[128];
    size_t tail = (size_t)(c->total % 64);
    memcpy(last, c->buf, tail);
    merkle__md5_compress(c->h, last, merkle__md_pad(last, tail, 64, 8, c->total, 1) / 64);
    merkle__md5_store_digest(out, c->h);
}
