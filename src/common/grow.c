/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** The growth helpers of src/common/internal.h: every growable heap array of the library
** grows through here, so that the size arithmetic is checked in one place.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"

size_t merkle__grow_cap(size_t cap, size_t need, size_t elem)
{
    if (need <= cap) return cap;
    if (elem == 0 || need > SIZE_MAX / elem) return 0;
    size_t nc = cap < 8 ? 8 : cap;
    /* double while the doubled size still fits; otherwise take exactly what is needed */
    while (nc < need) nc = nc <= SIZE_MAX / elem / 2 ? 2 * nc : need;
    if (nc > SIZE_MAX / elem) nc = need; /* the minimum of 8 of a huge element */
    return nc;
}

int merkle__realloc_n(void *pptr, size_t n, size_t elem)
{
    if (elem && n > SIZE_MAX / elem) return -1;
    void *p;
    memcpy(&p, pptr, sizeof p); /* *pptr is some T *: read it without punning the lvalue */
    size_t bytes = n * elem;
    void *np = realloc(p, bytes ? bytes : 1); /* never realloc(p, 0): that may free p */
    if (!np) return -1;
    memcpy(pptr, &np, sizeof np);
    return 0;
}

int merkle__grow_slow(void *pptr, size_t *cap, size_t need, size_t elem)
{
    size_t nc = merkle__grow_cap(*cap, need, elem);
    if (nc == 0 || merkle__realloc_n(pptr, nc, elem) != 0) return -1;
    *cap = nc;
    return 0;
}
