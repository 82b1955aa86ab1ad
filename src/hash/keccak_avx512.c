/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Keccak-256 of 64-byte messages, 8 at once: one keccak-f[1600] state per 64-bit lane of
** 25 ZMM registers (rotations are vprolq, theta's five-way xor and chi one or two
** vpternlogq each). The 8 words of each message are gathered into the lanes, the padding
** (0x01 after them, 0x80 at the end of the 136-byte rate) is constant.
*/
#include <immintrin.h>
#include <string.h>

#include "hash/impl.h"

#define K_T         __m512i
#define K_XOR(a, b) _mm512_xor_si512(a, b)
#define K_XOR5(a, b, c, d, e)                                                                      \
    _mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96)
#define K_ROL(x, n)     _mm512_rol_epi64(x, n)
#define K_CHI(a, b, c)  _mm512_ternarylogic_epi64(a, b, c, 0xD2) /* a ^ (~b & c) */
#define LANES           8
#define SET1(x)         _mm512_set1_epi64((long long)(x))
#define GATHER(idx, p)  _mm512_i64gather_epi64(idx, (const void *)(p), 1)
#define STORE(p, v)     _mm512_storeu_si512((void *)(p), v)
#define KECCAK_MSG32_FN merkle__keccak256_msg32_avx512
#define KECCAK_MSG64_FN merkle__keccak256_msg64_avx512
#include "hash/keccak_msg64.h"
