/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The one rule set by which every kernel family (SHA-256, BLAKE2b-256 batches, MD5 lanes,
** Keccak-256 64-byte nodes) picks its kernel at run time (internal):
**  - automatic by default: the family's own choice (SHA-256, BLAKE2b and Keccak-256 measure
**    their kernels once; MD5 takes the widest one), among kernels that run on this CPU and pass
**    their known-answer self-test;
**  - the family's environment variable (MERKLE_BACKEND, MERKLE_BLAKE2B_BACKEND,
**    MERKLE_MD5_BACKEND, MERKLE_KECCAK_BACKEND) forces a kernel by name when it is compiled
**    in, runs here and passes its self-test; unset, empty, "auto", an unknown or an unusable
**    name: automatic (the library never aborts over an environment variable);
**  - set(name): NULL or "auto" -> automatic; an unknown name -> MERKLE_ERR_ARG; compiled in
**    but not for this CPU -> MERKLE_ERR_UNSUPPORTED; failing its self-test -> MERKLE_ERR_VERIFY;
**  - list: the kernels this CPU runs, in preference order.
** Each family keeps its own table and its publication (an atomic pointer set once), and asks
** this module for the decisions, so that the rules cannot drift apart again.
*/
#ifndef MERKLE_HASH_DISPATCH_H
#define MERKLE_HASH_DISPATCH_H

#include <stddef.h>

#include "merkle/common.h"

typedef struct merkle__kernel_family {
    size_t n;                      /* kernels compiled in, in preference order */
    const char *(*name)(size_t i); /* kernel i's name */
    int (*available)(size_t i);    /* kernel i runs on this CPU */
    int (*self_test)(size_t i);    /* kernel i agrees with the reference */
} merkle__kernel_family;

/* The kernel the environment variable `var` forces: its index, or -1 (automatic). */
long merkle__dispatch_env(const merkle__kernel_family *f, const char *var);

/* The set(name) rules: MERKLE_OK with *automatic = 1 (NULL or "auto"), or with *automatic = 0
** and *index of a usable kernel; otherwise MERKLE_ERR_ARG, _UNSUPPORTED or _VERIFY. */
merkle_status merkle__dispatch_resolve(const merkle__kernel_family *f, const char *name,
                                       size_t *index, int *automatic);

/* Names of the kernels that run on this CPU, in preference order: up to cap of them into
** names (may be NULL); returns how many there are. */
size_t merkle__dispatch_list(const merkle__kernel_family *f, const char **names, size_t cap);

#endif
