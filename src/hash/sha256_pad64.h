/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** SHA-256 of a 64-byte message: its second block is the same for every message, so that
** block's schedule is a table. Shared by the vector (sha256_simd.h) and SHA-NI kernels.
** Never installed.
*/
#ifndef MERKLE_HASH_SHA256_PAD64_H
#define MERKLE_HASH_SHA256_PAD64_H

#include <stdint.h>

/*
** W[t] + K[t] of the padding block of a 64-byte message (0x80, zeros, bit length 512): the
** block is the same for every such message, so its whole schedule is a constant (generated
** once from the FIPS 180-4 recurrence; a known-answer self-test covers it).
*/
static const uint32_t merkle__sha256_pad64_wk[64] = {
    0xc28a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf374u, 0x649b69c1u, 0xf0fe4786u, 0x0fe1edc6u, 0x240cf254u, 0x4fe9346fu,
    0x6cc984beu, 0x61b9411eu, 0x16f988fau, 0xf2c65152u, 0xa88e5a6du, 0xb019fc65u, 0xb9d99ec7u,
    0x9a1231c3u, 0xe70eeaa0u, 0xfdb1232bu, 0xc7353eb0u, 0x3069bad5u, 0xcb976d5fu, 0x5a0f118fu,
    0xdc1eeefdu, 0x0a35b689u, 0xde0b7a04u, 0x58f4ca9du, 0xe15d5b16u, 0x007f3e86u, 0x37088980u,
    0xa507ea32u, 0x6fab9537u, 0x17406110u, 0x0d8cd6f1u, 0xcdaa3b6du, 0xc0bbbe37u, 0x83613bdau,
    0xdb48a363u, 0x0b02e931u, 0x6fd15ca7u, 0x521afacau, 0x31338431u, 0x6ed41a95u, 0x6d437890u,
    0xc39c91f2u, 0x9eccabbdu, 0xb5c9a0e6u, 0x532fb63cu, 0xd2c741c6u, 0x07237ea3u, 0xa4954b68u,
    0x4c191d76u,
};

#endif
