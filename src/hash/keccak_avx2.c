/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Keccak-256 of 64-byte messages, 4 at once: one keccak-f[1600] state per 64-bit lane of
** 25 YMM registers. The 8 words of each message are gathered into the lanes, the padding
** (0x01 after them, 0x80 at the end of the 136-byte rate) is constant.
*/
#include <immintrin.h>
#include <string.h>

#include "hash/impl.h"

#define K_T                   __m256i
#define K_XOR(a, b)           _mm256_xor_si256(a, b)
#define K_XOR5(a, b, c, d, e) K_XOR(K_XOR(K_XOR(a, b), K_XOR(c, d)), e)
#define K_ROL(x, n)           _mm256_or_si256(_mm256_slli_epi64(x, n), _mm256_srli_epi64(x, 64 - (n)))
#define K_CHI(a, b, c)        _mm256_xor_si256(a, _mm256_andnot_si256(b, c))
#define LANES                 4
#define SET1(x)               _mm256_set1_epi64x((long long)(x))
#define GATHER(idx, p)        _mm256_i64gather_epi64((const long long *)(const void *)(p), idx, 1)
#define STORE(p, v)           _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define KECCAK_MSG32_FN       merkle__keccak256_msg32_avx2
#define KECCAK_MSG64_FN       merkle__keccak256_msg64_avx2
#include "hash/keccak_msg64.h"
