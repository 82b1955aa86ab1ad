/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** One keccak-f[1600] round on 25 lanes a0..a24 (index x + 5y), fully unrolled, shared by
** the portable code (one state in uint64_t) and the multi-buffer kernels (one state per
** vector lane). Never installed. The including file defines the lane type K_T and:
**   K_XOR(a, b)      a ^ b
**   K_XOR5(a,b,c,d,e) a ^ b ^ c ^ d ^ e
**   K_ROL(x, n)      rotate left by the constant n (1..63)
**   K_CHI(a, b, c)   a ^ (~b & c)
** and uses KECCAK_ROUND(rc) inside a scope holding K_T a0..a24 (rc: the round constant as
** a K_T). The steps are FIPS 202 section 3.2: theta, rho and pi (B[y, 2x+3y] =
** rot(A[x, y], r[x, y])), chi, iota. Generated from the specification's tables.
*/
#ifndef MERKLE_HASH_KECCAK_ROUND_H
#define MERKLE_HASH_KECCAK_ROUND_H

#define KECCAK_ROUND(rc)                                                                           \
    do {                                                                                           \
        K_T rc_ = (rc);                                                                            \
        K_T c0_ = K_XOR5(a0, a5, a10, a15, a20), c1_ = K_XOR5(a1, a6, a11, a16, a21);              \
        K_T c2_ = K_XOR5(a2, a7, a12, a17, a22), c3_ = K_XOR5(a3, a8, a13, a18, a23);              \
        K_T c4_ = K_XOR5(a4, a9, a14, a19, a24);                                                   \
        K_T d0_ = K_XOR(c4_, K_ROL(c1_, 1));                                                       \
        K_T d1_ = K_XOR(c0_, K_ROL(c2_, 1));                                                       \
        K_T d2_ = K_XOR(c1_, K_ROL(c3_, 1));                                                       \
        K_T d3_ = K_XOR(c2_, K_ROL(c4_, 1));                                                       \
        K_T d4_ = K_XOR(c3_, K_ROL(c0_, 1));                                                       \
        K_T b0_ = K_XOR(a0, d0_);                                                                  \
        K_T b1_ = K_ROL(K_XOR(a6, d1_), 44);                                                       \
        K_T b2_ = K_ROL(K_XOR(a12, d2_), 43);                                                      \
        K_T b3_ = K_ROL(K_XOR(a18, d3_), 21);                                                      \
        K_T b4_ = K_ROL(K_XOR(a24, d4_), 14);                                                      \
        K_T b5_ = K_ROL(K_XOR(a3, d3_), 28);                                                       \
        K_T b6_ = K_ROL(K_XOR(a9, d4_), 20);                                                       \
        K_T b7_ = K_ROL(K_XOR(a10, d0_), 3);                                                       \
        K_T b8_ = K_ROL(K_XOR(a16, d1_), 45);                                                      \
        K_T b9_ = K_ROL(K_XOR(a22, d2_), 61);                                                      \
        K_T b10_ = K_ROL(K_XOR(a1, d1_), 1);                                                       \
        K_T b11_ = K_ROL(K_XOR(a7, d2_), 6);                                                       \
        K_T b12_ = K_ROL(K_XOR(a13, d3_), 25);                                                     \
        K_T b13_ = K_ROL(K_XOR(a19, d4_), 8);                                                      \
        K_T b14_ = K_ROL(K_XOR(a20, d0_), 18);                                                     \
        K_T b15_ = K_ROL(K_XOR(a4, d4_), 27);                                                      \
        K_T b16_ = K_ROL(K_XOR(a5, d0_), 36);                                                      \
        K_T b17_ = K_ROL(K_XOR(a11, d1_), 10);                                                     \
        K_T b18_ = K_ROL(K_XOR(a17, d2_), 15);                                                     \
        K_T b19_ = K_ROL(K_XOR(a23, d3_), 56);                                                     \
        K_T b20_ = K_ROL(K_XOR(a2, d2_), 62);                                                      \
        K_T b21_ = K_ROL(K_XOR(a8, d3_), 55);                                                      \
        K_T b22_ = K_ROL(K_XOR(a14, d4_), 39);                                                     \
        K_T b23_ = K_ROL(K_XOR(a15, d0_), 41);                                                     \
        K_T b24_ = K_ROL(K_XOR(a21, d1_), 2);                                                      \
        a0 = K_CHI(b0_, b1_, b2_);                                                                 \
        a1 = K_CHI(b1_, b2_, b3_);                                                                 \
        a2 = K_CHI(b2_, b3_, b4_);                                                                 \
        a3 = K_CHI(b3_, b4_, b0_);                                                                 \
        a4 = K_CHI(b4_, b0_, b1_);                                                                 \
        a5 = K_CHI(b5_, b6_, b7_);                                                                 \
        a6 = K_CHI(b6_, b7_, b8_);                                                                 \
        a7 = K_CHI(b7_, b8_, b9_);                                                                 \
        a8 = K_CHI(b8_, b9_, b5_);                                                                 \
        a9 = K_CHI(b9_, b5_, b6_);                                                                 \
        a10 = K_CHI(b10_, b11_, b12_);                                                             \
        a11 = K_CHI(b11_, b12_, b13_);                                                             \
        a12 = K_CHI(b12_, b13_, b14_);                                                             \
        a13 = K_CHI(b13_, b14_, b10_);                                                             \
        a14 = K_CHI(b14_, b10_, b11_);                                                             \
        a15 = K_CHI(b15_, b16_, b17_);                                                             \
        a16 = K_CHI(b16_, b17_, b18_);                                                             \
        a17 = K_CHI(b17_, b18_, b19_);                                                             \
        a18 = K_CHI(b18_, b19_, b15_);                                                             \
        a19 = K_CHI(b19_, b15_, b16_);                                                             \
        a20 = K_CHI(b20_, b21_, b22_);                                                             \
        a21 = K_CHI(b21_, b22_, b23_);                                                             \
        a22 = K_CHI(b22_, b23_, b24_);                                                             \
        a23 = K_CHI(b23_, b24_, b20_);                                                             \
        a24 = K_CHI(b24_, b20_, b21_);                                                             \
        a0 = K_XOR(a0, rc_);                                                                       \
    } while (0)

#endif
