/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** merkle__grow's slow path (src/common/internal.h): every growable array of the library
** grows here, so that the overflow checks are written once.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"

int merkle__grow_slow(void *pptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    if (elem == 0 || need > SIZE_MAX / elem) return -1;
    size_t nc = *cap < 8 ? 8 : *cap;
    /* double while the doubled size still fits; otherwise take exactly what is needed */
    while (nc < need) nc = nc <= SIZE_MAX / elem / 2 ? 2 * nc : need;
    if (nc > SIZE_MAX / elem) nc = need; /* the minimum of 8 of a huge element */
    void *p;
    memcpy(&p, pptr, sizeof p); /* *pptr is some T *: read it without punning the lvalue */
    void *np = realloc(p, nc * elem);
    if (!np) return -1;
    memcpy(pptr, &np, sizeof np);
    *cap = nc;
    return 0;
}
