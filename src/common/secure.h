/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Small security primitives, in-tree so that no platform needs libsodium for them (internal):
** random bytes from the operating system, a memory wipe the compiler cannot drop, and
** SipHash-2-4 (keyed hashing of attacker-chosen names in hash tables).
*/
#ifndef MERKLE_COMMON_SECURE_H
#define MERKLE_COMMON_SECURE_H

#include <stddef.h>
#include <stdint.h>

/* Fill buf with n bytes from the OS's cryptographic generator (getrandom, else /dev/urandom).
** Returns 0, or -1 when no generator answered (buf is then unspecified). */
int merkle__random_bytes(void *buf, size_t n);

/* Zero n bytes at p; never optimised away. */
void merkle__memzero(void *p, size_t n);

/* SipHash-2-4 of in[0..len) under a 16-byte key: the 64-bit tag as the reference's 8 output
** bytes read little-endian (libsodium's crypto_shorthash bytes, memcpy'd on little-endian). */
uint64_t merkle__siphash24(const uint8_t key[16], const void *in, size_t len);

#endif
