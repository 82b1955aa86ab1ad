/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** Kernel choice rules shared by every hash family (see dispatch.h).
*/
#include <stdlib.h>
#include <string.h>

#include "hash/dispatch.h"

static long find(const merkle__kernel_family *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->name(i), name) == 0) return (long)i;
    return -1;
}

long merkle__dispatch_env(const merkle__kernel_family *f, const char *var)
{
    const char *env = getenv(var);
    if (!env || !*env || strcmp(env, "auto") == 0) return -1;
    long i = find(f, env);
    if (i < 0 || !f->available((size_t)i) || !f->self_test((size_t)i)) return -1;
    return i;
}

merkle_status merkle__dispatch_resolve(const merkle__kernel_family *f, const char *name,
                                       size_t *index, int *automatic)
{
    *automatic = 0;
    if (!name || strcmp(name, "auto") == 0) {
        *automatic = 1;
        return MERKLE_OK;
    }
    long i = find(f, name);
    if (i < 0) return MERKLE_ERR_ARG;
    if (!f->available((size_t)i)) return MERKLE_ERR_UNSUPPORTED;
    if (!f->self_test((size_t)i)) return MERKLE_ERR_VERIFY;
    *index = (size_t)i;
    return MERKLE_OK;
}

size_t merkle__dispatch_list(const merkle__kernel_family *f, const char **names, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (!f->available(i)) continue;
        if (names && n < cap) names[n] = f->name(i);
        n++;
    }
    return n;
}
